"""What a bot decides to do: one :class:`Action` (a stroke or a decision), ready for the wire or the referee."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from physics import Shot


@dataclass(frozen=True)
class Action:
    """A bot's move.

    ``kind``: ``shot`` (a stroke, also a lag stroke) or ``decision``.
    Stroke: ``shot`` is the :class:`physics.Shot` as executed (execution noise applied, see
    bots/levels.py), ``intended`` the stroke the search chose; ``call`` the 14.1 call (None,
    ``{"safety": True}`` or ``{"ball": n, "pocket": "FR"}``), ``cue_ball`` the placement (x, y) m
    when the cue ball is in hand. Decision: ``name`` and ``arg`` as offered in
    ``legal_actions()["decisions"]``.
    ``plan``: the intent in words (``pot 7 in FR``, ``safety on 3``, ``break``, ``lag``, ...);
    ``value``: the search's value of the chosen move (pool: about -2..+2, 1 = a pot with no
    position; carom: estimated chance of scoring); ``sims``: physics simulations run to choose.
    """

    kind: str
    shot: Optional[Shot] = None
    intended: Optional[Shot] = None
    call: Optional[Dict[str, Any]] = None
    cue_ball: Optional[Tuple[float, float]] = None
    name: Optional[str] = None
    arg: Any = None
    plan: str = ""
    value: float = 0.0
    sims: int = 0

    def stroke(self) -> Dict[str, float]:
        """The ``stroke`` map of a ``shot`` message: phi_deg (degrees, in [0, 360)), V0 m/s, a, b (R), theta_deg."""
        s = self.shot
        if s is None:
            raise ValueError("stroke: this action is not a shot")
        return {"phi_deg": float(s.phi_deg) % 360.0, "V0": float(s.V0), "a": float(s.a), "b": float(s.b),
                "theta_deg": float(s.theta_deg)}
