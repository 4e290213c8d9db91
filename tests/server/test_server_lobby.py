"""Lobby (pushed by Redis pub/sub), quick play, HTTP routes and match records."""

import asyncio
import gc
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

from harness import STROKE, any_action, open_client, table_with_two
from protocol import inbound as I
from server.metrics import parse_text
from server.store import Store

POOL = {"breaker": 0, "target_points": 5}


async def http_get(port: int, path: str):
    def get():
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
                return r.status, r.headers.get("Content-Type"), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type"), e.read()

    return await asyncio.to_thread(get)


async def next_lobby(w, timeout=5.0):
    m = await w.recv(timeout)
    assert m["type"] in ("lobby_update", "lobby_remove"), m
    return m


async def test_lobby_entries_appear_update_and_vanish(server):
    w = await open_client(server, "watcher")
    await w.send(I.LobbySubscribe())
    first = await w.expect("lobby")
    assert first["tables"] == []
    a = await open_client(server, "ann")
    await a.send(I.CreateTable(discipline="straight_pool", config=POOL))
    sa = await a.expect("seated")
    tid = sa["table"]
    up = await next_lobby(w)
    assert up["table"]["table"] == tid and up["table"]["status"] == "waiting" and up["table"]["seats"] == ["ann", None]
    assert up["table"]["discipline"] == "straight_pool" and up["table"]["scores"] == [0, 0]
    # a private table never shows up
    p = await open_client(server, "pat")
    await p.send(I.CreateTable(discipline="libre", private=True))
    await p.expect("seated")
    b = await open_client(server, "bob")
    await b.send(I.Join(table=tid))
    sb = await b.expect("seated")
    up = await next_lobby(w)
    assert up["table"]["status"] == "playing" and up["table"]["seats"] == ["ann", "bob"]
    c = await open_client(server, "cy")
    await c.send(I.Watch(table=tid))
    await c.expect("table_snapshot")
    up = await next_lobby(w)
    assert up["table"]["spectators"] == 1
    # a new subscriber gets the list with this one table only
    w2 = await open_client(server, "w2")
    await w2.send(I.LobbySubscribe())
    lst = await w2.expect("lobby")
    assert [t["table"] for t in lst["tables"]] == [tid] and lst["tables"][0]["spectators"] == 1
    assert lst["online"] >= 1
    # a player drops: the table is paused (the seat is held) until the player resumes
    await b.close()
    up = await next_lobby(w)
    assert up["table"]["status"] == "paused" and up["table"]["seats"] == ["ann", "bob"]
    b = await open_client(server, "bob")
    await b.send(I.Resume(table=tid, token=sb["token"]))
    await b.expect("seated", seat=1)
    up = await next_lobby(w)
    assert up["table"]["status"] == "playing"
    # everybody leaves: the entry goes
    await c.close()
    await a.send(I.Leave(table=tid, token=sa["token"]))
    await b.send(I.Leave(table=tid, token=sb["token"]))
    msgs = []
    while not msgs or msgs[-1]["type"] != "lobby_remove":
        msgs.append(await next_lobby(w, timeout=8.0))
    assert msgs[-1]["table"] == tid
    w3 = await open_client(server, "w3")
    await w3.send(I.LobbySubscribe())
    assert (await w3.expect("lobby"))["tables"] == []


async def test_a_dead_process_tables_leave_the_lobby_by_expiry(make_server, redis_url, prefix):
    srv = await make_server(lobby_ttl_s=1.0, refresh_s=0.2)
    a = await open_client(srv, "ann")
    await a.send(I.CreateTable(discipline="three_cushion"))
    await a.expect("seated")
    store = Store(redis_url, prefix, srv.metrics)
    assert len(await store.lobby_list()) == 1
    await asyncio.sleep(1.2)
    assert len(await store.lobby_list()) == 1  # refreshed while the process lives
    # the process stops refreshing (as a dead one would): the entry expires
    srv._stop.set()
    await asyncio.sleep(1.3)
    assert await store.lobby_list() == []
    await store.close()


async def test_quick_play_pairs_two_waiting_players(server):
    a = await open_client(server, "ann")
    b = await open_client(server, "bob")
    other = await open_client(server, "oli")
    await a.send(I.QuickPlay(discipline="three_cushion", config={"distance": 3}))
    await a.expect("quick_play_waiting", discipline="three_cushion")
    await other.send(I.QuickPlay(discipline="three_cushion", config={"distance": 5}))  # another configuration
    await other.expect("quick_play_waiting")
    await b.send(I.QuickPlay(discipline="three_cushion", config={"distance": 3}))
    sb = await b.expect("seated", seat=1)
    sa = await a.expect("seated", seat=0)
    assert sa["table"] == sb["table"]
    snap = await b.expect("table_snapshot")
    assert snap["config"]["distance"] == 3 and not snap["private"]
    await other.send(I.QuickPlayCancel())
    await other.send(I.QuickPlay(discipline="snooker"))
    await other.expect("error", code="bad_config", field="discipline")


async def test_http_routes(make_server, tmp_path):
    (tmp_path / "index.html").write_text("<html>client</html>")
    (tmp_path / "app.js").write_text("console.log(1)")
    srv = await make_server(static_dir=str(tmp_path))
    status, ctype, body = await http_get(srv.port, "/healthz")
    assert status == 200 and json.loads(body)["status"] == "ok" and json.loads(body)["redis"] is True
    status, ctype, body = await http_get(srv.port, "/metrics")
    samples = parse_text(body.decode())
    assert status == 200 and ctype.startswith("text/plain")
    for name in ("billar_connections", "billar_tables_active", "billar_spectators", "billar_strokes_total",
                 "billar_dropped_messages_total", "billar_redis_errors_total"):
        assert samples[name] == 0
    assert "# TYPE billar_shot_latency_seconds histogram" in body.decode()
    # garbage-collector pauses are timed: a full collection forced here is counted under generation 2
    full = samples.get('billar_gc_pause_seconds_count{generation="2"}', 0.0)
    gc.collect()
    samples = parse_text((await http_get(srv.port, "/metrics"))[2].decode())
    assert samples['billar_gc_pause_seconds_count{generation="2"}'] == full + 1
    assert samples['billar_gc_pause_seconds_sum{generation="2"}'] > 0.0
    assert (await http_get(srv.port, "/"))[2] == b"<html>client</html>"
    status, ctype, body = await http_get(srv.port, "/app.js")
    assert status == 200 and "javascript" in ctype
    assert (await http_get(srv.port, "/../../etc/passwd"))[0] == 404
    assert (await http_get(srv.port, "/%2e%2e/server/app.py"))[0] == 404
    st, _, body = await http_get(srv.port, "/records/nosuch.json")
    assert st == 404  # the API's error shape (QA: it was {"error": "<text>"})
    assert json.loads(body) == {"error": {"code": "no_record", "message": "no record for table 'nosuch'"}}
    bare = await make_server(static_dir=str(tmp_path / "missing"))
    status, ctype, body = await http_get(bare.port, "/")
    assert status == 200 and b"not built" in body


async def test_match_record_export_replays_with_the_referee(server, tmp_path):
    a, b, tid, ta, tb = await table_with_two(server, config=POOL)
    await a.send(I.Shot(table=tid, token=ta, seq=1, stroke=dict(STROKE, V0=2.0), cue_ball=(0.3, 0.6)))
    s = await a.expect("stroke", v=3)
    await b.expect("stroke")
    clients, tokens = (a, b), (ta, tb)
    state, seq = s["state"], 10
    for _ in range(3):  # a few more actions, whatever the rules offer
        p = state["to_act"]
        seq += 1
        await clients[p].send(any_action(state, tid, tokens[p], seq))
        m = await a.recv()
        await b.recv()
        state = m["state"]
    await b.send(I.Resign(table=tid, token=tb))
    await a.expect("ruling", cause="resign")
    status, ctype, body = await http_get(server.port, f"/records/{tid}.json")
    assert status == 200 and ctype == "application/json"
    rec = json.loads(body)
    assert rec["discipline"] == "straight_pool" and rec["game"] == 1 and rec["table"] == tid
    assert len(rec["strokes"]) == 5 and rec["strokes"][-1]["forfeit"] == "resigned"
    assert rec["strokes"][0]["sim"]["events"][0]["kind"] == "strike"
    assert rec["result"]["winner"] == 0
    assert (await http_get(server.port, f"/records/{tid}/1.json"))[2] == body
    path = tmp_path / "game.json"
    path.write_bytes(body)
    out = subprocess.run([sys.executable, "-m", "server.cli", "referee", "straight_pool", "--replay", str(path), "--json"],
                         capture_output=True, text=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 0, out.stdout + out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(lines) == 6 and lines[-1]["final"] is True and lines[-1]["differences"] == 0
    assert lines[-1]["result"]["winner"] == 0


async def test_lobby_follows_what_it_shows_scores_at_most_every_lobby_update_s(make_server, redis_url, prefix):
    """Seats and status reach the lobby at once; a score change alone waits until ``lobby_update_s`` has passed
    since the last entry; an action that changes nothing the lobby shows publishes nothing; the periodic expiry
    refresh never brings back the entry of a table that closed."""
    srv = await make_server(lobby_update_s=1.5, refresh_s=0.2)
    w = await open_client(srv, "watcher")
    await w.send(I.LobbySubscribe())
    await w.expect("lobby")
    a, b, tid, ta, tb = await table_with_two(srv, config=POOL)
    assert (await next_lobby(w))["table"]["status"] == "waiting"
    up = await next_lobby(w)
    joined = asyncio.get_running_loop().time()
    assert up["table"]["status"] == "playing" and up["table"]["scores"] == [0, 0]
    # a soft break: a breaking foul (-2), the score alone changes
    await a.send(I.Shot(table=tid, token=ta, seq=1, stroke=dict(STROKE, phi_deg=90.0, V0=0.8), call={"safety": True},
                        cue_ball=(0.3, 0.6)))
    stroke = await a.expect("stroke")
    scores = stroke["state"]["scoreboard"]["scores"]
    assert scores == [-2, 0]
    up = await next_lobby(w, timeout=5.0)
    waited = asyncio.get_running_loop().time() - joined
    assert up["table"]["table"] == tid and up["table"]["status"] == "playing"
    assert up["table"]["scores"] == scores
    # not with the stroke: once lobby_update_s had passed since the "playing" entry was written (housekeeping 0.5 s);
    # both times are receipts here, so the delivery of the first may have taken a few ms longer than the second's
    assert 1.5 - 0.05 <= waited < 1.5 + 1.5, waited
    assert up["table"]["v"] == stroke["v"]
    # the opponent accepts the table after the foul: a new version, nothing the lobby shows changes, no lobby message
    await b.expect("stroke")
    await b.send(I.Decision(table=tid, token=tb, seq=1, name="ACCEPT_TABLE"))
    m = await b.expect("ruling")
    assert m["state"]["scoreboard"]["scores"] == scores and m["v"] > stroke["v"]
    await w.silent(2.0)
    # the table closes: removed, and the refresh (every 0.2 s here) does not bring it back
    await a.send(I.Leave(table=tid, token=ta))
    await b.send(I.Leave(table=tid, token=tb))
    msgs = []
    while not msgs or msgs[-1]["type"] != "lobby_remove":
        msgs.append(await next_lobby(w, timeout=8.0))
    await asyncio.sleep(0.8)
    store = Store(redis_url, prefix, srv.metrics)
    try:
        assert await store.lobby_list() == []
    finally:
        await store.close()
