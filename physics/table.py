"""Table presets: playing-surface geometry, cushions, pockets, landmarks and cloth parameters.

Frame (see DESIGN.md): origin at the corner of the playing surface (cushion noses) where the
head (pool) or bottom (carom) cushion meets the right long cushion; x along the table
(0..length), y across (0..width), metres.

Every preset is an immutable :class:`Table`. Landmarks used by the referees (head string,
spots, rack sites, kitchen, carom spots, zone lines) are derived here once, so no other module
copies a table number.

Sources: WPA Tournament Table & Equipment Specifications (pool: 100 x 50 in bed on a 9-ft table,
corner mouth 4.5 in, side mouth 5 in, cushion nose at 62.5-64.5 % of the ball height, cut angles
142 deg corner / 104 deg side); UMB rules 2.1 and the DBU drawing (carom: 2.84 x 1.42 m, nose
37 mm, starting spots 182.5 mm off the long string). Cloth and restitution defaults from
pooltool 0.6.0 ``objects/ball/params.py`` (see shared/spec/physics.md section 1.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, Iterator, Optional, Tuple

Vec2 = Tuple[float, float]

INCH = 0.0254
G = 9.81


@dataclass(frozen=True)
class BallSpec:
    """A ball set: ``radius`` (m) and ``mass`` (kg)."""

    radius: float
    mass: float


@dataclass(frozen=True)
class ClothParams:
    """Friction and restitution coefficients (dimensionless unless stated).

    ``mu_s`` sliding (ball-cloth), ``mu_r`` rolling, ``mu_sp`` spinning (a length in m: the
    spin deceleration is ``5 * mu_sp * g / (2 R)`` rad/s^2), ``e_b`` ball-ball restitution,
    ``e_c`` ball-cushion restitution, ``f_c`` ball-cushion friction, ``g`` in m/s^2.
    Values after pooltool 0.6.0 defaults (Kiefl), which follow Leckie & Greenspan 2005.
    """

    mu_s: float
    mu_r: float
    mu_sp: float
    e_b: float
    e_c: float
    f_c: float
    g: float = G


@dataclass(frozen=True)
class CueSpec:
    """The cue stick: ``mass`` (kg), ``tip_radius`` (m), ``end_mass`` (kg, for squirt).

    pooltool 0.6.0 ``objects/cue/datatypes.py``; end mass after Alciatore TP A-31.
    """

    mass: float = 0.567
    tip_radius: float = 0.0106045
    end_mass: float = 0.170 / 30.0


@dataclass(frozen=True)
class LinearCushion:
    """A straight cushion segment: the nose line from ``p1`` to ``p2``.

    ``normal`` is the unit normal pointing into the playing area. ``name`` is the rail's name
    (``head``, ``foot``, ``R-head``, ... on pool tables, ``B``, ``T``, ``R``, ``Lf`` on carom
    tables, ``<pocket>.facing<k>`` for pocket facings).
    """

    id: int
    name: str
    p1: Vec2
    p2: Vec2
    normal: Vec2


@dataclass(frozen=True)
class CircularCushion:
    """A rounded pocket jaw: a circle of ``radius`` (m) around ``centre``, named ``<pocket>.jaw<k>``."""

    id: int
    name: str
    centre: Vec2
    radius: float


@dataclass(frozen=True)
class Pocket:
    """A pocket: a ball is pocketed when its centre enters the circle (pooltool's rule).

    ``name`` is HR, HL, SR, SL, FR, FL (head/side/foot, right/left as seen from the head end).
    ``corner`` is the nominal table point the pocket serves (a corner or a side midpoint).
    """

    id: int
    name: str
    centre: Vec2
    radius: float
    corner: Vec2


@dataclass(frozen=True)
class Table:
    """A named table preset.

    ``kind`` is ``"pool"`` or ``"carom"``; ``length``/``width`` between cushion noses (m);
    ``cushion_height`` is the height of the nose above the bed (m); ``cushions`` holds the
    straight segments, ``jaws`` the circular ones (ids are unique across both), ``pockets`` the
    pocket circles (empty on carom tables).
    """

    name: str
    kind: str
    length: float
    width: float
    cushion_height: float
    ball: BallSpec
    cloth: ClothParams
    cue: CueSpec
    cushions: Tuple[LinearCushion, ...]
    jaws: Tuple[CircularCushion, ...] = ()
    pockets: Tuple[Pocket, ...] = ()
    default_cushion_model: str = "han_2005"
    diamonds: Tuple[Vec2, ...] = field(default=(), repr=False)

    def to_json(self) -> dict:
        """Everything a client needs to draw the table and replay shots (plain JSON/msgpack types).

        Shape: ``{"name", "kind", "length", "width", "cushion_height", "ball": {"radius",
        "mass"}, "cloth": {...}, "cushions": [{"id", "name", "p1", "p2", "normal"}], "jaws":
        [{"id", "name", "centre", "radius"}], "pockets": [{"id", "name", "centre", "radius",
        "corner"}], "diamonds": [[x, y]], "spots": {name: [x, y]}, "head_string_x"}``; metres.
        """
        spots = {"head": self.head_spot, "centre": self.centre_spot, "foot": self.foot_spot}
        if self.kind == "carom":
            spots = {"bottom": self.bottom_spot, "centre": self.centre_spot, "top": self.top_spot}
            spots.update({f"start_{k}": v for k, v in self.starting_spots.items()})
        c = self.cloth
        return {
            "name": self.name,
            "kind": self.kind,
            "length": self.length,
            "width": self.width,
            "cushion_height": self.cushion_height,
            "ball": {"radius": self.ball.radius, "mass": self.ball.mass},
            "cloth": {"mu_s": c.mu_s, "mu_r": c.mu_r, "mu_sp": c.mu_sp, "e_b": c.e_b, "e_c": c.e_c, "f_c": c.f_c, "g": c.g},
            "cushions": [
                {"id": s.id, "name": s.name, "p1": list(s.p1), "p2": list(s.p2), "normal": list(s.normal)} for s in self.cushions
            ],
            "jaws": [{"id": j.id, "name": j.name, "centre": list(j.centre), "radius": j.radius} for j in self.jaws],
            "pockets": [
                {"id": p.id, "name": p.name, "centre": list(p.centre), "radius": p.radius, "corner": list(p.corner)}
                for p in self.pockets
            ],
            "diamonds": [list(d) for d in self.diamonds],
            "spots": {k: list(v) for k, v in spots.items()},
            "head_string_x": self.head_string_x,
        }

    # ----- generic landmarks ------------------------------------------------------------
    @property
    def R(self) -> float:
        """Ball radius (m)."""
        return self.ball.radius

    @property
    def ball_ids(self) -> range:
        """The ball ids a game on this table uses (DESIGN.md, "Units and coordinates"): pool 0..15
        (0 the cue ball, 1-15 the object balls), carom 0..2 (0 white, 1 yellow, 2 red).

        :func:`physics.simulate.simulate` itself accepts any id 0..15 on any table (the physics
        knows nothing of games); ``billar sim`` holds its arguments to this range.
        """
        return range(3) if self.kind == "carom" else range(16)

    @property
    def long_string_y(self) -> float:
        """y of the long string (the table's long centre line), m."""
        return self.width / 2.0

    def cushion_name(self, cushion_id: int) -> str:
        """Name of cushion (straight or jaw) ``cushion_id``; ``ValueError`` if unknown."""
        for c in self.cushions:
            if c.id == cushion_id:
                return c.name
        for j in self.jaws:
            if j.id == cushion_id:
                return j.name
        raise ValueError(f"cushion: unknown id {cushion_id!r} on table {self.name}")

    def pocket_by_name(self, name: str) -> Pocket:
        for p in self.pockets:
            if p.name == name:
                return p
        raise ValueError(f"pocket: unknown pocket {name!r} on table {self.name}")

    @property
    def pocket_names(self) -> Tuple[str, ...]:
        return tuple(p.name for p in self.pockets)

    def on_bed(self, r: Vec2, tol: float = 1e-9) -> bool:
        """True when a ball centred at ``r`` lies wholly on the bed (inside the cushion noses)."""
        R = self.R
        return (R - tol <= r[0] <= self.length - R + tol) and (R - tol <= r[1] <= self.width - R + tol)

    # ----- pool landmarks (WPA 8.1; rules-14-1 D1) -----------------------------------------
    @property
    def head_string_x(self) -> float:
        """x of the head string (pool) / starting line (carom): a quarter of the length."""
        return self.length / 4.0

    @property
    def head_spot(self) -> Vec2:
        return (self.length / 4.0, self.width / 2.0)

    @property
    def centre_spot(self) -> Vec2:
        return (self.length / 2.0, self.width / 2.0)

    @property
    def foot_spot(self) -> Vec2:
        return (3.0 * self.length / 4.0, self.width / 2.0)

    def rack_sites(self) -> Tuple[Vec2, ...]:
        """The 15 site centres of a tight triangle rack with its apex on the foot spot.

        Row r (0..4) at x = FS.x + r*sqrt(3)*R; in row r, balls k = 0..r at
        y = W/2 + (2k - r)*R (rules-14-1 R4). Order: row by row, k ascending; index 0 is the
        apex site.
        """
        fx, fy = self.foot_spot
        R = self.R
        out = []
        for row in range(5):
            x = fx + row * math.sqrt(3.0) * R
            for k in range(row + 1):
                out.append((x, fy + (2 * k - row) * R))
        return tuple(out)

    def rack_outline(self) -> Tuple[Vec2, Vec2, Vec2]:
        """Vertices of the rack outline triangle (rules-14-1 D7): apex, then the two back corners."""
        fx, fy = self.foot_spot
        R = self.R
        s3 = math.sqrt(3.0)
        back_x = fx + 4.0 * s3 * R + R
        half = 4.0 * R + s3 * R
        return ((fx - 2.0 * R, fy), (back_x, fy + half), (back_x, fy - half))

    # ----- carom landmarks (rules-carom C2, C8-C11) ---------------------------------------
    @property
    def top_spot(self) -> Vec2:
        return self.foot_spot

    @property
    def bottom_spot(self) -> Vec2:
        return self.head_spot

    starting_spot_offset: float = 0.1825

    @property
    def starting_spots(self) -> Dict[str, Vec2]:
        """Carom break spots of the breaker's ball: ``left`` (y > W/2) and ``right``."""
        x, y = self.bottom_spot
        return {"left": (x, y + self.starting_spot_offset), "right": (x, y - self.starting_spot_offset)}

    # carom zone geometry (distances from the cushion noses)
    corner_zone_legs: Vec2 = (0.71, 0.315)
    balkline_47: float = 0.47
    balkline_71: float = 0.71
    anchor_side: float = 0.178


# ----------------------------------------------------------------------------------------
# builders


def unit_vector(x: float, y: float) -> Vec2:
    """(x, y) scaled to length 1 (a zero vector raises ``ZeroDivisionError``)."""
    n = math.hypot(x, y)
    return (x / n, y / n)


def rotate(v: Vec2, ang: float) -> Vec2:
    """``v`` turned counter-clockwise by ``ang`` rad."""
    c, s = math.cos(ang), math.sin(ang)
    return (c * v[0] - s * v[1], s * v[0] + c * v[1])


def _diamonds(length: float, width: float, inset: float) -> Tuple[Vec2, ...]:
    """Sight marks every L/8 on the long rails and W/4 on the short ones, ``inset`` m outside the noses."""
    pts = []
    for i in range(1, 8):
        x = i * length / 8.0
        pts.append((x, -inset))
        pts.append((x, width + inset))
    for j in range(1, 4):
        y = j * width / 4.0
        pts.append((-inset, y))
        pts.append((length + inset, y))
    return tuple(pts)


class _PocketTableBuilder:
    """Builds the cushion segments, jaws and pocket circles of a six-pocket table.

    Each pocket mouth is bounded by two jaw tips on the cushion nose lines. At a tip the nose
    turns into a straight *facing* that makes the cut angle with the nose (142 deg corner, 104 deg
    side, WPA). The convex edge between nose and facing is rounded by a jaw circle inscribed in
    that wedge. The pocket circle sits behind the mouth.
    """

    def __init__(self, L: float, W: float):
        self.L, self.W = L, W
        self.lines: list = []
        self.jaws: list = []
        self.pockets: list = []
        self._next = 0

    def _id(self) -> int:
        i = self._next
        self._next += 1
        return i

    def tip_geometry(self, tip: Vec2, along: Vec2, inward: Vec2, cut_deg: float, jaw_r: float, depth: float, pocket: str, k: int):
        """Jaw at the tip where a nose running in direction ``along`` (away from the pocket) ends.

        ``inward`` is the nose's normal into the table. Returns the nose end point (where the
        nose meets the jaw circle).
        """
        alpha = math.radians(cut_deg)
        # facing direction: rotate `along` by alpha away from the table side
        sign = 1.0 if (along[0] * inward[1] - along[1] * inward[0]) < 0 else -1.0
        facing = rotate(along, sign * alpha)
        # wedge bisector between `along` and `facing` (through the cushion material)
        bis = unit_vector(along[0] + facing[0], along[1] + facing[1])
        half = alpha / 2.0
        dc = jaw_r / math.sin(half)
        dt = jaw_r / math.tan(half)
        centre = (tip[0] + bis[0] * dc, tip[1] + bis[1] * dc)
        nose_end = (tip[0] + along[0] * dt, tip[1] + along[1] * dt)
        face_start = (tip[0] + facing[0] * dt, tip[1] + facing[1] * dt)
        # facing runs from the tangent point to the back of the cushion (depth behind the nose)
        out = (-inward[0], -inward[1])
        depth_per_len = facing[0] * out[0] + facing[1] * out[1]
        length = max(depth / max(depth_per_len, 1e-6) - dt, 1e-3)
        face_end = (face_start[0] + facing[0] * length, face_start[1] + facing[1] * length)
        self.jaws.append(CircularCushion(self._id(), f"{pocket}.jaw{k}", centre, jaw_r))
        # the facing's playing side faces the mouth (the side toward the pocket, away from the nose)
        n = (-facing[1], facing[0])
        if n[0] * -along[0] + n[1] * -along[1] < 0.0:
            n = (-n[0], -n[1])
        self.lines.append(LinearCushion(self._id(), f"{pocket}.facing{k}", face_start, face_end, n))
        return nose_end


def _pool_table(name: str, L: float, W: float) -> Table:
    R = 0.05715 / 2.0
    corner_mouth = 4.5 * INCH
    side_mouth = 5.0 * INCH
    rail_depth = 2.0 * INCH
    corner_jaw_r, side_jaw_r = 0.0125, 0.0080
    b = _PocketTableBuilder(L, W)
    dc = corner_mouth / math.sqrt(2.0)  # tip distance from the corner along each nose
    ds = side_mouth / 2.0

    # (name, fixed coordinate axis, nose start, nose end, inward normal, pocket at start, pocket at end)
    rails = [
        ("head", (0.0, dc), (0.0, W - dc), (1.0, 0.0), "HR", "HL", 142.0, 142.0),
        ("foot", (L, dc), (L, W - dc), (-1.0, 0.0), "FR", "FL", 142.0, 142.0),
        ("R-head", (dc, 0.0), (L / 2 - ds, 0.0), (0.0, 1.0), "HR", "SR", 142.0, 104.0),
        ("R-foot", (L / 2 + ds, 0.0), (L - dc, 0.0), (0.0, 1.0), "SR", "FR", 104.0, 142.0),
        ("L-head", (dc, W), (L / 2 - ds, W), (0.0, -1.0), "HL", "SL", 142.0, 104.0),
        ("L-foot", (L / 2 + ds, W), (L - dc, W), (0.0, -1.0), "SL", "FL", 104.0, 142.0),
    ]
    jaw_count: Dict[str, int] = {}
    noses = []
    for rname, p1, p2, inward, pk1, pk2, cut1, cut2 in rails:
        d = unit_vector(p2[0] - p1[0], p2[1] - p1[1])
        k1 = jaw_count.get(pk1, 0)
        jaw_count[pk1] = k1 + 1
        r1 = corner_jaw_r if pk1[0] in "HF" else side_jaw_r
        s = b.tip_geometry(p1, d, inward, cut1, r1, rail_depth, pk1, k1)
        k2 = jaw_count.get(pk2, 0)
        jaw_count[pk2] = k2 + 1
        r2 = corner_jaw_r if pk2[0] in "HF" else side_jaw_r
        e = b.tip_geometry(p2, (-d[0], -d[1]), inward, cut2, r2, rail_depth, pk2, k2)
        noses.append((rname, s, e, inward))
    for rname, s, e, inward in noses:
        b.lines.append(LinearCushion(b._id(), rname, s, e, inward))

    # pocket circles behind the mouths
    corner_r, corner_depth = 0.060, 0.060
    side_r, side_depth = 0.064, 0.068
    corners = {"HR": (0.0, 0.0), "HL": (0.0, W), "FR": (L, 0.0), "FL": (L, W)}
    pockets = []
    pid = 0
    for pname in ("HR", "HL", "SR", "SL", "FR", "FL"):
        if pname in corners:
            cx, cy = corners[pname]
            ox = -1.0 if cx == 0.0 else 1.0
            oy = -1.0 if cy == 0.0 else 1.0
            mid = (cx - ox * dc / 2.0, cy - oy * dc / 2.0)
            out = unit_vector(ox, oy)
            centre = (mid[0] + out[0] * corner_depth, mid[1] + out[1] * corner_depth)
            pockets.append(Pocket(pid, pname, centre, corner_r, (cx, cy)))
        else:
            cy = 0.0 if pname == "SR" else W
            oy = -1.0 if cy == 0.0 else 1.0
            pockets.append(Pocket(pid, pname, (L / 2, cy + oy * side_depth), side_r, (L / 2, cy)))
        pid += 1

    return Table(
        name=name,
        kind="pool",
        length=L,
        width=W,
        cushion_height=0.635 * 2.0 * R,
        ball=BallSpec(radius=R, mass=0.170),
        cloth=ClothParams(mu_s=0.2, mu_r=0.01, mu_sp=10.0 * 2.0 / 5.0 / 9.0 * R, e_b=0.95, e_c=0.85, f_c=0.2),
        cue=CueSpec(end_mass=0.170 / 30.0),
        cushions=tuple(b.lines),
        jaws=tuple(b.jaws),
        pockets=tuple(pockets),
        default_cushion_model="mathavan_2010",
        diamonds=_diamonds(L, W, 3.6875 * INCH),
    )


def _carom_table(name: str = "carom", L: float = 2.84, W: float = 1.42) -> Table:
    R = 0.0615 / 2.0
    cushions = (
        LinearCushion(0, "B", (0.0, 0.0), (0.0, W), (1.0, 0.0)),
        LinearCushion(1, "T", (L, 0.0), (L, W), (-1.0, 0.0)),
        LinearCushion(2, "R", (0.0, 0.0), (L, 0.0), (0.0, 1.0)),
        LinearCushion(3, "Lf", (0.0, W), (L, W), (0.0, -1.0)),
    )
    return Table(
        name=name,
        kind="carom",
        length=L,
        width=W,
        cushion_height=0.037,
        ball=BallSpec(radius=R, mass=0.210),
        cloth=ClothParams(mu_s=0.2, mu_r=0.01, mu_sp=10.0 * 2.0 / 5.0 / 9.0 * R, e_b=0.95, e_c=0.85, f_c=0.15),
        cue=CueSpec(end_mass=0.210 / 30.0),
        cushions=cushions,
        default_cushion_model="mathavan_2010",
        diamonds=_diamonds(L, W, 0.0625),
    )


TABLES: Dict[str, Table] = {
    "pool-9ft": _pool_table("pool-9ft", 100 * INCH, 50 * INCH),
    "pool-8ft": _pool_table("pool-8ft", 92 * INCH, 46 * INCH),
    "pool-7ft": _pool_table("pool-7ft", 78 * INCH, 39 * INCH),
    "carom": _carom_table(),
}


def get_table(name: str) -> Table:
    """The preset called ``name`` (one of :data:`TABLES`); ``ValueError`` naming ``table`` otherwise."""
    try:
        return TABLES[name]
    except (KeyError, TypeError):
        raise ValueError(f"table: unknown table {name!r}; expected one of {sorted(TABLES)}") from None


def iter_cushions(table: Table) -> Iterator[object]:
    """Every cushion of ``table``, straight ones first, then jaws, in id order within each kind."""
    yield from table.cushions
    yield from table.jaws
