"""14.1 referee beyond the public cases: illegal actions, configuration, every section C switch, R-rules."""

from __future__ import annotations

import msgpack
import pytest
from logs import stroke_log
from pool_helpers import FS, R, TABLE, close, game_at, mid_rack, shoot

from rules.base import IllegalAction
from rules.registry import game_from_state, new_game
from rules.straight_pool import DEFAULT_CONFIG, StraightPool, normalize_config


def _illegal(g, code, fn, *args, **kw):
    before = g.to_state()
    with pytest.raises(IllegalAction) as e:
        fn(*args, **kw)
    assert e.value.code == code, e.value
    assert g.to_state() == before
    return e.value


# ----- illegal actions leave the state unchanged ------------------------------------------------
def test_illegal_calls_and_turns():
    g = game_at(mid_rack())
    _illegal(g, "not_your_turn", g.prepare_shot, 1, {"ball": 7, "pocket": "FL"})
    _illegal(g, "bad_player", g.prepare_shot, 2, {"ball": 7, "pocket": "FL"})
    _illegal(g, "bad_player", g.prepare_shot, True, {"ball": 7, "pocket": "FL"})
    _illegal(g, "call_required", g.prepare_shot, 0, None)
    _illegal(g, "bad_call", g.prepare_shot, 0, {"ball": 9, "pocket": "FL"})  # 9 is not on the table
    _illegal(g, "bad_call", g.prepare_shot, 0, {"ball": 0, "pocket": "FL"})  # the cue ball
    _illegal(g, "bad_call", g.prepare_shot, 0, {"ball": 7, "pocket": "XX"})
    _illegal(g, "bad_call", g.prepare_shot, 0, {"ball": 7})
    _illegal(g, "bad_call", g.prepare_shot, 0, {"ball": 7, "pocket": "FL", "kiss": True})
    _illegal(g, "bad_call", g.prepare_shot, 0, {"safety": False})
    _illegal(g, "bad_call", g.prepare_shot, 0, {"ball": True, "pocket": "FL"})
    _illegal(g, "bad_call", g.prepare_shot, 0, "7FL")
    _illegal(g, "not_in_hand", g.prepare_shot, 0, {"ball": 7, "pocket": "FL"}, (0.3, 0.3))
    # a stroke sent out of turn, with a bad call, or from another layout
    sim = stroke_log(TABLE, g.prepare_shot(0, {"ball": 7, "pocket": "FL"}), [("ball_ball", 0, 7), ("ball_pocket", 7, "FL")])
    _illegal(g, "not_your_turn", g.apply_shot, 1, {"ball": 7, "pocket": "FL"}, sim)
    _illegal(g, "call_required", g.apply_shot, 0, None, sim)
    moved = dict(g.layout())
    moved[3] = (0.91, 0.95)
    sim2 = stroke_log(TABLE, moved, [("ball_ball", 0, 7)])
    _illegal(g, "layout_mismatch", g.apply_shot, 0, {"ball": 7, "pocket": "FL"}, sim2)
    fewer = dict(g.layout())
    del fewer[3]
    _illegal(g, "layout_mismatch", g.apply_shot, 0, {"ball": 7, "pocket": "FL"}, stroke_log(TABLE, fewer, [("ball_ball", 0, 7)]))
    sim8 = stroke_log("pool-8ft", {0: (0.5, 0.5), 7: (1.0, 0.5)}, [("ball_ball", 0, 7)])
    _illegal(g, "bad_sim", g.apply_shot, 0, {"ball": 7, "pocket": "FL"}, sim8)
    _illegal(g, "bad_sim", g.apply_shot, 0, {"ball": 7, "pocket": "FL"}, {"events": []})
    _illegal(g, "bad_flag", g.apply_shot, 0, {"ball": 7, "pocket": "FL"}, sim, ("jump",))
    # nothing above changed the game: the stroke is still accepted
    assert g.apply_shot(0, {"ball": 7, "pocket": "FL"}, sim).points == [1, 0]


def test_illegal_cue_ball_placements():
    g = game_at({6: (0.40, 0.60), 1: (1.5, 0.5), 2: (2.0, 0.9)}, in_hand="kitchen")
    call = {"ball": 1, "pocket": "SR"}
    _illegal(g, "bad_placement", g.prepare_shot, 0, call)  # no placement
    _illegal(g, "bad_placement", g.prepare_shot, 0, call, (0.80, 0.60))  # in front of the head string
    _illegal(g, "bad_placement", g.prepare_shot, 0, call, (TABLE.head_string_x, 0.60))  # on it: not behind
    _illegal(g, "bad_placement", g.prepare_shot, 0, call, (0.42, 0.62))  # overlaps 6
    _illegal(g, "bad_placement", g.prepare_shot, 0, call, (0.01, 0.60))  # off the bed
    _illegal(g, "bad_placement", g.prepare_shot, 0, call, (0.036, 1.2411))  # on the bed but inside the HL pocket circle
    _illegal(g, "bad_placement", g.prepare_shot, 0, call, (float("nan"), 0.60))
    _illegal(g, "bad_placement", g.prepare_shot, 0, call, ("x", 0.60))
    _illegal(g, "bad_placement", g.prepare_shot, 0, call, (0.3,))
    # the kitchen limit published in legal_actions is itself a legal placement; a hair beyond is not
    x_max = g.legal_actions()["shoot"]["in_hand"]["x_max"]
    assert TABLE.head_string_x - 1.1e-6 < x_max < TABLE.head_string_x - 1e-6
    start = g.prepare_shot(0, call, (x_max, 0.30))
    assert start[0] == (x_max, 0.30)
    _illegal(g, "bad_placement", g.prepare_shot, 0, call, (TABLE.head_string_x - 1e-6, 0.30))
    # frozen to 6 is allowed
    start = g.prepare_shot(0, call, (0.40 - 2 * R, 0.60))
    assert close(start[0], (0.40 - 2 * R, 0.60))
    # a simulation from a cue ball in front of the head string is refused too
    lay = dict(g.layout())
    lay[0] = (0.9, 0.3)
    _illegal(g, "bad_placement", g.apply_shot, 0, call, stroke_log(TABLE, lay, [("ball_ball", 0, 1)]))


def test_illegal_decisions_lag_and_game_over():
    g = game_at(mid_rack())
    _illegal(g, "no_such_decision", g.apply_decision, 0, "ACCEPT_TABLE")
    _illegal(g, "no_such_decision", g.apply_decision, 0, "SPOT_REQUEST", 7)
    _illegal(g, "not_your_turn", g.apply_decision, 1, "OFFER_STALEMATE")
    _illegal(g, "bad_arg", g.apply_decision, 0, "OFFER_STALEMATE", 3)
    _illegal(g, "bad_phase", g.apply_lag, stroke_log(TABLE, g.lag_layout(), []))
    _illegal(g, "no_shot_clock", g.apply_timeout, 0)
    _illegal(g, "bad_arg", g.apply_serious_foul, 0, 5)
    # breaking foul: only B decides, only on offer
    g = new_game("straight_pool", {"breaker": 0}, seed=4)
    apex = [b for b, p in g.layout().items() if close(p, FS)][0]
    shoot(g, 0, None, [("ball_ball", 0, apex)], cue=(0.5, 0.6))
    _illegal(g, "not_your_turn", g.apply_decision, 0, "ACCEPT_TABLE")
    _illegal(g, "no_such_decision", g.apply_decision, 1, "RERACK_OFFENDER_BREAKS")
    _illegal(g, "bad_phase", g.prepare_shot, 1, {"safety": True})
    # the lag: both seats may prepare, the layout must be the lag layout, a random lag has none
    g = StraightPool({}, seed=1)
    assert g.prepare_shot(1, None) == g.lag_layout()
    _illegal(g, "layout_mismatch", g.apply_lag, stroke_log(TABLE, {0: (0.5, 0.3), 1: (0.6, 0.9)}, []))
    _illegal(g, "bad_phase", g.apply_serious_foul, 0)
    gr = StraightPool({"lag_mode": "random"}, seed=1)
    _illegal(gr, "bad_phase", gr.apply_lag, stroke_log(TABLE, gr.lag_layout(), []))
    # game over: nothing more
    g = game_at(mid_rack(), scores=(149, 0))
    shoot(g, 0, {"ball": 7, "pocket": "FL"}, [("ball_ball", 0, 7), ("ball_pocket", 7, "FL")])
    assert g.over
    _illegal(g, "game_over", g.prepare_shot, 1, {"ball": 3, "pocket": "FL"})
    _illegal(g, "game_over", g.apply_decision, 1, "ACCEPT_TABLE")
    _illegal(g, "game_over", g.apply_forfeit, 1)
    _illegal(g, "game_over", g.apply_serious_foul, 1)
    assert g.legal_actions() == {"player": None, "phase": "over", "shoot": None, "decisions": []}


# ----- configuration ------------------------------------------------------------------------
def test_configuration_defaults_and_bad_values():
    cfg = normalize_config(None)
    assert cfg == DEFAULT_CONFIG
    assert cfg["target_points"] == 150 and cfg["rack_order"] == "wpa_random" and cfg["stalemate"] == "agreement"
    g = new_game("14.1", {"table": "8ft", "stalemate": "auto(4)", "shot_clock": {"limit_s": 40, "extensions": 2}})
    assert g.table.name == "pool-8ft" and g.config["stalemate"] == "auto(4)"
    assert g.config["shot_clock"] == {"limit_s": 40.0, "extensions": 2}
    assert g.lag_layout()[0] == pytest.approx((g.table.head_string_x - 0.035, g.table.width / 4))
    bad = {
        "colour": "red",
        "table": "12ft",
        "target_points": 0,
        "cap_final_score": "yes",
        "rack_order": "random",
        "three_foul_mode": "lenient",
        "spot_request": "never",
        "object_ball_off_table_is_foul": 1,
        "near_rail_limit": "always",
        "interference_table": "bca",
        "serious_foul_preset": "harsh",
        "scoop_is_foul": None,
        "lag_mode": "coin",
        "stalemate": "auto(0)",
        "shot_clock": {"limit_s": -1},
        "breaker": 2,
    }
    for k, v in bad.items():
        with pytest.raises(ValueError) as e:
            new_game("straight_pool", {k: v})
        assert str(e.value).startswith(f"{k}:"), e.value
    for v in ({"name": "8ft"}, ["8ft"], 8):  # unhashable or not a name (the fuzzer's seed 182456685 sent a map)
        with pytest.raises(ValueError, match="^table: expected one of"):
            new_game("straight_pool", {"table": v})
    # each extension buys a fresh period: at most CLOCK_EXTENSIONS_MAX (10), no endless stalling
    assert new_game("straight_pool", {"shot_clock": {"limit_s": 30, "extensions": 10}}).config["shot_clock"]["extensions"] == 10
    with pytest.raises(ValueError, match=r"shot_clock: extensions must be an integer in \[0, 10\], got 1000000"):
        new_game("straight_pool", {"shot_clock": {"limit_s": 30, "extensions": 1_000_000}})
    with pytest.raises(ValueError, match="^target_points:"):
        new_game("straight_pool", {"target_points": [150]})
    for lim in (0.001, 1.99, 3601, float("nan")):  # a tiny limit would rule time-outs without end
        with pytest.raises(ValueError, match=r"^shot_clock: limit_s must be a number of seconds in \[2, 3600\]"):
            new_game("straight_pool", {"shot_clock": {"limit_s": lim}})
    assert new_game("straight_pool", {"shot_clock": {"limit_s": 2}}).config["shot_clock"]["limit_s"] == 2.0
    with pytest.raises(ValueError, match="^discipline:"):
        new_game("snooker")
    with pytest.raises(ValueError, match="^seed:"):
        StraightPool({}, seed="1")


def test_state_round_trips_through_msgpack_and_the_registry():
    g = game_at(mid_rack(), scores=(12, -3), fouls=(1, 2), config={"shot_clock": {"limit_s": 30, "extensions": 1}})
    shoot(g, 0, {"ball": 7, "pocket": "FL"}, [("ball_ball", 0, 7), ("ball_pocket", 7, "FL")])
    blob = msgpack.packb(g.to_state())
    h = game_from_state(msgpack.unpackb(blob))
    assert isinstance(h, StraightPool) and h == g and h.to_state() == g.to_state()
    assert msgpack.packb(h.to_state()) == blob
    # the ruling is msgpack-serialisable too
    r = shoot(h, 0, {"ball": 3, "pocket": "HL"}, [("ball_ball", 0, 3), ("ball_pocket", 3, "HL"), ("ball_pocket", 0, "SR")])
    assert msgpack.unpackb(msgpack.packb(r)) == r
    assert h != g


def test_seeded_rng_is_part_of_the_state():
    """A game restored mid-match draws the same racks as the original (R4 wpa_random)."""
    g = new_game("straight_pool", {"breaker": 0}, seed=99)
    apex = [b for b, p in g.layout().items() if close(p, FS)][0]
    shoot(g, 0, None, [("ball_ball", 0, apex)], cue=(0.5, 0.6))  # breaking foul
    h = StraightPool.from_state(msgpack.unpackb(msgpack.packb(g.to_state())))
    g.apply_decision(1, "REQUIRE_REBREAK")
    h.apply_decision(1, "REQUIRE_REBREAK")
    assert g.layout() == h.layout() and g == h
    first = new_game("straight_pool", {"breaker": 0}, seed=99).layout()
    assert g.layout() != first  # a fresh permutation for the new rack
    # random lag: drawn from the seed, reproducible
    a = [StraightPool({"lag_mode": "random"}, seed=s).to_act for s in range(20)]
    b = [StraightPool({"lag_mode": "random"}, seed=s).to_act for s in range(20)]
    assert a == b and set(a) == {0, 1}
    g = StraightPool({"lag_mode": "random"}, seed=5)
    assert g.phase == "decision" and g.legal_actions()["decisions"] == [{"name": "CHOOSE_BREAKER", "args": [0, 1]}]


# ----- R5-R7 breaks ---------------------------------------------------------------------------
def test_break_rail_before_contact_does_not_count_and_scratch_accept_gives_ball_in_hand():
    g = new_game("straight_pool", {"breaker": 1, "rack_order": "classic_15_apex"}, seed=2)
    r = shoot(
        g,
        1,
        None,
        [("ball_cushion", 0, "R-head"), ("ball_ball", 0, 15), ("ball_cushion", 2, "foot"), ("ball_cushion", 3, "foot"), ("ball_pocket", 0, "FL")],
        cue=(0.5, 0.6),
    )
    assert r["break_legal"] is True and r["foul"] == "scratch"  # the scratch drives the cue ball after contact
    g = new_game("straight_pool", {"breaker": 1, "rack_order": "classic_15_apex"}, seed=2)
    r = shoot(g, 1, None, [("ball_cushion", 0, "R-head"), ("ball_ball", 0, 15), ("ball_cushion", 2, "foot"), ("ball_cushion", 3, "foot")], cue=(0.5, 0.6))
    assert r["break_legal"] is False and r["foul"] == "breaking_foul" and r["scores"] == [0, -2]
    g = new_game("straight_pool", {"breaker": 1, "rack_order": "classic_15_apex"}, seed=2)
    r = shoot(g, 1, {"safety": True}, [("ball_ball", 0, 15), ("ball_cushion", 2, "foot"), ("ball_pocket", 0, "SR")], cue=(0.5, 0.6))
    assert r["foul"] == "breaking_foul" and "scratch" in r["fouls"] and r["penalty"] == 2  # one penalty (R15)
    assert g.scoreboard()["players"][1]["scratches"] == 1
    d = g.apply_decision(0, "ACCEPT_TABLE").to_dict()
    assert d["cue_ball_in_hand"] == "kitchen" and g.in_hand == "kitchen" and g.to_act == 0


def test_break_with_called_ball_in_wrong_pocket_passes_turn_and_spots():
    g = new_game("straight_pool", {"breaker": 0, "rack_order": "classic_15_apex"}, seed=2)
    r = shoot(
        g,
        0,
        {"ball": 2, "pocket": "FR"},
        [("ball_ball", 0, 15, {15: (1.5, 0.3)}), ("ball_pocket", 2, "FL"), ("ball_cushion", 4, "foot"), ("ball_cushion", 0, "R-foot")],
        cue=(0.5, 0.6),
    )
    assert r["break_legal"] is True and r["foul"] is None and r["points"] == [0, 0]
    assert close(r["spotted"]["2"], FS) and r["next_player"] == 1


# ----- R9, D6 -----------------------------------------------------------------------------------
def test_frozen_cue_ball_pushing_its_object_ball_counts_as_contact():
    lay = mid_rack({0: (1.80 - 2 * R, 0.30)})  # cue ball frozen to 4
    g = game_at(lay)
    r = shoot(g, 0, {"ball": 4, "pocket": "FR"}, [("ball_ball", 0, 4), ("move", {4: (2.3, 0.3)}), ("ball_cushion", 4, "foot")], final={0: (1.9, 0.3)})
    assert r["foul"] is None and r["next_player"] == 1
    # playing away from it is not a contact
    g = game_at(lay)
    r = shoot(g, 0, {"ball": 4, "pocket": "FR"}, [("move", {0: (1.2, 0.3)}), ("ball_cushion", 0, "head")], final={0: (0.5, 0.3)})
    assert r["foul"] == "no_contact"


def test_several_fouls_one_penalty_in_hand_first():
    g = game_at(mid_rack())
    r = shoot(g, 0, {"ball": 4, "pocket": "SR"}, [("ball_ball", 0, 4), ("ball_pocket", 0, "SR")], flags=("double_hit",))
    assert r["foul"] == "scratch" and set(r["fouls"]) == {"scratch", "double_hit"} and r["penalty"] == 1


def test_stroke_flags_scoop_only_when_configured():
    steps = [("ball_ball", 0, 7), ("ball_pocket", 7, "FL")]
    g = game_at(mid_rack())
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, steps, flags=("scoop",))
    assert r["foul"] is None and r["points"] == [1, 0]
    g = game_at(mid_rack(), config={"scoop_is_foul": True})
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, steps, flags=("scoop",))
    assert r["foul"] == "scoop" and r["scores"] == [-1, 0] and close(r["spotted"]["7"], FS)
    g = game_at(mid_rack())
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, steps, flags=("push", "cue_touch"))
    assert r["foul"] == "push"
    assert set(r["fouls"]) == {"push", "touched_ball"} and r["cue_ball_in_hand"] is None


# ----- R16 via time-outs; shot clock --------------------------------------------------------
def test_shot_clock_timeouts_and_extensions():
    g = game_at(mid_rack(), config={"shot_clock": {"limit_s": 30, "extensions": 1}})
    assert {"name": "EXTENSION", "args": []} in g.legal_actions()["decisions"]
    r = g.apply_decision(0, "EXTENSION").to_dict()
    assert r["text"] == "Extension: A has 0 left" and g.to_act == 0
    assert all(d["name"] != "EXTENSION" for d in g.legal_actions()["decisions"])
    _illegal(g, "no_such_decision", g.apply_decision, 0, "EXTENSION")
    _illegal(g, "not_your_turn", g.apply_timeout, 1)
    r = g.apply_timeout(0).to_dict()
    assert r["foul"] == "shot_clock" and r["scores"] == [-1, 0] and r["fouls_in_row"] == [1, 0]
    assert r["next_player"] == 1 and r["cue_ball_in_hand"] is None and r["text"] == "Foul: shot clock expired, -1; B to shoot"
    g.apply_timeout(1)
    g.apply_timeout(0)
    g.apply_timeout(1)
    r = g.apply_timeout(0).to_dict()  # A's third successive foul
    assert r["foul"] == "third_successive_foul" and r["scores"] == [-18, -2]
    assert g.phase == "break" and g.to_act == 0


# ----- R17 ------------------------------------------------------------------------------------
def test_serious_foul_during_a_pending_decision_and_forfeit():
    g = new_game("straight_pool", {"breaker": 0, "serious_foul_preset": "s2"}, seed=4)
    apex = [b for b, p in g.layout().items() if close(p, FS)][0]
    shoot(g, 0, None, [("ball_ball", 0, apex), ("ball_pocket", 0, "FR")], cue=(0.5, 0.6))
    assert g.phase == "decision"
    r = g.apply_serious_foul(0).to_dict()
    assert r["scores"] == [-17, 0] and r["next_player"] == 1 and r["cue_ball_in_hand"] == "kitchen"
    assert g.scoreboard()["players"][0]["penalties"] == {"standard": 0, "breaking": 2, "serious": 15}
    r = g.apply_forfeit(1, "left the table").to_dict()
    assert r["game_over"] and r["winner"] == 0 and g.result["reason"] == "forfeit: left the table"


# ----- R24 variants ---------------------------------------------------------------------------
def _near_rail_layout():
    # 9 is 30 mm off the foot cushion (near-rail, not frozen); other balls far away
    return {0: (1.9, 0.9), 9: (2.54 - R - 0.03, 0.9), 3: (0.9, 0.3), 4: (1.2, 0.2), 5: (1.4, 1.1)}


def _b_plays_safety(g):
    lay = g.layout()
    shoot(g, 1, {"safety": True}, [("ball_ball", 0, 3), ("ball_cushion", 3, "R-head")], final={0: lay[0]})


def test_near_rail_limit_wsr_two_safeties_then_treated_as_frozen():
    g = game_at(_near_rail_layout(), config={"near_rail_limit": "wsr"})
    safety = [("ball_ball", 0, 9), ("ball_cushion", 9, "foot")]
    for k in (1, 2):
        r = shoot(g, 0, {"safety": True}, safety, final={0: (1.9, 0.9), 9: (2.54 - R - 0.03, 0.9)})
        assert r["foul"] is None, k
        assert g.near_rail[0] == {"ball": 9, "rail": "foot", "count": k}
        _b_plays_safety(g)
    r = shoot(g, 0, {"safety": True}, safety, final={0: (1.9, 0.9), 9: (2.54 - R - 0.03, 0.9)})
    assert r["foul"] == "no_rail" and r["scores"] == [-1, 0]
    # driving the cue ball to a rail after the contact is still legal on the third
    g = game_at(_near_rail_layout(), config={"near_rail_limit": "wsr"})
    for _ in (1, 2):
        shoot(g, 0, {"safety": True}, safety, final={0: (1.9, 0.9), 9: (2.54 - R - 0.03, 0.9)})
        _b_plays_safety(g)
    r = shoot(g, 0, {"safety": True}, safety + [("ball_cushion", 0, "L-foot")], final={0: (1.9, 0.9)})
    assert r["foul"] is None
    # default (WPA): no limit
    g = game_at(_near_rail_layout())
    for _ in (1, 2, 3):
        r = shoot(g, 0, {"safety": True}, safety, final={0: (1.9, 0.9), 9: (2.54 - R - 0.03, 0.9)})
        assert r["foul"] is None
        _b_plays_safety(g)


def test_near_rail_limit_wsr_on_fouls_no_allowance_and_third_foul():
    safety = [("ball_ball", 0, 9), ("ball_cushion", 9, "foot")]
    g = game_at(_near_rail_layout(), fouls=(1, 0), config={"near_rail_limit": "wsr"})
    r = shoot(g, 0, {"safety": True}, safety, final={0: (1.9, 0.9)})
    assert r["foul"] == "no_rail" and r["fouls_in_row"] == [2, 0]
    _b_plays_safety(g)
    r = shoot(g, 0, {"safety": True}, safety, final={0: (1.9, 0.9)})
    assert r["foul"] == "third_successive_foul" and r["scores"] == [-17, 0] and g.phase == "break"


def test_near_rail_limit_frozen_two_each_third_safety_reracks():
    lay = {0: (1.9, 0.9), 9: (2.54 - R, 0.9), 8: (2.54 - 3 * R - 0.05, 0.6), 3: (0.9, 0.3), 4: (1.2, 0.2), 5: (1.4, 1.1)}
    steps = [("ball_ball", 0, 9), ("ball_cushion", 9, "foot"), ("ball_ball", 9, 8), ("ball_cushion", 8, "R-foot")]
    g = game_at(lay, config={"near_rail_limit": "frozen_two_each"})
    for k in (1, 2):
        r = shoot(g, 0, {"safety": True}, steps, final={0: (1.9, 0.9), 8: lay[8]})
        assert r["foul"] is None and g.near_rail[0]["count"] == k
        _b_plays_safety(g)
    r = shoot(g, 0, {"safety": True}, steps, final={0: (1.9, 0.9), 8: lay[8]})
    assert r["frozen_ball_limit"] is True
    assert g.phase == "break" and g.to_act == 0 and sorted(g.layout()) == list(range(1, 16))
    assert r["scores"] == [0, 0]


# ----- R26 per-player target ----------------------------------------------------------------------
def test_per_player_target_for_handicaps():
    g = game_at(mid_rack(), to_act=1, scores=(100, 49), config={"target_points": [150, 50]})
    assert g.targets() == [150, 50]
    r = shoot(g, 1, {"ball": 7, "pocket": "FL"}, [("ball_ball", 0, 7), ("ball_pocket", 7, "FL")])
    assert r["game_over"] and r["winner"] == 1 and r["scores"] == [100, 50]


def test_foul_never_ends_the_game():
    g = game_at(mid_rack(), scores=(149, 0))
    r = shoot(g, 0, {"ball": 7, "pocket": "FL"}, [("ball_ball", 0, 7), ("ball_pocket", 7, "FL"), ("ball_pocket", 0, "FR")])
    assert not r["game_over"] and r["scores"] == [148, 0]


# ----- R23: cue ball in the outline ----------------------------------------------------------------
def test_R23_cue_ball_in_the_outline_goes_in_hand():
    g = game_at({0: (0.8, 0.6), 10: (2.2, 1.0), 4: (2.1, 0.7)})
    r = shoot(g, 0, {"ball": 10, "pocket": "FL"}, [("ball_ball", 0, 10), ("ball_pocket", 10, "FL"), ("ball_pocket", 4, "SR")], final={0: (1.93, 0.64)})
    assert len(r["rerack"]["balls"]) == 15 and r["cue_ball_in_hand"] == "kitchen" and 0 not in g.layout()


# ----- R27 statistics, R25 -------------------------------------------------------------------------
def test_statistics_runs_average_and_penalties():
    g = game_at(mid_rack({8: (2.3, 0.5), 9: (0.5, 1.0)}))
    for b, pk in ((7, "FL"), (12, "SR"), (8, "FR")):
        shoot(g, 0, {"ball": b, "pocket": pk}, [("ball_ball", 0, b), ("ball_pocket", b, pk)])
    assert g.scoreboard()["players"][0]["run"] == 3
    shoot(g, 0, {"ball": 4, "pocket": "SR"}, [("ball_ball", 0, 4), ("ball_pocket", 0, "SR")])  # scratch ends the inning
    shoot(g, 1, {"safety": True}, [("ball_ball", 0, 3), ("ball_cushion", 3, "L-head")], cue=(0.3, 0.3))
    shoot(g, 0, {"ball": 11, "pocket": "SL"}, [("ball_ball", 0, 11), ("ball_pocket", 11, "SL")])
    sb = g.scoreboard()["players"]
    assert sb[0]["high_run"] == 3 and sb[0]["run"] == 1 and sb[0]["points"] == 4
    assert sb[0]["innings"] == 2 and sb[0]["average"] == 2.0 and sb[0]["strokes"] == 5
    assert sb[0]["fouls"] == 1 and sb[0]["scratches"] == 1 and sb[0]["penalties"]["standard"] == 1
    assert sb[0]["score"] == 3 and g.scores == [3, 0]
    assert sb[1]["innings"] == 1 and sb[1]["safeties"] == 1 and sb[1]["average"] == 0.0


# ----- R28 stalemate ---------------------------------------------------------------------------------
def _safety_exchange(g, n):
    for _ in range(n):
        if g.phase not in ("play",):
            return
        p = g.to_act
        lay = g.layout()
        tgt = 3 if p == 1 else 4
        shoot(g, p, {"safety": True}, [("ball_ball", 0, tgt), ("ball_cushion", tgt, "R-head")], final={0: lay[0]})


def test_stalemate_auto_after_n_innings_without_progress():
    g = game_at(mid_rack(), scores=(10, 7), fouls=(1, 0), config={"stalemate": "auto(3)"})
    _safety_exchange(g, 2)
    assert g.phase == "play" and g.stalemate_count == 2
    p = g.to_act
    r = shoot(g, p, {"safety": True}, [("ball_ball", 0, 4), ("ball_cushion", 4, "R-head")], final={0: g.layout()[0]})
    assert r["stalemate"] is True and g.phase == "lag" and g.layout() == {}
    assert g.scores == [10, 7] and g.fouls_in_row == [0, 0]  # the legal safety cleared A's count; scores carry over
    # a pocketed ball or a foul resets the count
    g = game_at(mid_rack(), config={"stalemate": "auto(2)"})
    _safety_exchange(g, 1)
    shoot(g, 1, {"ball": 4, "pocket": "SR"}, [("ball_ball", 0, 4), ("ball_pocket", 4, "FR")])
    assert g.stalemate_count == 0 and g.phase == "play"
    # random lag mode: the winner is drawn and chooses the breaker
    g = game_at(mid_rack(), config={"stalemate": "auto(1)", "lag_mode": "random"})
    r = shoot(g, 0, {"safety": True}, [("ball_ball", 0, 4), ("ball_cushion", 4, "R-head")])
    assert g.phase == "decision" and r["options"] == ["CHOOSE_BREAKER"]
    w = g.to_act
    g.apply_decision(w, "CHOOSE_BREAKER", 1 - w)
    assert g.phase == "break" and g.to_act == 1 - w and sorted(g.layout()) == list(range(1, 16))


def test_stalemate_by_agreement():
    g = game_at(mid_rack(), scores=(3, 4))
    r = g.apply_decision(0, "OFFER_STALEMATE").to_dict()
    assert r["next_player"] == 1 and r["options"] == ["ACCEPT_STALEMATE", "DECLINE_STALEMATE"]
    g.apply_decision(1, "DECLINE_STALEMATE")
    assert g.phase == "play" and g.to_act == 0
    _illegal(g, "no_such_decision", g.apply_decision, 0, "OFFER_STALEMATE")  # once per stroke
    shoot(g, 0, {"safety": True}, [("ball_ball", 0, 4), ("ball_cushion", 4, "R-head")])
    g.apply_decision(1, "OFFER_STALEMATE")
    r = g.apply_decision(0, "ACCEPT_STALEMATE").to_dict()
    assert r["stalemate"] is True and g.phase == "lag" and g.scores == [3, 4]


def test_stroke_flags_of_the_physics_are_read_from_the_simulation():
    """F6: the cue ball 1 mm behind ball 4, shot straight at 2 m/s: the follow-through gives a double hit."""
    from physics import Shot, simulate

    for gap, fouled in ((0.001, True), (0.20, False)):
        lay = mid_rack({0: (1.80 - 2 * R - gap, 0.30)})
        g = game_at(lay)
        start = g.prepare_shot(0, {"ball": 4, "pocket": "FR"}, None)
        sim = simulate(g.table, start, Shot(cue_ball=0, phi_deg=0.0, V0=2.0))
        assert (sim.flags == ("double_hit", "push")) is fouled
        r = g.apply_shot(0, {"ball": 4, "pocket": "FR"}, sim).to_dict()
        assert ("double_hit" in r["fouls"]) is fouled
        if fouled:
            assert r["penalty"] == 1 and r["next_player"] == 1 and g.to_state()["scores"] == [-1, 0]
