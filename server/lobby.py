"""The lobby and quick play: the public tables list, who is online, and pairing players who ask for a game.

**Lobby.** Every process writes the entries of its own public tables into Redis (with their
table writes, server/table/batch.py) and publishes each change on ``P lobby``; :class:`Lobby`
forwards those bytes to this process's lobby watchers (with the same backpressure as a table's
spectators) and answers ``lobby_subscribe`` with one page of the list (``offset``, ``limit``)
and the count of all public tables. Lobby entries and presence expire unless refreshed: each
housekeeping tick refreshes a slice of this process's tables and players, so the whole round
takes ``refresh_s`` and no tick holds the event loop for long.

**Quick play.** A player asking for a game of a discipline and configuration waits in that
queue (``P quick:<discipline>:<config digest>``) or is paired with the oldest waiting player of
another connection. A waiting entry never outlives its connection: it is removed when the
connection closes or the process drains, entries of a process whose heartbeat expired are
dropped by the queue's script, and before seating the server checks that the partner is still
there (a local connection that is not closing; a remote one whose process still listens).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from typing import Any, Dict, List, Optional, Set

import msgpack

from protocol import inbound as I
from protocol import outbound as O
from protocol.errors import ErrorCode
from rules.registry import canonical_name, new_game
from server.cluster.node import Node
from server.config import Settings
from server.conn import Connection
from server.metrics import Metrics
from server.registry import Registry, config_field
from server.store import Bus, RedisUnavailable, Store
from server.table.feed import broadcast_binary
from server.tasks import Background

log = logging.getLogger("billar.lobby")

HOUSEKEEPING_S = 0.5  # s between two refresh slices
QUICK_MAX_AGE_S = 3600.0  # a waiting entry older than this is never matched
QUICK_ATTEMPTS = 8  # entries tried (gone partners skipped) before this player waits
RATED_RANGE_BASE = 100.0  # rated quick play: ratings may differ this much at once ...
RATED_RANGE_PER_S = 10.0  # ... and this much more per second of waiting
REMATCH_S = 3.0  # s between two asks of a rated player waiting here


def queue_name(discipline: str, config: Dict[str, Any]) -> str:
    """The quick-play queue of a discipline and configuration (players are paired only within one queue)."""
    digest = hashlib.sha1(json.dumps(config, sort_keys=True).encode()).hexdigest()[:10]
    return f"{discipline}:{digest}"


class Lobby:
    """The lobby watchers of this process, presence, and quick play (``sessions``: local connections by id)."""

    def __init__(self, settings: Settings, metrics: Metrics, store: Store, bus: Bus, registry: Registry, node: Node,
                 sessions: Dict[str, Any], stop: Optional[asyncio.Event] = None):
        self.settings, self.metrics, self.store, self.registry, self.node = settings, metrics, store, registry, node
        self.sessions = sessions
        self.watchers: Set[Any] = set()
        self._waiting: Dict[Any, List[bytes]] = {}  # subscribers whose page is being read: the changes meanwhile
        self.online = 0
        self._bg = Background()
        self._task: Optional[asyncio.Task] = None
        self._stop = stop if stop is not None else asyncio.Event()  # set: housekeeping ends
        self._refresh_tables: List[str] = []  # this refresh round's tables and players still to refresh
        self._refresh_players: List[str] = []
        self._refresh_per_tick = (0, 0)
        self._round_started = float("-inf")
        self._rematched = float("-inf")
        bus.on(store.key("lobby"), self._on_message)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._housekeeping(), name="lobby-housekeeping")

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self._bg.wait(2.0)

    # ----- watchers --------------------------------------------------------------------------
    async def subscribe(self, conn: Any, msg: I.LobbySubscribe) -> None:
        """Send the page asked for, then every change: a change published while the page is read is held and
        sent right after it (``lobby`` always comes first; nothing in between is missed)."""
        self.watchers.discard(conn)
        self._waiting[conn] = []
        try:
            tables, total = await self.store.lobby_page(msg.offset, msg.limit)
            self.online = await self.store.online()  # all processes' players, as every process counts them
        except RedisUnavailable:
            self._waiting.pop(conn, None)
            conn.error(ErrorCode.UNAVAILABLE, "the lobby is unavailable (storage unreachable)", None, "lobby_subscribe")
            return
        held = self._waiting.pop(conn, None)
        if held is None or conn.closing:  # unsubscribed or gone meanwhile
            return
        conn.send(O.lobby(tables, self.online, total))
        for data in held:
            conn.send_bytes(data)
        self.watchers.add(conn)

    def unsubscribe(self, conn: Any) -> None:
        self.watchers.discard(conn)
        self._waiting.pop(conn, None)

    def _on_message(self, data: bytes) -> None:
        """A lobby change published by any process: forward the same bytes to this process's lobby watchers."""
        for held in self._waiting.values():
            held.append(data)
        targets = []
        for s in list(self.watchers):
            if s.overflowing():
                self.metrics.dropped.inc()
                s.drop_slow()
            elif not s.closing:
                targets.append(s.ws)
        if targets:
            broadcast_binary(targets, data)
            self.metrics.messages_out.inc(len(targets))

    # ----- presence --------------------------------------------------------------------------
    def greeted(self, conn: Any) -> None:
        self._bg.spawn(self._presence(conn.player, True))

    async def _presence(self, player: str, online: bool) -> None:
        try:
            await self.store.presence(player, online)
        except RedisUnavailable:
            pass

    async def gone(self, conn: Any) -> None:
        """A local connection closed: it stops watching, stops waiting and is no longer present."""
        self.unsubscribe(conn)
        if self.registry.stopping or conn.player is None:
            return
        try:
            if conn.quick:
                queue, conn.quick = conn.quick, None
                await self.store.quick_play_cancel(queue, conn.player)
            await self.store.presence(conn.player, False)
        except RedisUnavailable:
            pass

    async def drain(self) -> None:
        """Shutdown: nobody waiting at this process may be paired any more (their connections are closing)."""
        for conn in list(self.sessions.values()):
            if conn.quick:
                queue, conn.quick = conn.quick, None
                try:
                    await self.store.quick_play_cancel(queue, conn.player)
                except RedisUnavailable:
                    pass

    # ----- quick play --------------------------------------------------------------------------
    async def quick_play(self, conn: Any, msg: I.QuickPlay, since: Optional[float] = None) -> None:
        """Pair ``conn`` with the oldest fitting waiting player or make it wait (``quick_play_waiting``). A rated
        request needs a login; its player waits in the rated queue and is paired by rating (the allowed
        difference widening while both wait: the housekeeping asks again for every rated player waiting here)."""
        try:
            name = canonical_name(msg.discipline)
            new_game(name, msg.config, 0)  # validate the configuration before queueing
        except ValueError as exc:
            conn.error(ErrorCode.BAD_CONFIG, str(exc), config_field(exc), "quick_play")
            return
        if msg.rated and conn.account_id is None:
            conn.error(ErrorCode.LOGIN_REQUIRED, "rated quick play is for logged-in players: log in first", "rated",
                       "quick_play")
            return
        if self.registry.refuse_creation([conn], "quick_play", conn.address) is not None:
            return
        queue = queue_name(name, msg.config) + (":rated" if msg.rated else "")
        rating = await self.registry.rating(conn.account_id, name) if msg.rated else None
        if msg.rated and rating is None:
            conn.error(ErrorCode.UNAVAILABLE, "rated quick play is unavailable (ratings unreachable)", None, "quick_play")
            return
        since = since or time.time()
        for _ in range(QUICK_ATTEMPTS):
            try:
                found = await self.store.quick_play(queue, self.settings.node, conn.player, conn.id,
                                                    max_age_s=QUICK_MAX_AGE_S, name=conn.name, account=conn.account_id,
                                                    rating=rating, since=since, base=RATED_RANGE_BASE,
                                                    widen_per_s=RATED_RANGE_PER_S)
            except RedisUnavailable:
                conn.error(ErrorCode.UNAVAILABLE, "quick play is unavailable (storage unreachable)", None, "quick_play")
                return
            if found is None:
                if conn.quick != queue:
                    conn.send(O.quick_play_waiting(name))
                conn.quick = queue
                conn.quick_request = (msg, since)
                return
            node, player, sid, other_name, other_account = found
            other: Optional[Connection]
            if node == self.settings.node:
                other = self.sessions.get(sid)
                if other is None or other.closing or other.quick != queue:
                    continue  # that player left (or stopped waiting); try the next one
                other.quick = None
            elif await self.node.node_listens(node):  # waiting on another process: seated from here
                other = self.node.remote_connection(node, sid, player, other_name, other_account)
            else:
                continue  # its process is gone
            conn.quick = None
            actor = self.registry.create(conn, name, msg.config, False, "quick_play", address=conn.address,
                                         seated=[conn] if other.remote else [conn, other], rated=msg.rated)
            if actor is None:
                return
            actor.seat_player(other, 0, "quick_play")
            actor.seat_player(conn, 1, "quick_play")
            return

    async def rematch_waiting(self) -> None:
        """Ask again for every rated player waiting here: the range of ratings it accepts has grown."""
        for conn in list(self.sessions.values()):
            req = conn.quick_request
            if conn.quick and conn.quick.endswith(":rated") and req is not None and not conn.closing:
                msg, since = req
                try:
                    await self.quick_play(conn, msg, since)
                except Exception:
                    log.exception("rated quick play re-match failed")

    async def quick_cancel(self, conn: Any) -> None:
        if conn.quick:
            try:
                await self.store.quick_play_cancel(conn.quick, conn.player)
            except RedisUnavailable:
                conn.error(ErrorCode.UNAVAILABLE, "storage unreachable", None, "quick_play_cancel")
                return
            conn.quick = None
            conn.quick_request = None

    # ----- housekeeping ----------------------------------------------------------------------
    async def _housekeeping(self) -> None:
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._stop.wait(), HOUSEKEEPING_S)
                break
            except asyncio.TimeoutError:
                pass
            try:
                await self.refresh_slice()
                now = time.monotonic()
                if now - self._rematched >= REMATCH_S:
                    self._rematched = now
                    await self.rematch_waiting()
            except Exception:
                log.exception("lobby refresh failed")

    async def refresh_slice(self) -> None:
        """Re-set the expiry of a slice of this process's lobby entries and present players.

        Every ``refresh_s`` a round starts with the tables and players of that moment; each
        housekeeping tick refreshes its share of them (the whole round within ``refresh_s``).
        """
        st = self.settings
        now = time.monotonic()
        if now - self._round_started >= st.refresh_s:
            self._round_started = now
            self._refresh_tables = [t.id for t in self.registry.values() if not t.private and not t.closed]
            self._refresh_players = [s.player for s in self.sessions.values() if s.player is not None]
            ticks = max(1, int(st.refresh_s / HOUSEKEEPING_S) - 1)  # done a tick early: a late tick loses nothing
            self._refresh_per_tick = (-(-len(self._refresh_tables) // ticks), -(-len(self._refresh_players) // ticks))
        nt, np_ = self._refresh_per_tick
        tids, self._refresh_tables = self._refresh_tables[:nt], self._refresh_tables[nt:]
        players, self._refresh_players = self._refresh_players[:np_], self._refresh_players[np_:]
        lobby = {}
        for tid in tids:
            t = self.registry.get(tid)
            if t is not None and not t.private:
                lobby[tid] = msgpack.packb(t.lobby_entry(), use_bin_type=True)
        try:
            self.online = await self.store.refresh(lobby, players)
        except RedisUnavailable:
            pass
