"""The cue strike (physics/cue_strike.pyx): speed, spin, squirt and elevation after Leckie &
Greenspan eqs. 1-3 and Alciatore TP A-30/A-31, read from the strike event."""

import math

import pytest

from physics import Shot, get_table, simulate

POOL = get_table("pool-9ft")
R, m, M, m_end = POOL.R, POOL.ball.mass, POOL.cue.mass, POOL.cue.end_mass


def strike(**kw):
    shot = Shot(0, kw.pop("phi", 30.0), kw.pop("V0", 2.0), **kw)
    res = simulate(POOL, {0: (1.2, 0.6)}, shot)
    e = res.events[0]
    assert e.kind == "strike" and e.balls == (0,) and e.t == 0.0
    return e.states[0]


def test_centre_ball_hit_speed_and_direction():
    s = strike(phi=30.0, V0=2.0)
    v = 2 * 2.0 / (1 + m / M)
    assert math.hypot(*s.v) == pytest.approx(v, rel=1e-12)
    assert math.degrees(math.atan2(s.v[1], s.v[0])) == pytest.approx(30.0, abs=1e-12)
    assert s.w == (0.0, 0.0, 0.0) and s.state == "sliding"


@pytest.mark.parametrize("phi", [0.0, 90.0, 180.0, 270.0, -90.0, 450.0])
def test_aim_along_an_axis_is_exact(phi):
    s = strike(phi=phi)
    c, sn = round(math.cos(math.radians(phi))), round(math.sin(math.radians(phi)))
    v = math.hypot(*s.v)
    # no 1e-16 component across the axis (a shot along a rail must not drift into it)
    assert s.v[0] == c * v and s.v[1] == sn * v


def test_two_fifths_above_centre_is_natural_roll():
    s = strike(phi=0.0, b=0.4)
    assert s.state == "rolling" or abs(s.v[0] - R * s.w[1]) < 1e-9
    assert s.w[1] * R == pytest.approx(s.v[0], rel=1e-12)


def test_draw_and_follow_spin_directions():
    follow, draw = strike(phi=0.0, b=0.3), strike(phi=0.0, b=-0.3)
    assert follow.w[1] > 0 and draw.w[1] < 0  # topspin about +y for a shot along +x
    # an off-centre hit is less efficient: (5/2)(a^2 + b^2) in the denominator
    assert math.hypot(*follow.v) == pytest.approx(2 * 2.0 / (1 + m / M + 2.5 * 0.09), rel=1e-12)


def test_right_english_spins_counter_clockwise_and_squirts_left():
    a = 0.3
    s = strike(phi=0.0, a=a)
    assert s.w[2] > 0  # about +z: the ball's right side pushed forward
    alpha = math.atan(2.5 * a * math.sqrt(1 - a * a) / (1 + m / m_end + 2.5 * (1 - a * a)))
    assert math.atan2(s.v[1], s.v[0]) == pytest.approx(alpha, rel=1e-12)  # to the left of the aim (+y)
    assert 0.5 < math.degrees(alpha) < 3.0
    left = strike(phi=0.0, a=-a)
    assert left.w[2] < 0 and math.atan2(left.v[1], left.v[0]) == pytest.approx(-alpha, rel=1e-12)


def test_elevated_cue_slows_the_ball_and_gives_masse_spin():
    flat, steep = strike(phi=0.0, a=0.3), strike(phi=0.0, a=0.3, theta_deg=60.0)
    assert math.hypot(*steep.v) == pytest.approx(math.hypot(*flat.v) * math.cos(math.radians(60.0)), rel=1e-12)
    assert flat.w[0] == pytest.approx(0.0, abs=1e-12)
    assert steep.w[0] > 0  # spin about the shot line: the slip has a sideways part


def test_masse_with_right_english_curves_right():
    res = simulate(POOL, {0: (0.6, 0.8)}, Shot(0, 0.0, 2.0, a=0.35, theta_deg=60.0))
    roll = next(e for e in res.events if e.kind == "slide_to_roll")
    # shot along +x, right is -y: the path ends up heading right of the aim, beyond the squirt
    heading = math.degrees(math.atan2(roll.states[0].v[1], roll.states[0].v[0]))
    assert heading < -5.0
    assert roll.states[0].r[1] < 0.8
