"""A table's outbound stream: versioned messages fanned out to local connections, with a short history.

The table actor encodes each stream message once and calls :meth:`TableFeed.publish` with its
version; the same bytes go to every player and spectator connected to this process through
``websockets.broadcast`` (no await per recipient), and the same bytes are what the Redis
bridge publishes for other processes. Backpressure is applied here, per recipient:

- a spectator whose unsent bytes exceed the limit is dropped (closed with 4004) and the
  table never waits for it;
- a player whose unsent bytes exceed the limit stops receiving stream messages and is
  resynchronised with a snapshot once it has caught up (``Session.fall_behind``).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Callable, Deque, Dict, Iterable, List, Optional, Tuple

from websockets.asyncio.server import broadcast

from server.metrics import Metrics

if TYPE_CHECKING:  # pragma: no cover
    from server.session import Session

PLAYER, SPECTATOR = "player", "spectator"


def send_with_backpressure(table: str, members: Iterable[Tuple["Session", str]], data: bytes, metrics: Metrics,
                           on_drop: Optional[Callable[["Session"], None]] = None) -> int:
    """Send ``data`` (one encoded message of ``table``) to each (session, role) that keeps up; returns how many.

    A session resynchronising (behind) is skipped; one whose unsent bytes exceed the limit is a
    spectator dropped (``on_drop(session)`` first, then closed with 4004) or a player put behind
    (a snapshot once it has drained). Used by :class:`TableFeed` and by the cluster's relays.
    """
    targets = []
    for s, role in members:
        if s.closing:
            continue
        if s.is_behind(table):
            metrics.dropped.inc()
            continue
        if s.overflowing():
            metrics.dropped.inc()
            if role == SPECTATOR:
                if on_drop is not None:
                    on_drop(s)
                s.drop_slow()
            else:
                s.fall_behind(table)
            continue
        targets.append(s.ws)
    if targets:
        broadcast(targets, data)
        metrics.messages_out.inc(len(targets))
    return len(targets)


class TableFeed:
    """Members (session -> role) of one table in this process and the last ``history_len`` messages."""

    def __init__(self, table: str, history_len: int, metrics: Metrics):
        self.table = table
        self.metrics = metrics
        self.history: Deque[Tuple[int, bytes]] = deque(maxlen=history_len)
        self.members: Dict["Session", str] = {}

    def spectator_count(self) -> int:
        return sum(1 for r in self.members.values() if r == SPECTATOR)

    def add(self, session: "Session", role: str) -> None:
        self.members[session] = role

    def remove(self, session: "Session") -> Optional[str]:
        return self.members.pop(session, None)

    def publish(self, v: int, data: bytes) -> int:
        """Record message ``v`` and send ``data`` to every member that keeps up; returns the recipients count."""
        self.history.append((v, data))
        return self.send_all(data)

    def send_all(self, data: bytes) -> int:
        """Send ``data`` (stream or unversioned) to every local member that keeps up, applying backpressure."""
        local = [(s, role) for s, role in self.members.items() if not s.remote]  # remote: through Redis (cluster.py)
        return send_with_backpressure(self.table, local, data, self.metrics, on_drop=self._forget)

    def _forget(self, session: "Session") -> None:
        self.members.pop(session, None)

    def has_remote(self) -> bool:
        """Whether a member is a connection on another process."""
        return any(s.remote for s in self.members)

    def since(self, v: int, current: int) -> Optional[List[Tuple[int, bytes]]]:
        """(version, bytes) of the messages after version ``v`` up to ``current`` if the history holds all of them,
        else None (send a snapshot)."""
        if v >= current:
            return [] if v == current else None
        if not self.history or self.history[0][0] > v + 1:
            return None
        return [(ver, data) for ver, data in self.history if ver > v]
