"""14.1 continuous: choose a stroke by simulating ghost-ball candidates and judging them with the referee.

The method (levels in bots/levels.py set the breadth):

1. **Candidates.** Every object ball the player may call and every pocket, aimed by the
   ghost-ball method (:func:`bots.aim.pots`: cut angle at most 75 degrees, clear paths, an
   entry angle the pocket accepts). With the cue ball in hand, a grid of placements in the
   region allowed (the kitchen: x below ``legal.shoot.in_hand.x_max``; or the whole bed) is
   scored first and the best placement of each ball/pocket pair is kept; object balls behind
   the head string are left out then (rules-14-1 R13: the first ball struck must be beyond it).
   Candidates are ranked by a geometric ease (:func:`pot_ease`) and the best ``level.pots`` go on.
2. **Aim refinement.** The physics has throw and squirt, the ghost ball has not: for each
   candidate the aim angles ``ghost + level.phi_offsets_deg`` are simulated and the centre of the
   run of angles that pockets the called ball is kept (the most forgiving aim).
3. **Speed and spin.** Each refined aim is played at ``level.speed_factors`` times
   :func:`bots.aim.speed_for` with each tip offset of ``level.spins``; every stroke is ruled by a
   private copy of the game's own referee (``apply_shot`` on ``game_from_state(game.to_state())``),
   so fouls, spotted balls, re-racks and the break ball of the next rack are exactly the
   referee's. Value of an outcome (:func:`outcome_value`): a fulfilled call is worth 1 plus
   ``level.position`` times the ease of the best pot from where the balls stop; a legal miss or
   safety is worth minus the ease the opponent gets; a foul costs 1 plus what the opponent gets.
4. **Robustness.** The ``level.finalists`` best strokes are replayed ``level.trials`` times with
   the level's own execution noise and ranked by their mean value.
5. **Safety.** Firm-enough strokes at the nearest object balls (full, half-ball left and
   right), called ``safety``, valued by what they leave the opponent. The bot plays one when it
   is worth more than the best pot.

Opening break (R5): cue ball near the head string, struck at a corner ball of the rack or the
apex, candidate speeds and english, each ruled (no breaking foul) and valued by the
opponent's leave. The lag (R3): straight up the table, at the speed that brings the ball back
nearest the head cushion. Decisions: see :func:`decide`.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from bots.action import Action
from bots.aim import Aim, pots, speed_for
from bots.lag import lag_speed as shared_lag_speed
from bots.levels import Level, execute
from physics import Shot, simulate
from physics.table import Table, Vec2
from rules.registry import game_from_state
from rules.spotting import behind_head_string, interferes_with_rack, overlaps_any

CUE = 0
WIN_VALUE = 5.0
MAX_CUT_DEG = 75.0
SAFETY_SPEEDS = (1.3, 2.0, 3.0)
IN_HAND_EASE = 0.7  # what ball in hand behind the head string is worth to the incoming player (ease units)


# ----- geometry: how easy a position is -------------------------------------------------------
def pot_ease(a: Aim) -> float:
    """Ease of a ghost-ball pot in [0, 1]: cos^2(cut) times exp(-(0.3 d_cue + 0.5 d_object)) (d in m).

    A heuristic of the usual kind (the pocket's margin of error shrinks with the cut angle and
    with both distances; Alciatore, *The Illustrated Principles of Pool and Billiards*, ch. 3):
    a 1 m straight-in pot with the cue ball 0.5 m away is worth about 0.52, a 45 degree cut
    over the same distances about 0.26.
    """
    c = math.cos(math.radians(min(a.cut_deg, 89.0)))
    return c * c * math.exp(-(0.3 * a.cue_distance + 0.5 * a.object_distance))


def best_ease(table: Table, layout: Mapping[int, Vec2], balls: Optional[Sequence[int]] = None) -> float:
    """Ease of the best pot for the cue ball where it lies in ``layout`` (0 when none or no cue ball)."""
    if CUE not in layout:
        return 0.0
    found = pots(table, layout, CUE, balls, max_cut_deg=MAX_CUT_DEG)
    return max((pot_ease(a) for a in found), default=0.0)


def placement_grid(table: Table, layout: Mapping[int, Vec2], x_max: Optional[float], n: int) -> List[Vec2]:
    """About ``n`` places for the cue ball in hand: a grid over the kitchen (x < ``x_max``) or the whole
    bed (``x_max`` None), 5 mm clear of the cushions, overlapping no ball. Deterministic."""
    R = table.R
    x_lo, x_hi = R + 0.005, (x_max if x_max is not None else table.length - R) - 0.005
    y_lo, y_hi = R + 0.005, table.width - R - 0.005
    ratio = (x_hi - x_lo) / (y_hi - y_lo)
    ny = max(2, int(round(math.sqrt(n / max(ratio, 1e-3)))))
    nx = max(2, int(round(n / ny)))
    out = []
    for i in range(nx):
        x = x_lo + (x_hi - x_lo) * (i + 0.5) / nx
        for j in range(ny):
            y = y_lo + (y_hi - y_lo) * (j + 0.5) / ny
            if overlaps_any(table, (x, y), layout) is None:
                out.append((x, y))
    return out


def in_hand_ease(table: Table, layout: Mapping[int, Vec2], in_hand: Mapping[str, Any], balls: Sequence[int], n: int = 12) -> float:
    """Ease of the best pot over a coarse placement grid for a cue ball in hand (0 when none)."""
    x_max = in_hand.get("x_max") if in_hand.get("region") == "kitchen" else None
    targets = [b for b in balls if not (x_max is not None and behind_head_string(table, layout[b]))]
    best = 0.0
    for p in placement_grid(table, layout, x_max, n):
        lay = dict(layout)
        lay[CUE] = p
        best = max(best, best_ease(table, lay, targets))
    return best


# ----- the referee as judge ----------------------------------------------------------------------
class Judge:
    """Rules candidate strokes on private copies of a game (the game itself never changes).

    ``judge(call, placement, shot)`` -> ``(sim, ruling, copy)``: the :class:`physics.SimResult`,
    the :class:`rules.base.Ruling` and the copied game after the stroke. ``sims`` counts the
    simulations run. Raises :class:`rules.base.IllegalAction` for a stroke the referee refuses.
    """

    def __init__(self, game: Any, seat: int):
        self.state = game.to_state()
        self.seat = seat
        self.table: Table = game.table
        self.sims = 0

    def copy(self) -> Any:
        return game_from_state(self.state)

    def judge(self, call: Optional[Dict[str, Any]], placement: Optional[Vec2], shot: Shot):
        g = self.copy()
        layout = g.prepare_shot(self.seat, call, placement)
        sim = simulate(self.table, layout, shot)
        self.sims += 1
        ruling = g.apply_shot(self.seat, call, sim)
        return sim, ruling, g

    def simulate(self, layout: Mapping[int, Vec2], shot: Shot):
        """Only the physics (no ruling) of ``shot`` from ``layout``."""
        self.sims += 1
        return simulate(self.table, layout, shot)

    def rule(self, call: Optional[Dict[str, Any]], placement: Optional[Vec2], sim):
        """(ruling, game after) of a stroke already simulated from the layout ``prepare_shot`` gives."""
        g = self.copy()
        g.prepare_shot(self.seat, call, placement)
        return g.apply_shot(self.seat, call, sim), g


def outcome_value(seat: int, ruling: Any, after: Any, position_weight: float) -> float:
    """Value of a ruled stroke for ``seat`` (see the module docstring): a game won is worth
    :data:`WIN_VALUE`; a fulfilled call 1 + weight x next ease; otherwise minus the opponent's
    ease (ball in hand counts :data:`IN_HAND_EASE`), and a foul one more point off."""
    if after.over:
        return WIN_VALUE if after.result and after.result.get("winner") == seat else -WIN_VALUE
    scored = ruling.points[seat] > 0 and ruling.foul is None
    acts = after.legal_actions()
    shoot = acts.get("shoot") or {}
    if after.to_act == seat and scored:
        if shoot.get("in_hand"):
            return 1.0 + position_weight * IN_HAND_EASE
        return 1.0 + position_weight * best_ease(after.table, after.layout(), shoot.get("balls"))
    if after.phase == "decision":
        opp = IN_HAND_EASE
    elif shoot.get("in_hand"):
        opp = IN_HAND_EASE
    else:
        opp = best_ease(after.table, after.layout(), shoot.get("balls"))
    return -opp - (1.0 if ruling.foul is not None else 0.0)


# ----- candidates ----------------------------------------------------------------------------
def _pocketed_in(sim, ball: int, pocket: str) -> bool:
    return any(e.kind == "ball_pocket" and e.balls and e.balls[0] == ball and e.pocket == pocket for e in sim.events) and not any(
        e.kind in ("ball_pocket", "off_table") and e.balls and e.balls[0] == CUE for e in sim.events)


def _refine_phi(judge: Judge, layout: Mapping[int, Vec2], aim: Aim, base: Shot, offsets: Sequence[float]) -> Tuple[float, bool]:
    """The aim (deg) at the centre of the longest run of offsets that pockets the called ball nominally."""
    hits = []
    for off in sorted(offsets):
        sim = simulate(judge.table, layout, replace(base, phi_deg=aim.phi_deg + off))
        judge.sims += 1
        hits.append((off, _pocketed_in(sim, aim.ball, aim.pocket)))
    best: List[float] = []
    run: List[float] = []
    for off, ok in hits:
        if ok:
            run.append(off)
            if len(run) > len(best):
                best = list(run)
        else:
            run = []
    if not best:
        return aim.phi_deg, False
    return aim.phi_deg + (best[0] + best[-1]) / 2.0, True


def pot_candidates(game: Any, seat: int, level: Level) -> List[Tuple[float, Optional[Vec2], Aim]]:
    """(ease, placement or None, aim) of the best ``level.pots`` ball/pocket pairs, easiest first."""
    T = game.table
    shoot = game.legal_actions()["shoot"]
    layout = game.layout()
    balls = list(shoot["balls"])
    in_hand = shoot.get("in_hand")
    best: Dict[Tuple[int, str], Tuple[float, Optional[Vec2], Aim]] = {}
    if in_hand:
        x_max = in_hand.get("x_max") if in_hand.get("region") == "kitchen" else None
        targets = [b for b in balls if not (x_max is not None and behind_head_string(T, layout[b]))]
        for p in placement_grid(T, layout, x_max, level.placements):
            lay = dict(layout)
            lay[CUE] = p
            for a in pots(T, lay, CUE, targets, max_cut_deg=MAX_CUT_DEG):
                e = pot_ease(a)
                k = (a.ball, a.pocket)
                if k not in best or e > best[k][0]:
                    best[k] = (e, p, a)
    else:
        for a in pots(T, layout, CUE, balls, max_cut_deg=MAX_CUT_DEG):
            best[(a.ball, a.pocket)] = (pot_ease(a), None, a)
    out = sorted(best.values(), key=lambda t: -t[0])
    return out[: level.pots]


def safety_candidates(game: Any, seat: int, level: Level) -> List[Tuple[Optional[Vec2], Shot, str]]:
    """(placement, stroke, plan) of safeties: full and half-ball hits on the nearest object balls."""
    T = game.table
    R = T.R
    shoot = game.legal_actions()["shoot"]
    layout = dict(game.layout())
    in_hand = shoot.get("in_hand")
    placement = None
    balls = list(shoot["balls"])
    if in_hand:
        x_max = in_hand.get("x_max") if in_hand.get("region") == "kitchen" else None
        balls = [b for b in balls if not (x_max is not None and behind_head_string(T, layout[b]))] or balls
        spots = placement_grid(T, layout, x_max, 6)
        placement = spots[len(spots) // 2] if spots else None
        if placement is None:
            return []
        layout[CUE] = placement
    cue = layout[CUE]
    near = sorted(balls, key=lambda b: math.hypot(layout[b][0] - cue[0], layout[b][1] - cue[1]))[: level.safeties]
    out = []
    for b in near:
        d = math.hypot(layout[b][0] - cue[0], layout[b][1] - cue[1])
        bearing = math.degrees(math.atan2(layout[b][1] - cue[1], layout[b][0] - cue[0]))
        half = math.degrees(math.asin(min(1.0, R / d))) if d > 0 else 0.0
        for off in (0.0, half, -half):
            for v in SAFETY_SPEEDS:
                out.append((placement, Shot(CUE, phi_deg=bearing + off, V0=v, b=-0.2 if off == 0.0 else 0.1), f"safety on {b}"))
    return out


def miss_value(table: Table, sim) -> float:
    """Estimated value of a stroke that does not fulfil its call, from the physics alone: minus the
    ease the balls leave the opponent, one more point off when the cue ball is pocketed or off the
    table (a foul with ball in hand). Used for noisy replays, where ruling every miss would cost
    more than it tells."""
    cue = sim.final.get(CUE)
    if cue is None or cue.state == "pocketed" or any(e.kind == "off_table" and e.balls[0] == CUE for e in sim.events):
        return -IN_HAND_EASE - 1.0
    lay = {b: tuple(st.r) for b, st in sim.final.items() if st.state != "pocketed"}
    return -best_ease(table, lay)


def _trial_value(judge: Judge, layout: Mapping[int, Vec2], call, placement, shot: Shot, level: Level,
                 rng: random.Random) -> float:
    """Value of one noisy execution of ``shot``: ruled when it pockets the called ball, else :func:`miss_value`."""
    sim = judge.simulate(layout, execute(shot, level, rng))
    if call and "ball" in call and _pocketed_in(sim, call["ball"], call["pocket"]):
        try:
            ruling, after = judge.rule(call, placement, sim)
        except Exception:
            return -2.0
        return outcome_value(judge.seat, ruling, after, level.position)
    if call and "ball" in call:
        return miss_value(judge.table, sim)
    try:
        ruling, after = judge.rule(call, placement, sim)
    except Exception:
        return -2.0
    return outcome_value(judge.seat, ruling, after, level.position)


BREAK_BALL_FACTORS = (1.8, 2.4)  # extra multiples of speed_for tried on a break ball (the cue ball must open the rack)
BREAK_BALL_OPEN_WEIGHT = 0.8  # value (times level.position) of driving every racked ball out of the rack outline


def racked_balls(table: Table, layout: Mapping[int, Vec2]) -> int:
    """Object balls lying in the rack outline (a re-racked fourteen counts 14)."""
    return sum(1 for b, p in layout.items() if b != CUE and interferes_with_rack(table, p))


def choose_stroke(game: Any, seat: int, level: Level, rng: random.Random) -> Action:
    """The stroke ``seat`` plays now in phase ``play`` (see the module docstring). Never changes ``game``.

    On a break ball (ten or more object balls still in the rack outline, as after a re-rack of
    fourteen, R21) firmer strokes (:data:`BREAK_BALL_FACTORS`) are tried too, and a pot is worth
    more by the share of racked balls it drives out of the rack outline
    (:data:`BREAK_BALL_OPEN_WEIGHT` times ``level.position``): the run goes on only if the rack opens."""
    judge = Judge(game, seat)
    T = game.table
    layout = game.layout()
    factors = tuple(level.speed_factors)
    racked = racked_balls(T, layout)
    if racked >= 10:
        factors += BREAK_BALL_FACTORS
    scored: List[Tuple[float, Optional[Dict[str, Any]], Optional[Vec2], Shot, str, Dict[int, Vec2]]] = []
    for ease, placement, aim in pot_candidates(game, seat, level):
        lay = dict(layout)
        if placement is not None:
            lay[CUE] = placement
        base = Shot(CUE, phi_deg=aim.phi_deg, V0=speed_for(T, aim), b=0.1)
        phi, pots_nominally = _refine_phi(judge, lay, aim, base, level.phi_offsets_deg)
        if not pots_nominally:
            continue
        call = {"ball": aim.ball, "pocket": aim.pocket}
        plan = f"pot {aim.ball} in {aim.pocket}"
        for f in factors:
            for a, b in level.spins:
                shot = Shot(CUE, phi_deg=phi, V0=min(8.0, max(0.5, base.V0 * f)), a=a, b=b)
                sim = judge.simulate(lay, shot)
                if not _pocketed_in(sim, aim.ball, aim.pocket):
                    continue
                try:
                    ruling, after = judge.rule(call, placement, sim)
                except Exception:
                    continue
                v = outcome_value(seat, ruling, after, level.position)
                if racked >= 10 and ruling.foul is None and after.to_act == seat:
                    opened = racked - racked_balls(T, after.layout())
                    v += BREAK_BALL_OPEN_WEIGHT * level.position * max(0, opened) / racked
                scored.append((v, call, placement, shot, plan, lay))
    best_pot = max((s[0] for s in scored), default=-9.0)
    if best_pot < 1.0 + level.position * 0.2 and level.level >= 2 or not scored:
        for placement, shot, plan in safety_candidates(game, seat, level):
            try:
                sim, ruling, after = judge.judge({"safety": True}, placement, shot)
            except Exception:
                continue
            v = outcome_value(seat, ruling, after, level.position)
            lay = dict(layout)
            if placement is not None:
                lay[CUE] = placement
            scored.append((min(v, 0.5), {"safety": True}, placement, shot, plan, lay))
    if not scored:  # nothing ruled as playable: a soft stroke at the nearest ball, called safety
        return _fallback(game, seat, level, rng, judge.sims)
    scored.sort(key=lambda s: -s[0])
    finalists = scored[: max(1, level.finalists)]
    if level.trials > 0 and len(finalists) > 1:
        ranked = []
        for nominal, call, placement, shot, plan, lay in finalists:
            vals = [nominal] + [_trial_value(judge, lay, call, placement, shot, level, rng) for _ in range(level.trials)]
            ranked.append((sum(vals) / len(vals), call, placement, shot, plan, lay))
        ranked.sort(key=lambda s: -s[0])
        finalists = ranked
    value, call, placement, shot, plan, _ = finalists[0]
    return Action("shot", shot=execute(shot, level, rng), intended=shot, call=call, cue_ball=placement, plan=plan,
                  value=value, sims=judge.sims)


def _fallback(game: Any, seat: int, level: Level, rng: random.Random, sims: int) -> Action:
    cands = safety_candidates(game, seat, replace(level, safeties=1))
    if cands:
        placement, shot, plan = cands[0]
    else:
        shoot = game.legal_actions()["shoot"]
        placement = None
        if shoot.get("in_hand"):
            spots = placement_grid(game.table, game.layout(), shoot["in_hand"].get("x_max"), 6)
            placement = spots[0]
        shot, plan = Shot(CUE, phi_deg=0.0, V0=2.0), "safety"
    return Action("shot", shot=execute(shot, level, rng), intended=shot, call={"safety": True}, cue_ball=placement,
                  plan=plan + " (fallback)", value=-2.0, sims=sims)


# ----- the opening break -----------------------------------------------------------------------
_BREAKS: Dict[Tuple[Any, ...], Tuple[float, Vec2, Shot, str, int]] = {}


def choose_break(game: Any, seat: int, level: Level, rng: random.Random) -> Action:
    """Opening break (R5): a safety break at a back corner ball of the rack (or the apex), with
    candidate placements on the head string, cuts, speeds and english ruled by the referee.

    The rack's sites are the same at every opening break (only the numbers differ, which the
    break does not care about), so the chosen stroke is kept per table, rack geometry and level
    and the search runs once per process."""
    key = (game.table.name, level.level, tuple(sorted((round(p[0], 6), round(p[1], 6)) for p in game.layout().values())))
    hit = _BREAKS.get(key)
    if hit is None:
        hit = _search_break(game, seat, level)
        _BREAKS[key] = hit
    v, cue, shot, plan, sims = hit
    return Action("shot", shot=execute(shot, level, rng), intended=shot, call=None, cue_ball=cue, plan=plan, value=v,
                  sims=sims)


def _search_break(game: Any, seat: int, level: Level) -> Tuple[float, Vec2, Shot, str, int]:
    judge = Judge(game, seat)
    T = game.table
    R = T.R
    layout = game.layout()
    shoot = game.legal_actions()["shoot"]
    x_max = (shoot.get("in_hand") or {}).get("x_max", T.head_string_x)
    xs = [b for b in layout if b != CUE]
    back_x = max(layout[b][0] for b in xs)
    back = [b for b in xs if abs(layout[b][0] - back_x) < R]
    corners = [min(back, key=lambda b: layout[b][1]), max(back, key=lambda b: layout[b][1])]
    apex = min(xs, key=lambda b: layout[b][0])
    cands = []
    for ys in (0.5, 0.35, 0.65):
        cue = (x_max - 0.02, T.width * ys)
        for tgt in corners:
            bearing = math.degrees(math.atan2(layout[tgt][1] - cue[1], layout[tgt][0] - cue[0]))
            d = math.hypot(layout[tgt][0] - cue[0], layout[tgt][1] - cue[1])
            toward_rail = 1.0 if layout[tgt][1] > T.width / 2 else -1.0
            thin = math.degrees(math.asin(min(1.0, 1.6 * R / d)))
            for cut in (0.6, 0.8, 0.95):
                phi = bearing + toward_rail * thin * cut / 0.95
                for v in (3.0, 4.0, 5.5):
                    for a in (0.0, -0.3 * toward_rail):
                        cands.append((cue, Shot(CUE, phi_deg=phi, V0=v, a=a, b=0.0), f"safety break on {tgt}"))
        bearing = math.degrees(math.atan2(layout[apex][1] - cue[1], layout[apex][0] - cue[0]))
        for v in (6.0, 8.0):
            cands.append((cue, Shot(CUE, phi_deg=bearing, V0=v, b=-0.2), "open break on the apex"))
    # cheapest first: a deterministic shuffle keeps variety across the budget
    order = list(range(len(cands)))
    random.Random(7).shuffle(order)
    budget = 2 * level.pots + 8
    best = None
    for i in order[:budget]:
        cue, shot, plan = cands[i]
        try:
            _, ruling, after = judge.judge(None, cue, shot)
        except Exception:
            continue
        v = outcome_value(seat, ruling, after, level.position)
        if ruling.foul is not None:
            v -= 2.0
        if best is None or v > best[0]:
            best = (v, cue, shot, plan)
    if best is None:
        cue, shot, plan = cands[0]
        best = (-9.0, cue, shot, plan)
    v, cue, shot, plan = best
    return v, cue, shot, plan, judge.sims


# ----- the lag ---------------------------------------------------------------------------------
#: cue speeds tried for the lag, m/s: 0.6..3.0 every 0.02
LAG_SPEEDS: Tuple[float, ...] = tuple(0.6 + 0.02 * k for k in range(121))


def lag_speed(table: Table, start: Vec2, ball: int) -> float:
    """Cue speed (m/s) that sends ``ball`` from ``start`` straight to the foot cushion and back to rest
    nearest the head cushion (R3): :func:`bots.lag.lag_speed` of the ball alone over :data:`LAG_SPEEDS`."""
    return shared_lag_speed(table, ((ball, tuple(start)),), ball, LAG_SPEEDS)


def choose_lag(game: Any, seat: int, level: Level, rng: random.Random) -> Action:
    """A lag stroke for ``seat``: ball ``seat`` of ``game.lag_layout()`` straight up the table."""
    lay = game.lag_layout()
    start = tuple(lay[seat])
    shot = Shot(seat, phi_deg=0.0, V0=lag_speed(game.table, start, seat))
    return Action("shot", shot=execute(shot, level, rng), intended=shot, plan="lag", sims=121)


# ----- decisions --------------------------------------------------------------------------------
def decide(game: Any, seat: int, level: Level) -> Optional[Action]:
    """The decision ``seat`` takes now, or None when it should shoot (options beside a stroke are
    declined). The lag winner lets the opponent break (the opening break is a disadvantage in
    14.1); after a breaking foul or a third foul the bot accepts the table when the position it
    would get is worth more than :data:`IN_HAND_EASE` / 2, else makes the offender break again;
    a stalemate offer is declined."""
    acts = game.legal_actions()
    if game.phase != "decision":
        return None
    offered = {d["name"]: d["args"] for d in acts["decisions"]}
    if "CHOOSE_BREAKER" in offered:
        return Action("decision", name="CHOOSE_BREAKER", arg=1 - seat, plan="the opponent breaks")
    if "DECLINE_STALEMATE" in offered:
        return Action("decision", name="DECLINE_STALEMATE", plan="play on")
    if "ACCEPT_TABLE" in offered:
        other = "REQUIRE_REBREAK" if "REQUIRE_REBREAK" in offered else (
            "RERACK_OFFENDER_BREAKS" if "RERACK_OFFENDER_BREAKS" in offered else None)
        g = game_from_state(game.to_state())
        g.apply_decision(seat, "ACCEPT_TABLE", None)
        shoot = g.legal_actions().get("shoot") or {}
        if shoot.get("in_hand"):
            ease = in_hand_ease(g.table, g.layout(), shoot["in_hand"], shoot.get("balls", []))
        else:
            ease = best_ease(g.table, g.layout(), shoot.get("balls"))
        if other is None or ease > IN_HAND_EASE / 2.0:
            return Action("decision", name="ACCEPT_TABLE", plan=f"accept the table (ease {ease:.2f})", value=ease)
        return Action("decision", name=other, plan=f"the offender breaks again (ease {ease:.2f})", value=ease)
    name, args = next(iter(offered.items()))
    return Action("decision", name=name, arg=args[0] if args else None, plan="the only option")
