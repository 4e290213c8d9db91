"""Pool pocket geometry (physics/table.py): straight-in shots drop, rail shots drop or meet a
jaw, jaws rebound, no ball ever passes through a cushion."""

import math

import pytest

from physics import Shot, get_table, simulate
from physics.simulate import on_playing_surface

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


# The layout a 14.1 soak example (tests/rules/test_straight_pool_properties.py, soak variant,
# seed 195915, config {}) ended in with the physics before the playing surface was redefined:
# ball 10 came to rest against SR.jaw0 with its centre 0.18 mm past the nose line, 1 mm beyond
# the old "pocket circle + 5 cm" mouth, and simulate refused the layout for the next stroke.
SOAK_195915 = {
    0: (1.2712868390116507, 0.3205870049508321), 1: (1.8803735998706723, 0.05405404989526834),
    2: (0.07174318237407573, 1.2138639371757622), 3: (1.796479435890689, 0.2849308309020917),
    4: (0.1157133488631086, 1.1744531177101907), 5: (0.8679960961101905, 0.032683641600587815),
    6: (0.6467744004404017, 0.07772495480721778), 7: (1.36704529125133, 1.078937732307727),
    8: (2.1068698638282384, 0.5323873685994234), 9: (2.35186815846869, 0.16504703748488458),
    10: (1.2072348319914077, 0.028395336441584745), 11: (0.40514804416265976, 0.219203984280098),
    12: (2.4582206451468775, 0.13534780423789963), 13: (0.8745504977387388, 0.12439325626222446),
    14: (0.34056444591951357, 0.47280481156972914), 15: (1.446536607345239, 0.08225932021554413),
}


def test_the_14_1_soak_layout_with_a_ball_on_a_side_jaw_is_playable():
    T = POOLS[0]
    x, y = SOAK_195915[10]
    jaw = next(j for j in T.jaws if j.name == "SR.jaw0")
    assert y < T.R and math.dist((x, y), jaw.centre) > jaw.radius + T.R  # past the nose line, clear of the jaw
    assert on_playing_surface(T, (x, y))
    # the next stroke of the example, and ball 10 itself struck off the jaw
    res = simulate(T, SOAK_195915, Shot(0, phi_deg=158.09266922405686, V0=2.04870893392527, a=-0.10733081224782956, b=0.13783896467350226))
    assert res.events[0].kind == "strike" and all(s.state in ("stationary", "pocketed") for s in res.final.values())
    res = simulate(T, {10: (x, y)}, Shot(10, 90.0, 1.0))
    assert res.final[10].state == "stationary" and on_playing_surface(T, res.final[10].r)
    assert [e.kind for e in res.events][:3] == ["strike", "slide_to_roll", "ball_cushion"]


@pytest.mark.parametrize("table", POOLS, ids=lambda t: t.name)
def test_playing_surface_ends_at_the_facings_and_the_pocket(table):
    R = table.R
    for c in table.cushions:
        if ".facing" not in c.name:
            continue
        pocket = table.pocket_by_name(c.name.split(".")[0])
        # behind a facing, along its whole line (past its back end too): off the table
        for u in (0.5, 1.5, 3.0):
            px = c.p1[0] + u * (c.p2[0] - c.p1[0]) - c.normal[0] * (R + 0.02)
            py = c.p1[1] + u * (c.p2[1] - c.p1[1]) - c.normal[1] * (R + 0.02)
            if math.dist((px, py), pocket.centre) > pocket.radius:
                assert not on_playing_surface(table, (px, py)), (c.name, u)
    for p in table.pockets:
        cx, cy = p.corner
        ux, uy = p.centre[0] - cx, p.centre[1] - cy
        n = math.hypot(ux, uy)
        ux, uy = ux / n, uy / n
        # behind the pocket: off the table; in the mouth 3 mm past the corner point: on it
        for back in (0.01, 0.05, 0.3):
            assert not on_playing_surface(table, (p.centre[0] + ux * (p.radius + back), p.centre[1] + uy * (p.radius + back)))
        assert on_playing_surface(table, (cx + 0.003 * ux, cy + 0.003 * uy)) == (math.dist((cx + 0.003 * ux, cy + 0.003 * uy), p.centre) >= p.radius)
