"""The table writes' own Redis connection: pipelined commands on one socket, replies matched in order.

Every stroke ends in one fenced table write (server/store/redis.py ``Store.write_table``); the
writes of one event-loop iteration go out together. Through redis-py's pipeline each write cost
about 0.2 ms of the server's CPU (its command stack, connection pool, retry wrapper and reply
callbacks, per write, in Python): most of a stroke's cost outside the physics and the referee.
:class:`WriteConnection` keeps what is needed: commands packed by hiredis (C) into one buffer, one
socket write per batch, replies parsed by hiredis's reader and handed, in order, to the callback
each command was sent with. Everything else the store does still goes through redis-py.

A reply that does not come within ``timeout_s`` closes the connection (so that no later reply can
be matched to the wrong command) and fails every command in flight; the next batch connects again.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from typing import Any, Callable, Deque, List, Optional

import hiredis
from redis.connection import parse_url

log = logging.getLogger("billar.store")

Callback = Callable[[Any], None]  # called with the reply: a value, a hiredis.ReplyError, or a ConnectionError


class WriteConnection(asyncio.Protocol):
    """One Redis connection for pipelined commands (``url``: ``redis://[:password@]host:port/db`` or
    ``unix:///path?db=N``)."""

    def __init__(self, url: str, timeout_s: float):
        self.url, self.timeout_s = url, timeout_s
        self.transport: Optional[asyncio.Transport] = None
        self._reader = hiredis.Reader()
        self._pending: Deque[Callback] = collections.deque()
        self._sent_at: Deque[float] = collections.deque()  # loop time each command in flight was sent
        self._connecting: Optional[asyncio.Future] = None
        self._watchdog: Optional[asyncio.TimerHandle] = None

    # ----- connection ------------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self.transport is not None and not self.transport.is_closing()

    async def connect(self) -> None:
        """Open the socket (AUTH and SELECT as the URL says). Raises ``ConnectionError``/``OSError``."""
        if self.connected:
            return
        if self._connecting is not None:
            await asyncio.shield(self._connecting)
            return
        loop = asyncio.get_running_loop()
        self._connecting = loop.create_future()
        try:
            kw = parse_url(self.url)
            self._reader = hiredis.Reader()
            if "path" in kw:
                coro = loop.create_unix_connection(lambda: self, kw["path"])
            else:
                coro = loop.create_connection(lambda: self, kw.get("host", "127.0.0.1"), kw.get("port", 6379))
            await asyncio.wait_for(coro, self.timeout_s)
            hello: List[tuple] = []
            if kw.get("password"):
                hello.append(("AUTH", kw["username"], kw["password"]) if kw.get("username") else ("AUTH", kw["password"]))
            if kw.get("db"):
                hello.append(("SELECT", int(kw["db"])))
            for cmd in hello:
                fut = loop.create_future()
                self.send([hiredis.pack_command(cmd)], [fut.set_result])
                reply = await asyncio.wait_for(fut, self.timeout_s)
                if isinstance(reply, Exception):
                    raise ConnectionError(f"redis refused {cmd[0]}: {reply}")
            self._connecting.set_result(None)
        except BaseException as exc:
            self._connecting.set_exception(ConnectionError(repr(exc)))
            self._connecting.exception()  # retrieved: nobody else may be waiting
            self.close()
            raise ConnectionError(repr(exc)) from None
        finally:
            self._connecting = None

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()
        self._fail_all(ConnectionError("redis write connection closed"))

    # ----- sending ---------------------------------------------------------------------------
    def send(self, packed: List[bytes], callbacks: List[Callback]) -> None:
        """Write the packed commands in one go; each callback gets its command's reply, in order."""
        if not self.connected:
            err = ConnectionError("redis write connection is not open")
            for cb in callbacks:
                cb(err)
            return
        now = asyncio.get_running_loop().time()
        self._pending.extend(callbacks)
        self._sent_at.extend([now] * len(callbacks))
        self.transport.write(b"".join(packed))
        if self._watchdog is None:
            self._watchdog = asyncio.get_running_loop().call_later(self.timeout_s, self._check_late)

    def _check_late(self) -> None:
        self._watchdog = None
        if not self._sent_at:
            return
        loop = asyncio.get_running_loop()
        late = loop.time() - self._sent_at[0]
        if late >= self.timeout_s:
            log.warning("redis write connection: no reply in time, closing it", extra={"waited_s": round(late, 3)})
            self.close()
        else:
            self._watchdog = loop.call_later(self.timeout_s - late, self._check_late)

    # ----- asyncio.Protocol ------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while True:
            try:
                reply = self._reader.gets()
            except hiredis.ProtocolError as exc:  # a broken stream: nothing after this can be trusted
                log.warning("redis write connection: bad reply stream", extra={"error": repr(exc)})
                self.close()
                return
            if reply is False:
                return
            if not self._pending:  # pragma: no cover - a reply nobody asked for
                continue
            cb = self._pending.popleft()
            self._sent_at.popleft()
            try:
                cb(reply)
            except Exception:
                log.exception("redis reply callback failed")

    def connection_lost(self, exc: Optional[Exception]) -> None:
        self.transport = None
        self._fail_all(ConnectionError(f"redis write connection lost: {exc!r}"))

    def _fail_all(self, err: Exception) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        pending, self._pending = self._pending, collections.deque()
        self._sent_at.clear()
        for cb in pending:
            try:
                cb(err)
            except Exception:
                log.exception("redis reply callback failed")
