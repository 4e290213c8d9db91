"""Pool pocket geometry (physics/table.py): straight-in shots drop, rail shots drop or meet a
jaw, jaws rebound, no ball ever passes through a cushion."""

import math

import pytest

from physics import Shot, get_table, simulate

POOLS = [get_table(n) for n in ("pool-9ft", "pool-8ft", "pool-7ft")]


def through_a_cushion(res, dt=5e-4):
    """Deepest penetration (m) of any ball into any straight cushion or jaw, sampled every dt s.

    A straight cushion counts only where the ball's centre projects onto its segment."""
    t = res.table
    R = t.R
    worst = 0.0
    t_end = res.events[-1].t
    for k in range(int(t_end / dt) + 2):
        for s in res.state_at(k * dt).values():
            if s.state == "pocketed":
                continue
            x, y = s.r
            for c in t.cushions:
                dx, dy = c.p2[0] - c.p1[0], c.p2[1] - c.p1[1]
                u = ((x - c.p1[0]) * dx + (y - c.p1[1]) * dy) / (dx * dx + dy * dy)
                if 0.0 <= u <= 1.0:
                    gap = (x - c.p1[0]) * c.normal[0] + (y - c.p1[1]) * c.normal[1] - R
                    if gap < 0.0 and gap > -3 * R:  # on the cushion side, near the segment
                        worst = max(worst, -gap)
            for j in t.jaws:
                worst = max(worst, j.radius + R - math.dist((x, y), j.centre))
    return worst


def toward_pocket(table, pocket, back=0.4, offset=0.0):
    """Start point ``back`` m from the pocket's table point along its bisector, and the aim."""
    cx, cy = pocket.corner
    if pocket.name[0] in "HF":
        ux, uy = (1 if cx == 0 else -1) / math.sqrt(2), (1 if cy == 0 else -1) / math.sqrt(2)
    else:
        ux, uy = 0.0, (1 if cy == 0 else -1)
    start = (cx + ux * back - uy * offset, cy + uy * back + ux * offset)
    return start, math.degrees(math.atan2(-uy, -ux))


@pytest.mark.parametrize("table", POOLS, ids=lambda t: t.name)
@pytest.mark.parametrize("V0", [0.4, 2.0, 8.0])
def test_ball_rolled_into_the_middle_of_each_pocket_is_pocketed(table, V0):
    for p in table.pockets:
        for offset in (0.0, 0.01, -0.01, 0.02, -0.02):
            start, phi = toward_pocket(table, p, offset=offset)
            res = simulate(table, {0: start}, Shot(0, phi, V0, b=0.3))
            drops = [e.pocket for e in res.events if e.kind == "ball_pocket"]
            assert drops[:1] == [p.name], (p.name, offset, drops)
            assert res.final[0].state == "pocketed" and res.final[0].r == p.centre


@pytest.mark.parametrize("table", POOLS, ids=lambda t: t.name)
@pytest.mark.parametrize("V0", [0.5, 3.0, 9.0])
def test_ball_rolled_along_a_rail_into_a_corner_drops_or_meets_a_jaw_never_passes_through(table, V0):
    R = table.R
    for gap in (0.0, 0.002, 0.01, 0.02):
        for start, phi, corner in (
            ((0.5, R + gap), 180.0, "HR"),
            ((R + gap, 0.5), 270.0, "HR"),
            ((table.length - 0.5, table.width - R - gap), 0.0, "FL"),
        ):
            res = simulate(table, {0: start}, Shot(0, phi, V0, b=0.35))
            first = next(e for e in res.events if e.kind in ("ball_cushion", "ball_pocket"))
            assert (first.kind == "ball_pocket" and first.pocket == corner) or (
                first.kind == "ball_cushion" and first.cushion.startswith(corner + ".")
            ), (start, first)
            assert through_a_cushion(res) < 1e-6


def jaw_approach(table, jaw):
    """Unit normal at the middle of the jaw's exposed arc (between its nose and its facing)."""
    facing = next(c for c in table.cushions if c.name == jaw.name.replace("jaw", "facing"))
    rails = [c for c in table.cushions if "." not in c.name]
    nose = min(rails, key=lambda c: min(math.dist(c.p1, jaw.centre), math.dist(c.p2, jaw.centre)))
    nx, ny = nose.normal[0] + facing.normal[0], nose.normal[1] + facing.normal[1]
    n = math.hypot(nx, ny)
    return nx / n, ny / n


@pytest.mark.parametrize("table", POOLS, ids=lambda t: t.name)
@pytest.mark.parametrize("V0", [0.5, 2.0, 6.0])
def test_ball_into_a_jaw_rebounds(table, V0):
    R = table.R
    for j in table.jaws:
        nx, ny = jaw_approach(table, j)
        contact = (j.centre[0] + nx * (j.radius + R), j.centre[1] + ny * (j.radius + R))
        d = 0.005
        while not (R + 1e-3 < contact[0] + nx * d < table.length - R - 1e-3 and R + 1e-3 < contact[1] + ny * d < table.width - R - 1e-3):
            d += 0.005
        start = (contact[0] + nx * d, contact[1] + ny * d)
        phi = math.degrees(math.atan2(-ny, -nx))
        res = simulate(table, {0: start}, Shot(0, phi, V0))
        hit = next(e for e in res.events if e.kind in ("ball_cushion", "ball_pocket"))
        assert hit.kind == "ball_cushion" and hit.cushion == j.name, (j.name, hit.kind, hit.cushion or hit.pocket)
        vout = hit.states[0].v
        # straight back out along the normal (the impact is square on)
        assert vout[0] * nx + vout[1] * ny > 0.5 * math.hypot(*vout)
        assert through_a_cushion(res) < 1e-6


@pytest.mark.parametrize("table", POOLS, ids=lambda t: t.name)
def test_a_ball_fits_between_the_jaws_of_every_pocket(table):
    R = table.R
    for p in table.pockets:
        jaws = [j for j in table.jaws if j.name.startswith(p.name + ".")]
        assert len(jaws) == 2
        gap = math.dist(jaws[0].centre, jaws[1].centre) - jaws[0].radius - jaws[1].radius
        assert gap > 2 * R
        # WPA mouths: corner 4.5 in, side 5 in between the points where the noses end
        tips = [c for c in table.cushions if c.name.startswith(p.name + ".facing")]
        assert len(tips) == 2


def test_side_pocket_passes_a_ball_rolling_along_the_rail_at_walking_speed():
    # a ball frozen to the R-head rail rolling past SR does not drop into it (it is R from the
    # nose, the pocket circle sits behind the mouth), and meets the far jaw tangentially
    t = POOLS[0]
    res = simulate(t, {0: (t.length / 2 - 0.4, t.R)}, Shot(0, 0.0, 1.0, b=0.4))
    assert all(e.pocket != "SR" for e in res.events if e.kind == "ball_pocket")
    assert through_a_cushion(res) < 1e-6
