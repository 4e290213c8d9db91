"""Field checkers: the one place where an inbound value's type, range, finiteness and length are tested.

A checker is a callable ``check(value, path) -> value`` that returns the accepted (possibly
normalised) value or raises :class:`~protocol.errors.ProtocolError` with code ``bad_field`` and
``field=path``. Checkers compose (:class:`Nullable`, :class:`Struct`, :class:`OneOf`), and the
inbound message classes in :mod:`protocol.inbound` declare one per field.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any, Callable, Dict, Iterable, Optional, Sequence, Tuple

from protocol import limits as L
from protocol.errors import ErrorCode, ProtocolError

Checker = Callable[[Any, str], Any]


def bad(path: str, message: str) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_FIELD, f"{path}: {message}", field=path)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class Int:
    """An integer (booleans refused) in ``[lo, hi]``."""

    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi

    def __call__(self, v: Any, path: str) -> int:
        if not _is_int(v):
            raise bad(path, f"must be an integer, got {type(v).__name__}")
        if not self.lo <= v <= self.hi:
            raise bad(path, f"must be in [{self.lo}, {self.hi}], got {v}")
        return int(v)


class Num:
    """A finite number (int or float; booleans refused) in ``[lo, hi]`` (``(lo, hi]`` if ``lo_open``); returns float."""

    def __init__(self, lo: float, hi: float, lo_open: bool = False, unit: str = ""):
        self.lo, self.hi, self.lo_open, self.unit = lo, hi, lo_open, unit

    def __call__(self, v: Any, path: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise bad(path, f"must be a number, got {type(v).__name__}")
        f = float(v)  # msgpack integers fit in 64 bits: always a finite float
        if not math.isfinite(f):
            raise bad(path, f"must be finite, got {v!r}")
        below = f <= self.lo if self.lo_open else f < self.lo
        if below or f > self.hi:
            lb = "(" if self.lo_open else "["
            raise bad(path, f"must be in {lb}{self.lo:g}, {self.hi:g}]{' ' + self.unit if self.unit else ''}, got {f!r}")
        return f


class Str:
    """A string of ``min_len..max_len`` characters, optionally matching ``pattern`` (full match: a class of
    visible ASCII characters); without a pattern, no control, invisible format or blank character, at
    least one visible one and at most :data:`MAX_STACKED_MARKS` combining marks in a row."""

    def __init__(self, max_len: int, min_len: int = 1, pattern: Optional[str] = None, strip: bool = False):
        self.max_len, self.min_len, self.strip = max_len, min_len, strip
        self.pattern = re.compile(pattern) if pattern else None

    def __call__(self, v: Any, path: str) -> str:
        if not isinstance(v, str):
            raise bad(path, f"must be a string, got {type(v).__name__}")
        if self.strip:
            v = v.strip()
        if len(v) > self.max_len:
            raise bad(path, f"must be at most {self.max_len} characters, got {len(v)}")
        if len(v) < self.min_len:
            raise bad(path, f"must be at least {self.min_len} characters, got {len(v)}")
        if self.pattern is not None:
            if not self.pattern.fullmatch(v):
                raise bad(path, f"has characters outside {self.pattern.pattern}")
            return v  # every pattern here is a class of visible ASCII characters: nothing hidden can match it
        if v.isascii() and v.isprintable():  # the common case, at C speed: no control or format character
            if v and v.isspace():
                raise bad(path, "must contain a visible character")
            return v
        if any(_hidden(c) for c in v):
            raise bad(path, "must not contain control or invisible formatting characters")
        if v and all(c.isspace() or _joiner(c) for c in v):
            raise bad(path, "must contain a visible character")
        if _stacked_marks(v) > MAX_STACKED_MARKS:
            raise bad(path, f"must not stack more than {MAX_STACKED_MARKS} accents or other combining marks on a letter")
        return v


#: combining marks allowed in a row on one letter: Vietnamese takes two, pointed Hebrew three or four; more is a
#: tower of accents drawn over the lines around it (QA: a name of "A" and 31 accents striped the lobby)
MAX_STACKED_MARKS = 4


def _stacked_marks(v: str) -> int:
    """The longest run of combining marks (Unicode Mn, Me) in ``v``."""
    longest = run = 0
    for c in v:
        if unicodedata.category(c) in ("Mn", "Me"):
            run += 1
            longest = max(longest, run)
        else:
            run = 0
    return longest


_BLANKS = frozenset("\u115f\u1160\u2800\u3164\uffa0")  # letters drawn as nothing: Hangul fillers, the Braille blank


def _joiner(c: str) -> bool:
    """Invisible characters that only join or modify visible ones: the zero-width (non-)joiners of
    emoji sequences and of some scripts, and the tag characters of subdivision flags."""
    return c in "\u200c\u200d" or "\U000e0020" <= c <= "\U000e007f"


def _hidden(c: str) -> bool:
    """A control character (Unicode Cc, tab excepted), an invisible format character (Cf: bidi
    overrides, zero-width space, ...) or a blank letter: what would let a name or a chat line pass
    for another. :func:`_joiner` characters stay allowed."""
    if c in _BLANKS:
        return True
    if c.isprintable() or c == "\t" or _joiner(c):
        return False
    return unicodedata.category(c) in ("Cc", "Cf")


class Bool:
    def __call__(self, v: Any, path: str) -> bool:
        if not isinstance(v, bool):
            raise bad(path, f"must be true or false, got {type(v).__name__}")
        return v


class Enum:
    """One of a fixed set of strings."""

    def __init__(self, values: Iterable[str]):
        self.values = tuple(values)

    def __call__(self, v: Any, path: str) -> str:
        if not isinstance(v, str) or v not in self.values:
            raise bad(path, f"must be one of {', '.join(self.values)}")
        return v


class Nullable:
    """``None`` or what ``inner`` accepts."""

    def __init__(self, inner: Checker):
        self.inner = inner

    def __call__(self, v: Any, path: str) -> Any:
        return None if v is None else self.inner(v, path)


class Point:
    """A position ``[x, y]`` in metres, each coordinate finite and in [COORD_MIN, COORD_MAX]; returns a tuple."""

    def __call__(self, v: Any, path: str) -> Tuple[float, float]:
        if not isinstance(v, (list, tuple)) or len(v) != 2:
            raise bad(path, "must be an array [x, y] of two numbers (m)")
        c = Num(L.COORD_MIN, L.COORD_MAX, unit="m")
        return (c(v[0], f"{path}[0]"), c(v[1], f"{path}[1]"))


class Balls:
    """A whole layout: a map of ball id (a decimal string ``"0"``..``"15"``, no leading zero) -> :class:`Point`,
    at most ``MAX_BALL_ID + 1`` entries; returns ``{id string: (x, y)}``. Whether the balls fit the table (ids of
    its preset, on the bed, out of the pockets, apart) is the placement test's (rules/position.py ``validate``)."""

    ID = re.compile(r"0|[1-9][0-9]?")

    def __call__(self, v: Any, path: str) -> Dict[str, Tuple[float, float]]:
        check_map(v, path, L.MAX_BALL_ID + 1)
        out: Dict[str, Tuple[float, float]] = {}
        for k, p in v.items():
            if not self.ID.fullmatch(k) or int(k) > L.MAX_BALL_ID:
                shown = k if len(k) <= 8 else "<key>"
                raise bad(f"{path}.{shown}", f"ball ids are \"0\"..\"{L.MAX_BALL_ID}\"")
            out[k] = Point()(p, f"{path}.{k}")
        return out


def check_map(v: Any, path: str, max_entries: int) -> Dict[str, Any]:
    if not isinstance(v, dict):
        raise bad(path, f"must be a map, got {type(v).__name__}")
    if len(v) > max_entries:
        raise bad(path, f"must have at most {max_entries} entries, got {len(v)}")
    for k in v:
        if not isinstance(k, str):
            raise bad(path, "keys must be strings")
    return v


class Struct:
    """A map with named fields: ``fields`` maps name -> (checker, required). Unknown keys are refused."""

    def __init__(self, fields: Dict[str, Tuple[Checker, bool]]):
        self.fields = fields

    def __call__(self, v: Any, path: str) -> Dict[str, Any]:
        if not isinstance(v, dict):
            raise bad(path, f"must be a map, got {type(v).__name__}")
        out: Dict[str, Any] = {}
        for k in v:  # only known keys pass, so the map's size is bounded too
            if k not in self.fields:
                name = k if isinstance(k, str) and len(k) <= 32 else "<key>"
                raise ProtocolError(ErrorCode.UNKNOWN_FIELD, f"{path}.{name}: unknown field", field=f"{path}.{name}")
        for name, (chk, required) in self.fields.items():
            sub = f"{path}.{name}"
            if name not in v:
                if required:
                    raise ProtocolError(ErrorCode.MISSING_FIELD, f"{sub}: required", field=sub)
                continue
            out[name] = chk(v[name], sub)
        return out


class Config:
    """A discipline configuration: a map of lower-case keys to scalars, short lists or one nested map level.

    Scalars: None, bool, integers and finite numbers with ``|x| <= MAX_CONFIG_NUMBER``, strings up
    to MAX_CONFIG_STR_CHARS. The referee then checks keys and values (``ValueError`` naming the key).
    """

    KEY = re.compile(r"[a-z][a-z0-9_.]*")

    def __call__(self, v: Any, path: str, depth: int = 1) -> Dict[str, Any]:
        check_map(v, path, L.MAX_CONFIG_ENTRIES)
        out = {}
        for k, x in v.items():
            sub = f"{path}.{k}" if len(k) <= L.MAX_CONFIG_KEY_CHARS else f"{path}.<key>"
            if len(k) > L.MAX_CONFIG_KEY_CHARS or not self.KEY.fullmatch(k):
                raise bad(sub, f"keys must match {self.KEY.pattern} and have at most {L.MAX_CONFIG_KEY_CHARS} characters")
            if isinstance(x, dict):
                if depth >= L.MAX_CONFIG_DEPTH:
                    raise bad(sub, "nested too deeply")
                out[k] = self(x, sub, depth + 1)
            elif isinstance(x, (list, tuple)):
                if len(x) > L.MAX_CONFIG_LIST:
                    raise bad(sub, f"must have at most {L.MAX_CONFIG_LIST} items")
                out[k] = [self._scalar(y, f"{sub}[{i}]") for i, y in enumerate(x)]
            else:
                out[k] = self._scalar(x, sub)
        return out

    def _scalar(self, x: Any, path: str) -> Any:
        if x is None or isinstance(x, bool):
            return x
        if isinstance(x, (int, float)):
            return Num(-L.MAX_CONFIG_NUMBER, L.MAX_CONFIG_NUMBER)(x, path) if isinstance(x, float) else Int(
                -int(L.MAX_CONFIG_NUMBER), int(L.MAX_CONFIG_NUMBER)
            )(x, path)
        if isinstance(x, str):
            return Str(L.MAX_CONFIG_STR_CHARS, min_len=0)(x, path)
        raise bad(path, f"must be null, a boolean, a number or a string, got {type(x).__name__}")


class OneOf:
    """The first of ``options`` (checkers) that accepts the value; else ``message``."""

    def __init__(self, options: Sequence[Checker], message: str):
        self.options, self.message = tuple(options), message

    def __call__(self, v: Any, path: str) -> Any:
        first: Optional[ProtocolError] = None
        for opt in self.options:
            try:
                return opt(v, path)
            except ProtocolError as exc:
                first = first or exc
        raise bad(path, self.message)


# ----- the shared field kinds -----------------------------------------------------------------
IDENT = r"[A-Za-z0-9_-]+"
TABLE_ID = Str(L.MAX_ID_CHARS, pattern=IDENT)
TOKEN = Str(L.MAX_TOKEN_CHARS, min_len=16, pattern=IDENT)
SEQ = Int(0, L.MAX_SEQ)
VERSION = Int(0, L.MAX_SEQ)
SEAT = Int(0, L.MAX_SEAT)
NAME = Str(L.MAX_NAME_CHARS, strip=True)
DISCIPLINE = Str(L.MAX_DISCIPLINE_CHARS, pattern=r"[a-z0-9_]+")


def _tip_offset(v: Dict[str, Any], path: str) -> Dict[str, Any]:
    if math.hypot(v["a"], v["b"]) > L.TIP_OFFSET_MAX:
        raise bad(f"{path}.a", f"tip offset sqrt(a^2 + b^2) must be at most {L.TIP_OFFSET_MAX} (miscue limit)")
    return v


class _Stroke(Struct):
    def __call__(self, v: Any, path: str) -> Dict[str, Any]:
        return _tip_offset(super().__call__(v, path), path)


STROKE = _Stroke(
    {
        "phi_deg": (Num(L.PHI_DEG_MIN, L.PHI_DEG_MAX, unit="deg"), True),
        "V0": (Num(0.0, L.V0_MAX, lo_open=True, unit="m/s"), True),
        "a": (Num(-L.TIP_OFFSET_MAX, L.TIP_OFFSET_MAX), True),
        "b": (Num(-L.TIP_OFFSET_MAX, L.TIP_OFFSET_MAX), True),
        "theta_deg": (Num(L.THETA_DEG_MIN, L.THETA_DEG_MAX, unit="deg"), True),
    }
)

class Call:
    """The call of a stroke: ``None``, ``{"safety": true}`` or ``{"ball": 1..15, "pocket": "FR"}`` (14.1, rules-14-1 R8)."""

    _safety = Struct({"safety": (Bool(), True)})
    _ball = Struct({"ball": (Int(1, L.MAX_BALL_ID), True), "pocket": (Str(2, min_len=2, pattern=r"[A-Z]{2}"), True)})

    def __call__(self, v: Any, path: str) -> Optional[Dict[str, Any]]:
        if v is None:
            return None
        check_map(v, path, 2)
        if "safety" in v:
            out = self._safety(v, path)
            if out["safety"] is not True:
                raise bad(f"{path}.safety", "must be true (send null for no call)")
            return out
        return self._ball(v, path)


CALL = Call()

PRACTICE = Struct(
    {
        "position": (Nullable(Str(L.MAX_POSITION_CODE_CHARS, pattern=IDENT)), False),
        "drill": (Nullable(Str(L.MAX_DRILL_ID_CHARS, pattern=r"[a-z0-9-]+")), False),
        "coach": (Bool(), False),
    }
)
"""A practice table's start (``create_table.practice``): a position ``code`` or a ``drill`` id (neither: the
discipline's opening), and whether a ``coach`` may take the second seat."""

DECISION_ARG = Nullable(
    OneOf(
        [
            Bool(),
            Int(-1000, 1000),
            Str(L.MAX_DECISION_CHARS, pattern=r"[A-Za-z0-9_.-]+"),
            Point(),
        ],
        "must be null, a boolean, an integer, a short name or a point [x, y]",
    )
)
