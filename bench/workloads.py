"""Benchmark workloads: the same shots for billar and for pooltool (shared by the physics
benchmarks, ``bench/physics_speed.py`` and ``bench/physics_vs_pooltool.py``).

Each workload function returns a list of shots, each a tuple
``(table_name, balls, shot_kwargs)``:

- ``table_name``: a preset of :data:`physics.TABLES` (``"pool-9ft"``, ``"carom"``);
- ``balls``: ``{ball_id: (x, y)}`` in metres in the table frame (DESIGN.md), every ball at rest
  on the bed, no two closer than ``2 R``;
- ``shot_kwargs``: ``{"cue_ball", "phi_deg", "V0", "a", "b", "theta_deg"}`` for
  ``physics.Shot`` (deg, m/s, fractions of the ball radius).

Everything is deterministic: seeded ``random.Random`` streams, no clock. Only table geometry
is read from :mod:`physics.table`; nothing here runs the simulator.

The workloads follow shared/spec/physics.md section 4 (the pooltool reference figures):

- ``break_14_1``: 15-ball triangle with its apex on the foot spot, struck at the apex at
  V0 = 8 m/s from near the head spot;
- ``break_9_ball``: 9-ball diamond (1-ball on the foot spot, 9-ball in the middle), V0 = 8 m/s
  at the 1-ball;
- ``random_pool_shots``: 50 layouts of 9 balls on a 9-ft table, phi uniform, V0 in [0.5, 6] m/s,
  tip offset uniform in the disc of radius 0.5 (area-uniform), theta 0;
- ``random_three_cushion_shots``: 50 layouts of the 3 carom balls, white cued, V0 in [1, 7] m/s,
  the same offset disc.

Racks are built as pooltool's ``layouts.generate_layout`` builds them (pooltool 0.6.0): ball
centres on a lattice of spacing ``2 R (1 + 1e-3)`` (57 um gaps on a pool table), each moved by a
random wiggle of at most ``R * 1e-3``, so no two balls touch and the break is not the exactly
simultaneous limit case (that one is a physics test, not a benchmark).
"""

from __future__ import annotations

import math
import random
from typing import Dict, List, Tuple

from physics.table import Table, get_table

Balls = Dict[int, Tuple[float, float]]
ShotKwargs = Dict[str, float]
Workshot = Tuple[str, Balls, ShotKwargs]

RACK_SPACING = 1e-3  # pooltool's spacing_factor: lattice radius R * (1 + RACK_SPACING), wiggle <= R * RACK_SPACING
BREAK_SPEED = 8.0  # m/s
BREAK_CUE_BALL = (0.23, 0.40)  # cue ball for the breaks, as fractions of (length, width): behind the head string, just off the long string
SEED = 20240611


def _wiggled_rack(table: Table, sites: List[int], rng: random.Random) -> List[Tuple[float, float]]:
    """Positions of ``table.rack_sites()[i]`` for ``i`` in ``sites``, spread to the pooltool spacing and wiggled."""
    tight = table.rack_sites()
    ax, ay = tight[0]
    scale = 1.0 + RACK_SPACING
    spacer = table.R * RACK_SPACING
    out = []
    for i in sites:
        x, y = tight[i]
        x, y = ax + (x - ax) * scale, ay + (y - ay) * scale
        ang = 2.0 * math.pi * rng.random()
        rad = spacer * rng.random()
        out.append((x + rad * math.cos(ang), y + rad * math.sin(ang)))
    return out


def _aim(frm: Tuple[float, float], to: Tuple[float, float]) -> float:
    """phi_deg from ``frm`` toward ``to`` (table frame, counter-clockwise from +x), in [0, 360)."""
    return math.degrees(math.atan2(to[1] - frm[1], to[0] - frm[0])) % 360.0


def _break(table_name: str, rack: Balls) -> Workshot:
    table = get_table(table_name)
    cue = (BREAK_CUE_BALL[0] * table.length, BREAK_CUE_BALL[1] * table.width)
    balls: Balls = {0: cue}
    balls.update(rack)
    shot = {"cue_ball": 0, "phi_deg": _aim(cue, rack[1]), "V0": BREAK_SPEED, "a": 0.0, "b": 0.0, "theta_deg": 0.0}
    return (table_name, balls, shot)


def break_14_1(table_name: str = "pool-9ft") -> List[Workshot]:
    """The 15-ball rack broken at the apex (one shot). Ball ``k + 1`` on rack site ``k``."""
    table = get_table(table_name)
    pos = _wiggled_rack(table, list(range(15)), random.Random(SEED + 1))
    return [_break(table_name, {i + 1: p for i, p in enumerate(pos)})]


# 9-ball diamond on the triangle's sites: rows of 1, 2, 3, 2, 1 balls; the 9-ball in the middle
# of row 3 (site 4), the 1-ball at the apex (site 0).
_DIAMOND_SITES = [0, 1, 2, 3, 4, 5, 7, 8, 12]
_DIAMOND_BALLS = [1, 2, 3, 4, 9, 5, 6, 7, 8]


def break_9_ball(table_name: str = "pool-9ft") -> List[Workshot]:
    """The 9-ball diamond broken at the 1-ball (one shot)."""
    table = get_table(table_name)
    pos = _wiggled_rack(table, _DIAMOND_SITES, random.Random(SEED + 2))
    return [_break(table_name, dict(zip(_DIAMOND_BALLS, pos)))]


def _clear_of_pockets(table: Table, p: Tuple[float, float], gap: float) -> bool:
    """True when a ball at ``p`` keeps ``gap`` from every jaw and stays out of every pocket mouth circle."""
    R = table.R
    for j in table.jaws:
        if math.dist(p, j.centre) < j.radius + R + gap:
            return False
    for pk in table.pockets:
        if math.dist(p, pk.centre) < pk.radius + R + gap:
            return False
    return True


def random_layout(table: Table, n_balls: int, rng: random.Random, gap: float = 1e-4) -> Balls:
    """``n_balls`` balls (ids 0..n-1) uniform on the bed, at least ``gap`` m from each other,
    from the cushion noses, the jaws and the pocket circles (rejection sampling)."""
    R = table.R
    balls: Balls = {}
    while len(balls) < n_balls:
        p = (rng.uniform(R + gap, table.length - R - gap), rng.uniform(R + gap, table.width - R - gap))
        if not _clear_of_pockets(table, p, gap):
            continue
        if all(math.dist(p, q) >= 2.0 * R + gap for q in balls.values()):
            balls[len(balls)] = p
    return balls


def _random_shot(rng: random.Random, v_range: Tuple[float, float], offset_radius: float = 0.5) -> ShotKwargs:
    r = offset_radius * math.sqrt(rng.random())
    ang = 2.0 * math.pi * rng.random()
    return {
        "cue_ball": 0,
        "phi_deg": 360.0 * rng.random(),
        "V0": rng.uniform(*v_range),
        "a": r * math.cos(ang),
        "b": r * math.sin(ang),
        "theta_deg": 0.0,
    }


def random_pool_shots(n: int = 50, n_balls: int = 9, table_name: str = "pool-9ft", seed: int = SEED + 3) -> List[Workshot]:
    """``n`` random shots on a pool table: ``n_balls`` balls, cue ball 0, V0 in [0.5, 6] m/s."""
    table = get_table(table_name)
    rng = random.Random(seed)
    return [(table_name, random_layout(table, n_balls, rng), _random_shot(rng, (0.5, 6.0))) for _ in range(n)]


def random_three_cushion_shots(n: int = 50, seed: int = SEED + 4) -> List[Workshot]:
    """``n`` random shots on the carom table: white (0), yellow (1), red (2); white cued, V0 in [1, 7] m/s."""
    table = get_table("carom")
    rng = random.Random(seed)
    return [("carom", random_layout(table, 3, rng), _random_shot(rng, (1.0, 7.0))) for _ in range(n)]


WORKLOADS = {
    "14.1 break (15 balls)": break_14_1,
    "9-ball break": break_9_ball,
    "random pool shots": random_pool_shots,
    "random three-cushion shots": random_three_cushion_shots,
}
"""Name -> workload function, in the order the benchmarks print them."""
