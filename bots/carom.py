"""Carom disciplines: choose a stroke among the scoring strokes the carom search finds.

The search itself is :func:`bots.carom_search.scoring_strokes` (aim angles across each object
ball's silhouette, then the whole circle; speeds and tip offsets; every candidate judged by
the discipline's own referee, ``game.evaluate_stroke``: the cushions of three-cushion or
one-cushion before the second ball, the red first on the break, no balkline zone foul). The
level (bots/levels.py) sets its breadth (``carom_speeds``, ``carom_spins``, ``carom_step_deg``,
``carom_max_sims``) and how many scoring strokes are collected (``carom_keep``) before one
is chosen:

- with ``level.trials`` > 0 each collected stroke is replayed ``trials`` times with the level's
  execution noise and scored by the share of replays that still score (the most forgiving
  carom wins);
- position play, where it is cheap: ties are broken by the distance between the two object
  balls where the stroke leaves them (closer is easier to score again; the gather of libre and
  balkline play). Computed from the simulation already run: no extra search.

With no scoring stroke found the bot plays :func:`bots.carom_search.safe_stroke` (a soft hit
on the red: legal on a break, a miss otherwise). Lag strokes come from
:func:`bots.carom_search.lag_shots`. Decisions: see :func:`decide`.
"""

from __future__ import annotations

import math
import random
from typing import Any, List, Optional, Tuple

from bots.action import Action
from bots.carom_search import CaromCandidate, lag_shots, safe_stroke, scoring_strokes
from bots.levels import Level, execute
from physics import simulate


def current(game: Any) -> Any:
    """The carom game in progress (a pentathlon or triathlon plays one discipline at a time)."""
    return getattr(game, "game", game)


def _leave_distance(c: CaromCandidate, cue: int) -> float:
    objs = [b for b, s in c.sim.final.items() if b != cue]
    if len(objs) != 2:
        return 9.0
    p, q = c.sim.final[objs[0]].r, c.sim.final[objs[1]].r
    return math.hypot(p[0] - q[0], p[1] - q[1])


def choose_stroke(game: Any, seat: int, level: Level, rng: random.Random) -> Action:
    """The stroke ``seat`` plays now (phase ``break`` or ``play``). Never changes ``game``."""
    found: List[CaromCandidate] = []
    sims = 0
    for cand in scoring_strokes(game, seat, speeds=level.carom_speeds, spins=level.carom_spins,
                                step_deg=level.carom_step_deg, fine_step_deg=level.carom_step_deg / 4.0,
                                max_sims=level.carom_max_sims):
        found.append(cand)
        sims = cand.tried
        if len(found) >= level.carom_keep:
            break
    else:
        sims = level.carom_max_sims if not found else max(sims, found[-1].tried)
    cue = game.cue_ball(seat)
    if not found:
        shot = safe_stroke(game, seat)
        return Action("shot", shot=execute(shot, level, rng), intended=shot, plan="no carom found: soft hit on the red",
                      value=0.0, sims=sims)
    layout = game.prepare_shot(seat, None)
    ranked: List[Tuple[float, float, CaromCandidate]] = []
    for c in found:
        share = 1.0
        if level.trials > 0:
            ok = 0
            for _ in range(level.trials):
                sim = simulate(game.table, layout, execute(c.shot, level, rng))
                sims += 1
                if game.evaluate_stroke(seat, sim)["scores"]:
                    ok += 1
            share = (1 + ok) / (1 + level.trials)
        ranked.append((share, -_leave_distance(c, cue), c))
    ranked.sort(key=lambda t: (-t[0], -t[1]))
    share, _, best = ranked[0]
    v = best.verdict
    plan = f"carom ({v['cushions']} cushions before the second ball)"
    return Action("shot", shot=execute(best.shot, level, rng), intended=best.shot, plan=plan, value=share, sims=sims)


def choose_lag(game: Any, seat: int, level: Level, rng: random.Random) -> Action:
    """The lag stroke of ``seat`` (rules-carom C4), from :func:`bots.carom_search.lag_shots`."""
    shot = lag_shots(current(game))[seat]
    return Action("shot", shot=execute(shot, level, rng), intended=shot, plan="lag", sims=200)



def decide(game: Any, seat: int, level: Level) -> Optional[Action]:
    """The decision ``seat`` takes now, or None when it should shoot. The lag winner breaks
    (``CHOOSE_BREAKER`` self: the break is the first chance to score); with touching balls the
    bot asks for ``SET_UP`` (a fresh start position) rather than ``PLAY_ON``; ``STARTING_SPOT``
    and ``EXTENSION`` are never taken (they are offered beside a stroke)."""
    acts = game.legal_actions()
    offered = {d["name"]: d["args"] for d in acts["decisions"]}
    if acts.get("shoot"):
        return None
    if "CHOOSE_BREAKER" in offered:
        return Action("decision", name="CHOOSE_BREAKER", arg=seat, plan="break")
    if "SET_UP" in offered:
        return Action("decision", name="SET_UP", plan="set the balls up")
    if offered:
        name, args = next(iter(offered.items()))
        return Action("decision", name=name, arg=args[0] if args else None, plan="the only option")
    return None
