"""Playing strength: levels 1 (beginner) to 5 (strong amateur) by search breadth and execution noise.

A bot chooses a stroke by simulating candidates with the real physics (bots/pool.py,
bots/carom.py), then *executes* it with human-like errors: independent Gaussian noise on the
aim angle, the cue speed and the tip offset (:func:`execute`). A level sets both how much it
searches and how well it executes. The table below is the single definition of the levels.

==========  ===========  ==========  ==========  ==========================================
level       sigma phi    sigma V0    sigma tip   search (14.1 / carom)
            (degrees)    (relative)  (R)
==========  ===========  ==========  ==========  ==========================================
1           0.60         10 %        0.06        3 pots, 1 speed, 1 spin / 250 strokes
2           0.35         7 %         0.045       5 pots, 2 speeds, 2 spins / 600 strokes
3           0.20         5 %         0.03        8 pots, 3 speeds, 3 spins, 4 noisy trials / 1,500
4           0.12         3.5 %       0.02        10 pots, 3 speeds, 5 spins, 6 trials / 3,000
5           0.07         2.5 %       0.012       14 pots, 4 speeds, 5 spins, 8 trials / 5,000
==========  ===========  ==========  ==========  ==========================================

Scale of the noise: an aim error of 0.6 degrees moves the cue ball's path by about 10 mm at
1 m, enough to miss most cuts longer than a metre; 0.07 degrees (about 1.2 mm at 1 m) is a
good player's error (Alciatore's "margin of error" tables for pocket acceptance give the
same order: a few tenths of a degree for a long cut). Speed errors are relative (a
percentage of V0); tip-offset errors are absolute, in fractions of the ball radius R.
Executed strokes are clipped to the protocol's limits (V0 in (0, 10] m/s, tip offset at most
0.5 R, the miscue limit).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Dict, Tuple

from physics import Shot
from protocol import limits as L


@dataclass(frozen=True)
class Level:
    """Search breadth and execution noise of one level (units: degrees, relative, ball radii).

    14.1: ``pots`` ghost-ball pots simulated (best geometric first), ``phi_offsets_deg`` aim
    refinements tried around the ghost-ball angle (throw and squirt are in the physics, not in
    the geometry), ``speed_factors`` multiples of :func:`bots.aim.speed_for`, ``spins`` tip offsets
    (a, b), ``placements`` cue-ball-in-hand places scored geometrically, ``safeties`` object balls
    tried for a safety, ``position`` weight of the next shot's quality in a stroke's value.
    ``trials``: noisy re-simulations of the best ``finalists`` candidates (0: trust the nominal
    stroke). Carom: ``carom_speeds``, ``carom_spins``, ``carom_step_deg`` (sweep step),
    ``carom_max_sims`` (budget), ``carom_keep`` scoring strokes collected before choosing.
    """

    level: int
    sigma_phi_deg: float
    sigma_v_rel: float
    sigma_tip: float
    pots: int
    phi_offsets_deg: Tuple[float, ...]
    speed_factors: Tuple[float, ...]
    spins: Tuple[Tuple[float, float], ...]
    placements: int
    safeties: int
    position: float
    trials: int
    finalists: int
    carom_speeds: Tuple[float, ...]
    carom_spins: Tuple[Tuple[float, float], ...]
    carom_step_deg: float
    carom_max_sims: int
    carom_keep: int


LEVELS: Dict[int, Level] = {
    1: Level(1, 0.60, 0.10, 0.06, pots=3, phi_offsets_deg=(0.0,), speed_factors=(1.0,), spins=((0.0, 0.1),),
             placements=8, safeties=2, position=0.0, trials=0, finalists=1,
             carom_speeds=(2.5, 3.5), carom_spins=((0.0, 0.0),), carom_step_deg=2.0, carom_max_sims=250, carom_keep=1),
    2: Level(2, 0.35, 0.07, 0.045, pots=5, phi_offsets_deg=(0.0, -0.3, 0.3), speed_factors=(1.0, 1.3),
             spins=((0.0, 0.1), (0.0, -0.25)), placements=16, safeties=3, position=0.3, trials=0, finalists=1,
             carom_speeds=(2.5, 3.5, 5.0), carom_spins=((0.0, 0.0), (0.0, 0.3)), carom_step_deg=1.5,
             carom_max_sims=600, carom_keep=2),
    3: Level(3, 0.20, 0.05, 0.03, pots=8, phi_offsets_deg=(0.0, -0.25, 0.25, -0.5, 0.5),
             speed_factors=(0.85, 1.0, 1.35), spins=((0.0, 0.1), (0.0, 0.3), (0.0, -0.3)), placements=24, safeties=4,
             position=0.5, trials=4, finalists=3,
             carom_speeds=(2.5, 3.5, 5.0, 1.6), carom_spins=((0.0, 0.0), (0.0, 0.3), (0.3, 0.1), (-0.3, 0.1)),
             carom_step_deg=1.0, carom_max_sims=1500, carom_keep=3),
    4: Level(4, 0.12, 0.035, 0.02, pots=10, phi_offsets_deg=(0.0, -0.2, 0.2, -0.4, 0.4, -0.7, 0.7),
             speed_factors=(0.8, 1.0, 1.3), spins=((0.0, 0.1), (0.0, 0.35), (0.0, -0.35), (0.25, 0.1), (-0.25, 0.1)),
             placements=32, safeties=5, position=0.7, trials=6, finalists=4,
             carom_speeds=(2.5, 3.5, 5.0, 1.6), carom_spins=((0.0, 0.0), (0.0, 0.3), (0.0, -0.3), (0.3, 0.1), (-0.3, 0.1)),
             carom_step_deg=1.0, carom_max_sims=3000, carom_keep=5),
    5: Level(5, 0.07, 0.025, 0.012, pots=14, phi_offsets_deg=(0.0, -0.15, 0.15, -0.35, 0.35, -0.6, 0.6, -1.0, 1.0),
             speed_factors=(0.75, 1.0, 1.25, 1.6),
             spins=((0.0, 0.1), (0.0, 0.35), (0.0, -0.35), (0.3, 0.1), (-0.3, 0.1)), placements=40, safeties=6,
             position=0.9, trials=8, finalists=5,
             carom_speeds=(2.5, 3.5, 5.0, 1.6, 4.2), carom_spins=((0.0, 0.0), (0.0, 0.3), (0.0, -0.3), (0.3, 0.1), (-0.3, 0.1)),
             carom_step_deg=0.75, carom_max_sims=5000, carom_keep=8),
}


def get_level(level: int) -> Level:
    """The :class:`Level` numbered ``level`` (1..5); ``ValueError`` naming ``level`` otherwise."""
    if isinstance(level, bool) or level not in LEVELS:
        raise ValueError(f"level: expected 1..5, got {level!r}")
    return LEVELS[level]


def execute(shot: Shot, level: Level, rng: random.Random) -> Shot:
    """The stroke actually played when ``level`` tries to play ``shot``: Gaussian errors on
    ``phi_deg`` (sigma_phi_deg), ``V0`` (relative, sigma_v_rel) and ``a``/``b`` (sigma_tip), then
    clipped to the protocol's stroke limits (V0 in [0.05, 10] m/s, tip offset at most 0.5 R,
    phi in (-360, 360) degrees). Deterministic for a given ``rng`` state."""
    phi = (shot.phi_deg + rng.gauss(0.0, level.sigma_phi_deg)) % 360.0
    V0 = min(L.V0_MAX, max(0.05, shot.V0 * (1.0 + rng.gauss(0.0, level.sigma_v_rel))))
    a = shot.a + rng.gauss(0.0, level.sigma_tip)
    b = shot.b + rng.gauss(0.0, level.sigma_tip)
    r = math.hypot(a, b)
    if r > L.TIP_OFFSET_MAX:
        a, b = a * L.TIP_OFFSET_MAX / r * 0.999999, b * L.TIP_OFFSET_MAX / r * 0.999999
    return replace(shot, phi_deg=phi, V0=V0, a=a, b=b)
