"""This process as one node of the cluster: leases, adoption, hand-over, the routing primitives, relays.

Several server processes (nodes) share one Redis; any of them serves any table.

**Ownership.** A table's actor runs on exactly one node: the one holding its lease
(``P lease:<id>`` = ``"<node>|<fence>"``, set with an expiry and renewed every
``lease_renew_s``). Every write of the table goes through a Lua script that checks the lease
first (:meth:`server.store.Store.write_table`), so a node that lost its lease (killed, cut from
Redis, paused) can never write again: the fence counter went up when another node adopted the
table. A node adopts a table whose lease expired or was released (``P leases`` lists expiries;
the acquiring script is atomic, so exactly one node wins), restoring it from the persisted
state and recent stream: seats keep their tokens and last sequence numbers, so no stroke is
lost or played twice.

**Routing.** :class:`server.hub.Hub` decides where a message goes; for a table owned elsewhere
it uses :meth:`Node.owner_of` and :meth:`Node.send_cmd` (a ``cmd`` envelope on the owner's
channel). The owner's actor sees the sender as a
:class:`~server.cluster.remote.RemoteConnection` and its private replies travel back in order
through the :class:`~server.cluster.outbox.Outbox` as ``out`` envelopes (server/cluster/wire.py).

**Fan-out.** The owner publishes every stream message once on ``P stream:<id>`` (in the same
script that persists it). Every node with connections at that table subscribes and fans the
same bytes out to them (:class:`~server.cluster.relay.Relay`): version numbers order the stream
against the private replies; a gap (a node briefly cut from Redis) is filled from the persisted
history (the last ``history_len`` messages) or, beyond it, by a snapshot from the owner. When a
table changes hands, every node re-registers its connections with the new owner (``resume``
with the seat token the connection was given, or ``watch`` with the last version), marked as
sent by the node itself (``auto``): such a resume never evicts a live connection that holds
the seat at the new owner.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Awaitable, Callable, Dict, List, Optional, Set, Tuple

import msgpack

import protocol
from protocol import inbound as I
from protocol.errors import ErrorCode, ProtocolError
from server.cluster import wire
from server.cluster.outbox import Outbox
from server.cluster.relay import Relay
from server.cluster.remote import RemoteConnection
from server.config import Settings
from server.conn import Connection
from server.metrics import Metrics
from server.registry import Registry
from server.store import Bus, RedisUnavailable, Store, unframe_stream
from server.table.feed import PLAYER
from server.tasks import Background

log = logging.getLogger("billar.cluster")

MAX_HOPS = 6  # a message bounced by processes that no longer own its table (a hand-over in progress)
RELAY_IDLE_S = 10.0
RECOVER_ATTEMPTS = 5  # reads of the persisted history tried to fill one gap

#: ``route(connection, message, table=None, hops=0, auto=False)``: the hub's router (server/hub.py)
Route = Callable[..., Awaitable[None]]


class Node:
    """This node's part of the cluster. ``sessions``: this process's connections by id (shared with the app)."""

    def __init__(self, settings: Settings, metrics: Metrics, store: Store, bus: Bus, outbox: Outbox, registry: Registry,
                 sessions: Dict[str, Any]):
        self.settings, self.metrics, self.store, self.bus, self.outbox = settings, metrics, store, bus, outbox
        self.registry, self.sessions = registry, sessions
        self.node = settings.node
        self.route: Optional[Route] = None  # set by the hub
        self.proxies: Dict[Tuple[str, str], RemoteConnection] = {}
        self.relays: Dict[str, Relay] = {}
        self.owners: Dict[str, str] = {}  # table -> node, a cache (checked by the owner, which answers ``moved``)
        self.adopting: Dict[str, asyncio.Future] = {}
        self.live_nodes: Set[str] = set()
        self._tasks: List[asyncio.Task] = []
        self._bg = Background()
        self._stop = asyncio.Event()
        registry.on_lost = self.table_lost

    # ----- lifecycle -------------------------------------------------------------------------
    def channel(self, *parts: Any) -> str:
        return self.store.key(*parts)

    def register_channels(self) -> None:
        """Tell the bus what this node listens to (before the bus starts)."""
        self.store.lease_ttl_ms = int(self.settings.lease_ttl_s * 1000)
        self.bus.on(self.channel("node", self.node), self._on_envelopes)
        self.bus.on(self.channel("cluster"), self._on_envelopes)
        self.bus.on_prefix(self.channel("stream", ""), self._on_stream)
        self.bus.reconnected.append(self._after_bus_cut)

    async def start(self) -> None:
        """Join the cluster (the bus already runs): heartbeat, adopt every table nobody holds (a restart resumes
        them), then renew leases in the background. Raises ``RuntimeError`` when Redis stays unreachable."""
        for _ in range(20):
            try:
                self.live_nodes = set(await self.store.heartbeat(self.node, self.store.lease_ttl_ms))
                break
            except RedisUnavailable:
                await asyncio.sleep(0.5)
        else:
            raise RuntimeError("redis: unreachable at start; cannot restore tables")
        await self.scan_orphans(strays=True)
        self._tasks.append(asyncio.get_running_loop().create_task(self._lease_loop(), name="cluster-leases"))

    async def stop(self) -> None:
        """Leave the cluster (after the tables were handed over): stop the background work, say goodbye."""
        self._stop.set()
        await self._bg.wait(3.0)
        try:
            await self.store.heartbeat(self.node, 0)
        except RedisUnavailable:
            pass
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def background(self, coro) -> None:
        self._bg.spawn(coro)

    # ----- the bus -----------------------------------------------------------------------------
    def _on_stream(self, table: str, data: bytes) -> None:
        relay = self.relays.get(table)
        if relay is not None:
            v, body = unframe_stream(data)
            relay.on_frame(v, body)

    def _on_envelopes(self, data: bytes) -> None:
        for env in wire.unpack(data):
            handler = self._HANDLERS.get(env.get("k"))
            if handler is not None:
                handler(self, env)

    def _after_bus_cut(self) -> None:
        """Back after a cut: fill what was published meanwhile, tell owners where our connections stand."""
        log.info("bus reconnected; recovering relayed tables", extra={"tables": len(self.relays)})
        for relay in list(self.relays.values()):
            relay.fresh = True
            self.background(self._recover_and_reregister(relay))

    async def _recover_and_reregister(self, relay: Relay) -> None:
        """After a cut: fill the relay's gap from the persisted history first, then tell the owner where each
        connection stands (it replays or snapshots only what the history could not give)."""
        while relay.recovering:
            await asyncio.sleep(0.01)
        relay.recovering = True
        await self._recover(relay)
        self.reregister(relay.table, [(s, m[0], m[1]) for s, m in relay.members.items()])

    def post(self, node: str, env: wire.Envelope) -> None:
        self.outbox.post(node, env)

    # ----- leases ----------------------------------------------------------------------------
    async def _lease_loop(self) -> None:
        last_scan = 0.0
        while not self._stop.is_set() and not self.registry.stopping:
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
        owned = {t.id: t.lease for t in self.registry.values() if not t.closed and t.lease and t.lease_at < fresh}
        if not owned:
            return
        for tid in await self.store.renew(self.node, owned):
            actor = self.registry.get(tid)
            if actor is not None and actor.lease == owned[tid]:
                self.table_lost(actor)

    async def scan_orphans(self, strays: bool = False) -> None:
        """Adopt tables whose lease expired or was released (``strays``: also persisted tables never leased)."""
        if self.registry.stopping:
            return
        for tid in await self.store.orphans(limit=500, strays=strays):
            if self.registry.get(tid) is None and tid not in self.adopting:
                await self.adopt(tid)

    async def adopt(self, tid: str) -> bool:
        """Take table ``tid`` over from the persisted state if nobody holds it; True when this node now owns it."""
        if self.registry.get(tid) is not None:
            return True
        pending = self.adopting.get(tid)
        if pending is not None:
            return await asyncio.shield(pending)
        if self.registry.stopping:
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
        lease = await self.store.acquire(tid, self.node)
        if lease is None:
            return False
        row = await self.store.load_table(tid)
        if row is None:
            await self.store.release(tid, lease)
            return False
        state = msgpack.unpackb(row[0], raw=False, strict_map_key=False)
        actor = await self.registry.restore(state, row[1], lease)
        self.owners.pop(tid, None)
        self.metrics.tables_adopted.inc()
        log.info("table adopted", extra={"table": tid, "lease": lease, "version": actor.version})
        relay = self.relays.pop(tid, None)
        if relay is not None:  # connections here that watched it elsewhere now belong to the local actor
            self.background(self.bus.unsubscribe(self.channel("stream", tid)))
            self.reregister(tid, [(s, m[0], m[1]) for s, m in relay.members.items()])
        self.background(self._notify(wire.adopted(tid, self.node)))
        return True

    async def _notify(self, env: wire.Envelope) -> None:
        try:
            await self.store.publish(self.channel("cluster"), wire.pack([env]))
        except RedisUnavailable:
            pass

    def table_lost(self, actor: Any) -> None:
        """Another node holds the table now (this one was cut off or paused): stop its actor without
        writing, and keep this node's live connections at the table through a relay of the new owner."""
        if actor.closed:
            return
        self.metrics.leases_lost.inc()
        log.warning("lease lost; the table continues elsewhere", extra={"table": actor.id, "lease": actor.lease})
        members = [(s, role, None if s.is_behind(actor.id) else actor.published_version())
                   for s, role in actor.feed.members.items() if not s.remote and not s.computer and not s.closing]
        actor.abandon()
        self.registry.closed(actor)
        if members and not self.registry.stopping:
            relay = self.relay_for(actor.id, None)
            for s, role, v in members:
                relay.member(s, role)[1] = v
            self.reregister(actor.id, members)

    async def hand_over(self, actor: Any) -> bool:
        """SIGTERM: the actor has stopped and flushed; release its lease so that a peer adopts it at once."""
        if actor.lease is None:
            return False
        try:
            ok = await self.store.release(actor.id, actor.lease)
        except RedisUnavailable:
            return False
        if ok:
            await self._notify(wire.released(actor.id))
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

    # ----- routing primitives (the hub decides) ---------------------------------------------------
    async def owner_of(self, tid: str) -> Optional[str]:
        """The node owning ``tid`` (this node after adopting an orphan), or None when there is no such table.
        Raises :class:`RedisUnavailable`."""
        for _ in range(4):
            if self.registry.get(tid) is not None:
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

    async def send_cmd(self, owner: str, conn: Connection, msg: I.Inbound, tid: str, hops: int, auto: bool = False) -> bool:
        """Forward ``msg`` of local connection ``conn`` to node ``owner``; False when nobody listens there (that
        node is dead or cut off: its lease will expire). For a join, watch or resume, this node listens to the
        table's stream first, so that nothing published after the owner's answer is missed."""
        if isinstance(msg, (I.Join, I.Watch, I.Resume, I.CreateTable)):
            await self.bus.subscribe(self.channel("stream", tid))
            self.relay_for(tid, owner)
        env = wire.cmd(self.node, conn.id, conn.player, conn.name, msg.to_wire(), tid, hops, auto, conn.account_id)
        try:
            got = await self.store.publish(self.channel("node", owner), wire.pack([env]))
        except RedisUnavailable:
            got = -1
        if got > 0:
            self.metrics.forwarded.inc()
            return True
        self.owners.pop(tid, None)
        return False

    async def node_listens(self, node: str) -> bool:
        """Whether ``node`` is alive right now: its heartbeat has not expired and its bus receives its channel."""
        if node == self.node:
            return True
        try:
            if node not in set(await self.store.heartbeat(self.node, -1)):
                return False
            return await self.store.publish(self.channel("node", node), wire.pack([])) > 0
        except RedisUnavailable:
            return False

    def reregister(self, tid: str, members: List[Tuple[Connection, Optional[str], Optional[int]]]) -> None:
        """Tell the (new) owner of ``tid`` about live connections here: seated ones resume with their token,
        the others watch from the last version they have. Sent as the node's own (``auto``): such a resume never
        evicts a live connection that holds the seat there."""
        for s, role, v in members:
            if s.closing:
                continue
            token = s.tokens.get(tid)
            if role == PLAYER and token:
                msg: I.Inbound = I.Resume(table=tid, token=token, v=v)
            else:
                msg = I.Watch(table=tid, v=v)
            self.background(self.route(s, msg, auto=True))

    # ----- relays (tables owned elsewhere) ---------------------------------------------------
    def relay_for(self, tid: str, owner: Optional[str]) -> Relay:
        relay = self.relays.get(tid)
        if relay is None:
            relay = self.relays[tid] = Relay(self, tid, owner)
            self.background(self.bus.subscribe(self.channel("stream", tid)))
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
                await self.bus.subscribe(self.channel("stream", relay.table))
            else:
                await asyncio.sleep(0.01)  # let a reordered message arrive first
            known = [m[1] for m in relay.members.values() if m[1] is not None]
            if not known:
                return
            low = min(known)
            rows = None
            for _ in range(RECOVER_ATTEMPTS):  # the first command after a cut may meet a dead pooled connection
                try:
                    rows = await self.store.stream_since(relay.table, low)
                    break
                except RedisUnavailable:
                    await asyncio.sleep(0.1)
            if rows is None:
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

    def request_resync(self, session: Connection, tid: str) -> None:
        relay = self.relays.get(tid)
        if relay is None:
            return
        relay.member(session)[1] = None
        self.metrics.cluster_resyncs.inc()
        self.background(self._post_to_owner(relay, wire.resync(self.node, session.id, tid)))

    async def _post_to_owner(self, relay: Relay, env: wire.Envelope) -> None:
        node = relay.owner
        if node is None:
            try:
                node = await self.owner_of(relay.table)
            except RedisUnavailable:
                return
        if node is not None and node != self.node:
            relay.owner = node
            self.post(node, env)

    def session_gone(self, session: Connection, tid: str) -> None:
        """A connection here closed while at ``tid`` (owned elsewhere): the owner holds its seat for the grace period."""
        relay = self.relays.get(tid)
        if relay is None:
            return
        relay.remove(session)
        self.background(self._post_to_owner(relay, wire.gone(self.node, session.id, [tid])))

    def _collect(self) -> None:
        """Drop idle relays; disconnect the remote connections of nodes that stopped beating."""
        now = time.monotonic()
        for tid, relay in list(self.relays.items()):
            if not relay.members and now - relay.idle_since > RELAY_IDLE_S:
                del self.relays[tid]
                self.background(self.bus.unsubscribe(self.channel("stream", tid)))
        for key, proxy in list(self.proxies.items()):
            if key[0] not in self.live_nodes:
                self._proxy_gone(proxy, list(proxy.tables))

    def _proxy_gone(self, proxy: RemoteConnection, tables: List[str]) -> None:
        for tid in tables:
            actor = self.registry.get(tid)
            if actor is not None:
                actor.disconnected(proxy)
        if not proxy.tables or set(tables) >= proxy.tables:
            proxy.gone = True
            self.proxies.pop((proxy.peer, proxy.id), None)

    def counts(self) -> Tuple[int, int, int]:
        """(spectators, players, relayed tables) of this node's connections at tables owned elsewhere."""
        sp = pl = 0
        for r in self.relays.values():
            a, b = r.counts()
            sp, pl = sp + a, pl + b
        return sp, pl, len(self.relays)

    # ----- envelopes -------------------------------------------------------------------------
    def remote_connection(self, node: str, sid: str, player: str, name: str,
                          account_id: Optional[int] = None) -> RemoteConnection:
        """The stand-in of connection ``sid`` of ``node`` at this process's tables (one per connection)."""
        key = (node, sid)
        proxy = self.proxies.get(key)
        if proxy is None or proxy.closing:
            proxy = self.proxies[key] = RemoteConnection(self.outbox, self.metrics, self.node, node, sid, player, name,
                                                         account_id)
        return proxy

    def _proxy(self, env: wire.Envelope) -> RemoteConnection:
        acc = env.get("c")
        return self.remote_connection(env["n"], env["s"], env.get("p") or "", env.get("m") or "",
                                      acc if isinstance(acc, int) and not isinstance(acc, bool) else None)

    def _on_cmd(self, env: wire.Envelope) -> None:
        proxy = self._proxy(env)
        try:
            msg = protocol.parse(env["x"])
        except ProtocolError as exc:  # a peer running another version
            proxy.error(exc.code, exc.message, exc.field, exc.ref)
            return
        tid = env["t"]
        actor = self.registry.get(tid)
        if actor is None:
            if tid in self.adopting:
                self.background(self._after_adoption(tid, env))
                return
            self.post(env["n"], wire.moved(env["s"], env["x"], tid, env.get("h", 0), bool(env.get("a"))))
            return
        if isinstance(msg, I.CreateTable):
            ok = actor.reclaim(proxy, msg)
        else:
            ok = actor.submit(proxy, msg, auto=bool(env.get("a")))
        if not ok:
            proxy.error(ErrorCode.BUSY, "table: busy, try again", "table", msg.TYPE, table=tid, seq=getattr(msg, "seq", None))

    async def _after_adoption(self, tid: str, env: wire.Envelope) -> None:
        fut = self.adopting.get(tid)
        if fut is not None:
            await asyncio.shield(fut)
        self._on_cmd(env)

    def _on_moved(self, env: wire.Envelope) -> None:
        session = self.sessions.get(env["s"])
        if session is None:
            return
        tid = env["t"]
        self.owners.pop(tid, None)
        msg = protocol.parse(env["x"])
        if env.get("h", 0) >= MAX_HOPS:
            session.error(ErrorCode.UNAVAILABLE, "table: moving between servers, try again", "table", msg.TYPE,
                          table=tid, seq=getattr(msg, "seq", None))
            return
        self.background(self._route_later(session, msg, tid, env.get("h", 0) + 1, bool(env.get("a"))))

    async def _route_later(self, session: Connection, msg: I.Inbound, tid: str, hops: int, auto: bool) -> None:
        await asyncio.sleep(0.1 * hops)  # the table is changing hands: give the adoption a moment
        await self.route(session, msg, table=tid, hops=hops, auto=auto)

    def _on_gone(self, env: wire.Envelope) -> None:
        proxy = self.proxies.get((env["n"], env["s"]))
        if proxy is not None:
            self._proxy_gone(proxy, list(env["t"]))

    def _on_resync(self, env: wire.Envelope) -> None:
        proxy = self.proxies.get((env["n"], env["s"]))
        actor = self.registry.get(env["t"])
        if proxy is not None and actor is not None:
            actor.resync(proxy)

    def _on_out(self, env: wire.Envelope) -> None:
        """A private reply from a table's owner to a connection here."""
        entry = env["e"]
        kind = entry[0]
        session = self.sessions.get(env["s"])
        if session is None or session.closing:
            if kind in ("seated", "snap", "pos"):  # answer to a connection that has gone: release it there
                self.post(env["n"], wire.gone(self.node, env["s"], [entry[1]]))
            return
        if kind == "p":
            session.send_bytes(entry[1])
        elif kind == "seated":
            tid, token, data = entry[1], entry[2], entry[3]
            session.remember_seat(tid, token)
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
            session.forget_seat(tid)
            session.send_bytes(entry[2])
        elif kind == "close":
            session.close(entry[1], entry[2])

    def _on_adopted(self, env: wire.Envelope) -> None:
        tid, node = env["t"], env["n"]
        if node == self.node:
            return
        self.owners[tid] = node
        relay = self.relays.get(tid)
        if relay is not None:
            relay.owner = node
            self.reregister(tid, [(s, m[0], m[1]) for s, m in relay.members.items()])

    def _on_released(self, env: wire.Envelope) -> None:
        tid = env["t"]
        self.owners.pop(tid, None)
        if not self.registry.stopping and self.registry.get(tid) is None:
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


__all__ = ["Node"]
