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


def _f(check: F.Checker, default: Any = dataclasses.MISSING):
    """A dataclass field with its checker; no default means the field is required."""
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: type(default)(default), metadata={"check": check})
    return field(default=default, metadata={"check": check})


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
        """The msgpack map for this message (``type`` first, optional fields left at None omitted)."""
        out: Dict[str, Any] = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v is None and f.default is None:
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


@inbound("lobby_subscribe")
@dataclass(frozen=True)
class LobbySubscribe(Inbound):
    """Receive the lobby now (``lobby``) and every change (``lobby_update`` / ``lobby_remove``)."""


@inbound("lobby_unsubscribe")
@dataclass(frozen=True)
class LobbyUnsubscribe(Inbound):
    pass


@inbound("quick_play")
@dataclass(frozen=True)
class QuickPlay(Inbound):
    """Wait for an opponent of ``discipline``; paired players get ``seated`` at a new public table."""

    discipline: str = _f(F.DISCIPLINE)
    config: Dict[str, Any] = _f(F.Config(), {})


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
    the request idempotent: a retry with the same id never makes a second table."""

    discipline: str = _f(F.DISCIPLINE)
    config: Dict[str, Any] = _f(F.Config(), {})
    private: bool = _f(F.Bool(), False)
    seat: Optional[int] = _f(F.Nullable(F.SEAT), 0)
    computer: Optional[int] = _f(F.Nullable(F.Int(1, 5)), None)
    creation_id: Optional[str] = _f(F.Nullable(F.TOKEN), None)


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


@inbound("chat")
@dataclass(frozen=True)
class Chat(Inbound):
    """A chat line to everyone at ``table`` (players and spectators)."""

    table: str = _f(F.TABLE_ID)
    text: str = _f(F.Str(L.MAX_CHAT_CHARS, strip=True))


SEAT_ACTIONS = (Shot, Decision, Resign, Claim, RematchOffer, RematchAccept)
"""Messages that need the seat's token (and a connection bound to that seat)."""


def parse(obj: Any) -> Inbound:
    """Validate a decoded msgpack value and build its message.

    Raises :class:`ProtocolError`: ``not_a_map`` (not a map with a string ``type``),
    ``unknown_type``, ``unknown_field``, ``missing_field`` or ``bad_field`` (with ``field``).
    """
    if not isinstance(obj, dict):
        raise ProtocolError(ErrorCode.NOT_A_MAP, f"a message is a map with a type, got {type(obj).__name__}")
    t = obj.get("type")
    if not isinstance(t, str):
        raise ProtocolError(ErrorCode.NOT_A_MAP, "type: required string", field="type")
    cls = INBOUND.get(t)
    if cls is None:
        shown = t[:32] + ("..." if len(t) > 32 else "")
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"type: unknown message type {shown!r}", field="type")
    spec = {f.name: f for f in dataclasses.fields(cls)}
    for k in obj:
        if k != "type" and k not in spec:
            name = k if isinstance(k, str) and len(k) <= 32 else "<key>"
            raise ProtocolError(ErrorCode.UNKNOWN_FIELD, f"{name}: unknown field of {t}", field=name, ref=t)
    kwargs = {}
    try:
        for name, f in spec.items():
            if name in obj:
                kwargs[name] = f.metadata["check"](obj[name], name)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ProtocolError(ErrorCode.MISSING_FIELD, f"{name}: required by {t}", field=name)
    except ProtocolError as exc:
        exc.ref = t
        raise
    return cls(**kwargs)
