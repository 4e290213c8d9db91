"""The Redis bridge: the only module that talks to Redis (lobby, presence, quick play, table state, records, pub/sub).

Key layout (``P`` = the configured key prefix, e.g. ``billar:``)::

    P tables                      set     ids of the tables to restore on start
    P table:<id>                  string  table state (msgpack; server/table.py ``to_state``)
    P stream:<id>                 zset    recent stream messages, score = version (gap replay after restart)
    P lobby                       zset    public table id -> expiry time (s)
    P lobby:<id>                  string  lobby entry (msgpack map), with an expiry
    P presence                    zset    player id -> expiry time (s)
    P record:<id>:<game>          hash    stroke index -> stroke record (msgpack)
    P record:<id>:<game>:meta     string  discipline, config, seed, players, result (msgpack)
    P quick:<discipline>          list    players waiting for quick play
    P lease:<id>                  string  "<node>|<fence>": the process that owns table <id> (expires, PX)
    P fence:<id>                  string  fencing counter of table <id>, +1 at every adoption or release
    P leases                      zset    table id -> lease expiry (Redis ms); 0 = released, adopt now
    P nodes                       zset    server process (node) -> heartbeat expiry (Redis ms)
    P create:<creation id>        string  the table a ``create_table`` with that creation id made (expiry)
    channel P lobby               lobby_update / lobby_remove messages, already encoded for clients
    channel P stream:<id>         every stream message of table <id>, framed by :func:`frame_stream`
    channel P node:<node>         envelopes for one server process (server/cluster.py)
    channel P cluster             ownership notices: a table adopted or released (server/cluster.py)

Every write of a stroke goes out in ONE round trip (:meth:`Store.write_table`): a MULTI/EXEC
pipeline, or, for a table owned under a lease (every table actor's writes), one Lua script that
first checks the lease (the fencing token) and refuses the whole write with :class:`Fenced` when
another process holds the table. Writes are idempotent (SET, HSET by index, ZADD by version), so a batch whose reply was lost can be
sent again. When Redis fails, :class:`RedisUnavailable` is raised, ``billar_redis_errors_total``
counts it and :attr:`Store.healthy` turns False until a command succeeds again; callers keep
their writes and retry (the table actors do, see ``TableActor.flush``).
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
from redis.exceptions import NoScriptError, RedisError, ResponseError

from server.metrics import Metrics

log = logging.getLogger("billar.store")


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


_QUICK_PLAY = """
-- KEYS[1] queue; ARGV: entry, now, max_age_s, player
-- Pop the oldest live waiting entry of another player (on any server process), or queue ARGV[1].
local n = redis.call('LLEN', KEYS[1])
for i = 1, n do
  local e = redis.call('LPOP', KEYS[1])
  if not e then break end
  local ts, node, player = string.match(e, '^([^|]+)|([^|]+)|([^|]+)|')
  if ts and tonumber(ts) >= tonumber(ARGV[2]) - tonumber(ARGV[3]) and player ~= ARGV[4] then
    return e
  end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
return false
"""

_NOW_MS = "local _t = redis.call('TIME')\nlocal now = tonumber(_t[1]) * 1000 + math.floor(tonumber(_t[2]) / 1000)\n"

_FENCED_WRITE = _NOW_MS + """
-- KEYS[1] lease, KEYS[2] fence, KEYS[3] leases zset
-- ARGV[1] expected lease "node|fence", ARGV[2] node, ARGV[3] ttl ms, ARGV[4] table id, ARGV[5] 'w' or 'c' (close)
-- ARGV[6..]: the write's commands, each as: argument count, command, arguments...
-- The lease must be ARGV[1], or be absent with the fence counter still at ARGV[1]'s value (a new table,
-- or a lease that expired while nobody else took the table): then it is set again.
local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then
  if cur then return redis.error_reply('FENCED table held by ' .. cur) end
  local f = redis.call('GET', KEYS[2]) or '0'
  if ARGV[2] .. '|' .. f ~= ARGV[1] then return redis.error_reply('FENCED fence is now ' .. f) end
end
if ARGV[5] == 'c' then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('ZREM', KEYS[3], ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[4])
end
local i = 6
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
return 1
"""

_ACQUIRE = _NOW_MS + """
-- KEYS[1] lease, KEYS[2] fence, KEYS[3] leases zset, KEYS[4] tables set; ARGV[1] node, ARGV[2] ttl ms, ARGV[3] id
-- Adopt a persisted table nobody holds: exactly one caller wins (the script is atomic); the fence goes up.
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
if redis.call('SISMEMBER', KEYS[4], ARGV[3]) == 0 then
  redis.call('ZREM', KEYS[3], ARGV[3])
  return false
end
local v = ARGV[1] .. '|' .. redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], v, 'PX', ARGV[2])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[3])
return v
"""

_RENEW = _NOW_MS + """
-- KEYS[1] leases zset, then n lease keys, then n fence keys; ARGV[1] node, ARGV[2] ttl ms,
-- then n expected lease values, then n table ids. Returns the ids whose lease is lost.
local n = (#KEYS - 1) / 2
local lost = {}
for i = 1, n do
  local cur = redis.call('GET', KEYS[1 + i])
  local ok = cur == ARGV[2 + i]
  if not ok and not cur then
    ok = (ARGV[1] .. '|' .. (redis.call('GET', KEYS[1 + n + i]) or '0')) == ARGV[2 + i]
  end
  if ok then
    redis.call('SET', KEYS[1 + i], ARGV[2 + i], 'PX', ARGV[2])
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[2 + n + i])
  else
    lost[#lost + 1] = ARGV[2 + n + i]
  end
end
return lost
"""

_RELEASE = """
-- KEYS[1] lease, KEYS[2] fence, KEYS[3] leases zset; ARGV[1] expected lease, ARGV[2] table id
-- Hand a table over: the lease goes, the fence goes up (the old lease value can never write again),
-- and the table is listed for adoption at once.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[3], 0, ARGV[2])
return 1
"""

_ORPHANS = _NOW_MS + """
-- KEYS[1] leases zset, KEYS[2] tables set; ARGV[1] limit, ARGV[2] '1' to list never-leased tables first
if ARGV[2] == '1' then
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do redis.call('ZADD', KEYS[1], 'NX', 0, id) end
end
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
"""

_HEARTBEAT = _NOW_MS + """
-- KEYS[1] nodes zset; ARGV[1] node, ARGV[2] ttl ms ('0': leave, '-1': only look). Returns the live nodes.
if ARGV[2] == '0' then redis.call('ZREM', KEYS[1], ARGV[1])
elseif ARGV[2] ~= '-1' then redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""

_REFRESH_LOBBY = """
-- KEYS[1] tables set, KEYS[2] lobby zset; ARGV[1] ttl s, ARGV[2] expiry (s), then triples: table id, entry key, entry
-- Extend the lobby entries of live tables. A table closed meanwhile (no longer in the tables set) is not brought
-- back; an entry that is there keeps its content (its table writes newer ones); a lost one is set again.
local n = 0
for i = 3, #ARGV, 3 do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then
    if redis.call('EXPIRE', ARGV[i + 1], ARGV[1]) == 0 then
      redis.call('SET', ARGV[i + 1], ARGV[i + 2], 'EX', ARGV[1])
    end
    redis.call('ZADD', KEYS[2], ARGV[2], ARGV[i])
    n = n + 1
  end
end
return n
"""

_CLAIM_CREATION = """
-- KEYS[1] create:<creation id>; ARGV[1] new table id, ARGV[2] ttl s. Returns the table already made, or false.
local cur = redis.call('GET', KEYS[1])
if cur then return cur end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
"""


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
        pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=timeout_s,
                                                        socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
        # hiredis packing for plain TCP and unix sockets (other kinds, e.g. TLS, keep redis-py's classes)
        pool.connection_class = {Connection: _TcpConnection, UnixDomainSocketConnection: _UnixConnection}.get(
            pool.connection_class, pool.connection_class)
        self.redis = aioredis.Redis.from_pool(pool)  # the client owns the pool: aclose() disconnects it
        self.healthy = True
        self._quick = self.redis.register_script(_QUICK_PLAY)
        self._fenced_write = self.redis.register_script(_FENCED_WRITE)
        self._acquire = self.redis.register_script(_ACQUIRE)
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)
        self._orphans = self.redis.register_script(_ORPHANS)
        self._heartbeat = self.redis.register_script(_HEARTBEAT)
        self._claim_creation = self.redis.register_script(_CLAIM_CREATION)
        self._refresh_lobby = self.redis.register_script(_REFRESH_LOBBY)
        self.lease_ttl_ms = 4000  # set by the cluster (Settings.lease_ttl_s)
        self.max_batch = 256  # fenced table writes sent in one pipeline at most
        self._writes: List[Tuple[List[str], List[Any], asyncio.Future]] = []  # fenced writes of this loop iteration
        self._writes_scheduled = False
        self._batches: set = set()  # pipelines in flight (referenced until done)

    def key(self, *parts: Any) -> str:
        return self.prefix + ":".join(str(p) for p in parts)

    async def close(self) -> None:
        try:
            await self.redis.aclose()
        except (RedisError, OSError):
            pass

    async def _call(self, fn: Callable[[], Awaitable[Any]]) -> Any:
        try:
            out = await fn()
        except ResponseError as exc:
            if str(exc).startswith("FENCED"):
                self.healthy = True  # Redis answered
                raise Fenced(str(exc)) from None
            self.metrics.redis_errors.inc()
            log.warning("redis error", extra={"error": repr(exc)})
            raise RedisUnavailable(repr(exc)) from None
        except (RedisError, OSError, asyncio.TimeoutError) as exc:
            self.metrics.redis_errors.inc()
            if self.healthy:
                log.warning("redis unavailable", extra={"error": repr(exc)})
            self.healthy = False
            raise RedisUnavailable(repr(exc)) from None
        if not self.healthy:
            log.info("redis available again")
        self.healthy = True
        return out

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
        return cmds

    async def write_table(self, w: TableWrite) -> None:
        """Send one table's writes in a single round trip. Raises :class:`RedisUnavailable`, and
        :class:`Fenced` (nothing written) when ``w.lease`` is set and no longer holds.

        Group commit: the fenced writes (every table actor's) made during one iteration of the
        event loop go out together in ONE pipeline of fenced scripts (at most :attr:`max_batch`),
        so a thousand tables cost a few socket writes per iteration instead of one each. Each
        script still checks its own table's lease and each caller gets its own outcome; a caller
        returns only when its write is in Redis, as before.
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
        self._writes_scheduled = False
        writes, self._writes = self._writes, []
        loop = asyncio.get_running_loop()
        for i in range(0, len(writes), self.max_batch):
            task = loop.create_task(self._write_batch(writes[i:i + self.max_batch]))
            self._batches.add(task)
            task.add_done_callback(self._batches.discard)

    async def _write_batch(self, writes: List[Tuple[List[str], List[Any], asyncio.Future]]) -> None:
        """One pipeline of fenced writes; every caller's future gets its own result (None, :class:`Fenced`
        or :class:`RedisUnavailable`). A script Redis does not know (restarted, flushed) is loaded and
        the writes it refused are sent again."""
        sha = self._fenced_write.sha
        for attempt in (0, 1):
            p = self.redis.pipeline(transaction=False)
            for keys, args, _ in writes:
                p.execute_command("EVALSHA", sha, len(keys), *keys, *args)
            try:
                res = await self._call(lambda: p.execute(raise_on_error=False))
            except asyncio.CancelledError:
                for _, _, fut in writes:
                    if not fut.done():
                        fut.cancel()
                raise
            except RedisUnavailable as exc:  # the pipeline as a whole failed (counted once by _call)
                for _, _, fut in writes:
                    if not fut.done():
                        fut.set_exception(RedisUnavailable(*exc.args))  # one instance per waiter
                return
            again = []
            for (keys, args, fut), r in zip(writes, res):
                if fut.done():
                    continue
                if isinstance(r, NoScriptError) and attempt == 0:
                    again.append((keys, args, fut))
                elif isinstance(r, ResponseError) and str(r).startswith("FENCED"):
                    fut.set_exception(Fenced(str(r)))
                elif isinstance(r, Exception):
                    self.metrics.redis_errors.inc()
                    log.warning("redis error", extra={"error": repr(r)})
                    fut.set_exception(RedisUnavailable(repr(r)))
                else:
                    fut.set_result(r)
            if not again:
                return
            writes = again
            try:
                await self.redis.script_load(self._fenced_write.script)
            except (RedisError, OSError, asyncio.TimeoutError):
                pass  # the second attempt fails the same way and reports it

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
        """Live public tables (entries whose expiry has not passed), oldest first."""

        async def run():
            zk = self.key("lobby")
            await self.redis.zremrangebyscore(zk, "-inf", time.time())
            ids = await self.redis.zrange(zk, 0, -1)
            if not ids:
                return []
            raw = await self.redis.mget([self.key("lobby", i.decode()) for i in ids])
            return [msgpack.unpackb(r, raw=False) for r in raw if r is not None]

        return await self._call(run)

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

    async def listen(self, channel_parts: Tuple[str, ...], on_message: Callable[[bytes], None], stop: asyncio.Event) -> None:
        """Deliver every message of channel ``P + ':'.join(parts)`` to ``on_message`` until ``stop`` is set.

        Reconnects after a Redis failure (counted), so a Redis restart is survived.
        """
        channel = self.key(*channel_parts)
        while not stop.is_set():
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(channel)
                while not stop.is_set():
                    msg = await pubsub.get_message(timeout=0.5)
                    if msg is not None and msg.get("type") == "message":
                        on_message(msg["data"])
            except (RedisError, OSError) as exc:
                self.metrics.redis_errors.inc()
                log.warning("pubsub lost, retrying", extra={"channel": channel, "error": repr(exc)})
                await asyncio.sleep(0.5)
            finally:
                try:
                    await pubsub.aclose()
                except (RedisError, OSError):
                    pass

    # ----- quick play ----------------------------------------------------------------------
    async def quick_play(self, discipline: str, node: str, player: str, session: str, max_age_s: float,
                         name: str = "") -> Optional[Tuple[str, str, str, str]]:
        """Pair with a waiting player of ``discipline`` (on any server process), or queue this one.

        Returns (node, player, session, name) of the opponent found, or None when queued.
        """
        now = time.time()
        entry = f"{now:.3f}|{node}|{player}|{session}|{name}"
        res = await self._call(lambda: self._quick(keys=[self.key("quick", discipline)], args=[entry, now, max_age_s, player]))
        if not res:
            return None
        parts = (res.decode() if isinstance(res, bytes) else res).split("|", 4)
        return parts[1], parts[2], parts[3], parts[4] if len(parts) > 4 else ""

    async def quick_play_cancel(self, discipline: str, player: str) -> None:
        async def run():
            qk = self.key("quick", discipline)
            for e in await self.redis.lrange(qk, 0, -1):
                if e.decode().split("|")[2] == player:
                    await self.redis.lrem(qk, 0, e)

        await self._call(run)

    # ----- leases and processes (server/cluster.py) ------------------------------------------
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

    async def publish(self, channel: str, data: bytes) -> int:
        """Publish ``data`` on channel ``channel`` (a full channel name); returns how many subscribers got it."""
        return int(await self._call(lambda: self.redis.publish(channel, data)))

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
        """Highest game number with a record at ``table``."""

        async def run():
            best = None
            async for k in self.redis.scan_iter(match=self.key("record", table, "*", "meta"), count=100):
                g = int((k.decode() if isinstance(k, bytes) else k).split(":")[-2])
                best = g if best is None else max(best, g)
            return best

        return await self._call(run)
