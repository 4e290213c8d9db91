"""Helpers for the 14.1 referee tests: games set up in a given situation, strokes from short scripts."""

from __future__ import annotations

import math
from typing import Mapping, Optional

from logs import stroke_log
from physics.table import get_table
from rules.straight_pool import StraightPool

TABLE = get_table("pool-9ft")
R = TABLE.R
HS = TABLE.head_spot
CS = TABLE.centre_spot
FS = TABLE.foot_spot


def game_at(
    balls: Mapping[int, tuple],
    *,
    to_act: int = 0,
    scores=(0, 0),
    fouls=(0, 0),
    in_hand: Optional[str] = None,
    phase: str = "play",
    config: Optional[dict] = None,
    seed: int = 1,
    shooter: Optional[int] = None,
) -> StraightPool:
    """A game in the middle of play: ``balls`` on the bed (cue ball 0 absent when ``in_hand``)."""
    cfg = dict(config or {})
    cfg.setdefault("breaker", 0)
    g = StraightPool(cfg, seed)
    s = g.to_state()
    s["balls"] = {str(b): [float(p[0]), float(p[1])] for b, p in balls.items()}
    s["phase"] = phase
    s["to_act"] = to_act
    s["in_hand"] = in_hand
    s["scores"] = list(scores)
    s["fouls_in_row"] = list(fouls)
    s["shooter"] = shooter
    s["pending"] = None
    return StraightPool.from_state(s)


def shoot(g: StraightPool, player: int, call, steps, final=None, cue=None, flags=()):
    """Prepare, script and rule one stroke; returns the ruling as a dict."""
    start = g.prepare_shot(player, call, cue)
    sim = stroke_log(g.table, start, steps, final)
    return g.apply_shot(player, call, sim, flags).to_dict()


def close(p, q, tol: float = 1e-6) -> bool:
    return math.hypot(p[0] - q[0], p[1] - q[1]) <= tol


def mid_rack(extra: Optional[Mapping[int, tuple]] = None) -> dict:
    """A mid-rack layout: cue ball and a few object balls well apart, foot spot and long string free."""
    base = {
        0: (1.00, 0.60),
        3: (0.90, 0.95),
        4: (1.80, 0.30),
        7: (2.20, 1.10),
        12: (1.50, 0.20),
        11: (1.30, 1.00),
        5: (1.60, 0.90),
    }
    base.update(extra or {})
    return base
