"""Whole games: straight through the referee (self-play) and over the real protocol (``billar bots``)."""

from __future__ import annotations

import asyncio
import os
import sys


from bots.engine import Player
from bots.selfplay import play_game
from server.metrics import parse_text

from bots_helpers import counters_back_to_zero

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BILLAR = os.path.join(os.path.dirname(sys.executable), "billar")


def test_selfplay_14_1_to_10():
    st = play_game("straight_pool", {"target_points": 10}, [Player(2, 1), Player(2, 2)], seed=7)
    assert st.winner in (0, 1)
    assert st.points[st.winner] >= 10 and st.points[1 - st.winner] < 10
    # every ball a run scored is a point; fouls took points off
    for s in (0, 1):
        assert sum(st.runs[s]) - st.points[s] >= 0
    assert sum(st.strokes) >= 10 and len(st.think_s[0]) >= st.strokes[0]


def test_selfplay_three_cushion_to_2():
    st = play_game("three_cushion", {"distance": 2}, [Player(3, 1), Player(1, 2)], seed=3)
    assert st.winner in (0, 1) and st.points[st.winner] == 2
    for s in (0, 1):
        assert sum(st.runs[s]) == st.points[s]  # carom has no penalties: runs add up to the score


async def run_cli(*args: str, timeout: float = 300.0):
    proc = await asyncio.create_subprocess_exec(BILLAR, "bots", *args, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE, cwd=ROOT)
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    return proc.returncode, out.decode(), err.decode()


def figure(out: str, name: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(name))[len(name):].strip()


async def test_cli_three_cushion_games_with_spectators(server):
    url = f"ws://127.0.0.1:{server.port}/ws"
    rc, out, err = await run_cli("--url", url, "--tables", "2", "--discipline", "three_cushion", "--target", "2",
                                 "--spectators", "2", "--level", "1")
    assert rc == 0, out + err
    assert figure(out, "games finished") == "2 / 2"
    assert figure(out, "errors") == "0" and figure(out, "stream gaps") == "0"
    strokes = int(figure(out, "strokes"))
    m = parse_text(server.render_metrics())
    assert m["billar_strokes_total"] == strokes  # every stroke the bots counted, the server played (lags included)
    assert m["billar_games_finished_total"] == 2
    assert "p99" in figure(out, "shot->broadcast ms")
    await counters_back_to_zero(server)


async def test_cli_14_1_game(server):
    url = f"ws://127.0.0.1:{server.port}/ws"
    rc, out, err = await run_cli("--url", url, "--tables", "1", "--discipline", "14.1", "--target", "5",
                                 "--spectators", "1", "--level", "3")
    assert rc == 0, out + err
    assert figure(out, "games finished") == "1 / 1"
    assert "winner seat" in out and ", 5]" in out or "[5," in out
    await counters_back_to_zero(server)


async def test_cli_fails_on_unfinished_games_and_bad_arguments(server):
    url = f"ws://127.0.0.1:{server.port}/ws"
    rc, out, err = await run_cli("--url", url, "--tables", "1", "--discipline", "straight_pool", "--target", "150",
                                 "--timeout", "2")
    assert rc == 1 and "FAILED" in err
    assert figure(out, "games finished") == "0 / 1"
    rc, out, err = await run_cli("--url", url, "--level", "9")
    assert rc == 2 and "level" in err
    rc, out, err = await run_cli("--url", "http://x/ws")
    assert rc == 2 and "url" in err


async def test_cli_14_1_through_a_rerack(server):
    """A game past fourteen balls: the rack is drawn from the server's seed, which the bots do not
    know; their mirrors take the server's rack (bots/mirror.py) and play on without an error."""
    url = f"ws://127.0.0.1:{server.port}/ws"
    rc, out, err = await run_cli("--url", url, "--tables", "1", "--discipline", "straight_pool", "--target", "20",
                                 "--level", "5", "--seed", "3", timeout=600)
    assert rc == 0, out + err
    table = next(line.split()[1].rstrip(":") for line in out.splitlines() if line.strip().startswith("table "))
    meta, strokes = await server.store.record(table, 1)
    reracks = [s for s in strokes if (s.get("ruling") or {}).get("rerack")]
    assert reracks, "no re-rack happened in the game"
    assert meta["over"] and max(meta["result"]["scores"]) >= 20
