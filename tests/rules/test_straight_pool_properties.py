"""Property tests (hypothesis): any sequence of legal actions keeps the 14.1 game consistent.

Strokes are random but consistent event logs (logs.stroke_log): a first contact or none, rail
contacts, pocketed balls (the called one often), scratches, balls off the table, random
resting places; decisions are drawn from those on offer; time-outs, serious fouls and
stalemate offers are mixed in. After every action the ledger of pool_games.py checks the ball
accounting (15 object balls on the table plus in pockets; resting places as simulated unless
spotted, placed or re-racked), that no two balls overlap (so no two balls share a spot), and
that the score agrees with the history; the state must round-trip through msgpack to an equal
game. A second property drives the same checks with the real physics and random strokes.

The default-suite runs are derandomized (the same examples every run, so CI is reproducible);
the soak variants (``make soak``) draw fresh examples every time.
"""

from __future__ import annotations

import math
import random

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from logs import stroke_log
from pool_games import Ledger
from pool_helpers import TABLE

from physics import Shot, simulate
from physics.simulate import on_playing_surface
from rules.straight_pool import StraightPool

RAILS = ("head", "foot", "R-head", "R-foot", "L-head", "L-foot")

configs = st.fixed_dictionaries(
    {},
    optional={
        "rack_order": st.sampled_from(["wpa_random", "wsr_1_5", "classic_15_apex"]),
        "three_foul_mode": st.sampled_from(["mandatory_rebreak", "opponent_option"]),
        "spot_request": st.sampled_from(["shooter_requests", "automatic_lowest"]),
        "object_ball_off_table_is_foul": st.booleans(),
        "near_rail_limit": st.sampled_from(["off", "wsr", "frozen_two_each"]),
        "interference_table": st.sampled_from(["wpa", "t14"]),
        "serious_foul_preset": st.sampled_from(["wsr", "s2", "referee_free"]),
        "scoop_is_foul": st.booleans(),
        "lag_mode": st.sampled_from(["simulated", "random"]),
        "stalemate": st.sampled_from(["agreement", "auto(2)", "auto(5)"]),
        "shot_clock": st.sampled_from([None, {"limit_s": 30, "extensions": 1}]),
        "target_points": st.sampled_from([150, 20, [10, 25]]),
        "cap_final_score": st.booleans(),
    },
)


def _free_point(rng, occupied, x_lo, x_hi, tries=200):
    R = TABLE.R
    for _ in range(tries):
        p = (rng.uniform(x_lo, x_hi), rng.uniform(R, TABLE.width - R))
        if on_playing_surface(TABLE, p) and all(math.hypot(p[0] - q[0], p[1] - q[1]) >= 2 * R + 1e-6 for q in occupied):
            return p
    return None


def random_stroke(g, rng: random.Random):
    """(call, placement, SimResult) of a random but consistent stroke for the player to act."""
    T = g.table
    R = T.R
    p = g.to_act
    lay = g.layout()
    obs = sorted(b for b in lay if b != 0)
    r = rng.random()
    if g.phase == "break" and r < 0.4:
        call = None
    elif r < 0.35:
        call = {"safety": True}
    else:
        call = {"ball": rng.choice(obs), "pocket": rng.choice(T.pocket_names)}
    placement = None
    if g.in_hand:
        placement = _free_point(rng, lay.values(), R, T.head_string_x - 1e-3)
    start = g.prepare_shot(p, call, placement)
    steps = []
    if rng.random() < 0.25:
        steps.append(("move", {0: (rng.uniform(R, T.length - R), rng.uniform(R, T.width - R))}))
    moved = {0}
    if rng.random() < 0.9:
        tgt = call["ball"] if call and "ball" in call and rng.random() < 0.6 else rng.choice(obs)
        steps.append(("ball_ball", 0, tgt))
        moved.add(tgt)
        if rng.random() < 0.3:
            other = rng.choice(obs)
            if other != tgt:
                steps.append(("ball_ball", tgt, other))
                moved.add(other)
    for b in sorted(moved):
        if rng.random() < 0.6:
            steps.append(("ball_cushion", b, rng.choice(RAILS)))
    gone = set()
    if call and "ball" in call and call["ball"] in moved and rng.random() < 0.6:
        pk = call["pocket"] if rng.random() < 0.85 else rng.choice(T.pocket_names)
        steps.append(("ball_pocket", call["ball"], pk))
        gone.add(call["ball"])
    for b in sorted(moved - {0} - gone):
        if rng.random() < 0.15:
            steps.append(("ball_pocket", b, rng.choice(T.pocket_names)))
            gone.add(b)
        elif rng.random() < 0.03:
            steps.append(("off_table", b))
            gone.add(b)
    x = rng.random()
    if x < 0.08:
        steps.append(("ball_pocket", 0, rng.choice(T.pocket_names)))
        gone.add(0)
    elif x < 0.10:
        steps.append(("off_table", 0))
        gone.add(0)
    final = {}
    rest = {b: q for b, q in start.items() if b not in moved and b not in gone}
    for b in sorted(moved - gone):
        q = _free_point(rng, list(rest.values()) + list(final.values()), R, T.length - R)
        final[b] = q if q is not None else start[b]
    flags = ()
    if rng.random() < 0.05:
        flags = (rng.choice(["double_hit", "push", "scoop", "cue_touch"]),)
    return call, placement, stroke_log(T, start, steps, final), flags


def random_lag(g, rng: random.Random):
    T = g.table
    R = T.R
    lay = g.lag_layout()
    steps = [("strike", 0), ("strike", 1, {"t": 0.0})]
    final = {}
    for s in (0, 1):
        y0 = lay[s][1]
        if rng.random() < 0.85:
            steps.append(("ball_cushion", s, "foot", {s: (T.length - R, y0), "t": 1.0 + s * 0.1}))
        final[s] = (rng.uniform(R, 0.6), y0 + rng.uniform(-0.1, 0.1))
    return stroke_log(T, lay, steps, final)


def _check_round_trip(g):
    h = StraightPool.from_state(msgpack.unpackb(msgpack.packb(g.to_state())))
    assert h == g
    assert h.legal_actions() == g.legal_actions()
    assert all(f in (0, 1, 2) for f in g.fouls_in_row)


def _act(g, ledger, rng, draw_choice):
    """One random legal action; returns False when the game is over."""
    if g.over:
        return False
    if g.phase == "lag":
        ledger.after_action(g, g.apply_lag(random_lag(g, rng)).to_dict())
        return True
    acts = g.legal_actions()
    decisions = acts["decisions"]
    if g.phase == "decision":
        d = draw_choice(decisions)
        arg = draw_choice(d["args"]) if d["args"] else None
        ledger.after_action(g, g.apply_decision(g.to_act, d["name"], arg).to_dict())
        return True
    x = rng.random()
    if decisions and x < 0.15:
        d = draw_choice(decisions)
        arg = draw_choice(d["args"]) if d["args"] else None
        ledger.after_action(g, g.apply_decision(g.to_act, d["name"], arg).to_dict())
        return True
    if g.config["shot_clock"] and x < 0.2:
        ledger.after_action(g, g.apply_timeout(g.to_act).to_dict())
        return True
    if x > 0.98:
        who = rng.randrange(2)
        if g.config["serious_foul_preset"] == "referee_free":
            ruling = g.apply_serious_foul(who, penalty=rng.randrange(0, 20))
        else:
            ruling = g.apply_serious_foul(who)
        ledger.after_action(g, ruling.to_dict())
        return True
    p = g.to_act
    call, placement, sim, flags = random_stroke(g, rng)
    ledger.stroke(g, p, sim, g.apply_shot(p, call, sim, flags).to_dict())
    return True


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), config=configs, seed=st.integers(0, 2**31 - 1), n_balls=st.integers(2, 15), start=st.sampled_from(["opening", "lag", "mid"]))
def test_random_legal_actions_keep_the_game_consistent(data, config, seed, n_balls, start):
    rng = random.Random(seed)
    cfg = dict(config)
    if start == "opening":
        cfg["breaker"] = rng.randrange(2)
    g = StraightPool(cfg, seed)
    if start == "mid":
        # a rack in progress: n_balls object balls scattered, the cue ball on the table
        cfg["breaker"] = 0
        g = StraightPool(cfg, seed)
        s = g.to_state()
        balls = {}
        ids = rng.sample(range(1, 16), n_balls) + [0]
        for b in ids:
            balls[b] = _free_point(rng, balls.values(), TABLE.R, TABLE.length - TABLE.R)
        s.update(balls={str(b): list(q) for b, q in balls.items()}, phase="play", to_act=rng.randrange(2), in_hand=None)
        s["scores"] = [rng.randrange(-5, 10), rng.randrange(-5, 10)]
        s["fouls_in_row"] = [rng.randrange(3), rng.randrange(3)]
        g = StraightPool.from_state(s)
    ledger = Ledger(g)
    ledger.check(g)

    def draw_choice(options):
        return data.draw(st.sampled_from(list(options)))

    for _ in range(data.draw(st.integers(1, 60))):
        if not _act(g, ledger, rng, draw_choice):
            break
        _check_round_trip(g)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), config=configs)
def test_random_strokes_through_the_physics_keep_the_game_consistent(seed, config):
    """Random real strokes (aim, speed, spin) from legal placements, refereed and checked after each."""
    rng = random.Random(seed)
    cfg = dict(config)
    cfg["breaker"] = rng.randrange(2)
    g = StraightPool(cfg, seed)
    ledger = Ledger(g)
    T = g.table
    for _ in range(40):
        if g.over:
            break
        if g.phase in ("lag", "decision") or any(d["name"] == "SPOT_REQUEST" for d in g.legal_actions()["decisions"]):
            _act(g, ledger, rng, lambda opts: sorted(opts, key=str)[rng.randrange(len(opts))])
            _check_round_trip(g)
            continue
        p = g.to_act
        lay = g.layout()
        obs = sorted(b for b in lay if b != 0)
        call = {"safety": True} if rng.random() < 0.3 else {"ball": rng.choice(obs), "pocket": rng.choice(T.pocket_names)}
        if g.phase == "break" and rng.random() < 0.5:
            call = None
        placement = _free_point(rng, lay.values(), T.R, T.head_string_x - 1e-3) if g.in_hand else None
        start = g.prepare_shot(p, call, placement)
        shot = Shot(0, phi_deg=rng.uniform(0, 360), V0=rng.uniform(0.3, 6.0), a=rng.uniform(-0.3, 0.3), b=rng.uniform(-0.3, 0.3))
        sim = simulate(T, start, shot)
        ledger.stroke(g, p, sim, g.apply_shot(p, call, sim).to_dict())
        _check_round_trip(g)


@pytest.mark.soak
def test_soak_random_legal_actions_many_examples():
    inner = test_random_legal_actions_keep_the_game_consistent.hypothesis.inner_test
    settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck), database=None)(
        given(data=st.data(), config=configs, seed=st.integers(0, 2**31 - 1), n_balls=st.integers(2, 15), start=st.sampled_from(["opening", "lag", "mid"]))(inner)
    )()


@pytest.mark.soak
def test_soak_random_strokes_through_the_physics_many_examples():
    inner = test_random_strokes_through_the_physics_keep_the_game_consistent.hypothesis.inner_test
    settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)(given(seed=st.integers(0, 2**31 - 1), config=configs)(inner))()
