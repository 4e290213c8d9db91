"""Pool table geometry the 14.1 referee needs: spotting on the long string, the rack outline.

All landmarks come from the :class:`physics.table.Table` preset (foot spot, long string, rack
outline, ball radius); nothing here copies a table number.

- :func:`spot_position`: where a ball is spotted (rules-14-1 R18; WPA-G 1.4, WSR 8-9).
- :func:`distance_to_rack`, :func:`interferes_with_rack`: the rack-outline test (D7; WPA 4.8).
- :func:`blocks_spot`: a ball too close to a spot for another ball to go there (D7).
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping, Optional, Tuple

from physics.simulate import on_playing_surface
from physics.table import Table, Vec2

DELTA_SPOT = 0.001  # m, clearance around a spot beyond touching (rules-14-1 D7, R18)
EPS_LINE = 1.0e-6  # m, tolerance of line tests (D2)
_EPS_TOUCH = 1.0e-9  # m, two balls closer than 2R by less than this are touching, not overlapping


def _blocked_intervals(table: Table, occupied: Iterable[Vec2], cue_ball: Optional[Vec2]):
    """Open x-intervals on the long string where a ball would overlap a ball (or come near the cue ball)."""
    y0 = table.long_string_y
    R = table.R
    out = []
    items = [(p, 2.0 * R) for p in occupied]
    if cue_ball is not None:
        items.append((cue_ball, 2.0 * R + DELTA_SPOT))
    for p, d in items:
        dy = p[1] - y0
        if abs(dy) < d:
            h = math.sqrt(d * d - dy * dy)
            out.append((p[0] - h, p[0] + h))
    return out


def _is_free(x: float, intervals) -> bool:
    for a, b in intervals:
        if a + _EPS_TOUCH < x < b - _EPS_TOUCH:
            return False
    return True


def spot_position(table: Table, occupied: Iterable[Vec2], cue_ball: Optional[Vec2] = None) -> Vec2:
    """The point of the long string where one object ball is spotted (rules-14-1 R18).

    ``occupied``: centres (m) of the object balls on the bed; ``cue_ball``: the cue ball's centre
    when it is on the bed. A point is blocked when a ball there would overlap an object ball
    (touching one is allowed: the ball is spotted frozen to it) or would be closer than
    2R + ``DELTA_SPOT`` to the cue ball. Takes the smallest free x in [FS.x, L - R] (the foot
    spot if free, else as near to it as possible toward the foot cushion); if there is none,
    the largest free x in [R, FS.x). Returns (x, W/2). Raises ``RuntimeError`` if the whole
    long string is blocked (impossible with 16 balls on a regulation table).
    """
    fx = table.foot_spot[0]
    y0 = table.long_string_y
    R = table.R
    intervals = _blocked_intervals(table, list(occupied), cue_ball)
    ahead = [fx] + [b for _, b in intervals if b >= fx]
    for x in sorted(ahead):
        if x <= table.length - R + _EPS_TOUCH and _is_free(x, intervals):
            return (min(x, table.length - R), y0)
    behind = [a for a, _ in intervals if a < fx]
    for x in sorted(behind, reverse=True):
        if x >= R - _EPS_TOUCH and _is_free(x, intervals):
            return (max(x, R), y0)
    raise RuntimeError("spotting: the whole long string is blocked")


def point_triangle_distance(p: Vec2, tri: Tuple[Vec2, Vec2, Vec2]) -> float:
    """Distance (m) from point ``p`` to the filled triangle ``tri``; 0 inside or on it."""
    (ax, ay), (bx, by), (cx, cy) = tri
    px, py = p

    def cross(ux, uy, vx, vy):
        return ux * vy - uy * vx

    d1 = cross(bx - ax, by - ay, px - ax, py - ay)
    d2 = cross(cx - bx, cy - by, px - bx, py - by)
    d3 = cross(ax - cx, ay - cy, px - cx, py - cy)
    neg = d1 < 0 or d2 < 0 or d3 < 0
    pos = d1 > 0 or d2 > 0 or d3 > 0
    if not (neg and pos):
        return 0.0
    best = math.inf
    for (x1, y1), (x2, y2) in (((ax, ay), (bx, by)), ((bx, by), (cx, cy)), ((cx, cy), (ax, ay))):
        ex, ey = x2 - x1, y2 - y1
        s = ((px - x1) * ex + (py - y1) * ey) / (ex * ex + ey * ey)
        s = 0.0 if s < 0.0 else (1.0 if s > 1.0 else s)
        best = min(best, math.hypot(px - (x1 + s * ex), py - (y1 + s * ey)))
    return best


def distance_to_rack(table: Table, p: Vec2) -> float:
    """Distance (m) from a ball centre ``p`` to the filled rack outline of ``table`` (D7)."""
    return point_triangle_distance(p, table.rack_outline())


def interferes_with_rack(table: Table, p: Vec2) -> bool:
    """True when a ball centred at ``p`` lies in or overlaps the rack outline (D7; WPA 4.8)."""
    return distance_to_rack(table, p) < table.R


def blocks_spot(table: Table, p: Vec2, spot: Vec2) -> bool:
    """True when a ball centred at ``p`` is closer than 2R + ``DELTA_SPOT`` to ``spot`` (D7)."""
    return math.hypot(p[0] - spot[0], p[1] - spot[1]) < 2.0 * table.R + DELTA_SPOT


def behind_head_string(table: Table, p: Vec2) -> bool:
    """True when a ball centred at ``p`` is behind the head string, in the kitchen (D3): x < L/4 - eps."""
    return p[0] <= kitchen_x_max(table)


def kitchen_x_max(table: Table) -> float:
    """The largest x (m) of a ball centre behind the head string (D3): the float just below L/4 - eps."""
    return math.nextafter(table.head_string_x - EPS_LINE, -math.inf)


def surface_fault(table: Table, p: Vec2) -> Optional[str]:
    """Where a ball at rest may not stand, the first half of the ball-in-hand placement test (R13):
    ``"not_finite"`` (x or y NaN or infinite), ``"pocket"`` (in a pocket's mouth, in or over
    its circle, or on a jaw: ``Table.on_bed`` or ``physics.simulate.on_playing_surface`` refuses it near a
    pocket), ``"off_bed"`` (otherwise not wholly inside the cushion noses: ``Table.on_bed``); None where
    the ball may stand (both accept it).

    The 14.1 referee's cue-ball-in-hand check and the position codes (rules/position.py) both use it
    (with :func:`overlaps_any`, the second half), so a position is refused exactly where a placed
    cue ball would be.
    """
    x, y = p
    if not (math.isfinite(x) and math.isfinite(y)):
        return "not_finite"
    bed, surface = table.on_bed((x, y)), on_playing_surface(table, (x, y))
    if bed and surface:
        return None
    if bed or surface:  # on the bed but on a jaw or in a pocket circle; or hanging in a pocket's mouth
        return "pocket"
    R = table.R
    if any(math.hypot(x - k.centre[0], y - k.centre[1]) < k.radius + R for k in table.pockets):
        return "pocket"
    return "off_bed"


def overlaps_any(table: Table, p: Vec2, others: Mapping[int, Vec2]) -> Optional[int]:
    """The id of a ball of ``others`` that a ball at ``p`` would overlap (touching is allowed), else None."""
    d = 2.0 * table.R - _EPS_TOUCH
    for b, q in others.items():
        if math.hypot(p[0] - q[0], p[1] - q[1]) < d:
            return b
    return None
