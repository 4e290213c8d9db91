"""bots/aim.py: ghost-ball geometry, checked by hand values and by the real physics."""

from __future__ import annotations

import math

import pytest

from bots.aim import (
    aim,
    ghost_ball,
    nearest_to_straight,
    pocket_aim_point,
    pocket_axis,
    pocket_kind,
    pots,
    segment_clear,
    speed_for,
)
from physics import Shot, get_table, simulate
from rules.base import pocketed_balls

T = get_table("pool-9ft")
R = T.R


def _rot(u, deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return (c * u[0] - s * u[1], s * u[0] + c * u[1])


def test_pocket_aim_points_from_the_jaws():
    hr = pocket_aim_point(T, "HR")
    jaws = [j.centre for j in T.jaws if j.name.startswith("HR.jaw")]
    assert hr == pytest.approx(((jaws[0][0] + jaws[1][0]) / 2, (jaws[0][1] + jaws[1][1]) / 2))
    assert hr[0] == pytest.approx(hr[1])  # on the corner's diagonal
    assert pocket_aim_point(T, "FL") == pytest.approx((T.length - hr[0], T.width - hr[1]))
    sl = pocket_aim_point(T, "SL")
    assert sl[0] == pytest.approx(T.length / 2) and sl[1] > T.width - 0.01
    assert pocket_kind(T, "SR") == "side" and pocket_kind(T, "FR") == "corner"
    assert pocket_axis(T, "HR") == pytest.approx((-math.sqrt(0.5), -math.sqrt(0.5)))
    assert pocket_axis(T, "SL") == (0.0, 1.0)
    with pytest.raises(ValueError, match="^pocket:"):
        pocket_aim_point(T, "XX")


def test_ghost_ball_and_angles():
    ap = pocket_aim_point(T, "FR")
    tgt = (2.0, 0.5)
    g = ghost_ball(tgt, ap, R)
    assert math.hypot(g[0] - tgt[0], g[1] - tgt[1]) == pytest.approx(2 * R)
    # collinear: ghost, target, aim point
    cross = (tgt[0] - g[0]) * (ap[1] - g[1]) - (tgt[1] - g[1]) * (ap[0] - g[0])
    assert cross == pytest.approx(0.0, abs=1e-12)
    # straight shot
    u = ((ap[0] - tgt[0]), (ap[1] - tgt[1]))
    n = math.hypot(*u)
    u = (u[0] / n, u[1] / n)
    cue = (g[0] - 0.8 * u[0], g[1] - 0.8 * u[1])
    a = aim(T, cue, tgt, "FR", ball=7)
    assert a.cut_deg == pytest.approx(0.0, abs=1e-6) and a.ball == 7
    assert a.phi_deg == pytest.approx(math.degrees(math.atan2(u[1], u[0])) % 360)
    assert a.cue_distance == pytest.approx(0.8) and a.object_distance == pytest.approx(n)
    # a 30-degree cut
    d = _rot(u, 30.0)
    cue = (g[0] - 0.6 * d[0], g[1] - 0.6 * d[1])
    a = aim(T, cue, tgt, "FR")
    assert a.cut_deg == pytest.approx(30.0) and a.phi_deg == pytest.approx(math.degrees(math.atan2(d[1], d[0])) % 360)


@pytest.mark.parametrize("pocket", ["HR", "HL", "SR", "SL", "FR", "FL"])
@pytest.mark.parametrize("cut", [0.0, 20.0, 40.0])
def test_ghost_ball_aim_pots_through_the_physics(pocket, cut):
    ap = pocket_aim_point(T, pocket)
    ax = pocket_axis(T, pocket)
    for side in (1, -1):
        u = _rot(ax, (20.0 if pocket_kind(T, pocket) == "corner" else 10.0) * side)
        tgt = (ap[0] - 0.5 * u[0], ap[1] - 0.5 * u[1])
        g = ghost_ball(tgt, ap, R)
        d = _rot(u, cut * side)
        cue = (g[0] - 0.6 * d[0], g[1] - 0.6 * d[1])
        a = aim(T, cue, tgt, pocket, 5)
        assert a.cut_deg == pytest.approx(cut, abs=1e-6)
        sim = simulate(T, {0: cue, 5: tgt}, Shot(0, phi_deg=a.phi_deg, V0=speed_for(T, a)))
        assert pocketed_balls(sim).get(5) == pocket


def test_pots_skip_blocked_paths_and_sort_by_cut():
    lay = {0: (1.0, 0.635), 5: (2.0, 0.9), 6: (1.6, 0.3)}
    found = pots(T, lay)
    assert found and all(found[i].cut_deg <= found[i + 1].cut_deg for i in range(len(found) - 1))
    best = nearest_to_straight(T, lay)
    assert best == found[0]
    # a ball on the cue ball's path to the ghost ball removes that pot
    g = best.ghost
    mid = ((lay[0][0] + g[0]) / 2, (lay[0][1] + g[1]) / 2)
    blocked = dict(lay)
    blocked[9] = mid
    assert all((a.ball, a.pocket) != (best.ball, best.pocket) for a in pots(T, blocked))
    assert segment_clear((0.0, 0.0), (1.0, 0.0), [(0.5, 0.2)], 0.1)
    assert not segment_clear((0.0, 0.0), (1.0, 0.0), [(0.5, 0.05)], 0.1)
    assert nearest_to_straight(T, {0: (1.0, 0.635)}) is None


def test_speed_for_grows_with_distance_and_cut():
    near = aim(T, (1.8, 0.3), (2.2, 0.2), "FR")
    far = aim(T, (0.3, 0.3), (2.2, 0.2), "FR")
    assert speed_for(T, far) > speed_for(T, near)
    assert 0.6 <= speed_for(T, near) <= 6.0
