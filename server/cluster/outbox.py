"""Envelopes to other nodes, published in the order they were posted.

Anything that talks to a connection of another process posts an envelope here
(:class:`~server.cluster.remote.RemoteConnection`, the node's routing); a background loop
publishes each node's envelopes together on ``P node:<node>``. A table actor calls
:meth:`Outbox.flush` before it persists and publishes a stream message, so that its private
replies (``seated``, a snapshot) reach other processes before the stream messages that follow
them, as they do for this process's own connections.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Dict, List

from server.cluster import wire
from server.store import RedisUnavailable, Store

log = logging.getLogger("billar.cluster")

PUBLISH_ATTEMPTS = 10  # a node's envelopes are given up after this many failed publishes (0.2 s apart)


class Outbox:
    """Per-node queues of envelopes (``store``: where they are published)."""

    def __init__(self, store: Store):
        self.store = store
        self._box: Dict[str, List[wire.Envelope]] = {}
        self._ready = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task = None
        self._stop = False

    def post(self, node: str, env: wire.Envelope) -> None:
        self._box.setdefault(node, []).append(env)
        self._ready.set()

    def pending(self) -> bool:
        return bool(self._box)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="cluster-outbox")

    async def stop(self) -> None:
        """Publish what is left, then stop the loop."""
        self._stop = True
        self._ready.set()
        try:
            await self.flush()
        except Exception:
            pass
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _loop(self) -> None:
        while not self._stop:
            await self._ready.wait()
            self._ready.clear()
            try:
                await self.flush()
            except Exception:
                log.exception("outbox flush failed")

    async def flush(self) -> None:
        """Publish every envelope posted so far, in order (one publish per node)."""
        async with self._lock:
            while self._box:
                box, self._box = self._box, {}
                for node, envs in box.items():
                    for _ in range(PUBLISH_ATTEMPTS):
                        try:
                            await self.store.publish(self.store.key("node", node), wire.pack(envs))
                            break
                        except RedisUnavailable:
                            await asyncio.sleep(0.2)
                    else:
                        log.warning("envelopes to a node lost: Redis unreachable", extra={"node": node, "count": len(envs)})
