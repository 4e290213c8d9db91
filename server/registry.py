"""The table actors of this process: the registry by id, how a table is made or restored, and the actors' host.

:class:`Registry` is the one place that knows which tables run here. It makes tables
(:meth:`Registry.create`, after every limit has been checked, so that a refused creation leaves
nothing behind), restores them (:meth:`Registry.restore`, for adoption and restarts) and is the
*host* of every actor (the little an actor may ask of its process: settings, metrics, the
store, the cluster outbox, whether the process is stopping, background work, a player's rating,
and to be told when it has closed, lost its lease or finished a game).

Limits on creation: a connection may be at ``max_tables_per_session`` tables; the tables made
from one client address and still open in this process are at most ``max_tables_per_address``
(0: no limit).
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable, Coroutine, Dict, Iterator, List, Optional, Set, Tuple

from protocol.errors import ErrorCode
from server.cluster.outbox import Outbox
from server.config import Settings
from server.conn import Connection
from server.metrics import Metrics
from server.store import RedisUnavailable, Store, TableWrite
from server.table import TableActor
from server.tasks import Background

log = logging.getLogger("billar.registry")


def config_field(exc: ValueError) -> str:
    """The field a referee's configuration error names (its message starts with the key): ``discipline`` or ``config.<key>``."""
    key = str(exc).split(":", 1)[0]
    return "discipline" if key == "discipline" else f"config.{key}"


class Registry:
    """This process's table actors by id (only live ones: a closed or lost actor is removed at once)."""

    def __init__(self, settings: Settings, metrics: Metrics, store: Store, outbox: Outbox):
        self.settings, self.metrics, self.store, self.outbox = settings, metrics, store, outbox
        self.tables: Dict[str, TableActor] = {}
        self.stopping = False
        self.on_lost: Callable[[TableActor], None] = lambda actor: None  # the node's table_lost (server/cluster/node.py)
        self.on_reroute: Callable[..., None] = lambda conn, msg, auto=False: None  # the hub's reroute (server/hub.py)
        self.on_finished: Callable[[str], None] = lambda entry: None  # server/finished.py Recorder.soon
        # (account id, drill id, achieved): a logged-in player's stroke at a drill (the app writes it to the database)
        self.on_drill: Callable[[int, str, bool], None] = lambda account, drill, achieved: None
        self.rating_source: Optional[Callable[[int, str], Awaitable[Any]]] = None  # (account, discipline) -> (rating, provisional)
        self.orphan_writes: List[TableWrite] = []  # final writes of closed tables that wait for Redis
        self._address_of: Dict[str, str] = {}  # table id -> the client address it was made from
        self._by_address: Dict[str, int] = {}  # client address -> tables made from it and still open here
        self._bg = Background()

    # ----- the registry --------------------------------------------------------------------------
    def get(self, tid: str) -> Optional[TableActor]:
        actor = self.tables.get(tid)
        return None if actor is None or actor.closed else actor

    def values(self) -> List[TableActor]:
        return list(self.tables.values())

    def __len__(self) -> int:
        return len(self.tables)

    def __iter__(self) -> Iterator[TableActor]:
        return iter(list(self.tables.values()))

    def pending_tables(self) -> Set[str]:
        """Tables whose writes wait for Redis (and closed tables' final writes)."""
        return {t.id for t in self.tables.values() if t.pending is not None} | {w.table for w in self.orphan_writes}

    # ----- creation --------------------------------------------------------------------------
    def refuse_creation(self, conns: List[Connection], ref: str, address: Optional[str]) -> Optional[str]:
        """Why a new table for ``conns`` (made from ``address``) must not be made, as an error sent to the first
        of them (and True), or None when it may be made. Nothing is created or persisted before this passes."""
        first = conns[0]
        if self.stopping:
            first.error(ErrorCode.SHUTTING_DOWN, "the server is shutting down", None, ref)
            return ErrorCode.SHUTTING_DOWN
        limit = self.settings.max_tables_per_session
        for c in conns:
            if len(c.tables) >= limit:
                first.error(ErrorCode.TOO_MANY_TABLES, f"at most {limit} tables per connection", None, ref)
                return ErrorCode.TOO_MANY_TABLES
        cap = self.settings.max_tables_per_address
        if cap and address is not None and self._by_address.get(address, 0) >= cap:
            first.error(ErrorCode.TOO_MANY_TABLES, f"at most {cap} open tables per client address", None, ref)
            return ErrorCode.TOO_MANY_TABLES
        return None

    def create(self, conn: Connection, discipline: str, config: Dict[str, Any], private: bool, ref: str,
               table_id: Optional[str] = None, creation_id: Optional[str] = None, creator_seat: Optional[int] = None,
               address: Optional[str] = None, seated: Optional[List[Connection]] = None,
               rated: bool = False, practice: Optional[Dict[str, Any]] = None) -> Optional[TableActor]:
        """A new table, started (its first step writes it to Redis), or None after an error sent to ``conn``.

        ``seated``: the connections that will be seated at it (their per-connection limits are checked;
        default ``[conn]``); ``address``: the client address that asked (the per-address limit, practice tables
        included); ``practice``: ``create_table.practice`` (server/table/practice.py).
        """
        if self.refuse_creation(seated if seated is not None else [conn], ref, address) is not None:
            return None
        if rated and any(c.account_id is None for c in (seated if seated is not None else [conn])):
            conn.error(ErrorCode.LOGIN_REQUIRED, "rated games are for logged-in players: log in first", "rated", ref)
            return None
        try:
            actor = TableActor.create(self, discipline, config, private, table_id, creation_id, creator_seat, rated,
                                      practice)
        except ValueError as exc:  # practice.PracticeError names its own field (and a position code's reason)
            rule = getattr(exc, "rule", None)
            conn.error(ErrorCode.BAD_CONFIG, str(exc), getattr(exc, "field", None) or config_field(exc), ref,
                       **({"rule": rule} if rule else {}))
            return None
        actor.lease = self.store.lease_value(self.settings.node, 0)  # fence 0, set by its first write
        self.tables[actor.id] = actor
        if address is not None:
            self._address_of[actor.id] = address
            self._by_address[address] = self._by_address.get(address, 0) + 1
        actor.start()
        return actor

    def create_reserved(self, table_id: str, discipline: str, config: Dict[str, Any], rated: bool,
                        reserved: List[Optional[int]], hold_until: float, creation_id: str) -> TableActor:
        """A tournament's table (server/tournaments/director.py), made by no connection: public, its seats kept for
        the ``reserved`` accounts, waiting for them until ``hold_until`` (Unix s). ``ValueError`` for a bad
        configuration (the tournament's settings were checked when it was created)."""
        actor = TableActor.create(self, discipline, config, False, table_id, creation_id, None, rated,
                                  reserved=reserved, hold_until=hold_until)
        actor.lease = self.store.lease_value(self.settings.node, 0)
        self.tables[actor.id] = actor
        actor.start()
        return actor

    async def restore(self, state: Dict[str, Any], stream: List[Any], lease: str) -> TableActor:
        """Start the actor of a persisted table this process now holds the lease of (an adoption). The current
        game's record entries give the snapshot's history back (none when Redis cannot give them now)."""
        entries: List[Any] = []
        if state.get("record_len"):
            try:
                rec = await self.store.record(state["id"], state["game_no"])
                entries = rec[1] if rec is not None else []
            except RedisUnavailable:
                log.warning("restored without its history: Redis unreachable", extra={"table": state["id"]})
        actor = TableActor.from_state(self, state, stream, entries)
        actor.lease = lease
        self.tables[actor.id] = actor
        actor.start(restored=True)
        return actor

    # ----- the actors' host ------------------------------------------------------------------------
    def background(self, coro: Coroutine) -> None:
        self._bg.spawn(coro)

    def closed(self, actor: TableActor) -> None:
        """The actor closed (or stopped for good): it leaves the registry."""
        if self.tables.get(actor.id) is actor:
            del self.tables[actor.id]
        address = self._address_of.pop(actor.id, None)
        if address is not None:
            n = self._by_address.get(address, 1) - 1
            if n > 0:
                self._by_address[address] = n
            else:
                self._by_address.pop(address, None)

    async def rating(self, account_id: int, discipline: str) -> Optional[int]:
        """The player's rating in ``discipline`` now (rounded), or None when it cannot be read (no database)."""
        r = await self.rating_provisional(account_id, discipline)
        return None if r is None else r[0]

    async def rating_provisional(self, account_id: int, discipline: str) -> Optional[Tuple[int, bool]]:
        """(rating rounded, provisional: the profile's "?") of the player in
        ``discipline`` now, or None when it cannot be read (no database)."""
        if self.rating_source is None:
            return None
        try:
            r = await self.rating_source(account_id, discipline)
        except Exception:  # the database is away: the seat shows no rating; nothing else depends on it
            log.warning("rating not read: database unavailable", extra={"account": account_id})
            return None
        rating, provisional = r
        return int(round(rating)), bool(provisional)

    def drill_result(self, account_id: int, drill_id: str, achieved: bool) -> None:
        """A logged-in player's stroke at a drill's practice table was judged: on to their record."""
        self.on_drill(account_id, drill_id, achieved)

    def game_finished(self, entry: str) -> None:
        """A game ended here and its end is in Redis (``"<table>:<game>"``): on to the database."""
        self.on_finished(entry)

    def announce_rating(self, table: str, game: int, ratings: List[Dict[str, Any]]) -> None:
        """The database rated game ``game`` of ``table``: its players see the changes (when the table is here)."""
        actor = self.get(table)
        if actor is not None:
            actor.announce_rating(game, ratings)

    def lost(self, actor: TableActor) -> None:
        """The actor's lease went to another process."""
        self.on_lost(actor)

    def reroute(self, conn: Connection, msg: Any, auto: bool = False) -> None:
        """A message the actor was playing when it found its table lost: deliver it to the new owner."""
        self.on_reroute(conn, msg, auto)

    def keep_write(self, w: TableWrite) -> None:
        """A closed table's final write that Redis refused: written when Redis is back."""
        self.orphan_writes.append(w)
        if len(self.orphan_writes) == 1:
            self.store.when_healthy(self._retry_orphans)

    def _retry_orphans(self) -> None:
        self._bg.spawn(self.write_orphans())

    async def write_orphans(self) -> bool:
        """Send the closed tables' final writes; True when none is left."""
        while self.orphan_writes:
            try:
                await self.store.write_table(self.orphan_writes[0])
                self.orphan_writes.pop(0)
            except RedisUnavailable:
                self.store.when_healthy(self._retry_orphans)
                return False
            except Exception:
                log.exception("final write of a closed table failed", extra={"table": self.orphan_writes[0].table})
                self.orphan_writes.pop(0)
        return True

    async def wait(self, timeout_s: float) -> None:
        await self._bg.wait(timeout_s)
