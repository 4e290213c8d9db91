"""Stroke flags of the cue stick's follow-through (physics/follow_through.pyx): double hits and
pushes with real layouts, the stick's motion after the strike, and the flags in the log's JSON."""

import json
import math
import random

import pytest

from physics import Shot, SimResult, get_table, simulate
from physics.follow_through import FOLLOW_THROUGH, REFERENCE_SPEED, TIP_CONTACT_TIME, tip_motion

POOL = get_table("pool-9ft")
CAROM = get_table("carom")
R = POOL.R


def onto(gap, cut_deg=0.0, V0=2.0, table=POOL, **kw):
    """The flags of a stroke along +x from (1.0, 0.6) onto a ball whose surface is ``gap`` (m)
    ahead along the cue line, placed for a cut of ``cut_deg`` degrees."""
    off = 2 * table.R * math.sin(math.radians(cut_deg))
    along = math.sqrt((2 * table.R + gap) ** 2 - off * off)
    return simulate(table, {0: (1.0, 0.6), 1: (1.0 + along, 0.6 + off)}, Shot(0, 0.0, V0, **kw)).flags


def test_the_stick_after_the_strike():
    # momentum along the cue: vc = V0 - (m / M) v with v the cue ball's speed off the tip
    m, M = POOL.ball.mass, POOL.cue.mass
    v = 2 * 2.0 / (1 + m / M)
    vc, reach, t_end = tip_motion(POOL, Shot(0, 0.0, 2.0))
    assert vc == pytest.approx(2.0 - m / M * v, rel=1e-12)
    assert vc == pytest.approx(1.0773, abs=1e-4)
    # one inch at a medium stroke (cue ball at 1.4 m/s), in proportion to the stroke
    assert (FOLLOW_THROUGH, REFERENCE_SPEED, TIP_CONTACT_TIME) == (0.0254, 1.4, 0.001)
    assert reach == pytest.approx(0.0254 * v / 1.4, rel=1e-12)
    assert reach == pytest.approx(0.0558, abs=1e-4)
    # uniform deceleration to rest: the stick stops after 2 D / vc, 0.104 s on every centre hit
    assert t_end == pytest.approx(2 * reach / vc, rel=1e-12)
    assert t_end == pytest.approx(0.1036, abs=1e-4)
    assert tip_motion(POOL, Shot(0, 0.0, 6.0)) == pytest.approx((3 * vc, 3 * reach, t_end), rel=1e-12)
    # off centre the ball takes less of the stroke: v = 2 V0 / (1 + m/M + 2.5 (a^2 + b^2))
    v = 2 * 6.0 / (1 + m / M + 2.5 * 0.13)
    assert tip_motion(POOL, Shot(0, 0.0, 6.0, a=0.2, b=-0.3)) == pytest.approx(
        (6.0 - m / M * v, 0.0254 * v / 1.4, 2 * 0.0254 * v / 1.4 / (6.0 - m / M * v)), rel=1e-12)


@pytest.mark.parametrize("V0, want", [(0.5, ("double_hit",)), (2.0, ("double_hit", "push")), (6.0, ("double_hit", "push"))])
def test_straight_with_a_1_mm_gap_is_a_double_hit(V0, want):
    # the cue ball stops on the object ball and the tip, still coming, meets it again; at 2 m/s it
    # does within the tip's 1 ms contact (a push), at 0.5 m/s after it
    assert onto(0.001, V0=V0) == want


def test_straight_with_gaps_of_a_few_millimetres_to_centimetres():
    assert onto(0.003, V0=2.0) == ("double_hit",)
    assert onto(0.05, V0=2.0) == ("double_hit",)        # within the 5.6 cm follow-through at 2 m/s
    assert onto(0.06, V0=2.0) == ()                     # beyond it
    assert onto(0.02, V0=0.5) == ()                     # a soft stroke reaches 1.4 cm
    assert onto(0.01, V0=0.5) == ("double_hit",)


@pytest.mark.parametrize("V0", [0.5, 2.0, 6.0])
def test_a_gap_of_20_cm_is_clean(V0):
    assert onto(0.2, V0=V0) == ()


@pytest.mark.parametrize("cut", [35.0, 45.0, 60.0])
@pytest.mark.parametrize("V0", [0.5, 2.0, 6.0])
def test_cuts_of_35_degrees_and_more_at_1_mm_are_clean(cut, V0):
    # the cue ball leaves along the tangent line faster than the stick follows
    assert onto(0.001, cut, V0=V0) == ()


def test_thin_enough_cut_and_too_full_cut():
    assert onto(0.001, 20.0, V0=2.0) == ("double_hit",)
    assert onto(0.001, 25.0, V0=2.0) == ("double_hit",)
    assert onto(0.001, 30.0, V0=2.0) == ()


def test_an_elevated_cue_keeps_open_a_gap_a_level_stroke_closes():
    # 5 cm at 2 m/s: the level stick reaches 5.6 cm along the bed, at 30 degrees 4.8 cm
    assert onto(0.05, V0=2.0, theta_deg=0.0) == ("double_hit",)
    assert onto(0.05, V0=2.0, theta_deg=30.0) == ()
    assert onto(0.03, V0=2.0, theta_deg=45.0) == ("double_hit",)
    assert onto(0.03, V0=2.0, theta_deg=60.0) == ()


def test_frozen_balls_push_through_legally():
    # a stroke into a ball the cue ball touches (WPA 6.7): no flag, at any speed or elevation
    for V0 in (0.5, 2.0, 8.0):
        for theta in (0.0, 30.0):
            assert onto(0.0, V0=V0, theta_deg=theta) == ()


def test_the_cue_ball_coming_back_off_a_close_cushion_meets_the_tip():
    res = simulate(POOL, {0: (1.0, R + 0.01)}, Shot(0, 270.0, 1.0))
    assert [e.kind for e in res.events[:2]] == ["strike", "ball_cushion"]
    assert res.flags == ("double_hit",)
    # along the cushion instead: clean
    assert simulate(POOL, {0: (1.0, R + 0.01)}, Shot(0, 0.0, 1.0)).flags == ()


@pytest.mark.parametrize("V0", [4.0, 8.0, 10.0])
@pytest.mark.parametrize("a", [-0.3, 0.0, 0.3])
def test_a_break_is_clean(V0, a):
    balls = {0: POOL.head_spot, **{k + 1: p for k, p in enumerate(POOL.rack_sites())}}
    assert simulate(POOL, balls, Shot(0, 0.0, V0, a=a)).flags == ()


def test_carom_break_and_close_carom_shot():
    balls = {2: CAROM.top_spot, 1: CAROM.bottom_spot, 0: CAROM.starting_spots["right"]}
    assert simulate(CAROM, balls, Shot(0, 80.0, 4.0)).flags == ()
    assert onto(0.001, V0=1.0, table=CAROM) == ("double_hit",)


def test_a_lone_cue_ball_is_never_caught_by_the_tip():
    # every stroke from mid-table that hits nothing within the follow-through, from 0.5 m/s up:
    # the cue ball runs away from the stick
    rng = random.Random(14)
    for _ in range(400):
        r, ang = rng.uniform(0.0, 0.5), rng.uniform(0.0, 2 * math.pi)
        shot = Shot(0, rng.uniform(0.0, 360.0), rng.uniform(0.5, 10.0), a=r * math.cos(ang), b=r * math.sin(ang),
                    theta_deg=rng.choice([0.0, 15.0, 30.0, 50.0, 70.0]))
        assert simulate(POOL, {0: (1.27, 0.635)}, shot).flags == (), shot


def test_flags_in_the_json_log():
    res = simulate(POOL, {0: (1.0, 0.6), 1: (1.0 + 2 * R + 0.001, 0.6)}, Shot(0, 0.0, 2.0))
    d = res.to_json()
    assert d["flags"] == ["double_hit", "push"]
    back = SimResult.from_json(json.loads(json.dumps(d)))
    assert back.flags == ("double_hit", "push")
    assert back.to_json() == d
    # a clean stroke's map has no "flags" key (the map logs had before flags existed) and an old
    # log loads with none
    clean = simulate(POOL, {0: (1.0, 0.6)}, Shot(0, 0.0, 2.0)).to_json()
    assert "flags" not in clean
    assert SimResult.from_json(clean).flags == ()
    # listed in any order, given back in STROKE_FLAGS order
    assert SimResult.from_json(dict(d, flags=["push", "double_hit"])).flags == ("double_hit", "push")


@pytest.mark.parametrize("flags, message", [
    ("double_hit", "sim.flags: expected a list of stroke flags, got str"),
    (["double_hit", "scoop"], "sim.flags: unknown stroke flag 'scoop'; expected any of ['double_hit', 'push']"),
    ([1], "sim.flags: unknown stroke flag 1; expected any of ['double_hit', 'push']"),
    (["push", "push"], "sim.flags: a flag is listed twice"),
])
def test_bad_flags_in_a_stored_log(flags, message):
    d = simulate(POOL, {0: (1.0, 0.6)}, Shot(0, 0.0, 2.0)).to_json()
    with pytest.raises(ValueError) as exc:
        SimResult.from_json(dict(d, flags=flags))
    assert str(exc.value) == message


def test_flags_of_a_lag_are_each_strike_s():
    # two cue balls struck at once: the flags of either stroke
    t = CAROM
    balls = {0: (0.3, 0.4), 1: (0.3, 1.0), 2: (0.3 + 2 * t.R + 0.001, 1.0)}
    res = simulate(t, balls, [Shot(0, 0.0, 1.0), Shot(1, 0.0, 1.0)])
    assert res.flags == ("double_hit",)
    res = simulate(t, {0: (0.3, 0.4), 1: (0.3, 1.0)}, [Shot(0, 0.0, 1.0), Shot(1, 0.0, 1.0)])
    assert res.flags == ()
