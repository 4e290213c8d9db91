"""One WebSocket connection: handshake, rate limit, validation, dispatch, private sends, backpressure state.

The session reads frames, turns each into a validated :mod:`protocol.inbound` message (or an
``error`` naming the field), spends a message credit (pings have a budget of their own, 50/s;
over the budget: error, then close 4003), and hands the message to the hub (server/hub.py), which
routes it to the lobby, quick play, a new table or a table's actor here or elsewhere. It never
touches a game itself. As a :class:`~server.conn.Connection` it is what a table may write to.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
import time
from typing import Any, Dict, Optional, Set

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

import protocol
from protocol import inbound as I
from protocol import outbound as O
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from server.config import Settings
from server.conn import Connection
from server.http.transport import peer_address
from server.hub import Hub
from server.metrics import Metrics
from server.ratelimit import TokenBucket
from server.table.feed import SPECTATOR, broadcast_binary

log = logging.getLogger("billar.session")

#: ``ping`` credits of their own per connection (a latency probe may ping every 20 ms); beyond
#: them pings spend the ordinary message credits
PING_PER_S, PING_BURST = 50.0, 100.0


def limits(st: Settings) -> Dict[str, Any]:
    """The limits told to a client in ``welcome``."""
    return {"max_frame_bytes": st.max_frame_bytes, "rate_per_s": st.rate_per_s, "rate_burst": st.rate_burst,
            "chat_per_s": st.chat_per_s, "chat_burst": st.chat_burst, "max_chat_chars": protocol.limits.MAX_CHAT_CHARS,
            "grace_s": st.grace_s, "history_len": st.history_len,
            "preview_per_s": protocol.limits.PREVIEW_PER_S, "preview_burst": protocol.limits.PREVIEW_BURST,
            "edit_per_s": protocol.limits.EDIT_PER_S, "edit_burst": protocol.limits.EDIT_BURST}


class Session(Connection):
    """State of one connection: identity after ``hello``, tables it is at, budgets, backpressure flags."""

    def __init__(self, settings: Settings, metrics: Metrics, hub: Hub, ws: ServerConnection):
        self.settings, self.metrics, self.hub, self.ws = settings, metrics, hub, ws
        self.id = secrets.token_urlsafe(9)
        self.player: Optional[str] = None
        self.name = ""
        self.address: Optional[str] = peer_address(ws)
        self.tables: Set[str] = set()  # tables this connection is seated at or watching
        self.behind: Dict[str, asyncio.Task] = {}  # table -> resync watcher, while the player is behind
        self.quick: Optional[str] = None  # quick-play queue this connection waits in
        self.quick_request: Optional[Any] = None  # (the quick_play message, when the wait began)
        self.account: Optional[Any] = None  # server.players.accounts.Account of a logged-in connection
        self.tokens: Dict[str, str] = {}  # table -> seat token given to this connection (to resume it when the table moves)
        self.bucket = TokenBucket(settings.rate_per_s, settings.rate_burst)
        self.chat_bucket = TokenBucket(settings.chat_per_s, settings.chat_burst)
        self.ping_bucket = TokenBucket(PING_PER_S, PING_BURST)
        self.aim_bucket = TokenBucket(protocol.limits.AIM_PER_S, protocol.limits.AIM_BURST)
        self.preview_bucket = TokenBucket(protocol.limits.PREVIEW_PER_S, protocol.limits.PREVIEW_BURST)
        self.edit_bucket = TokenBucket(protocol.limits.EDIT_PER_S, protocol.limits.EDIT_BURST)
        self._closing = False
        self.pending: list = []  # session-level coroutines queued by dispatch, run in order

    def __repr__(self) -> str:
        return f"Session({self.id}, {self.player})"

    @property
    def closing(self) -> bool:
        """True once the server closes it or the peer has gone (a close frame, a reset): nothing more is sent."""
        return self._closing or self.ws.state is not State.OPEN

    # ----- sending ---------------------------------------------------------------------------
    def buffered(self) -> int:
        t = self.ws.transport
        return t.get_write_buffer_size() if t is not None else 0

    def overflowing(self) -> bool:
        return self.buffered() > self.settings.outbound_limit_bytes

    def send_bytes(self, data: bytes) -> None:
        """Write one message without waiting; a connection 4x over the outbound limit is dropped instead."""
        if self.closing:
            return
        if self.buffered() > 4 * self.settings.outbound_limit_bytes:
            self.metrics.dropped.inc()
            self.drop_slow()
            return
        broadcast_binary([self.ws], data)
        self.metrics.messages_out.inc()

    def send(self, message: Dict[str, Any]) -> None:
        self.send_bytes(protocol.encode(message))

    def seated(self, table: str, seat: int, token: str) -> None:
        self.remember_seat(table, token)
        self.send(O.seated(table, seat, token))

    def snapshot(self, message: Dict[str, Any]) -> None:
        self.send(message)

    def left(self, table: str) -> None:
        self.forget_seat(table)
        self.send(O.left(table))

    def remember_seat(self, table: str, token: str) -> None:
        """This connection holds a seat of ``table`` (``token`` resumes it if the table moves to another process)."""
        self.tokens[table] = token
        self.tables.add(table)
        self.quick = None

    def forget_seat(self, table: str) -> None:
        self.tables.discard(table)
        self.tokens.pop(table, None)

    def send_stream(self, table: str, v: int, data: bytes) -> None:
        """A stream message of ``table`` (version ``v``) replayed to this connection alone."""
        self.send_bytes(data)

    def at_version(self, table: str, v: int, role: Optional[str]) -> None:
        """The table's actor has brought this connection to version ``v`` (its live stream follows by itself)."""

    def offer(self, table: str, role: str) -> bool:
        """Backpressure for one live stream message: a resynchronising player is skipped; over the outbound limit
        a spectator is dropped (4004) and a player falls behind (a snapshot once its buffer has drained)."""
        if table in self.behind:
            self.metrics.dropped.inc()
            return False
        if self.overflowing():
            self.metrics.dropped.inc()
            if role == SPECTATOR:
                self.drop_slow()
            else:
                self.fall_behind(table)
            return False
        return True

    def error(self, code: str, message: str, field: Optional[str] = None, ref: Optional[str] = None, **kw) -> None:
        self.metrics.protocol_errors.inc(1.0, code)
        self.send(O.error(code, message, field, ref, **kw))

    def close(self, code: int, reason: str) -> None:
        """Close the connection in the background (the table never waits for it)."""
        if self._closing:
            return
        self._closing = True
        asyncio.get_running_loop().create_task(self.ws.close(code, reason))

    def drop_slow(self) -> None:
        """Backpressure: a connection that does not read is closed with 4004."""
        if not self._closing:
            self.metrics.dropped_connections.inc()
            log.info("dropping slow connection", extra={"session": self.id, "buffered": self.buffered()})
            self.close(CloseCode.BACKPRESSURE, "outbound queue overflow")

    # ----- players behind (resync by snapshot) -------------------------------------------------
    def is_behind(self, table: str) -> bool:
        return table in self.behind

    def fall_behind(self, table: str) -> None:
        """Stop stream messages for ``table``; once the buffer drains below a quarter of the limit, ask for a snapshot."""
        if table in self.behind or self.closing:
            return
        self.behind[table] = asyncio.get_running_loop().create_task(self._resync_when_drained(table))

    async def _resync_when_drained(self, table: str) -> None:
        low = self.settings.outbound_limit_bytes // 4
        try:
            while self.buffered() > low and not self.closing:
                await asyncio.sleep(0.05)
            if self.closing or not self.hub.resync(self, table):
                self.behind.pop(table, None)
        except asyncio.CancelledError:
            pass

    def caught_up(self, table: str) -> None:
        """The actor sent the resync snapshot: stream messages flow again."""
        self.behind.pop(table, None)

    # ----- reading ---------------------------------------------------------------------------
    async def run(self) -> None:
        """Serve the connection until it closes: handshake, then one message at a time."""
        st = self.settings
        sock = self.ws.transport.get_extra_info("socket") if self.ws.transport else None
        if sock is not None and st.socket_sndbuf_bytes:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, st.socket_sndbuf_bytes)
        try:
            if await self._handshake():
                async for data in self.ws:
                    self.on_frame(data)
                    if self.closing:
                        break
                    await self._maybe_await()
            if self.closing:  # read (and drop) what the client still sends, so that its close frame is
                async for _ in self.ws:  # seen at once, not after the close timeout with the reading paused
                    pass
        except ConnectionClosed:
            pass
        finally:
            # lobby steps queued by the last frame of a connection that is gone: its disconnect undoes
            # what they would have done (a quick-play entry, a lobby subscription), so they never run
            for coro in self.pending:
                coro.close()
            self.pending.clear()

    async def _handshake(self) -> bool:
        st = self.settings
        while True:
            try:
                data = await asyncio.wait_for(self.ws.recv(), st.hello_timeout_s)
            except asyncio.TimeoutError:
                self.error(ErrorCode.HELLO_REQUIRED, "hello: not received in time")
                await self.ws.close(CloseCode.HELLO_TIMEOUT, "no hello")
                return False
            if not self.bucket.take():
                return self._over_budget()
            try:
                msg = protocol.decode_client(data, st.max_frame_bytes)
            except ProtocolError as exc:
                self.error(exc.code, exc.message, exc.field, exc.ref)
                continue
            if isinstance(msg, I.Ping):
                if self._pong(msg):
                    continue
                return False
            if not isinstance(msg, I.Hello):
                self.error(ErrorCode.HELLO_REQUIRED, f"{msg.TYPE}: send hello first", ref=msg.TYPE)
                continue
            if msg.protocol not in protocol.SUPPORTED_VERSIONS:
                self.error(ErrorCode.BAD_FIELD, f"protocol: version {msg.protocol} not supported; this server speaks "
                           f"{sorted(protocol.SUPPORTED_VERSIONS)}", "protocol", "hello")
                await self.ws.close(CloseCode.UNSUPPORTED_VERSION, "unsupported protocol version")
                return False
            account = await self.hub.authenticate(self.ws.request)
            if account is not None:  # logged in (the handshake's session cookie): the account's name, always
                self.account, self.account_id = account, account.id
                self.player, self.name = f"a{account.id}", account.username
            else:
                why = await self.hub.guest_name_refused(msg.name) if msg.name else None
                if why is not None:
                    self.error(ErrorCode.BAD_FIELD, why, "name", "hello")
                    continue
                self.player = secrets.token_urlsafe(9)
                self.name = msg.name or f"player-{self.player[:4]}"
            acc = {"id": account.id, "name": account.username} if account is not None else None
            self.send(O.welcome(protocol.PROTOCOL_VERSION, self.id, self.player, self.name, time.time(), limits(st), acc))
            self.hub.greeted(self)
            return True

    def _pong(self, msg: I.Ping) -> bool:
        """Answer a ping. Pings have credits of their own (:data:`PING_PER_S`); beyond them each one
        spends a message credit, so a ping flood ends like any other (``rate_limited``, close 4003).
        False when the connection is being closed for it."""
        if not self.ping_bucket.take() and not self.bucket.take():
            return self._over_budget()
        self.send(O.pong(msg.t, time.time()))
        return True

    def _over_budget(self) -> bool:
        self.metrics.rate_limited.inc()
        self.error(ErrorCode.RATE_LIMITED, "too many messages: closing")
        self.close(CloseCode.RATE_LIMITED, "rate limit exceeded")
        return False

    def on_frame(self, data: Any) -> None:
        """Validate one frame and dispatch it; never raises."""
        st = self.settings
        try:
            msg = protocol.decode_client(data, st.max_frame_bytes)
        except ProtocolError as exc:
            if not self.bucket.take():
                self._over_budget()
                return
            self.error(exc.code, exc.message, exc.field, exc.ref)
            return
        if isinstance(msg, I.Ping):
            self._pong(msg)
            return
        if isinstance(msg, I.Aim):  # a budget of its own; beyond it aims are dropped and cost ordinary credits
            if not self.aim_bucket.take():
                if not self.bucket.take():
                    self._over_budget()
                return
        elif not self.bucket.take():
            self._over_budget()
            return
        self.metrics.messages_in.inc()
        if isinstance(msg, I.Hello):
            self.error(ErrorCode.ALREADY_GREETED, "hello: already received", ref="hello")
            return
        if isinstance(msg, I.Chat) and not self.chat_bucket.take():
            self.error(ErrorCode.CHAT_RATE_LIMITED, "chat: too many lines, wait a moment", "text", "chat", table=msg.table)
            return
        if isinstance(msg, I.Preview) and not self.preview_bucket.take():
            self.error(ErrorCode.PRACTICE_RATE_LIMITED, "preview: too many previews, wait a moment", None, "preview",
                       table=msg.table)
            return
        if isinstance(msg, I.EDITS) and not self.edit_bucket.take():
            self.error(ErrorCode.PRACTICE_RATE_LIMITED, f"{msg.TYPE}: too many changes, wait a moment", None, msg.TYPE,
                       table=msg.table, seq=msg.seq)
            return
        try:
            self.hub.dispatch(self, msg)
        except Exception:  # a bug must not end the connection or the table
            log.exception("dispatch failed", extra={"session": self.id, "type": msg.TYPE})
            self.error(ErrorCode.INTERNAL, "internal error; nothing was changed", ref=msg.TYPE)

    async def _maybe_await(self) -> None:
        """Run a session-level coroutine queued by dispatch (lobby, quick play) before reading on."""
        while self.pending:
            coro = self.pending.pop(0)
            try:
                await coro
            except Exception:
                log.exception("session task failed", extra={"session": self.id})
                self.error(ErrorCode.INTERNAL, "internal error; nothing was changed")

    def defer(self, coro) -> None:
        """Queue a coroutine to run before the next frame is read (keeps this connection's order)."""
        self.pending.append(coro)
