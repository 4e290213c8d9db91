"""Puzzles through the server's own port: a fresh server has the seed set, an attempt is judged, a game written to
the database is handed to the background miner (when BILLAR_PUZZLE_MINING is on), the OpenAPI document lists
the routes."""

import asyncio
import json
import os
import sys

from harness import http_request as http

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "players"))
from records_helpers import server_record  # noqa: E402  (tests/players: recorded games in the server's format)
from server.config import from_env
from server.players.games import record_game
from server.puzzles.service import load_seed
from server.records import export


def jpost(port, path, obj, **headers):
    return http(port, "POST", path, json.dumps(obj).encode(), {"Content-Type": "application/json", **headers})


async def test_a_fresh_server_has_the_seed_puzzles_and_judges_attempts(server):
    assert server.miner.enabled is False  # the tests turn mining off (tests/conftest.py)
    seeds = load_seed()
    st, h, body = await http(server.port, "GET", "/api/puzzles/daily")
    assert st == 200 and h["content-type"].startswith("application/json")
    daily = json.loads(body)
    assert daily["position"] == seeds[daily["id"] - 1]["code"]
    p = seeds[0]
    sol = p["solution"]
    st, _, body = await jpost(server.port, "/api/puzzles/1/attempt", {"stroke": sol["stroke"], "call": sol["call"]})
    assert st == 200, body
    out = json.loads(body)
    assert out["solved"] is True and out["attempt"] == 1 and out["rating"] is None
    st, _, body = await http(server.port, "POST", "/api/puzzles/1/attempt", b"{" + b" " * 5000 + b"}",
                             {"Content-Type": "application/json"})
    assert st == 413 and json.loads(body)["error"]["code"] == "too_large"
    st, _, body = await http(server.port, "GET", "/api/puzzles/x")
    assert st == 400 and json.loads(body)["error"]["code"] == "bad_id"
    st, _, body = await http(server.port, "GET", "/api/openapi.json")
    paths = json.loads(body)["paths"]
    assert {"/api/puzzles/daily", "/api/puzzles/{id}", "/api/puzzles/{id}/attempt"} <= set(paths)


async def test_games_written_to_the_database_are_mined_when_mining_is_on(make_server):
    srv = await make_server(puzzle_mining=True)
    assert srv.miner.enabled and srv.recorder.on_recorded == srv.miner.submit
    out = await record_game(srv.db, *server_record("three_cushion", "mined", 1), export)
    srv.recorder.on_recorded(out.game_id)
    for _ in range(200):
        if srv.miner.mined:
            break
        await asyncio.sleep(0.05)
    assert srv.miner.mined == 3
    st, _, body = await http(srv.port, "GET", "/api/puzzles/17")
    assert st == 200, body
    assert json.loads(body)["source"] == {"game": str(out.game_id), "stroke": 5}


def test_the_mining_setting():
    assert from_env({}).puzzle_mining is True
    assert from_env({"BILLAR_PUZZLE_MINING": "0"}).puzzle_mining is False
