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
    channel P lobby               lobby_update / lobby_remove messages, already encoded for clients
    channel P stream:<id>         every stream message of table <id> (for other processes, issue 8)

Every write of a stroke goes out in ONE pipelined MULTI/EXEC (:meth:`Store.write_table`). Writes
are idempotent (SET, HSET by index, ZADD by version), so a batch whose reply was lost can be
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

import msgpack
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.metrics import Metrics

log = logging.getLogger("billar.store")


class RedisUnavailable(Exception):
    """A Redis command failed (connection refused or lost, timeout, server error)."""


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


_QUICK_PLAY = """
-- KEYS[1] queue; ARGV: entry, now, max_age_s, node, player
-- Pop the oldest live waiting entry of the same node and another player, or queue ARGV[1].
local n = redis.call('LLEN', KEYS[1])
for i = 1, n do
  local e = redis.call('LPOP', KEYS[1])
  if not e then break end
  local ts, node, player = string.match(e, '^([^|]+)|([^|]+)|([^|]+)|')
  if ts and tonumber(ts) >= tonumber(ARGV[2]) - tonumber(ARGV[3]) and player ~= ARGV[5] then
    if node == ARGV[4] then return e end
    redis.call('RPUSH', KEYS[1], e)
  end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
return false
"""


class Store:
    """Async Redis access with the key layout of the module docstring.

    ``url``: ``redis://host:port/db`` or ``unix:///path/to/socket``; ``prefix``: key prefix;
    ``timeout_s``: socket and connect timeout of every command.
    """

    def __init__(self, url: str, prefix: str, metrics: Metrics, *, timeout_s: float = 2.0, lobby_ttl_s: float = 30.0,
                 records_ttl_s: int = 30 * 24 * 3600, history_len: int = 64):
        self.url, self.prefix, self.metrics = url, prefix, metrics
        self.lobby_ttl_s, self.records_ttl_s, self.history_len = lobby_ttl_s, records_ttl_s, history_len
        self.redis = aioredis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
        self.healthy = True
        self._quick = self.redis.register_script(_QUICK_PLAY)

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
    async def write_table(self, w: TableWrite) -> None:
        """Send one table's writes in a single MULTI/EXEC pipeline. Raises :class:`RedisUnavailable`."""

        async def run():
            p = self.redis.pipeline(transaction=True)
            tid = w.table
            if w.closed:
                p.delete(self.key("table", tid), self.key("stream", tid))
                p.srem(self.key("tables"), tid)
            elif w.state is not None:
                p.set(self.key("table", tid), w.state)
                p.sadd(self.key("tables"), tid)
            for game, idx, rec in w.records:
                rk = self.key("record", tid, game)
                p.hset(rk, str(idx), rec)
                p.expire(rk, self.records_ttl_s)
            for game, meta in w.meta.items():
                p.set(self.key("record", tid, game, "meta"), meta, ex=self.records_ttl_s)
            if w.stream and not w.closed:
                sk = self.key("stream", tid)
                p.zadd(sk, {data: v for v, data in w.stream})
                p.zremrangebyscore(sk, "-inf", w.stream[-1][0] - self.history_len)
                for v, data in w.stream:
                    p.publish(self.key("stream", tid), data)
            if w.lobby_gone:
                p.delete(self.key("lobby", tid))
                p.zrem(self.key("lobby"), tid)
            elif w.lobby is not None:
                p.set(self.key("lobby", tid), w.lobby, ex=max(1, int(self.lobby_ttl_s)))
                p.zadd(self.key("lobby"), {tid: time.time() + self.lobby_ttl_s})
            if w.publish_lobby is not None:
                p.publish(self.key("lobby"), w.publish_lobby)
            return await p.execute()

        await self._call(run)

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
        """Re-set the expiry of this process's lobby entries and present players; returns the online count."""

        async def run():
            now = time.time()
            exp = now + self.lobby_ttl_s
            p = self.redis.pipeline(transaction=False)
            for tid, entry in lobby.items():
                p.set(self.key("lobby", tid), entry, ex=max(1, int(self.lobby_ttl_s)))
            if lobby:
                p.zadd(self.key("lobby"), {tid: exp for tid in lobby})
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
    async def quick_play(self, discipline: str, node: str, player: str, session: str, max_age_s: float) -> Optional[Tuple[str, str]]:
        """Pair with a waiting player of ``discipline`` on this node, or queue this one.

        Returns (player, session) of the opponent found, or None when queued.
        """
        now = time.time()
        entry = f"{now:.3f}|{node}|{player}|{session}"
        res = await self._call(lambda: self._quick(keys=[self.key("quick", discipline)], args=[entry, now, max_age_s, node, player]))
        if not res:
            return None
        parts = (res.decode() if isinstance(res, bytes) else res).split("|")
        return parts[2], parts[3]

    async def quick_play_cancel(self, discipline: str, player: str) -> None:
        async def run():
            qk = self.key("quick", discipline)
            for e in await self.redis.lrange(qk, 0, -1):
                if e.decode().split("|")[2] == player:
                    await self.redis.lrem(qk, 0, e)

        await self._call(run)

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
