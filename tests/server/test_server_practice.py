"""Practice tables through a real server and real WebSocket clients: creation (drill, position code, opening), the
practice messages and their hostile inputs, undo/redo bit for bit, spectators, rate limits, and refusals at game
tables."""

import asyncio

import json

from harness import http_request, next_of, open_client, table_with_two
from test_practice import stop_shot as stop_shot_of

from protocol import inbound as I
from rules.drills import drill_by_id

TOKEN_LEN = 32
SOFT = {"phi_deg": 90.0, "V0": 0.8, "a": 0.0, "b": 0.0, "theta_deg": 0.0}
STOP = "pool-9ft-stop-1"


async def practice_table(srv, name="ann", discipline="straight_pool", **spec):
    """A practice table made by a new client: (client, table id, token, snapshot)."""
    a = await open_client(srv, name)
    await a.send(I.CreateTable(discipline=discipline, practice=spec))
    s = await a.expect("seated", seat=0)
    snap = await a.expect("table_snapshot")
    await a.expect("seats", v=1)
    return a, s["table"], s["token"], snap


def layout_of(drill_id):
    return {str(b): [x, y] for b, (x, y) in drill_by_id(drill_id).position.layout().items()}


def stop_shot():
    return stop_shot_of(STOP)


async def test_a_drill_table_shoot_place_undo_redo_bit_for_bit_and_spectators_see_it(server):
    a, tid, tok, snap = await practice_table(server, drill=STOP)
    pr = snap["practice"]
    assert pr["kind"] == "drill" and pr["drill"]["id"] == STOP and pr["undo"] == 0 and pr["redo"] == 0
    assert pr["code"] == pr["start"] == drill_by_id(STOP).code()
    start = snap["state"]["layout"]
    assert start == layout_of(STOP)
    assert snap["state"]["to_act"] == 0 and snap["clock"] is None and snap["rated"] is False

    c = await open_client(server, "cy")  # a spectator
    await c.send(I.Watch(table=tid))
    await c.expect("table_snapshot")

    # the stop shot: the ruling says the drill's goal was achieved; the same player shoots next
    await a.send(I.Shot(table=tid, token=tok, seq=1, stroke=stop_shot(), call={"ball": 1, "pocket": "FR"}))
    st = await a.expect("stroke", v=2)
    assert (await c.expect("stroke", v=2)) == st
    assert st["ruling"]["drill"] == {"id": STOP, "achieved": True}
    assert "Drill: goal achieved" in st["ruling"]["text"]
    assert st["ruling"]["next_player"] == 0 and st["state"]["to_act"] == 0
    assert st["practice"]["undo"] == 1 and st["state"]["scoreboard"]["scores"] == [0, 0]
    after = st["state"]["layout"]
    assert len(after) == 16  # the last object ball made: the referee re-racks the fifteen, as in a game

    # place every ball anywhere: the whole layout, added object balls included
    placed = {"0": [0.4, 0.7], "1": [1.9, 0.9], "5": [2.2, 0.3]}
    await a.send(I.PlaceBalls(table=tid, token=tok, seq=2, balls=placed))
    pos = await a.expect("position", v=3, cause="place", seat=0, seq=2)
    assert (await c.expect("position", v=3)) == pos
    assert pos["state"]["layout"] == placed and pos["practice"]["undo"] == 2 and pos["practice"]["redo"] == 0

    # undo twice: the exact positions come back (floats compared exactly), then redo
    await a.send(I.Undo(table=tid, token=tok, seq=3))
    u1 = await a.expect("position", v=4, cause="undo")
    assert u1["state"]["layout"] == after and u1["practice"]["undo"] == 1 and u1["practice"]["redo"] == 1
    await a.send(I.Undo(table=tid, token=tok, seq=4))
    u2 = await a.expect("position", v=5, cause="undo")
    assert u2["state"]["layout"] == start
    assert all(u2["state"]["layout"][k][i] == start[k][i] for k in start for i in (0, 1))
    await a.send(I.Undo(table=tid, token=tok, seq=5))
    err = await a.expect("error", code="nothing_to_undo", ref="undo", seq=5)
    await a.send(I.Redo(table=tid, token=tok, seq=6))
    r1 = await a.expect("position", v=6, cause="redo")
    assert r1["state"]["layout"] == after
    for v in (4, 5, 6):
        assert (await c.expect("position"))["v"] == v

    # retry the stroke from the same position: undo, then the same stroke gives the same log bit for bit
    await a.send(I.Undo(table=tid, token=tok, seq=7))
    await a.expect("position", v=7)
    await a.send(I.Shot(table=tid, token=tok, seq=8, stroke=stop_shot(), call={"ball": 1, "pocket": "FR"}))
    again = await a.expect("stroke", v=8)
    assert again["log"] == st["log"] and again["state"]["layout"] == after

    # reset to the rack, then to the drill's start
    await a.send(I.Reset(table=tid, token=tok, seq=9))
    rack = await a.expect("position", v=9, cause="reset")
    assert len(rack["state"]["layout"]) == 15 and rack["state"]["phase"] == "break"
    await a.send(I.Reset(table=tid, token=tok, seq=10, to="start"))
    back = await a.expect("position", v=10, cause="reset")
    assert back["state"]["layout"] == start
    # a duplicate seq is not played again
    await a.send(I.Reset(table=tid, token=tok, seq=10, to="rack"))
    await a.expect("error", code="duplicate_sequence", v=10)
    assert err["table"] == tid
    # the record lists the strokes, marked practice (the placements between them are not in it)
    st_, _, body = await http_request(server.port, "GET", f"/records/{tid}.json")
    assert st_ == 200, body
    rec = json.loads(body)
    assert [s["practice"] for s in rec["strokes"]] == [True, True]
    assert rec["strokes"][0]["ruling"]["drill"] == {"id": STOP, "achieved": True}


async def test_bad_placements_are_refused_and_change_nothing(server):
    a, tid, tok, snap = await practice_table(server, drill=STOP)
    start = snap["state"]["layout"]
    c0 = start["0"]
    seq = 0
    bad = [
        ({"0": c0, "1": [c0[0] + 0.01, c0[1]]}, "bad_position", "balls", "overlap"),
        ({"0": c0, "1": [2.54, 1.27]}, "bad_position", "balls", "pocket"),  # the foot-left corner of a 9-ft bed
        ({"0": c0, "1": [3.9, 0.5]}, "bad_position", "balls", "off_bed"),
        ({"0": c0, "1": [0.0, 0.5]}, "bad_position", "balls", "off_bed"),
        ({"0": c0, "1": [float("nan"), 0.5]}, "bad_field", "balls.1[0]", None),
        ({"0": c0, "1": [0.5, float("inf")]}, "bad_field", "balls.1[1]", None),
        ({"0": c0, "1": [0.5, -1e308]}, "bad_field", "balls.1[1]", None),
        ({"0": c0, "1": ["x", 0.5]}, "bad_field", "balls.1[0]", None),
        ({"0": c0, "1": [0.5, 0.5, 0.5]}, "bad_field", "balls.1", None),
        ({"0": c0, "1": True}, "bad_field", "balls.1", None),
        ({"0": c0, "16": [1.0, 0.5]}, "bad_field", "balls.16", None),
        ({"0": c0, "01": [1.0, 0.5]}, "bad_field", "balls.01", None),
        ({"0": c0, "cue": [1.0, 0.5]}, "bad_field", "balls.cue", None),
        ({}, "bad_position", "balls", "missing_ball"),
        ([[0.5, 0.5]], "bad_field", "balls", None),
    ]
    for balls, code, field, rule in bad:
        seq += 1
        await a.send({"type": "place_balls", "table": tid, "token": tok, "seq": seq, "balls": balls})
        e = await a.expect("error", code=code, field=field, ref="place_balls")
        if rule is not None:
            assert e["rule"] == rule, e
        await asyncio.sleep(0.3)  # within the edit budget
    await a.send({"type": "place_balls", "table": tid, "token": tok, "seq": seq + 1})
    await a.expect("error", code="missing_field", field="balls")
    # the table is unchanged and goes on
    await a.send(I.Undo(table=tid, token=tok, seq=seq + 2))
    await a.expect("error", code="nothing_to_undo")
    await a.send(I.PlaceBalls(table=tid, token=tok, seq=seq + 3, balls={"0": (0.5, 0.5), "3": (1.5, 0.5)}))
    p = await a.expect("position", v=2)
    assert p["state"]["layout"] == {"0": [0.5, 0.5], "3": [1.5, 0.5]}


async def test_carom_ids_and_a_coach(server):
    code = drill_by_id("3c-umbrella").code()
    a, tid, tok, snap = await practice_table(server, discipline="three_cushion", position=code, coach=True)
    assert snap["practice"]["kind"] == "position" and snap["practice"]["coach"] is True
    await a.send(I.PlaceBalls(table=tid, token=tok, seq=1, balls={"0": (0.5, 0.5), "1": (1.0, 0.5), "3": (1.5, 0.5)}))
    e = await a.expect("error", code="bad_position", rule="bad_ball")
    assert "ball id 3" in e["message"]
    # the coach takes the second seat, places and shoots; the shooter stays the one to act
    b = await open_client(server, "coach")
    await b.send(I.Join(table=tid))
    sb = await b.expect("seated", seat=1)
    await b.expect("table_snapshot")
    await next_of(a, "seats")
    await next_of(b, "seats")
    await b.send(I.PlaceBalls(table=tid, token=sb["token"], seq=1,
                              balls={"0": (0.5, 0.5), "1": (1.0, 0.5), "2": (1.5, 0.9)}))
    await b.expect("position", cause="place", seat=1)
    await a.expect("position", cause="place", seat=1)
    await b.send(I.Shot(table=tid, token=sb["token"], seq=2, stroke=dict(SOFT, phi_deg=0.0, V0=2.0)))
    st = await b.expect("stroke")
    assert st["shots"][0]["seat"] == 1 and st["state"]["to_act"] == 0 and "text" in st["ruling"]
    assert "drill" not in st["ruling"]  # a position, not a drill
    # a third player: the seats are taken
    d = await open_client(server, "dan")
    await d.send(I.Join(table=tid))
    await d.expect("error", code="table_full")


async def test_one_shooter_without_a_coach_and_spectators_cannot_act(server):
    a, tid, tok, snap = await practice_table(server)  # the opening of 14.1
    assert snap["practice"]["kind"] == "opening" and snap["state"]["phase"] == "break"
    b = await open_client(server, "bob")
    await b.send(I.Join(table=tid))
    await b.expect("error", code="table_full")
    await b.send(I.Join(table=tid, seat=1))
    e = await b.expect("error", code="seat_taken")
    assert "coach" in e["message"]
    await b.send(I.Watch(table=tid))
    await b.expect("table_snapshot")
    await b.send(I.Preview(table=tid, token="s" * TOKEN_LEN, stroke=SOFT))
    await b.expect("error", code="not_seated", ref="preview")
    await b.send(I.Undo(table=tid, token="s" * TOKEN_LEN, seq=1))
    await b.expect("error", code="not_seated", ref="undo")
    # game-only actions are refused at a practice table
    await a.send(I.Resign(table=tid, token=tok))
    await a.expect("error", code="illegal_action", rule="practice")


async def test_creation_refusals(server):
    a = await open_client(server)
    cases = [
        (I.CreateTable(discipline="pentathlon", practice={}), "discipline", None),
        (I.CreateTable(discipline="straight_pool", practice={"drill": "nope"}), "practice.drill", None),
        (I.CreateTable(discipline="straight_pool", practice={"position": "AAAAAAAA"}), "practice.position",
         "bad_checksum"),
        (I.CreateTable(discipline="three_cushion", practice={"drill": STOP}), "discipline", None),
        (I.CreateTable(discipline="straight_pool", practice={}, computer=2), "computer", None),
        (I.CreateTable(discipline="straight_pool", practice={}, rated=True), "rated", None),
    ]
    for msg, field, rule in cases:
        await a.send(msg)
        e = await a.expect("error", code="bad_config", field=field, ref="create_table")
        if rule:
            assert e["rule"] == rule, e
    await a.send({"type": "create_table", "discipline": "straight_pool", "practice": {"coach": "yes"}})
    await a.expect("error", code="bad_field", field="practice.coach")
    await a.send({"type": "create_table", "discipline": "straight_pool", "practice": {"position": "a/b"}})
    await a.expect("error", code="bad_field", field="practice.position")
    await a.send({"type": "create_table", "discipline": "straight_pool", "practice": {"seed": 1}})
    await a.expect("error", code="unknown_field", field="practice.seed")
    assert a.ws.close_code is None


async def test_practice_messages_are_refused_at_a_game_table(server):
    a, b, tid, ta, tb = await table_with_two(server, config={"breaker": 0})
    for msg in (I.Preview(table=tid, token=ta, stroke=SOFT, cue_ball=(0.3, 0.6)),
                I.PlaceBalls(table=tid, token=ta, seq=1, balls={"0": (0.3, 0.6)}),
                I.Undo(table=tid, token=ta, seq=2), I.Redo(table=tid, token=ta, seq=3),
                I.Reset(table=tid, token=ta, seq=4)):
        await a.send(msg)
        e = await a.expect("error", code="not_practice", ref=msg.TYPE, table=tid)
        assert "practice table" in e["message"]
    await b.silent(0.3)
    # the game goes on unharmed
    await a.send(I.Shot(table=tid, token=ta, seq=1, stroke=dict(SOFT, phi_deg=0.0, V0=2.0), cue_ball=(0.3, 0.6)))
    await a.expect("stroke", v=3)


async def test_a_flood_of_previews_and_placements_is_rate_limited_without_harming_the_table(server):
    a, tid, tok, snap = await practice_table(server, drill=STOP)
    c = await open_client(server, "cy")
    await c.send(I.Watch(table=tid))
    await c.expect("table_snapshot")
    for _ in range(20):
        await a.send(I.Preview(table=tid, token=tok, stroke=stop_shot(), call={"ball": 1, "pocket": "FR"}))
    got = [await a.recv() for _ in range(20)]
    previews = [m for m in got if m["type"] == "preview"]
    limited = [m for m in got if m["type"] == "error"]
    assert 6 <= len(previews) < 10 and len(previews) + len(limited) == 20
    assert {m["code"] for m in limited} == {"practice_rate_limited"}
    assert all(p["log"] == previews[0]["log"] and p["v"] == 1 for p in previews)
    assert previews[0]["ruling"]["points"][0] == 1
    await c.silent(0.3)  # previews go to the requester only
    # a flood of placements: the first ones are played, the rest refused, the stream stays consecutive
    for i in range(20):
        await a.send(I.PlaceBalls(table=tid, token=tok, seq=i + 1, balls={"0": (0.5, 0.5), "1": (1.0 + 0.01 * i, 0.5)}))
    got = [await a.recv() for _ in range(20)]
    played = [m for m in got if m["type"] == "position"]
    assert 12 <= len(played) < 16
    assert [m["v"] for m in played] == list(range(2, 2 + len(played)))
    assert {m["code"] for m in got if m["type"] == "error"} == {"practice_rate_limited"}
    assert [(await c.expect("position"))["v"] for _ in played] == [m["v"] for m in played]
    await asyncio.sleep(1.0)  # the budget refills: previews and the table work again
    await a.send(I.Preview(table=tid, token=tok, stroke=SOFT, call={"safety": True}))
    assert (await a.expect("preview"))["v"] == played[-1]["v"]
    assert a.ws.close_code is None


async def test_practice_tables_count_against_the_per_address_limit_and_show_in_the_lobby(make_server):
    srv = await make_server(max_tables_per_address=2)
    a, tid, _, _ = await practice_table(srv, drill=STOP)
    lobby = await open_client(srv, "lobby")
    await lobby.send(I.LobbySubscribe())
    page = await lobby.expect("lobby")
    entry = next(t for t in page["tables"] if t["table"] == tid)
    assert entry["practice"] is True and entry["status"] == "playing"
    await practice_table(srv, "bob")
    c = await open_client(srv, "cy")
    await c.send(I.CreateTable(discipline="three_cushion", practice={"drill": "3c-umbrella"}))
    await c.expect("error", code="too_many_tables")


async def test_a_restart_keeps_the_practice_table_and_its_undo_stack(make_server):
    srv = await make_server()
    a, tid, tok, snap = await practice_table(srv, drill=STOP, coach=True)
    start = snap["state"]["layout"]
    placed = {"0": [0.4, 0.7], "1": [1.9, 0.9]}
    await a.send(I.PlaceBalls(table=tid, token=tok, seq=1, balls=placed))
    await a.expect("position", v=2)
    await srv.stop()
    await a.expect("shutdown", reason="restart")
    srv2 = await make_server()
    assert srv2.tables[tid].practice is not None
    a2 = await open_client(srv2, "ann")
    await a2.send(I.Resume(table=tid, token=tok))
    await a2.expect("seated", seat=0)
    snap2 = await a2.expect("table_snapshot")
    assert snap2["practice"]["kind"] == "drill" and snap2["practice"]["undo"] == 1 and snap2["practice"]["coach"]
    assert snap2["state"]["layout"] == placed
    await next_of(a2, "seats")
    await a2.send(I.Undo(table=tid, token=tok, seq=2))
    u = await a2.expect("position", cause="undo")
    assert u["state"]["layout"] == start  # bit for bit through Redis and a restart
