"""A table's writes: the batch of stream messages and record entries, the lobby entry's pace, persistence.

The actor adds every stream message it makes to its :class:`Batch` and flushes the batch when its
inbox is empty (or holds :data:`MAX_BATCH` messages): ONE fenced Redis write for all of it, then
each message published in version order. A stroke is thus persisted before anybody sees it, and a
burst of chat lines costs one write. Private replies that refer to an action in the batch (an
error about a duplicate, a refused claim) wait in :attr:`Batch.after` until the batch is
published, so no client is told about an action before the action itself.

:class:`LobbyPace` decides when a public table's lobby entry is written: a new entry, other
seats, another status or spectator count at once; a score change alone at most every
``lobby_update_s``; a stroke that changes nothing the lobby shows (most misses) not at all.

:class:`Persister` sends a table's writes: it keeps (merged) what Redis refused and retries it
when Redis is back; in a cluster it retries at once until Redis answers, so that nothing is
published that is not persisted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Tuple

from server.store import Fenced, Store, TableWrite

log = logging.getLogger("billar.table")

MAX_BATCH = 64  # stream messages at most in one write


class TableLost(Exception):
    """The table's lease is held by another process: this actor must stop without writing (server/cluster/node.py)."""


@dataclass
class Batch:
    """What the steps since the last flush made: ``messages`` (version, bytes), ``records`` (game, index, bytes),
    whether the record meta must be written, how many strokes, whether the state changed, and the replies to
    send once it is published."""

    messages: List[Tuple[int, bytes]] = field(default_factory=list)
    records: List[Tuple[int, int, bytes]] = field(default_factory=list)
    meta: bool = False
    strokes: int = 0
    changed: bool = False
    after: List[Callable[[], None]] = field(default_factory=list)

    def add(self, v: int, data: bytes, record: Optional[Tuple[int, int, bytes]], meta: bool, stroke: bool) -> None:
        self.messages.append((v, data))
        if record is not None:
            self.records.append(record)
        self.meta = self.meta or meta
        self.strokes += stroke
        self.changed = True

    def full(self) -> bool:
        return len(self.messages) >= MAX_BATCH

    def take(self) -> "Batch":
        """This batch's content, leaving it empty."""
        out = Batch(self.messages, self.records, self.meta, self.strokes, self.changed, self.after)
        self.messages, self.records, self.meta, self.strokes, self.changed, self.after = [], [], False, 0, False, []
        return out

    def clear(self) -> None:
        """Drop everything (a fault rollback: nobody saw it, and the replies about it would be wrong)."""
        self.take()


class LobbyPace:
    """When a public table's lobby entry must be written (see the module docstring)."""

    def __init__(self, update_s: float):
        self.update_s = update_s
        self.key: Optional[Tuple[Any, ...]] = None  # (seats, (scores, run), status, spectators, game) of the last entry written
        self.at = float("-inf")  # monotonic time of that write
        self.due = False  # a score change waits until ``at + update_s``

    def decide(self, key: Tuple[Any, ...], now: float) -> bool:
        """True when the entry whose shown parts are ``key`` (seats, scores, status, spectators) must be written
        now (then it counts as written); sets :attr:`due` when a score change must wait."""
        last = self.key
        if key == last:
            self.due = False
            return False
        if last is None or key[0] != last[0] or key[2:] != last[2:] or now - self.at >= self.update_s:
            self.key, self.at, self.due = key, now, False
            return True
        self.due = True
        return False

    def due_at(self) -> Optional[float]:
        """Monotonic time from which a waiting score change may be written, or None."""
        return self.at + self.update_s if self.due else None


class Persister:
    """Sends one table's writes to ``store`` (``strict``: in a cluster, retry until Redis answers).

    ``pending`` is the write Redis refused (merged with later ones) until it is in; ``retry`` is
    called when Redis is back (the actor queues a flush of ``pending`` into its inbox)."""

    def __init__(self, table: str, store: Store, strict: bool, history_len: int, retry: Callable[[], Any]):
        self.table, self.store, self.strict, self.history_len, self.retry = table, store, strict, history_len, retry
        self.pending: Optional[TableWrite] = None
        self.lease: Optional[str] = None  # "<node>|<fence>": every write is checked against it
        self.lease_at = float("-inf")  # monotonic time before the last write that extended the lease
        self.closed = False
        self._waiting = False

    async def persist(self, w: TableWrite) -> bool:
        """Send ``w`` now (after what is pending); True when it is in Redis. Raises :class:`TableLost`."""
        if self.pending is not None:
            self.pending.merge(w, self.history_len)
            w = self.pending
        if w.lease is None:
            w.lease = self.lease
        delay = 0.05
        while True:
            if self.store.healthy or self.strict:
                try:
                    t0 = time.monotonic()
                    await self.store.write_table(w)
                    self.pending = None
                    if not w.closed:
                        self.lease_at = t0
                    return True
                except Fenced:
                    self.pending = None
                    raise TableLost(self.table) from None
                except Exception as exc:  # RedisUnavailable, counted by the store
                    log.warning("persist failed, will retry", extra={"table": self.table, "error": repr(exc)})
            if not self.strict or self.closed:
                break
            await asyncio.sleep(delay)
            delay = min(0.5, delay * 2)
        self.pending = w
        if not self._waiting:
            self._waiting = True
            self.store.when_healthy(self._healthy)
        return False

    def _healthy(self) -> None:
        self._waiting = False
        if self.pending is not None and not self.closed:
            self.retry()

    async def flush(self) -> bool:
        """Send what is pending; True when nothing is left."""
        if self.pending is not None:
            w, self.pending = self.pending, None
            await self.persist(w)
        return self.pending is None
