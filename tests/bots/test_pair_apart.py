"""``SimResult.pair_apart`` (exact, used by the referees' frozen-pair release) against dense sampling."""

from __future__ import annotations

import math
import random

import pytest

from physics import Shot, simulate
from rules.base import EPS_LEAVE, frozen_pairs
from rules.registry import new_game


def dense_max(sim, a, b, t1, n=4000):
    best = 0.0
    for k in range(n + 1):
        t = t1 * k / n
        ra, rb = sim.ball_state_at(a, t).r, sim.ball_state_at(b, t).r
        best = max(best, math.hypot(ra[0] - rb[0], ra[1] - rb[1]))
    return best


def rack_strokes(count=12, seed=5):
    g = new_game("straight_pool", {"breaker": 0}, 2)
    T, lay = g.table, g.layout()
    rng = random.Random(seed)
    for _ in range(count):
        start = dict(lay)
        start[0] = (T.head_string_x - 0.1, T.width / 2 + rng.uniform(-0.3, 0.3))
        yield T, simulate(T, start, Shot(0, phi_deg=rng.uniform(-6, 6), V0=rng.choice([0.5, 1.0, 2.0, 6.0])))


def test_pair_apart_agrees_with_dense_sampling_on_rack_strokes():
    checked = released = 0
    for T, sim in rack_strokes():
        frozen = frozen_pairs(T, {b: s.r for b, s in sim.initial.items()})
        thr = 2.0 * T.R + EPS_LEAVE
        for e in sim.events:
            if e.kind != "ball_ball":
                continue
            a, b = e.balls
            if (min(a, b), max(a, b)) not in frozen:
                continue
            exact = sim.pair_apart(a, b, 0.0, e.t, thr)
            d = dense_max(sim, a, b, e.t, n=400)
            if abs(d - thr) > 2e-6:  # away from the threshold the answers must agree
                assert exact == (d > thr), (a, b, e.t, d - thr)
            checked += 1
            released += exact
    assert checked > 50 and 0 < released < checked


def test_pair_apart_remembers_and_answers_later_times():
    T, sim = next(rack_strokes(1, seed=9))
    frozen = sorted(frozen_pairs(T, {b: s.r for b, s in sim.initial.items()}))
    a, b = next(p for p in frozen if 0 not in p)
    t_end = sim.events[-1].t
    thr = 2.0 * T.R + EPS_LEAVE
    answers = [sim.pair_apart(a, b, 0.0, t_end * k / 10, thr) for k in range(1, 11)]
    fresh = [type(sim)(sim.table, sim.initial, sim.events, sim.final).pair_apart(a, b, 0.0, t_end * k / 10, thr)
             for k in range(1, 11)]
    assert answers == fresh
    assert answers == sorted(answers)  # once apart, apart at every later time
    with pytest.raises(ValueError, match="t1"):
        sim.pair_apart(a, b, 0.0, math.inf, thr)
