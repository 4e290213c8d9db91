"""Whole 14.1 games through the real physics (physics.simulate), refereed stroke by stroke.

The player is the ghost-ball bot of pool_games.py (bots/aim.py). After every action the
ledger of pool_games.py checks the referee against the simulation: 15 object balls on the
table plus in pockets, balls resting where the physics left them unless the ruling spotted,
placed or re-racked them, no overlapping balls, scores equal to the rulings' points and to
legally pocketed balls minus penalties, statistics equal to the ledger, and at every re-rack
after a made call the balls scored in the rack plus those left equal 15 (R27's check).
"""

from __future__ import annotations

import msgpack
import pytest
from pool_games import play_game

from rules.straight_pool import StraightPool


def _summary(g, counters):
    sb = g.scoreboard()["players"]
    return g.scores, counters["strokes"], counters["rerack14"], counters["fouls"], [p["high_run"] for p in sb]


@pytest.mark.parametrize("seed", [2, 3, 4, 5])
def test_whole_game_to_150_through_several_reracks(seed):
    g, _, c = play_game(seed, {})
    assert g.over, _summary(g, c)
    w = g.result["winner"]
    assert g.scores[w] >= 150 and g.result["reason"] == "target"
    assert g.scores[1 - w] < 150
    assert c["rerack14"] + c["rerack15"] >= 8  # many racks: 150 points need about ten
    assert c["ledger"].racks_checked == c["rerack14"] + c["rerack15"]
    sb = g.scoreboard()["players"]
    for p in (0, 1):
        pen = sb[p]["penalties"]
        assert sb[p]["score"] == sb[p]["points"] - pen["standard"] - pen["breaking"] - pen["serious"]
        assert sb[p]["innings"] >= 1 and sb[p]["high_run"] >= 1
        assert sb[p]["average"] == pytest.approx(sb[p]["points"] / sb[p]["innings"], abs=1e-4)
    assert sb[0]["points"] + sb[1]["points"] == sum(sb[p]["points"] for p in (0, 1))
    assert sum(c["fouls"].values()) == sb[0]["fouls"] + sb[1]["fouls"]
    # the finished game still round-trips
    assert StraightPool.from_state(msgpack.unpackb(msgpack.packb(g.to_state()))) == g


@pytest.mark.parametrize(
    "seed,config",
    [
        (5, {"target_points": 40, "rack_order": "wsr_1_5", "lag_mode": "random"}),
        (7, {"target_points": 40, "rack_order": "classic_15_apex", "three_foul_mode": "opponent_option", "near_rail_limit": "wsr"}),
        (11, {"target_points": [30, 45], "cap_final_score": True, "interference_table": "t14", "spot_request": "automatic_lowest"}),
        (13, {"target_points": 35, "table": "8ft", "near_rail_limit": "frozen_two_each", "stalemate": "auto(6)"}),
    ],
)
def test_whole_games_with_configuration_variants(seed, config):
    g, _, c = play_game(seed, config)
    assert g.over, _summary(g, c)
    w = g.result["winner"]
    target = g.targets()[w]
    if config.get("cap_final_score"):
        assert g.scores[w] == target
    else:
        assert g.scores[w] >= target
    assert c["strokes"] > 20
    assert c["ledger"].racks_checked >= 1
    if config.get("table") == "8ft":
        assert g.table.name == "pool-8ft"


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(100, 120))
def test_soak_many_games_to_150(seed):
    g, _, c = play_game(seed, {})
    assert g.over, _summary(g, c)
