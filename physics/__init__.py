"""billar physics: event-based shot simulation for pool and carom tables.

Public API:

- :func:`get_table`, :data:`TABLES` (``pool-9ft``, ``pool-8ft``, ``pool-7ft``, ``carom``)
- :class:`BallState`, :class:`Event`, :class:`SimResult` (the event log and trajectory queries)
- :func:`simulate` and :class:`Shot` (the simulator; see :mod:`physics.simulate`)

Knows nothing of games, players or networks (DESIGN.md).
"""

from physics.table import TABLES, Table, get_table
from physics.events import BallState, Event, SimResult
from physics.simulate import Shot, simulate

__all__ = ["TABLES", "Table", "get_table", "BallState", "Event", "SimResult", "Shot", "simulate"]
