"""The TV across processes: one chooser per channel for the whole cluster (a lease in Redis), so every process
reports the same featured table. Real ``billar serve --cluster`` processes, real clients, real Redis."""

import asyncio
import json
import urllib.request

import redis as redis_sync

from cluster_harness import start_nodes, stop_nodes
from protocol import inbound as I


def tv_of(node, path="/api/tv"):
    with urllib.request.urlopen(f"http://127.0.0.1:{node.port}{path}", timeout=5) as r:
        return json.loads(r.read())


async def seat(creator, joiner, discipline, config):
    """A table of ``creator`` and ``joiner``: its id (each client's seat token kept in ``client.tokens``)."""
    await creator.send(I.CreateTable(discipline=discipline, config=config))
    while (m := await creator.recv())["type"] != "seated":
        pass
    await joiner.send(I.Join(table=m["table"]))
    while (j := await joiner.recv())["type"] != "seated":
        pass
    for c, tok in ((creator, m["token"]), (joiner, j["token"])):
        c.tokens = dict(getattr(c, "tokens", {}), **{m["table"]: tok})
    return m["table"]


async def test_two_processes_report_the_same_featured_table(redis_url, prefix, tmp_path):
    a, b = await start_nodes(redis_url, prefix, str(tmp_path), ["a", "b"])
    try:
        # two 14.1 tables, one made on each process, players across both; a three-cushion table on b
        cl = [await a.client("ann"), await b.client("bob"), await b.client("cy"), await a.client("dan"),
              await b.client("eve"), await b.client("fay")]  # held open: the seats stay taken
        t1 = await seat(cl[0], cl[1], "straight_pool", {"target_points": 50})
        t2 = await seat(cl[2], cl[3], "straight_pool", {"target_points": 50})
        t3 = await seat(cl[4], cl[5], "three_cushion", {"distance": 15})
        deadline = asyncio.get_running_loop().time() + 20
        while True:
            ta, tb = await asyncio.to_thread(tv_of, a), await asyncio.to_thread(tv_of, b)
            if (ta["straight_pool"]["table"] and ta["three_cushion"]["table"]
                    and {ch: v["table"] for ch, v in ta.items()} == {ch: v["table"] for ch, v in tb.items()}):
                break
            assert asyncio.get_running_loop().time() < deadline, (ta, tb)
            await asyncio.sleep(0.3)
        assert ta["straight_pool"]["table"] in (t1, t2) and ta["three_cushion"]["table"] == t3
        assert ta["all"]["table"] in (t1, t2, t3)
        # the same answer for a while from both (no process chooses on its own)
        for _ in range(5):
            await asyncio.sleep(0.5)
            for node in (a, b):
                one = await asyncio.to_thread(tv_of, node, "/api/tv/straight_pool")
                assert one["table"] == ta["straight_pool"]["table"]
        # one lease holder per channel, a process of this cluster
        r = redis_sync.Redis.from_url(redis_url)
        try:
            names = {(await a.health())["node"], (await b.health())["node"]}
            for ch in ("all", "straight_pool", "three_cushion", "libre"):
                holder = r.get(f"{prefix}tv:lease:{ch}")
                assert holder is not None and holder.decode() in names
            stored = json.loads(r.get(f"{prefix}tv:straight_pool"))
            assert stored["table"] == ta["straight_pool"]["table"]
        finally:
            r.close()
        # the live list agrees too
        la = await asyncio.to_thread(tv_of, a, "/api/games/live")
        lb = await asyncio.to_thread(tv_of, b, "/api/games/live")
        assert sorted(x["table"] for x in la["games"]) == sorted([t1, t2, t3]) == sorted(x["table"] for x in lb["games"])
    finally:
        stop_nodes([a, b])


async def test_the_choice_moves_to_another_process_when_its_chooser_dies(redis_url, prefix, tmp_path):
    """SIGKILL of the process choosing: its lease runs out, another process takes the channel over and goes on
    from the featured value in Redis (the featured table does not change for that)."""
    a, b = await start_nodes(redis_url, prefix, str(tmp_path), ["a", "b"])
    try:
        cl = [await a.client("ann"), await b.client("bob"), await a.client("cy"), await b.client("dan")]
        r = redis_sync.Redis.from_url(redis_url)
        names = {(await a.health())["node"]: a, (await b.health())["node"]: b}
        deadline = asyncio.get_running_loop().time() + 20
        while r.get(f"{prefix}tv:lease:libre") is None:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.2)
        chooser = names[r.get(f"{prefix}tv:lease:libre").decode()]
        other = b if chooser is a else a
        # the tables live on the other process (they survive the kill); the chooser's clients only watch
        mine = [c for c, n in zip(cl, (a, b, a, b)) if n is other]
        theirs = [await other.client("eve"), await other.client("fay")]
        t1 = await seat(mine[0], mine[1], "libre", {})
        t2 = await seat(theirs[0], theirs[1], "libre", {})
        deadline = asyncio.get_running_loop().time() + 20
        while (first := (await asyncio.to_thread(tv_of, chooser, "/api/tv/libre"))["table"]) is None:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.2)
        assert first in (t1, t2)
        chooser.kill()
        # within the lease (3 s) and a tick the survivor holds the channel, and the featured table is the same
        deadline = asyncio.get_running_loop().time() + 15
        survivor = (await other.health())["node"]
        while (r.get(f"{prefix}tv:lease:libre") or b"").decode() != survivor:
            assert asyncio.get_running_loop().time() < deadline, "the lease was not taken over"
            await asyncio.sleep(0.2)
        for _ in range(6):
            await asyncio.sleep(0.5)
            assert (await asyncio.to_thread(tv_of, other, "/api/tv/libre"))["table"] == first
        # and it goes on choosing: the featured game ends, the other one is featured (after the 6 s linger)
        loser = mine if first == t1 else theirs
        await loser[1].send(I.Resign(table=first, token=loser[1].tokens[first]))
        want = t2 if first == t1 else t1
        deadline = asyncio.get_running_loop().time() + 25
        while (await asyncio.to_thread(tv_of, other, "/api/tv/libre"))["table"] != want:
            assert asyncio.get_running_loop().time() < deadline, "no switch after the featured game ended"
            await asyncio.sleep(0.3)
        r.close()
    finally:
        stop_nodes([a, b])
