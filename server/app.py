"""The server: WebSocket endpoint and HTTP routes on one port, the table registry, the lobby, housekeeping.

:class:`Server` wires the pieces: sessions (server/session.py) read and validate, table actors
(server/table.py) own the games, the store (server/store.py) is the only Redis client. It runs
in-process for tests (``await Server(settings).start()``) and from ``billar serve``.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging
import time
from typing import Any, Dict, List, Optional, Set, Tuple

import msgpack
from websockets.asyncio.server import ServerConnection, broadcast, serve

import protocol
from protocol import inbound as I
from protocol import outbound as O
from protocol.errors import CloseCode, ErrorCode
from rules.registry import canonical_name, new_game
from server import records
from server.cluster import Cluster
from server.computer import seat_computer
from server.config import Settings
from server.embedded import start_embedded
from server.http import make_router
from server.metrics import Metrics
from server.feed import SPECTATOR
from server.session import Session
from server.store import RedisUnavailable, Store, TableWrite
from server.table import TableActor

log = logging.getLogger("billar.server")

HOUSEKEEPING_S = 0.5


def config_field(exc: ValueError) -> str:
    """The field a referee's configuration error names (its message starts with the key): ``discipline`` or ``config.<key>``."""
    key = str(exc).split(":", 1)[0]
    return "discipline" if key == "discipline" else f"config.{key}"


class Server:
    """One server process. ``start()`` binds and restores the persisted tables; ``stop()`` shuts down gracefully."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.metrics = Metrics()
        self.store: Optional[Store] = None
        self.tables: Dict[str, TableActor] = {}
        self.sessions: Dict[str, Session] = {}
        self.lobby_watchers: Set[Session] = set()
        self.dirty: Set[str] = set()  # tables whose writes wait for Redis
        self.orphan_writes: List[TableWrite] = []  # final writes of closed tables that wait for Redis
        self.spectators_dirty: Set[str] = set()
        self.lobby_due: Set[str] = set()  # tables with a score change not yet in the lobby (TableActor._add_lobby)
        self.stopping = False
        self.online = 0
        self.ws_server = None
        self._embedded: Any = None
        self._stop = asyncio.Event()
        self._tasks: List[asyncio.Task] = []
        self._bg: Set[asyncio.Task] = set()
        self._refresh_tables: List[str] = []  # this refresh round's tables and players still to refresh
        self._refresh_players: List[str] = []
        self._refresh_per_tick = (0, 0)
        self._round_started = float("-inf")
        self._gc_started: Optional[float] = None
        self.cluster = Cluster(self)  # leases, routing and fan-out between processes (server/cluster.py)

    # ----- lifecycle ------------------------------------------------------------------------
    async def start(self) -> None:
        st = self.settings
        url = st.redis_url
        if url is None:
            url, self._embedded = await asyncio.to_thread(start_embedded, st.data_dir)
        self.redis_url = url
        self.store = Store(url, st.key_prefix, self.metrics, timeout_s=st.redis_timeout_s, lobby_ttl_s=st.lobby_ttl_s,
                           records_ttl_s=st.records_ttl_s, history_len=st.history_len)
        await self.cluster.start()  # adopts every persisted table nobody holds: a restart resumes them
        origins = None if st.origins is None else list(st.origins) + [None]
        self.ws_server = await serve(
            self._handler, st.host, st.port, process_request=make_router(self), compression=None,
            reuse_port=st.reuse_port or None,
            max_size=st.max_frame_bytes, origins=origins, ping_interval=st.ping_interval_s, ping_timeout=st.ping_timeout_s,
            close_timeout=st.close_timeout_s, server_header="billar", logger=logging.getLogger("billar.websockets"),
        )
        gc.callbacks.append(self._on_gc)
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._housekeeping(), name="housekeeping"),
            loop.create_task(self.store.listen(("lobby",), self._on_lobby_message, self._stop), name="lobby-listener"),
        ]
        log.info("listening", extra={"host": st.host, "port": self.port, "redis": "embedded" if st.redis_url is None else "url",
                                     "tables_restored": len(self.tables)})

    def _on_gc(self, phase: str, info: Dict[str, Any]) -> None:
        """``gc.callbacks`` hook: time each collection into ``billar_gc_pause_seconds``."""
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self._gc_started is not None:
            self.metrics.gc_pause.observe(time.perf_counter() - self._gc_started, str(info["generation"]))
            self._gc_started = None

    @property
    def port(self) -> int:
        return self.ws_server.sockets[0].getsockname()[1]

    async def stop(self, reason: str = "restart") -> None:
        """Graceful shutdown: stop accepting, persist every table, hand the tables over (their leases are released
        and, in a cluster, adopted by the other processes before this one lets its clients go), tell clients
        (``shutdown``), close with 1012."""
        if self.stopping:
            return
        self.stopping = True
        self._stop.set()
        if self.ws_server is not None:
            self.ws_server.close(close_connections=False)
        await self.cluster.leave()
        actors = list(self.tables.values())
        for actor in actors:
            await actor.stop()
        await self._drain_writes(deadline=time.monotonic() + 5.0)
        released = [a.id for a in actors if not a.lost and await self.cluster.hand_over(a)]
        if released and self.settings.cluster:
            adopted = await self.cluster.wait_adopted(released, self.settings.drain_timeout_s)
            log.info("tables handed over", extra={"released": len(released), "adopted": adopted})
        data = protocol.encode(O.shutdown(reason, self.settings.shutdown_retry_ms))
        sessions = list(self.sessions.values())
        for s in sessions:
            s.send_bytes(data)
        code = CloseCode.SERVICE_RESTART if reason == "restart" else CloseCode.GOING_AWAY
        if sessions:
            await asyncio.wait([asyncio.ensure_future(s.ws.close(code, reason)) for s in sessions],
                               timeout=self.settings.close_timeout_s + 1)
        if self.ws_server is not None:
            try:
                await asyncio.wait_for(self.ws_server.wait_closed(), self.settings.close_timeout_s + 1)
            except asyncio.TimeoutError:
                log.warning("connections still open at shutdown")
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        await self.cluster.stop()
        if self.store is not None:
            await self.store.close()
        log.info("stopped", extra={"reason": reason})

    async def _drain_writes(self, deadline: float) -> None:
        """At shutdown, keep trying the writes Redis refused until ``deadline`` (monotonic s): no stroke is dropped
        by a restart that happens while Redis is briefly away."""
        writes = [t.pending for t in self.tables.values() if t.pending is not None] + self.orphan_writes
        while writes and time.monotonic() < deadline:
            try:
                await self.store.write_table(writes[0])
                writes.pop(0)
            except RedisUnavailable:
                await asyncio.sleep(0.2)
        if writes:
            log.error("writes lost at shutdown: Redis unreachable", extra={"tables": len(writes)})

    # ----- connections -----------------------------------------------------------------------
    async def _handler(self, ws: ServerConnection) -> None:
        session = Session(self, ws)
        self.sessions[session.id] = session
        try:
            await session.run()
        finally:
            del self.sessions[session.id]
            self.lobby_watchers.discard(session)
            for task in session.behind.values():
                task.cancel()
            for tid in list(session.tables):
                actor = self.tables.get(tid)
                if actor is not None:
                    actor.submit_internal(actor.on_disconnect, session)
                else:  # a table owned by another process
                    self.cluster.session_gone(session, tid)
            if not self.stopping and session.player is not None:
                try:
                    if session.quick:
                        await self.store.quick_play_cancel(session.quick, session.player)
                    await self.store.presence(session.player, False)
                except RedisUnavailable:
                    pass

    def on_greeted(self, session: Session) -> None:
        self._background(self._presence(session.player))

    def _background(self, coro) -> None:
        """Run a fire-and-forget coroutine, keeping a reference until it ends."""
        task = asyncio.get_running_loop().create_task(coro)
        self._bg.add(task)
        task.add_done_callback(self._bg.discard)

    async def _presence(self, player: str) -> None:
        try:
            await self.store.presence(player, True)
        except RedisUnavailable:
            pass

    def limits(self) -> Dict[str, Any]:
        st = self.settings
        return {"max_frame_bytes": st.max_frame_bytes, "rate_per_s": st.rate_per_s, "rate_burst": st.rate_burst,
                "chat_per_s": st.chat_per_s, "chat_burst": st.chat_burst, "max_chat_chars": protocol.limits.MAX_CHAT_CHARS,
                "grace_s": st.grace_s, "history_len": st.history_len}

    def dispatch(self, session: Session, msg: I.Inbound) -> None:
        """Route a validated message: session-level ones here, table messages to the table's inbox."""
        if isinstance(msg, I.LobbySubscribe):
            self.lobby_watchers.add(session)
            session.defer(self._send_lobby(session))
        elif isinstance(msg, I.LobbyUnsubscribe):
            self.lobby_watchers.discard(session)
        elif isinstance(msg, I.QuickPlay):
            session.defer(self._quick_play(session, msg))
        elif isinstance(msg, I.QuickPlayCancel):
            session.defer(self._quick_cancel(session))
        elif isinstance(msg, I.CreateTable):
            if msg.creation_id is not None:  # idempotent: a retry finds the table made by the first request
                session.defer(self.cluster.create_once(session, msg))
            else:
                self.create_table(session, msg)
        else:
            actor = self.tables.get(msg.table)
            if actor is None or actor.closed:  # owned by another process, or an orphan to adopt, or no such table
                session.defer(self.cluster.forward(session, msg))
            else:
                self.submit_local(session, actor, msg)

    def submit_local(self, session: Session, actor: TableActor, msg: I.Inbound) -> None:
        """Queue ``msg`` at a table actor of this process (``busy`` when its inbox is full)."""
        if isinstance(msg, I.CreateTable):  # a retried creation (server/cluster.py create_once)
            ok = actor.submit_internal(actor.reclaim_creation, session, msg)
        else:
            ok = actor.submit(session, msg)
        if not ok:
            session.error(ErrorCode.BUSY, "table: busy, try again", "table", msg.TYPE, table=actor.id,
                          seq=getattr(msg, "seq", None))

    def resync(self, session: Session, table: str) -> bool:
        """A player that fell behind at ``table`` has drained its buffer: ask the table's actor (here or on the
        owning process) for a snapshot. False when the table is gone."""
        actor = self.tables.get(table)
        if actor is not None:
            return actor.submit_internal(actor.resync, session)
        if table in self.cluster.relays:
            self.cluster.request_resync(session, table)
            return True
        return False

    # ----- tables ----------------------------------------------------------------------------
    def _new_table(self, session: Session, discipline: str, config: Dict[str, Any], private: bool, ref: str,
                   table_id: Optional[str] = None, creation_id: Optional[str] = None,
                   creator_seat: Optional[int] = None) -> Optional[TableActor]:
        if self.stopping:
            session.error(ErrorCode.SHUTTING_DOWN, "the server is shutting down", None, ref)
            return None
        try:
            actor = TableActor.create(self, discipline, config, private, table_id, creation_id, creator_seat)
        except ValueError as exc:
            session.error(ErrorCode.BAD_CONFIG, str(exc), config_field(exc), ref)
            return None
        actor.lease = self.cluster.lease_for_new_table()
        self.tables[actor.id] = actor
        actor.start()
        return actor

    def create_table(self, session: Session, msg: I.CreateTable, table_id: Optional[str] = None) -> None:
        """Make a table here for ``create_table`` (``table_id``: already bound to the message's creation id)."""
        actor = self._new_table(session, msg.discipline, msg.config, msg.private, "create_table", table_id,
                                msg.creation_id, msg.seat)
        if actor is None:
            return
        if msg.seat is not None:
            actor.submit_internal(actor.seat_player, session, msg.seat, "create_table")
        else:
            actor.submit(session, I.Watch(table=actor.id))
        if msg.computer is not None:  # a computer opponent takes the other seat (server/computer.py)
            actor.submit_internal(seat_computer, actor, 1 if msg.seat is None else 1 - msg.seat, msg.computer)

    def table_closed(self, actor: TableActor) -> None:
        if self.tables.get(actor.id) is actor:
            del self.tables[actor.id]
        self.spectators_dirty.discard(actor.id)
        self.lobby_due.discard(actor.id)

    async def _quick_play(self, session: Session, msg: I.QuickPlay) -> None:
        try:
            name = canonical_name(msg.discipline)
            new_game(name, msg.config, 0)  # validate the configuration before queueing
        except ValueError as exc:
            session.error(ErrorCode.BAD_CONFIG, str(exc), config_field(exc), "quick_play")
            return
        digest = hashlib.sha1(json.dumps(msg.config, sort_keys=True).encode()).hexdigest()[:10]
        queue = f"{name}:{digest}"
        for _ in range(8):
            try:
                found = await self.store.quick_play(queue, self.settings.node, session.player, session.id,
                                                    max_age_s=3600.0, name=session.name)
            except RedisUnavailable:
                session.error(ErrorCode.UNAVAILABLE, "quick play is unavailable (storage unreachable)", None, "quick_play")
                return
            if found is None:
                session.quick = queue
                session.send(O.quick_play_waiting(name))
                return
            node, player, sid, other_name = found
            if node == self.settings.node:
                other = self.sessions.get(sid)
                if other is None or other.closing:
                    continue  # that player left; try the next one (or queue this one)
                other.quick = None
            else:  # waiting on another process: seated from here, its replies go there (server/cluster.py)
                other = self.cluster.remote_session(node, sid, player, other_name)
            actor = self._new_table(session, name, msg.config, False, "quick_play")
            if actor is None:
                return
            actor.submit_internal(actor.seat_player, other, 0, "quick_play")
            actor.submit_internal(actor.seat_player, session, 1, "quick_play")
            return

    async def _quick_cancel(self, session: Session) -> None:
        if session.quick:
            try:
                await self.store.quick_play_cancel(session.quick, session.player)
            except RedisUnavailable:
                session.error(ErrorCode.UNAVAILABLE, "storage unreachable", None, "quick_play_cancel")
                return
            session.quick = None

    # ----- lobby -----------------------------------------------------------------------------
    async def _send_lobby(self, session: Session) -> None:
        try:
            tables = await self.store.lobby_list()
            self.online = await self.store.online()  # all processes' players, as every process counts them
        except RedisUnavailable:
            session.error(ErrorCode.UNAVAILABLE, "the lobby is unavailable (storage unreachable)", None, "lobby_subscribe")
            return
        session.send(O.lobby(tables, self.online))

    def _on_lobby_message(self, data: bytes) -> None:
        """A lobby change published by any process: forward the same bytes to this process's lobby watchers."""
        targets = []
        for s in list(self.lobby_watchers):
            if s.overflowing():
                self.metrics.dropped.inc()
                s.drop_slow()
            elif not s.closing:
                targets.append(s.ws)
        if targets:
            broadcast(targets, data)
            self.metrics.messages_out.inc(len(targets))

    # ----- housekeeping ----------------------------------------------------------------------
    async def _housekeeping(self) -> None:
        """Twice a second: spectator counts; retry writes while Redis is back; every refresh_s: lobby and presence TTLs."""
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._stop.wait(), HOUSEKEEPING_S)
                break
            except asyncio.TimeoutError:
                pass
            try:
                await self._tick()
            except Exception:
                log.exception("housekeeping failed")

    async def _tick(self) -> None:
        for tid in list(self.spectators_dirty):
            self.spectators_dirty.discard(tid)
            actor = self.tables.get(tid)
            if actor is not None:
                actor.flush_spectators()
                if not actor.private:
                    actor.submit_internal(actor.publish_lobby)
        if self.lobby_due:
            now = time.monotonic()
            for tid in list(self.lobby_due):
                actor = self.tables.get(tid)
                due = actor.lobby_due_at() if actor is not None else None
                if due is None:
                    self.lobby_due.discard(tid)
                elif due <= now and actor.submit_internal(actor.publish_lobby):
                    self.lobby_due.discard(tid)
        if (self.dirty or self.orphan_writes) and await self.store.ping():
            for tid in list(self.dirty):
                actor = self.tables.get(tid)
                if actor is None:
                    self.dirty.discard(tid)
                else:
                    actor.submit_internal(actor.flush)
            while self.orphan_writes:
                try:
                    await self.store.write_table(self.orphan_writes[0])
                    self.orphan_writes.pop(0)
                except RedisUnavailable:
                    break
        await self._refresh_slice()

    async def _refresh_slice(self) -> None:
        """Re-set the expiry of a slice of this process's lobby entries and present players.

        Every ``refresh_s`` a round starts with the tables and players of that moment; each
        housekeeping tick refreshes its share of them (the whole round within ``refresh_s``), so
        that no tick holds the event loop for long (with thousands of tables, one pipeline of
        everything took tens of milliseconds of the loop every ``refresh_s``).
        """
        st = self.settings
        now = time.monotonic()
        if now - self._round_started >= st.refresh_s:
            self._round_started = now
            self._refresh_tables = [t.id for t in self.tables.values() if not t.private and not t.closed]
            self._refresh_players = [s.player for s in self.sessions.values() if s.player is not None]
            ticks = max(1, int(st.refresh_s / HOUSEKEEPING_S) - 1)  # done a tick early: a late tick loses nothing
            self._refresh_per_tick = (-(-len(self._refresh_tables) // ticks), -(-len(self._refresh_players) // ticks))
        nt, np_ = self._refresh_per_tick
        tids, self._refresh_tables = self._refresh_tables[:nt], self._refresh_tables[nt:]
        players, self._refresh_players = self._refresh_players[:np_], self._refresh_players[np_:]
        lobby = {}
        for tid in tids:
            t = self.tables.get(tid)
            if t is not None and not t.closed:
                lobby[tid] = msgpack.packb(t.lobby_entry(), use_bin_type=True)
        try:
            self.online = await self.store.refresh(lobby, players)
        except RedisUnavailable:
            pass

    # ----- HTTP ------------------------------------------------------------------------------
    def health(self) -> Dict[str, Any]:
        return {"status": "ok", "redis": bool(self.store and self.store.healthy), "tables": len(self.tables),
                "connections": len(self.sessions), "node": self.settings.node, "cluster": self.settings.cluster,
                "relayed": len(self.cluster.relays), "nodes": len(self.cluster.live_nodes)}

    def render_metrics(self) -> str:
        m = self.metrics
        m.connections.set(len(self.sessions))
        m.tables_active.set(len(self.tables))
        relayed_sp, relayed_pl, relayed = self.cluster.counts()
        # connections of this process: at its own tables (remote ones excluded) and at tables relayed from others
        m.spectators.set(relayed_sp + sum(1 for t in self.tables.values() for s, r in t.feed.members.items()
                                          if r == SPECTATOR and not s.remote))
        m.players_connected.set(relayed_pl + sum(1 for t in self.tables.values() for s in t.seats
                                                 if s is not None and s.session is not None and not getattr(s.session, "remote", False)))
        m.tables_relayed.set(relayed)
        m.lobby_subscribers.set(len(self.lobby_watchers))
        return m.render()

    async def export_record(self, table: str, game: Optional[int]) -> Tuple[int, Any]:
        """(HTTP status, JSON body) of a match record (see server/records.py)."""
        try:
            if game is None:
                game = await self.store.last_game(table)
            rec = None if game is None else await self.store.record(table, game)
        except RedisUnavailable:
            return 503, {"error": "storage unreachable"}
        if rec is None:
            return 404, {"error": f"no record for table {table!r}" + (f" game {game}" if game else "")}
        meta, entries = rec
        return 200, records.export(meta, entries)
