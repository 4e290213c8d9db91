"""Positions as short codes: a table preset, a discipline, the balls on the bed and, optionally, a cue stroke.

A *position* (:class:`Position`) is what a practice table, a drill or a puzzle starts from: the table
preset (``pool-9ft``, ``pool-8ft``, ``pool-7ft``, ``carom``), the discipline whose rules judge it
(``straight_pool`` or a carom discipline), the balls (id -> centre (x, y), metres, in the table frame
of DESIGN.md) and, optionally, the stroke to play (:class:`Cue`: cue ball, aim ``phi_deg``, tip offset
``a``/``b`` as fractions of R, elevation ``theta_deg``, cue speed ``V0`` m/s).

:func:`encode` packs a position into a URL-safe code (base64url without padding), :func:`decode` reads
one back; both refuse an impossible position with a :class:`PositionError` (a ``ValueError``) whose
``reason`` is a short code and whose message names the problem. Codes are network input: every
malformed, oversized, corrupted or impossible code is refused, never trusted.

**The code, format version 1** (bytes, then base64url without ``=``)::

    byte 0      version (1)
    byte 1      bits 0-1 table preset (index into PRESETS), bit 2 a cue stroke follows,
                bits 3-6 discipline (index into DISCIPLINES), bit 7 zero
    bytes 2-3   ball mask, big-endian: bit k set when ball k is on the bed
    then a bit stream, most significant bit first, per ball in ascending id:
                x: 15 bits, k_x with x = R + k_x * 0.1 mm;  y: 14 bits, y = R + k_y * 0.1 mm
    and, with a cue stroke: cue ball 4 bits, phi_deg 16 bits (0.01 deg, 0..35999), a and b
                10 bits each (0.001 R, stored + 512), theta_deg 10 bits (0.1 deg, 0..700),
                V0 14 bits (0.001 m/s, 1..10000)
    zero bits up to a whole byte
    last 2 bytes  CRC-32 (zlib) of every byte before them, its low 16 bits, big-endian

A 15-ball rack and the cue ball take 64 bytes, 86 characters; with a cue stroke 72 bytes, 96
characters, the longest code there is (:data:`MAX_CODE_CHARS` caps what :func:`decode` reads at 128).

**Quantization.** Ball centres lie on a 0.1 mm grid measured from the bed's edge inset by R (so a
ball frozen to the bottom or right cushion stays frozen; one frozen to the top or left cushion moves
less than 0.1 mm off it). ``decode(encode(p)) == p.quantized()`` and ``encode(decode(c)) == c``.
Two touching balls can come to overlap by up to 0.14 mm once rounded: the rounding then moves such
balls apart along the line of their centres, each half the way, to at least 0.05 mm apart
(:data:`TOUCH_GAP_M`, then rounded away from each other; a rack or a cluster settles in a few
passes, no ball moving more than about half a millimetre), so every position a game can reach has
a code (but one with a ball resting in a pocket's jaws: ``pocket``), frozen balls a hair apart in it. Balls that rounding leaves apart are never moved.

**Validation** (:func:`validate`, also run by :func:`encode` on the rounded position and by
:func:`decode`): the preset and the discipline exist and fit each other (14.1 on a pool table, carom
disciplines on the carom table); ball ids are the preset's (pool 0-15, carom 0-2) and appear once; a
carom position has all three balls, a pool one at least one ball; every ball passes the ball-in-hand
placement test of the 14.1 referee (rules/spotting.py ``surface_fault`` then ``overlaps_any``, the
same functions ``StraightPool._check_placement`` calls): finite, wholly on the bed, not in a
pocket's mouth or on a jaw, overlapping no other ball (touching allowed); the cue stroke's cue ball
is on the bed (pool: ball 0; carom: white 0 or yellow 1) and its numbers are within what
``physics.simulate`` accepts (V0 in (0, 10] m/s, sqrt(a^2 + b^2) <= 0.5, theta in [0, 70] deg).

Reasons: ``too_long``, ``malformed``, ``bad_checksum``, ``bad_version``, ``bad_field``,
``unknown_table``, ``unknown_discipline``, ``wrong_table``, ``bad_ball``, ``duplicate_ball``,
``missing_ball``, ``not_finite``, ``off_bed``, ``pocket``, ``overlap``, ``bad_cue``.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import zlib
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Mapping, Optional, Tuple

from physics.simulate import MISCUE_LIMIT, THETA_MAX_DEG, V0_MAX
from physics.table import TABLES, Table
from rules.registry import DISCIPLINES as _REGISTERED
from rules.spotting import overlaps_any, surface_fault

FORMAT_VERSION = 1
#: the table presets a code can name, in the order of their index (frozen by the format version)
PRESETS: Tuple[str, ...] = ("pool-9ft", "pool-8ft", "pool-7ft", "carom")
#: the disciplines a code can name, in the order of their index (frozen by the format version)
DISCIPLINES: Tuple[str, ...] = ("straight_pool", "libre", "balkline_47_2", "balkline_47_1", "balkline_71_2",
                                "one_cushion", "three_cushion", "pentathlon", "triathlon")
POOL_DISCIPLINES = frozenset({"straight_pool"})
QUANTUM_M = 1.0e-4  # m, the grid of ball centres
MAX_CODE_CHARS = 128
TOUCH_GAP_M = 5.0e-5  # m, the least gap the grid keeps between balls that rounding made overlap
_EPS_GRID = 1.0e-6  # grid units of slack in the overlap test (far below the referee's touching tolerance)
_SEPARATION_PASSES = 8
MAX_BALLS = 16
X_BITS, Y_BITS = 15, 14
PHI_STEP, TIP_STEP, THETA_STEP, V0_STEP = 0.01, 0.001, 0.1, 0.001
TIP_OFFSET = 512
_CUE_FIELDS = ("cue_ball", "phi_deg", "a", "b", "theta_deg", "V0")
_CODE_CHARS = re.compile(r"[A-Za-z0-9_-]*")

assert set(DISCIPLINES) == set(_REGISTERED), "rules/position.py: a new discipline needs a new code format version"
assert all(p in TABLES for p in PRESETS)


class PositionError(ValueError):
    """An impossible position or a malformed code: ``reason`` is a short code (module docstring), the
    message names what is wrong."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Cue:
    """A cue stroke: ``cue_ball`` id, ``phi_deg`` aim (deg, counter-clockwise from +x), ``a`` side and ``b``
    vertical tip offset (fractions of R), ``theta_deg`` elevation (deg), ``V0`` cue speed (m/s);
    the fields of ``physics.Shot``."""

    cue_ball: int
    phi_deg: float
    a: float = 0.0
    b: float = 0.0
    theta_deg: float = 0.0
    V0: float = 1.0

    def to_json(self) -> Dict[str, Any]:
        return {k: getattr(self, k) for k in _CUE_FIELDS}


@dataclass(frozen=True)
class Position:
    """A position: ``table`` preset name, ``discipline`` name, ``balls`` ((id, x, y), ... in ascending id;
    metres) and ``cue`` (a :class:`Cue` or None). Build one with :meth:`make`."""

    table: str
    discipline: str
    balls: Tuple[Tuple[int, float, float], ...]
    cue: Optional[Cue] = None

    @classmethod
    def make(cls, table: str, discipline: str, balls: Mapping[int, Tuple[float, float]],
             cue: Optional[Cue] = None) -> "Position":
        """A position from a layout ``{id: (x, y)}`` (not validated: see :func:`validate`)."""
        return cls(table, discipline, tuple(sorted((int(b), float(p[0]), float(p[1])) for b, p in balls.items())), cue)

    def layout(self) -> Dict[int, Tuple[float, float]]:
        """``{id: (x, y)}`` of the balls (what ``physics.simulate`` and the referees take)."""
        return {b: (x, y) for b, x, y in self.balls}

    def preset(self) -> Table:
        """The :class:`physics.table.Table` (``unknown_table`` if the name is not a preset)."""
        return _table(self.table)

    def quantized(self) -> "Position":
        """The position on the code's grid: what ``decode(encode(self))`` gives. Balls that rounding left
        overlapping (touching or nearly touching balls, as every rack and most positions of a real game
        have) are moved apart to a gap of at least :data:`TOUCH_GAP_M` (module docstring, "Quantization")."""
        t = _table(self.table)
        grid = _separated(t, [(b, _q(x, t.R, _kmax(t.length, t.R)), _q(y, t.R, _kmax(t.width, t.R)))
                              for b, x, y in self.balls])
        balls = tuple((b, _unq(kx, t.R), _unq(ky, t.R)) for b, kx, ky in grid)
        cue = None
        if self.cue is not None:
            k = _cue_ints(self.cue)
            cue = Cue(k[0], k[1] * PHI_STEP, (k[2] - TIP_OFFSET) * TIP_STEP, (k[3] - TIP_OFFSET) * TIP_STEP,
                      k[4] * THETA_STEP, k[5] * V0_STEP)
        return replace(self, balls=balls, cue=cue)

    def to_json(self) -> Dict[str, Any]:
        """``{"table", "discipline", "balls": [{"id", "x", "y"}], "cue": {...} or null}`` (the API's shape)."""
        return {"table": self.table, "discipline": self.discipline,
                "balls": [{"id": b, "x": x, "y": y} for b, x, y in self.balls],
                "cue": None if self.cue is None else self.cue.to_json()}


# ----- quantization ---------------------------------------------------------------------------

def _table(name: Any) -> Table:
    if not isinstance(name, str) or name not in PRESETS:
        raise PositionError("unknown_table", f"table: unknown table preset {name!r}; expected one of {list(PRESETS)}")
    return TABLES[name]


def _kmax(extent: float, R: float) -> int:
    """The largest grid index whose centre is still on the bed: R + k q <= extent - R."""
    return int(math.floor((extent - 2.0 * R) / QUANTUM_M + 1e-9))


def _q(v: float, R: float, kmax: int) -> int:
    return min(max(int(round((v - R) / QUANTUM_M)), 0), kmax)


def _unq(k: int, R: float) -> float:
    return R + k * QUANTUM_M


def _separated(t: Table, grid: List[Tuple[int, int, int]]) -> List[Tuple[int, int, int]]:
    """Grid coordinates ``[(id, k_x, k_y)]`` with every pair of balls whose centres rounding put closer than
    2R pushed apart along the line of their centres, each half the way (a ball held by the grid's edge
    stays and the other goes the whole way), to 2R + :data:`TOUCH_GAP_M` or more. A few passes settle a
    frozen cluster (a rack); pairs that are apart by 2R or more are never moved, so a position whose
    rounding overlaps nothing comes back unchanged. A pair still overlapping after the passes is left
    for :func:`validate` to refuse."""
    kx_max, ky_max = _kmax(t.length, t.R), _kmax(t.width, t.R)
    need_touch = 2.0 * t.R / QUANTUM_M - _EPS_GRID  # grid units: closer than this overlaps
    want = (2.0 * t.R + TOUCH_GAP_M) / QUANTUM_M
    pts = {b: [float(kx), float(ky)] for b, kx, ky in grid}
    ids = [b for b, _, _ in grid]
    for _ in range(_SEPARATION_PASSES):
        moved = False
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                pa, pb = pts[a], pts[b]
                dx, dy = pb[0] - pa[0], pb[1] - pa[1]
                d = math.hypot(dx, dy)
                if d >= need_touch:
                    continue
                ux, uy = (dx / d, dy / d) if d > 0.0 else (1.0, 0.0)
                push = (want - d) / 2.0
                for p, sgn in ((pa, -1.0), (pb, 1.0)):
                    p[0] = min(max(p[0] + sgn * push * ux, 0.0), kx_max)
                    p[1] = min(max(p[1] + sgn * push * uy, 0.0), ky_max)
                # round away from each other so that rounding cannot close the gap again
                for p, sgn in ((pa, -1.0), (pb, 1.0)):
                    p[0] = float(math.floor(p[0]) if sgn * ux < 0 else math.ceil(p[0]))
                    p[1] = float(math.floor(p[1]) if sgn * uy < 0 else math.ceil(p[1]))
                    p[0], p[1] = min(max(p[0], 0.0), kx_max), min(max(p[1], 0.0), ky_max)
                moved = True
        if not moved:
            break
    return [(b, int(pts[b][0]), int(pts[b][1])) for b in ids]


def _cue_ints(c: Cue) -> Tuple[int, int, int, int, int, int]:
    phi = int(round((c.phi_deg % 360.0) / PHI_STEP)) % 36000
    return (c.cue_ball, phi, int(round(c.a / TIP_STEP)) + TIP_OFFSET, int(round(c.b / TIP_STEP)) + TIP_OFFSET,
            int(round(c.theta_deg / THETA_STEP)), int(round(c.V0 / V0_STEP)))


# ----- validation -----------------------------------------------------------------------------

def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise PositionError("bad_field", f"{what}: must be a number")
    f = float(v)
    if not math.isfinite(f):
        raise PositionError("not_finite", f"{what}: must be finite, got {v!r}")
    return f


def validate(p: Position) -> Position:
    """``p`` if it is a possible position (module docstring, "Validation"); :class:`PositionError` otherwise."""
    t = _table(p.table)
    if not isinstance(p.discipline, str) or p.discipline not in DISCIPLINES:
        raise PositionError("unknown_discipline",
                            f"discipline: unknown discipline {p.discipline!r}; expected one of {list(DISCIPLINES)}")
    if (p.discipline in POOL_DISCIPLINES) != (t.kind == "pool"):
        raise PositionError("wrong_table", f"discipline: {p.discipline} is not played on the {p.table} table")
    if len(p.balls) > MAX_BALLS:
        raise PositionError("bad_ball", f"balls: at most {MAX_BALLS} balls")
    placed: Dict[int, Tuple[float, float]] = {}
    for b, x, y in p.balls:
        if isinstance(b, bool) or not isinstance(b, int) or b not in t.ball_ids:
            raise PositionError("bad_ball", f"balls: ball id {b!r} is not a ball of the {p.table} table "
                                            f"(ids {t.ball_ids.start}-{t.ball_ids.stop - 1})")
        if b in placed:
            raise PositionError("duplicate_ball", f"balls: ball {b} is given twice")
        x, y = _number(x, f"balls[{b}].x"), _number(y, f"balls[{b}].y")
        fault = surface_fault(t, (x, y))
        if fault == "off_bed":
            raise PositionError("off_bed", f"balls: ball {b} at ({x:.4f}, {y:.4f}) m is not wholly on the bed "
                                           f"(0..{t.length:.4f} x 0..{t.width:.4f} m inside the cushion noses)")
        if fault is not None:
            near = min(t.pockets, key=lambda k: math.dist(k.corner, (x, y)))
            raise PositionError("pocket", f"balls: ball {b} at ({x:.4f}, {y:.4f}) m is in the mouth of pocket "
                                          f"{near.name} (or on its jaw)")
        hit = overlaps_any(t, (x, y), placed)
        if hit is not None:
            raise PositionError("overlap", f"balls: balls {hit} and {b} overlap (centres "
                                           f"{math.dist(placed[hit], (x, y)) * 1000:.2f} mm apart, at least "
                                           f"{2000 * t.R:.2f} mm needed)")
        placed[b] = (x, y)
    if t.kind == "carom" and len(placed) != 3:
        missing = sorted(set(t.ball_ids) - set(placed))
        raise PositionError("missing_ball", f"balls: a carom position needs all three balls; missing {missing}")
    if not placed:
        raise PositionError("missing_ball", "balls: a position needs at least one ball")
    if p.cue is not None:
        _check_cue(p.cue, t, placed)
    return p


def _check_cue(c: Cue, t: Table, placed: Mapping[int, Any]) -> None:
    if not isinstance(c, Cue):
        raise PositionError("bad_cue", "cue: not a cue stroke")
    allowed = [0] if t.kind == "pool" else [0, 1]
    if isinstance(c.cue_ball, bool) or c.cue_ball not in allowed or c.cue_ball not in placed:
        raise PositionError("bad_cue", f"cue.cue_ball: {c.cue_ball!r} is not a cue ball on the bed "
                                       f"(one of {list(allowed)} present in balls)")
    for f in ("phi_deg", "a", "b", "theta_deg", "V0"):
        _number(getattr(c, f), f"cue.{f}")
    if math.hypot(c.a, c.b) > MISCUE_LIMIT + 1e-12:
        raise PositionError("bad_cue", f"cue.a, cue.b: tip offset beyond the miscue limit ({MISCUE_LIMIT} R)")
    if not 0.0 <= c.theta_deg <= THETA_MAX_DEG:
        raise PositionError("bad_cue", f"cue.theta_deg: must lie in [0, {THETA_MAX_DEG}] degrees")
    if not 0.0 < c.V0 <= V0_MAX:
        raise PositionError("bad_cue", f"cue.V0: must lie in (0, {V0_MAX}] m/s")


# ----- the code -------------------------------------------------------------------------------

class _Bits:
    def __init__(self):
        self.acc, self.n = 0, 0

    def put(self, v: int, bits: int) -> None:
        self.acc = (self.acc << bits) | v
        self.n += bits

    def to_bytes(self) -> bytes:
        pad = (-self.n) % 8
        return (self.acc << pad).to_bytes((self.n + pad) // 8, "big")


def encode(p: Position) -> str:
    """The code of position ``p`` (rounded to the grid first; see the module docstring).

    Raises :class:`PositionError` when ``p`` or its rounded form is not a possible position."""
    validate(p)
    q = p.quantized()
    try:
        validate(q)
    except PositionError as exc:
        raise PositionError(exc.reason, f"{exc} once rounded to the code's 0.1 mm grid "
                                        "(keep touching balls 0.2 mm apart)") from None
    t = TABLES[q.table]
    head = PRESETS.index(q.table) | ((q.cue is not None) << 2) | (DISCIPLINES.index(q.discipline) << 3)
    mask = 0
    for b, _, _ in q.balls:
        mask |= 1 << b
    bits = _Bits()
    for b, x, y in q.balls:
        bits.put(_q(x, t.R, _kmax(t.length, t.R)), X_BITS)
        bits.put(_q(y, t.R, _kmax(t.width, t.R)), Y_BITS)
    if q.cue is not None:
        cb, phi, a, bb, th, v0 = _cue_ints(q.cue)
        for v, n in ((cb, 4), (phi, 16), (a, 10), (bb, 10), (th, 10), (v0, 14)):
            bits.put(v, n)
    body = bytes([FORMAT_VERSION, head]) + mask.to_bytes(2, "big") + bits.to_bytes()
    raw = body + (zlib.crc32(body) & 0xFFFF).to_bytes(2, "big")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode(code: Any) -> Position:
    """The position of ``code`` (a string from :func:`encode`); :class:`PositionError` for anything else."""
    if not isinstance(code, str):
        raise PositionError("malformed", "code: must be a string")
    if len(code) > MAX_CODE_CHARS:
        raise PositionError("too_long", f"code: longer than {MAX_CODE_CHARS} characters")
    if not code or not _CODE_CHARS.fullmatch(code) or len(code) % 4 == 1:
        raise PositionError("malformed", "code: not base64url (letters, digits, - and _, no padding)")
    try:
        raw = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
    except (binascii.Error, ValueError):
        raise PositionError("malformed", "code: not base64url") from None
    if base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=") != code:
        raise PositionError("malformed", "code: not canonical base64url (stray bits in the last character)")
    if len(raw) < 6:
        raise PositionError("malformed", "code: too short")
    body, crc = raw[:-2], int.from_bytes(raw[-2:], "big")
    if zlib.crc32(body) & 0xFFFF != crc:
        raise PositionError("bad_checksum", "code: checksum mismatch (a character was changed or lost)")
    if body[0] != FORMAT_VERSION:
        raise PositionError("bad_version", f"code: format version {body[0]}; this server reads version {FORMAT_VERSION}")
    head = body[1]
    if head & 0x80:
        raise PositionError("malformed", "code: reserved header bit set")
    disc = head >> 3
    if disc >= len(DISCIPLINES):
        raise PositionError("unknown_discipline", f"code: unknown discipline index {disc}")
    table = PRESETS[head & 3]
    t = TABLES[table]
    mask = int.from_bytes(body[2:4], "big")
    ids = [b for b in range(16) if mask >> b & 1]
    has_cue = bool(head & 4)
    nbits = len(ids) * (X_BITS + Y_BITS) + (64 if has_cue else 0)
    stream = body[4:]
    if len(stream) != (nbits + 7) // 8:
        raise PositionError("malformed", "code: length does not match its balls")
    acc = int.from_bytes(stream, "big") if stream else 0
    pad = len(stream) * 8 - nbits
    if acc & ((1 << pad) - 1):
        raise PositionError("malformed", "code: stray padding bits")
    pos = len(stream) * 8

    def take(n: int) -> int:
        nonlocal pos
        pos -= n
        return (acc >> pos) & ((1 << n) - 1)

    balls: List[Tuple[int, float, float]] = []
    for b in ids:
        kx, ky = take(X_BITS), take(Y_BITS)
        if kx > _kmax(t.length, t.R) or ky > _kmax(t.width, t.R):
            raise PositionError("off_bed", f"code: ball {b} lies beyond the bed of the {table} table")
        balls.append((b, _unq(kx, t.R), _unq(ky, t.R)))
    cue = None
    if has_cue:
        cb, phi, a, bb, th, v0 = take(4), take(16), take(10), take(10), take(10), take(14)
        if phi >= 36000:
            raise PositionError("bad_cue", "code: cue.phi_deg out of range")
        cue = Cue(cb, phi * PHI_STEP, (a - TIP_OFFSET) * TIP_STEP, (bb - TIP_OFFSET) * TIP_STEP, th * THETA_STEP,
                  v0 * V0_STEP)
    return validate(Position(table, DISCIPLINES[disc], tuple(balls), cue))


# ----- JSON (the API) -------------------------------------------------------------------------

def from_json(d: Any) -> Position:
    """A position from its JSON shape (:meth:`Position.to_json`; ``cue`` may be left out), read strictly as
    network input: exact keys, ints for ids, numbers (not booleans) for coordinates. Validated."""
    if not isinstance(d, dict):
        raise PositionError("bad_field", "position: must be an object")
    _keys(d, {"table", "discipline", "balls"}, {"cue"}, "position")
    table, disc, balls = d["table"], d["discipline"], d["balls"]
    if not isinstance(table, str):
        raise PositionError("bad_field", "table: must be a string")
    if not isinstance(disc, str):
        raise PositionError("bad_field", "discipline: must be a string")
    if not isinstance(balls, list):
        raise PositionError("bad_field", "balls: must be an array")
    if len(balls) > MAX_BALLS:
        raise PositionError("bad_ball", f"balls: at most {MAX_BALLS} balls")
    out = []
    for i, e in enumerate(balls):
        if not isinstance(e, dict):
            raise PositionError("bad_field", f"balls[{i}]: must be an object {{id, x, y}}")
        _keys(e, {"id", "x", "y"}, set(), f"balls[{i}]")
        b = e["id"]
        if isinstance(b, bool) or not isinstance(b, int):
            raise PositionError("bad_field", f"balls[{i}].id: must be an integer")
        out.append((b, _number(e["x"], f"balls[{i}].x"), _number(e["y"], f"balls[{i}].y")))
    ids = [b for b, _, _ in out]
    dup = next((b for b in ids if ids.count(b) > 1), None)
    if dup is not None:
        raise PositionError("duplicate_ball", f"balls: ball {dup} is given twice")
    cue = None
    c = d.get("cue")
    if c is not None:
        if not isinstance(c, dict):
            raise PositionError("bad_field", "cue: must be an object or null")
        _keys(c, set(_CUE_FIELDS), set(), "cue")
        cb = c["cue_ball"]
        if isinstance(cb, bool) or not isinstance(cb, int):
            raise PositionError("bad_field", "cue.cue_ball: must be an integer")
        cue = Cue(cb, *(_number(c[k], f"cue.{k}") for k in _CUE_FIELDS[1:]))
    return validate(Position(table, disc, tuple(sorted(out)), cue))


def _keys(d: Dict[str, Any], required: set, optional: set, where: str) -> None:
    for k in d:
        if k not in required and k not in optional:
            shown = str(k) if len(str(k)) <= 32 else str(k)[:32] + "..."
            raise PositionError("bad_field", f"{where}: unknown field {shown!r}")
    for k in sorted(required):
        if k not in d:
            raise PositionError("bad_field", f"{where}.{k}: required")
