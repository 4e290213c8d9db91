"""Several server processes around one Redis: a game whose players and spectators are on different processes.

Real ``billar serve --cluster`` processes on loopback, real WebSocket clients, real Redis (the
embedded one, and ``REDIS_URL`` when set).
"""

import asyncio
import json
import urllib.request

import msgpack
import redis as redis_sync

from cluster_harness import Match, next_stream, start_nodes, stop_nodes
from harness import wait_for
from protocol import inbound as I

CAROM = {"distance": 2, "breaker": 0}
MAX_ACTIONS = 80


async def seat_two(owner_client, joiner, discipline="three_cushion", config=CAROM):
    """ann creates a table on her process, bob joins through his: (tid, token a, token b, snapshot at v2)."""
    await owner_client.send(I.CreateTable(discipline=discipline, config=config))
    sa = await owner_client.expect("seated", seat=0)
    tid = sa["table"]
    await owner_client.expect("table_snapshot", v=0)
    await owner_client.expect("seats", v=1)
    await joiner.send(I.Join(table=tid))
    sb = await joiner.expect("seated", seat=1)
    snap = await joiner.expect("table_snapshot", v=1)
    assert snap["seats"][0]["name"] == "ann"
    await joiner.expect("seats", v=2)
    await owner_client.expect("seats", v=2)
    return tid, sa["token"], sb["token"]


async def watch(client, tid, v=2):
    await client.send(I.Watch(table=tid))
    return await client.expect("table_snapshot", v=v)


async def test_a_game_across_processes_with_spectators_on_a_third(redis_url, prefix, tmp_path):
    a, b, c = await start_nodes(redis_url, prefix, str(tmp_path), ["a", "b", "c"])
    try:
        ann, al = await a.client("ann"), await a.client("al")  # al: a spectator on the owner's process
        bob = await b.client("bob")
        cy = await c.client("cy")  # a spectator on a third process
        tid, ta, tb = await seat_two(ann, bob)
        snap = await watch(cy, tid)
        await watch(al, tid)
        assert (await a.health())["tables"] == 1 and (await b.health())["tables"] == 0
        # the lobby and the presence agree whichever process is asked: both spectators are counted
        for node, name in ((b, "lb"), (c, "lc")):
            w = await node.client(name)
            await w.send(I.LobbySubscribe())
            lst = await w.expect("lobby")
            assert lst["online"] == 5  # ann, al, bob, cy and this one (lb has left by the time lc asks)
            entry = next(t for t in lst["tables"] if t["table"] == tid)
            while entry["spectators"] != 2:
                up = await w.recv(5.0)
                if up["type"] == "lobby_update" and up["table"]["table"] == tid:
                    entry = up["table"]
            assert entry["seats"] == ["ann", "bob"] and entry["status"] == "playing"
            await w.close()
        for _ in range(20):  # the unversioned spectator count reaches process c too
            await cy.silent(0.25)
            if 2 in cy.spectator_counts:
                break
        assert cy.spectator_counts[-1] == 2

        match = Match(tid, {0: [ann, ta], 1: [bob, tb]}, [cy, al], snap)
        for _ in range(MAX_ACTIONS):
            if match.state["over"]:
                break
            await match.step()
        assert match.state["over"], "the game did not finish"
        assert match.v == 2 + len(match.stream) and match.strokes >= 2

        # a repeated sequence number, forwarded from b, is answered once and never played again
        last = match.seq[1]
        await bob.send(I.Shot(table=tid, token=tb, seq=last, stroke={"phi_deg": 0.0, "V0": 1.0, "a": 0.0, "b": 0.0,
                                                                     "theta_deg": 0.0}))
        err = await bob.expect("error", code="duplicate_sequence", seq=last)
        assert err["v"] <= match.v
        # the record (any process serves it) holds every stroke once; the stream in Redis is what everyone saw
        rec = json.loads(await asyncio.to_thread(
            lambda: urllib.request.urlopen(f"http://127.0.0.1:{c.port}/records/{tid}.json", timeout=5).read()))
        assert len([s for s in rec["strokes"] if "sim" in s and s.get("stroke")]) == match.strokes
        assert rec["result"] == match.state["result"]
        r = redis_sync.Redis.from_url(redis_url)
        persisted = {int(v): data for data, v in r.zrange(f"{prefix}stream:{tid}", 0, -1, withscores=True)}
        r.close()
        for i, data in enumerate(match.stream):
            assert persisted[3 + i] == data
        ma, mb, mc = await a.metrics(), await b.metrics(), await c.metrics()
        assert ma["billar_strokes_total"] == match.strokes and mb["billar_strokes_total"] == 0
        assert mb["billar_cluster_forwarded_total"] >= match.seq[1] and mc["billar_cluster_relayed_total"] >= len(match.stream)
        assert mc["billar_tables_relayed"] == 1 and mc["billar_spectators"] == 1 and ma["billar_spectators"] == 1

        # everybody leaves through their own process: counters back to zero everywhere, the table gone
        for cl in (cy, al):
            await cl.send(I.Leave(table=tid))
            await cl.expect("left", table=tid)
        await ann.send(I.Leave(table=tid, token=ta))
        await ann.expect("left", table=tid)
        await next_stream(bob)  # seats: seat 0 is free
        await bob.send(I.Leave(table=tid, token=tb))
        await bob.expect("left", table=tid)
        for cl in (ann, al, bob, cy):
            await cl.close()

        async def all_zero():
            for node in (a, b, c):
                m = await node.metrics()
                if m["billar_connections"] or m["billar_tables_active"] or m["billar_spectators"] or m["billar_players_connected"]:
                    return False
            return True

        for _ in range(100):
            if await all_zero():
                break
            await asyncio.sleep(0.1)
        assert await all_zero()
        r = redis_sync.Redis.from_url(redis_url)
        assert not r.sismember(f"{prefix}tables", tid) and r.get(f"{prefix}lease:{tid}") is None
        r.close()
    finally:
        stop_nodes([a, b, c])
    for n in (a, b, c):
        assert n.proc.returncode == 0 and "Traceback" not in n.stderr(), n.stderr()[-3000:]


async def test_quick_play_pairs_players_on_different_processes(redis_url, prefix, tmp_path):
    a, b = await start_nodes(redis_url, prefix, str(tmp_path), ["a", "b"])
    try:
        ann, bob = await a.client("ann"), await b.client("bob")
        await ann.send(I.QuickPlay(discipline="three_cushion", config={"distance": 2}))
        await ann.expect("quick_play_waiting")
        await bob.send(I.QuickPlay(discipline="three_cushion", config={"distance": 2}))
        sb = await bob.expect("seated", seat=1)
        sa = await ann.expect("seated", seat=0)
        assert sa["table"] == sb["table"]
        snap_a = await ann.expect("table_snapshot", v=0)  # seated first (she waited longest), on the other process
        await bob.expect("table_snapshot", v=1)
        assert snap_a["config"]["distance"] == 2
        # ann gets every seat change after her snapshot through her own process, as the same bytes as bob
        seen_a = [await next_stream(ann) for _ in range(2)]
        seen_b = await next_stream(bob)
        assert [m["v"] for m in seen_a] == [1, 2] and seen_b["v"] == 2
        assert ann.raw[-1] == bob.raw[-1]
        assert seen_b["seats"][0]["name"] == "ann" and seen_b["seats"][1]["name"] == "bob"
        assert (await b.health())["tables"] == 1 and (await a.health())["tables"] == 0
    finally:
        stop_nodes([a, b])


async def test_simultaneous_creates_with_one_creation_id_make_one_table(redis_url, prefix, tmp_path):
    """Two requests with the same creation id at the same moment on two processes: the retry waits for the
    first one's table instead of answering ``no_such_table`` (fresh-user QA: 7 races in 10 did)."""
    a, b = await start_nodes(redis_url, prefix, str(tmp_path), ["a", "b"])
    try:
        for i in range(5):
            cid = f"creation-race-{i:02d}-0123456789"
            c1, c2 = await a.client(f"x{i}"), await b.client(f"y{i}")
            await asyncio.gather(c1.send(I.CreateTable(discipline="libre", config={"distance": 3}, creation_id=cid)),
                                 c2.send(I.CreateTable(discipline="libre", config={"distance": 3}, creation_id=cid)))
            first = [await c1.recv(), await c2.recv()]
            assert [m["type"] for m in first] == ["seated", "seated"], first
            assert first[0]["table"] == first[1]["table"]
            await c1.close()
            await c2.close()
    finally:
        stop_nodes([a, b])


async def test_create_table_is_idempotent_across_processes(redis_url, prefix, tmp_path):
    a, b = await start_nodes(redis_url, prefix, str(tmp_path), ["a", "b"])
    try:
        cid = "creation-0123456789abcdef"
        ann = await a.client("ann")
        await ann.send(I.CreateTable(discipline="libre", config={"distance": 3}, creation_id=cid))
        s1 = await ann.expect("seated", seat=0)
        await ann.expect("table_snapshot", v=0)
        await ann.expect("seats", v=1)
        await ann.close()  # the answer "was lost": the client retries through another process
        ann2 = await b.client("ann")
        await ann2.send(I.CreateTable(discipline="libre", config={"distance": 3}, creation_id=cid))
        s2 = await ann2.expect("seated", seat=0, table=s1["table"])
        assert s2["token"] != s1["token"]  # a new token: the old one no longer opens the seat
        snap = await ann2.expect("table_snapshot", table=s1["table"], v=2)  # v2: the seat held after the close
        assert snap["seats"][0]["connected"] is True  # (the resume binds the seat before the snapshot)
        seats = await ann2.expect("seats", v=3)
        assert seats["seats"][0]["connected"] is True
        # a retry on the same connection: still one table
        await ann2.send(I.CreateTable(discipline="libre", config={"distance": 3}, creation_id=cid))
        s3 = await ann2.expect("seated", seat=0, table=s1["table"])
        await ann2.expect("table_snapshot", v=3)  # the same connection: no seat change to broadcast
        r = redis_sync.Redis.from_url(redis_url)
        try:
            await wait_for(lambda: r.scard(f"{prefix}tables") == 1, timeout=5)
            state = msgpack.unpackb(r.get(f"{prefix}table:{s1['table']}"), raw=False)
            assert len([s for s in state["seats"] if s]) == 1
        finally:
            r.close()
        # the newest token works, the older ones do not
        bob = await a.client("bob")
        await bob.send(I.Join(table=s1["table"]))
        await bob.expect("seated", seat=1)
        await ann2.expect("seats", v=4)
        await ann2.send(I.Resume(table=s1["table"], token=s2["token"]))
        await ann2.expect("error", code="bad_token")
        await ann2.send(I.Resume(table=s1["table"], token=s3["token"]))
        await ann2.expect("seated", seat=0)
    finally:
        stop_nodes([a, b])
