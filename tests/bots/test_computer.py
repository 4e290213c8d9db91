"""The computer seat: a human (a bot over the protocol) plays whole games against the server's computer."""

from __future__ import annotations

import asyncio

import pytest

import server.table.computer as computer
from bots.client import BotPlayer, Link, Stats
from bots.engine import Player
from protocol import inbound as I
from server.metrics import parse_text

from bots_helpers import counters_back_to_zero


@pytest.fixture(autouse=True)
def quick_computer(monkeypatch):
    monkeypatch.setattr(computer, "PAUSE_S", (0.0, 0.02))


async def play_against_computer(srv, discipline, config, level, seat=0):
    stats = Stats()
    link = await Link.open(f"ws://127.0.0.1:{srv.port}/ws", "human")
    human = BotPlayer(link, Player(1, 5), stats)
    seen = []
    orig = human.on_message

    async def record(msg, data):
        seen.append(msg)
        await orig(msg, data)

    human.on_message = record
    await link.send(I.CreateTable(discipline=discipline, config=config, seat=seat, computer=level))
    await human.play(asyncio.get_running_loop().time() + 240)
    await link.close()
    return stats, seen


async def test_three_cushion_game_against_the_computer(server):
    stats, seen = await play_against_computer(server, "three_cushion", {"distance": 2}, 4)
    assert stats.errors == [] and stats.games_finished == 1
    seats = [m for m in seen if m["type"] == "seats"][-1]["seats"]
    assert seats[1]["name"] == "Computer (level 4)" and seats[1]["connected"] is True
    strokes = [m for m in seen if m["type"] == "stroke"]
    computer_strokes = [m for m in strokes if m["shots"][0]["seat"] == 1 and len(m["shots"]) == 1]
    assert computer_strokes, "the computer played no stroke"
    assert [m["shots"][0]["seq"] for m in computer_strokes] == sorted({m["shots"][0]["seq"] for m in computer_strokes})
    result = [m for m in seen if m.get("state", {}).get("over")][-1]["state"]["result"]
    assert max(result["scores"]) == 2
    m = parse_text(server.render_metrics())
    assert m['billar_protocol_errors_total{code="illegal_action"}' ] if 'billar_protocol_errors_total{code="illegal_action"}' in m else True
    assert not any(k.startswith("billar_protocol_errors_total") and v for k, v in m.items())  # the computer's moves all legal
    await counters_back_to_zero(server)  # the human left: the computer leaves and the table closes


async def test_14_1_game_against_the_computer_from_the_watching_creator(server):
    # the creator only watches: the computer takes seat 1, a second human joins seat 0 and plays
    url = f"ws://127.0.0.1:{server.port}/ws"
    creator = await Link.open(url, "creator")
    await creator.send(I.CreateTable(discipline="straight_pool", config={"target_points": 3}, seat=None, computer=2))
    snap = None
    while snap is None or snap["seats"][1] is None:
        msg, _ = await creator.recv(10)
        if msg["type"] == "table_snapshot":
            snap = msg
        elif msg["type"] == "seats" and snap is not None:
            snap = dict(snap, seats=msg["seats"])
    table = snap["table"]
    stats = Stats()
    link = await Link.open(url, "human")
    human = BotPlayer(link, Player(2, 8), stats)
    await link.send(I.Join(table=table, seat=0))
    await human.play(asyncio.get_running_loop().time() + 240)
    assert stats.errors == [] and stats.games_finished == 1
    await link.close()
    await creator.close()
    await counters_back_to_zero(server)


async def test_computer_survives_a_restart_of_its_table_state(server):
    """The persisted table state names the computer seat; a restored actor seats it again."""
    from server.table import TableActor

    url = f"ws://127.0.0.1:{server.port}/ws"
    link = await Link.open(url, "human")
    await link.send(I.CreateTable(discipline="three_cushion", config={"distance": 1, "lag_mode": "random"}, seat=0,
                                  computer=1))
    while True:
        msg, _ = await link.recv(10)
        if msg["type"] == "seats" and msg["seats"][1] is not None:
            break
    actor = server.tables[msg["table"]]
    state = actor.to_state(actor.game.to_state())
    assert state["computers"] == {"1": 1}
    restored = TableActor.from_state(server, state, [])
    assert set(restored.computers) == {1} and computer.is_computer(restored.seats[1].session)
    assert restored.seats[1].grace_until is None and restored.connected() == 0
    await link.close()
