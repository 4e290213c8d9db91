"""The closed set of client -> server messages, each a frozen dataclass whose fields declare their checker.

:func:`parse` turns a decoded msgpack map into one of these classes or raises
:class:`~protocol.errors.ProtocolError` naming the field. Nothing else in the code base reads
raw inbound maps: a table only ever sees validated messages.

Clients (bots, load tests) build the same classes and send them with
:func:`protocol.codec.encode_client`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple, Type

from protocol import fields as F
from protocol import limits as L
from protocol.errors import ErrorCode, ProtocolError

INBOUND: Dict[str, Type["Inbound"]] = {}


def _f(check: F.Checker, default: Any = dataclasses.MISSING, newer: bool = False):
    """A dataclass field with its checker; no default means the field is required. ``newer``: a field added after
    the first release of its message: :meth:`Inbound.to_wire` leaves it out at its default, so a peer of an
    older release (a process during a rolling upgrade) still reads the message."""
    meta = {"check": check, "newer": newer}
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


def inbound(type_name: str):
    """Register a message class under its wire ``type``."""

    def deco(cls):
        cls.TYPE = type_name
        INBOUND[type_name] = cls
        return cls

    return deco


class Inbound:
    """Base of every inbound message class; ``TYPE`` is the wire ``type`` string."""

    TYPE = ""

    def to_wire(self) -> Dict[str, Any]:
        """The msgpack map for this message (``type`` first, optional fields left at None omitted, and the newer
        fields at their defaults)."""
        out: Dict[str, Any] = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v is None and f.default is None:
                continue
            if f.metadata.get("newer") and v == f.default:
                continue
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


# ----- session ---------------------------------------------------------------------------------
@inbound("hello")
@dataclass(frozen=True)
class Hello(Inbound):
    """First message of a connection: ``protocol`` version, optional display ``name`` and ``client`` software."""

    protocol: int = _f(F.Int(0, 1_000_000))
    name: Optional[str] = _f(F.Nullable(F.NAME), None)
    client: Optional[str] = _f(F.Nullable(F.Str(L.MAX_CLIENT_CHARS)), None)


@inbound("ping")
@dataclass(frozen=True)
class Ping(Inbound):
    """Application-level ping (free of the rate limit); ``t`` is echoed back in ``pong``."""

    t: Optional[float] = _f(F.Nullable(F.Num(-1e15, 1e15)), None)


@inbound("rename")
@dataclass(frozen=True)
class Rename(Inbound):
    """Change this connection's display ``name`` now (checked as in ``hello``): answered ``renamed``; refused
    (``game_in_progress``) while the connection plays a game that has begun and is not over."""

    name: str = _f(F.NAME)


@inbound("lobby_subscribe")
@dataclass(frozen=True)
class LobbySubscribe(Inbound):
    """Receive the lobby now (``lobby``: the page of ``limit`` tables from ``offset``, oldest first, and the
    count of all of them) and every change (``lobby_update`` / ``lobby_remove``)."""

    offset: int = _f(F.Int(0, L.MAX_LOBBY_OFFSET), 0, newer=True)
    limit: int = _f(F.Int(1, L.MAX_LOBBY_PAGE), L.LOBBY_PAGE, newer=True)


@inbound("lobby_unsubscribe")
@dataclass(frozen=True)
class LobbyUnsubscribe(Inbound):
    pass


@inbound("quick_play")
@dataclass(frozen=True)
class QuickPlay(Inbound):
    """Wait for an opponent of ``discipline``; paired players get ``seated`` at a new public table. ``rated``
    (logged-in players only): paired with a rated player of a close rating, the range widening while waiting."""

    discipline: str = _f(F.DISCIPLINE)
    config: Dict[str, Any] = _f(F.Config(), {})
    rated: bool = _f(F.Bool(), False, newer=True)


@inbound("quick_play_cancel")
@dataclass(frozen=True)
class QuickPlayCancel(Inbound):
    pass


# ----- tables ----------------------------------------------------------------------------------
@inbound("create_table")
@dataclass(frozen=True)
class CreateTable(Inbound):
    """Create a table of ``discipline`` with its ``config`` (rules spec section C); ``seat``: the seat
    the creator takes (None: create without sitting); ``private`` tables stay out of the lobby;
    ``computer``: a computer opponent of that level (1..5) takes the other seat (seat 1 when the
    creator only watches); ``creation_id`` (16-64 characters, secret, chosen by the client) makes
    the request idempotent: a retry with the same id never makes a second table; ``rated``: the
    games count for ratings (both players logged in; no computer); ``practice`` (a map, possibly empty): a
    practice table (one shooter, an optional coach, nothing scored, no clock, never rated) starting from
    ``practice.position`` (a position code), ``practice.drill`` (a drill id) or the discipline's opening."""

    discipline: str = _f(F.DISCIPLINE)
    config: Dict[str, Any] = _f(F.Config(), {})
    private: bool = _f(F.Bool(), False)
    seat: Optional[int] = _f(F.Nullable(F.SEAT), 0)
    computer: Optional[int] = _f(F.Nullable(F.Int(1, 5)), None)
    creation_id: Optional[str] = _f(F.Nullable(F.TOKEN), None)
    rated: bool = _f(F.Bool(), False, newer=True)
    practice: Optional[Dict[str, Any]] = _f(F.Nullable(F.PRACTICE), None, newer=True)


@inbound("join")
@dataclass(frozen=True)
class Join(Inbound):
    """Take a free seat (``seat`` or the first free one) at ``table``."""

    table: str = _f(F.TABLE_ID)
    seat: Optional[int] = _f(F.Nullable(F.SEAT), None)


@inbound("watch")
@dataclass(frozen=True)
class Watch(Inbound):
    """Spectate ``table``; with ``v`` (the last version seen) a small gap is replayed instead of a snapshot."""

    table: str = _f(F.TABLE_ID)
    v: Optional[int] = _f(F.Nullable(F.VERSION), None)


@inbound("leave")
@dataclass(frozen=True)
class Leave(Inbound):
    """Stop watching ``table``; with the seat ``token``, give up the seat (a game in progress is forfeited)."""

    table: str = _f(F.TABLE_ID)
    token: Optional[str] = _f(F.Nullable(F.TOKEN), None)


@inbound("resume")
@dataclass(frozen=True)
class Resume(Inbound):
    """Bind this connection to the seat of ``token`` at ``table``; ``v`` is the last version seen
    (None: the client has no state, e.g. after a page reload, and gets a snapshot)."""

    table: str = _f(F.TABLE_ID)
    token: str = _f(F.TOKEN)
    v: Optional[int] = _f(F.Nullable(F.VERSION), None)


@inbound("shot")
@dataclass(frozen=True)
class Shot(Inbound):
    """A stroke: ``stroke`` {phi_deg, V0 m/s, a, b (ball radii), theta_deg}; ``cue_ball`` [x, y] m when
    in hand; ``call`` (14.1); ``seq`` the client's sequence number (answered once)."""

    table: str = _f(F.TABLE_ID)
    token: str = _f(F.TOKEN)
    seq: int = _f(F.SEQ)
    stroke: Dict[str, float] = _f(F.STROKE)
    call: Optional[Dict[str, Any]] = _f(F.CALL, None)
    cue_ball: Optional[Tuple[float, float]] = _f(F.Nullable(F.Point()), None)


@inbound("decision")
@dataclass(frozen=True)
class Decision(Inbound):
    """Take an option the referee offers (``legal.decisions``): ``name`` and its ``arg``."""

    table: str = _f(F.TABLE_ID)
    token: str = _f(F.TOKEN)
    seq: int = _f(F.SEQ)
    name: str = _f(F.Str(L.MAX_DECISION_CHARS, pattern=r"[A-Za-z0-9_]+"))
    arg: Any = _f(F.DECISION_ARG, None)


@dataclass(frozen=True)
class SeatCommand(Inbound):
    """A seat action without arguments: ``table`` and the seat's ``token``."""

    table: str = _f(F.TABLE_ID)
    token: str = _f(F.TOKEN)


@inbound("resign")
@dataclass(frozen=True)
class Resign(SeatCommand):
    """Forfeit the game."""


@inbound("claim")
@dataclass(frozen=True)
class Claim(SeatCommand):
    """Claim the game when the opponent has been disconnected longer than the grace period."""


@inbound("rematch_offer")
@dataclass(frozen=True)
class RematchOffer(SeatCommand):
    """After the game: offer a new one."""


@inbound("rematch_accept")
@dataclass(frozen=True)
class RematchAccept(SeatCommand):
    """Accept the opponent's rematch offer: a new game starts."""


@inbound("aim")
@dataclass(frozen=True)
class Aim(Inbound):
    """The player to act shows the others where it aims: the stroke as set now (``phi_deg``, ``a``, ``b``,
    ``theta_deg``, ``V0``, as in ``shot``) and, with the cue ball in hand, where it holds it (``cue_ball``).
    At most ``limits.AIM_PER_S`` a second per connection count; more are dropped without an answer."""

    table: str = _f(F.TABLE_ID)
    token: str = _f(F.TOKEN)
    phi_deg: float = _f(F.Num(L.PHI_DEG_MIN, L.PHI_DEG_MAX, unit="deg"))
    a: float = _f(F.Num(-L.TIP_OFFSET_MAX, L.TIP_OFFSET_MAX))
    b: float = _f(F.Num(-L.TIP_OFFSET_MAX, L.TIP_OFFSET_MAX))
    theta_deg: float = _f(F.Num(L.THETA_DEG_MIN, L.THETA_DEG_MAX, unit="deg"))
    V0: float = _f(F.Num(0.0, L.V0_MAX, unit="m/s"))
    cue_ball: Optional[Tuple[float, float]] = _f(F.Nullable(F.Point()), None)


@inbound("chat")
@dataclass(frozen=True)
class Chat(Inbound):
    """A chat line to everyone at ``table`` (players and spectators)."""

    table: str = _f(F.TABLE_ID)
    text: str = _f(F.Str(L.MAX_CHAT_CHARS, strip=True))


# ----- practice tables ----------------------------------------------------------------------------
@inbound("place_balls")
@dataclass(frozen=True)
class PlaceBalls(Inbound):
    """Practice: put the balls where ``balls`` says (the whole layout: id -> [x, y] m; a pool object ball left out
    is taken off the table, one added is put on), refused unless it passes the placement test of position codes."""

    table: str = _f(F.TABLE_ID)
    token: str = _f(F.TOKEN)
    seq: int = _f(F.SEQ)
    balls: Dict[str, Tuple[float, float]] = _f(F.Balls())


@inbound("undo")
@dataclass(frozen=True)
class Undo(Inbound):
    """Practice: back to the position before the last change (stroke, placement, reset)."""

    table: str = _f(F.TABLE_ID)
    token: str = _f(F.TOKEN)
    seq: int = _f(F.SEQ)


@inbound("redo")
@dataclass(frozen=True)
class Redo(Inbound):
    """Practice: forward again to the position the last ``undo`` left."""

    table: str = _f(F.TABLE_ID)
    token: str = _f(F.TOKEN)
    seq: int = _f(F.SEQ)


@inbound("reset")
@dataclass(frozen=True)
class Reset(Inbound):
    """Practice: ``to`` ``rack`` (the discipline's opening: the 14.1 rack, the carom break) or ``start`` (the
    position or drill the table was made with)."""

    table: str = _f(F.TABLE_ID)
    token: str = _f(F.TOKEN)
    seq: int = _f(F.SEQ)
    to: str = _f(F.Enum(("rack", "start")), "rack")


@inbound("preview")
@dataclass(frozen=True)
class Preview(Inbound):
    """Practice: simulate ``stroke`` (with ``call`` and ``cue_ball`` as in ``shot``) from the current position without
    playing it; answered privately with ``preview`` (the event log). Refused at a game table (``not_practice``)."""

    table: str = _f(F.TABLE_ID)
    token: str = _f(F.TOKEN)
    stroke: Dict[str, float] = _f(F.STROKE)
    call: Optional[Dict[str, Any]] = _f(F.CALL, None)
    cue_ball: Optional[Tuple[float, float]] = _f(F.Nullable(F.Point()), None)


PRACTICE_ACTIONS = (PlaceBalls, Undo, Redo, Reset, Preview)
"""Messages of practice tables only (elsewhere: ``not_practice``)."""

EDITS = (PlaceBalls, Undo, Redo, Reset)
"""Practice messages that share the edit budget (``limits.EDIT_PER_S``)."""

SEAT_ACTIONS = (Shot, Decision, Resign, Claim, RematchOffer, RematchAccept) + PRACTICE_ACTIONS
"""Messages that need the seat's token (and a connection bound to that seat)."""


_SPECS: Dict[type, Dict[str, Tuple[Any, bool]]] = {}


def _spec(cls: type) -> Dict[str, Tuple[Any, bool]]:
    """A message class's fields as {name: (check, required)}, read once from its dataclass fields."""
    spec = {f.name: (f.metadata.get("check"), f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
            for f in dataclasses.fields(cls)}
    _SPECS[cls] = spec
    return spec


def parse(obj: Any) -> Inbound:
    """Validate a decoded msgpack value and build its message.

    Raises :class:`ProtocolError`: ``not_a_map`` (not a map), ``missing_field`` (a map without ``type``),
    ``bad_field`` (``type`` not a string), ``unknown_type``, ``unknown_field``, ``missing_field`` or
    ``bad_field`` (with ``field``).
    """
    if not isinstance(obj, dict):
        raise ProtocolError(ErrorCode.NOT_A_MAP, f"a message is a map with a type, got {type(obj).__name__}")
    if "type" not in obj:
        raise ProtocolError(ErrorCode.MISSING_FIELD, "type: required (the message type, a string)", field="type")
    t = obj["type"]
    if not isinstance(t, str):
        raise ProtocolError(ErrorCode.BAD_FIELD, f"type: must be a string, got {type(t).__name__}", field="type")
    cls = INBOUND.get(t)
    if cls is None:
        shown = t[:32] + ("..." if len(t) > 32 else "")
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"type: unknown message type {shown!r}", field="type")
    spec = _SPECS.get(cls) or _spec(cls)
    for k in obj:
        if k != "type" and k not in spec:
            name = k if isinstance(k, str) and len(k) <= 32 else "<key>"
            raise ProtocolError(ErrorCode.UNKNOWN_FIELD, f"{name}: unknown field of {t}", field=name, ref=t)
    kwargs = {}
    try:
        for name, (check, required) in spec.items():
            if name in obj:
                kwargs[name] = check(obj[name], name)
            elif required:
                raise ProtocolError(ErrorCode.MISSING_FIELD, f"{name}: required by {t}", field=name)
    except ProtocolError as exc:
        exc.ref = t
        raise
    return cls(**kwargs)
