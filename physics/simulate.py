"""The shot simulator's Python API: :class:`Shot` and :func:`simulate`.

``simulate`` hands its arguments to the compiled engine (:mod:`physics.engine`) in one call:
it validates them, runs the event loop without the GIL and returns the event log as a
:class:`~physics.events.SimResult`. The limits of the input are constants of this module,
given to the engine once at import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Tuple, Union

from physics import engine as _engine
from physics.events import SimResult
from physics.table import Table

V0_MAX = 10.0  # m/s, hardest stroke accepted (FastFiz's limit; a hard break is 8-10 m/s)
THETA_MAX_DEG = 70.0  # deg, steepest cue elevation accepted (FastFiz's limit)
MISCUE_LIMIT = 0.5  # tip offset beyond which a real stroke miscues, as a fraction of R
MAX_EVENTS_LIMIT = 1_000_000  # hard ceiling of max_events (memory of the log)
OVERLAP_TOL = 1.0e-6  # m, overlap of two balls (or a ball and a cushion) accepted as touching (the engine never leaves more)

CUSHION_MODELS = tuple(_engine.CUSHION_MODELS)
BALL_MODELS = tuple(_engine.BALL_MODELS)


@dataclass(frozen=True)
class Shot:
    """One cue stroke.

    ``cue_ball``: id of the struck ball; ``phi_deg``: aim, degrees counter-clockwise from +x;
    ``V0``: cue speed in m/s, in (0, 10]; ``a``: side offset of the tip contact (+ = right
    english), ``b``: vertical offset (+ = follow), both fractions of the ball radius with
    sqrt(a^2 + b^2) <= 0.5 (the miscue limit); ``theta_deg``: cue elevation in [0, 70] degrees.
    """

    cue_ball: int = 0
    phi_deg: float = 0.0
    V0: float = 1.0
    a: float = 0.0
    b: float = 0.0
    theta_deg: float = 0.0


_engine.configure(Shot, OVERLAP_TOL, V0_MAX, MISCUE_LIMIT, THETA_MAX_DEG, MAX_EVENTS_LIMIT)
_simulate = _engine.simulate


def simulate(
    table: Union[Table, str],
    balls: Mapping[int, Tuple[float, float]],
    shot: Union[Shot, Sequence[Shot]],
    *,
    cushion_model: Optional[str] = None,
    ball_model: str = "frictional_inelastic",
    max_events: int = 5000,
) -> SimResult:
    """Simulate one stroke and return its event log.

    ``table``: a :class:`~physics.table.Table` or a preset name (``pool-9ft``, ``pool-8ft``,
    ``pool-7ft``, ``carom``). ``balls``: ball id (int 0..15) -> centre (x, y) in metres of every
    ball on the playing surface (the bed, or a pocket mouth where a ball can hang), all at rest;
    touching is allowed, overlapping (by more than 1 um) is not. Every layout a shot ends in is
    a valid layout for the next one.
    ``shot``: a :class:`Shot`, or a sequence of shots on distinct cue balls, all struck at
    t = 0 (the lag). ``cushion_model``: ``han_2005`` or ``mathavan_2010`` (None: the table's
    ``default_cushion_model``). ``ball_model``: ``frictional_inelastic`` (default, with throw)
    or ``frictionless_elastic``. ``max_events``: hard cap on events after the strike; when it is
    reached every ball stops where it is and the last event is ``event_cap``.

    Returns a :class:`~physics.events.SimResult` (see physics/events.py for the event kinds),
    with the stroke flags of the cue stick's follow-through in ``flags`` (physics/follow_through.pyx).
    Pure and deterministic: the same input gives a bit-identical log.

    Raises ``ValueError`` whose message starts with the offending field: ``table`` (unknown
    preset), ``balls`` (not a mapping of id -> (x, y), a ball off the playing surface, in a
    pocket, on a jaw or into a cushion, two balls overlapping), ``shot``/``cue_ball`` (not a Shot, unknown cue ball, the same
    cue ball twice), ``V0`` (not finite or outside (0, 10] m/s), ``phi_deg`` (not finite),
    ``a``/``b`` (not finite, or sqrt(a^2 + b^2) > 0.5: miscue), ``theta_deg`` (outside
    [0, 70]), ``cushion_model``/``ball_model`` (unknown name), ``max_events`` (not an int in
    [1, 1_000_000]).
    Sources and models: physics/README.md.
    """
    return _simulate(table, balls, shot, cushion_model, ball_model, max_events)


def on_playing_surface(table: Union[Table, str], r: Tuple[float, float]) -> bool:
    """True if a ball at rest with centre ``r`` (x, y in m) may stand there: its centre inside the
    rectangle of the cushion noses or in a pocket mouth (between the lines of the pocket's two
    facings, behind the line through its jaw tips, in front of the line through the facings' back
    ends), the ball overlapping no cushion or jaw (by more than 1 um), the centre outside every
    pocket circle.

    Every non-pocketed ball of a :func:`simulate` result satisfies it, so every layout a shot ends
    in is a valid start for the next (tested: tests/physics property tests, balls driven into
    every jaw). (Ball-in-hand placement rules are stricter: see ``Table.on_bed``.)
    """
    return _engine.on_playing_surface(table, float(r[0]), float(r[1]))


def simulate_with_snapshots(table, balls, shot, *, cushion_model=None, ball_model="frictional_inelastic", max_events=5000):
    """:func:`simulate`, plus the core's own state of every ball right after each event.

    Returns ``(result, snapshots)`` where ``snapshots[k]`` maps ball id -> BallState after
    ``result.events[k]`` (for tests of the log's replay; slower than :func:`simulate`).
    """
    return _engine.run(*_engine.prepare(table, balls, shot, cushion_model, ball_model, max_events), snapshots=True)
