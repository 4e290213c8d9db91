"""Every reported failure of shared/spec/physics.md section 5, as its own test (named after it)."""

import collections
import json
import math

import pytest

from physics import Shot, get_table, simulate
from physics.simulate import on_playing_surface, simulate_with_snapshots

from physics_helpers import first, rack_layout, states_before

POOL = get_table("pool-9ft")
CAROM = get_table("carom")
R = POOL.R


def overlap_at_events(res, snaps):
    """Deepest ball-ball overlap (m, >= 0) at any event, using the core's own states after each event."""
    Rt = res.table.R
    worst = 0.0
    for snap in snaps:
        on = [s.r for s in snap.values() if s.state != "pocketed"]
        for i in range(len(on)):
            for j in range(i + 1, len(on)):
                worst = max(worst, 2 * Rt - math.dist(on[i], on[j]))
    return worst


def overlap_sampled(res, dt=5e-4):
    """Deepest overlap (m) over the whole shot sampled every ``dt`` s (catches a missed collision)."""
    Rt = res.table.R
    t_end = res.events[-1].t
    worst = 0.0
    n = int(t_end / dt) + 2
    for k in range(n):
        st = [s.r for s in res.state_at(k * dt).values() if s.state != "pocketed"]
        for i in range(len(st)):
            for j in range(i + 1, len(st)):
                worst = max(worst, 2 * Rt - math.dist(st[i], st[j]))
    return worst


def all_at_rest_on_bed_or_pocketed(res):
    t = res.table
    for b, s in res.final.items():
        if s.state == "pocketed":
            assert s.r in [p.centre for p in t.pockets]
            continue
        assert s.state == "stationary"
        assert on_playing_surface(t, s.r), (b, s.r)


def test_pooltool_154_missed_collision_detection():
    # 15-ball rack, cue ball on the head spot (pooltool's (0.5 W, 0.25 L)), V0 = 3.262213,
    # phi = 81.83468 deg in pooltool's frame, i.e. rotated by -90 deg into ours
    balls = rack_layout(POOL)
    for phi in (81.83468 - 90.0, 81.83468, -2.0, 3.0):
        res, snaps = simulate_with_snapshots(POOL, balls, Shot(0, phi, 3.262213))
        assert overlap_at_events(res, snaps) <= 1e-6
        assert overlap_sampled(res) <= 1e-6
        all_at_rest_on_bed_or_pocketed(res)


@pytest.mark.parametrize("V0", [0.5, 2.0, 6.0])
def test_pooltool_217_ball_touching_a_cushion_shot_straight_into_it(V0):
    # 0.6.0: the ball passed through and stopped at y = -1.4 / -23 / -209 m
    for table, pos, phi in ((CAROM, (1.0, CAROM.R), 270.0), (POOL, (POOL.R, 0.6), 180.0)):
        res = simulate(table, {0: pos}, Shot(0, phi, V0))
        hit = res.events[1]
        assert hit.kind == "ball_cushion" and hit.t == 0.0
        assert hit.cushion in ("R", "head")
        all_at_rest_on_bed_or_pocketed(res)


def test_pooltool_217_two_cushions_a_hair_apart_into_a_corner():
    # carom corner: both cushions are hit, the ball never leaves the bed
    res = simulate(CAROM, {0: (1.0, 1.0)}, Shot(0, 225.0 - math.degrees(math.atan2(1.0 - CAROM.R, 1.0 - CAROM.R)) + 45.0, 2.0))
    hits = [e.cushion for e in res.events if e.kind == "ball_cushion"][:2]
    assert set(hits) == {"B", "R"}
    all_at_rest_on_bed_or_pocketed(res)


def test_pooltool_263_quartic_degenerating_to_quadratic():
    # two balls with the same acceleration: the pair's quartic is a quadratic (both sliding the
    # same way) or a constant; the collision time must still be right
    balls = {0: (0.5, 0.6), 1: (0.5, 0.6 + 2 * R + 0.01)}
    # identical strikes: the same motion state, translated: no contact ever
    res = simulate(POOL, balls, [Shot(0, 0.0, 2.0), Shot(1, 0.0, 2.0)])
    assert not any(e.kind == "ball_ball" for e in res.events)
    # converging straight lines at equal speeds with equal spins: quadratic in t, contact found
    res = simulate(POOL, {0: (0.5, 0.6), 1: (0.5, 0.7)}, [Shot(0, 5.0, 2.0), Shot(1, -5.0, 2.0)])
    bb = first(res, "ball_ball")
    pre = states_before(res)[res.events.index(bb)]
    assert math.dist(pre[0].r, pre[1].r) == pytest.approx(2 * R, abs=1e-12)


def test_pooltool_pr354_two_balls_rolling_side_by_side_at_identical_velocity():
    # 0.6.0: "ValueError: attempt to get argmin of an empty sequence"
    balls = {0: (0.5, 0.5), 1: (0.5, 0.5 + 2 * R)}
    res = simulate(POOL, balls, [Shot(0, 0.0, 2.0, b=0.4), Shot(1, 0.0, 2.0, b=0.4)])
    assert not any(e.kind == "ball_ball" for e in res.events)
    assert res.final[0].r[0] == res.final[1].r[0]
    assert res.final[1].r[1] - res.final[0].r[1] == pytest.approx(2 * R, abs=1e-12)


def test_pooltool_pr78_exactly_simultaneous_events():
    # two balls struck alike: every transition and cushion contact of one coincides exactly with
    # the other's; the cue ball hitting two touching balls at once gives two contacts at one time
    res = simulate(POOL, {0: (0.6, 0.4), 1: (0.6, 0.8)}, [Shot(0, 10.0, 4.0, b=-0.3), Shot(1, -10.0, 4.0, b=-0.3)])
    times = collections.Counter(e.t for e in res.events)
    assert max(times.values()) >= 2
    assert all(math.isfinite(c) for e in res.events for s in e.states.values() for c in (*s.r, *s.v, *s.w))
    all_at_rest_on_bed_or_pocketed(res)
    balls = {0: (0.8, 0.635), 1: (1.4, 0.635 - R), 2: (1.4, 0.635 + R)}
    res, snaps = simulate_with_snapshots(POOL, balls, Shot(0, 0.0, 3.0))
    hits = [e for e in res.events if e.kind == "ball_ball" and 0 in e.balls]
    # the second contact comes a hair later: the spacer after the first moved the cue ball 1 um
    assert res.events.index(hits[1]) == res.events.index(hits[0]) + 1
    assert hits[1].t - hits[0].t < 1e-6 and {hits[0].balls[1], hits[1].balls[1]} == {1, 2}
    assert overlap_at_events(res, snaps) <= 1e-6
    again = simulate(POOL, balls, Shot(0, 0.0, 3.0))
    assert json.dumps(again.to_json()) == json.dumps(res.to_json())


def test_pooltool_pr201_motion_parallel_to_a_rail():
    # rolling along the R-head rail while touching it: no division by zero, no cushion event
    res = simulate(POOL, {0: (0.5, R)}, Shot(0, 0.0, 1.5, b=0.4))
    assert not any(e.kind == "ball_cushion" and e.cushion in ("R-head", "R-foot") for e in res.events)
    end = next(e.t for e in res.events if e.kind in ("ball_cushion", "ball_pocket", "roll_to_rest"))
    for k in range(50):
        assert res.state_at(end * k / 50)[0].r[1] == pytest.approx(R, abs=1e-12)


@pytest.mark.parametrize("V0", [1.0, 3.0])
def test_pooltool_pr257_newtons_cradle(V0):
    # cue ball + 5 frozen balls in a line: 0.6.0 made 10 812 events at V0 = 3
    balls = {0: (0.8, 0.635)}
    for k in range(5):
        balls[k + 1] = (1.2 + 2 * R * k, 0.635)
    res, snaps = simulate_with_snapshots(POOL, balls, Shot(0, 0.0, V0))
    assert not res.capped
    n_bb = sum(e.kind == "ball_ball" for e in res.events)
    assert len(res.events) <= 60 and n_bb <= 25
    # the first pass: the end ball leaves with most of the speed, the others creep
    first_pass = [e for e in res.events if e.kind == "ball_ball" and e.t < res.events[1].t + 0.05]
    assert len(first_pass) <= 30
    end_ball = next(e for e in res.events if e.kind == "ball_ball" and 5 in e.balls)
    v_end = math.hypot(*end_ball.states[5].v)
    hit = first(res, "ball_ball")
    v_cue = math.hypot(*states_before(res)[res.events.index(hit)][0].v)
    assert v_end == pytest.approx(v_cue * (0.5 * (1 + POOL.cloth.e_b)) ** 5, rel=0.05)
    assert overlap_at_events(res, snaps) <= 1e-6
    all_at_rest_on_bed_or_pocketed(res)


@pytest.mark.parametrize("phi", [90.1, 91.0, 95.0])
def test_stronge_crash_grazing_shot_of_a_ball_frozen_to_a_rail(phi):
    # ball touching the head rail (x = R), shot almost along it, slightly into it
    frozen = simulate(POOL, {0: (R, 0.5)}, Shot(0, phi, 2.0))
    apart = simulate(POOL, {0: (R + 1e-6, 0.5)}, Shot(0, phi, 2.0))
    assert frozen.events[1].kind == "ball_cushion" and frozen.events[1].t == 0.0
    all_at_rest_on_bed_or_pocketed(frozen)
    # 1 um must not change the outcome (0.6.0's Han/Mathavan gave very different results)
    assert math.dist(frozen.final[0].r, apart.final[0].r) < 2e-3
    assert frozen.final[0].state == apart.final[0].state


@pytest.mark.parametrize("V0", [1.0, 4.0, 10.0])
def test_pooltool_39_contact_distance_error_at_every_event_within_the_spacer(V0):
    for table, balls, shot in (
        (CAROM, {0: (0.7, 0.5), 1: (1.6, 0.8), 2: (2.0, 0.3)}, Shot(0, 12.0, V0, a=0.3, b=0.2, theta_deg=10.0)),
        (POOL, rack_layout(POOL), Shot(0, 0.0, V0)),
    ):
        res = simulate(table, balls, shot)
        Rt = table.R
        lines = {c.name: c for c in table.cushions}
        jaws = {j.name: j for j in table.jaws}
        for e, pre in zip(res.events, states_before(res)):
            if e.kind == "ball_ball":
                a, b = e.balls
                gap = math.dist(pre[a].r, pre[b].r) - 2 * Rt
            elif e.kind == "ball_cushion":
                s = pre[e.balls[0]]
                if e.cushion in lines:
                    c = lines[e.cushion]
                    gap = (s.r[0] - c.p1[0]) * c.normal[0] + (s.r[1] - c.p1[1]) * c.normal[1] - Rt
                else:
                    j = jaws[e.cushion]
                    gap = math.dist(s.r, j.centre) - j.radius - Rt
            else:
                continue
            assert -1e-6 <= gap <= 1e-9, (e.kind, e.t, gap)


def test_tailuge_445_sagu_depth_exceeded_repro():
    # 4 balls, Mathavan cushions, aim -2.99107 rad, power 3.406, offset (-0.429, -0.136)
    balls = {0: (2.2, 0.7), 1: (1.0, 0.6), 2: (0.6, 0.9), 3: (1.4, 0.3)}
    res = simulate(CAROM, balls, Shot(0, math.degrees(-2.99107), 3.406, a=-0.429 * 0.5 / 0.4502, b=-0.136 * 0.5 / 0.4502), cushion_model="mathavan_2010")
    assert not res.capped and len(res.events) < 300
    all_at_rest_on_bed_or_pocketed(res)


def test_tailuge_174_replay_divergence_same_input_same_bytes():
    balls = rack_layout(POOL, cue=(0.6, 0.5))
    logs = {json.dumps(simulate(POOL, balls, Shot(0, 1.7, 9.5, a=-0.2, b=0.1)).to_json()) for _ in range(4)}
    assert len(logs) == 1


def test_tailuge_390_ball_resting_against_a_cushion_while_others_move():
    # ball 1 frozen to the R-head rail; the cue ball drives it into the rail, others move around it
    balls = {0: (1.0, 0.4), 1: (1.0, R), 2: (0.6, R), 3: (0.8, 0.9)}
    res = simulate(POOL, balls, Shot(0, -90.0, 3.0))
    assert not res.capped and len(res.events) < 200
    assert any(e.kind == "ball_cushion" and e.balls == (1,) for e in res.events)
    all_at_rest_on_bed_or_pocketed(res)


@pytest.mark.parametrize("phi", [0.0, 0.7, -1.3])
def test_vrc8ball_52_vrcbce_100_break_at_10_m_s_never_overlaps(phi):
    res, snaps = simulate_with_snapshots(POOL, rack_layout(POOL), Shot(0, phi, 10.0))
    assert not res.capped
    assert overlap_at_events(res, snaps) <= 1e-6
    assert overlap_sampled(res, 1e-3) <= 1e-6
    all_at_rest_on_bed_or_pocketed(res)


def test_vrcbce_100_thin_cuts_at_high_speed_never_pass_through():
    for cut in (80.0, 85.0, 88.0, 89.5):
        obj = (1.5, 0.635)
        a = math.radians(cut)
        ghost = (obj[0] - 2 * R * math.cos(a), obj[1] - 2 * R * math.sin(a))
        cue = (0.6, 0.635 - 2 * R * math.sin(a))
        phi = math.degrees(math.atan2(ghost[1] - cue[1], ghost[0] - cue[0]))
        res, snaps = simulate_with_snapshots(POOL, {0: cue, 1: obj}, Shot(0, phi, 10.0))
        bb = first(res, "ball_ball")
        assert bb.balls == (0, 1)
        assert overlap_sampled(res, 2e-4) <= 1e-6


def test_vrcbce_205_cue_ball_never_leaves_the_table():
    for phi in range(0, 360, 15):
        res = simulate(POOL, rack_layout(POOL), Shot(0, float(phi), 10.0, a=0.3))
        all_at_rest_on_bed_or_pocketed(res)


def test_tailuge_59_equipment_constants_per_game_type():
    assert CAROM.R == pytest.approx(0.03075) and CAROM.ball.mass == pytest.approx(0.210)
    assert POOL.R == pytest.approx(0.028575) and POOL.ball.mass == pytest.approx(0.170)
    assert (CAROM.length, CAROM.width, CAROM.cushion_height) == (2.84, 1.42, 0.037)
    assert POOL.length == pytest.approx(2.54) and POOL.width == pytest.approx(1.27)
    res = simulate(CAROM, {0: (1.0, 0.5), 1: (1.0 + 2 * CAROM.R, 0.5)}, Shot(0, 0.0, 1.0))
    assert first(res, "ball_ball").t < 1e-15  # touching at 61.5 mm: the contact is immediate


@pytest.mark.parametrize("n", [1, 2, 3, 16])
def test_pooltool_288_systems_of_1_2_3_and_16_balls(n):
    table = POOL
    if n == 16:
        balls = rack_layout(table)
    else:
        balls = {k: (0.6 + 0.3 * k, 0.4 + 0.1 * k) for k in range(n)}
    res = simulate(table, balls, Shot(0, 20.0, 4.0))
    assert set(res.final) == set(balls)
    assert len(res.events) >= 2
    all_at_rest_on_bed_or_pocketed(res)


def test_fast_tangential_graze_is_not_a_push():
    # the cue ball passes an object ball exactly tangentially at 3 m/s: a contact with no
    # closing speed must not glue the two (the push rule needs a slow *relative* motion)
    balls = {0: (0.6, 0.5), 1: (1.4, 0.5 + 2 * R)}
    res = simulate(POOL, balls, Shot(0, 0.0, 3.0))
    touches = [e for e in res.events if e.kind == "ball_ball"]
    for e in touches:
        assert math.hypot(*e.states[1].v) < 1e-6  # the object ball is not dragged along
    assert res.final[1].r == pytest.approx(balls[1], abs=1e-5)
    assert res.final[0].r[0] > 1.5
