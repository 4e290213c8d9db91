"""Finding puzzles in finished games: positions where the shooter missed but a scoring stroke exists.

:func:`mine_record` walks a game record (the format ``billar referee`` replays, rules/replay.py)
through its referee. A stroke is a *candidate* when it was played in phase ``play`` (no break, no
lag), with the 14.1 cue ball on the bed (not in hand), and it scored nothing for its shooter (14.1:
no ball credited; carom: no point). For each candidate, in the record's order:

1. **The position.** The balls before the stroke as a :class:`rules.position.Position` on the
   code's 0.1 mm grid (the puzzle's code; a layout the code refuses, e.g. a ball in a pocket's jaws,
   is skipped). The solver always shoots ball 0: in carom, when the shooter's ball was the yellow,
   white and yellow change places (the same position, colours swapped). The referee is set up at
   the position as a practice table does (:func:`server.puzzles.judge.new_game`), so the search and
   the judge of attempts see one game.
2. **The search** (bots/). 14.1: the ghost-ball pots of ``bots.pool.pot_candidates`` at level 5
   (every callable ball and pocket, easiest first), the aim refined by simulation
   (``bots.pool._refine_phi``), each at the level's speeds and tip offsets, ruled by the referee
   (``bots.pool.Judge``): a stroke *scores* when the called ball drops in the called pocket and
   the referee credits it without a foul. Carom: ``bots.carom_search.scoring_strokes`` (the
   discipline's own referee decides what scores) over at most :data:`CAROM_BUDGET` candidates.
3. **Not trivial.** 14.1: refused when a straight-in short pot scores (cut under
   :data:`STRAIGHT_CUT_DEG` with cue ball and object ball together under :data:`SHORT_M` from the
   pocket) or when more than :data:`MAX_POT_PAIRS` ball/pocket pairs score. Carom: refused when
   more than :data:`MAX_CAROM_SCORING` of the search's candidates score.
4. **Fair.** A scoring stroke is replayed :data:`TRIALS` times with execution noise drawn
   uniformly within +-:data:`NOISE_PHI_DEG` of aim, +-:data:`NOISE_V_REL` of speed and
   +-:data:`NOISE_TIP` R of tip offset (a seeded generator: the seed is the CRC-32 of the position
   code, so mining is deterministic), each judged by :func:`server.puzzles.judge.judge`. The
   stroke with the most successes is the solution (the first found on a tie); the puzzle is kept
   when it has at least :data:`MIN_SUCCESSES`.

A game gives at most ``max_puzzles`` puzzles and at most ``max_examined`` candidates are searched
(the cost is bounded per game). The same record always gives the same puzzles.
"""

from __future__ import annotations

import logging
import math
import random
import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from bots import carom_search
from bots import pool
from bots.aim import speed_for
from bots.levels import LEVELS
from physics import Shot
from protocol import limits as L
from rules.base import IllegalAction
from rules.multi import MultiGame
from rules.position import Position, PositionError, encode
from rules.registry import canonical_name, new_game
from rules.replay import apply_entry
from server.puzzles.judge import CUE, STROKE_KEYS, goal_of, judge
from server.puzzles.judge import new_game as game_at_position

log = logging.getLogger("billar.puzzles")

TRIALS = 10
MIN_SUCCESSES = 7
NOISE_PHI_DEG = 0.1  # deg
NOISE_V_REL = 0.02  # fraction of V0
NOISE_TIP = 0.02  # ball radii, on a and on b
STRAIGHT_CUT_DEG = 10.0
SHORT_M = 1.0  # cue ball to object ball plus object ball to pocket, m
MAX_POT_PAIRS = 3
POT_STROKES_PER_PAIR = 2  # scoring strokes of one ball/pocket pair tried under noise
CAROM_BUDGET = 6000  # candidate strokes simulated per carom position
MAX_CAROM_SCORING = 80
CAROM_TRIED = 10  # scoring carom strokes tried under noise (spread over those found)
POT_LEVEL = LEVELS[5]


@dataclass(frozen=True)
class Mined:
    """A puzzle found: ``code`` (the position's code), ``discipline``, ``goal`` (``pot``/``carom``), the
    solution ``stroke`` (``phi_deg``, ``a``, ``b``, ``theta_deg``, ``V0``) and ``call`` (14.1) or None,
    ``stroke_index`` (the entry of the record it comes from), ``successes`` of :data:`TRIALS` noisy
    replays, ``scoring`` (candidate strokes of the search that scored: how open the position is)."""

    code: str
    discipline: str
    goal: str
    stroke: Dict[str, float]
    call: Optional[Dict[str, Any]]
    stroke_index: int
    successes: int
    scoring: int

    def solution(self) -> Dict[str, Any]:
        return {"stroke": dict(self.stroke), "call": None if self.call is None else dict(self.call)}


@dataclass
class Candidate:
    """A missed stroke: the entry's ``index``, the ``position`` before it (ball 0 the shooter's)."""

    index: int
    position: Position


def _shot_dict(shot: Shot) -> Dict[str, float]:
    return {k: float(getattr(shot, k)) for k in STROKE_KEYS}


def candidates(record: Mapping[str, Any]) -> Iterator[Candidate]:
    """The missed strokes of ``record`` (module docstring), in order. Raises ``ValueError`` for a record its
    referee cannot follow, or a discipline that has no puzzles (pentathlon, triathlon)."""
    name = canonical_name(record.get("discipline") or "")
    game = new_game(name, record.get("config") or {}, seed=record.get("seed") or 0)
    if isinstance(game, MultiGame):
        raise ValueError(f"discipline: {name} games are not mined (their disciplines change)")
    strokes = record.get("strokes")
    if not isinstance(strokes, list):
        raise ValueError("strokes: expected a list")
    preset = game.table.name
    for i, entry in enumerate(strokes):
        pos = None
        seat = entry.get("player") if isinstance(entry, Mapping) else None
        if (isinstance(entry, Mapping) and entry.get("sim") is not None and not entry.get("lag")
                and seat in (0, 1) and game.phase == "play" and game.to_act == seat):
            layout = dict(game.layout())
            if name == "straight_pool":
                if CUE in layout and not entry.get("cue_ball_position") and not getattr(game, "in_hand", None):
                    pos = Position.make(preset, name, layout)
            else:
                if game.cue_ball(seat) == 1:
                    layout[0], layout[1] = layout[1], layout[0]
                pos = Position.make(preset, name, layout)
        try:
            _, _, _, ruling = apply_entry(game, entry)
        except (TypeError, KeyError, IndexError, AttributeError) as exc:
            raise ValueError(f"entry {i}: malformed entry ({type(exc).__name__})") from None
        if pos is not None and ruling.points[seat] <= 0:
            yield Candidate(i, pos)


def _noisy(stroke: Mapping[str, float], rng: random.Random) -> Dict[str, float]:
    """``stroke`` with uniform execution noise (module docstring), kept within the protocol's limits."""
    phi = stroke["phi_deg"] + rng.uniform(-NOISE_PHI_DEG, NOISE_PHI_DEG)
    phi = math.fmod(phi, 360.0)
    V0 = min(L.V0_MAX, max(0.05, stroke["V0"] * (1.0 + rng.uniform(-NOISE_V_REL, NOISE_V_REL))))
    a = stroke["a"] + rng.uniform(-NOISE_TIP, NOISE_TIP)
    b = stroke["b"] + rng.uniform(-NOISE_TIP, NOISE_TIP)
    r = math.hypot(a, b)
    if r > L.TIP_OFFSET_MAX:
        a, b = a * L.TIP_OFFSET_MAX / r * 0.999999, b * L.TIP_OFFSET_MAX / r * 0.999999
    return {"phi_deg": phi, "a": a, "b": b, "theta_deg": stroke["theta_deg"], "V0": V0}


def robustness(position: Position, code: str, stroke: Mapping[str, float], call: Optional[Mapping[str, Any]]) -> int:
    """How many of :data:`TRIALS` noisy replays of ``stroke`` (seeded by ``code`` and the stroke) the judge rules
    solved."""
    seed = zlib.crc32(f"{code}|{stroke['phi_deg']!r}|{stroke['V0']!r}|{stroke['a']!r}|{stroke['b']!r}".encode())
    rng = random.Random(seed)
    wins = 0
    for _ in range(TRIALS):
        try:
            wins += judge(position, _noisy(stroke, rng), call).solved
        except ValueError:
            pass
    return wins


def _pot_search(position: Position) -> Tuple[List[Tuple[Dict[str, float], Dict[str, Any]]], bool, int]:
    """(scoring strokes to try under noise with their calls, trivial?, scoring pairs) of a 14.1 position."""
    game = game_at_position(position)
    T = game.table
    layout = game.layout()
    jd = pool.Judge(game, 0)
    level = POT_LEVEL
    found: Dict[Tuple[int, str], List[Dict[str, float]]] = {}
    trivial = False
    for ease, placement, aim in pool.pot_candidates(game, 0, level):
        base = Shot(CUE, phi_deg=aim.phi_deg, V0=speed_for(T, aim), b=0.1)
        phi, ok = pool._refine_phi(jd, layout, aim, base, level.phi_offsets_deg)
        if not ok:
            continue
        call = {"ball": aim.ball, "pocket": aim.pocket}
        for f in level.speed_factors:
            for a, b in level.spins:
                shot = Shot(CUE, phi_deg=phi % 360.0, V0=min(8.0, max(0.5, base.V0 * f)), a=a, b=b)
                sim = jd.simulate(layout, shot)
                if not pool._pocketed_in(sim, aim.ball, aim.pocket):
                    continue
                try:
                    ruling, _ = jd.rule(call, None, sim)
                except (IllegalAction, ValueError):
                    continue
                if ruling.foul is not None or ruling.points[0] <= 0:
                    continue
                found.setdefault((aim.ball, aim.pocket), []).append(_shot_dict(shot))
                if aim.cut_deg < STRAIGHT_CUT_DEG and aim.cue_distance + aim.object_distance < SHORT_M:
                    trivial = True
    if len(found) > MAX_POT_PAIRS:
        trivial = True
    tries = [(s, {"ball": b, "pocket": p}) for (b, p), strokes in found.items() for s in strokes[:POT_STROKES_PER_PAIR]]
    return tries, trivial, sum(len(v) for v in found.values())


def _carom_search(position: Position) -> Tuple[List[Tuple[Dict[str, float], None]], bool, int]:
    """(scoring strokes to try under noise, trivial?, scoring candidates) of a carom position."""
    game = game_at_position(position)
    found = [_shot_dict(c.shot) for c in carom_search.scoring_strokes(game, 0, max_sims=CAROM_BUDGET)]
    scoring = len(found)
    trivial = scoring > MAX_CAROM_SCORING
    if scoring > CAROM_TRIED:  # spread over the strokes found: different speeds and spins
        step = scoring / CAROM_TRIED
        found = [found[int(k * step)] for k in range(CAROM_TRIED)]
    return [(s, None) for s in found], trivial, scoring


def examine(candidate: Candidate) -> Optional[Mined]:
    """The puzzle of a missed stroke, or None (no code, nothing scores, trivial, or no fair solution)."""
    pos = candidate.position
    try:
        code = encode(pos)
    except PositionError:
        return None
    pos = pos.quantized()
    goal = goal_of(pos.discipline)
    tries, trivial, scoring = _pot_search(pos) if goal == "pot" else _carom_search(pos)
    if trivial or not tries:
        return None
    best: Optional[Tuple[int, Dict[str, float], Optional[Dict[str, Any]]]] = None
    for stroke, call in tries:
        if not judge(pos, stroke, call).solved:  # the judge's own check of the nominal stroke
            continue
        wins = robustness(pos, code, stroke, call)
        if best is None or wins > best[0]:
            best = (wins, stroke, call)
            if wins == TRIALS:
                break
    if best is None or best[0] < MIN_SUCCESSES:
        return None
    return Mined(code, pos.discipline, goal, best[1], best[2], candidate.index, best[0], scoring)


def mine_record(record: Mapping[str, Any], max_puzzles: int = 3, max_examined: int = 12) -> List[Mined]:
    """The puzzles of a finished game's ``record`` (module docstring): at most ``max_puzzles``, from at most
    ``max_examined`` missed strokes, in the record's order, each position once. Deterministic. Raises
    ``ValueError`` for a record the referee cannot follow or a discipline without puzzles."""
    out: List[Mined] = []
    seen = set()
    examined = 0
    for cand in candidates(record):
        if len(out) >= max_puzzles or examined >= max_examined:
            break
        examined += 1
        found = examine(cand)
        if found is not None and found.code not in seen:
            seen.add(found.code)
            out.append(found)
    return out
