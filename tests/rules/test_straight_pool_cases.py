"""The 14.1 cases S00-S31 of shared/cases/rules.md, one test each, with the values given there."""

from __future__ import annotations

import math

import pytest
from logs import stroke_log
from pool_helpers import CS, FS, HS, R, TABLE, close, game_at, mid_rack, shoot

from rules.base import IllegalAction, frozen_pairs
from rules.straight_pool import StraightPool

R4_ROWS = {
    0: (1.905000, [0.635000]),
    1: (1.954493, [0.606425, 0.663575]),
    2: (2.003987, [0.577850, 0.635000, 0.692150]),
    3: (2.053480, [0.549275, 0.606425, 0.663575, 0.720725]),
    4: (2.102973, [0.520700, 0.577850, 0.635000, 0.692150, 0.749300]),
}
R4_SITES = sorted((x, y) for x, ys in R4_ROWS.values() for y in ys)


def _sites_of(layout):
    return sorted((round(p[0], 6), round(p[1], 6)) for b, p in layout.items() if b != 0)


def _new(config=None, seed=12345):
    cfg = {"breaker": 0}
    cfg.update(config or {})
    return StraightPool(cfg, seed)


# --------------------------------------------------------------------------------------------
def test_S00_rack_layout_and_determinism():
    for order in ("wpa_random", "wsr_1_5", "classic_15_apex"):
        g = _new({"rack_order": order})
        lay = g.layout()
        assert sorted(lay) == list(range(1, 16))  # 15 distinct balls, cue ball in hand
        assert _sites_of(lay) == [(round(x, 6), round(y, 6)) for x, y in R4_SITES]
        assert g.in_hand == "kitchen" and g.phase == "break"
        apex = [b for b, p in lay.items() if close(p, (1.905, 0.635))]
        assert len(apex) == 1
        if order == "wsr_1_5":
            assert close(lay[1], (2.102973, 0.749300))
            assert close(lay[5], (2.102973, 0.520700))
        if order == "classic_15_apex":
            assert close(lay[15], (1.905, 0.635))
            assert close(lay[1], (2.102973, 0.749300))
            assert close(lay[5], (2.102973, 0.520700))
            # higher numbers toward the apex: row 1 holds 14 and 13
            assert {b for b, p in lay.items() if abs(p[0] - 1.954493) < 1e-6} == {14, 13}
    # wpa_random: the same seed twice gives the same layout; another seed another one
    assert _new(seed=12345).layout() == _new(seed=12345).layout()
    assert _new(seed=12345).layout() != _new(seed=54321).layout()
    # wsr_1_5 randomises the rest from the seed
    assert _new({"rack_order": "wsr_1_5"}, seed=1).layout() != _new({"rack_order": "wsr_1_5"}, seed=2).layout()
    # a 14-ball re-rack leaves the apex site empty
    g = _new()
    pos = g.rack_positions([b for b in range(1, 16) if b != 6], full=False)
    assert len(pos) == 14
    assert not any(close(p, (1.905, 0.635)) for p in pos.values())
    assert sorted((round(p[0], 6), round(p[1], 6)) for p in pos.values()) == [
        (round(x, 6), round(y, 6)) for x, y in R4_SITES if not (abs(x - 1.905) < 1e-9)
    ]


def _lag_sim(g, a_steps, b_steps, final):
    lay = g.lag_layout()
    steps = [("strike", 0), ("strike", 1, {"t": 0.0})] + a_steps + b_steps
    steps.sort(key=lambda s: s[-1]["t"] if isinstance(s[-1], dict) and "t" in s[-1] else 0.0)
    return stroke_log(g.table, lay, steps, final)


def test_S01_lag_with_a_bad_lag():
    g = StraightPool({}, seed=3)
    assert g.phase == "lag" and g.to_act is None
    assert g.lag_layout() == {0: pytest.approx((0.60, 0.3175)), 1: pytest.approx((0.60, 0.9525))}
    steps = [
        ("strike", 0),
        ("strike", 1, {"t": 0.0}),
        ("ball_cushion", 0, "foot", {0: (2.54 - R, 0.33), "t": 1.0}),
        ("ball_cushion", 1, "foot", {1: (2.54 - R, 0.95), "t": 1.1}),
        ("ball_cushion", 0, "R-head", {0: (1.0, R), "t": 2.0}),
    ]
    sim = stroke_log(g.table, g.lag_layout(), steps, final={0: (0.05 + R, 0.2), 1: (0.20 + R, 0.9)})
    r = g.apply_lag(sim).to_dict()
    assert r["bad"] == {"0": "touched a side rail"}
    assert r["lag_winner"] == 1
    assert r["distances"]["1"] == pytest.approx(0.20)
    assert g.phase == "decision" and g.to_act == 1
    assert r["options"] == ["CHOOSE_BREAKER"]
    with pytest.raises(IllegalAction):
        g.apply_decision(0, "CHOOSE_BREAKER", 0)  # A lost the lag
    r = g.apply_decision(1, "CHOOSE_BREAKER", 0).to_dict()
    assert g.phase == "break" and g.to_act == 0 and g.in_hand == "kitchen"
    assert r["next_player"] == 0 and r["cue_ball_in_hand"] == "kitchen"
    assert len(r["rerack"]["positions"]) == 15


def test_S01_lag_both_good_nearer_wins_and_ties_lag_again():
    g = StraightPool({}, seed=3)
    steps = [
        ("strike", 0),
        ("strike", 1, {"t": 0.0}),
        ("ball_cushion", 0, "foot", {0: (2.54 - R, 0.33), "t": 1.0}),
        ("ball_cushion", 1, "foot", {1: (2.54 - R, 0.95), "t": 1.1}),
    ]
    sim = stroke_log(g.table, g.lag_layout(), steps, final={0: (0.05 + R, 0.2), 1: (0.20 + R, 0.9)})
    assert g.apply_lag(sim).to_dict()["lag_winner"] == 0
    g = StraightPool({}, seed=3)
    sim = stroke_log(g.table, g.lag_layout(), steps, final={0: (0.1 + R, 0.2), 1: (0.1004 + R, 0.9)})
    r = g.apply_lag(sim).to_dict()
    assert "lag_winner" not in r and g.phase == "lag" and r["text"] == "Lag again"
    # crossing the long string and touching the foot cushion twice are bad lags
    g = StraightPool({}, seed=3)
    steps2 = [
        ("strike", 0),
        ("strike", 1, {"t": 0.0}),
        ("ball_cushion", 0, "foot", {0: (2.54 - R, 0.33), "t": 1.0}),
        ("move", {0: (1.5, 0.7), "t": 1.5}),
        ("ball_cushion", 1, "foot", {1: (2.54 - R, 0.95), "t": 1.6}),
        ("ball_cushion", 1, "foot", {1: (2.54 - R, 0.95), "t": 1.7}),
    ]
    sim = stroke_log(g.table, g.lag_layout(), steps2, final={0: (0.05 + R, 0.5), 1: (0.20 + R, 0.9)})
    r = g.apply_lag(sim).to_dict()
    assert r["bad"] == {"0": "crossed the long string", "1": "touched the foot cushion 2 times"}
    assert g.phase == "lag"


def _rack_break(g, steps, call=None, final=None, cue=(0.5, 0.635)):
    return shoot(g, g.to_act, call, steps, final=final, cue=cue)


def test_S02_legal_opening_break_no_call():
    g = _new()
    apex = [b for b, p in g.layout().items() if close(p, FS)][0]
    r = _rack_break(
        g,
        [("ball_ball", 0, apex), ("ball_cushion", 1, "foot"), ("ball_cushion", 5, "L-foot"), ("ball_cushion", 0, "R-foot")],
        final={0: (1.4, 0.2)},
    )
    assert r["break_legal"] is True and r["foul"] is None and r["fouls"] == []
    assert r["scores"] == [0, 0] and r["fouls_in_row"] == [0, 0]
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] is None
    assert r["options"] == []
    assert g.layout()[0] == (1.4, 0.2)
    assert g.scoreboard()["players"][0]["innings"] == 1


def test_S03_breaking_foul():
    for choice in ("ACCEPT_TABLE", "REQUIRE_REBREAK"):
        g = _new()
        apex = [b for b, p in g.layout().items() if close(p, FS)][0]
        r = _rack_break(g, [("ball_ball", 0, apex), ("ball_cushion", 4, "foot"), ("ball_cushion", 0, "R-foot")], final={0: (1.2, 0.3)})
        assert r["break_legal"] is False
        assert r["foul"] == "breaking_foul" and r["penalty"] == 2
        assert r["scores"] == [-2, 0] and r["fouls_in_row"] == [0, 0]
        assert r["next_player"] == 1 and r["options"] == ["ACCEPT_TABLE", "REQUIRE_REBREAK"]
        assert r["text"] == "Breaking foul, -2: B chooses"
        before = g.layout()
        d = g.apply_decision(1, choice).to_dict()
        if choice == "ACCEPT_TABLE":
            assert g.phase == "play" and g.to_act == 1 and g.in_hand is None
            assert g.layout() == before and g.layout()[0] == (1.2, 0.3)
            assert d["cue_ball_in_hand"] is None
        else:
            assert g.phase == "break" and g.to_act == 0 and g.in_hand == "kitchen"
            assert sorted(g.layout()) == list(range(1, 16))
            assert len(d["rerack"]["balls"]) == 15
        assert g.scores == [-2, 0]


def test_S04_three_breaking_fouls_in_a_row():
    g = _new()
    for k, choice in enumerate(("REQUIRE_REBREAK", "REQUIRE_REBREAK", "ACCEPT_TABLE")):
        apex = [b for b, p in g.layout().items() if close(p, FS)][0]
        r = _rack_break(g, [("ball_ball", 0, apex), ("ball_cushion", 0, "R-foot")], final={0: (1.2, 0.3)})
        assert r["foul"] == "breaking_foul" and r["fouls_in_row"] == [0, 0]
        assert r["scores"] == [-2 * (k + 1), 0]
        g.apply_decision(1, choice)
    assert g.scores == [-6, 0]
    assert g.fouls_in_row == [0, 0]
    assert g.phase == "play" and g.to_act == 1
    sb = g.scoreboard()["players"]
    assert sb[0]["innings"] == 3 and sb[0]["breaking_fouls"] == 3 and sb[0]["penalties"]["breaking"] == 6
    assert sb[1]["innings"] == 0
    # B starts his first inning with his first stroke
    target = [b for b in g.layout() if b != 0][0]
    shoot(g, 1, {"safety": True}, [("ball_ball", 0, target), ("ball_cushion", target, "foot")])
    assert g.scoreboard()["players"][1]["innings"] == 1


def test_S05_scratch_on_a_legal_break():
    g = _new({"rack_order": "classic_15_apex"})
    apex = 15
    assert close(g.layout()[apex], FS)
    r = _rack_break(
        g,
        [
            ("ball_ball", 0, apex, {apex: (1.6, 0.3)}),
            ("ball_cushion", 3, "foot"),
            ("ball_cushion", 11, "L-foot"),
            ("ball_pocket", 9, "FL"),
            ("ball_pocket", 0, "SR"),
        ],
    )
    assert r["break_legal"] is True
    assert r["foul"] == "scratch" and r["penalty"] == 1
    assert r["scores"] == [-1, 0] and r["fouls_in_row"] == [1, 0]
    assert close(r["spotted"]["9"], (1.905, 0.635))
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] == "kitchen"
    assert r["options"] == []
    assert g.phase == "play"


def test_S06_called_ball_made_on_the_break():
    g = _new({"rack_order": "classic_15_apex"})
    r = _rack_break(
        g,
        [("ball_ball", 0, 15), ("ball_pocket", 2, "FR"), ("ball_cushion", 0, "foot")],
        call={"ball": 2, "pocket": "FR"},
        final={0: (2.3, 0.6)},
    )
    assert r["break_legal"] is True and r["balls_driven"] == [2]
    assert r["foul"] is None and r["points"] == [1, 0] and r["scores"] == [1, 0]
    assert r["next_player"] == 0 and r["fouls_in_row"] == [0, 0]
    assert g.phase == "play" and g.to_act == 0


def test_S07_called_ball_plus_extra_ball():
    g = game_at(mid_rack(), scores=(30, 0))
    r = shoot(
        g,
        0,
        {"ball": 7, "pocket": "FL"},
        [("ball_ball", 0, 7), ("ball_ball", 7, 12), ("ball_pocket", 7, "FL"), ("ball_pocket", 12, "SR")],
    )
    assert r["foul"] is None and r["points"] == [2, 0] and r["scores"] == [32, 0]
    assert r["scored"] == [7, 12] and r["spotted"] == {}
    assert r["next_player"] == 0 and g.to_act == 0
    assert 7 not in g.layout() and 12 not in g.layout()


def test_S08_called_ball_in_the_wrong_pocket():
    g = game_at(mid_rack(), fouls=(1, 0))
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, [("ball_ball", 0, 7), ("ball_pocket", 7, "FR")], final={0: (1.7, 0.7)})
    assert r["foul"] is None and r["points"] == [0, 0]
    assert close(r["spotted"]["7"], FS)
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] is None
    assert r["fouls_in_row"] == [0, 0]
    assert g.layout()[0] == (1.7, 0.7)


def test_S09_no_rail_after_contact():
    g = game_at(mid_rack())
    r = shoot(g, 0, {"ball": 4, "pocket": "SL"}, [("ball_ball", 0, 4, {4: (1.80, 0.30)}), ("move", {4: (1.80, 0.50)})], final={0: (1.7, 0.31)})
    assert r["foul"] == "no_rail" and r["text"].startswith("Foul: no rail after contact, -1")
    assert r["scores"] == [-1, 0] and r["fouls_in_row"] == [1, 0]
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] is None
    assert g.layout()[4] == (1.80, 0.50) and g.layout()[0] == (1.7, 0.31)


def test_S10_called_ball_pocketed_and_scratch():
    g = game_at(mid_rack(), scores=(45, 0))
    r = shoot(
        g,
        0,
        {"ball": 7, "pocket": "FL"},
        [("ball_ball", 0, 7), ("ball_pocket", 7, "FL"), ("ball_cushion", 0, "R-foot"), ("ball_pocket", 0, "SR")],
    )
    assert r["foul"] == "scratch" and r["scores"] == [44, 0] and r["points"] == [-1, 0]
    assert close(r["spotted"]["7"], (1.905, 0.635))
    assert r["fouls_in_row"] == [1, 0]
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] == "kitchen"
    assert 0 not in g.layout()


def test_S11_safety_declared_and_a_ball_pocketed():
    g = game_at(mid_rack(), scores=(45, 0), fouls=(1, 0))
    r = shoot(g, 0, {"safety": True}, [("ball_ball", 0, 11), ("ball_pocket", 11, "SL")], final={0: (1.25, 0.8)})
    assert r["foul"] is None and r["points"] == [0, 0] and r["scores"] == [45, 0]
    assert close(r["spotted"]["11"], FS)
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] is None
    assert r["fouls_in_row"] == [0, 0]
    assert g.scoreboard()["players"][0]["safeties"] == 1


def test_S12_safety_without_a_rail():
    g = game_at(mid_rack())
    r = shoot(g, 0, {"safety": True}, [("ball_ball", 0, 5), ("move", {5: (1.63, 0.90)})], final={0: (1.55, 0.88)})
    assert r["foul"] == "no_rail" and r["scores"] == [-1, 0] and r["fouls_in_row"] == [1, 0]
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] is None


def test_S13_third_successive_foul():
    g = game_at(mid_rack(), scores=(20, 33), fouls=(2, 0))
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, [("ball_ball", 0, 7), ("ball_pocket", 7, "FL"), ("ball_pocket", 0, "FR")])
    assert r["foul"] == "third_successive_foul" and r["penalty"] == 16
    assert r["scores"] == [4, 33] and r["fouls_in_row"] == [0, 0]
    assert "scratch" in r["fouls"]
    assert sorted(r["rerack"]["balls"]) == list(range(1, 16))
    assert g.phase == "break" and g.to_act == 0 and g.in_hand == "kitchen"
    assert r["next_player"] == 0 and r["cue_ball_in_hand"] == "kitchen" and r["options"] == []
    assert sorted(g.layout()) == list(range(1, 16))
    pen = g.scoreboard()["players"][0]["penalties"]
    assert pen == {"standard": 1, "breaking": 0, "serious": 15}
    # the re-break is an opening break: a breaking foul on it costs -2 and gives B the choice
    apex = [b for b, p in g.layout().items() if close(p, FS)][0]
    r = shoot(g, 0, None, [("ball_ball", 0, apex)], cue=(0.5, 0.6))
    assert r["foul"] == "breaking_foul" and r["scores"] == [2, 33]
    assert r["options"] == ["ACCEPT_TABLE", "REQUIRE_REBREAK"]


def test_S14_third_successive_foul_variant_with_option():
    for choice in ("ACCEPT_TABLE", "RERACK_OFFENDER_BREAKS"):
        g = game_at(mid_rack(), scores=(20, 33), fouls=(2, 0), config={"three_foul_mode": "opponent_option"})
        r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, [("ball_ball", 0, 7), ("ball_pocket", 7, "FL"), ("ball_pocket", 0, "FR")])
        assert r["scores"] == [4, 33] and r["fouls_in_row"] == [0, 0]
        assert r["next_player"] == 1 and r["options"] == ["ACCEPT_TABLE", "RERACK_OFFENDER_BREAKS"]
        d = g.apply_decision(1, choice).to_dict()
        if choice == "ACCEPT_TABLE":
            assert close(g.layout()[7], FS)
            assert g.phase == "play" and g.to_act == 1 and g.in_hand == "kitchen" and d["cue_ball_in_hand"] == "kitchen"
            assert g.layout()[12] == (1.50, 0.20)  # balls as they lie
        else:
            assert g.phase == "break" and g.to_act == 0 and g.in_hand == "kitchen"
            assert sorted(g.layout()) == list(range(1, 16))


def test_S15_fouls_in_three_innings_are_not_three_successive_fouls():
    g = game_at(mid_rack(), scores=(30, 0))

    def b_safety():
        lay = g.layout()
        shoot(g, 1, {"safety": True}, [("ball_ball", 0, 3), ("ball_cushion", 3, "L-head")], final={0: lay[0]} if 0 in lay else None, cue=None if 0 in lay else (0.3, 0.3))

    r = shoot(g, 0, {"ball": 4, "pocket": "SR"}, [("ball_ball", 0, 4)])  # inning 6: F3
    assert (r["scores"][0], r["fouls_in_row"][0]) == (29, 1)
    b_safety()
    r = shoot(g, 0, {"ball": 4, "pocket": "SR"}, [("ball_ball", 0, 4)])  # inning 7: F3
    assert (r["scores"][0], r["fouls_in_row"][0]) == (28, 2)
    b_safety()
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, [("ball_ball", 0, 7), ("ball_pocket", 7, "FL")])  # inning 8, stroke 1
    assert (r["scores"][0], r["fouls_in_row"][0]) == (29, 0) and r["next_player"] == 0
    r = shoot(g, 0, {"ball": 12, "pocket": "SR"}, [("ball_ball", 0, 12), ("ball_pocket", 0, "SR")])  # stroke 2: scratch
    assert r["foul"] == "scratch" and r["penalty"] == 1
    assert (r["scores"][0], r["fouls_in_row"][0]) == (28, 1)
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] == "kitchen"
    assert g.scoreboard()["players"][0]["innings"] == 3


def test_S16_object_ball_off_the_table_on_a_scoring_stroke():
    steps = [("ball_ball", 0, 7), ("ball_pocket", 7, "FL"), ("ball_ball", 0, 12), ("off_table", 12)]
    g = game_at(mid_rack(), scores=(60, 0))
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, steps, final={0: (1.20, 0.40)})
    assert r["foul"] == "object_ball_off_table" and r["scores"] == [59, 0] and r["fouls_in_row"] == [1, 0]
    assert close(r["spotted"]["7"], (1.905, 0.635))
    assert close(r["spotted"]["12"], (1.96215, 0.635))
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] is None
    assert g.layout()[0] == (1.20, 0.40)
    # variant: not a foul, the called ball scores, 12 spotted on the foot spot
    g = game_at(mid_rack(), scores=(60, 0), config={"object_ball_off_table_is_foul": False})
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, steps, final={0: (1.20, 0.40)})
    assert r["foul"] is None and r["scores"] == [61, 0] and r["next_player"] == 0
    assert close(r["spotted"]["12"], FS)
    # variant, the called ball itself jumped: the turn ends (miss), no penalty
    g = game_at(mid_rack(), scores=(60, 0), config={"object_ball_off_table_is_foul": False})
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, [("ball_ball", 0, 7), ("ball_cushion", 7, "foot"), ("off_table", 7)])
    assert r["foul"] is None and r["scores"] == [60, 0] and r["next_player"] == 1
    assert close(r["spotted"]["7"], FS)


def test_S17_cue_ball_off_the_table():
    g = game_at(mid_rack())
    r = shoot(g, 0, {"ball": 4, "pocket": "SL"}, [("ball_ball", 0, 4), ("ball_cushion", 4, "L-foot", {4: (1.9, 1.27 - R)}), ("off_table", 0)])
    assert r["foul"] == "cue_ball_off_table" and r["scores"] == [-1, 0] and r["fouls_in_row"] == [1, 0]
    assert g.layout()[4] == (1.9, 1.27 - R)  # 4 stays where it lies
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] == "kitchen"
    assert r["spotted"] == {}


def test_S18_spot_request_nearest_ball():
    balls = {2: (0.435, 1.035), 9: (0.235, 0.435), 13: (0.565, 0.735)}
    g = game_at(balls, to_act=1, in_hand="kitchen")
    acts = g.legal_actions()
    assert {"name": "SPOT_REQUEST", "args": [13]} in acts["decisions"]
    r = g.apply_decision(1, "SPOT_REQUEST", 13).to_dict()
    assert close(r["spotted"]["13"], (1.905, 0.635))
    assert g.to_act == 1 and g.in_hand == "kitchen"
    assert all(d["name"] != "SPOT_REQUEST" for d in g.legal_actions()["decisions"])
    # without the request: B plays as is and a direct shot at a kitchen ball is F5a
    g = game_at(balls, to_act=1, in_hand="kitchen")
    r = shoot(g, 1, {"ball": 9, "pocket": "HR"}, [("ball_ball", 0, 9), ("ball_cushion", 9, "head")], cue=(0.3, 0.7))
    assert r["foul"] == "bad_kitchen_play" and r["scores"] == [0, -1]
    # tie variant: B picks which one is spotted
    g = game_at({2: (0.535, 1.035), 13: (0.535, 0.335), 9: (0.235, 0.435)}, to_act=1, in_hand="kitchen")
    assert {"name": "SPOT_REQUEST", "args": [2, 13]} in g.legal_actions()["decisions"]
    r = g.apply_decision(1, "SPOT_REQUEST", 2).to_dict()
    assert close(r["spotted"]["2"], FS) and close(g.layout()[13], (0.535, 0.335))
    # automatic_lowest (S2): spotted without a request, ties to the lowest number
    g = game_at(mid_rack(), scores=(0, 0), config={"spot_request": "automatic_lowest"})
    s = g.to_state()
    s["balls"] = {"0": [1.0, 0.6], "2": [0.535, 1.035], "13": [0.535, 0.335], "9": [0.235, 0.435]}
    g = StraightPool.from_state(s)
    r = shoot(g, 0, {"ball": 9, "pocket": "HR"}, [("ball_ball", 0, 9), ("ball_pocket", 0, "HR")])
    assert r["cue_ball_in_hand"] == "kitchen"
    assert close(r["spotted"]["2"], FS) and "13" not in r["spotted"]
    assert r["options"] == []


def test_S19_bad_play_from_behind_the_head_string_paragraph_1():
    balls = {6: (0.335, 0.935), 1: (1.5, 0.5), 2: (2.0, 0.9)}
    g = game_at(balls, to_act=1, in_hand="kitchen")
    r = shoot(g, 1, {"ball": 6, "pocket": "HL"}, [("ball_ball", 0, 6), ("ball_cushion", 6, "head")], cue=(0.435, 0.635), final={0: (0.40, 0.80)})
    assert r["foul"] == "bad_kitchen_play" and r["fouls"] == ["bad_kitchen_play"]
    assert r["scores"] == [0, -1] and r["fouls_in_row"] == [0, 1]
    assert r["next_player"] == 0 and r["cue_ball_in_hand"] is None
    assert g.layout()[0] == (0.40, 0.80)
    # crossing the head string before the contact makes the same contact legal
    g = game_at(balls, to_act=1, in_hand="kitchen")
    r = shoot(
        g,
        1,
        {"ball": 6, "pocket": "HL"},
        [("move", {0: (0.9, 0.635)}), ("ball_cushion", 0, "foot"), ("ball_ball", 0, 6), ("ball_cushion", 6, "head")],
        cue=(0.435, 0.635),
    )
    assert r["foul"] is None and r["next_player"] == 0


def test_S20_bad_play_from_behind_the_head_string_paragraph_2():
    g = game_at({6: (1.335, 0.935), 1: (1.5, 0.5), 2: (2.0, 0.9)}, to_act=1, in_hand="kitchen")
    r = shoot(g, 1, {"ball": 1, "pocket": "SR"}, [("move", {0: (0.60, 0.635)})], cue=(0.435, 0.635))
    assert sorted(r["fouls"]) == ["kitchen_not_left", "no_contact"]
    assert r["foul"] == "kitchen_not_left" and r["penalty"] == 1
    assert r["scores"] == [0, -1] and r["fouls_in_row"] == [0, 1]
    assert r["next_player"] == 0 and r["cue_ball_in_hand"] == "kitchen"


def _last_ball_stroke(ob_pos, cb_pos, extra_steps=(), config=None):
    """A legally pockets the 14th ball (11 in SR); 6 (the 15th) and the cue ball come to rest as given."""
    g = game_at({0: (0.97, 0.435), 11: (1.10, 0.20), 6: (1.37, 0.935)}, scores=(40, 10), config=config)
    steps = [("ball_ball", 0, 11), ("ball_pocket", 11, "SR")] + list(extra_steps)
    r = shoot(g, 0, {"ball": 11, "pocket": "SR"}, steps, final={0: cb_pos, 6: ob_pos})
    return g, r


def test_S21_rerack_no_interference():
    g, r = _last_ball_stroke((1.37, 0.935), (0.97, 0.435))
    assert r["points"] == [1, 0] and r["scores"] == [41, 10]
    assert sorted(r["rerack"]["balls"]) == [b for b in range(1, 16) if b != 6]
    assert not any(close(p, FS) for p in r["rerack"]["positions"].values())
    assert r["placed"] == {}
    lay = g.layout()
    assert lay[6] == (1.37, 0.935) and lay[0] == (0.97, 0.435)
    assert r["next_player"] == 0 and r["cue_ball_in_hand"] is None
    assert g.phase == "play"
    acts = g.legal_actions()
    assert acts["shoot"]["call"] == "required" and acts["shoot"]["balls"] == list(range(1, 16))
    # a racked ball may be called; no break requirement on the next stroke
    racked = 1 if 1 != 6 else 2
    r = shoot(g, 0, {"ball": racked, "pocket": "FR"}, [("ball_ball", 0, racked), ("ball_pocket", racked, "FR")])
    assert r["foul"] is None and r["scores"] == [42, 10] and r["break"] is False


def test_S22_rerack_the_15th_ball_interferes():
    g, r = _last_ball_stroke((1.97, 0.655), (0.97, 0.435))
    assert close(r["placed"]["6"], (0.635, 0.635))
    assert len(r["rerack"]["balls"]) == 14 and 6 not in r["rerack"]["balls"]
    assert close(g.layout()[6], HS) and g.layout()[0] == (0.97, 0.435)
    assert r["next_player"] == 0 and r["cue_ball_in_hand"] is None


def test_S22_rerack_15th_ball_in_rack_cue_ball_blocks_head_spot():
    g, r = _last_ball_stroke((1.97, 0.655), (0.66, 0.66))
    assert close(r["placed"]["6"], CS) and g.layout()[0] == (0.66, 0.66)


def test_S23_rerack_both_balls_interfere():
    g, r = _last_ball_stroke((2.02, 0.585), (2.07, 0.755))
    assert sorted(r["rerack"]["balls"]) == list(range(1, 16))
    assert any(close(p, FS) for p in r["rerack"]["positions"].values())  # apex filled
    assert r["next_player"] == 0 and r["cue_ball_in_hand"] == "kitchen"
    assert g.phase == "play" and 0 not in g.layout()
    acts = g.legal_actions()
    assert acts["shoot"]["call"] == "required" and acts["shoot"]["in_hand"]["region"] == "kitchen"
    assert all(d["name"] != "SPOT_REQUEST" for d in acts["decisions"])
    # F5 applies to that stroke: no crossing and no contact -> in hand for B
    r = shoot(g, 0, {"safety": True}, [("move", {0: (0.5, 0.5)})], cue=(0.3, 0.5))
    assert r["foul"] == "kitchen_not_left" and r["cue_ball_in_hand"] == "kitchen"


def test_S24_14th_and_15th_balls_on_the_same_legal_stroke():
    g = game_at({0: (0.8, 0.6), 10: (2.2, 1.0), 4: (2.1, 0.7)}, scores=(77, 5))
    r = shoot(
        g,
        0,
        {"ball": 10, "pocket": "FL"},
        [("ball_ball", 0, 10), ("ball_ball", 10, 4), ("ball_pocket", 10, "FL"), ("ball_pocket", 4, "SR")],
        final={0: (1.07, 0.635)},
    )
    assert r["points"] == [2, 0] and r["scores"] == [79, 5]
    assert sorted(r["rerack"]["balls"]) == list(range(1, 16))
    assert g.layout()[0] == (1.07, 0.635) and r["cue_ball_in_hand"] is None
    assert r["next_player"] == 0 and g.phase == "play"


def test_S25_rerack_only_cue_ball_interferes_15th_in_front_of_head_string():
    g, r = _last_ball_stroke((1.47, 1.085), (1.89, 0.635))
    assert len(r["rerack"]["balls"]) == 14
    assert g.layout()[6] == (1.47, 1.085)
    assert r["cue_ball_in_hand"] == "kitchen" and 0 not in g.layout()
    assert r["next_player"] == 0


def test_S26_rerack_only_cue_ball_interferes_15th_behind_head_string():
    g, r = _last_ball_stroke((0.37, 0.935), (1.97, 0.605))
    assert len(r["rerack"]["balls"]) == 14
    assert close(r["placed"]["0"], (0.635, 0.635)) and close(g.layout()[0], HS)
    assert r["cue_ball_in_hand"] is None and g.in_hand is None
    # A may shoot directly at 6 behind the head string: not in hand, so F5 does not apply
    r = shoot(g, 0, {"ball": 6, "pocket": "HL"}, [("ball_ball", 0, 6), ("ball_pocket", 6, "HL")])
    assert r["foul"] is None and r["scores"] == [42, 10]


def test_S26_variants_blocking_head_spot():
    # 15th ball behind the head string and blocking the head spot: cue ball to the centre spot
    g, r = _last_ball_stroke((0.62, 0.66), (1.97, 0.605))
    assert close(r["placed"]["0"], CS)
    # 15th ball on the head string (not behind it), covering the head spot: WPA in hand; T14 centre spot
    g, r = _last_ball_stroke((0.635, 0.66), (1.97, 0.605))
    assert r["placed"] == {} and r["cue_ball_in_hand"] == "kitchen"
    g, r = _last_ball_stroke((0.635, 0.66), (1.97, 0.605), config={"interference_table": "t14"})
    assert close(r["placed"]["0"], CS) and r["cue_ball_in_hand"] is None


def test_S27_reaching_the_target():
    g = game_at(mid_rack({8: (2.3, 0.5)}), scores=(148, 90))
    r = shoot(g, 0, {"ball": 3, "pocket": "SR"}, [("ball_ball", 0, 3), ("ball_ball", 3, 8), ("ball_pocket", 3, "SR"), ("ball_pocket", 8, "FL")])
    assert r["scores"] == [150, 90] and r["game_over"] is True and r["winner"] == 0
    # the statistics count what was played from the set-up position: one inning of 2 points for A
    assert g.over and g.result == {"winner": 0, "scores": [150, 90], "reason": "target", "points": [2, 0],
                                   "innings_total": [1, 0], "high_runs": [2, 0], "averages": [2.0, 0.0]}
    assert r["next_player"] is None and g.legal_actions()["shoot"] is None
    with pytest.raises(IllegalAction) as e:
        g.prepare_shot(1, {"ball": 5, "pocket": "FL"})
    assert e.value.code == "game_over"


def test_S28_target_exceeded():
    steps = [("ball_ball", 0, 3), ("ball_ball", 3, 8), ("ball_pocket", 3, "SR"), ("ball_pocket", 8, "FL")]
    g = game_at(mid_rack({8: (2.3, 0.5)}), scores=(149, 90))
    r = shoot(g, 0, {"ball": 3, "pocket": "SR"}, steps)
    assert r["scores"] == [151, 90] and r["winner"] == 0
    g = game_at(mid_rack({8: (2.3, 0.5)}), scores=(149, 90), config={"cap_final_score": True})
    r = shoot(g, 0, {"ball": 3, "pocket": "SR"}, steps)
    assert r["scores"] == [150, 90] and g.result["scores"] == [150, 90]


def test_S29_object_ball_frozen_to_a_rail():
    balls = mid_rack({8: (2.511425, 0.935), 0: (2.0, 0.80)})
    del balls[7]
    # (a) 8 only slides 2 mm along the foot cushion: not driven to a rail
    g = game_at(balls, fouls=(1, 0))
    assert (8, "foot") in frozen_pairs(TABLE, g.layout())
    steps_a = [("ball_ball", 0, 8), ("ball_cushion", 8, "foot", {8: (2.511425, 0.937)})]
    r = shoot(g, 0, {"safety": True}, steps_a, final={0: (2.45, 0.93)})
    assert r["foul"] == "no_rail" and r["penalty"] == 1 and r["fouls_in_row"] == [2, 0]
    # (b) the cue ball then reaches the left foot rail: legal safety, counter cleared
    g = game_at(balls, fouls=(1, 0))
    r = shoot(g, 0, {"safety": True}, steps_a + [("ball_cushion", 0, "L-foot", {0: (2.3, 1.27 - R)})], final={0: (2.2, 1.1)})
    assert r["foul"] is None and r["next_player"] == 1 and r["fouls_in_row"] == [0, 0]


def test_S30_referee_applied_serious_foul():
    for choice in ("ACCEPT_TABLE", "RERACK_OFFENDER_BREAKS"):
        g = game_at(mid_rack(), scores=(50, 20), fouls=(1, 0))
        r = g.apply_serious_foul(0).to_dict()
        assert r["scores"] == [34, 20] and r["penalty"] == 16 and r["fouls_in_row"] == [0, 0]
        assert r["next_player"] == 1 and r["options"] == ["ACCEPT_TABLE", "RERACK_OFFENDER_BREAKS"]
        g.apply_decision(1, choice)
        if choice == "ACCEPT_TABLE":
            assert g.to_act == 1 and g.in_hand == "kitchen" and 0 not in g.layout() and g.phase == "play"
        else:
            assert g.to_act == 0 and g.phase == "break" and sorted(g.layout()) == list(range(1, 16))
    # preset s2: -15, B plays the table as it lies
    g = game_at(mid_rack(), scores=(50, 20), fouls=(1, 0), config={"serious_foul_preset": "s2"})
    r = g.apply_serious_foul(0).to_dict()
    assert r["scores"] == [35, 20] and r["next_player"] == 1 and r["cue_ball_in_hand"] is None
    assert g.layout()[0] == (1.00, 0.60)
    # preset referee_free: the referee sets the penalty, or loss of game
    g = game_at(mid_rack(), scores=(50, 20), config={"serious_foul_preset": "referee_free"})
    r = g.apply_serious_foul(0, penalty=5).to_dict()
    assert r["scores"] == [45, 20]
    r = g.apply_serious_foul(1, loss_of_game=True).to_dict()
    assert r["game_over"] and r["winner"] == 0


def test_S31_negative_score_and_scoreboard():
    g = game_at(mid_rack(), to_act=1, scores=(0, 0))
    r = shoot(g, 1, {"ball": 4, "pocket": "SR"}, [("ball_ball", 0, 4)])
    assert r["foul"] == "no_rail" and r["scores"] == [0, -1] and r["fouls_in_row"] == [0, 1]
    sb = g.scoreboard()
    assert sb["scores"] == [0, -1] and sb["players"][1]["score"] == -1 and sb["players"][1]["fouls_in_row"] == 1
    # A later wins 150 to -1: that is the final score
    s = g.to_state()
    s["scores"] = [149, -1]
    g = StraightPool.from_state(s)
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, [("ball_ball", 0, 7), ("ball_pocket", 7, "FL")])
    assert r["game_over"] and g.result["scores"] == [150, -1] and g.result["winner"] == 0
