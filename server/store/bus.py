"""The process's one Redis pub/sub connection (the bus): lobby messages, node envelopes, table streams.

Every subscription of the server goes through :class:`Bus`: a handler per exact channel
(``P lobby``, ``P node:<node>``, ``P cluster``) and handlers per channel prefix (``P stream:``,
whose channels are subscribed one table at a time with :meth:`Bus.subscribe`). The bus keeps
its channel set and, after a Redis failure, connects and subscribes again by itself (counted in
``billar_redis_errors_total``); callbacks in :attr:`Bus.reconnected` then run, so that the
cluster can refill what was published while the bus was away.

A subscription is *confirmed* when Redis has answered the SUBSCRIBE: from then on every message
published on that channel reaches this process. :meth:`Bus.subscribe` waits for it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable, Dict, List, Optional, Set, Tuple

from server.store.redis import Store

log = logging.getLogger("billar.bus")

RETRY_S = 0.3  # s between reconnection attempts after the bus was lost


class Bus:
    """One pub/sub connection for the whole process (``store``: the :class:`~server.store.redis.Store`)."""

    def __init__(self, store: Store):
        self.store = store
        self._exact: Dict[str, Callable[[bytes], None]] = {}
        self._prefixes: List[Tuple[str, Callable[[str, bytes], None]]] = []
        self._channels: Set[str] = set()
        self._confirmed: Dict[str, asyncio.Future] = {}
        self._pubsub = None
        self._task: Optional[asyncio.Task] = None
        self._stop = asyncio.Event()
        self.reconnected: List[Callable[[], None]] = []  # run after the bus is back from a cut

    # ----- handlers --------------------------------------------------------------------------
    def on(self, channel: str, handler: Callable[[bytes], None]) -> None:
        """Deliver every message of ``channel`` (a full channel name) to ``handler(data)``; subscribed at
        :meth:`start`, or at once when the bus already runs."""
        self._exact[channel] = handler
        self._channels.add(channel)
        if self._pubsub is not None:
            asyncio.get_running_loop().create_task(self.subscribe(channel))

    def on_prefix(self, prefix: str, handler: Callable[[str, bytes], None]) -> None:
        """Deliver messages of the channels starting with ``prefix`` (each subscribed with :meth:`subscribe`)
        to ``handler(rest of the channel name, data)``."""
        self._prefixes.append((prefix, handler))

    # ----- lifecycle -------------------------------------------------------------------------
    async def start(self, timeout_s: float = 10.0) -> None:
        """Connect and subscribe; returns once Redis confirmed the first subscriptions. Raises
        ``asyncio.TimeoutError`` when Redis does not answer within ``timeout_s``."""
        ready = asyncio.get_running_loop().create_future()
        self._task = asyncio.get_running_loop().create_task(self._listen(ready), name="redis-bus")
        await asyncio.wait_for(asyncio.shield(ready), timeout_s)

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def subscribe(self, channel: str, timeout_s: float = 2.0) -> bool:
        """Subscribe to ``channel`` and wait until Redis confirms it. False if not confirmed in time (the bus is
        reconnecting; it subscribes again by itself)."""
        fut = self._confirmed.get(channel)
        if fut is None:
            fut = self._confirmed[channel] = asyncio.get_running_loop().create_future()
        if channel not in self._channels:
            self._channels.add(channel)
            if self._pubsub is not None:
                try:
                    await self._pubsub.subscribe(channel)
                except Exception:
                    pass  # the bus reconnects and subscribes again
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout_s)
        except asyncio.TimeoutError:
            return False

    async def unsubscribe(self, channel: str) -> None:
        self._channels.discard(channel)
        self._confirmed.pop(channel, None)
        if self._pubsub is not None:
            try:
                await self._pubsub.unsubscribe(channel)
            except Exception:
                pass

    # ----- the loop ----------------------------------------------------------------------------
    async def _listen(self, ready: asyncio.Future) -> None:
        first = True
        while not self._stop.is_set():
            pubsub = self.store.redis.pubsub()
            self._confirmed = {}
            try:
                await pubsub.subscribe(*self._channels)
                self._pubsub = pubsub
                if first:
                    first = False
                    if not ready.done():
                        ready.set_result(None)
                else:
                    log.info("bus reconnected")
                    for cb in list(self.reconnected):
                        try:
                            cb()
                        except Exception:
                            log.exception("bus reconnection callback failed")
                while not self._stop.is_set():
                    msg = await pubsub.get_message(timeout=1.0)
                    if msg is None:
                        continue
                    kind = msg.get("type")
                    if kind == "message":
                        self._deliver(msg["channel"], msg["data"])
                    elif kind == "subscribe":
                        ch = msg["channel"].decode() if isinstance(msg["channel"], bytes) else msg["channel"]
                        fut = self._confirmed.get(ch)
                        if fut is None:
                            fut = self._confirmed[ch] = asyncio.get_running_loop().create_future()
                        if not fut.done():
                            fut.set_result(True)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # RedisError, OSError, timeouts
                self.store.metrics.redis_errors.inc()
                log.warning("bus lost, retrying", extra={"error": repr(exc)})
                await asyncio.sleep(RETRY_S)
            finally:
                self._pubsub = None
                try:
                    await pubsub.aclose()
                except Exception:
                    pass

    def _deliver(self, channel, data: bytes) -> None:
        ch = channel.decode() if isinstance(channel, bytes) else channel
        try:
            handler = self._exact.get(ch)
            if handler is not None:
                handler(data)
                return
            for prefix, h in self._prefixes:
                if ch.startswith(prefix):
                    h(ch[len(prefix):], data)
                    return
        except Exception:
            log.exception("bad bus message", extra={"channel": ch})
