"""A table's outbound stream: versioned messages fanned out to local connections, with a short history.

The table actor encodes each stream message once and calls :meth:`TableFeed.publish` with its
version; the same bytes go to every player and spectator connected to this process through
``broadcast_binary`` (websockets' broadcast with the frame serialized once; no await per recipient), and the same bytes are what the Redis
bridge publishes for other processes. Backpressure is applied here, per recipient:

- a spectator whose unsent bytes exceed the limit is dropped (closed with 4004) and the
  table never waits for it;
- a player whose unsent bytes exceed the limit stops receiving stream messages and is
  resynchronised with a snapshot once it has caught up (``Connection.offer``).
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Deque, Dict, Iterable, List, Optional, Tuple


from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN

from server.conn import Connection
from server.metrics import Metrics

PLAYER, SPECTATOR = "player", "spectator"


def broadcast_binary(connections: Iterable[ServerConnection], data: bytes) -> int:
    """Send ``data`` as one binary message to each open connection; returns how many it went to.

    What ``websockets.broadcast`` does, with the frame serialized once for all of them (a server's
    frames are not masked and, with compression off, are the same bytes for every connection) and
    written straight to each transport: a stroke reaches four connections or more. Connections that
    are not open, are closing or are in the middle of a fragmented message are skipped; one with an
    extension (compression) goes through its protocol as usual.
    """
    frame: Optional[bytes] = None
    n = 0
    for c in connections:
        if c.protocol.state is not OPEN or c.send_in_progress is not None:
            continue
        t = c.transport
        if t is None or t.is_closing():
            continue
        if c.protocol.extensions:
            c.protocol.send_binary(data)
            c.send_data()
        else:
            if frame is None:
                frame = Frame(Opcode.BINARY, data).serialize(mask=False, extensions=[])
            t.write(frame)
        n += 1
    return n



def send_with_backpressure(table: str, members: Iterable[Tuple[Connection, str]], data: bytes, metrics: Metrics,
                           on_drop: Optional[Callable[[Connection], None]] = None) -> int:
    """Send ``data`` (one encoded message of ``table``) to each (connection, role) that keeps up; returns how many.

    Each connection decides by :meth:`Connection.offer` (a player resynchronising is skipped;
    one whose unsent bytes exceed the limit is a spectator dropped, which then is ``closing``
    and ``on_drop(connection)`` is called, or a player put behind). Connections of other
    processes and the computer are never offered anything (their streams do not go through
    here). Used by :class:`TableFeed` and by the cluster's relays.
    """
    targets = []
    for s, role in members:
        if s.closing:
            continue
        if s.offer(table, role):
            targets.append(s.ws)
        elif s.closing and on_drop is not None:
            on_drop(s)
    if targets:
        broadcast_binary(targets, data)
        metrics.messages_out.inc(len(targets))
    return len(targets)


class TableFeed:
    """Members (session -> role) of one table in this process and the last ``history_len`` messages."""

    def __init__(self, table: str, history_len: int, metrics: Metrics):
        self.table = table
        self.metrics = metrics
        self.history: Deque[Tuple[int, bytes]] = deque(maxlen=history_len)
        self.members: Dict[Connection, str] = {}

    def spectator_count(self) -> int:
        return sum(1 for r in self.members.values() if r == SPECTATOR)

    def add(self, session: Connection, role: str) -> None:
        self.members[session] = role

    def remove(self, session: Connection) -> Optional[str]:
        return self.members.pop(session, None)

    def publish(self, v: int, data: bytes) -> int:
        """Record message ``v`` and send ``data`` to every member that keeps up; returns the recipients count."""
        self.history.append((v, data))
        return self.send_all(data)

    def send_all(self, data: bytes, exclude: Optional[Connection] = None) -> int:
        """Send ``data`` (stream or unversioned) to every local member that keeps up (but ``exclude``), applying
        backpressure."""
        members = [(s, r) for s, r in self.members.items() if s is not exclude]
        return send_with_backpressure(self.table, members, data, self.metrics, on_drop=self._forget)

    def _forget(self, session: Connection) -> None:
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
