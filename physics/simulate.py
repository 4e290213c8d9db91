"""The shot simulator's Python API: :class:`Shot` and :func:`simulate`.

``simulate`` validates its input, then hands the shot to the compiled event loop
(:mod:`physics.engine`), which runs without the GIL and returns the event log as a
:class:`~physics.events.SimResult`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple, Union

from physics import engine as _engine
from physics.events import SimResult
from physics.table import Table, get_table

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


_GEOMETRY: Dict[int, "_engine.TableGeometry"] = {}


def _geometry(table: Table) -> "_engine.TableGeometry":
    g = _GEOMETRY.get(id(table))
    if g is None or g.table is not table:
        if len(_GEOMETRY) > 64:
            _GEOMETRY.clear()
        g = _engine.TableGeometry(table)
        _GEOMETRY[id(table)] = g
    return g


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
    if not isinstance(table, Table):
        table = get_table(table)
    bm, cm = _model_codes(table, cushion_model, ball_model, max_events)
    if not isinstance(shot, Shot) and not (isinstance(shot, (list, tuple)) and shot):
        raise ValueError(f"shot: must be a Shot or a non-empty sequence of Shots, got {shot!r}")
    return _engine.simulate(_geometry(table), balls, shot, Shot, OVERLAP_TOL, V0_MAX, MISCUE_LIMIT, THETA_MAX_DEG,
                            bm, cm, max_events)


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
    if not isinstance(table, Table):
        table = get_table(table)
    return bool(_engine.on_playing_surface(_geometry(table), float(r[0]), float(r[1]), OVERLAP_TOL))


def simulate_with_snapshots(table, balls, shot, **kw):
    """:func:`simulate`, plus the core's own state of every ball right after each event.

    Returns ``(result, snapshots)`` where ``snapshots[k]`` maps ball id -> BallState after
    ``result.events[k]`` (for tests of the log's replay; slower than :func:`simulate`).
    """
    args = _prepare(table, balls, shot, kw.get("cushion_model"), kw.get("ball_model", "frictional_inelastic"), kw.get("max_events", 5000))
    return _engine.run(*args, snapshots=True)


def _model_codes(table, cushion_model, ball_model, max_events):
    """The engine's codes of the ball and cushion models; ValueError for an unknown model name or
    a bad ``max_events``."""
    if cushion_model is None:
        cushion_model = table.default_cushion_model
    cm = _engine.CUSHION_MODELS.get(cushion_model) if isinstance(cushion_model, str) else None
    if cm is None:
        raise ValueError(f"cushion_model: unknown model {cushion_model!r}; expected one of {list(CUSHION_MODELS)}")
    bm = _engine.BALL_MODELS.get(ball_model) if isinstance(ball_model, str) else None
    if bm is None:
        raise ValueError(f"ball_model: unknown model {ball_model!r}; expected one of {list(BALL_MODELS)}")
    if type(max_events) is not int or not (1 <= max_events <= MAX_EVENTS_LIMIT):
        raise ValueError(f"max_events: must be an int in [1, {MAX_EVENTS_LIMIT}], got {max_events!r}")
    return bm, cm


def _prepare(table, balls, shot, cushion_model, ball_model, max_events):
    """Validate the arguments of :func:`simulate`; return the positional arguments of ``engine.run``."""
    if not isinstance(table, Table):
        table = get_table(table)
    bm, cm = _model_codes(table, cushion_model, ball_model, max_events)
    if isinstance(shot, Shot):
        shots = [shot]
    elif isinstance(shot, (list, tuple)) and shot:
        shots = list(shot)
    else:
        raise ValueError(f"shot: must be a Shot or a non-empty sequence of Shots, got {shot!r}")
    geometry = _geometry(table)
    ids, xs, ys, strikes = _engine.prepare(geometry, balls, shots, Shot, OVERLAP_TOL, V0_MAX, MISCUE_LIMIT, THETA_MAX_DEG)
    return (geometry, ids, xs, ys, strikes, bm, cm, max_events)
