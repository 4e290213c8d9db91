"""Physics checks with Dr. Dave Alciatore's technical proofs as the source (billiards.colostate.edu).

TP A-4 (30-degree rule), TP A-5/A-6 (stop shot, 90-degree rule), TP A-14 (throw), TP 4.1/4.2
(sliding to rolling at 5/7 of the speed), rolling resistance (stopping distance v^2 / 2 mu_r g).
"""

import math

import pytest

from physics import Shot, get_table, simulate
from physics.ball_ball import resolve as resolve_ball_ball

from physics_helpers import evolve, first, heading_deg, kinetic_energy, speed, states_before

POOL = get_table("pool-9ft")
CAROM = get_table("carom")
R = POOL.R
E_B = POOL.cloth.e_b


def stun_full_hit(model):
    """Centre-ball hit from 1 mm away: the cue ball has no spin worth the name at contact."""
    cue, obj = (1.0, 0.635), (1.0 + 2 * R + 0.001, 0.635)
    res = simulate(POOL, {0: cue, 1: obj}, Shot(0, 0.0, 2.0), ball_model=model)
    bb = first(res, "ball_ball")
    pre = states_before(res)[res.events.index(bb)]
    return res, bb, pre


def test_stop_shot_frictionless_cue_ball_stops_dead():
    res, bb, pre = stun_full_hit("frictionless_elastic")
    assert bb.balls == (0, 1)
    assert bb.states[0].v == (0.0, 0.0)
    assert bb.states[1].v[0] == pytest.approx(pre[0].v[0], rel=1e-12)
    # it keeps only the tiny spin friction gave it over 1 mm and stops within a hair
    rest = evolve(POOL, bb.states[0], 100.0)
    assert rest.state == "stationary" and abs(rest.r[0] - bb.states[0].r[0]) < 2e-4


def test_stop_shot_default_model_keeps_only_the_restitution_loss():
    res, bb, pre = stun_full_hit("frictional_inelastic")
    v_in = pre[0].v[0]
    assert bb.states[0].v[0] == pytest.approx(0.5 * (1 - E_B) * v_in, rel=1e-3)
    assert bb.states[1].v[0] == pytest.approx(0.5 * (1 + E_B) * v_in, rel=1e-3)
    assert abs(bb.states[0].v[1]) < 1e-6 and abs(bb.states[1].v[1]) < 1e-6
    # "stops": it keeps ~2.5 % of its speed, slides to 5/7 of that and rolls out (1.6 cm after a
    # 2.8 m/s hit)
    v1 = bb.states[0].v[0]
    c = POOL.cloth
    ts = 2 * v1 / (7 * c.mu_s * c.g)
    drift = v1 * ts - 0.5 * c.mu_s * c.g * ts * ts + (5 * v1 / 7) ** 2 / (2 * c.mu_r * c.g)
    rest = evolve(POOL, bb.states[0], 100.0)
    assert rest.r[0] - bb.states[0].r[0] == pytest.approx(drift, rel=0.02)
    assert drift < 0.02


def stun_cut(model, cut_deg):
    """Stun cut shot: the cue ball 1 mm short of the ghost-ball position of a cut of ``cut_deg``."""
    obj = (1.3, 0.635)
    a = math.radians(cut_deg)
    ghost = (obj[0] - 2 * R * math.cos(a), obj[1] - 2 * R * math.sin(a))
    cue = (ghost[0] - 0.001, ghost[1])
    res = simulate(POOL, {0: cue, 1: obj}, Shot(0, 0.0, 2.0), ball_model=model)
    bb = first(res, "ball_ball")
    d = (heading_deg(bb.states[0].v) - heading_deg(bb.states[1].v)) % 360.0
    return min(d, 360.0 - d)  # angle between the two paths


@pytest.mark.parametrize("cut", [15.0, 30.0, 45.0, 60.0])
def test_stun_cut_leaves_at_90_degrees_frictionless(cut):
    assert stun_cut("frictionless_elastic", cut) == pytest.approx(90.0, abs=0.05)


@pytest.mark.parametrize("cut", [15.0, 30.0, 45.0, 60.0])
def test_stun_cut_within_the_throw_band_default(cut):
    # restitution e < 1 leaves the cue ball (1 - e)/2 of its normal speed: the paths open by
    # 90 - atan((1 - e)/2 cot(cut)) (TP A-5); throw friction (TP A-14) takes up to ~3 deg more
    c = math.radians(cut)
    inelastic = 90.0 - math.degrees(math.atan(0.5 * (1 - E_B) * math.cos(c) / math.sin(c)))
    sep = stun_cut("frictional_inelastic", cut)
    assert inelastic - 3.5 <= sep < inelastic


def test_throw_of_a_stun_cut_matches_tp_a14():
    # object ball thrown off the line of centres by atan(min(mu J, |w|/7) / J_n): TP A-14
    a = math.radians(30.0)
    n = (math.cos(a), math.sin(a))
    v = 2.0
    (va, wa), (vb, wb) = resolve_ball_ball("frictional_inelastic", (0.0, 0.0), (v, 0.0), (0, 0, 0), (2 * R * n[0], 2 * R * n[1]), (0.0, 0.0), (0, 0, 0), R, E_B)
    slip = v * math.sin(a)  # tangential contact speed of a stun ball
    jn = 0.5 * (1 + E_B) * v * math.cos(a)
    mu = 0.009951 + 0.108 * math.exp(-1.088 * slip)
    throw = math.degrees(math.atan(min(mu * jn, slip / 7) / jn))
    got = (heading_deg(n) - heading_deg(vb)) % 360.0
    assert got == pytest.approx(throw, rel=1e-9)
    assert 1.0 < throw < 4.0


def rolling_cut(model, cut_deg):
    obj = (1.6, 0.635)
    a = math.radians(cut_deg)
    ghost = (obj[0] - 2 * R * math.cos(a), obj[1] - 2 * R * math.sin(a))
    cue = (ghost[0] - 0.5, ghost[1])
    res = simulate(POOL, {0: cue, 1: obj}, Shot(0, 0.0, 1.5, b=0.4), ball_model=model)
    bb = first(res, "ball_ball", 0)
    roll = next(e for e in res.events if e.kind == "slide_to_roll" and e.balls == (0,) and e.t > bb.t)
    return abs(heading_deg(roll.states[0].v))  # cue-ball deflection from the aim line


def test_rolling_half_ball_hit_deflects_about_30_degrees():
    # TP A-4: a rolling cue ball deflects by atan(sin c cos c / (sin^2 c + 2/5)), 33.7 deg at a
    # half-ball hit (c = 30 deg): the "30-degree rule"
    theory = math.degrees(math.atan(math.sin(math.radians(30)) * math.cos(math.radians(30)) / (0.25 + 0.4)))
    assert theory == pytest.approx(33.67, abs=0.01)
    assert rolling_cut("frictionless_elastic", 30.0) == pytest.approx(theory, abs=0.3)
    assert 27.0 <= rolling_cut("frictional_inelastic", 30.0) <= 34.0


@pytest.mark.parametrize("cut", [20.0, 40.0])
def test_thirty_degree_rule_holds_over_a_range_of_cuts(cut):
    assert 27.0 <= rolling_cut("frictional_inelastic", cut) <= 35.0


def test_centre_ball_hit_starts_rolling_at_five_sevenths():
    res = simulate(CAROM, {0: (0.5, 0.71)}, Shot(0, 0.0, 1.0))
    v0 = speed(res.events[0].states[0])
    roll = first(res, "slide_to_roll")
    assert speed(roll.states[0]) == pytest.approx(5.0 / 7.0 * v0, rel=1e-12)
    assert roll.t == pytest.approx(2.0 * v0 / (7.0 * CAROM.cloth.mu_s * CAROM.cloth.g), rel=1e-12)
    assert roll.states[0].w[1] * CAROM.R == pytest.approx(roll.states[0].v[0], rel=1e-12)


def test_rolling_ball_stops_after_v2_over_2_mu_r_g():
    res = simulate(CAROM, {0: (0.4, 0.71)}, Shot(0, 0.0, 0.4, b=0.4))
    # b = 2/5 is natural roll: no slide phase worth the name
    roll_start = next(e for e in res.events if e.states.get(0) is not None and e.states[0].state == "rolling")
    v = speed(roll_start.states[0])
    stop = first(res, "roll_to_rest")
    d = res.final[0].r[0] - roll_start.states[0].r[0]
    c = CAROM.cloth
    assert d == pytest.approx(v * v / (2 * c.mu_r * c.g), rel=1e-12)
    assert stop.t - roll_start.t == pytest.approx(v / (c.mu_r * c.g), rel=1e-12)
    assert not any(e.kind == "ball_cushion" for e in res.events)


def test_no_event_adds_energy_on_a_break_and_carom_shots():
    shots = [
        (POOL, {0: POOL.head_spot} | {k + 1: p for k, p in enumerate(POOL.rack_sites())}, Shot(0, 0.2, 9.0, a=0.2, b=-0.3)),
        (CAROM, {0: (0.6, 0.5), 1: (1.5, 0.9), 2: (2.2, 0.4)}, Shot(0, 15.0, 5.0, a=-0.35, b=0.2, theta_deg=20.0)),
        (CAROM, {0: (0.6, 0.5), 1: (1.5, 0.9), 2: (2.2, 0.4)}, Shot(0, 15.0, 5.0, a=0.35, b=0.2)),
    ]
    checked = 0
    for table, balls, shot in shots:
        for model in ("han_2005", "mathavan_2010"):
            res = simulate(table, balls, shot, cushion_model=model)
            for e, pre in zip(res.events, states_before(res)):
                if e.kind == "strike":
                    continue
                before = sum(kinetic_energy(table, s) for s in pre.values())
                after = sum(kinetic_energy(table, s) for s in e.states.values())
                assert after <= before * (1 + 1e-12) + 1e-15, (e.kind, e.t, before, after)
                checked += 1
    assert checked > 100
