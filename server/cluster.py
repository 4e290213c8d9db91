"""Scale-out: several server processes (nodes) share one Redis; any of them serves any table.

The Redis bridge between nodes, in the spirit of lila-ws: the rest of the server never knows
whether a table is here or elsewhere.

**Ownership.** A table's actor runs on exactly one node: the one holding its lease
(``P lease:<id>`` = ``"<node>|<fence>"``, set with an expiry and renewed every
``lease_renew_s``). Every write of the table goes through a Lua script that checks the lease
first (:meth:`server.store.Store.write_table`), so a node that lost its lease (killed, cut from
Redis, paused) can never write again: the fence counter went up when another node adopted the
table. A node adopts a table whose lease expired or was released (``P leases`` lists expiries;
the acquiring script is atomic, so exactly one node wins), restoring it from the persisted
state and recent stream: seats keep their tokens and last sequence numbers, so no stroke is
lost or played twice.

**Routing.** A message for a table owned elsewhere is forwarded to the owner's node channel
(``P node:<node>``) as a ``cmd`` envelope; the owner's actor sees the sender as a
:class:`RemoteSession` (same interface as a local :class:`~server.session.Session`) and its
private replies travel back in order through the owner's outbox as ``out`` envelopes.

**Fan-out.** The owner publishes every stream message once on ``P stream:<id>`` (in the same
script that persists it). Every node with connections at that table subscribes and fans the
same bytes out to them (:class:`Relay`): version numbers order the stream against the private
replies, a gap (a node briefly cut from Redis) is filled from the persisted history
(``P stream:<id>``, the last ``history_len`` messages) or, beyond it, by a snapshot from the
owner. When a table changes hands, every node re-registers its connections with the new owner
(``resume`` with the seat token the connection was given, or ``watch`` with the last version).

Envelopes are msgpack lists of maps (``k`` = kind); see ``docs/deploy.md``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Set, Tuple

import msgpack

import protocol
from protocol import inbound as I
from protocol import outbound as O
from protocol.errors import ErrorCode, ProtocolError
from server.feed import PLAYER, SPECTATOR, send_with_backpressure
from server.store import RedisUnavailable, frame_stream, unframe_stream

if TYPE_CHECKING:  # pragma: no cover
    from server.app import Server
    from server.session import Session
    from server.table import TableActor

log = logging.getLogger("billar.cluster")

JOINS = (I.Join, I.Watch, I.Resume, I.CreateTable)
MAX_HOPS = 6  # a message bounced by processes that no longer own its table (a hand-over in progress)
RELAY_IDLE_S = 10.0
CREATION_WAIT_S = 3.0  # s, how long a retried create_table waits for the first write of the table its id made


def pack(envelopes: List[Dict[str, Any]]) -> bytes:
    return msgpack.packb(envelopes, use_bin_type=True)


class RemoteSession:
    """A connection on another node, as the owner's table actor sees it.

    Private replies are queued in the cluster outbox for that node, in order; stream messages
    reach the node through the table's channel, so :class:`~server.feed.TableFeed` skips it.
    """

    remote = True
    ws = None

    def __init__(self, cluster: "Cluster", node: str, sid: str, player: str, name: str):
        self.cluster, self.node, self.id, self.player, self.name = cluster, node, sid, player, name
        self.tables: Set[str] = set()
        self.closing = False

    def __repr__(self) -> str:
        return f"RemoteSession({self.node}/{self.id}, {self.player})"

    def _post(self, entry: List[Any]) -> None:
        self.cluster.post(self.node, {"k": "out", "n": self.cluster.node, "s": self.id, "e": entry})

    def send(self, message: Dict[str, Any]) -> None:
        data = protocol.encode(message)
        t = message.get("type")
        if t == "table_snapshot":
            self._post(["snap", message["table"], message["v"], data])
        elif t == "seated":
            self._post(["seated", message["table"], message["token"], data])
        elif t == "left":
            self._post(["left", message["table"], data])
        else:
            self._post(["p", data])

    def send_bytes(self, data: bytes) -> None:
        self._post(["p", data])

    def send_stream(self, table: str, v: int, data: bytes) -> None:
        self._post(["r", table, v, data])

    def at_version(self, table: str, v: int, role: Optional[str]) -> None:
        self._post(["pos", table, v, role])

    def error(self, code: str, message: str, field: Optional[str] = None, ref: Optional[str] = None, **kw) -> None:
        self.cluster.metrics.protocol_errors.inc(1.0, code)
        self.send(O.error(code, message, field, ref, **kw))

    def close(self, code: int, reason: str) -> None:
        self._post(["close", code, reason])

    # backpressure is the connection's node's business (see Relay)
    def overflowing(self) -> bool:
        return False

    def is_behind(self, table: str) -> bool:
        return False

    def fall_behind(self, table: str) -> None:
        pass

    def caught_up(self, table: str) -> None:
        pass

    def drop_slow(self) -> None:
        pass


class Relay:
    """This node's connections at a table owned by another node: the table's stream, fanned out in version order.

    ``members``: session -> [role, v] where ``v`` is the last version the connection has (None
    while its join, resume or resync is answered by the owner). ``history``: the last
    ``history_len`` stream messages seen, for members that are behind.
    """

    def __init__(self, cluster: "Cluster", table: str, owner: Optional[str]):
        self.cluster, self.table, self.owner = cluster, table, owner
        self.history: Dict[int, bytes] = {}
        self.top = 0
        self.members: Dict["Session", List[Any]] = {}
        self.idle_since = time.monotonic()
        self.recovering = False
        self.fresh = True  # subscribed just now: what came before may be missing

    def member(self, session: "Session", role: Optional[str] = None) -> List[Any]:
        m = self.members.get(session)
        if m is None:
            m = self.members[session] = [role or (PLAYER if self.table in session.tokens else SPECTATOR), None]
        elif role is not None:
            m[0] = role
        return m

    def remove(self, session: "Session") -> None:
        if self.members.pop(session, None) is not None and not self.members:
            self.idle_since = time.monotonic()

    def on_frame(self, v: Optional[int], data: bytes) -> None:
        """A payload of the table's channel: a stream message (version ``v``) or an unversioned one."""
        if v is None:
            self._send([s for s, m in self.members.items() if m[1] is not None], data)
            return
        if v in self.history or v <= self.top - self.cluster.settings.history_len:
            return
        self.history[v] = data
        if len(self.history) > self.cluster.settings.history_len:
            for old in sorted(self.history)[: len(self.history) - self.cluster.settings.history_len]:
                del self.history[old]
        self.top = max(self.top, v)
        self.deliver()

    def deliver(self) -> None:
        """Send every member the messages after its version that the history holds (same bytes, one
        ``broadcast`` per version); fetch from Redis what is missing."""
        while True:
            groups: Dict[int, List[Tuple["Session", List[Any]]]] = {}
            for s, m in self.members.items():
                if m[1] is not None and m[1] + 1 in self.history:
                    groups.setdefault(m[1] + 1, []).append((s, m))
            if not groups:
                break
            for v in sorted(groups):
                targets = []
                for s, m in groups[v]:
                    m[1] = v
                    targets.append(s)
                self._send(targets, self.history[v])
        if any(m[1] is not None and m[1] < self.top for m in self.members.values()):
            self.cluster.recover(self)

    def _send(self, sessions: List["Session"], data: bytes) -> None:
        """Send to these local connections with the feed's backpressure (server.feed.send_with_backpressure)."""
        members = [(s, self.members.get(s, [SPECTATOR])[0]) for s in sessions]
        self.cluster.metrics.relayed.inc(send_with_backpressure(self.table, members, data, self.cluster.metrics))

    def counts(self) -> Tuple[int, int]:
        """(spectators, players) connected here."""
        sp = sum(1 for m in self.members.values() if m[0] == SPECTATOR)
        return sp, len(self.members) - sp


class Cluster:
    """This node's part of the cluster: leases, adoption, routing, the outbox, relays, hand-over."""

    def __init__(self, server: "Server"):
        self.server = server
        self.settings = server.settings
        self.metrics = server.metrics
        self.node = server.settings.node
        self.store = None
        self.proxies: Dict[Tuple[str, str], RemoteSession] = {}
        self.relays: Dict[str, Relay] = {}
        self.owners: Dict[str, str] = {}  # table -> node, a cache (checked by the owner, which answers ``moved``)
        self.adopting: Dict[str, asyncio.Future] = {}
        self.live_nodes: Set[str] = set()
        self._outbox: Dict[str, List[Dict[str, Any]]] = {}
        self._outbox_ready = asyncio.Event()
        self._outbox_lock = asyncio.Lock()
        self._channels: Set[str] = set()
        self._confirmed: Dict[str, asyncio.Future] = {}  # channel -> set when Redis confirmed the subscription
        self._pubsub = None
        self._tasks: List[asyncio.Task] = []
        self._bg: Set[asyncio.Task] = set()
        self._stop = asyncio.Event()
        self._prefix_stream = ""

    # ----- lifecycle -------------------------------------------------------------------------
    def channel(self, *parts: Any) -> str:
        return self.store.key(*parts)

    async def start(self) -> None:
        """Join the cluster: heartbeat, subscribe, adopt every table nobody holds (a restart resumes them)."""
        self.store = self.server.store
        self.store.lease_ttl_ms = int(self.settings.lease_ttl_s * 1000)
        self._prefix_stream = self.channel("stream", "")
        self._channels = {self.channel("node", self.node), self.channel("cluster")}
        for attempt in range(20):
            try:
                self.live_nodes = set(await self.store.heartbeat(self.node, self.store.lease_ttl_ms))
                break
            except RedisUnavailable:
                await asyncio.sleep(0.5)
        else:
            raise RuntimeError("redis: unreachable at start; cannot restore tables")
        loop = asyncio.get_running_loop()
        ready = loop.create_future()
        self._tasks = [
            loop.create_task(self._listen(ready), name="cluster-bus"),
            loop.create_task(self._outbox_loop(), name="cluster-outbox"),
        ]
        await asyncio.wait_for(asyncio.shield(ready), 10.0)
        await self.scan_orphans(strays=True)
        self._tasks.append(loop.create_task(self._lease_loop(), name="cluster-leases"))

    async def stop(self) -> None:
        """Leave the cluster (after the tables were handed over): flush the outbox, stop listening."""
        self._stop.set()
        self._outbox_ready.set()
        try:
            await asyncio.wait_for(asyncio.gather(*list(self._bg), return_exceptions=True), 3.0)
        except asyncio.TimeoutError:
            pass
        try:
            await self.flush_outbox()
        except Exception:
            pass
        try:
            await self.store.heartbeat(self.node, 0)
        except RedisUnavailable:
            pass
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def background(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._bg.add(task)
        task.add_done_callback(self._bg.discard)

    # ----- the bus (one pub/sub connection: this node's channel, cluster notices, relayed tables) ---
    async def _listen(self, ready: asyncio.Future) -> None:
        first = True
        while not self._stop.is_set():
            pubsub = self.store.redis.pubsub()
            self._confirmed = {}
            try:
                await pubsub.subscribe(*self._channels)
                self._pubsub = pubsub
                if first:
                    first = False
                    if not ready.done():
                        ready.set_result(None)
                else:  # back after a cut: fill what was published meanwhile, tell owners we are here
                    log.info("bus reconnected; recovering relayed tables", extra={"tables": len(self.relays)})
                    for relay in list(self.relays.values()):
                        relay.fresh = True
                        self.recover(relay)
                        self.reregister(relay.table, [(s, m[0], m[1]) for s, m in relay.members.items()])
                while not self._stop.is_set():
                    msg = await pubsub.get_message(timeout=1.0)
                    if msg is None:
                        continue
                    if msg.get("type") == "message":
                        try:
                            self._on_bus(msg["channel"], msg["data"])
                        except Exception:
                            log.exception("bad cluster message")
                    elif msg.get("type") == "subscribe":
                        ch = msg["channel"].decode() if isinstance(msg["channel"], bytes) else msg["channel"]
                        fut = self._confirmed.get(ch)
                        if fut is None:
                            fut = self._confirmed[ch] = asyncio.get_running_loop().create_future()
                        if not fut.done():
                            fut.set_result(True)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # RedisError, OSError, timeouts
                self.metrics.redis_errors.inc()
                log.warning("bus lost, retrying", extra={"error": repr(exc)})
                await asyncio.sleep(0.3)
            finally:
                self._pubsub = None
                try:
                    await pubsub.aclose()
                except Exception:
                    pass

    async def _subscribe(self, channel: str, timeout_s: float = 2.0) -> bool:
        """Subscribe the bus to ``channel`` and wait until Redis confirms it: every message published from then
        on reaches this node. False if not confirmed in time (the bus is reconnecting; it subscribes again)."""
        fut = self._confirmed.get(channel)
        if fut is None:
            fut = self._confirmed[channel] = asyncio.get_running_loop().create_future()
        if channel not in self._channels:
            self._channels.add(channel)
            if self._pubsub is not None:
                try:
                    await self._pubsub.subscribe(channel)
                except Exception:
                    pass  # the bus reconnects and subscribes again
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout_s)
        except asyncio.TimeoutError:
            return False

    async def _unsubscribe(self, channel: str) -> None:
        self._channels.discard(channel)
        self._confirmed.pop(channel, None)
        if self._pubsub is not None:
            try:
                await self._pubsub.unsubscribe(channel)
            except Exception:
                pass

    def _on_bus(self, channel: bytes, data: bytes) -> None:
        ch = channel.decode() if isinstance(channel, bytes) else channel
        if ch.startswith(self._prefix_stream):
            relay = self.relays.get(ch[len(self._prefix_stream):])
            if relay is not None:
                v, body = unframe_stream(data)
                relay.on_frame(v, body)
            return
        for env in msgpack.unpackb(data, raw=False):
            kind = env.get("k")
            handler = self._HANDLERS.get(kind)
            if handler is not None:
                handler(self, env)

    # ----- the outbox: envelopes to other nodes, in order ------------------------------------
    def post(self, node: str, env: Dict[str, Any]) -> None:
        self._outbox.setdefault(node, []).append(env)
        self._outbox_ready.set()

    async def _outbox_loop(self) -> None:
        while not self._stop.is_set():
            await self._outbox_ready.wait()
            self._outbox_ready.clear()
            try:
                await self.flush_outbox()
            except Exception:
                log.exception("outbox flush failed")

    def outbox_pending(self) -> bool:
        return bool(self._outbox)

    async def flush_outbox(self) -> None:
        """Publish every envelope posted so far, in order. A table actor awaits it before it persists and
        publishes a stream message, so that its private replies reach other processes first (as they reach
        this process's connections first)."""
        async with self._outbox_lock:
            await self._flush_outbox()

    async def _flush_outbox(self) -> None:
        while self._outbox:
            box, self._outbox = self._outbox, {}
            for node, envs in box.items():
                for attempt in range(10):
                    try:
                        await self.store.publish(self.channel("node", node), pack(envs))
                        break
                    except RedisUnavailable:
                        await asyncio.sleep(0.2)
                else:
                    log.warning("envelopes to a node lost: Redis unreachable", extra={"node": node, "count": len(envs)})

    # ----- leases ----------------------------------------------------------------------------
    def lease_for_new_table(self) -> str:
        """The lease of a table created here: fence 0, set by its first write (nobody can adopt it before:
        it is not persisted yet)."""
        return self.store.lease_value(self.node, 0)

    async def _lease_loop(self) -> None:
        last_scan = 0.0
        while not self._stop.is_set() and not self.server.stopping:
            try:
                await asyncio.wait_for(self._stop.wait(), self.settings.lease_renew_s)
                break
            except asyncio.TimeoutError:
                pass
            try:
                await self._renew()
                now = time.monotonic()
                if now - last_scan >= self.settings.orphan_scan_s:
                    last_scan = now
                    await self.scan_orphans()
                self._collect()
            except RedisUnavailable:
                pass
            except Exception:
                log.exception("lease loop failed")

    async def _renew(self) -> None:
        """Heartbeat, and extend the leases of this node's tables. A table written within the last
        ``lease_ttl_s - 2 * lease_renew_s`` seconds is skipped: its write extended the lease (the fenced
        write sets it again), and the next round, at most ``lease_renew_s`` later, renews it if nothing
        was written meanwhile, still with ``lease_renew_s`` to spare."""
        self.live_nodes = set(await self.store.heartbeat(self.node, self.store.lease_ttl_ms))
        fresh = time.monotonic() - max(0.0, self.settings.lease_ttl_s - 2 * self.settings.lease_renew_s)
        owned = {t.id: t.lease for t in self.server.tables.values() if not t.closed and t.lease and t.lease_at < fresh}
        if not owned:
            return
        for tid in await self.store.renew(self.node, owned):
            actor = self.server.tables.get(tid)
            if actor is not None and actor.lease == owned[tid]:
                self.table_lost(actor)

    async def scan_orphans(self, strays: bool = False) -> None:
        """Adopt tables whose lease expired or was released (``strays``: also persisted tables never leased)."""
        if self.server.stopping:
            return
        for tid in await self.store.orphans(limit=500, strays=strays):
            if tid not in self.server.tables and tid not in self.adopting:
                await self.adopt(tid)

    async def adopt(self, tid: str) -> bool:
        """Take table ``tid`` over from the persisted state if nobody holds it; True when this node now owns it."""
        if tid in self.server.tables:
            return True
        pending = self.adopting.get(tid)
        if pending is not None:
            return await asyncio.shield(pending)
        if self.server.stopping:
            return False
        fut = asyncio.get_running_loop().create_future()
        self.adopting[tid] = fut
        ok = False
        try:
            ok = await self._adopt(tid)
        except RedisUnavailable:
            ok = False
        except Exception:
            log.exception("adoption failed", extra={"table": tid})
        finally:
            del self.adopting[tid]
            fut.set_result(ok)
        return ok

    async def _adopt(self, tid: str) -> bool:
        from server.table import TableActor

        lease = await self.store.acquire(tid, self.node)
        if lease is None:
            return False
        row = await self.store.load_table(tid)
        if row is None:
            await self.store.release(tid, lease)
            return False
        state = msgpack.unpackb(row[0], raw=False, strict_map_key=False)
        actor = TableActor.from_state(self.server, state, row[1])
        actor.lease = lease
        self.server.tables[tid] = actor
        self.owners.pop(tid, None)
        actor.start(restored=True)
        self.metrics.tables_adopted.inc()
        log.info("table adopted", extra={"table": tid, "lease": lease, "version": actor.version})
        relay = self.relays.pop(tid, None)
        if relay is not None:  # connections here that watched it elsewhere now belong to the local actor
            self.background(self._unsubscribe(self.channel("stream", tid)))
            self.reregister(tid, [(s, m[0], m[1]) for s, m in relay.members.items()])
        self.background(self._notify({"k": "adopted", "t": tid, "n": self.node}))
        return True

    async def _notify(self, env: Dict[str, Any]) -> None:
        try:
            await self.store.publish(self.channel("cluster"), pack([env]))
        except RedisUnavailable:
            pass

    def table_lost(self, actor: "TableActor") -> None:
        """Another node holds the table now (this one was cut off or paused): stop its actor without
        writing, and keep this node's connections at the table through a relay of the new owner."""
        if actor.closed:
            return
        self.metrics.leases_lost.inc()
        log.warning("lease lost; the table continues elsewhere", extra={"table": actor.id, "lease": actor.lease})
        members = [(s, role, None if s.is_behind(actor.id) else actor.published_version())
                   for s, role in actor.feed.members.items() if not getattr(s, "remote", False)]
        actor.abandon()
        self.server.table_closed(actor)
        if members and not self.server.stopping:
            relay = self.relay_for(actor.id, None)
            for s, role, v in members:
                relay.member(s, role)[1] = v
            self.reregister(actor.id, members)

    async def hand_over(self, actor: "TableActor") -> bool:
        """SIGTERM: the actor has stopped and flushed; release its lease so that a peer adopts it at once."""
        if actor.lease is None:
            return False
        try:
            ok = await self.store.release(actor.id, actor.lease)
        except RedisUnavailable:
            return False
        if ok:
            await self._notify({"k": "released", "t": actor.id})
        return ok

    async def leave(self) -> None:
        """Shutdown begins: this node stops counting as a peer (no other draining node waits for it to adopt)."""
        try:
            await self.store.heartbeat(self.node, 0)
        except RedisUnavailable:
            pass

    async def _peers(self) -> Set[str]:
        try:
            return set(await self.store.heartbeat(self.node, -1)) - {self.node}
        except RedisUnavailable:
            return set()

    async def wait_adopted(self, tables: List[str], timeout_s: float) -> int:
        """Wait until a peer owns each of ``tables``, while some peer is alive; returns how many are owned."""
        if not tables:
            return 0
        end = time.monotonic() + timeout_s
        left = list(tables)
        while left and time.monotonic() < end and await self._peers():
            still = []
            for tid in left:
                try:
                    owner = await self.store.owner(tid)
                except RedisUnavailable:
                    owner = None
                if owner is None or owner == self.node:
                    still.append(tid)
            left = still
            if left:
                await asyncio.sleep(0.1)
        return len(tables) - len(left)

    # ----- routing ---------------------------------------------------------------------------
    async def owner_of(self, tid: str) -> Optional[str]:
        """The node owning ``tid`` (this node after adopting an orphan), or None when there is no such table.
        Raises :class:`RedisUnavailable`."""
        for _ in range(4):
            if tid in self.server.tables:
                return self.node
            node = self.owners.get(tid)
            if node is not None:
                return node
            node = await self.store.owner(tid)
            if node is not None:
                if node != self.node:
                    if len(self.owners) > 50_000:
                        self.owners.clear()
                    self.owners[tid] = node
                return node
            if not await self.store.table_exists(tid):
                return None
            if await self.adopt(tid):
                return self.node
        return None

    async def forward(self, session: "Session", msg: I.Inbound, table: Optional[str] = None, hops: int = 0,
                      being_created: bool = False) -> None:
        """Deliver ``msg`` to the actor of its table wherever it runs (here: its inbox; elsewhere: a ``cmd``
        envelope). Waits while the owner is gone and its lease has not expired (then a node adopts it);
        with ``being_created`` (a retried ``create_table``), also while the table's first write is on its way."""
        tid = table or msg.table
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + self.settings.lease_ttl_s + 3.0
        while not session.closing:
            actor = self.server.tables.get(tid)
            if actor is not None and not actor.closed:
                self.server.submit_local(session, actor, msg)
                return
            try:
                node = await self.owner_of(tid)
            except RedisUnavailable:
                session.error(ErrorCode.UNAVAILABLE, "table: storage unreachable, try again", "table", msg.TYPE,
                              table=tid, seq=getattr(msg, "seq", None))
                return
            if node is None:
                if being_created and loop.time() < started + CREATION_WAIT_S:
                    await asyncio.sleep(0.05)
                    continue
                session.error(ErrorCode.NO_SUCH_TABLE, f"table: no table {tid!r} here", "table", msg.TYPE)
                return
            if node != self.node:
                if isinstance(msg, JOINS):  # listen to the table's stream before the owner answers
                    await self._subscribe(self.channel("stream", tid))
                    self.relay_for(tid, node)
                env = {"k": "cmd", "n": self.node, "s": session.id, "p": session.player, "m": session.name,
                       "x": msg.to_wire(), "t": tid, "h": hops}
                try:
                    got = await self.store.publish(self.channel("node", node), pack([env]))
                except RedisUnavailable:
                    got = -1
                if got > 0:
                    self.metrics.forwarded.inc()
                    return
                self.owners.pop(tid, None)  # the owner does not listen: dead (its lease will expire) or cut off
            if loop.time() > deadline:
                session.error(ErrorCode.UNAVAILABLE, "table: its server is unreachable, try again", "table", msg.TYPE,
                              table=tid, seq=getattr(msg, "seq", None))
                return
            await asyncio.sleep(0.2)

    async def create_once(self, session: "Session", msg: I.CreateTable) -> None:
        """``create_table`` with a creation id: the first request makes the table, a retry (from any node,
        any connection) gets the seat of that table back with a new token, never a second table."""
        from server.table import new_table_id

        tid = new_table_id()
        try:
            existing = await self.store.claim_creation(msg.creation_id, tid, self.settings.creation_ttl_s)
        except RedisUnavailable:
            session.error(ErrorCode.UNAVAILABLE, "create_table: storage unreachable, try again", None, "create_table")
            return
        if existing is None:
            self.server.create_table(session, msg, tid)
        else:
            await self.forward(session, msg, table=existing, being_created=True)

    def reregister(self, tid: str, members: List[Tuple["Session", Optional[str], Optional[int]]]) -> None:
        """Tell the (new) owner of ``tid`` about connections here: seated ones resume with their token,
        the others watch from the last version they have."""
        for s, role, v in members:
            if s.closing:
                continue
            token = s.tokens.get(tid)
            if role == PLAYER and token:
                msg: I.Inbound = I.Resume(table=tid, token=token, v=v)
            else:
                msg = I.Watch(table=tid, v=v)
            self.background(self.forward(s, msg))

    # ----- relays (tables owned elsewhere) ---------------------------------------------------
    def relay_for(self, tid: str, owner: Optional[str]) -> Relay:
        relay = self.relays.get(tid)
        if relay is None:
            relay = self.relays[tid] = Relay(self, tid, owner)
            self.background(self._subscribe(self.channel("stream", tid)))
        elif owner is not None:
            relay.owner = owner
        relay.idle_since = time.monotonic()
        return relay

    def recover(self, relay: Relay) -> None:
        """Fill a relay's gap from the persisted history (once at a time); beyond it, ask the owner for snapshots."""
        if relay.recovering or self._stop.is_set():
            return
        relay.recovering = True
        self.background(self._recover(relay))

    async def _recover(self, relay: Relay) -> None:
        try:
            if relay.fresh:  # what was published before the subscription is in the persisted history
                await self._subscribe(self.channel("stream", relay.table))
            else:
                await asyncio.sleep(0.01)  # let a reordered message arrive first
            known = [m[1] for m in relay.members.values() if m[1] is not None]
            if not known:
                return
            low = min(known)
            try:
                rows = await self.store.stream_since(relay.table, low)
            except RedisUnavailable:
                return
            if rows:
                self.metrics.gaps_recovered.inc()
            first = rows[0][0] if rows else None
            relay.recovering = False
            for v, data in rows:
                relay.on_frame(v, data)
            relay.fresh = False
            for s, m in list(relay.members.items()):
                if m[1] is not None and m[1] < relay.top and (first is None or m[1] + 1 < first):
                    m[1] = None  # too far behind for the history: the owner sends a snapshot
                    self.request_resync(s, relay.table)
        finally:
            relay.recovering = False

    def request_resync(self, session: "Session", tid: str) -> None:
        relay = self.relays.get(tid)
        if relay is None:
            return
        relay.member(session)[1] = None
        self.metrics.cluster_resyncs.inc()
        self.background(self._post_to_owner(relay, {"k": "resync", "n": self.node, "s": session.id, "t": tid}))

    async def _post_to_owner(self, relay: Relay, env: Dict[str, Any]) -> None:
        node = relay.owner
        if node is None:
            try:
                node = await self.owner_of(relay.table)
            except RedisUnavailable:
                return
        if node is not None and node != self.node:
            relay.owner = node
            self.post(node, env)

    def session_gone(self, session: "Session", tid: str) -> None:
        """A connection here closed while at ``tid`` (owned elsewhere): the owner holds its seat for the grace period."""
        relay = self.relays.get(tid)
        if relay is None:
            return
        relay.remove(session)
        self.background(self._post_to_owner(relay, {"k": "gone", "n": self.node, "s": session.id, "t": [tid]}))

    def _collect(self) -> None:
        """Drop idle relays; disconnect the remote sessions of nodes that stopped beating."""
        now = time.monotonic()
        for tid, relay in list(self.relays.items()):
            if not relay.members and now - relay.idle_since > RELAY_IDLE_S:
                del self.relays[tid]
                self.background(self._unsubscribe(self.channel("stream", tid)))
        for key, proxy in list(self.proxies.items()):
            if key[0] not in self.live_nodes:
                self._proxy_gone(proxy, list(proxy.tables))

    def _proxy_gone(self, proxy: RemoteSession, tables: List[str]) -> None:
        for tid in tables:
            actor = self.server.tables.get(tid)
            if actor is not None:
                actor.submit_internal(actor.on_disconnect, proxy)
        if not proxy.tables or set(tables) >= proxy.tables:
            proxy.closing = True
            self.proxies.pop((proxy.node, proxy.id), None)

    def counts(self) -> Tuple[int, int, int]:
        """(spectators, players, relayed tables) of this node's connections at tables owned elsewhere."""
        sp = pl = 0
        for r in self.relays.values():
            a, b = r.counts()
            sp, pl = sp + a, pl + b
        return sp, pl, len(self.relays)

    # ----- envelopes -------------------------------------------------------------------------
    def remote_session(self, node: str, sid: str, player: str, name: str) -> RemoteSession:
        """The stand-in of connection ``sid`` of ``node`` at this process's tables (one per connection)."""
        key = (node, sid)
        proxy = self.proxies.get(key)
        if proxy is None or proxy.closing:
            proxy = self.proxies[key] = RemoteSession(self, node, sid, player, name)
        return proxy

    def _proxy(self, env: Dict[str, Any]) -> RemoteSession:
        return self.remote_session(env["n"], env["s"], env.get("p") or "", env.get("m") or "")

    def _on_cmd(self, env: Dict[str, Any]) -> None:
        proxy = self._proxy(env)
        try:
            msg = protocol.parse(env["x"])
        except ProtocolError as exc:  # a peer running another version
            proxy.error(exc.code, exc.message, exc.field, exc.ref)
            return
        tid = env["t"]
        actor = self.server.tables.get(tid)
        if actor is None or actor.closed:
            if tid in self.adopting:
                self.background(self._after_adoption(tid, env))
                return
            self.post(env["n"], {"k": "moved", "s": env["s"], "x": env["x"], "t": tid, "h": env.get("h", 0)})
            return
        if isinstance(msg, I.CreateTable):
            ok = actor.submit_internal(actor.reclaim_creation, proxy, msg)
        else:
            ok = actor.submit(proxy, msg)
        if not ok:
            proxy.error(ErrorCode.BUSY, "table: busy, try again", "table", msg.TYPE, table=tid, seq=getattr(msg, "seq", None))

    async def _after_adoption(self, tid: str, env: Dict[str, Any]) -> None:
        fut = self.adopting.get(tid)
        if fut is not None:
            await asyncio.shield(fut)
        self._on_cmd(env)

    def _on_moved(self, env: Dict[str, Any]) -> None:
        session = self.server.sessions.get(env["s"])
        if session is None:
            return
        tid = env["t"]
        self.owners.pop(tid, None)
        msg = protocol.parse(env["x"])
        if env.get("h", 0) >= MAX_HOPS:
            session.error(ErrorCode.UNAVAILABLE, "table: moving between servers, try again", "table", msg.TYPE,
                          table=tid, seq=getattr(msg, "seq", None))
            return
        self.background(self._forward_later(session, msg, tid, env.get("h", 0) + 1))

    async def _forward_later(self, session: "Session", msg: I.Inbound, tid: str, hops: int) -> None:
        await asyncio.sleep(0.1 * hops)  # the table is changing hands: give the adoption a moment
        await self.forward(session, msg, table=tid, hops=hops)

    def _on_gone(self, env: Dict[str, Any]) -> None:
        proxy = self.proxies.get((env["n"], env["s"]))
        if proxy is not None:
            self._proxy_gone(proxy, list(env["t"]))

    def _on_resync(self, env: Dict[str, Any]) -> None:
        proxy = self.proxies.get((env["n"], env["s"]))
        actor = self.server.tables.get(env["t"])
        if proxy is not None and actor is not None:
            actor.submit_internal(actor.resync, proxy)

    def _on_out(self, env: Dict[str, Any]) -> None:
        """A private reply from a table's owner to a connection here."""
        entry = env["e"]
        kind = entry[0]
        session = self.server.sessions.get(env["s"])
        if session is None or session.closing:
            if kind in ("seated", "snap", "pos"):  # answer to a connection that has gone: release it there
                self.post(env["n"], {"k": "gone", "n": self.node, "s": env["s"], "t": [entry[1]]})
            return
        if kind == "p":
            session.send_bytes(entry[1])
        elif kind == "seated":
            tid, token, data = entry[1], entry[2], entry[3]
            session.tokens[tid] = token
            session.quick = None
            session.tables.add(tid)
            self.relay_for(tid, env["n"]).member(session, PLAYER)
            session.send_bytes(data)
        elif kind == "snap":
            tid, v, data = entry[1], entry[2], entry[3]
            relay = self.relay_for(tid, env["n"])
            m = relay.member(session)
            session.tables.add(tid)
            session.send_bytes(data)
            m[1] = v
            session.caught_up(tid)
            relay.deliver()
        elif kind == "r":
            tid, v, data = entry[1], entry[2], entry[3]
            m = self.relay_for(tid, env["n"]).member(session)
            if m[1] is None or v > m[1]:
                session.send_bytes(data)
                m[1] = v
        elif kind == "pos":
            tid, v, role = entry[1], entry[2], entry[3]
            relay = self.relay_for(tid, env["n"])
            m = relay.member(session, role)
            m[1] = v if m[1] is None else max(m[1], v)
            session.tables.add(tid)
            relay.deliver()
            if relay.fresh:
                self.recover(relay)
        elif kind == "left":
            tid = entry[1]
            relay = self.relays.get(tid)
            if relay is not None:
                relay.remove(session)
            session.tables.discard(tid)
            session.tokens.pop(tid, None)
            session.send_bytes(entry[2])
        elif kind == "close":
            session.close(entry[1], entry[2])

    def _on_adopted(self, env: Dict[str, Any]) -> None:
        tid, node = env["t"], env["n"]
        if node == self.node:
            return
        self.owners[tid] = node
        relay = self.relays.get(tid)
        if relay is not None:
            relay.owner = node
            self.reregister(tid, [(s, m[0], m[1]) for s, m in relay.members.items()])

    def _on_released(self, env: Dict[str, Any]) -> None:
        tid = env["t"]
        self.owners.pop(tid, None)
        if not self.server.stopping and tid not in self.server.tables:
            self.background(self.adopt(tid))

    _HANDLERS = {
        "cmd": _on_cmd,
        "moved": _on_moved,
        "gone": _on_gone,
        "resync": _on_resync,
        "out": _on_out,
        "adopted": _on_adopted,
        "released": _on_released,
    }

    # ----- spectator counts of tables with members elsewhere -----------------------------------
    def publish_unversioned(self, tid: str, data: bytes) -> None:
        """Send an unversioned table message (the spectator count) to the other nodes' connections."""

        async def run():
            try:
                await self.store.publish(self.channel("stream", tid), frame_stream(None, data))
            except RedisUnavailable:
                pass

        self.background(run())


__all__ = ["Cluster", "RemoteSession", "Relay"]
