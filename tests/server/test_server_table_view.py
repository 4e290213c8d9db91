"""What the server gives the browser to read a table (issue 14's protocol part): the game's history in every
snapshot, a name changed at once, and the shooter's aim shown live to the opponent and the spectators."""

import asyncio
import time

from harness import STROKE, any_action, next_of, open_client, table_with_two
from protocol import inbound as I

POOL = {"breaker": 0, "target_points": 5}  # seat 0 breaks: no lag
BREAK = dict(STROKE, V0=2.0)
KITCHEN = (0.3, 0.6)


async def test_a_late_spectator_and_a_restart_see_every_stroke_and_ruling_of_the_game(make_server):
    srv = await make_server()
    a, b, tid, ta, tb = await table_with_two(srv, config=POOL)
    await a.send(I.Shot(table=tid, token=ta, seq=1, stroke=BREAK, cue_ball=KITCHEN))
    s1 = await a.expect("stroke", v=3)
    await b.expect("stroke", v=3)
    mover, token = (a, ta) if s1["state"]["to_act"] == 0 else (b, tb)
    await mover.send(any_action(s1["state"], tid, token, 2))
    m2 = await a.expect(("stroke" if s1["state"]["legal"]["shoot"] else "ruling"), v=4)
    await b.expect(m2["type"], v=4)
    late = await open_client(srv, "late")
    await late.send(I.Watch(table=tid))
    snap = await late.expect("table_snapshot", v=4)
    want = [{"i": 0, "v": 3, "kind": "stroke", "seat": 0, "call": None, "decision": None, "ruling": s1["ruling"]},
            {"i": 1, "v": 4, "kind": "stroke" if m2["type"] == "stroke" else "decision", "seat": s1["state"]["to_act"],
             "call": m2["shots"][0]["call"] if m2["type"] == "stroke" else None, "decision": m2.get("decision"),
             "ruling": m2["ruling"]}]
    assert snap["history"] == want
    # the history survives a restart: rebuilt from the record in Redis
    await srv.stop()
    srv2 = await make_server()
    w = await open_client(srv2, "w")
    await w.send(I.Watch(table=tid))
    assert (await w.expect("table_snapshot", v=4))["history"] == want


async def test_a_new_game_starts_with_an_empty_history(server):
    a, b, tid, ta, tb = await table_with_two(server, config=POOL)
    await b.send(I.Resign(table=tid, token=tb))
    r = await a.expect("ruling", v=3, cause="resign")
    await b.expect("ruling", v=3)
    c = await open_client(server, "cy")
    await c.send(I.Watch(table=tid))
    snap = await c.expect("table_snapshot", v=3)
    assert snap["history"] == [{"i": 0, "v": 3, "kind": "forfeit", "seat": 1, "call": None, "decision": None,
                                "ruling": r["ruling"]}]
    await a.send(I.RematchOffer(table=tid, token=ta))
    await b.send(I.RematchAccept(table=tid, token=tb))
    s = await next_of(a, "table_snapshot")
    assert s["game"] == 2 and s["history"] == []


async def test_a_name_changes_at_once_but_not_during_a_game(server):
    a = await open_client(server, "ann")
    await a.send(I.CreateTable(discipline="straight_pool", config=POOL))
    sa = await a.expect("seated", seat=0)
    tid = sa["table"]
    await a.expect("table_snapshot")
    await a.expect("seats", v=1)
    await a.send(I.Rename(name="  Annie  "))
    assert (await a.expect("renamed"))["name"] == "Annie"
    seats = await a.expect("seats", v=2)
    assert seats["seats"][0]["name"] == "Annie"  # no game yet: the seat shows it at once
    await a.send({"type": "rename", "name": "x" * 33})
    await a.expect("error", code="bad_field", field="name")
    await a.send({"type": "rename", "name": "a\u202eb"})  # a bidi override: names are checked as in hello
    await a.expect("error", code="bad_field", field="name")
    b = await open_client(server, "Annie")
    await b.send(I.Join(table=tid))
    sb = await b.expect("seated", seat=1)
    await b.expect("table_snapshot")
    seats = await b.expect("seats", v=3)
    assert [s["name"] for s in seats["seats"]] == ["Annie", "Annie (2)"]  # nobody passes for the opponent
    await a.expect("seats", v=3)
    await a.send(I.Rename(name="Zed"))
    err = await a.expect("error", code="game_in_progress", field="name")
    assert err["ref"] == "rename"
    await b.silent(0.3)  # nothing changed at the table
    await b.send(I.Resign(table=tid, token=sb["token"]))
    await a.expect("ruling", v=4)
    await a.send(I.Rename(name="Zed"))
    await a.expect("renamed", name="Zed")
    assert (await a.expect("seats", v=5))["seats"][0]["name"] == "Zed"


async def test_the_shooters_aim_reaches_the_opponent_and_spectators_only(server):
    a, b, tid, ta, tb = await table_with_two(server, config=POOL)
    c = await open_client(server, "cy")
    await c.send(I.Watch(table=tid))
    await c.expect("table_snapshot")
    aim = I.Aim(table=tid, token=ta, phi_deg=12.25, a=0.1, b=-0.2, theta_deg=3.0, V0=2.5, cue_ball=KITCHEN)
    t0 = time.monotonic()
    await a.send(aim)
    want = {"type": "aim", "table": tid, "seat": 0, "phi_deg": 12.25, "a": 0.1, "b": -0.2, "theta_deg": 3.0,
            "V0": 2.5, "cue_ball": [0.3, 0.6]}
    assert await b.expect("aim") == want
    assert await c.expect("aim") == want
    assert time.monotonic() - t0 < 1.0
    await a.silent(0.3)  # not echoed to the shooter
    # the player not to act, and a spectator, show nothing
    await b.send(I.Aim(table=tid, token=tb, phi_deg=1.0, a=0.0, b=0.0, theta_deg=0.0, V0=1.0))
    await c.send(I.Aim(table=tid, token="s" * 32, phi_deg=1.0, a=0.0, b=0.0, theta_deg=0.0, V0=1.0))
    await c.expect("error", code="not_seated")
    await a.silent(0.3)
    # bad values are refused like any field
    await a.send({"type": "aim", "table": tid, "token": ta, "phi_deg": float("nan"), "a": 0.0, "b": 0.0,
                  "theta_deg": 0.0, "V0": 1.0})
    await a.expect("error", code="bad_field", field="phi_deg")
    # a flood: at most the aim budget (10 a second, burst 10) is relayed, the rest dropped without an answer
    for i in range(30):
        await a.send(I.Aim(table=tid, token=ta, phi_deg=float(i), a=0.0, b=0.0, theta_deg=0.0, V0=2.0))
    await asyncio.sleep(0.5)
    got = 0
    try:
        while True:
            m = await b.recv(0.3)
            got += m["type"] == "aim"
    except asyncio.TimeoutError:
        pass
    assert 9 <= got <= 16, got
    await a.silent(0.2)
