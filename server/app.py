"""The server: WebSocket endpoint and HTTP routes on one port, the table registry, the lobby, housekeeping.

:class:`Server` wires the pieces: sessions (server/session.py) read and validate, table actors
(server/table.py) own the games, the store (server/store.py) is the only Redis client. It runs
in-process for tests (``await Server(settings).start()``) and from ``billar serve``.
"""

from __future__ import annotations

import asyncio
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
from server.computer import seat_computer
from server.config import Settings
from server.embedded import start_embedded
from server.http import make_router
from server.metrics import Metrics
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
        self.stopping = False
        self.online = 0
        self.ws_server = None
        self._embedded: Any = None
        self._stop = asyncio.Event()
        self._tasks: List[asyncio.Task] = []
        self._bg: Set[asyncio.Task] = set()
        self._last_refresh = 0.0

    # ----- lifecycle ------------------------------------------------------------------------
    async def start(self) -> None:
        st = self.settings
        url = st.redis_url
        if url is None:
            url, self._embedded = await asyncio.to_thread(start_embedded, st.data_dir)
        self.redis_url = url
        self.store = Store(url, st.key_prefix, self.metrics, timeout_s=st.redis_timeout_s, lobby_ttl_s=st.lobby_ttl_s,
                           records_ttl_s=st.records_ttl_s, history_len=st.history_len)
        await self._restore()
        origins = None if st.origins is None else list(st.origins) + [None]
        self.ws_server = await serve(
            self._handler, st.host, st.port, process_request=make_router(self), compression=None,
            max_size=st.max_frame_bytes, origins=origins, ping_interval=st.ping_interval_s, ping_timeout=st.ping_timeout_s,
            close_timeout=st.close_timeout_s, server_header="billar", logger=logging.getLogger("billar.websockets"),
        )
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._housekeeping(), name="housekeeping"),
            loop.create_task(self.store.listen(("lobby",), self._on_lobby_message, self._stop), name="lobby-listener"),
        ]
        log.info("listening", extra={"host": st.host, "port": self.port, "redis": "embedded" if st.redis_url is None else "url",
                                     "tables_restored": len(self.tables)})

    @property
    def port(self) -> int:
        return self.ws_server.sockets[0].getsockname()[1]

    async def _restore(self) -> None:
        """Start an actor for every table persisted in Redis (a restart resumes every game)."""
        rows = None
        for attempt in range(20):
            try:
                rows = await self.store.load_tables()
                break
            except RedisUnavailable:
                await asyncio.sleep(0.5)
        if rows is None:
            raise RuntimeError("redis: unreachable at start; cannot restore tables")
        for state_bytes, stream in rows:
            try:
                state = msgpack.unpackb(state_bytes, raw=False, strict_map_key=False)
                actor = TableActor.from_state(self, state, stream)
            except Exception:
                log.exception("could not restore a table")
                continue
            self.tables[actor.id] = actor
            actor.start(restored=True)

    async def stop(self, reason: str = "restart") -> None:
        """Graceful shutdown: stop accepting, persist every table, tell clients (``shutdown``), close with 1012."""
        if self.stopping:
            return
        self.stopping = True
        self._stop.set()
        if self.ws_server is not None:
            self.ws_server.close(close_connections=False)
        for actor in list(self.tables.values()):
            await actor.stop()
        await self._drain_writes(deadline=time.monotonic() + 5.0)
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
            self._create_table(session, msg)
        else:
            actor = self.tables.get(msg.table)
            if actor is None or actor.closed:
                session.error(ErrorCode.NO_SUCH_TABLE, f"table: no table {msg.table!r} here", "table", msg.TYPE)
            elif not actor.submit(session, msg):
                session.error(ErrorCode.BUSY, "table: busy, try again", "table", msg.TYPE, table=msg.table)

    # ----- tables ----------------------------------------------------------------------------
    def _new_table(self, session: Session, discipline: str, config: Dict[str, Any], private: bool, ref: str) -> Optional[TableActor]:
        if self.stopping:
            session.error(ErrorCode.SHUTTING_DOWN, "the server is shutting down", None, ref)
            return None
        try:
            actor = TableActor.create(self, discipline, config, private)
        except ValueError as exc:
            session.error(ErrorCode.BAD_CONFIG, str(exc), config_field(exc), ref)
            return None
        self.tables[actor.id] = actor
        actor.start()
        return actor

    def _create_table(self, session: Session, msg: I.CreateTable) -> None:
        actor = self._new_table(session, msg.discipline, msg.config, msg.private, "create_table")
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
                                                    max_age_s=3600.0)
            except RedisUnavailable:
                session.error(ErrorCode.UNAVAILABLE, "quick play is unavailable (storage unreachable)", None, "quick_play")
                return
            if found is None:
                session.quick = queue
                session.send(O.quick_play_waiting(name))
                return
            other = self.sessions.get(found[1])
            if other is None or other.closing:
                continue  # that player left; try the next one (or queue this one)
            other.quick = None
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
        now = time.monotonic()
        if now - self._last_refresh >= self.settings.refresh_s:
            self._last_refresh = now
            lobby = {t.id: msgpack.packb(t.lobby_entry(), use_bin_type=True) for t in self.tables.values()
                     if not t.private and not t.closed}
            players = [s.player for s in self.sessions.values() if s.player is not None]
            try:
                self.online = await self.store.refresh(lobby, players)
            except RedisUnavailable:
                pass

    # ----- HTTP ------------------------------------------------------------------------------
    def health(self) -> Dict[str, Any]:
        return {"status": "ok", "redis": bool(self.store and self.store.healthy), "tables": len(self.tables),
                "connections": len(self.sessions), "node": self.settings.node}

    def render_metrics(self) -> str:
        m = self.metrics
        m.connections.set(len(self.sessions))
        m.tables_active.set(len(self.tables))
        m.spectators.set(sum(t.feed.spectator_count() for t in self.tables.values()))
        m.players_connected.set(sum(1 for t in self.tables.values() for s in t.seats if s is not None and s.session is not None))
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
