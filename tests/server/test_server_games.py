"""Whole games between two scripted clients through the real server, watched by a spectator.

The clients choose their strokes with the bots' aiming (bots/aim.py: 14.1 ghost-ball pots;
bots/carom_search.py: carom search), planning on a copy of the referee's state, and play only
through the protocol. Every stream message must reach both players and the spectator as the
same bytes; the exported record must re-judge to the same result with ``billar referee``.
"""

import json
import math
import os
import subprocess
import sys

from bots import aim as A
from bots import carom_search as C
from harness import metrics, open_client, wait_for
from protocol import inbound as I
from rules.registry import game_from_state
from server.metrics import parse_text

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_ACTIONS = 150


def stroke_of(shot):
    return {"phi_deg": float(shot.phi_deg), "V0": float(shot.V0), "a": float(shot.a), "b": float(shot.b),
            "theta_deg": float(shot.theta_deg)}


def plan_pool(game):
    """(call, cue_ball placement, stroke) for the 14.1 player to act: the straightest open pot, else a safety."""
    shoot = game.legal_actions()["shoot"]
    lay = dict(game.layout())
    R = game.table.R
    cue = None
    if shoot["in_hand"]:
        x_max = shoot["in_hand"].get("x_max", game.table.length) if shoot["in_hand"]["region"] == "kitchen" else 2.4
        best = None
        for x in (0.1, 0.25, 0.4, 0.55, 0.9, 1.3, 1.8):
            for y in (0.2, 0.4, 0.635, 0.85, 1.05):
                if x >= x_max or any(math.hypot(x - p[0], y - p[1]) < 2.2 * R for b, p in lay.items() if b != 0):
                    continue
                trial = dict(lay)
                trial[0] = (x, y)
                a = A.nearest_to_straight(game.table, trial, 0, shoot["balls"])
                if best is None or (a is not None and (best[1] is None or a.cut_deg < best[1].cut_deg)):
                    best = ((x, y), a)
        cue = best[0]
        lay[0] = cue
    if game.phase == "break":
        return None, cue, {"phi_deg": 0.0, "V0": 2.0, "a": 0.0, "b": 0.0, "theta_deg": 0.0}
    a = A.nearest_to_straight(game.table, lay, 0, shoot["balls"])
    if a is None:
        b = min((b for b in lay if b != 0), key=lambda b: math.dist(lay[b], lay[0]))
        phi = math.degrees(math.atan2(lay[b][1] - lay[0][1], lay[b][0] - lay[0][0]))
        return {"safety": True}, cue, {"phi_deg": phi, "V0": 1.2, "a": 0.0, "b": 0.0, "theta_deg": 0.0}
    return ({"ball": a.ball, "pocket": a.pocket}, cue,
            {"phi_deg": a.phi_deg, "V0": A.speed_for(game.table, a), "a": 0.0, "b": 0.0, "theta_deg": 0.0})


def plan_carom(game):
    found = C.find_carom(game, max_sims=4000)
    return None, None, stroke_of(found.shot if found else C.safe_stroke(game))


async def play_whole_game(srv, discipline, config, plan):
    a = await open_client(srv, "ann")
    b = await open_client(srv, "bob")
    spec = await open_client(srv, "spec")
    await a.send(I.CreateTable(discipline=discipline, config=config))
    sa = await a.expect("seated", seat=0)
    tid = sa["table"]
    snap = await a.expect("table_snapshot")
    await a.expect("seats")
    await b.send(I.Join(table=tid))
    sb = await b.expect("seated", seat=1)
    await b.expect("table_snapshot")
    await b.expect("seats", v=2)
    await a.expect("seats", v=2)
    await spec.send(I.Watch(table=tid))
    state = (await spec.expect("table_snapshot", v=2))["state"]
    clients, tokens, seqs = (a, b), (sa["token"], sb["token"]), [0, 0]
    v = 2
    strokes = 0
    for _ in range(MAX_ACTIONS):
        if state["over"]:
            break
        game = game_from_state(srv.tables[tid].game.to_state())  # a private copy to plan on
        legal = state["legal"]
        if legal["shoot"] and legal["shoot"]["lag"]:
            lag = C.lag_shots(game)
            for seat in (0, 1):
                st = stroke_of(lag[seat])
                st["V0"] += 0.05 * seat  # two different lags: no endless tie
                seqs[seat] += 1
                await clients[seat].send(I.Shot(table=tid, token=tokens[seat], seq=seqs[seat], stroke=st))
        else:
            seat = state["to_act"]
            seqs[seat] += 1
            if legal["shoot"]:
                call, cue, st = plan(game)
                msg = I.Shot(table=tid, token=tokens[seat], seq=seqs[seat], stroke=st, call=call, cue_ball=cue)
            else:
                d = legal["decisions"][0]
                msg = I.Decision(table=tid, token=tokens[seat], seq=seqs[seat], name=d["name"],
                                 arg=d["args"][0] if d["args"] else None)
            await clients[seat].send(msg)
        v += 1
        m = await spec.recv()
        assert m["type"] in ("stroke", "ruling") and m["v"] == v, m
        await a.expect(m["type"], v=v)
        await b.expect(m["type"], v=v)
        assert a.raw[-1] == b.raw[-1] == spec.raw[-1]
        strokes += m["type"] == "stroke"
        state = m["state"]
    assert state["over"], "the game did not finish"
    return a, b, spec, tid, (sa["token"], sb["token"]), state, strokes


async def finish_and_check(srv, a, b, spec, tid, tokens, state, strokes, discipline):
    m = metrics(srv)
    assert m["billar_strokes_total"] == strokes and m["billar_games_finished_total"] == 1
    # the record re-judges to the same rulings and result
    rec_status, body = await srv.export_record(tid, None)
    assert rec_status == 200
    assert body["result"] == state["result"]
    path = os.path.join(srv.settings.data_dir, f"record-{tid}.json")
    os.makedirs(srv.settings.data_dir, exist_ok=True)
    with open(path, "w") as fh:
        json.dump(body, fh)
    out = subprocess.run([sys.executable, "-m", "server.cli", "referee", discipline, "--replay", path, "--json"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    final = json.loads(out.stdout.splitlines()[-1])
    assert final["differences"] == 0 and final["over"] is True and final["scores"] == state["result"]["scores"]
    # everybody leaves: every gauge back to zero, the table gone
    await spec.send(I.Leave(table=tid))
    await spec.expect("left")
    await a.send(I.Leave(table=tid, token=tokens[0]))
    await a.expect("left")
    await b.expect("seats")  # seat 0 is free
    await b.send(I.Leave(table=tid, token=tokens[1]))
    await b.expect("left")
    for c in (a, b, spec):
        await c.close()
    await wait_for(lambda: metrics(srv)["billar_tables_active"] == 0 and metrics(srv)["billar_connections"] == 0)
    m = parse_text(srv.render_metrics())
    assert m["billar_spectators"] == 0 and m["billar_players_connected"] == 0


async def test_whole_straight_pool_game(make_server, tmp_path):
    srv = await make_server(data_dir=str(tmp_path))
    res = await play_whole_game(srv, "straight_pool", {"breaker": 0, "target_points": 5}, plan_pool)
    state = res[5]
    assert max(state["result"]["scores"]) >= 5 and state["result"]["winner"] in (0, 1)
    await finish_and_check(srv, *res, "straight_pool")


async def test_whole_three_cushion_game_with_a_simulated_lag(make_server, tmp_path):
    srv = await make_server(data_dir=str(tmp_path))
    res = await play_whole_game(srv, "three_cushion", {"distance": 2}, plan_carom)
    state = res[5]
    assert max(state["result"]["scores"]) == 2
    await finish_and_check(srv, *res, "three_cushion")
