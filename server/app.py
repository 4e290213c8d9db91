"""The server process: wires the parts together and runs them (``billar serve``). Nothing imports this module.

:class:`Server` builds, in order of dependence: the store and its bus (server/store/), the
cluster outbox, the table registry (server/registry.py), this process's node of the cluster
(server/cluster/node.py), the lobby and quick play (server/lobby.py), the hub that routes every
message (server/hub.py), and the WebSocket endpoint with the HTTP routes on one port
(server/session.py, server/http/). It runs in-process for tests (``await Server(settings).start()``)
and from ``billar serve`` (:func:`register`, loaded by server/cli.py).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import json
import logging
import signal
import sys
import time
from typing import Any, Dict, List, Optional, Set, Tuple

from websockets.asyncio.server import ServerConnection, serve

import protocol
from protocol import outbound as O
from protocol.errors import CloseCode
from server import logs, records
from server.api.handlers import PlayersApi
from server.api.openapi import document
from server.cluster.node import Node
from server.cluster.outbox import Outbox
from server.config import Settings
from server.db.engine import Database, database_url
from server.db.migrate import upgrade_database
from server.embedded import start_embedded
from server.finished import Recorder
from server.puzzles.service import Miner, seed_if_empty
from server.http.keepalive import Keepalive
from server.http.routes import Router
from server.http.transport import Connection as HttpConnection
from server.hub import Hub
from server.lobby import Lobby
from server.metrics import Metrics
from server.players.accounts import Accounts
from server.players.drills import record_drill
from server.players.queries import PROVISIONAL_RD, rating_of
from server.players.throttle import RedisLoginThrottle
from server.registry import Registry
from server.serve import add_arguments, settings_from_args, tune_gc, worker_argv
from server.session import Session
from server.store import Bus, RedisUnavailable, Store
from server.table.feed import SPECTATOR
from server.tournaments.director import Directors
from server.tv.channel import TvChannels

log = logging.getLogger("billar.server")


class Server:
    """One server process. ``start()`` binds and restores the persisted tables; ``stop()`` shuts down gracefully."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.metrics = Metrics()
        self.sessions: Dict[str, Session] = {}
        self.store: Optional[Store] = None
        self.ws_server = None
        self.keepalive: Optional[Keepalive] = None
        self.stopping = False
        self._embedded: Any = None
        self._stop = asyncio.Event()
        self._gc_started: Optional[float] = None

    # ----- wiring ----------------------------------------------------------------------------
    def _wire(self, redis_url: str) -> None:
        st, m = self.settings, self.metrics
        self.store = Store(redis_url, st.key_prefix, m, timeout_s=st.redis_timeout_s, lobby_ttl_s=st.lobby_ttl_s,
                           records_ttl_s=st.records_ttl_s, history_len=st.history_len)
        self.bus = Bus(self.store)
        self.outbox = Outbox(self.store)
        self.registry = Registry(st, m, self.store, self.outbox)
        self.node = Node(st, m, self.store, self.bus, self.outbox, self.registry, self.sessions)
        self.lobby = Lobby(st, m, self.store, self.bus, self.registry, self.node, self.sessions, self._stop)
        self.hub = Hub(st, m, self.registry, self.node, self.lobby, self.sessions)
        self.db = Database(database_url(st.data_dir, {"DATABASE_URL": st.database_url or ""}), schema=st.database_schema)
        self.accounts = Accounts(self.db, throttle=RedisLoginThrottle(self.store))
        self.tv = TvChannels(st, self.store)
        self.api = PlayersApi(self.db, self.accounts, origins=st.origins or (), live=self.tv)
        self.hub.accounts = self.api.account_for_cookie
        self.hub.name_registered = self.accounts.is_registered
        self.recorder = Recorder(self.store, self.db, self.registry.announce_rating)
        self.registry.on_finished = self.recorder.soon
        self.registry.on_drill = self._drill_result
        self.miner = Miner(self.db, enabled=st.puzzle_mining)
        self.recorder.on_recorded = self.miner.submit
        self.registry.rating_source = self._rating
        openapi = json.dumps(document(self.api.routes), separators=(",", ":")).encode()
        self.router = Router(st, m, self.health, self.render_metrics, self.export_record, self.api.handle, openapi)
        self.node.register_channels()
        self.directors = Directors(self.db, self.store, self.registry, st.node, lease_ttl_s=max(3.0, st.lease_ttl_s))
        self.bus.on(self.store.key("tournament"), self._tournament_notice)

    def _tournament_notice(self, data: bytes) -> None:
        """A director's message for a player (``<account>|<encoded message>``): to their connections here."""
        head, _, msg = data.partition(b"|")
        try:
            account = int(head)
        except ValueError:
            return
        for s in list(self.sessions.values()):
            if s.account_id == account and not s.closing:
                s.send_bytes(msg)

    def _drill_result(self, account: int, drill: str, achieved: bool) -> None:
        """A logged-in player's stroke at a drill: counted in their record in the background (server/players/drills.py);
        with the database away it is not counted (logged), and the table goes on."""
        async def write() -> None:
            try:
                await record_drill(self.db, account, drill, achieved, dt.datetime.now(dt.timezone.utc))
            except Exception:
                log.warning("drill stroke not counted: database unavailable", extra={"account": account, "drill": drill})
        self.registry.background(write())

    async def _rating(self, account: int, discipline: str) -> Tuple[float, bool]:
        """A seated or queued player's live rating in ``discipline`` and whether it is provisional (the "?")."""
        r = await rating_of(self.db, account, discipline)
        return r.rating, r.rd >= PROVISIONAL_RD

    @property
    def tables(self) -> Dict[str, Any]:
        """The table actors of this process by id."""
        return self.registry.tables

    @property
    def dirty(self) -> Set[str]:
        """Tables whose writes wait for Redis."""
        return self.registry.pending_tables()

    # ----- lifecycle ------------------------------------------------------------------------
    async def start(self) -> None:
        st = self.settings
        url = st.redis_url
        if url is None:
            url, self._embedded = await asyncio.to_thread(start_embedded, st.data_dir)
        self.redis_url = url
        self._wire(url)
        await upgrade_database(self.db)  # a fresh database, or one of an older release: migrated first (schema made)
        await seed_if_empty(self.db)  # a fresh server has puzzles (server/puzzles/seed.json)
        await self.bus.start()
        self.outbox.start()
        await self.node.start()  # adopts every persisted table nobody holds: a restart resumes them
        origins = None if st.origins is None else list(st.origins) + [None]
        self.ws_server = await serve(
            self._handler, st.host, st.port, process_request=self.router.route, compression=None,
            reuse_port=st.reuse_port or None, create_connection=HttpConnection,
            max_size=st.max_frame_bytes, origins=origins, ping_interval=None, ping_timeout=None,
            close_timeout=st.close_timeout_s, server_header="billar", logger=logging.getLogger("billar.websockets"),
        )
        if st.ping_interval_s is not None:  # one sweep pings the silent connections (server/http/keepalive.py)
            # every connection websockets holds (a copy of its set; check() skips those not open)
            self.keepalive = Keepalive(st.ping_interval_s, st.ping_timeout_s, lambda: self.ws_server.all_connections,
                                       self.metrics.keepalive)
            self.keepalive.start()
        gc.callbacks.append(self._on_gc)
        self.lobby.start()
        self.tv.start()
        await self.recorder.import_once()
        self.recorder.start()
        self.directors.start()
        log.info("listening", extra={"host": st.host, "port": self.port, "redis": "embedded" if st.redis_url is None else "url",
                                     "tables_restored": len(self.registry)})

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
        """Graceful shutdown: stop accepting, nobody waits in quick play any more, persist every table, hand the
        tables over (their leases are released and, in a cluster, adopted by the other processes before this one
        lets its clients go), tell clients (``shutdown``), close with 1012."""
        if self.stopping:
            return
        self.stopping = True
        self._stop.set()
        if self.store is None:  # never started
            return
        self.registry.stopping = True
        if self.ws_server is not None:
            self.ws_server.close(close_connections=False)
        if self.keepalive is not None:
            await self.keepalive.stop()
        await self.lobby.drain()
        await self.tv.stop()  # another process chooses the featured tables from now on
        await self.directors.stop()  # another process directs the tournaments from now on
        await self.node.leave()
        actors = self.registry.values()
        for actor in actors:
            await actor.stop()
        await self._drain_writes(deadline=time.monotonic() + 5.0)
        released = [a.id for a in actors if not a.lost and await self.node.hand_over(a)]
        if released and self.settings.cluster:
            adopted = await self.node.wait_adopted(released, self.settings.drain_timeout_s)
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
        await self.lobby.stop()
        await self.recorder.stop()
        await self.miner.stop()
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        await self.node.stop()
        await self.outbox.stop()
        await self.bus.stop()
        await self.registry.wait(2.0)
        await self.store.close()
        await self.db.close()
        log.info("stopped", extra={"reason": reason})

    async def _drain_writes(self, deadline: float) -> None:
        """At shutdown, keep trying the writes Redis refused until ``deadline`` (monotonic s): no stroke is dropped
        by a restart that happens while Redis is briefly away."""
        actors = [t for t in self.registry.values() if t.pending is not None]
        while time.monotonic() < deadline:
            still = []
            for t in actors:
                try:
                    if not await t.persister.flush():
                        still.append(t)
                except Exception:
                    pass  # lost or fenced: not ours to write
            actors = still
            if not actors and await self.registry.write_orphans():
                return
            await asyncio.sleep(0.2)
        if actors or self.registry.orphan_writes:
            log.error("writes lost at shutdown: Redis unreachable",
                      extra={"tables": len(actors) + len(self.registry.orphan_writes)})

    # ----- connections -----------------------------------------------------------------------
    async def _handler(self, ws: ServerConnection) -> None:
        session = Session(self.settings, self.metrics, self.hub, ws)
        self.sessions[session.id] = session
        try:
            await session.run()
        finally:
            del self.sessions[session.id]
            for task in session.behind.values():
                task.cancel()
            await self.hub.disconnected(session)

    # ----- HTTP ------------------------------------------------------------------------------
    def health(self) -> Dict[str, Any]:
        return {"status": "ok", "redis": bool(self.store and self.store.healthy), "tables": len(self.registry),
                "connections": len(self.sessions), "node": self.settings.node, "cluster": self.settings.cluster,
                "relayed": len(self.node.relays), "nodes": len(self.node.live_nodes)}

    def render_metrics(self) -> str:
        m = self.metrics
        m.connections.set(len(self.sessions))
        m.tables_active.set(len(self.registry))
        relayed_sp, relayed_pl, relayed = self.node.counts()
        # connections of this process: at its own tables (remote ones excluded) and at tables relayed from others
        tables = self.registry.values()
        m.spectators.set(relayed_sp + sum(1 for t in tables for s, r in t.feed.members.items()
                                          if r == SPECTATOR and not s.remote))
        m.players_connected.set(relayed_pl + sum(1 for t in tables for s in t.seats
                                                 if s is not None and s.session is not None and not s.session.remote
                                                 and not s.session.computer))
        m.tables_relayed.set(relayed)
        m.lobby_subscribers.set(len(self.lobby.watchers))
        return m.render()

    async def export_record(self, table: str, game: Optional[int]) -> Tuple[int, Any]:
        """(HTTP status, JSON body) of a match record (see server/records.py)."""
        return await records.fetch(self.store, table, game)


# ----- ``billar serve`` --------------------------------------------------------------------------
def register(subparsers) -> None:
    p = subparsers.add_parser("serve", help="run the game server (WebSocket /ws, browser client, /healthz, /metrics)")
    add_arguments(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    logs.setup(settings.log_level)
    if args.workers < 1 or args.workers > 256:
        raise SystemExit(f"billar serve: --workers must be in [1, 256], got {args.workers}")
    if args.workers > 1:
        from server.workers import Supervisor

        return Supervisor(settings, args.workers, worker_argv(args)).run()
    return asyncio.run(run(settings))


async def run(settings: Settings) -> int:
    server = Server(settings)
    # the signals first: a SIGTERM while the server starts (migrations, the puzzles' seed; a --workers parent
    # stopping a worker it has just restarted) waits for the start and drains, instead of killing the process
    # with the default action (exit status -15, which the parent reported as a failed stop)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await server.start()
    except OSError as exc:  # the port is taken, the address is not this machine's, ...
        print(f"billar: cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}", file=sys.stderr, flush=True)
        await server.stop("shutdown")
        return 1
    gc_policy = tune_gc(settings.gc_full_growth)
    print(f"billar serving on http://{settings.host}:{server.port} (WebSocket /ws)", flush=True)
    await stop.wait()
    gc_policy.uninstall()
    await server.stop("restart")
    return 0
