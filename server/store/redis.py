"""The Redis store: every Redis command of the server (lobby, presence, quick play, table state, records, leases).

Subscriptions go through the one pub/sub connection of server/store/bus.py; the Lua scripts are in
server/store/scripts.py.

Key layout (``P`` = the configured key prefix, e.g. ``billar:``)::

    P tables                      set     ids of the tables to restore on start
    P table:<id>                  string  table state (msgpack; server/table/state.py)
    P stream:<id>                 zset    recent stream messages, score = version (gap replay after restart)
    P lobby                       zset    public table id -> expiry time (s)
    P lobby:<id>                  string  lobby entry (msgpack map), with an expiry
    P presence                    zset    player id -> expiry time (s)
    P record:<id>:<game>          hash    stroke index -> stroke record (msgpack)
    P record:<id>:<game>:meta     string  discipline, config, seed, players, result (msgpack)
    P record:<id>:last            string  the highest game number with a record at table <id>
    P quick:<queue>               list    players waiting for quick play ("<ts>|<node>|<player>|<session>|<account>|<rating>|<name>")
    P lease:<id>                  string  "<node>|<fence>": the process that owns table <id> (expires, PX)
    P fence:<id>                  string  fencing counter of table <id>, +1 at every adoption or release
    P leases                      zset    table id -> lease expiry (Redis ms); 0 = released, adopt now
    P nodes                       zset    server process (node) -> heartbeat expiry (Redis ms)
    P create:<creation id>        string  the table a ``create_table`` with that creation id made (expiry)
    P window:<name>               zset    a sliding window of events (failed logins per account, per device, per address)
    P secret:<name>               string  a key the processes share, made once (``secret:device-cookie``: the HMAC key of the
                                          device cookies, server/players/throttle.py), no expiry
    P finished                    set     "<table>:<game>" of finished games not yet in the database
    P tv:lease:<channel>          string  the node choosing TV channel <channel>'s featured table (expires, PX)
    P tv:<channel>                string  TV channel <channel>'s featured table (JSON: server/tv/choice.py Featured)
    P tour:lease:<id>             string  the node directing tournament <id> (expires, PX; server/tournaments/director.py)
    channel P tournament          tournament notices for players (``tournament_game``), already encoded, with the account
    channel P lobby               lobby_update / lobby_remove messages, already encoded for clients
    channel P stream:<id>         every stream message of table <id>, framed by :func:`frame_stream`
    channel P node:<node>         envelopes for one server process (server/cluster/)
    channel P cluster             ownership notices: a table adopted or released (server/cluster/)

Every write of a stroke goes out in ONE round trip (:meth:`Store.write_table`): a MULTI/EXEC
pipeline, or, for a table owned under a lease (every table actor's writes), one Lua script that
first checks the lease (the fencing token) and refuses the whole write with :class:`Fenced` when
another process holds the table. Writes are idempotent (SET, HSET by index, ZADD by version), so a batch whose reply was lost can be
sent again. When Redis fails, :class:`RedisUnavailable` is raised, ``billar_redis_errors_total``
counts it and :attr:`Store.healthy` turns False until a command succeeds again; callers keep
their writes and retry (the table actors do: server/table/batch.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

import hiredis
import msgpack
import redis.asyncio as aioredis
from redis.asyncio.connection import Connection, UnixDomainSocketConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

from server.metrics import Metrics
from server.store.writer import WriteConnection
from server.store.scripts import (ACQUIRE, CLAIM_CREATION, FENCED_WRITE, HEARTBEAT, ORPHANS, QUICK_PLAY, REFRESH_LOBBY,
                                  RELEASE, RENEW, TV_LEASES, TV_RELEASE, TV_WRITE)

log = logging.getLogger("billar.store")


HEALTH_PING_S = 0.5  # s between pings while Redis is away and a writer waits for it


class RedisUnavailable(Exception):
    """A Redis command failed (connection refused or lost, timeout, server error)."""


class Fenced(Exception):
    """A fenced write was refused: the table's lease belongs to another process (or to a later adoption)."""


STREAM_FRAME, UNVERSIONED_FRAME = b"S", b"U"


def frame_stream(v: Optional[int], data: bytes) -> bytes:
    """The payload published on ``P stream:<id>``: ``b"S"`` + version (8 bytes, big-endian) + message bytes
    for a stream message, ``b"U"`` + message bytes for an unversioned one (a spectator count)."""
    if v is None:
        return UNVERSIONED_FRAME + data
    return STREAM_FRAME + v.to_bytes(8, "big") + data


def unframe_stream(payload: bytes) -> Tuple[Optional[int], bytes]:
    """(version or None, message bytes) of a ``P stream:<id>`` payload. Raises ``ValueError`` if malformed."""
    if payload[:1] == STREAM_FRAME and len(payload) > 9:
        return int.from_bytes(payload[1:9], "big"), payload[9:]
    if payload[:1] == UNVERSIONED_FRAME:
        return None, payload[1:]
    raise ValueError("not a stream frame")


@dataclass
class TableWrite:
    """What one table has to write: merged while Redis is down, sent as one transaction.

    ``state``: the table state (None: nothing new; with ``closed`` the table is deleted);
    ``records``: (game, index, stroke record); ``meta``: (game, record meta); ``stream``:
    (version, message bytes); ``lobby``: lobby entry bytes (public tables) or None;
    ``lobby_gone``: remove the lobby entry; ``publish_lobby``: the encoded lobby message for
    subscribers (only the latest one matters).
    """

    table: str
    state: Optional[bytes] = None
    closed: bool = False
    records: List[Tuple[int, int, bytes]] = field(default_factory=list)
    meta: Dict[int, bytes] = field(default_factory=dict)
    stream: List[Tuple[int, bytes]] = field(default_factory=list)
    lobby: Optional[bytes] = None
    lobby_gone: bool = False
    publish_lobby: Optional[bytes] = None
    lease: Optional[str] = None  # "<node>|<fence>": write only while this lease holds (None: unfenced)
    finished: List[str] = field(default_factory=list)  # "<table>:<game>" of games that ended: to the database

    def merge(self, later: "TableWrite", history_len: int) -> None:
        """Fold a later write into this one (self keeps the older records and stream entries)."""
        if later.state is not None or later.closed:
            self.state, self.closed = later.state, later.closed
        self.records += later.records
        self.meta.update(later.meta)
        self.stream = (self.stream + later.stream)[-history_len:]
        if later.lobby is not None or later.lobby_gone:
            self.lobby, self.lobby_gone = later.lobby, later.lobby_gone
        if later.publish_lobby is not None:
            self.publish_lobby = later.publish_lobby
        if later.lease is not None:
            self.lease = later.lease
        self.finished += [f for f in later.finished if f not in self.finished]


class _HiredisPacking:
    """Commands packed by hiredis (C) instead of redis-py's asyncio packer (Python, about 6 times slower for a
    table write of some 35 arguments): the same bytes on the wire (floats aside: hiredis writes them with 17
    significant digits). Mixed into the pool's connection class."""

    def pack_command(self, *args: Any) -> List[bytes]:
        if isinstance(args[0], str):  # "SCRIPT LOAD" and the like: the words are separate arguments
            args = tuple(args[0].encode().split()) + args[1:]
        elif b" " in args[0]:
            args = tuple(args[0].split()) + args[1:]
        return [hiredis.pack_command(args)]


class _TcpConnection(_HiredisPacking, Connection):
    pass


class _UnixConnection(_HiredisPacking, UnixDomainSocketConnection):
    pass


class Store:
    """Async Redis access with the key layout of the module docstring.

    ``url``: ``redis://host:port/db`` or ``unix:///path/to/socket``; ``prefix``: key prefix;
    ``timeout_s``: socket and connect timeout of every command (and the longest wait for a free
    connection of the pool); ``max_connections``: the pool's size.
    """

    def __init__(self, url: str, prefix: str, metrics: Metrics, *, timeout_s: float = 2.0, lobby_ttl_s: float = 30.0,
                 records_ttl_s: int = 30 * 24 * 3600, history_len: int = 64, max_connections: int = 64):
        self.url, self.prefix, self.metrics = url, prefix, metrics
        self.lobby_ttl_s, self.records_ttl_s, self.history_len = lobby_ttl_s, records_ttl_s, history_len
        # a blocking pool: a burst of table writes (hundreds of actors at once) waits for a free connection
        # instead of failing with "too many connections"
        # a command that meets a pooled connection Redis has closed (a restart, a cut) is sent once more on a new
        # connection instead of failing: every write of the store is idempotent (see the module docstring)
        pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=timeout_s,
                                                        socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                                                        retry=Retry(NoBackoff(), 1), retry_on_error=[RedisConnectionError])
        # hiredis packing for plain TCP and unix sockets (other kinds, e.g. TLS, keep redis-py's classes)
        pool.connection_class = {Connection: _TcpConnection, UnixDomainSocketConnection: _UnixConnection}.get(
            pool.connection_class, pool.connection_class)
        self.redis = aioredis.Redis.from_pool(pool)  # the client owns the pool: aclose() disconnects it
        self.healthy = True
        self._health_waiters: List[Callable[[], Any]] = []
        self._pinger: Optional[asyncio.Task] = None
        self._quick = self.redis.register_script(QUICK_PLAY)
        self._fenced_write = self.redis.register_script(FENCED_WRITE)
        self._acquire = self.redis.register_script(ACQUIRE)
        self._renew = self.redis.register_script(RENEW)
        self._release = self.redis.register_script(RELEASE)
        self._orphans = self.redis.register_script(ORPHANS)
        self._heartbeat = self.redis.register_script(HEARTBEAT)
        self._claim_creation = self.redis.register_script(CLAIM_CREATION)
        self._refresh_lobby = self.redis.register_script(REFRESH_LOBBY)
        self._tv_leases = self.redis.register_script(TV_LEASES)
        self._tv_write = self.redis.register_script(TV_WRITE)
        self._tv_release = self.redis.register_script(TV_RELEASE)
        self.lease_ttl_ms = 4000  # set by the cluster (Settings.lease_ttl_s)
        self.max_batch = 256  # fenced table writes sent in one pipeline at most
        self._writes: List[Tuple[List[str], List[Any], asyncio.Future]] = []  # fenced writes of this loop iteration
        self._writes_scheduled = False
        self._batches: set = set()  # connection and script-reload tasks in flight (referenced until done)
        self._writer = WriteConnection(url, timeout_s)  # the fenced table writes' own connection
        self.write_batches = 0  # socket writes of fenced table writes so far (a batch each)
        self._noscript: List[Tuple[List[str], List[Any], asyncio.Future]] = []  # refused NOSCRIPT, to send again

    def key(self, *parts: Any) -> str:
        return self.prefix + ":".join(str(p) for p in parts)

    async def close(self) -> None:
        self._writer.close()
        try:
            await self.redis.aclose()
        except (RedisError, OSError):
            pass

    async def _call(self, fn: Callable[[], Awaitable[Any]]) -> Any:
        try:
            out = await fn()
        except ResponseError as exc:
            if str(exc).startswith("FENCED"):
                self._available()  # Redis answered
                raise Fenced(str(exc)) from None
            self.metrics.redis_errors.inc()
            log.warning("redis error", extra={"error": repr(exc)})
            raise RedisUnavailable(repr(exc)) from None
        except (RedisError, OSError, asyncio.TimeoutError) as exc:
            self._unavailable(exc)
            raise RedisUnavailable(repr(exc)) from None
        self._available()
        return out

    def when_healthy(self, callback: Callable[[], Any]) -> None:
        """Call ``callback()`` once Redis answers again (soon, when it answers now). While somebody waits and
        Redis is away, one background task pings it every :data:`HEALTH_PING_S`."""
        self._health_waiters.append(callback)
        if self._pinger is None or self._pinger.done():
            self._pinger = asyncio.get_running_loop().create_task(self._ping_until_healthy(), name="redis-health")

    async def _ping_until_healthy(self) -> None:
        while self._health_waiters:
            await asyncio.sleep(HEALTH_PING_S)
            if await self.ping():
                self._run_healthy()

    def _run_healthy(self) -> None:
        waiters, self._health_waiters = self._health_waiters, []
        for cb in waiters:
            try:
                cb()
            except Exception:
                log.exception("health callback failed")

    async def ping(self) -> bool:
        try:
            await self._call(self.redis.ping)
            return True
        except RedisUnavailable:
            return False

    # ----- tables --------------------------------------------------------------------------
    def _table_commands(self, w: TableWrite) -> List[Tuple[Any, ...]]:
        """The commands of one table write, in order (the lease, if any, is handled by the caller)."""
        tid = w.table
        cmds: List[Tuple[Any, ...]] = []
        if w.closed:
            cmds.append(("DEL", self.key("table", tid), self.key("stream", tid)))
            cmds.append(("SREM", self.key("tables"), tid))
        elif w.state is not None:
            cmds.append(("SET", self.key("table", tid), w.state))
            cmds.append(("SADD", self.key("tables"), tid))
        for game, idx, rec in w.records:
            rk = self.key("record", tid, game)
            cmds.append(("HSET", rk, str(idx), rec))
            cmds.append(("EXPIRE", rk, self.records_ttl_s))
        for game, meta in w.meta.items():
            cmds.append(("SET", self.key("record", tid, game, "meta"), meta, "EX", self.records_ttl_s))
        if w.meta:  # the table's latest game with a record, found without scanning the keyspace
            cmds.append(("SET", self.key("record", tid, "last"), max(w.meta), "EX", self.records_ttl_s))
        if w.stream and not w.closed:
            sk = self.key("stream", tid)
            zadd: List[Any] = ["ZADD", sk]
            for v, data in w.stream:
                zadd += [v, data]
            cmds.append(tuple(zadd))
            cmds.append(("ZREMRANGEBYSCORE", sk, "-inf", w.stream[-1][0] - self.history_len))
            for v, data in w.stream:
                cmds.append(("PUBLISH", self.key("stream", tid), frame_stream(v, data)))
        if w.lobby_gone:
            cmds.append(("DEL", self.key("lobby", tid)))
            cmds.append(("ZREM", self.key("lobby"), tid))
        elif w.lobby is not None:
            cmds.append(("SET", self.key("lobby", tid), w.lobby, "EX", max(1, int(self.lobby_ttl_s))))
            cmds.append(("ZADD", self.key("lobby"), time.time() + self.lobby_ttl_s, tid))
        if w.publish_lobby is not None:
            cmds.append(("PUBLISH", self.key("lobby"), w.publish_lobby))
        if w.finished:
            cmds.append(("SADD", self.key("finished"), *w.finished))
        return cmds

    async def write_table(self, w: TableWrite) -> None:
        """Send one table's writes in a single round trip. Raises :class:`RedisUnavailable`, and
        :class:`Fenced` (nothing written) when ``w.lease`` is set and no longer holds.

        Group commit: the fenced writes (every table actor's) made during one iteration of the
        event loop go out together in ONE socket write of fenced scripts (at most :attr:`max_batch`)
        on the write connection (server/store/writer.py), so a thousand tables cost a few socket
        writes per iteration instead of one each. Each script still checks its own table's lease and
        each caller gets its own outcome; a caller returns only when its write is in Redis.
        """
        cmds = self._table_commands(w)
        if w.lease is None:
            async def run():
                p = self.redis.pipeline(transaction=True)
                for c in cmds:
                    p.execute_command(*c)
                return await p.execute()

            await self._call(run)
            return
        tid = w.table
        node = w.lease.rsplit("|", 1)[0]
        args: List[Any] = [w.lease, node, self.lease_ttl_ms, tid, "c" if w.closed else "w"]
        for c in cmds:
            args.append(len(c))
            args.extend(c)
        keys = [self.key("lease", tid), self.key("fence", tid), self.key("leases")]
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._writes.append((keys, args, fut))
        if not self._writes_scheduled:
            self._writes_scheduled = True
            loop.call_soon(self._send_writes)  # after every callback already ready in this iteration
        await fut

    def _send_writes(self) -> None:
        """Send this iteration's fenced writes on the write connection (server/store/writer.py), at most
        :attr:`max_batch` a socket write; each reply settles its caller's future (:meth:`_settle`)."""
        self._writes_scheduled = False
        writes, self._writes = self._writes, []
        if not writes:
            return
        if not self._writer.connected:
            self._bg_connect(writes)
            return
        sha = self._fenced_write.sha
        for i in range(0, len(writes), self.max_batch):
            chunk = writes[i:i + self.max_batch]
            packed = [hiredis.pack_command(("EVALSHA", sha, len(keys), *keys, *args)) for keys, args, _ in chunk]
            self._writer.send(packed, [self._reply_handler(w) for w in chunk])
        self.write_batches += -(-len(writes) // self.max_batch)

    def _bg_connect(self, writes: List[Tuple[List[str], List[Any], asyncio.Future]]) -> None:
        """Open the write connection, then send ``writes`` (or fail them: Redis is unreachable)."""

        async def run():
            try:
                await self._writer.connect()
            except (ConnectionError, OSError) as exc:
                self._unavailable(exc)
                for _, _, fut in writes:
                    if not fut.done():
                        fut.set_exception(RedisUnavailable(repr(exc)))
                return
            self._writes[:0] = writes
            self._send_writes()

        task = asyncio.get_running_loop().create_task(run())
        self._batches.add(task)
        task.add_done_callback(self._batches.discard)

    def _reply_handler(self, write: Tuple[List[str], List[Any], asyncio.Future], attempt: int = 0):
        keys, args, fut = write

        def settle(r: Any) -> None:
            if fut.done():
                return
            if isinstance(r, hiredis.ReplyError):
                msg = str(r)
                if msg.startswith("FENCED"):
                    self._available()
                    fut.set_exception(Fenced(msg))
                elif msg.startswith("NOSCRIPT") and attempt == 0:  # Redis restarted or flushed: load, send again
                    self._available()
                    self._reload_and_resend(write)
                else:
                    self.metrics.redis_errors.inc()
                    log.warning("redis error", extra={"error": msg})
                    fut.set_exception(RedisUnavailable(msg))
            elif isinstance(r, Exception):  # the connection failed
                self._unavailable(r)
                fut.set_exception(RedisUnavailable(repr(r)))
            else:
                self._available()
                fut.set_result(r)

        return settle

    def _reload_and_resend(self, write: Tuple[List[str], List[Any], asyncio.Future]) -> None:
        """Keep ``write`` (refused NOSCRIPT) for one SCRIPT LOAD and one resend of all the writes refused so."""
        self._noscript.append(write)
        if len(self._noscript) > 1:
            return

        async def run():
            try:
                await self.redis.script_load(self._fenced_write.script)
            except (RedisError, OSError, asyncio.TimeoutError):
                pass  # the second attempt fails the same way and reports it
            writes, self._noscript = self._noscript, []
            writes = [w for w in writes if not w[2].done()]
            if not writes:
                return
            if not self._writer.connected:
                for _, _, fut in writes:
                    fut.set_exception(RedisUnavailable("redis write connection lost"))
                return
            sha = self._fenced_write.sha
            packed = [hiredis.pack_command(("EVALSHA", sha, len(keys), *keys, *args)) for keys, args, _ in writes]
            self._writer.send(packed, [self._reply_handler(w, attempt=1) for w in writes])
            self.write_batches += 1

        task = asyncio.get_running_loop().create_task(run())
        self._batches.add(task)
        task.add_done_callback(self._batches.discard)

    def _unavailable(self, exc: BaseException) -> None:
        self.metrics.redis_errors.inc()
        if self.healthy:
            log.warning("redis unavailable", extra={"error": repr(exc)})
        self.healthy = False

    def _available(self) -> None:
        if not self.healthy:
            log.info("redis available again")
            self.healthy = True
            self._run_healthy()

    async def load_tables(self) -> List[Tuple[bytes, List[Tuple[int, bytes]]]]:
        """Every stored table: (state bytes, its recent stream messages as (version, bytes) in version order)."""

        async def run():
            ids = await self.redis.smembers(self.key("tables"))
            out = []
            for tid in sorted(i.decode() if isinstance(i, bytes) else i for i in ids):
                state = await self.redis.get(self.key("table", tid))
                if state is None:
                    continue
                stream = await self.redis.zrange(self.key("stream", tid), 0, -1, withscores=True)
                out.append((state, [(int(v), data) for data, v in stream]))
            return out

        return await self._call(run)

    # ----- lobby and presence --------------------------------------------------------------
    async def lobby_list(self) -> List[Dict[str, Any]]:
        """Every live public table (entries whose expiry has not passed), oldest first."""
        return (await self.lobby_page(0, None))[0]

    async def lobby_page(self, offset: int, limit: Optional[int]) -> Tuple[List[Dict[str, Any]], int]:
        """(``limit`` live public tables from ``offset``, oldest first; how many there are in all)."""
        raw, total = await self.lobby_raw(offset, limit)
        return [msgpack.unpackb(r, raw=False) for _, r in raw], total

    async def lobby_raw(self, offset: int = 0, limit: Optional[int] = None) -> Tuple[List[Tuple[str, bytes]], int]:
        """As :meth:`lobby_page`, the entries as (table id, msgpack bytes) for a reader that decodes only the
        entries that changed since its last read (the TV chooser)."""

        async def run():
            zk = self.key("lobby")
            p = self.redis.pipeline(transaction=False)
            p.zremrangebyscore(zk, "-inf", time.time())
            p.zrange(zk, offset, -1 if limit is None else offset + limit - 1)
            p.zcard(zk)
            _, ids, total = await p.execute()
            if not ids:
                return [], int(total)
            tids = [i.decode() for i in ids]
            pre = self.key("lobby", "")  # key("lobby", t) for thousands of t
            raw = await self.redis.mget([pre + t for t in tids])
            return [(t, r) for t, r in zip(tids, raw) if r is not None], int(total)

        return await self._call(run)

    async def lobby_entries(self, tables: List[str]) -> Dict[str, Dict[str, Any]]:
        """The lobby entries of ``tables`` that exist (one MGET)."""
        if not tables:
            return {}
        raw = await self._call(lambda: self.redis.mget([self.key("lobby", t) for t in tables]))
        return {t: msgpack.unpackb(r, raw=False) for t, r in zip(tables, raw) if r is not None}

    # ----- TV (server/tv/) --------------------------------------------------------------------
    async def tv_leases(self, node: str, channels: List[str], ttl_ms: int) -> List[str]:
        """Take or extend the choosing leases of TV ``channels`` for ``node``; returns the channels it holds."""
        keys = [self.key("tv", "lease", c) for c in channels]
        res = await self._call(lambda: self._tv_leases(keys=keys, args=[node, ttl_ms]))
        return [channels[int(i) - 1] for i in res]

    async def tv_write(self, node: str, featured: Dict[str, bytes], ttl_s: int) -> int:
        """Store the featured value of each channel ``{channel: bytes}`` whose lease ``node`` still holds."""
        if not featured:
            return 0
        keys: List[str] = []
        for c in featured:
            keys += [self.key("tv", "lease", c), self.key("tv", c)]
        return int(await self._call(lambda: self._tv_write(keys=keys, args=[node, ttl_s, *featured.values()])))

    async def tv_release(self, node: str, channels: List[str]) -> None:
        """Give up the TV leases ``node`` holds (it is leaving: another process takes over at once)."""
        if channels:
            await self._call(lambda: self._tv_release(keys=[self.key("tv", "lease", c) for c in channels], args=[node]))

    # ----- tournaments (server/tournaments/director.py) ---------------------------------------
    async def tour_leases(self, node: str, tournaments: List[int], ttl_ms: int) -> List[int]:
        """Take or extend the directing leases of ``tournaments`` for ``node`` (the TV's lease script: a free lease
        is taken, one this node holds is extended); returns the tournaments it directs."""
        if not tournaments:
            return []
        keys = [self.key("tour", "lease", t) for t in tournaments]
        res = await self._call(lambda: self._tv_leases(keys=keys, args=[node, ttl_ms]))
        return [tournaments[int(i) - 1] for i in res]

    async def tour_release(self, node: str, tournaments: List[int]) -> None:
        """Give up the directing leases ``node`` holds (it is leaving, or the tournament is over)."""
        if tournaments:
            await self._call(lambda: self._tv_release(keys=[self.key("tour", "lease", t) for t in tournaments],
                                                      args=[node]))

    async def tour_director(self, tournament: int) -> Optional[str]:
        """The node directing ``tournament`` now, or None."""
        v = await self._call(lambda: self.redis.get(self.key("tour", "lease", tournament)))
        return None if v is None else v.decode()

    async def tour_notify(self, account: int, data: bytes) -> None:
        """Publish a message for the player ``account`` (on whichever process they are connected) on
        ``P tournament``: ``<account>|`` + the encoded message."""
        await self._call(lambda: self.redis.publish(self.key("tournament"), str(account).encode() + b"|" + data))

    async def tv_featured(self, channels: List[str]) -> Dict[str, bytes]:
        """The stored featured value of each of ``channels`` that has one."""
        raw = await self._call(lambda: self.redis.mget([self.key("tv", c) for c in channels]))
        return {c: r for c, r in zip(channels, raw) if r is not None}

    async def refresh(self, lobby: Dict[str, bytes], players: List[str]) -> int:
        """Re-set the expiry of lobby entries ``{table: entry}`` of this process and of present players; returns
        the online count. An entry is set again only if it was lost, and never for a table that has closed."""

        async def run():
            now = time.time()
            exp = now + self.lobby_ttl_s
            if lobby:
                args: List[Any] = [max(1, int(self.lobby_ttl_s)), exp]
                for tid, entry in lobby.items():
                    args += [tid, self.key("lobby", tid), entry]
                await self._refresh_lobby(keys=[self.key("tables"), self.key("lobby")], args=args)
            p = self.redis.pipeline(transaction=False)
            if players:
                p.zadd(self.key("presence"), {pl: exp for pl in players})
            p.zremrangebyscore(self.key("presence"), "-inf", now)
            p.zcount(self.key("presence"), now, "+inf")
            res = await p.execute()
            return int(res[-1])

        return await self._call(run)

    async def presence(self, player: str, online: bool) -> None:
        zk = self.key("presence")
        if online:
            await self._call(lambda: self.redis.zadd(zk, {player: time.time() + self.lobby_ttl_s}))
        else:
            await self._call(lambda: self.redis.zrem(zk, player))

    async def online(self) -> int:
        now = time.time()
        return int(await self._call(lambda: self.redis.zcount(self.key("presence"), now, "+inf")))

    # ----- quick play ----------------------------------------------------------------------
    async def quick_play(self, queue: str, node: str, player: str, session: str, max_age_s: float,
                         name: str = "", account: Optional[int] = None, rating: Optional[int] = None,
                         since: Optional[float] = None, base: float = 100.0,
                         widen_per_s: float = 10.0) -> Optional[Tuple[str, str, str, str, Optional[int]]]:
        """Pair with a waiting player of ``queue`` on a live server process, or queue this one.

        Returns (node, player, session, name, account) of the opponent found, or None when queued. Entries of
        processes whose heartbeat expired are never returned (they are dropped). With a ``rating`` (a rated
        queue) only a player whose rating differs by at most ``base + widen_per_s * wait`` is taken (``wait``:
        the longer of the two waits, this one's counted from ``since``).
        """
        now = time.time()
        entry = (f"{since or now:.3f}|{node}|{player}|{session}|{'' if account is None else account}|"
                 f"{'' if rating is None else rating}|{name}")
        keys = [self.key("quick", queue), self.key("nodes")]
        args = [entry, now, max_age_s, player, "" if rating is None else rating, base, widen_per_s]
        res = await self._call(lambda: self._quick(keys=keys, args=args))
        if not res:
            return None
        parts = (res.decode() if isinstance(res, bytes) else res).split("|", 6)
        acc = parts[4] if len(parts) > 4 else ""
        return parts[1], parts[2], parts[3], parts[6] if len(parts) > 6 else "", int(acc) if acc.isdigit() else None

    async def quick_play_cancel(self, discipline: str, player: str) -> None:
        async def run():
            qk = self.key("quick", discipline)
            for e in await self.redis.lrange(qk, 0, -1):
                if e.decode().split("|")[2] == player:
                    await self.redis.lrem(qk, 0, e)

        await self._call(run)

    # ----- leases and processes (server/cluster/) ------------------------------------------
    def lease_value(self, node: str, fence: int) -> str:
        return f"{node}|{fence}"

    async def acquire(self, table: str, node: str) -> Optional[str]:
        """Adopt persisted table ``table`` if nobody holds it: its new lease value, or None (held, or no such table)."""
        keys = [self.key("lease", table), self.key("fence", table), self.key("leases"), self.key("tables")]
        res = await self._call(lambda: self._acquire(keys=keys, args=[node, self.lease_ttl_ms, table]))
        return None if res is None else (res.decode() if isinstance(res, bytes) else res)

    async def renew(self, node: str, leases: Dict[str, str]) -> List[str]:
        """Extend the leases ``{table: lease value}`` of this process; returns the tables whose lease is lost."""
        lost: List[str] = []
        items = list(leases.items())
        for i in range(0, len(items), 200):  # a chunk holds Redis (and this event loop) for a millisecond or so
            chunk = items[i:i + 200]
            keys = ([self.key("leases")] + [self.key("lease", t) for t, _ in chunk] + [self.key("fence", t) for t, _ in chunk])
            args = [node, self.lease_ttl_ms] + [v for _, v in chunk] + [t for t, _ in chunk]
            res = await self._call(lambda: self._renew(keys=keys, args=args))
            lost += [r.decode() if isinstance(r, bytes) else r for r in res]
        return lost

    async def release(self, table: str, lease: str) -> bool:
        """Hand ``table`` over (its lease must still be ``lease``): peers may adopt it at once."""
        keys = [self.key("lease", table), self.key("fence", table), self.key("leases")]
        return bool(await self._call(lambda: self._release(keys=keys, args=[lease, table])))

    async def owner(self, table: str) -> Optional[str]:
        """The node holding ``table``'s lease, or None."""
        v = await self._call(lambda: self.redis.get(self.key("lease", table)))
        return None if v is None else v.decode().rsplit("|", 1)[0]

    async def table_exists(self, table: str) -> bool:
        return bool(await self._call(lambda: self.redis.sismember(self.key("tables"), table)))

    async def orphans(self, limit: int = 200, strays: bool = False) -> List[str]:
        """Tables whose lease has expired or was released (``strays``: first list persisted tables never leased)."""
        res = await self._call(lambda: self._orphans(keys=[self.key("leases"), self.key("tables")],
                                                      args=[limit, "1" if strays else "0"]))
        return [r.decode() if isinstance(r, bytes) else r for r in res]

    async def load_table(self, table: str) -> Optional[Tuple[bytes, List[Tuple[int, bytes]]]]:
        """(state bytes, recent stream messages as (version, bytes)) of one table, or None if it has no state."""

        async def run():
            p = self.redis.pipeline(transaction=False)
            p.get(self.key("table", table))
            p.zrange(self.key("stream", table), 0, -1, withscores=True)
            state, stream = await p.execute()
            return None if state is None else (state, [(int(v), data) for data, v in stream])

        return await self._call(run)

    async def stream_since(self, table: str, v: int) -> List[Tuple[int, bytes]]:
        """Persisted stream messages of ``table`` with version > ``v``, in order (the last ``history_len``)."""
        rows = await self._call(lambda: self.redis.zrangebyscore(self.key("stream", table), f"({v}", "+inf", withscores=True))
        return [(int(s), data) for data, s in rows]

    async def heartbeat(self, node: str, ttl_ms: int) -> List[str]:
        """Mark ``node`` alive for ``ttl_ms`` (0: leaving now; -1: no change); returns the live nodes."""
        res = await self._call(lambda: self._heartbeat(keys=[self.key("nodes")], args=[node, ttl_ms]))
        return [r.decode() if isinstance(r, bytes) else r for r in res]

    async def claim_creation(self, creation_id: str, table: str, ttl_s: int) -> Optional[str]:
        """Bind ``creation_id`` to the new ``table``; if it is bound already, return that table instead (no write)."""
        res = await self._call(lambda: self._claim_creation(keys=[self.key("create", creation_id)], args=[table, ttl_s]))
        return None if res is None else (res.decode() if isinstance(res, bytes) else res)

    async def forget_creation(self, creation_id: str, table: str) -> None:
        """Unbind ``creation_id`` if it still names ``table`` (that table was refused: nothing was made)."""
        key = self.key("create", creation_id)

        async def run():
            cur = await self.redis.get(key)
            if cur is not None and cur.decode() == table:
                await self.redis.delete(key)

        try:
            await self._call(run)
        except RedisUnavailable:
            pass  # it expires with creation_ttl_s; a retry meanwhile waits for the table and gets no_such_table

    async def publish(self, channel: str, data: bytes) -> int:
        """Publish ``data`` on channel ``channel`` (a full channel name); returns how many subscribers got it."""
        return int(await self._call(lambda: self.redis.publish(channel, data)))

    async def publish_quietly(self, channel: str, data: bytes) -> None:
        """:meth:`publish` for what may be lost when Redis is away (a spectator count): no exception."""
        try:
            await self.publish(channel, data)
        except RedisUnavailable:
            pass

    # ----- finished games on their way to the database (server/finished.py) ---------------------
    async def finished_games(self, limit: int = 100) -> List[str]:
        """Some "<table>:<game>" entries of finished games not yet recorded in the database."""
        res = await self._call(lambda: self.redis.srandmember(self.key("finished"), limit))
        return [r.decode() if isinstance(r, bytes) else r for r in res or ()]

    async def finished_recorded(self, entry: str) -> None:
        """The game of ``entry`` is in the database: it leaves the set."""
        await self._call(lambda: self.redis.srem(self.key("finished"), entry))

    async def add_finished(self, entries: List[str]) -> None:
        """Queue finished games for the database (the import of games that were only in Redis)."""
        if entries:
            await self._call(lambda: self.redis.sadd(self.key("finished"), *entries))

    async def flag(self, name: str) -> bool:
        """Set ``P flag:<name>`` (no expiry) unless it is set; True when this call set it."""
        return bool(await self._call(lambda: self.redis.set(self.key("flag", name), b"1", nx=True)))

    async def record_metas(self) -> List[Tuple[str, int]]:
        """(table, game) of every record meta in Redis, by SCAN: only for the one-time import of games recorded
        before the database existed (server/finished.py); never on a request's path."""

        async def run():
            out = []
            async for k in self.redis.scan_iter(match=self.key("record", "*", "*", "meta"), count=1000):
                parts = (k.decode() if isinstance(k, bytes) else k)[len(self.prefix):].split(":")
                if len(parts) == 4 and parts[2].isdigit():
                    out.append((parts[1], int(parts[2])))
            return out

        return await self._call(run)

    # ----- sliding windows (failed logins, server/players/throttle.py) ------------------------
    async def window_add(self, name: str, window_s: float) -> None:
        """Count one event now in window ``P window:<name>`` (events older than ``window_s`` drop out)."""
        key, now = self.key("window", name), time.time()

        async def run():
            p = self.redis.pipeline(transaction=True)
            p.zadd(key, {f"{now:.6f}:{id(p)}": now})
            p.zremrangebyscore(key, "-inf", now - window_s)
            p.expire(key, max(1, int(window_s) + 1))
            await p.execute()

        await self._call(run)

    async def window_count(self, name: str, window_s: float) -> int:
        """Events counted in window ``name`` within the last ``window_s`` seconds."""
        now = time.time()
        return int(await self._call(lambda: self.redis.zcount(self.key("window", name), now - window_s, "+inf")))

    async def window_clear(self, name: str) -> None:
        await self._call(lambda: self.redis.delete(self.key("window", name)))

    async def shared_secret(self, name: str, make: Callable[[], str]) -> Optional[str]:
        """The secret ``name`` every process shares (``P secret:<name>``): the one stored, else ``make()``'s, stored
        first by whichever process comes first (SET NX), so all read the same. None if Redis gave a non-string."""

        async def run():
            key = self.key("secret", name)
            await self.redis.set(key, make(), nx=True)
            raw = await self.redis.get(key)
            return raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw if isinstance(raw, str) else None

        return await self._call(run)

    # ----- records -------------------------------------------------------------------------
    async def record(self, table: str, game: int) -> Optional[Tuple[Dict[str, Any], List[Dict[str, Any]]]]:
        """(meta, strokes in order) of game ``game`` at ``table``, or None if there is no such record."""

        async def run():
            meta = await self.redis.get(self.key("record", table, game, "meta"))
            if meta is None:
                return None
            rows = await self.redis.hgetall(self.key("record", table, game))
            strokes = [msgpack.unpackb(rows[k], raw=False) for k in sorted(rows, key=lambda k: int(k))]
            return msgpack.unpackb(meta, raw=False), strokes

        return await self._call(run)

    async def last_game(self, table: str) -> Optional[int]:
        """Highest game number with a record at ``table`` (one GET: ``P record:<id>:last``), or None."""
        v = await self._call(lambda: self.redis.get(self.key("record", table, "last")))
        return None if v is None else int(v)
