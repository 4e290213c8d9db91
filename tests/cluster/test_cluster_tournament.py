"""A tournament whose director's process is killed mid-round (issue 17): two real processes, one Redis, one
database. A round robin of four is directed by the process that took its lease; in round one, one game is over and
the other still being played when that process gets SIGKILL. The other process takes the lease over, resumes from
the saved state and finishes the tournament: every pairing once, every game in the database once, final standings
kept."""

import asyncio
import json

import redis as redis_sync
from websockets.asyncio.client import connect as ws_connect

import protocol
from cluster_harness import Node, stop_nodes
from harness import Client
from harness import http_request as http
from protocol import inbound as I
from test_server_tournaments import Player, jpost, tour

NAMES = ["Ann", "Bob", "Cy", "Dan"]


async def register(port, name):
    st, h, body = await jpost(port, "/api/account/register", {"username": name, "password": "correct horse 1"}, "")
    assert st == 201, body
    return h["set-cookie"][0].split(";")[0]


async def connect(port, name, cookie):
    ws = await ws_connect(f"ws://127.0.0.1:{port}/ws", compression=None, max_size=None,
                          additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"})
    c = Client(ws, name)
    await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION))
    c.welcome = await c.expect("welcome")
    assert c.welcome["account"]["name"] == name
    return c


async def wait_for(pred, timeout, what):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        v = await pred()
        if v:
            return v
        assert loop.time() < end, what
        await asyncio.sleep(0.25)


async def test_the_directors_process_killed_mid_round(redis_url, prefix, tmp_path):
    tmp = str(tmp_path)
    nodes = [await Node(redis_url, prefix, "p1").start(tmp), await Node(redis_url, prefix, "p2").start(tmp)]
    players = []
    try:
        port = nodes[0].port
        cookies = [await register(port, n) for n in NAMES]
        st, _, body = await jpost(port, "/api/tournaments", {
            "name": "Failover", "discipline": "14.1", "format": "round_robin", "config": {"target_points": 1},
            "max_players": 4}, cookies[0])
        assert st == 201, body
        tid = json.loads(body)["id"]
        for c in cookies:
            st, _, body = await jpost(port, f"/api/tournaments/{tid}/join", {}, c)
            assert st == 200, body
        # started when full, round one paired by whichever process holds the lease
        t = await wait_for(lambda: _paired(port, tid), 30, "round one not paired")
        r = redis_sync.Redis.from_url(redis_url)
        holder = r.get(f"{prefix}tour:lease:{tid}").decode()
        r.close()
        names = [(await n.health())["node"] for n in nodes]
        director, survivor = (nodes[0], nodes[1]) if names[0] == holder else (nodes[1], nodes[0])
        assert holder in names
        # the players connect to the survivor; the game R1-2 waits for the test's word
        release = asyncio.Event()
        for n, c in zip(NAMES, cookies):
            players.append(Player(await connect(survivor.port, n, c), hold=("-R1-2", release)))
        sp = survivor.port

        async def mid_round():
            t = await tour(sp, tid)
            ps = {p["id"]: p for p in t["pairings"]}
            return t if ps["R1-1"]["result"] is not None and any(
                pl.resigned and any(x.endswith("-R1-2") for x in pl.resigned) for pl in players) else None

        t = await wait_for(mid_round, 60, "round one's first game not over")
        assert {p["id"] for p in t["pairings"]} == {"R1-1", "R1-2"}
        director.kill()
        await asyncio.sleep(6)  # the lease and the table run out; the survivor adopts both
        release.set()

        async def finished():
            t = await tour(sp, tid)
            return t if t["status"] == "finished" else None

        t = await wait_for(finished, 120, "not finished by the survivor")
        ids = [p["id"] for p in t["pairings"]]
        assert len(ids) == len(set(ids)) == 6, ids  # C(4, 2) games, none paired twice
        assert sorted(p["round"] for p in t["pairings"]) == [1, 1, 2, 2, 3, 3]
        assert all(p["result"] is not None and p["result"]["reason"] == "" for p in t["pairings"]), t["pairings"]
        assert all(p["game_id"] is not None for p in t["pairings"])
        assert len({p["game_id"] for p in t["pairings"]}) == 6
        assert all(p["result"]["winner"] == 0 for p in t["pairings"])  # seat 1 resigned every game, R1-2 too
        assert [s["rank"] for s in t["standings"]] == [1, 2, 3, 4]
        assert sum(s["games"] for s in t["standings"]) == 12
        # every game once in each player's list
        for n in NAMES:
            st, _, body = await http(sp, "GET", f"/api/players/{n}/games")
            games = json.loads(body)["games"]
            assert len(games) == 3, await db_rows(prefix, n, games)
    finally:
        for p in players:
            await p.stop()
        stop_nodes(nodes)


async def _paired(port, tid):
    t = await tour(port, tid)
    return t if t["status"] == "running" and t["pairings"] else None


async def db_rows(prefix, name, games):
    """What the database holds of the games (PostgreSQL only): the message of a failed check."""
    import os

    if not os.environ.get("DATABASE_URL"):
        return name, [g["id"] for g in games]
    import asyncpg
    from sqlalchemy.engine import make_url

    from cluster_harness import schema_of

    u = make_url(os.environ["DATABASE_URL"])
    conn = await asyncpg.connect(host=u.host, port=u.port or 5432, user=u.username, database=u.database,
                                 server_settings={"search_path": schema_of(prefix)})
    try:
        rows = await conn.fetch("select g.id, g.table_id, g.game_no, p.seat, p.account_id, p.name "
                                "from games g join game_players p on p.game_id = g.id order by g.id, p.seat")
        accs = await conn.fetch("select id, username from accounts")
    finally:
        await conn.close()
    return name, [g["id"] for g in games], [dict(r) for r in rows], [dict(a) for a in accs]
