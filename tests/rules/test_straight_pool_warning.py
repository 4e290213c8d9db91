"""The two-foul warning (rules-14-1 R16; WPA 4.11: a player on two successive fouls must be warned).

The ruling of a player's second successive standard foul carries ``warning = "two_fouls"`` and
says so in its text, naming that player; the third successive foul costs 15 more points and a
re-rack as before; a legal stroke of the player in between clears the count; carom has no such
rule and its rulings carry no warning.
"""

from __future__ import annotations

import msgpack
from pool_helpers import FS, close, game_at, mid_rack, shoot

from rules.registry import game_from_state, new_game
from rules.straight_pool import StraightPool

WARNING = "A is on two successive fouls: a third costs 15 more points"


def no_rail(g, seat):
    """``seat`` calls 4 in SR and only touches it: no rail after contact (F3), -1, the cue ball stays."""
    return shoot(g, seat, {"ball": 4, "pocket": "SR"}, [("ball_ball", 0, 4)])


def safety(g, seat):
    """A legal safety of ``seat``: the cue ball hits 3, which reaches the left head rail."""
    return shoot(g, seat, {"safety": True}, [("ball_ball", 0, 3), ("ball_cushion", 3, "L-head")], final={0: g.layout()[0]})


def test_second_successive_foul_warns_and_the_third_costs_fifteen_more_and_a_rerack():
    g = game_at(mid_rack(), scores=(30, 20))
    r1 = no_rail(g, 0)
    assert r1["foul"] == "no_rail" and r1["fouls_in_row"] == [1, 0] and r1["warning"] is None
    assert r1["text"] == "Foul: no rail after contact, -1; B to shoot"
    b = safety(g, 1)
    assert b["foul"] is None and b["warning"] is None and b["fouls_in_row"] == [1, 0]
    r2 = no_rail(g, 0)
    assert r2["player"] == 0 and r2["foul"] == "no_rail" and r2["penalty"] == 1
    assert r2["scores"] == [28, 20] and r2["fouls_in_row"] == [2, 0]
    assert r2["warning"] == "two_fouls"
    assert r2["text"] == f"Foul: no rail after contact, -1; B to shoot; {WARNING}"
    safety(g, 1)
    r3 = no_rail(g, 0)
    assert r3["foul"] == "third_successive_foul" and "no_rail" in r3["fouls"]
    assert r3["penalty"] == 16 and r3["points"] == [-16, 0] and r3["scores"] == [12, 20]
    assert r3["fouls_in_row"] == [0, 0] and r3["warning"] is None
    assert r3["text"] == "Third successive foul (no rail after contact), -16: all fifteen re-racked, A breaks"
    assert sorted(r3["rerack"]["balls"]) == list(range(1, 16))
    assert g.phase == "break" and g.to_act == 0 and g.in_hand == "kitchen" and sorted(g.layout()) == list(range(1, 16))
    assert g.scoreboard()["players"][0]["penalties"] == {"standard": 3, "breaking": 0, "serious": 15}


def test_a_legal_stroke_between_fouls_clears_the_count_and_no_warning_comes():
    g = game_at(mid_rack(), scores=(30, 20))
    no_rail(g, 0)
    safety(g, 1)
    r = safety(g, 0)  # A's legal stroke: counter back to 0 (R16)
    assert r["fouls_in_row"] == [0, 0] and r["warning"] is None
    safety(g, 1)
    r = no_rail(g, 0)
    assert r["fouls_in_row"] == [1, 0] and r["warning"] is None and "successive" not in r["text"]
    safety(g, 1)
    r = no_rail(g, 0)
    assert r["fouls_in_row"] == [2, 0] and r["warning"] == "two_fouls"


def test_the_warning_goes_to_the_player_who_fouled():
    # B is on one foul, A on one: B's second foul warns B (the ruling's player), not A
    g = game_at(mid_rack(), to_act=1, scores=(30, 20), fouls=(1, 1))
    r = no_rail(g, 1)
    assert r["player"] == 1 and r["fouls_in_row"] == [1, 2] and r["warning"] == "two_fouls"
    assert r["text"] == "Foul: no rail after contact, -1; A to shoot; B is on two successive fouls: a third costs 15 more points"
    # A's own next foul is A's second: A is warned in turn
    r = no_rail(g, 0)
    assert r["player"] == 0 and r["fouls_in_row"] == [2, 2] and r["warning"] == "two_fouls" and r["text"].endswith(WARNING)


def test_a_shot_clock_foul_counts_and_warns_too():
    g = game_at(mid_rack(), fouls=(1, 0), config={"shot_clock": {"limit_s": 30, "extensions": 0}})
    r = g.apply_timeout(0).to_dict()
    assert r["foul"] == "shot_clock" and r["fouls_in_row"] == [2, 0] and r["warning"] == "two_fouls"
    assert r["text"] == f"Foul: shot clock expired, -1; B to shoot; {WARNING}"


def test_the_count_survives_the_state_and_the_third_foul_after_a_restore_is_penalised():
    g = game_at(mid_rack(), scores=(30, 20))
    no_rail(g, 0)
    safety(g, 1)
    assert no_rail(g, 0)["warning"] == "two_fouls"
    blob = msgpack.packb(g.to_state())
    h = game_from_state(msgpack.unpackb(blob))
    assert isinstance(h, StraightPool) and h == g and h.fouls_in_row == [2, 0]
    safety(h, 1)
    r = no_rail(h, 0)
    assert r["foul"] == "third_successive_foul" and r["scores"] == [12, 20] and r["rerack"] is not None


def test_opponent_option_mode_warns_the_same_way_and_then_offers_the_choice():
    g = game_at(mid_rack(), scores=(30, 20), fouls=(1, 0), config={"three_foul_mode": "opponent_option"})
    r = no_rail(g, 0)
    assert r["warning"] == "two_fouls" and r["text"].endswith(WARNING)
    safety(g, 1)
    r = no_rail(g, 0)
    assert r["foul"] == "third_successive_foul" and r["penalty"] == 16 and r["warning"] is None
    assert r["next_player"] == 1 and r["options"] == ["ACCEPT_TABLE", "RERACK_OFFENDER_BREAKS"]


def test_breaking_and_serious_fouls_carry_no_warning():
    g = game_at(mid_rack(), fouls=(1, 0))
    r = g.apply_serious_foul(0).to_dict()
    assert r["foul"] == "serious_foul" and r["fouls_in_row"] == [0, 0] and r["warning"] is None
    # a breaking foul leaves the count as it is (R16) and is not a standard foul: no warning
    g = StraightPool({"breaker": 0}, 1)
    s = g.to_state()
    s["fouls_in_row"] = [2, 0]
    g = StraightPool.from_state(s)
    apex = [b for b, p in g.layout().items() if close(p, FS)][0]
    r = shoot(g, 0, None, [("ball_ball", 0, apex)], cue=(0.5, 0.6))
    assert r["foul"] == "breaking_foul" and r["fouls_in_row"] == [2, 0] and r["warning"] is None


def test_carom_has_no_successive_foul_rule_and_no_warning():
    cfg = {"breaker": 0, "distance": 5, "shot_clock": {"limit_s": 30, "timeouts": 0}}
    g = new_game("three_cushion", cfg, seed=3)
    rulings = []
    for seat in (0, 1, 0, 1, 0):  # five shot-clock fouls in a row, three of them seat 0's
        rulings.append(g.apply_timeout(seat).to_dict())
    assert [r["foul"] for r in rulings] == ["shot_clock"] * 5
    assert all(r["warning"] is None and "successive" not in r["text"] for r in rulings)
    assert all(r["fouls_in_row"] == [0, 0] for r in rulings)
    assert g.scoreboard()["fouls"][0] == {"shot_clock": 3}
    m = new_game("pentathlon", {"breaker": 0, "shot_clock": {"limit_s": 30, "timeouts": 0}}, seed=3)
    assert all(m.apply_timeout(s).to_dict()["warning"] is None for s in (0, 1, 0))
