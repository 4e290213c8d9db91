"""Keepalive of the port's WebSocket connections: one sweep for all of them, pings only for the silent.

websockets' own keepalive (``ping_interval``) runs a task per connection that pings it every
interval whatever it receives: a sleep, a ping with its waiter and an ``asyncio.timeout`` per
connection and interval. At 1,000 idle tables (4,000 connections, one ping each per 20 s) that
cost 4 % of the server's core, as much as everything else the idle tables did (bench/capacity.py
``--period 100000``, with and without pings). Here one task looks at every connection once per
``tick_s`` (a quarter of the smaller of the interval and the timeout, at most 5 s), a slice of them
every :data:`SLICE_S`, so that the pings are spread as evenly as the connections' own timers spread
them (a first version pinged a whole rotation's silent connections at once: about 2,000 pings in one
turn of the loop at 19,600 connections; its one run at 4,900 tables gave a p99 of 135 ms):

- a connection that received nothing for ``interval_s`` is sent a ping (RFC 6455 section 5.5.2);
- one whose ping was sent ``timeout_s`` ago with nothing received since is closed, 1011
  "keepalive ping timeout" (the peer is gone or stopped reading: a half-open connection);
- anything received after the ping (its pong or any frame) shows the peer is there.

A player who shoots every few seconds is never pinged; a spectator who only listens is pinged
once per interval, as before. :class:`server.http.transport.Connection` keeps what the sweep reads:
``heard_at`` (stamped on every read of the socket) and ``ping_sent_at``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
from typing import Any, Callable, Iterable, Optional

from websockets.frames import CloseCode
from websockets.protocol import OPEN

from server.metrics import Counter
from server.tasks import Background

log = logging.getLogger("billar.keepalive")

SLICE_S = 0.1  # s between two slices of a rotation
PING, CLOSE = "ping", "close"


class Keepalive:
    """Pings silent connections and closes those whose ping went unanswered (see the module docstring).

    ``interval_s``: silence (s) after which a connection is pinged; ``timeout_s``: time (s) a ping may go
    unanswered (None: no limit); ``connections``: returns the connections (those not open are skipped; objects
    with ``heard_at`` and ``ping_sent_at``, loop-time seconds, ``protocol``, ``send_data`` and ``close``); ``counter``: counts
    ``ping`` and ``timeout`` (``billar_keepalive_total``); ``clock``: the loop's time.
    """

    def __init__(self, interval_s: float, timeout_s: Optional[float], connections: Callable[[], Iterable[Any]],
                 counter: Optional[Counter] = None, clock: Optional[Callable[[], float]] = None):
        if not interval_s > 0 or (timeout_s is not None and not timeout_s > 0):
            raise ValueError("keepalive: interval and timeout must be positive")  # NaN included
        self.interval_s = interval_s
        self.timeout_s = math.inf if timeout_s is None else timeout_s  # None: pings never close a connection
        self.tick_s = max(0.02, min(5.0, min(interval_s, self.timeout_s) / 4))
        self.connections = connections
        self.counter = counter
        self.clock = clock
        self.closing = Background()
        self._task: Optional[asyncio.Task] = None

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        if self.clock is None:
            self.clock = loop.time
        self._task = loop.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:  # pragma: no cover - a bug here must not end the keepalive
                log.exception("keepalive sweep failed")
                await asyncio.sleep(self.tick_s)

    async def sweep(self) -> None:
        """One rotation (``tick_s``): every connection there is at its start looked at once (see :meth:`check`),
        in slices of equal size every ``tick_s / slices`` (about :data:`SLICE_S`)."""
        conns = list(self.connections())
        slices = max(1, round(self.tick_s / SLICE_S))
        per = -(-len(conns) // slices)
        for i in range(slices):
            await asyncio.sleep(self.tick_s / slices)
            now = self.clock()
            for c in conns[i * per:(i + 1) * per]:
                self.check(c, now)

    def check(self, conn: Any, now: float) -> str:
        """What the keepalive does to ``conn`` at loop time ``now``: :data:`PING` (a ping sent), :data:`CLOSE`
        (its ping went unanswered: closed with 1011), or ``""`` (nothing)."""
        if conn.protocol.state is not OPEN:
            return ""
        sent = conn.ping_sent_at
        if sent is not None:
            if conn.heard_at >= sent:
                conn.ping_sent_at = sent = None
            elif now - sent >= self.timeout_s:
                conn.ping_sent_at = None
                self.closing.spawn(conn.close(CloseCode.INTERNAL_ERROR, "keepalive ping timeout"))
                if self.counter is not None:
                    self.counter.inc(1.0, "timeout")
                return CLOSE
            else:
                return ""
        if now - conn.heard_at >= self.interval_s:
            try:
                conn.protocol.send_ping(os.urandom(4))
            except Exception:  # closing meanwhile: nothing to keep alive
                return ""
            conn.send_data()
            conn.ping_sent_at = now
            if self.counter is not None:
                self.counter.inc(1.0, "ping")
            return PING
        return ""
