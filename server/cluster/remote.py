"""A connection of another process, as this process's table actors see it.

Private replies become ``out`` envelopes for that connection's node, queued in the
:class:`~server.cluster.outbox.Outbox` in call order; stream messages do not go through here
(the connection's own node relays the table's channel), so :meth:`RemoteConnection.offer` is
always False.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Set

import protocol
from protocol import outbound as O
from server.cluster import wire
from server.cluster.outbox import Outbox
from server.conn import Connection
from server.metrics import Metrics


class RemoteConnection(Connection):
    """Connection ``sid`` of node ``peer``; ``node``: this process's node name (the sender of the envelopes)."""

    remote = True

    def __init__(self, outbox: Outbox, metrics: Metrics, node: str, peer: str, sid: str, player: str, name: str,
                 account_id: Optional[int] = None):
        self.outbox, self.metrics, self.node = outbox, metrics, node
        self.peer, self.id, self.player, self.name = peer, sid, player, name
        self.account_id = account_id
        self.tables: Set[str] = set()
        self.gone = False  # its node said it has gone (or the node died)

    def __repr__(self) -> str:
        return f"RemoteConnection({self.peer}/{self.id}, {self.player})"

    @property
    def closing(self) -> bool:
        return self.gone

    def _post(self, entry: List[Any]) -> None:
        if not self.gone:
            self.outbox.post(self.peer, wire.out(self.node, self.id, entry))

    def send(self, message: Dict[str, Any]) -> None:
        self._post(wire.entry_private(protocol.encode(message)))

    def error(self, code: str, message: str, field: Optional[str] = None, ref: Optional[str] = None, **kw: Any) -> None:
        self.metrics.protocol_errors.inc(1.0, code)
        self.send(O.error(code, message, field, ref, **kw))

    def seated(self, table: str, seat: int, token: str) -> None:
        self._post(wire.entry_seated(table, token, protocol.encode(O.seated(table, seat, token))))

    def snapshot(self, message: Dict[str, Any]) -> None:
        self._post(wire.entry_snapshot(message["table"], message["v"], protocol.encode(message)))

    def left(self, table: str) -> None:
        self._post(wire.entry_left(table, protocol.encode(O.left(table))))

    def send_stream(self, table: str, v: int, data: bytes) -> None:
        self._post(wire.entry_stream(table, v, data))

    def at_version(self, table: str, v: int, role: Optional[str]) -> None:
        self._post(wire.entry_position(table, v, role))

    def caught_up(self, table: str) -> None:
        pass  # its own node tracks where it stands (the relay)

    def offer(self, table: str, role: str) -> bool:
        return False  # its stream travels by the table's channel and its node's relay

    def close(self, code: int, reason: str) -> None:
        self._post(wire.entry_close(code, reason))
        self.gone = True  # its node closes it; a later message of that connection gets a fresh stand-in
