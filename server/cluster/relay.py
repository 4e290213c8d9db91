"""This process's connections at a table owned by another process: the table's stream, fanned out in version order."""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Tuple

from server.conn import Connection
from server.table.feed import PLAYER, SPECTATOR, send_with_backpressure


class Relay:
    """A table owned by another node, as this node relays it to its own connections (``node``: has
    ``settings``, ``metrics`` and ``recover(relay)``, which refills a gap).

    ``members``: session -> [role, v] where ``v`` is the last version the connection has (None
    while its join, resume or resync is answered by the owner). ``history``: the last
    ``history_len`` stream messages seen, for members that are behind.
    """

    def __init__(self, node: Any, table: str, owner: Optional[str]):
        self.node, self.table, self.owner = node, table, owner
        self.history: Dict[int, bytes] = {}
        self.top = 0
        self.members: Dict[Connection, List[Any]] = {}
        self.idle_since = time.monotonic()
        self.recovering = False
        self.fresh = True  # subscribed just now: what came before may be missing

    def member(self, session: Connection, role: Optional[str] = None) -> List[Any]:
        m = self.members.get(session)
        if m is None:
            m = self.members[session] = [role or (PLAYER if self.table in session.tokens else SPECTATOR), None]
        elif role is not None:
            m[0] = role
        return m

    def remove(self, session: Connection) -> None:
        if self.members.pop(session, None) is not None and not self.members:
            self.idle_since = time.monotonic()

    def on_frame(self, v: Optional[int], data: bytes) -> None:
        """A payload of the table's channel: a stream message (version ``v``) or an unversioned one."""
        if v is None:
            self._send([s for s, m in self.members.items() if m[1] is not None], data)
            return
        if v in self.history or v <= self.top - self.node.settings.history_len:
            return
        self.history[v] = data
        if len(self.history) > self.node.settings.history_len:
            for old in sorted(self.history)[: len(self.history) - self.node.settings.history_len]:
                del self.history[old]
        self.top = max(self.top, v)
        self.deliver()

    def deliver(self) -> None:
        """Send every member the messages after its version that the history holds (same bytes, one
        ``broadcast`` per version); fetch from Redis what is missing."""
        while True:
            groups: Dict[int, List[Tuple[Connection, List[Any]]]] = {}
            for s, m in self.members.items():
                if m[1] is not None and m[1] + 1 in self.history:
                    groups.setdefault(m[1] + 1, []).append((s, m))
            if not groups:
                break
            for v in sorted(groups):
                targets = []
                for s, m in groups[v]:
                    m[1] = v
                    targets.append(s)
                self._send(targets, self.history[v])
        if any(m[1] is not None and m[1] < self.top for m in self.members.values()):
            self.node.recover(self)

    def _send(self, sessions: List[Connection], data: bytes) -> None:
        """Send to these local connections with the feed's backpressure (server.feed.send_with_backpressure)."""
        members = [(s, self.members.get(s, [SPECTATOR])[0]) for s in sessions]
        self.node.metrics.relayed.inc(send_with_backpressure(self.table, members, data, self.node.metrics))

    def counts(self) -> Tuple[int, int]:
        """(spectators, players) connected here."""
        sp = sum(1 for m in self.members.values() if m[0] == SPECTATOR)
        return sp, len(self.members) - sp
