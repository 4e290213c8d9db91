"""The Python side of the client's unit tests (run by vitest through the project's virtualenv).

Modes (argv[1]):
  presets   print {name: Table.to_json()} for every preset (physics/table.py), as JSON
  samples   print one sample of every protocol message type, built with the Python reference
            (protocol/inbound.py, protocol/outbound.py), as JSON: {"outbound": [{"type", "hex",
            "value"}], "inbound": [...], "outbound_types": [...], "inbound_types": [...]}
  parse     read hex-encoded client frames (one per line) on stdin and print, for each, the
            validated message map (protocol.decode_client(...).to_wire()) or {"error": code, "field"}
  placement read [{"table": "9ft"|"8ft"|"7ft", "at": [x, y]}] on stdin and print, for each, the
            server's verdict on a 14.1 cue ball in hand there (a fresh game's
            StraightPool._check_placement, the rack on the table): {"ok": true} or {"error": code,
            "message"}, plus "surface": Table.on_bed and physics.simulate.on_playing_surface
  zones     print {discipline: new_game(discipline).table_zones()} for libre, balkline_47_2 and
            three_cushion: the zone shapes the server sends in a game state
  rulings   print {"straight_pool"|"three_cushion"|"pentathlon": [text, ...]}: the distinct ruling
            texts of the recorded games in tests/rules/data (the referees' own words)
  kitchen   print {"9ft"|"8ft"|"7ft": x_max}: the kitchen limit the server sends with a cue ball in
            hand (rules/spotting.py kitchen_x_max)
  logs      print {"cases": [{"name", "f1", "f2", "sim"}], "stored": [{"name", "hex", "sim"}]}: for every
            golden vector (tests/golden) and every shot of the wire bench workloads (bench/workloads.py),
            the msgpack bytes (hex) of its wire log in format 1 and in format 2 (protocol.encode_log)
            and its SimResult.to_json(); and the stored logs of tests/protocol/data with the golden
            vector each must decode to
  simulate  read [{"table", "balls": {id: [x, y]}, "shot": {cue_ball, phi_deg, V0, a, b, theta_deg}}] on
            stdin and print, for each, physics.simulate(...).to_json() (the SimResult JSON)
  diamonds  print {golden file name: rules.carom.diamonds.cushion_diamonds(...)} for every carom golden vector
            (tests/golden/carom_*.json): the cue ball's cushion contacts in diamond units
  strikes   print {"cues": {preset: CueSpec}, "strokes": [{"table", "mass", "radius", "stroke", "v", "w"}]}: a
            lone cue ball struck with sampled strokes on a pool and a carom table, and its velocity
            and spin in the strike event of physics.simulate (physics/cue_strike.pyx)

Nothing here is test logic: it only exposes the reference implementation to the TypeScript tests.
"""

from __future__ import annotations

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import protocol  # noqa: E402
from physics import Shot, simulate  # noqa: E402
from physics.table import TABLES, get_table  # noqa: E402
from protocol import inbound as I  # noqa: E402
from protocol import outbound as O  # noqa: E402
from protocol.errors import ProtocolError  # noqa: E402


def presets():
    return {name: t.to_json() for name, t in TABLES.items()}


def _game_state():
    from rules.registry import new_game

    g = new_game("straight_pool", {"target_points": 25, "breaker": 0}, 7)
    view = O.game_state(g.phase, g.to_act, g.layout(), g.scoreboard(), g.legal_actions(), g.over, None)
    return g, view


def samples():
    t = get_table("pool-9ft")
    g, state = _game_state()
    layout = dict(g.layout())
    layout[0] = (t.head_string_x - 0.2, t.width / 2 + 0.03)
    sim = simulate(t, layout, Shot(cue_ball=0, phi_deg=1.7, V0=6.5, a=0.1, b=-0.2, theta_deg=3.0))
    log = protocol.encode_log(sim, *protocol.preset_ids(t.to_json()))
    ruling = {"player": 0, "points": [0, 0], "scores": [0, 0], "foul": None, "fouls": [], "penalty": 0, "fouls_in_row": [0, 0],
              "spotted": {}, "rerack": None, "placed": {}, "next_player": 1, "cue_ball_in_hand": None, "options": [],
              "game_over": False, "winner": None, "text": "Legal break; B to shoot"}
    seat = O.seat_entry(0, "p-1", "Ann", True, None)
    ts = 1790000000.125
    outbound = [
        O.welcome(1, "s-1", "p-1", "Ann", ts, {"max_frame_bytes": 8192, "chat_chars": 280}),
        O.error("bad_field", "stroke.V0: must be at most 10 m/s", "stroke.V0", "shot", table="t1", seq=3),
        O.pong(12.5, ts),
        O.lobby([O.lobby_entry("t1", "straight_pool", ["Ann", None], [0, 0], "waiting", 2, 4, ts)], 3),
        O.lobby_update(O.lobby_entry("t1", "three_cushion", ["Ann", "Bob"], [-1, 12], "playing", 0, 9, ts)),
        O.lobby_remove("t1"),
        O.quick_play_waiting("three_cushion"),
        O.seated("t1", 1, "x" * 32),
        O.left("t1"),
        O.table_snapshot("t1", 5, ts, game=1, discipline="straight_pool", config=g.config, preset=t.to_json(), private=False,
                         seats=[seat, None], spectators=1, state=state, clock={"seat": 0, "limit_s": 30.0, "deadline": ts + 30},
                         chat=[{"seat": None, "name": "Sue", "text": "hi", "ts": ts}], rematch=[False, False]),
        O.stroke("t1", 6, ts, game=1, shots=[{"seat": 0, "seq": 17, "stroke": {"phi_deg": 1.7, "V0": 6.5, "a": 0.1, "b": -0.2, "theta_deg": 3.0},
                                             "call": None, "cue_ball": list(layout[0])}],
                 log=log, ruling=ruling, state=state, clock=None),
        O.ruling("t1", 7, ts, game=1, cause="decision", seat=1, seq=18, decision={"name": "ACCEPT_TABLE", "arg": None}, ruling=ruling,
                 state=state, clock=None),
        O.seats("t1", 8, ts, [seat, O.seat_entry(1, "p-2", "Bob", False, ts + 60)],
                clock={"seat": 0, "limit_s": 30.0, "deadline": ts + 21.5}),
        O.spectators("t1", 4),
        O.chat("t1", 9, ts, seat=None, name="Sue", text="n\u00edce sh\u00f8t \u2764"),
        O.rematch("t1", 10, ts, [True, False]),
        O.shutdown("restart", 1500),
        O.renamed("Ann B."),
        O.aim("t1", 0, -12.5, 0.1, -0.2, 4.0, 2.5, [0.5, 0.6]),
        O.game_rated("t1", 2, [{"seat": 0, "name": "Ann", "before": 1500, "after": 1662, "rd_after": 290, "provisional": True},
                               {"seat": 1, "name": "Bob", "before": 1500, "after": 1338, "rd_after": 290, "provisional": True}]),
        O.position("t1", 11, ts, game=1, cause="undo", seat=0, seq=19, state=state,
                   practice=O.practice_view("drill", {"id": "pool-9ft-stop-1", "name": "Stop shot, 1 diamond"},
                                            "AQAAAw", "AQAAAw", False, 2, 1)),
        O.preview("t1", 11, log, ruling),
        O.tournament_game(7, "R1-2", "tour-7-R1-2", 1, "Ann"),
    ]
    tok = "y" * 24
    inbound = [
        I.Hello(1, "Ann", "billar-web/0.1"),
        I.Ping(3.25),
        I.LobbySubscribe(),
        I.LobbyUnsubscribe(),
        I.QuickPlay("three_cushion", {"distance": 2}),
        I.QuickPlayCancel(),
        I.CreateTable("straight_pool", {"target_points": 3, "shot_clock": {"limit_s": 30, "extensions": 1}}, True, 0),
        I.Join("t1", 1),
        I.Watch("t1", 12),
        I.Leave("t1", tok),
        I.Resume("t1", tok, 14),
        I.Shot("t1", tok, 1790000000123, {"phi_deg": -12.345678, "V0": 2.5, "a": 0.1, "b": -0.25, "theta_deg": 5.0},
               {"ball": 7, "pocket": "FR"}, (0.5, 0.6)),
        I.Decision("t1", tok, 1790000000124, "CHOOSE_BREAKER", 1),
        I.Resign("t1", tok),
        I.Claim("t1", tok),
        I.RematchOffer("t1", tok),
        I.RematchAccept("t1", tok),
        I.Chat("t1", "hello \u00e9t\u00e9"),
        I.Rename("Ann B."),
        I.Aim("t1", tok, -12.5, 0.1, -0.2, 4.0, 2.5, (0.5, 0.6)),
        I.PlaceBalls("t1", tok, 1790000000125, {"0": (0.5, 0.6), "9": (1.75, 0.625)}),
        I.Undo("t1", tok, 1790000000126),
        I.Redo("t1", tok, 1790000000127),
        I.Reset("t1", tok, 1790000000128, "start"),
        I.Preview("t1", tok, {"phi_deg": -12.345678, "V0": 2.5, "a": 0.1, "b": -0.25, "theta_deg": 5.0}, None, (0.5, 0.6)),
    ]

    def item(msg):
        return {"type": msg["type"], "hex": protocol.encode(msg).hex(), "value": msg}

    return {
        "outbound": [item(m) for m in outbound],
        "inbound": [item(m.to_wire()) for m in inbound],
        "outbound_types": sorted(O.OUTBOUND_TYPES),
        "inbound_types": sorted(I.INBOUND),
    }


def logs():
    import glob

    import msgpack

    from bench.workloads import WORKLOADS
    from physics import SimResult

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sims = []
    for path in sorted(glob.glob(os.path.join(root, "tests", "golden", "*.json"))):
        with open(path) as f:
            sims.append((os.path.basename(path)[:-5], SimResult.from_json(json.load(f)["result"])))
    for wname, make in WORKLOADS.items():
        for i, (table, balls, shot) in enumerate(make()):
            sims.append((f"{wname} #{i}", simulate(get_table(table), balls, Shot(**shot))))
    cases = []
    for name, sim in sims:
        ids = protocol.preset_ids(sim.table.to_json())
        cases.append({"name": name, "sim": sim.to_json(),
                      **{f"f{fmt}": msgpack.packb(protocol.encode_log(sim, *ids, fmt=fmt)).hex() for fmt in (1, 2)}})
    stored = []
    for path in sorted(glob.glob(os.path.join(root, "tests", "protocol", "data", "*.msgpack"))):
        name = os.path.basename(path)
        with open(path, "rb") as f, open(os.path.join(root, "tests", "golden", name.split(".")[0] + ".json")) as g:
            stored.append({"name": name, "hex": f.read().hex(), "sim": json.load(g)["result"]})
    return {"cases": cases, "stored": stored}
def strikes():
    import random

    rng = random.Random(14)
    out = []
    for name in ("pool-9ft", "carom"):
        t = get_table(name)
        for k in range(40):
            r, ang = 0.5 * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
            st = {"phi_deg": rng.choice([0.0, 90.0, 180.0, -90.0, rng.uniform(-360, 360)]) if k % 4 == 0 else rng.uniform(-360, 360),
                  "V0": rng.uniform(0.05, 10.0), "a": r * math.cos(ang), "b": r * math.sin(ang),
                  "theta_deg": 0.0 if k % 3 == 0 else rng.uniform(0, 70)}
            sim = simulate(t, {0: (t.length / 2, t.width / 2)}, Shot(cue_ball=0, **st))
            e = sim.events[0]
            assert e.kind == "strike"
            s = e.states[0]
            out.append({"table": name, "mass": t.ball.mass, "radius": t.R, "stroke": st, "v": list(s.v), "w": list(s.w)})
    cues = {n: {"mass": t.cue.mass, "end_mass": t.cue.end_mass} for n, t in TABLES.items()}
    return {"cues": cues, "strokes": out}


def parse(lines):
    out = []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            out.append(protocol.decode_client(bytes.fromhex(line)).to_wire())
        except ProtocolError as exc:
            out.append({"error": exc.code, "field": exc.field})
    return out


def diamonds():
    from rules.carom.diamonds import cushion_diamonds

    golden = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests", "golden")
    out = {}
    for f in sorted(os.listdir(golden)):
        if f.startswith("carom_") and f.endswith(".json"):
            with open(os.path.join(golden, f)) as fh:
                g = json.load(fh)
            out[f] = cushion_diamonds(get_table(g["result"]["table"]), g["result"]["events"])
    return out


def placement(items):
    from physics.simulate import on_playing_surface
    from rules.base import IllegalAction
    from rules.registry import new_game

    out = []
    for it in items:
        g = new_game("straight_pool", {"target_points": 25, "breaker": 0, "table": it["table"]}, 7)
        at = tuple(it["at"])
        row = {"surface": bool(g.table.on_bed(at) and on_playing_surface(g.table, at))}
        try:
            g._check_placement(list(at))
            row["ok"] = True
        except IllegalAction as exc:
            row.update(ok=False, error=exc.code, message=str(exc))
        out.append(row)
    return out


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "presets":
        res = presets()
    elif mode == "samples":
        res = samples()
    elif mode == "parse":
        res = parse(sys.stdin.read().splitlines())
    elif mode == "zones":
        from rules.registry import new_game

        res = {d: new_game(d, {}, 7).table_zones() for d in ("libre", "balkline_47_2", "three_cushion")}
    elif mode == "rulings":
        import gzip

        res = {}
        data = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests", "rules", "data")
        for f in ("straight_pool_game", "carom_three_cushion_game", "carom_pentathlon_match"):
            with gzip.open(os.path.join(data, f + ".json.gz"), "rt") as fh:
                rec = json.load(fh)
            texts = [s["ruling"]["text"] for s in rec["strokes"] if s.get("ruling") and s["ruling"].get("text")]
            res[rec["discipline"]] = sorted(set(texts))
    elif mode == "kitchen":
        from rules.spotting import kitchen_x_max
        from rules.straight_pool import TABLE_PRESETS

        res = {k: kitchen_x_max(get_table(v)) for k, v in TABLE_PRESETS.items()}
    elif mode == "logs":
        res = logs()
    elif mode == "simulate":
        res = [simulate(get_table(c["table"]), {int(k): tuple(v) for k, v in c["balls"].items()}, Shot(**c["shot"])).to_json()
               for c in json.loads(sys.stdin.read())]
    elif mode == "strikes":
        res = strikes()
    elif mode == "diamonds":
        res = diamonds()
    elif mode == "placement":
        res = placement(json.loads(sys.stdin.read()))
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    json.dump(res, sys.stdout, allow_nan=False)
