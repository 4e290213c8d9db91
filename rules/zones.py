# cython: annotation_typing=False
"""Restricted zones of the carom games and the entran / dentro / a caballo state machine.

Sources: rules-carom C8 (libre corner zones), C9-C10 (balk spaces of balkline 47 and 71),
C11 (anchors), C12 (zone positions), K7 (membership with the line tolerance). Zone geometry
comes from the table preset (``corner_zone_legs``, ``balkline_47``, ``balkline_71``,
``anchor_side``); no table number is repeated here.

A zone is a convex polygon of the playing surface (table frame, metres; see DESIGN.md). Its
sides are either chalk lines or cushion noses. A ball belongs to a zone when its centre is
inside the polygon or at most ``EPS_LINE`` outside every side (K7: a ball on a line belongs to
every zone the line bounds, the zone worse for the player). A ball *left* a zone during a
stroke when at some instant its centre was more than ``EPS_LINE`` beyond one of the zone's
chalk lines; :meth:`physics.events.SimResult.max_projection` gives that maximum exactly per
side. (Membership and leaving both use the per-side distance, so a corner of the tolerance band
is square rather than rounded: at most 0.2 mm of difference, and the two tests always agree.)

Zone states for the shooter's current run (C12): ``FREE``, ``IN`` (*entran*: the zone allows
two caroms), ``INSIDE`` (*dentro*: the next carom must drive an object ball out of the zone).
"""

from __future__ import annotations

import math
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from physics.table import Table, Vec2

EPS_LINE = 5.0e-4  # m, line tolerance (K7)

FREE = "free"
IN = "in"
INSIDE = "inside"

#: the referee's words for the states (S4 / DBU: entran, dentro, a caballo)
ANNOUNCE_WORDS = {IN: "entran", INSIDE: "dentro"}
ASTRIDE = "a caballo"

CORNER = "corner"
SPACE = "space"
ANCHOR = "anchor"

_ON = 1.0e-12  # a vertex this close to a cushion nose lies on it


class Side:
    """One side of a zone: the half-plane ``n . r <= c`` (``n`` the outward unit normal).

    ``line`` is True for a chalk line, False for a cushion nose (a ball can never cross a
    cushion, so only chalk lines are tested for leaving).
    """

    __slots__ = ("n", "c", "line")

    def __init__(self, n: Vec2, c: float, line: bool):
        self.n = (float(n[0]), float(n[1]))
        self.c = float(c)
        self.line = bool(line)

    def beyond(self, r) -> float:
        """Signed distance (m) of point ``r`` beyond this side (negative inside)."""
        return self.n[0] * r[0] + self.n[1] * r[1] - self.c


class Zone:
    """A restricted zone: ``name``, ``kind`` (corner, space or anchor), ``vertices`` (counter-clockwise
    polygon, m) and ``caroms``, the number of caroms allowed with both object balls in it (2 or 1).
    """

    __slots__ = ("name", "kind", "vertices", "caroms", "sides")

    def __init__(self, name: str, kind: str, vertices: Sequence[Vec2], caroms: int, table: Table):
        self.name = name
        self.kind = kind
        self.vertices = tuple((float(x), float(y)) for x, y in vertices)
        self.caroms = int(caroms)
        L, W = table.length, table.width
        sides = []
        k = len(self.vertices)
        for i in range(k):
            p, q = self.vertices[i], self.vertices[(i + 1) % k]
            dx, dy = q[0] - p[0], q[1] - p[1]
            norm = math.hypot(dx, dy)
            n = (dy / norm, -dx / norm)  # outward for a counter-clockwise polygon
            on_cushion = (
                (abs(p[0]) < _ON and abs(q[0]) < _ON)
                or (abs(p[0] - L) < _ON and abs(q[0] - L) < _ON)
                or (abs(p[1]) < _ON and abs(q[1]) < _ON)
                or (abs(p[1] - W) < _ON and abs(q[1] - W) < _ON)
            )
            sides.append(Side(n, n[0] * p[0] + n[1] * p[1], not on_cushion))
        self.sides = tuple(sides)

    @property
    def entry_state(self) -> str:
        """State on arrival of both object balls (C12): IN if two caroms are allowed, else INSIDE."""
        return IN if self.caroms >= 2 else INSIDE

    def outside_by(self, r) -> float:
        """How far (m) the centre ``r`` lies beyond the zone's sides (<= 0 when inside)."""
        return max(s.beyond(r) for s in self.sides)

    def contains(self, r, eps: float = EPS_LINE) -> bool:
        """K7 membership of a ball centred at ``r`` (m)."""
        return self.outside_by(r) <= eps

    def left(self, sim, ball: int, eps: float = EPS_LINE) -> bool:
        """True when ``ball`` was more than ``eps`` beyond a chalk line at some instant of ``sim`` (K7)."""
        for s in self.sides:
            if s.line and sim.max_projection(ball, s.n) - s.c > eps:
                return True
        return False

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "vertices": [list(v) for v in self.vertices], "caroms": self.caroms}

    def __repr__(self) -> str:
        return f"Zone({self.name!r}, {self.kind}, caroms={self.caroms})"


class Border:
    """Two zones of one group separated by a single chalk line (``b`` None: the outside of a corner zone).

    ``side`` is the line as a side of zone ``a``. Used for *a caballo* (C12 item 4).
    """

    __slots__ = ("a", "b", "side")

    def __init__(self, a: str, b: Optional[str], side: Side):
        self.a, self.b, self.side = a, b, side


class ZoneSet:
    """The restricted zones of one discipline on one table, with the C12 state machine.

    ``zones``: tuple of :class:`Zone` (balk spaces or corner zones first, then anchors);
    ``borders``: the :class:`Border` pairs for *a caballo*; ``d_astride``: 2R (K8).
    States are plain dicts zone name -> ``IN`` or ``INSIDE`` (zones not listed are FREE), so
    they serialise as they are.
    """

    def __init__(self, zones: Sequence[Zone], borders: Sequence[Border], d_astride: float):
        self.zones = tuple(zones)
        self.borders = tuple(borders)
        self.d_astride = float(d_astride)
        self._by_name = {z.name: z for z in self.zones}
        if len(self._by_name) != len(self.zones):
            raise ValueError("zones: duplicate zone names")

    def __len__(self) -> int:
        return len(self.zones)

    def zone(self, name: str) -> Zone:
        return self._by_name[name]

    def names(self) -> List[str]:
        return [z.name for z in self.zones]

    def containing(self, r) -> List[str]:
        """Names of the zones a ball centred at ``r`` belongs to (K7), in set order."""
        return [z.name for z in self.zones if z.contains(r)]

    def common(self, ra, rb) -> List[str]:
        """Zones holding both balls (centres ``ra``, ``rb``)."""
        return [z.name for z in self.zones if z.contains(ra) and z.contains(rb)]

    # ----- C12 state machine ---------------------------------------------------------------
    def inning_start(self, ra, rb) -> Dict[str, str]:
        """C12 item 1: every zone holding both object balls starts in its entry state."""
        return {z.name: z.entry_state for z in self.zones if z.contains(ra) and z.contains(rb)}

    def left_during(self, sim, balls: Iterable[int], names: Iterable[str]) -> Dict[str, bool]:
        """Zone name -> True when one of the object ``balls`` left that zone during ``sim`` (K7)."""
        balls = tuple(balls)
        out = {}
        for name in names:
            z = self._by_name[name]
            out[name] = any(z.left(sim, b) for b in balls)
        return out

    def zone_foul(self, states: Mapping[str, str], left: Mapping[str, bool]) -> Optional[str]:
        """C12 item 2: the first zone that was INSIDE at stroke start and that no object ball left, or None."""
        for z in self.zones:
            if states.get(z.name) == INSIDE and not left.get(z.name, False):
                return z.name
        return None

    def after_stroke(self, states: Mapping[str, str], left: Mapping[str, bool], ra, rb) -> Dict[str, str]:
        """C12 item 2, after a scoring stroke: new states from the resting object balls ``ra``, ``rb``.

        Both in Z: the entry state if Z was FREE or an object ball left Z during the stroke
        (it comes back *entran*, S4), else INSIDE (IN and nobody left). Otherwise FREE.
        """
        out = {}
        for z in self.zones:
            if not (z.contains(ra) and z.contains(rb)):
                continue
            was = states.get(z.name, FREE)
            if was == FREE or left.get(z.name, False):
                out[z.name] = z.entry_state
            else:
                out[z.name] = INSIDE
        return out

    def astride(self, ra, rb, kinds: Sequence[str] = (CORNER, SPACE)) -> bool:
        """C12 item 4: the object balls lie on the two sides of one line, each within ``d_astride``
        of it, with no common zone of the same kind (informational only)."""
        zs = [z for z in self.zones if z.kind in kinds]
        if not zs or any(z.contains(ra) and z.contains(rb) for z in zs):
            return False
        d = self.d_astride
        for bd in self.borders:
            za = self._by_name[bd.a]
            if za.kind not in kinds:
                continue
            if abs(bd.side.beyond(ra)) > d or abs(bd.side.beyond(rb)) > d:
                continue
            for p, q in ((ra, rb), (rb, ra)):
                if not za.contains(p):
                    continue
                if bd.b is None:
                    if not za.contains(q):
                        return True
                elif self._by_name[bd.b].contains(q):
                    return True
        return False

    def announce(self, states: Mapping[str, str], ra, rb) -> List[str]:
        """The referee's call before a stroke (C12 item 5): balk spaces or corner zones first, then anchors.

        E.g. ``["a caballo", "anchor entran"]``; empty when nothing applies.
        """
        out = []
        for kinds, prefix in (((CORNER, SPACE), ""), ((ANCHOR,), "anchor ")):
            group = [z for z in self.zones if z.kind in kinds]
            if not group:
                continue
            got = [states.get(z.name, FREE) for z in group]
            if INSIDE in got:
                out.append(prefix + ANNOUNCE_WORDS[INSIDE])
            elif IN in got:
                out.append(prefix + ANNOUNCE_WORDS[IN])
            elif kinds != (ANCHOR,) and self.astride(ra, rb, kinds):
                out.append(prefix + ASTRIDE)
        return out

    def to_json(self) -> List[dict]:
        """Zone polygons for clients: ``[{"name", "kind", "vertices": [[x, y]], "caroms"}]``."""
        return [z.to_json() for z in self.zones]


# ----- builders (C8-C11) -------------------------------------------------------------------


def corner_zones(table: Table, legs: Optional[Vec2] = None, caroms: int = 2) -> Tuple[List[Zone], List[Border]]:
    """The four libre corner triangles (C8): legs ``a`` along the long cushion, ``b`` along the short one.

    Names BR (0, 0), BL (0, W), TR (L, 0), TL (L, W) (B bottom, T top, R right y = 0, L left).
    ``legs`` defaults to ``table.corner_zone_legs``.
    """
    a, b = legs if legs is not None else table.corner_zone_legs
    L, W = table.length, table.width
    zones, borders = [], []
    for name, (cx, cy) in (("BR", (0.0, 0.0)), ("BL", (0.0, W)), ("TR", (L, 0.0)), ("TL", (L, W))):
        sx = 1.0 if cx == 0.0 else -1.0
        sy = 1.0 if cy == 0.0 else -1.0
        pts = [(cx, cy), (cx + sx * a, cy), (cx, cy + sy * b)]
        if sx * sy < 0:  # keep counter-clockwise order
            pts = [pts[0], pts[2], pts[1]]
        z = Zone(name, CORNER, pts, caroms, table)
        zones.append(z)
        diag = [s for s in z.sides if s.line][0]
        borders.append(Border(name, None, diag))
    return zones, borders


def _lines(d: float, extent: float) -> List[float]:
    out = sorted({round(d, 12), round(extent - d, 12)})
    return [x for x in out if 0.0 < x < extent]


def balk_spaces(table: Table, d: float, caroms: int) -> Tuple[List[Zone], List[Border]]:
    """Balk spaces cut by lines ``d`` m from each cushion (C9, C10); coincident lines merge (71/2).

    Names ``X<i>Y<j>``: column i (1 = bottom end) by row j (1 = right cushion, y = 0).
    """
    L, W = table.length, table.width
    xs = [0.0] + _lines(d, L) + [L]
    ys = [0.0] + _lines(d, W) + [W]
    zones, borders = [], []
    for i in range(len(xs) - 1):
        for j in range(len(ys) - 1):
            x0, x1, y0, y1 = xs[i], xs[i + 1], ys[j], ys[j + 1]
            zones.append(Zone(f"X{i + 1}Y{j + 1}", SPACE, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], caroms, table))
    for i in range(len(xs) - 1):
        for j in range(len(ys) - 1):
            here = f"X{i + 1}Y{j + 1}"
            if i + 2 < len(xs):
                borders.append(Border(here, f"X{i + 2}Y{j + 1}", Side((1.0, 0.0), xs[i + 1], True)))
            if j + 2 < len(ys):
                borders.append(Border(here, f"X{i + 1}Y{j + 2}", Side((0.0, 1.0), ys[j + 1], True)))
    return zones, borders


def anchors(table: Table, d: float, caroms: int, side: Optional[float] = None) -> List[Zone]:
    """Anchor squares (C11) at both ends of every balkline ``d`` m from the cushions.

    Side ``side`` (default ``table.anchor_side``), centred on the line, one side on the cushion
    nose. Names ``A-<cushion><k>``: cushion B, T, R or Lf, k = 1, 2 in increasing coordinate.
    """
    s = table.anchor_side if side is None else side
    L, W = table.length, table.width
    h = s / 2.0
    out = []
    for k, x in enumerate(_lines(d, L), start=1):  # lines across the table end on R and Lf
        out.append(Zone(f"A-R{k}", ANCHOR, [(x - h, 0.0), (x + h, 0.0), (x + h, s), (x - h, s)], caroms, table))
        out.append(Zone(f"A-Lf{k}", ANCHOR, [(x - h, W - s), (x + h, W - s), (x + h, W), (x - h, W)], caroms, table))
    for k, y in enumerate(_lines(d, W), start=1):  # lines along the table end on B and T
        out.append(Zone(f"A-B{k}", ANCHOR, [(0.0, y - h), (s, y - h), (s, y + h), (0.0, y + h)], caroms, table))
        out.append(Zone(f"A-T{k}", ANCHOR, [(L - s, y - h), (L, y - h), (L, y + h), (L - s, y + h)], caroms, table))
    return out


def libre_zones(table: Table, legs: Optional[Vec2] = None) -> ZoneSet:
    """Libre (straight rail): the four corner zones, two caroms each (C7, C8, C12)."""
    zones, borders = corner_zones(table, legs, 2)
    return ZoneSet(zones, borders, 2.0 * table.R)


def balkline_zones(table: Table, d: float, caroms: int, with_anchors: bool = True) -> ZoneSet:
    """Balkline ``d`` / ``caroms`` (47/2, 47/1, 71/2): balk spaces plus anchors (C9-C11)."""
    zones, borders = balk_spaces(table, d, caroms)
    if with_anchors:
        zones = zones + anchors(table, d, caroms)
    return ZoneSet(zones, borders, 2.0 * table.R)
