"""Protocol version and the limits every inbound field is checked against.

All limits live here, named and documented, so the server, the bots, the load tests and
docs/protocol.md agree on one set of numbers.

Stroke ranges follow the physics contract (``physics.simulate`` refuses the same values; see
shared/spec/physics.md section 2.5 and issue 2): cue speed ``V0`` in (0, 10] m/s, tip offset
``sqrt(a^2 + b^2) <= 0.5`` ball radii (the miscue limit), cue elevation ``theta_deg`` in
[0, 70] degrees. A test checks that the two stay in agreement.
"""

from __future__ import annotations

PROTOCOL_VERSION = 1
"""The protocol version this code speaks; agreed in ``hello`` / ``welcome``."""

SUPPORTED_VERSIONS = frozenset({1})

MAX_FRAME_BYTES = 8 * 1024
"""Largest inbound WebSocket message (bytes). Larger frames close the connection with 1009."""

MAX_NAME_CHARS = 32  # display name
MAX_CLIENT_CHARS = 64  # client software name in hello
MAX_ID_CHARS = 32  # table ids and other server-made identifiers
MAX_TOKEN_CHARS = 64  # seat (resume) tokens
MAX_CHAT_CHARS = 280  # one chat line
MAX_DISCIPLINE_CHARS = 32
MAX_DECISION_CHARS = 32

MAX_CONFIG_ENTRIES = 24  # keys in a discipline configuration map (per level)
MAX_CONFIG_DEPTH = 2  # a configuration value may be a map of scalars (e.g. shot_clock), no deeper
MAX_CONFIG_KEY_CHARS = 32
MAX_CONFIG_STR_CHARS = 32
MAX_CONFIG_LIST = 8
MAX_CONFIG_NUMBER = 1.0e6  # absolute value of any number in a configuration

AIM_PER_S = 10.0  # ``aim`` messages counted per second per connection (burst the same); more are dropped
AIM_BURST = 10.0

PREVIEW_PER_S = 2.0  # ``preview`` messages per second per connection (burst PREVIEW_BURST); more are refused
PREVIEW_BURST = 6.0
EDIT_PER_S = 4.0  # ``place_balls``, ``undo``, ``redo``, ``reset`` per second per connection (burst EDIT_BURST)
EDIT_BURST = 12.0
PRACTICE_UNDO = 20  # positions a practice table keeps to undo (and as many to redo)
MAX_DRILL_ID_CHARS = 48
MAX_POSITION_CODE_CHARS = 128  # rules/position.py MAX_CODE_CHARS

LOBBY_PAGE = 50  # tables in a ``lobby`` message unless the subscriber asks for another page size
MAX_LOBBY_PAGE = 100  # the largest page a ``lobby_subscribe`` may ask for
MAX_LOBBY_OFFSET = 100_000

MAX_SEQ = 2**53  # client sequence numbers and table versions are integers in [0, 2**53]

# the stroke (units: degrees, m/s, ball radii)
PHI_DEG_MIN, PHI_DEG_MAX = -360.0, 360.0
V0_MAX = 10.0  # m/s; V0 must be > 0
TIP_OFFSET_MAX = 0.5  # sqrt(a^2 + b^2) in ball radii (miscue limit)
THETA_DEG_MIN, THETA_DEG_MAX = 0.0, 70.0

COORD_MIN, COORD_MAX = 0.0, 4.0  # m: any placement on any table preset lies inside
MAX_BALL_ID = 15
MAX_SEAT = 1  # seats 0 and 1
