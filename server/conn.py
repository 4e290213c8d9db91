"""What a table may do to a connection: the :class:`Connection` interface and its contract.

Three kinds of connection sit at tables, and table actors treat them alike through this
interface only (no attribute probing):

- :class:`server.session.Session`: a WebSocket connection of this process;
- :class:`server.cluster.remote.RemoteConnection`: a connection of another process, reached
  through that process's node channel (its stream messages travel by the table's channel and
  its own process's relay, so :meth:`Connection.offer` is always False for it);
- :class:`server.table.computer.ComputerConnection`: the computer seat, which reads the game
  from the actor itself and is sent nothing.

The contract (tests/server/test_connection_contract.py checks it for all three):

- ``send(message)``, ``seated``, ``snapshot``, ``left`` and ``error`` deliver one private
  message to the client, exactly the bytes ``protocol.encode`` gives for it, in call order
  (for a remote connection, when its process turns the envelope back into bytes);
- ``send_stream(table, v, data)`` replays stream message ``v`` of ``table`` to this connection
  alone (a catch-up); ``at_version(table, v, role)`` says the connection now has everything of
  ``table`` up to ``v``, so live stream messages after ``v`` flow to it;
- ``offer(table, role)``: may a live stream message of ``table`` be written to this connection
  now? It applies backpressure itself (a spectator that does not read is dropped and becomes
  ``closing``; a player that does not read falls behind and is resynchronised by snapshot
  later, see ``caught_up``);
- ``close(code, reason)``: the connection is closed in the background; ``closing`` is then
  True and nothing more is delivered; ``closing`` is also True as soon as the peer has gone.
  (The computer seat is never closed: for it ``close`` does nothing and ``closing`` stays False.)
"""

from __future__ import annotations

import abc
from typing import Any, Dict, Optional, Set


class Connection(abc.ABC):
    """One connection at tables: ``id`` (unique in its process), ``player`` (stable player id),
    ``name`` (display name), ``tables`` (ids of the tables it is seated at or watching)."""

    remote = False  # a connection of another process
    computer = False  # the computer seat
    account_id: Optional[int] = None  # the logged-in player's account (server/players), None for a guest

    id: str
    player: str
    name: str
    tables: Set[str]

    @property
    @abc.abstractmethod
    def closing(self) -> bool:
        """True once the connection is closing or closed: nothing more is delivered."""

    @abc.abstractmethod
    def send(self, message: Dict[str, Any]) -> None:
        """Deliver one private message (a map of :mod:`protocol.outbound`)."""

    @abc.abstractmethod
    def error(self, code: str, message: str, field: Optional[str] = None, ref: Optional[str] = None, **kw: Any) -> None:
        """Deliver an ``error`` (``code`` of :class:`protocol.errors.ErrorCode`, the ``field`` at fault, the inbound
        type ``ref``; ``kw``: table, seq, v, rule)."""

    @abc.abstractmethod
    def seated(self, table: str, seat: int, token: str) -> None:
        """Deliver ``seated``: the connection holds ``seat`` of ``table``; ``token`` resumes it later."""

    @abc.abstractmethod
    def snapshot(self, message: Dict[str, Any]) -> None:
        """Deliver a ``table_snapshot`` (``message["table"]`` at version ``message["v"]``)."""

    @abc.abstractmethod
    def left(self, table: str) -> None:
        """Deliver ``left``: the connection is no longer at ``table``."""

    @abc.abstractmethod
    def send_stream(self, table: str, v: int, data: bytes) -> None:
        """Replay stream message ``v`` of ``table`` (its encoded bytes) to this connection alone."""

    @abc.abstractmethod
    def at_version(self, table: str, v: int, role: Optional[str]) -> None:
        """The connection has everything of ``table`` up to version ``v`` (as ``role``: player or spectator)."""

    @abc.abstractmethod
    def caught_up(self, table: str) -> None:
        """A resynchronisation of ``table`` was answered (or is moot): stream messages flow again."""

    @abc.abstractmethod
    def offer(self, table: str, role: str) -> bool:
        """Whether a live stream message of ``table`` may be written to this connection now (backpressure)."""

    @abc.abstractmethod
    def close(self, code: int, reason: str) -> None:
        """Close the connection in the background with WebSocket close ``code``."""
