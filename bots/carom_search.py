"""Search for a scoring carom by simulating candidate strokes with the real physics.

A carom game (any discipline of :mod:`rules.carom_disciplines`, or a pentathlon/triathlon)
judges each candidate through its own referee (``game.evaluate_stroke``), so the search finds
strokes that *count*: the discipline's cushions before the second ball, the red first on a
break, no zone foul in balkline or libre corner zones. Nothing here knows a rule.

Candidates, in order (all deterministic):

1. aim angles ``phi_deg`` across each object ball's silhouette as seen from the cue ball (from a
   full hit to the thinnest cut on either side, ``fine_step_deg`` apart), then a sweep of the
   whole circle every ``step_deg``;
2. for each cue speed ``V0`` (m/s) of ``speeds`` and tip offset ``(a, b)`` of ``spins``
   (fractions of R), the angles above.

The first candidate whose stroke scores is returned. A simulation costs tens of microseconds
and the referee only reads candidates whose cue ball touches both object balls, so a few
thousand candidates take a fraction of a second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from bots.lag import lag_speed
from physics import Shot, simulate
from physics.events import SimResult
from physics.table import Table

#: cue speeds tried, m/s
DEFAULT_SPEEDS: Tuple[float, ...] = (2.5, 3.5, 5.0, 1.6)
#: tip offsets (a, b) tried: centre, follow, draw, right and left english
DEFAULT_SPINS: Tuple[Tuple[float, float], ...] = ((0.0, 0.0), (0.0, 0.3), (0.0, -0.3), (0.3, 0.1), (-0.3, 0.1))
RED = 2


@dataclass(frozen=True)
class CaromCandidate:
    """A stroke found by :func:`find_carom`: the :class:`physics.Shot`, its simulation, the
    referee's verdict (``game.evaluate_stroke``) and how many candidates were simulated."""

    shot: Shot
    sim: SimResult
    verdict: dict
    tried: int


def _bearing(a, b) -> float:
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))


def candidate_angles(table: Table, layout: Mapping[int, Tuple[float, float]], cue: int,
                     step_deg: float = 1.0, fine_step_deg: float = 0.25) -> List[float]:
    """Aim angles (degrees, counter-clockwise from +x) to try for cue ball ``cue`` from ``layout``.

    First the angles that hit each object ball directly (its silhouette of half-width
    asin(2R/d) around the bearing, full hits first), then the full circle every ``step_deg``.
    Duplicates (within 1e-9 deg) are dropped.
    """
    if step_deg <= 0 or fine_step_deg <= 0:
        raise ValueError("step_deg: angle steps must be positive")
    rc = layout[cue]
    out: List[float] = []
    seen = set()

    def add(phi: float) -> None:
        phi = phi % 360.0
        key = round(phi, 9)
        if key not in seen:
            seen.add(key)
            out.append(phi)

    for b, rb in sorted(layout.items()):
        if b == cue:
            continue
        d = math.hypot(rb[0] - rc[0], rb[1] - rc[1])
        half = math.degrees(math.asin(min(1.0, 2.0 * table.R / d)))
        centre = _bearing(rc, rb)
        n = int(half // fine_step_deg)
        for k in range(n + 1):
            add(centre + k * fine_step_deg)
            if k:
                add(centre - k * fine_step_deg)
    k = 0
    while k * step_deg < 360.0:
        add(k * step_deg)
        k += 1
    return out


def _touches_both(sim: SimResult, cue: int, object_balls: Sequence[int]) -> bool:
    hit = set()
    for e in sim.events:
        if e.kind == "ball_ball" and cue in e.balls:
            hit.update(e.balls)
    return all(b in hit for b in object_balls)


def find_carom(game, player: Optional[int] = None, *, speeds: Sequence[float] = DEFAULT_SPEEDS,
               spins: Sequence[Tuple[float, float]] = DEFAULT_SPINS, step_deg: float = 1.0,
               fine_step_deg: float = 0.25, max_sims: Optional[int] = None,
               accept: Optional[Callable[[SimResult, dict], bool]] = None,
               need_both: bool = True) -> Optional[CaromCandidate]:
    """The first candidate stroke that scores for seat ``player`` (default: the seat to act).

    ``game`` is a carom game or multi-discipline match in phase ``break`` or ``play``.
    ``accept(sim, verdict)`` replaces "the stroke scores" as the goal (e.g. a carom that also
    keeps both object balls in one zone); ``need_both`` skips the referee for candidates whose
    cue ball does not touch both object balls (set it False when the goal is not a carom).
    Returns a :class:`CaromCandidate`, or None when no candidate qualifies (or ``max_sims``
    were tried). Never changes the game. Raises ``IllegalAction`` if the seat may not shoot now.
    """
    return next(scoring_strokes(game, player, speeds=speeds, spins=spins, step_deg=step_deg, fine_step_deg=fine_step_deg,
                                max_sims=max_sims, accept=accept, need_both=need_both), None)


def scoring_strokes(game, player: Optional[int] = None, *, speeds: Sequence[float] = DEFAULT_SPEEDS,
                    spins: Sequence[Tuple[float, float]] = DEFAULT_SPINS, step_deg: float = 1.0,
                    fine_step_deg: float = 0.25, max_sims: Optional[int] = None,
                    accept: Optional[Callable[[SimResult, dict], bool]] = None,
                    need_both: bool = True) -> Iterator[CaromCandidate]:
    """Every qualifying candidate of :func:`find_carom`, in its order, lazily (same arguments).

    ``tried`` of each yielded candidate counts the simulations run so far. The generator stops
    after ``max_sims`` simulations or when the candidates run out. Never changes the game.
    """
    seat = game.to_act if player is None else player
    layout = game.prepare_shot(seat, None)
    cue = game.cue_ball(seat)
    objects = [b for b in sorted(layout) if b != cue]
    angles = candidate_angles(game.table, layout, cue, step_deg, fine_step_deg)
    tried = 0
    for V0 in speeds:
        for a, b in spins:
            for phi in angles:
                if max_sims is not None and tried >= max_sims:
                    return
                shot = Shot(cue_ball=cue, phi_deg=phi, V0=V0, a=a, b=b)
                sim = simulate(game.table, layout, shot)
                tried += 1
                if need_both and not _touches_both(sim, cue, objects):
                    continue
                verdict = game.evaluate_stroke(seat, sim)
                if (accept(sim, verdict) if accept is not None else verdict["scores"]):
                    yield CaromCandidate(shot, sim, verdict, tried)


def safe_stroke(game, player: Optional[int] = None, V0: float = 1.2) -> Shot:
    """A soft stroke straight at the centre of the red: legal on a break (red first) and a miss
    almost always (a bot's fallback when :func:`find_carom` finds nothing)."""
    seat = game.to_act if player is None else player
    layout = game.prepare_shot(seat, None)
    cue = game.cue_ball(seat)
    return Shot(cue_ball=cue, phi_deg=_bearing(layout[cue], layout[RED]), V0=V0)


#: cue speeds tried for the lag, m/s: 0.6..2.58 every 0.02
LAG_SPEEDS: Tuple[float, ...] = tuple(0.6 + 0.02 * k for k in range(100))


def lag_shots(game, speeds: Iterable[float] = LAG_SPEEDS) -> List[Shot]:
    """One lag stroke per seat (rules-carom C4): straight at the top cushion, with the speed among
    ``speeds`` whose ball (simulated alone with the red) comes back to rest nearest the bottom
    cushion after touching the top one (:func:`bots.lag.lag_speed`). Returns ``[shot of seat 0,
    shot of seat 1]``."""
    layout = game.lag_layout()
    table = game.table
    top = [c.name for c in table.cushions if c.normal[0] < -0.5][0]
    speeds = tuple(speeds)
    out = []
    for seat in (0, 1):
        solo = ((seat, tuple(layout[seat])), (RED, tuple(layout[RED])))
        out.append(Shot(cue_ball=seat, phi_deg=0.0, V0=lag_speed(table, solo, seat, speeds, top)))
    return out
