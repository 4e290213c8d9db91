"""Ghost-ball aiming for pool: where to send the cue ball so an object ball heads for a pocket.

Pure plane geometry on a :class:`physics.table.Table` preset (metres, the table frame of
DESIGN.md; angles in degrees only at this user-facing edge, named ``*_deg``).

The ghost-ball method (e.g. Alciatore, *The Illustrated Principles of Pool and Billiards*,
ch. 3; Dr. Dave's "ghost-ball aiming" notes): for the object ball to leave along the line from
its centre to the pocket, the cue ball must be, at contact, centred on the *ghost ball*: the
point one ball diameter behind the object ball on that line. Aim the cue ball at the ghost
ball's centre. The *cut angle* is the angle between the cue ball's path and the object ball's
path; 0 is a straight (full) shot, 90 degrees is the thinnest possible cut. The method ignores
throw and squirt, which the physics models; a bot corrects for them by search if it wants.

Pocket aim point: the midpoint of the centres of the pocket's two jaw circles (``<pocket>.jaw0``
and ``.jaw1`` of the preset), which lies on the pocket's axis of symmetry at the mouth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, List, Mapping, Optional, Sequence, Tuple

from physics.table import Table, Vec2

# widest entry angle (deg) between the object ball's path and the pocket's axis that still finds
# the pocket on a regulation table (a heuristic: corner pockets accept balls running along a rail,
# 45 deg off their axis; side pockets need a path within about 55 deg of straight in).
MAX_ENTRY_DEG = {"corner": 50.0, "side": 55.0}


@dataclass(frozen=True)
class Aim:
    """One aimed pot.

    ``ball``: object ball id; ``pocket``: pocket name; ``phi_deg``: cue direction in degrees
    counter-clockwise from +x (the :class:`physics.Shot` convention); ``cut_deg``: cut angle in
    [0, 180) degrees (over 90 the pot is impossible); ``ghost``: ghost-ball centre (m);
    ``aim_point``: pocket aim point (m); ``cue_distance``: cue ball to ghost ball (m);
    ``object_distance``: object ball to the aim point (m); ``entry_deg``: angle between the
    object ball's path and the pocket's axis.
    """

    ball: int
    pocket: str
    phi_deg: float
    cut_deg: float
    ghost: Vec2
    aim_point: Vec2
    cue_distance: float
    object_distance: float
    entry_deg: float


def pocket_kind(table: Table, pocket: str) -> str:
    """``corner`` or ``side`` (side pockets sit at the middle of a long rail)."""
    p = table.pocket_by_name(pocket)
    return "side" if abs(p.corner[0] - table.length / 2.0) < 1e-9 else "corner"


def pocket_aim_point(table: Table, pocket: str) -> Vec2:
    """Aim point of ``pocket`` (m): the midpoint of its two jaw-circle centres; ``ValueError`` if unknown."""
    table.pocket_by_name(pocket)
    jaws = [j for j in table.jaws if j.name.startswith(pocket + ".jaw")]
    if len(jaws) != 2:
        raise ValueError(f"pocket: {pocket!r} has {len(jaws)} jaws on table {table.name}, expected 2")
    (x1, y1), (x2, y2) = jaws[0].centre, jaws[1].centre
    return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)


def pocket_axis(table: Table, pocket: str) -> Vec2:
    """Unit vector pointing into ``pocket`` along its axis of symmetry (from the bed toward the pocket)."""
    p = table.pocket_by_name(pocket)
    cx, cy = table.length / 2.0, table.width / 2.0
    if pocket_kind(table, pocket) == "side":
        return (0.0, 1.0 if p.corner[1] > cy else -1.0)
    sx = 1.0 if p.corner[0] > cx else -1.0
    sy = 1.0 if p.corner[1] > cy else -1.0
    return (sx / math.sqrt(2.0), sy / math.sqrt(2.0))


def ghost_ball(target: Vec2, aim_point: Vec2, R: float) -> Vec2:
    """Centre of the ghost ball: 2R behind ``target`` on the line from ``aim_point`` through it (m)."""
    dx, dy = aim_point[0] - target[0], aim_point[1] - target[1]
    d = math.hypot(dx, dy)
    if d == 0.0:
        raise ValueError("aim_point: coincides with the object ball")
    return (target[0] - 2.0 * R * dx / d, target[1] - 2.0 * R * dy / d)


def _angle_between_deg(u: Vec2, v: Vec2) -> float:
    cross = u[0] * v[1] - u[1] * v[0]
    dot = u[0] * v[0] + u[1] * v[1]
    return abs(math.degrees(math.atan2(cross, dot)))


def aim(table: Table, cue: Vec2, target: Vec2, pocket: str, ball: int = -1) -> Aim:
    """Ghost-ball aim for the cue ball at ``cue`` to pot the ball at ``target`` in ``pocket``.

    Returns an :class:`Aim`; raises ``ValueError`` for an unknown pocket or when the cue ball
    already sits on the ghost ball (no direction).
    """
    ap = pocket_aim_point(table, pocket)
    g = ghost_ball(target, ap, table.R)
    dx, dy = g[0] - cue[0], g[1] - cue[1]
    dcue = math.hypot(dx, dy)
    if dcue == 0.0:
        raise ValueError("cue: the cue ball is on the ghost ball")
    path = (ap[0] - target[0], ap[1] - target[1])
    return Aim(
        ball=ball,
        pocket=pocket,
        phi_deg=math.degrees(math.atan2(dy, dx)) % 360.0,
        cut_deg=_angle_between_deg((dx, dy), path),
        ghost=g,
        aim_point=ap,
        cue_distance=dcue,
        object_distance=math.hypot(*path),
        entry_deg=_angle_between_deg(path, pocket_axis(table, pocket)),
    )


def segment_clear(p0: Vec2, p1: Vec2, balls: Iterable[Vec2], clearance: float) -> bool:
    """True when no centre in ``balls`` lies within ``clearance`` (m) of the segment p0-p1."""
    ex, ey = p1[0] - p0[0], p1[1] - p0[1]
    L2 = ex * ex + ey * ey
    for q in balls:
        if L2 == 0.0:
            s = 0.0
        else:
            s = max(0.0, min(1.0, ((q[0] - p0[0]) * ex + (q[1] - p0[1]) * ey) / L2))
        if math.hypot(q[0] - (p0[0] + s * ex), q[1] - (p0[1] + s * ey)) < clearance:
            return False
    return True


def pots(
    table: Table,
    layout: Mapping[int, Vec2],
    cue_ball: int = 0,
    balls: Optional[Sequence[int]] = None,
    max_cut_deg: float = 70.0,
) -> List[Aim]:
    """Every makeable-looking pot from ``layout`` (id -> centre, m), nearest to straight first.

    A pot is kept when its cut angle is at most ``max_cut_deg``, the ghost ball lies on the bed,
    the object ball's path enters the pocket within :data:`MAX_ENTRY_DEG`, and no other ball lies
    within 2R of the cue ball's path to the ghost ball or of the object ball's path to the pocket.
    ``balls``: object balls to consider (default: every ball but the cue ball). Sorted by cut
    angle, then total distance.
    """
    R = table.R
    cue = layout[cue_ball]
    out = []
    ids = [b for b in (balls if balls is not None else layout) if b != cue_ball and b in layout]
    for b in ids:
        tgt = layout[b]
        others_cue = [p for k, p in layout.items() if k not in (cue_ball, b)]
        for pk in table.pocket_names:
            try:
                a = aim(table, cue, tgt, pk, ball=b)
            except ValueError:
                continue
            if a.cut_deg > max_cut_deg or not table.on_bed(a.ghost):
                continue
            if a.entry_deg > MAX_ENTRY_DEG[pocket_kind(table, pk)]:
                continue
            if not segment_clear(cue, a.ghost, others_cue, 2.0 * R):
                continue
            if not segment_clear(tgt, a.aim_point, others_cue, 2.0 * R):
                continue
            out.append(a)
    out.sort(key=lambda a: (round(a.cut_deg, 9), a.cue_distance + a.object_distance))
    return out


def speed_for(table: Table, a: Aim, margin: float = 0.4, v_min: float = 0.6, v_max: float = 6.0) -> float:
    """A rough cue speed V0 (m/s) for pot ``a``: enough for the object ball to roll ``margin`` m past the aim point.

    Model (an estimate, not the physics): a centre-ball hit keeps 5/7 of the speed once the
    ball rolls; rolling balls decelerate at mu_r * g; the object ball leaves with the cue
    ball's speed times cos(cut) (equal masses, restitution e_b) and then also keeps 5/7.
    Clipped to [v_min, v_max].
    """
    c = table.cloth
    dec = c.mu_r * c.g
    k = 5.0 / 7.0
    v_ob_roll = math.sqrt(2.0 * dec * (a.object_distance + margin))
    cos_cut = max(math.cos(math.radians(min(a.cut_deg, 85.0))), 0.1)
    v_contact = v_ob_roll / k / (cos_cut * (1.0 + c.e_b) / 2.0)
    v0 = math.sqrt(v_contact * v_contact + 2.0 * dec * a.cue_distance) / k
    return max(v_min, min(v_max, v0))


def nearest_to_straight(table: Table, layout: Mapping[int, Vec2], cue_ball: int = 0, balls: Optional[Sequence[int]] = None) -> Optional[Aim]:
    """The pot with the smallest cut angle from :func:`pots`, or None when none qualifies."""
    found = pots(table, layout, cue_ball, balls)
    return found[0] if found else None


def unit(phi_deg: float) -> Tuple[float, float]:
    """Direction (cos, sin) of ``phi_deg``."""
    r = math.radians(phi_deg)
    return (math.cos(r), math.sin(r))
