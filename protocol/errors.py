"""Error codes and WebSocket close codes of the billar protocol (documented in docs/protocol.md).

An invalid inbound message is answered with an ``error`` message carrying one of the
:class:`ErrorCode` values and, when one field is at fault, the dotted path of that field
(``stroke.V0``, ``config.target_points``). The connection stays open. A few conditions end the
connection instead, with one of the :class:`CloseCode` values.
"""

from __future__ import annotations

from typing import Optional


class ErrorCode:
    """The closed set of ``error.code`` values."""

    # wire level
    NOT_MSGPACK = "not_msgpack"  # the frame is not one msgpack value
    NOT_BINARY = "not_binary"  # a text frame: the protocol uses binary frames only
    NOT_A_MAP = "not_a_map"  # the msgpack value is not a map (a map without "type": missing_field)
    UNKNOWN_TYPE = "unknown_type"  # "type" is not an inbound message type
    BAD_FIELD = "bad_field"  # a field has the wrong type, range, length or is not finite
    MISSING_FIELD = "missing_field"  # a required field is absent
    UNKNOWN_FIELD = "unknown_field"  # a field the message type does not have
    # session level
    HELLO_REQUIRED = "hello_required"  # a message other than hello before the handshake
    ALREADY_GREETED = "already_greeted"  # a second hello
    RATE_LIMITED = "rate_limited"  # over the message budget (the connection is then closed)
    CHAT_RATE_LIMITED = "chat_rate_limited"  # over the chat budget (message dropped)
    # table level
    NO_SUCH_TABLE = "no_such_table"
    TABLE_FULL = "table_full"  # no free seat
    SEAT_TAKEN = "seat_taken"  # the requested seat is occupied
    ALREADY_SEATED = "already_seated"  # this connection already holds a seat at the table
    BAD_TOKEN = "bad_token"  # the seat token does not match the seat
    NOT_SEATED = "not_seated"  # the connection holds no seat (spectators cannot act)
    RESUME_REQUIRED = "resume_required"  # valid token from a connection not bound to the seat
    NOT_WATCHING = "not_watching"  # leave/chat for a table the connection is not at
    NOT_YOUR_TURN = "not_your_turn"
    STALE_SEQUENCE = "stale_sequence"  # seq lower than the last one accepted from the seat
    DUPLICATE_SEQUENCE = "duplicate_sequence"  # seq equal to the last accepted one: not replayed
    ILLEGAL_ACTION = "illegal_action"  # the referee refused it (``rule`` gives the referee's code)
    BAD_CONFIG = "bad_config"  # the discipline or its configuration was refused
    GAME_OVER = "game_over"
    GAME_NOT_OVER = "game_not_over"  # rematch before the end
    GRACE_NOT_EXPIRED = "grace_not_expired"  # claim before the opponent's grace period ran out
    NOTHING_TO_CLAIM = "nothing_to_claim"  # claim while the opponent is connected, the claimant is to act, or before the game began
    LOGIN_REQUIRED = "login_required"  # a rated table or rated quick play for a connection not logged in
    GAME_IN_PROGRESS = "game_in_progress"  # rename while playing a game that has begun and is not over
    NOT_PRACTICE = "not_practice"  # a practice message (place_balls, undo, redo, reset, preview) at a game table
    BAD_POSITION = "bad_position"  # place_balls refused by the placement test (``rule``: rules/position.py reason)
    NOTHING_TO_UNDO = "nothing_to_undo"  # undo with an empty undo stack, redo with an empty redo stack
    PRACTICE_RATE_LIMITED = "practice_rate_limited"  # over the preview or the edit budget (message dropped)
    TOO_MANY_TABLES = "too_many_tables"  # per-connection table limit
    BUSY = "busy"  # the table's inbox is full; try again
    SHUTTING_DOWN = "shutting_down"
    UNAVAILABLE = "unavailable"  # Redis is unreachable for a lobby-wide operation
    INTERNAL = "internal"  # a server fault; the table state is unchanged


ERROR_CODES = frozenset(v for k, v in vars(ErrorCode).items() if k.isupper())


class CloseCode:
    """WebSocket close codes the server uses (RFC 6455 section 7.4 plus the 4000-4999 private range)."""

    NORMAL = 1000
    GOING_AWAY = 1001  # server stopping without restart
    PROTOCOL_ERROR = 1002  # WebSocket-level violation (websockets closes with it)
    MESSAGE_TOO_BIG = 1009  # a frame over the maximum frame size (websockets closes with it)
    INTERNAL_ERROR = 1011
    SERVICE_RESTART = 1012  # graceful shutdown: reconnect and resume after ``retry_ms``
    UNSUPPORTED_VERSION = 4000  # hello with a protocol version the server does not speak
    HELLO_TIMEOUT = 4001  # no hello within the handshake timeout
    REPLACED = 4002  # the seat was resumed from another connection
    RATE_LIMITED = 4003  # message budget exceeded
    BACKPRESSURE = 4004  # outbound queue overflow: the connection does not read fast enough
    IDLE = 4005  # no message for longer than the idle timeout


class ProtocolError(ValueError):
    """An inbound message refused by validation.

    ``code`` is an :class:`ErrorCode` value, ``field`` the dotted path of the offending field
    (or None), ``message`` a human-readable sentence. Raised by :func:`protocol.decode_client`.
    """

    def __init__(self, code: str, message: str, field: Optional[str] = None, ref: Optional[str] = None):
        super().__init__(message)
        self.code = code
        self.field = field
        self.message = message
        self.ref = ref  # the inbound type, when it was known
