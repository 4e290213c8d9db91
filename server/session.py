"""One WebSocket connection: handshake, rate limit, validation, dispatch, private sends, backpressure state.

The session reads frames, turns each into a validated :mod:`protocol.inbound` message (or an
``error`` naming the field), spends a message credit (pings have a budget of their own, 50/s;
over the budget: error, then close 4003), and hands the message to the server (lobby, quick play, table creation) or
to a table actor's inbox. It never touches a game itself.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
import time
from typing import TYPE_CHECKING, Any, Dict, Optional, Set

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed

import protocol
from protocol import inbound as I
from protocol import outbound as O
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from server.ratelimit import TokenBucket

if TYPE_CHECKING:  # pragma: no cover
    from server.app import Server

log = logging.getLogger("billar.session")

#: ``ping`` credits of their own per connection (a latency probe may ping every 20 ms); beyond
#: them pings spend the ordinary message credits
PING_PER_S, PING_BURST = 50.0, 100.0
SESSION_MESSAGES = (I.Ping, I.LobbySubscribe, I.LobbyUnsubscribe, I.QuickPlay, I.QuickPlayCancel, I.CreateTable)


class Session:
    """State of one connection: identity after ``hello``, tables it is at, budgets, backpressure flags."""

    remote = False  # a connection of this process (server/cluster.py has the remote kind)

    def __init__(self, server: "Server", ws: ServerConnection):
        st = server.settings
        self.server, self.ws = server, ws
        self.id = secrets.token_urlsafe(9)
        self.player: Optional[str] = None
        self.name = ""
        self.tables: Set[str] = set()  # tables this connection is seated at or watching
        self.behind: Dict[str, asyncio.Task] = {}  # table -> resync watcher, while the player is behind
        self.quick: Optional[str] = None  # discipline queued for quick play
        self.tokens: Dict[str, str] = {}  # table -> seat token given to this connection (to resume it when the table moves)
        self.bucket = TokenBucket(st.rate_per_s, st.rate_burst)
        self.chat_bucket = TokenBucket(st.chat_per_s, st.chat_burst)
        self.ping_bucket = TokenBucket(PING_PER_S, PING_BURST)
        self.closing = False
        self.pending: list = []  # session-level coroutines queued by dispatch, run in order

    def __repr__(self) -> str:
        return f"Session({self.id}, {self.player})"

    # ----- sending ---------------------------------------------------------------------------
    def buffered(self) -> int:
        t = self.ws.transport
        return t.get_write_buffer_size() if t is not None else 0

    def overflowing(self) -> bool:
        return self.buffered() > self.server.settings.outbound_limit_bytes

    def send_bytes(self, data: bytes) -> None:
        """Write one message without waiting; a connection 4x over the outbound limit is dropped instead."""
        if self.closing:
            return
        if self.buffered() > 4 * self.server.settings.outbound_limit_bytes:
            self.server.metrics.dropped.inc()
            self.drop_slow()
            return
        broadcast([self.ws], data)
        self.server.metrics.messages_out.inc()

    def send(self, message: Dict[str, Any]) -> None:
        if message.get("type") == "seated":
            self.tokens[message["table"]] = message["token"]
        self.send_bytes(protocol.encode(message))

    def send_stream(self, table: str, v: int, data: bytes) -> None:
        """A stream message of ``table`` (version ``v``) replayed to this connection alone."""
        self.send_bytes(data)

    def at_version(self, table: str, v: int, role: Optional[str]) -> None:
        """The table's actor has brought this connection to version ``v`` (nothing to do for a local one)."""

    def error(self, code: str, message: str, field: Optional[str] = None, ref: Optional[str] = None, **kw) -> None:
        self.server.metrics.protocol_errors.inc(1.0, code)
        self.send(O.error(code, message, field, ref, **kw))

    def close(self, code: int, reason: str) -> None:
        """Close the connection in the background (the table never waits for it)."""
        if self.closing:
            return
        self.closing = True
        asyncio.get_running_loop().create_task(self.ws.close(code, reason))

    def drop_slow(self) -> None:
        """Backpressure: a connection that does not read is closed with 4004."""
        if not self.closing:
            self.server.metrics.dropped_connections.inc()
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
        low = self.server.settings.outbound_limit_bytes // 4
        try:
            while self.buffered() > low and not self.closing:
                await asyncio.sleep(0.05)
            if self.closing or not self.server.resync(self, table):
                self.behind.pop(table, None)
        except asyncio.CancelledError:
            pass

    def caught_up(self, table: str) -> None:
        """The actor sent the resync snapshot: stream messages flow again."""
        self.behind.pop(table, None)

    # ----- reading ---------------------------------------------------------------------------
    async def run(self) -> None:
        """Serve the connection until it closes: handshake, then one message at a time."""
        st = self.server.settings
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

    async def _handshake(self) -> bool:
        st = self.server.settings
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
            self.player = secrets.token_urlsafe(9)
            self.name = msg.name or f"player-{self.player[:4]}"
            self.send(O.welcome(protocol.PROTOCOL_VERSION, self.id, self.player, self.name, time.time(), self.server.limits()))
            self.server.on_greeted(self)
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
        self.server.metrics.rate_limited.inc()
        self.error(ErrorCode.RATE_LIMITED, "too many messages: closing")
        self.close(CloseCode.RATE_LIMITED, "rate limit exceeded")
        return False

    def on_frame(self, data: Any) -> None:
        """Validate one frame and dispatch it; never raises."""
        st = self.server.settings
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
        if not self.bucket.take():
            self._over_budget()
            return
        self.server.metrics.messages_in.inc()
        if isinstance(msg, I.Hello):
            self.error(ErrorCode.ALREADY_GREETED, "hello: already received", ref="hello")
            return
        if isinstance(msg, I.Chat) and not self.chat_bucket.take():
            self.error(ErrorCode.CHAT_RATE_LIMITED, "chat: too many lines, wait a moment", "text", "chat", table=msg.table)
            return
        try:
            self.server.dispatch(self, msg)
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
