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
    ]

    def item(msg):
        return {"type": msg["type"], "hex": protocol.encode(msg).hex(), "value": msg}

    return {
        "outbound": [item(m) for m in outbound],
        "inbound": [item(m.to_wire()) for m in inbound],
        "outbound_types": sorted(O.OUTBOUND_TYPES),
        "inbound_types": sorted(I.INBOUND),
    }


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
    elif mode == "placement":
        res = placement(json.loads(sys.stdin.read()))
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    json.dump(res, sys.stdout, allow_nan=False)
