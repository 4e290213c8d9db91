"""The TV and the live games over HTTP (server/tv/, GET /api/tv, /api/tv/<channel>, /api/games/live): a real server,
tables made through the protocol by real WebSocket clients, real Redis."""

import asyncio
import json

from harness import http_request, next_of, open_client
from protocol import inbound as I

FAST = dict(tv_tick_s=0.2, tv_linger_s=1.5, lobby_update_s=0.2)


async def get(srv, path):
    st, _, body = await http_request(srv.port, "GET", path)
    return st, (json.loads(body) if body else None)


async def until(srv, path, pred, timeout=15.0):
    """GET ``path`` until ``pred(json)`` holds; returns that json."""
    box = {}

    async def poll():
        st, doc = await get(srv, path)
        assert st == 200, (st, doc)
        box["doc"] = doc
        return pred(doc)

    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await poll():
        assert loop.time() < end, f"{path}: condition not reached; last {box['doc']}"
        await asyncio.sleep(0.1)
    return box["doc"]


async def seat_two(srv, n0, n1, discipline="straight_pool", config=None, private=False):
    """Players ``n0`` and ``n1`` seated at a new table: (client 0, client 1, table id, token 0, token 1)."""
    a = await open_client(srv, n0)
    b = await open_client(srv, n1)
    await a.send(I.CreateTable(discipline=discipline, config=config or {}, private=private))
    sa = await next_of(a, "seated")
    await b.send(I.Join(table=sa["table"]))
    sb = await next_of(b, "seated")
    return a, b, sa["table"], sa["token"], sb["token"]


async def test_tv_and_live_games_list_real_tables(make_server):
    srv = await make_server(**FAST)
    a, b, t_pool, _, _ = await seat_two(srv, "ann", "bob", "straight_pool", {"target_points": 50})
    c, d, t_3c, _, _ = await seat_two(srv, "cy", "dan", "three_cushion", {"distance": 15})
    e, f, t_priv, _, _ = await seat_two(srv, "eve", "fay", "libre", private=True)  # private: never listed
    g = await open_client(srv, "gus")
    await g.send(I.CreateTable(discipline="one_cushion", config={}))  # a free seat: not a live game
    t_wait = (await next_of(g, "seated"))["table"]
    w = await open_client(srv, "wat")
    await w.send(I.Watch(table=t_3c))
    await next_of(w, "table_snapshot")

    tv = await until(srv, "/api/tv", lambda doc: doc["straight_pool"]["table"] == t_pool
                     and doc["three_cushion"]["table"] == t_3c)
    assert set(tv) == {"all", "straight_pool", "three_cushion", "libre", "one_cushion", "balkline_47_1",
                       "balkline_47_2", "balkline_71_2", "pentathlon", "triathlon"}
    pool = tv["straight_pool"]
    assert pool["channel"] == "straight_pool" and pool["discipline"] == "straight_pool"
    assert pool["seats"] == ["ann", "bob"] and pool["ratings"] == [None, None] and pool["provisional"] == [False, False] and pool["scores"] == [0, 0]
    assert pool["status"] == "playing" and pool["run"] == 0 and pool["game"] == 1 and pool["ended"] is False
    assert pool["score"] > 0
    assert tv["libre"] == {"channel": "libre", "table": None}  # only a private table: nothing featured
    assert tv["one_cushion"] == {"channel": "one_cushion", "table": None}  # only a waiting table
    assert tv["all"]["table"] in (t_pool, t_3c)

    st, one = await get(srv, "/api/tv/14.1")  # an alias of straight_pool
    assert st == 200 and one["table"] == t_pool
    st, err = await get(srv, "/api/tv/snooker")
    assert st == 404 and err["error"]["code"] == "not_found"

    live = await until(srv, "/api/games/live", lambda doc: any(x["table"] == t_3c and x["spectators"] == 1
                                                               for x in doc["games"]))
    ids = [x["table"] for x in live["games"]]
    assert sorted(ids) == sorted([t_pool, t_3c]) and live["total"] == 2
    assert t_priv not in ids and t_wait not in ids
    scores = [x["score"] for x in live["games"]]
    assert scores == sorted(scores, reverse=True)  # best TV score first
    three = next(x for x in live["games"] if x["table"] == t_3c)
    assert three["seats"] == ["cy", "dan"] and three["discipline"] == "three_cushion" and three["featured"] is True
    assert three["status"] == "playing" and three["rated"] is False
    st, only = await get(srv, "/api/games/live?discipline=three_cushion")
    assert st == 200 and [x["table"] for x in only["games"]] == [t_3c] and only["total"] == 1
    st, none = await get(srv, "/api/games/live?discipline=libre")
    assert st == 200 and none == {"games": [], "total": 0}
    st, lim = await get(srv, "/api/games/live?limit=1")
    assert st == 200 and len(lim["games"]) == 1 and lim["total"] == 2
    st, bad = await get(srv, "/api/games/live?discipline=snooker")
    assert st == 400 and bad["error"]["code"] == "bad_field"
    for cl in (a, b, c, d, e, f, g, w):
        await cl.close()


async def test_tv_switches_when_the_featured_game_ends_and_keeps_a_rematch(make_server):
    srv = await make_server(**FAST)
    a, b, t1, ta, tb = await seat_two(srv, "ann", "bob")
    await until(srv, "/api/tv/straight_pool", lambda doc: doc["table"] == t1)
    c, d, t2, _, _ = await seat_two(srv, "cy", "dan")
    # another game as good (guests, 0:0): the featured one is kept
    await until(srv, "/api/games/live", lambda doc: doc["total"] == 2)
    st, doc = await get(srv, "/api/tv/straight_pool")
    assert doc["table"] == t1
    # t1's game ends: it stays on screen, marked ended, then its rematch keeps it featured
    await b.send(I.Resign(table=t1, token=tb))
    await until(srv, "/api/tv/straight_pool", lambda doc: doc["table"] == t1 and doc["ended"] is True)
    await a.send(I.RematchOffer(table=t1, token=ta))
    await b.send(I.RematchAccept(table=t1, token=tb))
    doc = await until(srv, "/api/tv/straight_pool", lambda doc: doc["table"] == t1 and doc["game"] == 2
                      and doc["ended"] is False)
    await asyncio.sleep(FAST["tv_linger_s"] + 0.5)  # longer than the linger: still the rematch
    st, doc = await get(srv, "/api/tv/straight_pool")
    assert doc["table"] == t1 and doc["game"] == 2
    # this game ends with no rematch: after the linger the other table is featured
    await a.send(I.Resign(table=t1, token=ta))
    await until(srv, "/api/tv/straight_pool", lambda doc: doc["table"] == t1 and doc["ended"] is True)
    doc = await until(srv, "/api/tv/straight_pool", lambda doc: doc["table"] == t2)
    assert doc["seats"] == ["cy", "dan"] and doc["ended"] is False
    live = await until(srv, "/api/games/live", lambda doc: doc["total"] == 1)
    assert live["games"][0]["table"] == t2 and live["games"][0]["featured"] is True
    for cl in (a, b, c, d):
        await cl.close()


async def test_the_live_list_shows_the_current_run(make_server):
    """Straight rail (libre) played with the bots' carom search until a player has a run: the live game shows that
    run and score (the lobby entry carries the run), and so does the TV channel."""
    from test_server_games import C, game_from_state, plan_carom, stroke_of

    srv = await make_server(**FAST)
    a, b, tid, ta, tb = await seat_two(srv, "ann", "bob", "libre", {"distance": 30})
    clients, tokens, seqs = (a, b), (ta, tb), [0, 0]
    await until(srv, "/api/games/live", lambda doc: doc["total"] == 1)
    st, before = await get(srv, "/api/games/live")
    state = srv.tables[tid].state_view()
    for _ in range(40):
        game = game_from_state(srv.tables[tid].game.to_state())
        legal = state["legal"]
        if legal["shoot"] and legal["shoot"]["lag"]:
            lag = C.lag_shots(game)
            for seat in (0, 1):
                s = stroke_of(lag[seat])
                s["V0"] += 0.05 * seat
                seqs[seat] += 1
                await clients[seat].send(I.Shot(table=tid, token=tokens[seat], seq=seqs[seat], stroke=s))
        else:
            seat = state["to_act"]
            seqs[seat] += 1
            if legal["shoot"]:
                _, _, s = plan_carom(game)
                await clients[seat].send(I.Shot(table=tid, token=tokens[seat], seq=seqs[seat], stroke=s))
            else:
                d = legal["decisions"][0]
                await clients[seat].send(I.Decision(table=tid, token=tokens[seat], seq=seqs[seat], name=d["name"],
                                                    arg=d["args"][0] if d["args"] else None))
        m = await next_of(a, "stroke") if legal["shoot"] else await a.recv()
        while m["type"] not in ("stroke", "ruling"):
            m = await a.recv()
        state = m["state"]
        if state["scoreboard"].get("run", 0) >= 1 and state["phase"] != "lag":
            break
    board = state["scoreboard"]
    assert board["run"] >= 1, "no carom in 40 actions"
    live = await until(srv, "/api/games/live", lambda doc: doc["games"][0]["run"] == board["run"])
    g = live["games"][0]
    assert g["table"] == tid and g["scores"] == board["scores"]
    assert g["score"] != before["games"][0]["score"]  # the TV score follows the scores and the run
    tv = await until(srv, "/api/tv/libre", lambda doc: doc["run"] == board["run"])
    assert tv["table"] == tid
    await a.close()
    await b.close()
