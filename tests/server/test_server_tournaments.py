"""Whole small tournaments directed by the server (issue 17), played over the protocol by logged-in clients: a round
robin of 3, a single elimination of 4, a short arena. Each player waits for ``tournament_game``, joins its reserved
seat, and seat 1 resigns once both are seated (the shortest game there is); the director records the results from the
database's games, pairs the next games and finishes the tournament: the final standings are in the database."""

import asyncio
import json

import pytest

from harness import http_request as http
from harness import logged_in
from protocol import inbound as I
from server.tournaments import store


def jpost(port, path, obj, cookie):
    return http(port, "POST", path, json.dumps(obj).encode(), {"Content-Type": "application/json", "Cookie": cookie})


async def tour(port, tid):
    st, _, body = await http(port, "GET", f"/api/tournaments/{tid}")
    assert st == 200, body
    return json.loads(body)


class Player:
    """A logged-in client that plays its tournament games: joins every table it is told of, resigns at seat 1."""

    def __init__(self, client, hold=None):
        self.c = client
        self.hold = hold  # (pairing id suffix, asyncio.Event): resign that table's game only once the event is set
        self.tokens = {}  # table -> (seat, token)
        self.resigned, self.done, self.told, self.errors = set(), set(), [], []
        self.rated = set()  # the tables' rated flags, as their snapshots said
        self.task = asyncio.get_running_loop().create_task(self.run())

    async def run(self):
        c = self.c
        while True:
            m = await c.recv(120)
            t, table = m["type"], m.get("table")
            if t == "error":
                self.errors.append(m)
            if t == "tournament_game":
                self.told.append(m)
                if table not in self.tokens and table not in self.done:
                    await c.send(I.Join(table, m["seat"]))
                    self.tokens[table] = None
            elif t == "seated":
                self.tokens[table] = (m["seat"], m["token"])
            if t == "table_snapshot":
                self.rated.add(m["rated"])
            if t in ("seats", "table_snapshot") and self.tokens.get(table):
                seat, token = self.tokens[table]
                if seat == 1 and all(s is not None for s in m["seats"]) and table not in self.resigned:
                    self.resigned.add(table)
                    if self.hold is not None and table.endswith(self.hold[0]):
                        asyncio.get_running_loop().create_task(self.resign_later(table, token))
                    else:
                        await c.send(I.Resign(table, token))
            elif t == "ruling" and m["state"]["phase"] == "over" and self.tokens.get(table):
                await c.send(I.Leave(table, self.tokens[table][1]))
                self.done.add(table)

    async def resign_later(self, table, token):
        await self.hold[1].wait()
        await self.c.send(I.Resign(table, token))

    async def stop(self):
        self.task.cancel()
        try:
            await self.task
        except (asyncio.CancelledError, Exception):
            pass
        await self.c.close()


async def run_tournament(srv, names, settings, timeout=60.0):
    port = srv.port
    srv.directors.tick_s = 0.2
    clients = [await logged_in(port, n) for n in names]
    st, _, body = await jpost(port, "/api/tournaments", settings, clients[0].cookie)
    assert st == 201, body
    tid = json.loads(body)["id"]
    players = [Player(c) for c in clients]
    try:
        for c in clients:
            st, _, body = await jpost(port, f"/api/tournaments/{tid}/join", {}, c.cookie)
            assert st == 200, body
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            t = await tour(port, tid)
            if t["status"] == "finished":
                break
            assert asyncio.get_running_loop().time() < deadline, (
                t["status"], t["pairings"], [(p.c.name, p.errors, p.tokens) for p in players])
            await asyncio.sleep(0.3)
    finally:
        for p in players:
            await p.stop()
    return tid, t, players


def check_finished(srv_db_rows, t, n):
    assert [r["rank"] for r in srv_db_rows] == list(range(1, n + 1))
    played = [p for p in t["pairings"] if p["table"] is not None]
    assert played and all(p["result"] is not None for p in t["pairings"])
    # every game played is in the database and linked; no pairing twice
    assert all(p["game_id"] is not None for p in played if p["result"]["reason"] == ""), played
    assert len({p["id"] for p in t["pairings"]}) == len(t["pairings"])
    assert len({p["table"] for p in played}) == len(played)


async def test_round_robin_of_three(db_server):
    names = ["Ann", "Bob", "Cy"]
    tid, t, players = await run_tournament(db_server, names, {
        "name": "RR", "discipline": "14.1", "format": "round_robin", "config": {"target_points": 1},
        "max_players": 3, "rated": True})
    rows = await store.final_standings(db_server.db, tid)
    check_finished(rows, t, 3)
    # three rounds of one game and a bye each; every player played twice
    assert sorted(p["round"] for p in t["pairings"]) == [1, 1, 2, 2, 3, 3]
    assert [p["result"]["reason"] for p in t["pairings"]].count("bye") == 3
    assert all(r["games"] == 2 for r in rows), rows
    # seat 0 won every game: the standings count it; the tables were rated, but every game was resigned before
    # both players had played a stroke: aborted, so recorded without a rating
    wins = {}
    for p in t["pairings"]:
        if p["result"]["reason"] == "":
            assert p["result"]["winner"] == 0
            wins[p["players"][0]] = wins.get(p["players"][0], 0) + 1
    assert sum(r["wins"] for r in rows) == 3 == sum(wins.values())
    assert all(p.rated == {True} for p in players), [p.rated for p in players]
    st, _, body = await http(db_server.port, "GET", f"/api/players/{rows[0]['username']}")
    prof = json.loads(body)
    assert prof["ratings"] == [] and len(prof["recent_games"]) == 2, prof
    assert all(g["rated"] is False and g["aborted"] is True for g in prof["recent_games"]), prof["recent_games"]
    assert all(p.told for p in players)


async def test_single_elimination_of_four(db_server):
    tid, t, _ = await run_tournament(db_server, ["Ann", "Bob", "Cy", "Dan"], {
        "name": "KO", "discipline": "14.1", "format": "single_elimination", "config": {"target_points": 1},
        "max_players": 4})
    rows = await store.final_standings(db_server.db, tid)
    check_finished(rows, t, 4)
    assert sorted(p["id"] for p in t["pairings"]) == ["R1-1", "R1-2", "R2-1"]
    final = next(p for p in t["pairings"] if p["id"] == "R2-1")
    assert rows[0]["username"] == final["players"][0]  # seat 0 won the final
    assert t["standings"][0]["name"] == final["players"][0]


async def test_a_short_arena(db_server, monkeypatch):
    monkeypatch.setattr(store, "ARENA_DURATION_S", (6, 3600))
    tid, t, _ = await run_tournament(db_server, ["Ann", "Bob", "Cy", "Dan"], {
        "name": "Arena", "discipline": "14.1", "format": "arena", "config": {"target_points": 1}, "duration_s": 6,
        "max_players": 4})
    rows = await store.final_standings(db_server.db, tid)
    check_finished(rows, t, 4)
    assert len(t["pairings"]) >= 4  # two waves at least
    assert sum(r["wins"] for r in rows) == sum(1 for p in t["pairings"] if p["result"]["reason"] == "")


async def test_a_reserved_seat_is_its_players_only(db_server):
    """A tournament's table: another account or a guest cannot sit (``seat_taken``) but may watch; the player's
    ``join`` without a seat takes their own; the empty table waits for its players instead of closing."""
    import time

    from harness import open_client

    await db_server.directors.stop()
    ann, bob = await logged_in(db_server.port, "Ann"), await logged_in(db_server.port, "Bob")
    guest = await open_client(db_server, "visitor")
    ids = [ann.welcome["account"]["id"], bob.welcome["account"]["id"]]
    actor = db_server.registry.create_reserved("tour-9-R1-1", "straight_pool", {"target_points": 1}, True, ids,
                                               time.time() + 60, "tour:tour-9-R1-1")
    await asyncio.sleep(0.3)
    assert db_server.registry.get("tour-9-R1-1") is actor  # empty, and still there
    await guest.send(I.Join("tour-9-R1-1", 0))
    await guest.expect("error", code="seat_taken")
    await bob.send(I.Join("tour-9-R1-1", 0))
    await bob.expect("error", code="seat_taken")
    await bob.send(I.Join("tour-9-R1-1"))
    seated = await bob.expect("seated")
    assert seated["seat"] == 1
    await guest.send(I.Watch("tour-9-R1-1"))
    assert (await guest.expect("table_snapshot"))["table"] == "tour-9-R1-1"
    for c in (ann, bob, guest):
        await c.close()


async def test_a_player_who_does_not_show_forfeits(db_server, monkeypatch):
    """Bob never takes his seat: ``no_show_s`` after the pairing his empty seat is forfeited (the table's claim
    rule), Ann wins the pairing without a game, and the tournament goes on to its end."""
    monkeypatch.setattr(store, "NO_SHOW_S", (1, 1800))
    port = db_server.port
    db_server.directors.tick_s = 0.2
    ann, bob = await logged_in(port, "Ann"), await logged_in(port, "Bob")
    st, _, body = await jpost(port, "/api/tournaments", {
        "name": "NS", "discipline": "14.1", "format": "round_robin", "config": {"target_points": 1},
        "max_players": 2, "no_show_s": 2}, ann.cookie)
    assert st == 201, body
    tid = json.loads(body)["id"]
    player = Player(ann)
    try:
        for c in (ann, bob):
            st, _, body = await jpost(port, f"/api/tournaments/{tid}/join", {}, c.cookie)
            assert st == 200, body
        told = await bob.expect("tournament_game", timeout=10)
        assert told["opponent"] == "Ann" and told["table"].startswith(f"tour-{tid}-")
        for _ in range(100):
            t = await tour(port, tid)
            if t["status"] == "finished":
                break
            await asyncio.sleep(0.2)
        assert t["status"] == "finished", t
    finally:
        await player.stop()
        await bob.close()
    (p,) = t["pairings"]
    assert p["result"]["reason"] == "no_show" and p["result"]["forfeit"] == [p["players"].index("Bob")]
    assert p["result"]["winner"] == p["players"].index("Ann") and p["game_id"] is None
    rows = await store.final_standings(db_server.db, tid)
    assert [r["username"] for r in rows] == ["Ann", "Bob"] and rows[1]["forfeits"] == 1


async def test_a_player_who_drops_forfeits_the_rest(db_server):
    """Cy leaves the running round robin (``POST .../leave``: a drop): each of Cy's games is a forfeit, Ann and Bob
    play theirs, the tournament ends with Cy last and inactive."""
    port = db_server.port
    db_server.directors.tick_s = 0.2
    clients = [await logged_in(port, n) for n in ("Ann", "Bob", "Cy")]
    st, _, body = await jpost(port, "/api/tournaments", {
        "name": "Drop", "discipline": "14.1", "format": "round_robin", "config": {"target_points": 1},
        "max_players": 3}, clients[0].cookie)
    tid = json.loads(body)["id"]
    players = [Player(c) for c in clients[:2]]
    try:
        for c in clients:
            st, _, body = await jpost(port, f"/api/tournaments/{tid}/join", {}, c.cookie)
            assert st == 200, body
        for _ in range(100):
            t = await tour(port, tid)
            # running, and round one paired (the director's next tick pairs it): Cy's bye there is a bye
            if t["status"] == "running" and any(p["round"] == 1 for p in t["pairings"]):
                break
            await asyncio.sleep(0.1)
        st, _, body = await jpost(port, f"/api/tournaments/{tid}/leave", {}, clients[2].cookie)
        assert st == 200 and json.loads(body) == {"left": True}
        for _ in range(300):
            t = await tour(port, tid)
            if t["status"] == "finished":
                break
            await asyncio.sleep(0.2)
        assert t["status"] == "finished", t["pairings"]
    finally:
        for p in players:
            await p.stop()
        await clients[2].close()
    cy = [p for p in t["pairings"] if "Cy" in p["players"] and p["result"]["reason"] != "bye"]
    assert len(cy) == 2 and all(p["result"]["reason"] == "drop" for p in cy), cy
    played = [p for p in t["pairings"] if p["result"]["reason"] == ""]
    assert len(played) == 1 and sorted(played[0]["players"]) == ["Ann", "Bob"] and played[0]["game_id"]
    assert t["standings"][-1]["name"] == "Cy" and t["standings"][-1]["active"] is False
