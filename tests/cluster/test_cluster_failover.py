"""A process dies, drains or is cut from Redis: the tables go on elsewhere, nothing lost, nothing played twice.

Real ``billar serve --cluster`` processes on loopback and real Redis. The default lease is 4 s,
renewed every second, and orphans are looked for every second: a killed owner's tables must be
adopted well within 10 s.
"""

import asyncio
import json
import time
import urllib.request

import pytest
import redis as redis_sync

from cluster_harness import Match, Node, next_stream, plan_miss, pump, start_nodes, stop_nodes
from protocol import inbound as I
from protocol.errors import CloseCode
from test_cluster_game import CAROM, watch

MAX_ACTIONS = 80


async def table_on(owner_client, seat0, seat1, config=CAROM):
    """``owner_client`` creates a three-cushion table without a seat (its process owns it) and watches;
    ``seat0`` and ``seat1`` join through their own processes. Returns (tid, token0, token1, snapshot at v2)."""
    await owner_client.send(I.CreateTable(discipline="three_cushion", config=config, seat=None))
    tid = (await owner_client.expect("table_snapshot", v=0))["table"]
    tokens = []
    for i, cl in enumerate((seat0, seat1)):
        await cl.send(I.Join(table=tid, seat=i))
        tokens.append((await cl.expect("seated", seat=i))["token"])
        await cl.expect("table_snapshot", v=i)
    for cl in (seat0, seat1, owner_client):
        while True:
            m = await cl.recv()
            if m["type"] == "seats" and m["v"] == 2:
                break
    await owner_client.send(I.Watch(table=tid))  # a snapshot at v2 to start the mirror from
    snap = await owner_client.expect("table_snapshot", v=2)
    return tid, tokens[0], tokens[1], snap


def redis_get(url, key):
    r = redis_sync.Redis.from_url(url)
    try:
        return r.get(key)
    finally:
        r.close()


async def owners(nodes):
    """{node name: number of tables it owns} of the live nodes."""
    out = {}
    for n in nodes:
        if n.alive():
            out[n.name] = (await n.health())["tables"]
    return out


async def finish(match: Match) -> None:
    for _ in range(MAX_ACTIONS):
        if match.state["over"]:
            return
        await match.step()
    raise AssertionError("the game did not finish")


async def record_strokes(node: Node, tid: str):
    body = await asyncio.to_thread(
        lambda: urllib.request.urlopen(f"http://127.0.0.1:{node.port}/records/{tid}.json", timeout=5).read())
    rec = json.loads(body)
    return rec, [s for s in rec["strokes"] if s.get("stroke") and "sim" in s]


async def test_sigkill_of_the_owner_mid_game(redis_url, prefix, tmp_path):
    a, b, c = await start_nodes(redis_url, prefix, str(tmp_path), ["a", "b", "c"])
    try:
        sue = await a.client("sue")  # a spectator on the process that will die; she made the table
        ann, bob, cy = await b.client("ann"), await c.client("bob"), await c.client("cy")
        tid, ta, tb, snap = await table_on(sue, ann, bob)
        await watch(cy, tid)
        assert await owners([a, b, c]) == {"a": 1, "b": 0, "c": 0}
        match = Match(tid, {0: [ann, ta], 1: [bob, tb]}, [cy], snap)
        for _ in range(3):
            await match.step()
            await next_stream(sue)
        sue_v = match.v
        # a stroke on its way when the owner dies: it is played once, before or after the failover
        moves = match.action()
        for seat, msg in moves:
            await match.seats[seat][0].send(msg)
        a.kill()
        t0 = time.monotonic()
        for _ in range(200):
            own = await owners([b, c])
            if sum(own.values()):
                break
            await asyncio.sleep(0.05)
        took = time.monotonic() - t0
        assert sum(own.values()) == 1, own  # two survivors raced for it: exactly one won
        assert took < 10.0, f"adopted after {took:.1f} s"
        adopted = [(await n.metrics())["billar_tables_adopted_total"] for n in (b, c)]
        assert sorted(adopted) == [0, 1]
        assert redis_get(redis_url, f"{prefix}fence:{tid}") == b"1"  # one adoption: the fence went up once
        # the survivors' connections are re-registered with the new owner by themselves: both players are
        # seated again (connected), the spectator goes on; the stroke in flight arrives, or is sent again
        # (the stroke, persisted before the kill, may come before the seats messages of the re-registrations)
        seq_pending = {seat: msg.seq for seat, msg in moves}
        played = False
        while True:
            m = await match.receive()
            if m["type"] == "stroke" and any(s["seq"] == seq_pending.get(s["seat"]) for s in m["shots"]):
                played = True
                continue
            assert m["type"] == "seats", m
            if all(s and s["connected"] for s in m["seats"]):
                break
        if not played:  # not persisted before the kill: nobody saw it, so it is sent again with the same seq
            for seat, msg in moves:
                await match.seats[seat][0].send(msg)
            while True:
                m = await match.receive()
                if m["type"] in ("stroke", "ruling"):
                    break
        # sent once more, it is answered as a repeat, never played twice
        seat, msg = moves[-1]
        await match.seats[seat][0].send(msg)
        err = await match.seats[seat][0].expect("error", code="duplicate_sequence", seq=msg.seq)
        assert err["v"] <= match.v
        # sue reconnects through another process and catches up from her last version (gap replay)
        sue2 = await b.client("sue")
        await sue2.send(I.Watch(table=tid, v=sue_v))
        replay = [await sue2.recv() for _ in range(match.v - sue_v)]
        assert [m["v"] for m in replay] == list(range(sue_v + 1, match.v + 1))
        assert sue2.raw[1:] == match.stream[len(match.stream) - (match.v - sue_v):]  # (raw[0]: welcome)
        match.watchers.append(sue2)
        await finish(match)
        rec, strokes = await record_strokes(b, tid)
        assert len(strokes) == match.strokes  # nothing lost, nothing played twice
        seqs = [(s["player"], s["seq"]) for s in rec["strokes"] if s.get("seq") is not None]
        assert len(seqs) == len(set(seqs))
        assert rec["result"] == match.state["result"]
    finally:
        stop_nodes([a, b, c])
    for n in (b, c):
        assert n.proc.returncode == 0 and "Traceback" not in n.stderr(), n.stderr()[-3000:]


async def test_sigterm_drains_the_tables_to_another_process(redis_url, prefix, tmp_path):
    a, b = await start_nodes(redis_url, prefix, str(tmp_path), ["a", "b"])
    try:
        ann = await a.client("ann")
        bob, cy = await b.client("bob"), await b.client("cy")
        host = await a.client("host")
        tid, ta, tb, snap = await table_on(host, ann, bob)
        await watch(cy, tid)
        match = Match(tid, {0: [ann, ta], 1: [bob, tb]}, [cy], snap)
        for _ in range(2):
            await match.step()
        b_node = (await b.health())["node"]
        a.term()
        # before a lets its clients go, b holds the table
        msg = await next_stream(ann)
        assert msg["type"] == "shutdown" and msg["retry_ms"] > 0
        lease = redis_get(redis_url, f"{prefix}lease:{tid}")
        assert lease is not None and lease.decode().startswith(b_node + "|")
        assert await ann.closed() == CloseCode.SERVICE_RESTART
        assert await a.wait() == 0
        assert "Traceback" not in a.stderr(), a.stderr()[-3000:]
        assert await owners([b]) == {"b": 1}
        # bob (re-registered with b's actor by b itself) sees ann's seat held; ann comes back through b
        ann2 = await b.client("ann")
        await ann2.send(I.Resume(table=tid, token=ta, v=match.v))
        await ann2.expect("seated", seat=0)
        match.seats[0][0] = ann2
        match.watchers = [cy]
        last = []
        for cl in (bob, cy, ann2):  # each reaches the seats message where both players are back, same bytes
            while True:
                m = await next_stream(cl)
                if m["type"] == "seats" and all(s["connected"] for s in m["seats"]):
                    break
                assert m["type"] == "seats", m
            last.append((m["v"], cl.raw[-1]))
        assert last[0] == last[1] == last[2]
        match.v = last[0][0]
        match.stream.append(last[0][1])
        await finish(match)
        rec, strokes = await record_strokes(b, tid)
        assert len(strokes) == match.strokes and rec["result"] == match.state["result"]
    finally:
        stop_nodes([a, b])


class RedisCut:
    """A TCP proxy in front of Redis for one process: :meth:`cut` drops its connections and refuses new ones."""

    def __init__(self, redis_url):
        self.url = redis_url
        self.server = None
        self.port = 0
        self.pipes = set()

    async def _target(self):
        if self.url.startswith("unix://"):
            return await asyncio.open_unix_connection(self.url[len("unix://"):].split("?")[0])
        r = redis_sync.Redis.from_url(self.url).connection_pool.connection_kwargs
        return await asyncio.open_connection(r.get("host", "127.0.0.1"), r.get("port", 6379))

    async def _handle(self, reader, writer):
        try:
            tr, tw = await self._target()
        except OSError:
            writer.close()
            return

        tasks = {asyncio.ensure_future(pump(reader, tw)), asyncio.ensure_future(pump(tr, writer))}
        self.pipes |= tasks
        await asyncio.gather(*tasks, return_exceptions=True)
        self.pipes -= tasks

    async def start(self, port=0):
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", port)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    def proxied_url(self):
        db = redis_sync.Redis.from_url(self.url).connection_pool.connection_kwargs.get("db", 0)
        return f"redis://127.0.0.1:{self.port}/{db}"

    async def cut(self):
        self.server.close()
        for t in list(self.pipes):
            t.cancel()
        await asyncio.sleep(0.05)

    async def restore(self):
        await self.start(self.port)


async def test_a_process_briefly_cut_from_redis_recovers_what_was_published(redis_url, prefix, tmp_path):
    cut = await RedisCut(redis_url).start()
    a = await Node(redis_url, prefix, "a").start(str(tmp_path))
    b = await Node(cut.proxied_url(), prefix, "b").start(str(tmp_path))
    try:
        ann, bob, host = await a.client("ann"), await a.client("bob"), await a.client("host")
        cy = await b.client("cy")  # a spectator on the process that will be cut off
        tid, ta, tb, snap = await table_on(host, ann, bob, config={"distance": 8, "breaker": 0})
        await watch(cy, tid)
        match = Match(tid, {0: [ann, ta], 1: [bob, tb]}, [], snap, plan=plan_miss)
        await match.step()
        seen = [cy.raw[-1]] if (await next_stream(cy))["v"] == match.v else []
        assert seen and seen[-1] == match.stream[-1]
        await cut.cut()
        for _ in range(3):  # published while b cannot hear it
            if match.state["over"]:
                break
            await match.step()
        await asyncio.sleep(0.5)
        assert (await b.metrics())["billar_redis_errors_total"] >= 1
        await cut.restore()
        # b reconnects, finds the gap in the table's persisted history and sends it, in order, same bytes
        missed = match.stream[-(len(match.stream) - 1):]
        got = [await next_stream(cy) for _ in missed]
        assert [m["v"] for m in got] == list(range(match.v - len(missed) + 1, match.v + 1))
        assert cy.raw[-len(missed):] == missed
        assert (await b.metrics())["billar_cluster_gaps_recovered_total"] >= 1
        match.watchers.append(cy)
        if not match.state["over"]:
            await match.step()  # and the stream goes on through b
    finally:
        await asyncio.to_thread(stop_nodes, [a, b])  # (the proxy runs on this event loop: keep it turning)
        await cut.cut()
    for n in (a, b):
        assert n.proc.returncode == 0, n.stderr()[-3000:]


async def test_lease_contention_and_fencing_in_redis(redis_url, prefix):
    """Two stores race to adopt one table (exactly one wins); the loser's writes are refused whole."""
    from server.metrics import Metrics
    from server.store import Fenced, Store, TableWrite

    s1, s2 = Store(redis_url, prefix, Metrics()), Store(redis_url, prefix, Metrics())
    try:
        first = s1.lease_value("n1", 0)
        await s1.write_table(TableWrite("T", state=b"v1", stream=[(1, b"m1")], lease=first))
        assert await s2.acquire("T", "n2") is None  # held
        assert await s1.release("T", first)
        results = await asyncio.gather(*[(s1 if i % 2 else s2).acquire("T", f"n{i % 2 + 1}") for i in range(40)])
        winners = [r for r in results if r is not None]
        assert len(winners) == 1 and winners[0].endswith("|2")  # released (+1), adopted (+1)
        loser = s1 if winners[0].startswith("n2") else s2
        with pytest.raises(Fenced):
            await loser.write_table(TableWrite("T", state=b"stale", stream=[(2, b"m2")], lease=first))
        r = redis_sync.Redis.from_url(redis_url)
        try:
            assert r.get(f"{prefix}table:T") == b"v1" and r.zcard(f"{prefix}stream:T") == 1
        finally:
            r.close()
        winner_store = s2 if loser is s1 else s1
        await winner_store.write_table(TableWrite("T", state=b"v2", stream=[(2, b"m2")], lease=winners[0]))
        assert [v for v, _ in await s1.stream_since("T", 0)] == [1, 2]
    finally:
        await s1.close()
        await s2.close()


async def test_group_commit_one_pipeline_each_write_fenced_on_its_own(redis_url, prefix):
    """Fenced writes made in one event-loop iteration go out in one socket write (``Store.write_batches`` counts
    them; redis-py's pipeline is not used for them); a stale lease refuses only its own table's write; a script
    unknown to Redis (flushed, restarted) is loaded and the writes sent again, together."""
    import uuid

    from server.store import scripts
    from server.metrics import Metrics
    from server.store import Fenced, Store, TableWrite

    s = Store(redis_url, prefix, Metrics())
    pipelines = []
    real = s.redis.pipeline

    def counting(*a, **kw):
        pipelines.append(kw.get("transaction"))
        return real(*a, **kw)

    s.redis.pipeline = counting
    try:
        leases = {t: s.lease_value("n1", 0) for t in ("A", "B", "C")}
        await asyncio.gather(*[s.write_table(TableWrite(t, state=t.encode(), lease=v)) for t, v in leases.items()])
        assert s.write_batches == 1 and pipelines == []
        assert await s.acquire("B", "n2") is None  # B is held by n1: nobody adopts it
        assert await s.release("B", leases["B"])
        stolen = await s.acquire("B", "n2")
        assert stolen == "n2|2"
        out = await asyncio.gather(*[s.write_table(TableWrite(t, state=t.encode() + b"2", stream=[(1, b"m")], lease=v))
                                     for t, v in leases.items()], return_exceptions=True)
        assert s.write_batches == 2 and pipelines == []
        assert out[0] is None and isinstance(out[1], Fenced) and out[2] is None
        r = redis_sync.Redis.from_url(redis_url)
        try:
            assert [r.get(f"{prefix}table:{t}") for t in "ABC"] == [b"A2", b"B", b"C2"]
            assert r.zcard(f"{prefix}stream:B") == 0 and r.zcard(f"{prefix}stream:A") == 1
        finally:
            r.close()
        # a fenced-write script Redis has never seen: NOSCRIPT, loaded, sent again, written
        s._fenced_write = s.redis.register_script(scripts.FENCED_WRITE + f"\n-- {uuid.uuid4().hex}")
        await asyncio.gather(s.write_table(TableWrite("A", state=b"A3", lease=leases["A"])),
                             s.write_table(TableWrite("C", state=b"C3", lease=leases["C"])))
        assert s.write_batches == 4  # the batch, then its second attempt
        r = redis_sync.Redis.from_url(redis_url)
        try:
            assert r.get(f"{prefix}table:A") == b"A3" and r.get(f"{prefix}table:C") == b"C3"
        finally:
            r.close()
    finally:
        await s.close()
