"""Carom rules beyond the published cases: every configuration switch of spec section C with its
default and variants, the lag, ties (K8), touching balls, set-ups, zones and anchors, match
formats, the shot clock, statistics, and illegal actions leaving the state unchanged."""

from __future__ import annotations

import math

import msgpack
import pytest

from carom_helpers import BREAK_LAYOUT, SPOTS, TABLE, R, carom_log, play
from logs import stroke_log
from rules.base import IllegalAction
from rules.carom import CaromStroke, carom_config
from rules.carom_disciplines import (
    CAROM_GAMES,
    Balkline47_1,
    Balkline47_2,
    Balkline71_2,
    Libre,
    OneCushion,
    ThreeCushion,
)
from rules.multi import Pentathlon, Triathlon
from rules.registry import DISCIPLINES, game_from_state, new_game
from rules.zones import IN, INSIDE
from test_carom_cases import MID, _stroke, game_in_play, reach_inning

W, Y, RD = 0, 1, 2
TOP, CEN, BOT, STL, STR = SPOTS["top"], SPOTS["cen"], SPOTS["bot"], SPOTS["stL"], SPOTS["stR"]
L, WD = TABLE.length, TABLE.width


def close(p, q, tol=1e-9):
    return math.hypot(p[0] - q[0], p[1] - q[1]) <= tol


# ----- configuration (section C) ------------------------------------------------------------

def test_registry_has_every_carom_discipline():
    for name in ("libre", "balkline_47_2", "balkline_47_1", "balkline_71_2", "one_cushion", "three_cushion",
                 "pentathlon", "triathlon"):
        assert name in DISCIPLINES
        g = new_game(name, {"breaker": 0}, seed=3)
        assert g.discipline == name
        assert game_from_state(g.to_state()) == g


@pytest.mark.parametrize("name,distance", [("libre", 100), ("balkline_47_2", 100), ("balkline_47_1", 80),
                                           ("balkline_71_2", 100), ("one_cushion", 50), ("three_cushion", 30)])
def test_default_distances_C25(name, distance):
    g = CAROM_GAMES[name]()
    assert g.config["distance"] == distance and g.target == distance
    c = g.config
    assert (c["inning_limit"], c["limit_last_inning"], c["equalizing_inning"], c["sets"], c["set_equalizing"]) == \
        (None, "from_layout", True, None, "none")
    assert (c["draw_resolution"], c["anchors"], c["corner_zone_legs"], c["libre_frozen_reset"]) == \
        ("draw", True, [0.71, 0.315], "spots")
    assert (c["break_red_first"], c["lag_mode"], c["shot_clock"]) == ("direct", "simulated", None)


@pytest.mark.parametrize("config,key", [
    ({"colour": 1}, "colour"),
    ({"distance": 0}, "distance"),
    ({"distance": True}, "distance"),
    ({"inning_limit": -3}, "inning_limit"),
    ({"limit_last_inning": "never"}, "limit_last_inning"),
    ({"equalizing_inning": "yes"}, "equalizing_inning"),
    ({"sets": {"sets_to_win": 4, "set_distance": 15}}, "sets"),
    ({"sets": {"sets_to_win": 2, "set_distance": 15}, "inning_limit": 30}, "inning_limit"),
    ({"set_equalizing": "always"}, "set_equalizing"),
    ({"draw_resolution": "coin"}, "draw_resolution"),
    ({"corner_zone_legs": [0.71]}, "corner_zone_legs"),
    ({"corner_zone_legs": [0.71, -1]}, "corner_zone_legs"),
    ({"libre_frozen_reset": "x"}, "libre_frozen_reset"),
    ({"break_red_first": "never"}, "break_red_first"),
    ({"lag_mode": "coin"}, "lag_mode"),
    ({"shot_clock": {"limit_s": 30, "warn_s": 40}}, "shot_clock"),
    ({"shot_clock": 30}, "shot_clock"),
    ({"shot_clock": {"limit_s": 0.001, "warn_s": 0.0005}}, "shot_clock"),  # below SHOT_CLOCK_RANGE: a time-out storm
    ({"shot_clock": {"limit_s": 1e6}}, "shot_clock"),
    ({"shot_clock": {"limit_s": 30, "timeouts": 11}}, "shot_clock"),  # CLOCK_EXTENSIONS_MAX: no endless stalling
    ({"breaker": 2}, "breaker"),
    ({"discipline": "libre"}, "discipline"),
])
def test_bad_config_names_the_key(config, key):
    with pytest.raises(ValueError) as e:
        ThreeCushion(config=config)
    assert str(e.value).startswith(key + ":")


def test_bad_seed_and_multi_config():
    with pytest.raises(ValueError, match="^seed:"):
        ThreeCushion(seed="x")
    with pytest.raises(ValueError, match="^disciplines:"):
        Pentathlon(config={"disciplines": ["snooker"]})
    with pytest.raises(ValueError, match="^multi_break_order:"):
        Triathlon(config={"multi_break_order": "random"})
    with pytest.raises(ValueError, match="^lag_mode:"):
        Triathlon(config={"lag_mode": "coin"})
    with pytest.raises(ValueError, match="^match_points:"):
        Triathlon(config={"match_points": [1, 2, 0]})
    with pytest.raises(ValueError, match="^distance:"):
        Triathlon(config={"distance": 10})


# ----- illegal actions leave the state unchanged ------------------------------------------------

def _unchanged(g, fn, code):
    before = g.to_state()
    with pytest.raises(IllegalAction) as e:
        fn()
    assert e.value.code == code
    assert g.to_state() == before


def test_illegal_actions_leave_the_state_unchanged():
    g = ThreeCushion(config={"breaker": 0, "shot_clock": None})
    sim = carom_log(g.layout(), "W>RD; W|T; W|Lf; W|R; W>Y", cue=W)
    _unchanged(g, lambda: g.apply_shot(1, None, sim), "not_your_turn")
    _unchanged(g, lambda: g.apply_shot(True, None, sim), "bad_player")
    _unchanged(g, lambda: g.apply_shot(0, {"ball": 2, "pocket": "FL"}, sim), "bad_call")
    _unchanged(g, lambda: g.prepare_shot(0, None, (1.0, 0.5)), "bad_placement")
    _unchanged(g, lambda: g.prepare_shot(1, None), "not_your_turn")
    _unchanged(g, lambda: g.apply_decision(0, "SET_UP"), "no_such_decision")
    _unchanged(g, lambda: g.apply_decision(0, "STARTING_SPOT", "middle"), "bad_argument")
    _unchanged(g, lambda: g.apply_lag(sim), "bad_phase")
    _unchanged(g, lambda: g.apply_timeout(0), "no_shot_clock")
    other = carom_log({W: (0.5, 0.5), Y: (1.0, 1.0), RD: (2.0, 0.4)}, "W>RD; W>Y", cue=W)
    _unchanged(g, lambda: g.apply_shot(0, None, other), "bad_sim")
    wrong_ball = carom_log(g.layout(), "Y>RD; Y>W", cue=Y)
    _unchanged(g, lambda: g.apply_shot(0, None, wrong_ball), "wrong_ball")
    _unchanged(g, lambda: g.apply_shot(0, None, "not a sim"), "bad_sim")
    g.apply_shot(0, None, sim)
    assert g.scoreboard()["scores"] == [1, 0]
    # decision pending: no stroke
    g2 = ThreeCushion(config={"breaker": 0})
    play(g2, "W>RD; W|T; W|Lf; W|R; W>Y", final={W: (1.80, 0.40), RD: (1.8615, 0.40), Y: (0.50, 1.00)})
    _unchanged(g2, lambda: g2.prepare_shot(0, None), "decision_pending")
    _unchanged(g2, lambda: g2.apply_decision(1, "SET_UP"), "not_your_turn")
    # game over
    g2.apply_forfeit(1, "left")
    _unchanged(g2, lambda: g2.apply_decision(0, "PLAY_ON"), "game_over")
    _unchanged(g2, lambda: g2.apply_forfeit(0), "game_over")
    # lag phase: no ordinary stroke, no decision
    g3 = ThreeCushion()
    _unchanged(g3, lambda: g3.apply_shot(0, None, sim), "bad_phase")
    _unchanged(g3, lambda: g3.apply_decision(0, "CHOOSE_BREAKER", 0), "bad_phase")


def test_unexpected_errors_restore_the_state():
    g = ThreeCushion(config={"breaker": 0})
    before = g.to_state()

    class Broken:
        pass

    with pytest.raises(IllegalAction):
        g.apply_shot(0, None, Broken())
    assert g.to_state() == before


# ----- the lag (C4) -------------------------------------------------------------------------

def _lag(g, steps, final):
    return g.apply_lag(stroke_log(TABLE, g.lag_layout(), [("strike", 0), ("strike", 1, {"t": 0.0})] + steps, final=final)).to_dict()


TOP0 = ("ball_cushion", 0, "T", {0: (L - R, 0.30), "t": 1.0})
TOP1 = ("ball_cushion", 1, "T", {1: (L - R, 1.12), "t": 1.0})


def test_lag_nearer_wins_and_equal_repeats():
    g = OneCushion()
    r = _lag(g, [TOP0, TOP1], final={0: (R + 0.30, 0.30), 1: (R + 0.10, 1.12)})
    assert r["lag"]["winner"] == 1 and g.to_act == 1 and g.phase == "choose_breaker"
    # the winner is the one nearer (the text once gave that reason to the loser)
    assert r["text"] == "Lag won by seat 1, nearer the short cushion it started from; seat 1 chooses who breaks"
    g = OneCushion()
    r = _lag(g, [TOP0, TOP1], final={0: (R + 0.1003, 0.30), 1: (R + 0.10, 1.12)})
    assert r["lag"]["repeat"] is True and g.phase == "lag" and r["next_player"] is None
    assert r["text"].startswith("Lag repeated")


def test_lag_collision_the_ball_that_crossed_loses():
    g = OneCushion()
    steps = [TOP0, TOP1, ("move", {0: (1.5, 0.80), "t": 1.5}), ("ball_ball", 0, 1, {0: (1.2, 0.80), 1: (1.2, 0.80 + 2 * R), "t": 1.6})]
    r = _lag(g, steps, final={0: (R + 0.05, 0.5), 1: (R + 0.3, 1.0)})
    assert r["lag"]["winner"] == 1 and "crossed the long string before the collision" in r["lag"]["faults"][0]
    g = OneCushion()  # neither crossed: cannot tell -> repeat
    steps = [TOP0, TOP1, ("ball_ball", 0, 1, {0: (1.2, 0.69), 1: (1.2, 0.69 + 2 * R), "t": 1.6})]
    r = _lag(g, steps, final={0: (R + 0.05, 0.5), 1: (R + 0.3, 1.0)})
    assert r["lag"]["repeat"] is True and g.phase == "lag"


def test_lag_faults_red_off_table_short_both():
    g = OneCushion()  # seat 0 never reaches the top cushion
    r = _lag(g, [TOP1], final={0: (R + 0.01, 0.30), 1: (R + 0.50, 1.12)})
    assert r["lag"]["winner"] == 1 and r["lag"]["faults"][0] == ["did not reach the top cushion"]
    assert r["text"] == "Lag won by seat 1 (seat 0: did not reach the top cushion); seat 1 chooses who breaks"
    g = OneCushion()  # seat 1's ball leaves the table
    r = _lag(g, [TOP0, TOP1, ("off_table", 1, {"t": 1.5})], final={0: (R + 0.50, 0.30)})
    assert r["lag"]["winner"] == 0 and "left the table" in r["lag"]["faults"][1]
    g = OneCushion()  # both touch the red: repeat
    steps = [TOP0, TOP1, ("ball_ball", 0, RD, {0: (TOP[0], TOP[1] - 2 * R), "t": 1.3}),
             ("ball_ball", 1, RD, {1: (TOP[0], TOP[1] + 2 * R), "t": 1.4})]
    r = _lag(g, steps, final={0: (R + 0.05, 0.3), 1: (R + 0.1, 1.1)})
    assert r["lag"]["repeat"] is True and g.phase == "lag"


def test_random_lag_is_seeded_and_kept_in_the_state():
    winners = {seed: ThreeCushion(config={"lag_mode": "random"}, seed=seed).lag_winner for seed in range(40)}
    assert set(winners.values()) == {0, 1}
    for seed, w in winners.items():
        g = ThreeCushion(config={"lag_mode": "random"}, seed=seed)
        assert g.lag_winner == w and g.phase == "choose_breaker" and g.to_act == w
        s = msgpack.unpackb(msgpack.packb(g.to_state()))
        assert s["rng_n"] == 1 and ThreeCushion.from_state(s) == g
    # lag_each in a triathlon: every game draws from its own seeded stream, restored identically
    m = Triathlon(config={"lag_mode": "random", "multi_break_order": "lag_each"}, seed=7)
    m2 = Triathlon.from_state(msgpack.unpackb(msgpack.packb(m.to_state())))
    assert m2 == m and m2.game.lag_winner == m.game.lag_winner


# ----- the break (C5) and ties (K8) -------------------------------------------------------------

def test_starting_spot_choice():
    g = Libre(config={"breaker": 1})
    assert g.cue_ball(1) == W and g.layout() == BREAK_LAYOUT
    # the cue ball starts on the right spot: the left one is on offer (QA: both stayed on offer, and each click of
    # the spot already taken was another entry of the game's history)
    assert g.legal_actions()["decisions"] == [{"name": "STARTING_SPOT", "args": ["left"]}]
    _unchanged(g, lambda: g.apply_decision(1, "STARTING_SPOT", "right"), "bad_argument")
    r = g.apply_decision(1, "STARTING_SPOT", "left").to_dict()
    assert close(g.layout()[W], STL) and r["placed"] == {"0": list(STL)} and g.phase == "break"
    assert g.prepare_shot(1) == {RD: TOP, Y: BOT, W: STL}
    assert g.legal_actions()["decisions"] == [{"name": "STARTING_SPOT", "args": ["right"]}]
    _unchanged(g, lambda: g.apply_decision(1, "STARTING_SPOT", "left"), "bad_argument")
    g.apply_decision(1, "STARTING_SPOT", "right")  # the breaker may change their mind before the stroke
    assert g.layout() == BREAK_LAYOUT and g.legal_actions()["decisions"] == [{"name": "STARTING_SPOT", "args": ["left"]}]


@pytest.mark.parametrize("t_red,t_other,foul", [(0.3004, 0.3000, False), (0.3006, 0.3000, True), (0.3000, 0.3004, False)])
def test_break_simultaneous_contacts_count_red_first(t_red, t_other, foul):
    g = Libre(config={"breaker": 0})
    events = sorted([(t_red, "W>RD"), (t_other, "W>Y")])
    r = play(g, "; ".join(f"{s}@{t}" for t, s in events)).to_dict()
    assert (r["foul"] == "break_not_red_first") is foul


@pytest.mark.parametrize("dt,points", [(0.0004, 1), (0.0006, 0)])
def test_cushion_tied_with_the_second_ball_counts_before(dt, points):
    g = game_in_play(ThreeCushion, MID)
    r = play(g, f"W>RD@0.2; W|T@0.5; W|Lf@0.8; W>Y@1.2; W|R@{1.2 + dt:.4f}").to_dict()
    assert r["points"] == [points, 0]


def test_break_cushion_tied_with_the_red_counts_red_first():
    g = Libre(config={"breaker": 0})
    assert play(g, "W|R@0.2996; W>RD@0.3; W>Y@0.8").points == [1, 0]


# ----- the carom test (C6) -------------------------------------------------------------------

def test_second_object_ball_rolling_into_the_cue_ball_counts():
    g = game_in_play(OneCushion, MID)
    r = play(g, ["W|T", "W>RD", ("ball_ball", Y, W, {Y: (1.0, 0.9), "t": 1.0})], final={W: (1.2, 1.1), Y: (0.9, 0.9)})
    assert r.points == [1, 0]


def test_object_ball_cushions_do_not_count():
    g = game_in_play(OneCushion, MID)
    r = play(g, ["W>RD", ("ball_cushion", RD, "R", {RD: (1.6, R)}), "W>Y"])
    assert r.points == [0, 0] and r.extras["cushions"] == 0


def test_only_impacts_before_the_first_contact_with_the_second_ball_count():
    g = game_in_play(ThreeCushion, MID)  # Y touched before the third cushion, then again after it
    r = play(g, "W>RD; W|T; W|Lf; W>Y; W|R; W>Y")
    assert r.points == [0, 0] and r.extras["cushions"] == 2


def test_carom_stroke_facts():
    sim = carom_log(MID, "W|R@0.1; W>RD@0.2; W|T@0.3; W|Lf@0.4; W>Y@0.5; W|B@0.6", cue=W)
    st = CaromStroke(sim, W)
    assert st.first_contact == {RD: 0.2, Y: 0.5} and st.second_ball_time() == 0.5
    assert [c for _, c in st.impacts] == ["R", "T", "Lf", "B"] and st.cushions_before_second() == 3
    assert st.is_carom(3) and not st.red_first(True) and st.red_first(False)
    assert not st.played_into_touching and st.off_table == frozenset()


# ----- touching balls (C14, C15) and set-ups (C16) ---------------------------------------------

def _touching(cls, final, config=None):
    g = cls(config=dict(config or {}, breaker=0))
    play(g, "W>RD; W|T; W|Lf; W|R; W>Y", final=final)
    return g


TOUCH_RD = {W: (1.80, 0.40), RD: (1.8615, 0.40), Y: (0.50, 1.00)}


def test_play_on_into_the_touching_ball_is_a_foul():
    g = _touching(ThreeCushion, TOUCH_RD)
    r = g.apply_decision(0, "PLAY_ON").to_dict()
    assert g.phase == "play" and r["options"] == [] and g.layout()[W] == (1.80, 0.40)
    r = play(g, [("ball_ball", W, RD, {"t": 0.001}), "W|T; W|R; W|B; W>Y"]).to_dict()
    assert r["foul"] == "played_into_touching" and r["points"] == [0, 0] and r["next_player"] == 1


def test_play_on_masse_separating_first_counts_the_return():
    g = _touching(ThreeCushion, TOUCH_RD)
    g.apply_decision(0, "PLAY_ON")
    r = play(g, [("move", {W: (1.70, 0.40)}), "W|T; W|R; W|B", ("ball_ball", W, RD, {W: (1.8615 - 2 * R, 0.40)}), "W>Y"]).to_dict()
    assert r["foul"] is None and r["points"] == [1, 0] and r["cushions"] == 3


def test_play_on_away_from_the_touching_ball_and_cushion_game_set_up_of_both_touching_balls():
    g = _touching(OneCushion, TOUCH_RD)
    g.apply_decision(0, "PLAY_ON")
    assert play(g, "W>Y; W|T; W>RD").points == [1, 0]
    g = _touching(OneCushion, {W: (1.80, 0.40), RD: (1.8615, 0.40), Y: (1.80, 0.40 + 2 * R)})
    g.apply_decision(0, "SET_UP")
    lay = g.layout()
    assert close(lay[RD], TOP) and close(lay[W], BOT) and close(lay[Y], CEN)


def test_set_up_chain_of_covered_spots():
    # Y (the other ball) covers the bottom spot, RD near nothing: W -> Y's spot (centre)
    g = _touching(Balkline47_2, {W: (1.80, 0.40), RD: (1.8615, 0.40), Y: (0.7105, 0.71)})
    g.apply_decision(0, "SET_UP")  # balkline: all three are lifted, so nothing covers any spot
    lay = g.layout()
    assert close(lay[RD], TOP) and close(lay[W], BOT) and close(lay[Y], CEN)
    g = _touching(ThreeCushion, {W: (1.80, 0.40), RD: (1.8615, 0.40), Y: (0.7105, 0.71)})
    r = g.apply_decision(0, "SET_UP").to_dict()  # cushion game: Y stays and covers the bottom spot
    lay = g.layout()
    assert close(lay[RD], TOP) and close(lay[W], CEN) and close(lay[Y], (0.7105, 0.71))
    assert r["placed"] == {"2": list(TOP), "0": list(CEN)}


def test_balkline_set_up_recomputes_zones_71_2():
    g = _touching(Balkline71_2, TOUCH_RD)
    assert g.phase == "decision" and g.legal_actions()["decisions"] == [{"name": "PLAY_ON", "args": []},
                                                                         {"name": "SET_UP", "args": []}]
    g.apply_decision(0, "SET_UP")
    assert close(g.layout()[RD], TOP) and close(g.layout()[Y], CEN) and close(g.layout()[W], BOT)
    assert g.zones == {"X2Y1": IN, "X2Y2": IN} and g.announce() == ["entran"]


def test_libre_frozen_reset_opening_position():
    g = _touching(Libre, {W: (1.60, 0.90), Y: (1.60 + 2 * R, 0.90), RD: (0.50, 0.40)}, {"libre_frozen_reset": "opening_position"})
    assert g.phase == "break" and g.break_pending and g.to_act == 0
    lay = g.layout()
    assert close(lay[RD], TOP) and close(lay[Y], BOT) and close(lay[W], STR)
    assert play(g, "W>Y; W>RD").foul == "break_not_red_first"


# ----- off the table (C18) ----------------------------------------------------------------------

def test_off_table_cushion_game_fouler_ball_goes_to_the_centre_spot():
    g = game_in_play(ThreeCushion, MID)
    r = play(g, "W>RD; W|T; W|R; W|B; W^").to_dict()
    assert r["foul"] == "off_table" and r["next_player"] == 1
    lay = g.layout()
    assert close(lay[W], CEN) and close(lay[Y], MID[Y]) and close(lay[RD], MID[RD])


@pytest.mark.parametrize("cls", [Libre, Balkline47_2])
def test_off_table_libre_and_balkline_set_up_all_three(cls):
    g = game_in_play(cls, MID)
    r = play(g, "W>RD; W|T; W^").to_dict()
    assert r["foul"] == "off_table" and r["next_player"] == 1
    lay = g.layout()  # the incoming player (yellow) is the striker of C16
    assert close(lay[RD], TOP) and close(lay[Y], BOT) and close(lay[W], CEN)


# ----- zones, anchors, a caballo ------------------------------------------------------------

def test_71_2_break_is_entran_C12_example():
    g = Balkline71_2(config={"breaker": 0})
    assert g.zones == {"X2Y1": IN, "X2Y2": IN} and g.announce() == ["entran"]


def test_balkline_47_break_positions():
    g = Balkline47_1(config={"breaker": 0})
    assert g.zones == {"X2Y2": INSIDE} and g.announce() == ["dentro"]
    g = Balkline47_2(config={"breaker": 0})
    assert g.zones == {"X2Y2": IN}


def test_astride_and_anchor_announcements():
    zs = Balkline47_2(config={"breaker": 0}).zoneset
    # both balls in anchor A-R1 ([0.381, 0.559] x [0, 0.178]) on opposite sides of x = 0.47
    ra, rb = (0.44, 0.10), (0.50, 0.12)
    assert zs.inning_start(ra, rb) == {"A-R1": IN}
    assert zs.announce(zs.inning_start(ra, rb), ra, rb) == ["a caballo", "anchor entran"]
    # astride needs each ball within 2R of the line
    assert zs.announce({}, (0.40, 0.30), (0.60, 0.30)) == []
    assert zs.announce({}, (0.44, 0.30), (0.50, 0.30)) == ["a caballo"]
    # corner zones: one ball inside, one just outside the chalk line
    lz = Libre(config={"breaker": 0}).zoneset
    assert lz.astride((0.30, 0.12), (0.35, 0.17)) is True  # 56 mm inside and 9 mm beyond the chalk line
    assert lz.astride((0.10, 0.10), (0.35, 0.17)) is False  # the first ball is 156 mm from the line
    assert lz.astride((0.10, 0.10), (0.60, 0.60)) is False


def test_anchor_and_balk_space_states_are_independent():
    # both object balls in X1Y1 and in anchor A-B1 ([0, 0.178] x [0.381, 0.559])... A-B1 lies in X1Y1/X1Y2
    start = {RD: (0.10, 0.45), Y: (0.12, 0.40), W: (1.2, 0.8)}
    g = reach_inning(Balkline47_2, start)
    assert g.zones == {"X1Y1": IN, "A-B1": IN}
    play(g, "W>RD; W>Y", final={W: (1.2, 0.8)})
    assert g.zones == {"X1Y1": INSIDE, "A-B1": INSIDE}
    # RD driven out of the anchor (to x = 0.30) but not out of X1Y1: the balk space still needs a ball out
    r = play(g, ["W>RD", ("move", {RD: (0.30, 0.45)}), "W>Y"], final={RD: (0.30, 0.45), W: (1.2, 0.8)})
    assert r.foul == "zone" and r.extras["zone_foul"] == "X1Y1"


def test_anchors_off():
    g = Balkline47_2(config={"breaker": 0, "anchors": False})
    assert [z.name for z in g.zoneset.zones] == [f"X{i}Y{j}" for i in (1, 2, 3) for j in (1, 2, 3)]


def test_corner_zone_legs_variant():
    p = (0.40, 0.15)  # 0.40/0.71 + 0.15/0.315 = 1.04 with the default legs, 0.986 with (0.71, 0.355)
    assert Libre(config={"breaker": 0}).zoneset.containing(p) == []
    assert Libre(config={"breaker": 0, "corner_zone_legs": [0.71, 0.355]}).zoneset.containing(p) == ["BR"]


# ----- match formats -------------------------------------------------------------------------

def test_equalizing_inning_off():
    g = game_in_play(ThreeCushion, MID, config={"distance": 10, "equalizing_inning": False}, scores=(9, 3), innings=(5, 4))
    r = _stroke(g).to_dict()
    assert r["game_over"] is True and r["winner"] == 0 and g.result["innings"] == [5, 4]


def test_sets_best_of_five_alternate_breaks_and_colours():
    g = ThreeCushion(config={"breaker": 0, "sets": {"sets_to_win": 3, "set_distance": 1}})
    breakers = []
    for expected_winner in (0, 1, 0, 1, 0):
        breakers.append(g.to_act)
        assert g.phase == "break"
        r = _stroke(g).to_dict()  # the breaker makes the set's only point
        assert g.cue_ball(0) == W
    assert breakers == [0, 1, 0, 1, 0]
    assert r["game_over"] is True and r["winner"] == 0
    assert g.result["sets_won"] == [3, 2] and g.result["sets"] == [[1, 0], [0, 1], [1, 0], [0, 1], [1, 0]]
    assert g.result["set_innings"] == [[1, 0], [0, 1], [1, 0], [0, 1], [1, 0]]
    assert g.result["general_average"] == [1.0, 1.0] and g.result["best_set_average"] == [1.0, 1.0]
    assert g.result["points"] == [3, 2] and g.result["innings_total"] == [3, 2]
    assert r.get("rest_offered") is None


def test_set_equalizing_first_inning_only():
    cfg = {"breaker": 0, "sets": {"sets_to_win": 2, "set_distance": 2}, "set_equalizing": "first_inning_only"}
    g = ThreeCushion(config=cfg)
    _stroke(g)
    _stroke(g)  # P1 wins the set in his first inning: P2 gets an equalising inning
    assert g.equalizing and g.to_act == 1 and g.phase == "break" and g.sets_won == [0, 0]
    _stroke(g, scores=False)
    assert g.sets_won == [1, 0] and g.frame["index"] == 2
    # second set, P2 breaks and wins in his first inning; P1 equalises: the set is replayed
    _stroke(g)
    _stroke(g)
    assert g.equalizing and g.to_act == 0
    _stroke(g)
    _stroke(g)
    assert g.sets_won == [1, 0] and g.frames[-1]["winner"] is None and g.frame["index"] == 3
    # without the variant a set ends at once
    g = ThreeCushion(config=dict(cfg, set_equalizing="none"))
    _stroke(g)
    _stroke(g)
    assert g.sets_won == [1, 0] and not g.equalizing


def test_limit_last_inning_from_opening_position():
    cfg = {"distance": 40, "inning_limit": 20, "limit_last_inning": "from_opening_position"}
    g = game_in_play(ThreeCushion, MID, striker=0, config=cfg, scores=(20, 25), innings=(20, 19))
    _stroke(g, scores=False)
    assert g.last_inning and g.phase == "break" and g.to_act == 1 and not g.equalizing
    assert close(g.layout()[Y], STR) and close(g.layout()[W], BOT)
    g2 = game_in_play(ThreeCushion, MID, striker=0, config=dict(cfg, limit_last_inning="from_layout"), scores=(20, 25),
                      innings=(20, 19))
    _stroke(g2, scores=False)
    assert g2.phase == "play" and g2.to_act == 1 and not g2.last_inning


def test_tie_break_extra_inning_needs_a_decisive_round():
    g = game_in_play(ThreeCushion, MID, striker=1, config={"distance": 10, "inning_limit": 5, "draw_resolution": "extra_inning"},
                     scores=(7, 7), innings=(5, 5))
    _stroke(g, scores=False)
    assert g.tiebreak["round"] == 1 and g.to_act == 0 and g.phase == "break"
    _stroke(g, scores=False)
    _stroke(g, scores=False)
    assert g.tiebreak["round"] == 2 and g.tiebreak["rounds"] == [[0, 0]] and g.to_act == 0
    _stroke(g, scores=False)
    _stroke(g)
    _stroke(g)
    r = _stroke(g, scores=False).to_dict()
    assert r["game_over"] and r["winner"] == 1 and g.result["tiebreak"]["rounds"] == [[0, 0], [0, 2]]
    assert g.result["scores"] == [7, 7] and g.result["innings"] == [5, 5]


def test_statistics_C26():
    g = ThreeCushion(config={"breaker": 0, "distance": 50})
    for _ in range(3):
        _stroke(g)
    play(g, "W>RD; W|T; W^")  # foul: off the table
    _stroke(g)
    _stroke(g, scores=False)
    _stroke(g)
    sb = g.scoreboard()
    assert sb["scores"] == [4, 1] and sb["innings"] == [2, 1] and sb["high_run"] == [3, 1]
    assert sb["average"] == [2.0, 1.0] and sb["fouls"] == [{"off_table": 1}, {}] and sb["run"] == 1
    assert sb["striker"] == 0


def test_rest_offered_at_half_distance_after_fifteen_innings():
    g = game_in_play(ThreeCushion, MID, striker=1, config={"distance": 30}, scores=(15, 9), innings=(15, 15))
    r = _stroke(g, scores=False).to_dict()
    assert r["rest_offered"] is True
    r = _stroke(g, scores=False).to_dict()
    assert "rest_offered" not in r
    g = game_in_play(ThreeCushion, MID, striker=1, config={"distance": 30}, scores=(15, 9), innings=(14, 14))
    assert "rest_offered" not in _stroke(g, scores=False).to_dict()


def test_shot_clock_extension_and_timeout():
    g = game_in_play(ThreeCushion, MID, config={"shot_clock": {"limit_s": 30, "warn_s": 20, "timeouts": 1}})
    assert {"name": "EXTENSION", "args": []} in g.legal_actions()["decisions"]
    r = g.apply_decision(0, "EXTENSION").to_dict()
    assert r["extension"] is True and g.timeouts_left == [0, 1] and g.to_act == 0
    assert {"name": "EXTENSION", "args": []} not in g.legal_actions()["decisions"]
    _unchanged(g, lambda: g.apply_decision(0, "EXTENSION"), "no_such_decision")
    r = g.apply_timeout(0).to_dict()
    assert r["foul"] == "shot_clock" and r["next_player"] == 1 and g.layout() == MID
    _unchanged(g, lambda: g.apply_timeout(0), "not_your_turn")


def test_deliberate_foul_by_moderator_K_F9():
    g = game_in_play(ThreeCushion, MID, scores=(3, 1), innings=(2, 1), run=2)
    _unchanged(g, lambda: g.apply_serious_foul(0, penalty=5), "bad_arg")
    r = g.apply_serious_foul(1).to_dict()  # not the striker: recorded only
    assert r["foul"] == "deliberate" and g.to_act == 0 and g.scoreboard()["fouls"][1] == {"deliberate": 1}
    r = g.apply_serious_foul(0).to_dict()  # the striker: his inning ends, balls stay
    assert r["next_player"] == 1 and r["scores"] == [3, 1] and g.layout() == MID
    r = g.apply_serious_foul(0, loss_of_game=True).to_dict()
    assert r["game_over"] and r["winner"] == 1 and g.result["reason"] == "deliberate foul: loss of the game"
    m = Triathlon(config={"breaker": 0})
    r = m.apply_serious_foul(0, loss_of_game=True).to_dict()
    assert r["discipline_over"] and not m.over and m.game.discipline == "one_cushion"
    assert m.games[0]["winner"] == 1 and m.games[0]["match_points"] == [0, 2]


def test_forfeit():
    g = ThreeCushion(config={"breaker": 0})
    r = g.apply_forfeit(0, "resigned").to_dict()
    assert r["game_over"] and r["winner"] == 1 and g.result["reason"] == "forfeit: resigned" and g.to_act is None


# ----- multi-discipline matches (C23) ---------------------------------------------------------

def test_triathlon_order_lag_each_and_state_round_trip():
    m = Triathlon(config={"multi_break_order": "lag_each", "lag_mode": "random"}, seed=11)
    assert m.config["disciplines"] == ["balkline_47_2", "one_cushion", "three_cushion"]
    assert m.phase == "choose_breaker"
    w = m.to_act
    m.apply_decision(w, "CHOOSE_BREAKER", w)
    m.apply_forfeit(1 - w, "left")
    assert m.over and m.result["winner"] == w and m.result["reason"] == "forfeit: left"
    s = msgpack.unpackb(msgpack.packb(m.to_state()))
    assert Triathlon.from_state(s) == m


def _score(m):
    c = "W" if m.cue_ball(m.to_act) == W else "Y"
    o = "Y" if c == "W" else "W"
    return play(m, f"{c}>RD; {c}|T; {c}|Lf; {c}|R; {c}>{o}").to_dict()


def _miss(m):
    c = "W" if m.cue_ball(m.to_act) == W else "Y"
    return play(m, f"{c}>RD").to_dict()


ONES = {"balkline_47_2": 1, "one_cushion": 1, "three_cushion": 1}


def test_multi_match_points_decide():
    m = Triathlon(config={"breaker": 0, "distances": ONES})
    _score(m)
    r = _miss(m)  # game 1: seat 1 misses the equalising inning
    assert r["game_result"]["winner"] == 0 and m.game.discipline == "one_cushion" and m.game.white_seat == 1
    _score(m)
    r = _score(m)  # game 2: draw
    assert r["game_result"]["winner"] is None and m.game.white_seat == 0
    _score(m)
    r = _score(m)  # game 3: draw
    assert r["game_over"] and m.result["match_points"] == [4, 2] and m.result["winner"] == 0
    assert m.result["reason"] == "match points" and len(m.result["games"]) == 3


def test_multi_deciding_game_when_points_and_fractions_are_equal():
    m = Triathlon(config={"breaker": 0, "distances": ONES, "decider": {"discipline": "three_cushion", "distance": 1}})
    for _ in range(3):  # three drawn games
        _score(m)
        r = _score(m)
        assert r["game_result"]["winner"] is None
    assert not m.over and m.index == 3 and m.game.discipline == "three_cushion" and m.game.target == 1
    assert m.game.white_seat == 1  # alternation goes on: game 3 was broken by seat 0
    assert m.game.config["draw_resolution"] == "extra_inning"
    _score(m)
    r = _miss(m)
    assert r["game_over"] and m.result["winner"] == 1 and m.result["reason"] == "deciding game"
    assert m.result["match_points"] == [3, 3] and m.result["score_fractions"] == [3.0, 3.0]
    assert [g["decider"] for g in m.result["games"]] == [False, False, False, True]


def test_multi_without_decider_can_be_drawn():
    m = Triathlon(config={"breaker": 0, "distances": ONES, "decider": None})
    for _ in range(3):
        _score(m)
        _score(m)
    assert m.over and m.result["winner"] is None and m.result["draw"] is True


README_MEMBERS = ("discipline", "config", "table", "to_state", "from_state", "to_act", "phase", "layout", "legal_actions",
                  "prepare_shot", "apply_shot", "apply_lag", "apply_decision", "apply_timeout", "apply_forfeit",
                  "scoreboard", "over", "result")


@pytest.mark.parametrize("name", sorted(CAROM_GAMES) + ["pentathlon", "triathlon"])
def test_every_carom_game_has_the_readme_interface(name):
    g = new_game(name, {"breaker": 0})
    for member in README_MEMBERS:
        assert hasattr(g, member), member
    assert g.phase == "break" and g.to_act == 0 and g.over is False and g.result is None
    assert g.layout() == BREAK_LAYOUT and g.prepare_shot(0) == BREAK_LAYOUT
    la = g.legal_actions()
    assert la["player"] == 0 and la["shoot"]["cue_ball"] == W and la["shoot"]["call"] == "none"
    sb = g.scoreboard()
    assert msgpack.unpackb(msgpack.packb(sb)) == sb  # plain msgpack types only
    zones = g.table_zones()
    expected = {"libre": 4, "balkline_47_2": 17, "balkline_47_1": 17, "balkline_71_2": 12, "pentathlon": 4,
                "triathlon": 17}.get(name, 0)
    assert len(zones) == expected



# ----- K-F5: the physics' stroke flags (push, double hit) ----------------------------------
def _straight_into_red(gap):
    """White ``gap`` m behind red on the long axis, yellow far away; a level 2 m/s centre-ball stroke at red."""
    from physics import Shot, simulate

    red = (1.40, 0.70)
    layout = {W: (red[0] - 2 * R - gap, red[1]), Y: (0.40, 1.10), RD: red}
    g = game_in_play(ThreeCushion, layout)
    sim = simulate(g.table, g.prepare_shot(0, None, None), Shot(cue_ball=W, phi_deg=0.0, V0=2.0))
    return g, sim


def test_double_hit_and_push_from_the_physics_are_K_F5_fouls():
    g, sim = _straight_into_red(0.001)  # 1 mm: the cue catches the cue ball again after it meets red
    assert sim.flags[:1] == ("double_hit",)
    r = g.apply_shot(0, None, sim).to_dict()
    assert r["fouls"][-len(sim.flags):] == list(sim.flags) and r["foul"] == "double_hit"
    assert r["points"] == [0, 0] and r["next_player"] == 1
    assert g.to_state()["frame"]["scores"] == [0, 0]
    assert "double hit" in r["text"]
    g, sim = _straight_into_red(0.20)  # 20 cm: the cue has stopped long before
    assert sim.flags == ()
    r = g.apply_shot(0, None, sim).to_dict()
    assert "double_hit" not in r["fouls"] and "push" not in r["fouls"]


@pytest.mark.parametrize("discipline", ["straight_pool", "three_cushion", "pentathlon"])
def test_the_shot_clock_applies_only_where_a_time_out_is_ruled(discipline):
    """No clock while the lag winner chooses the breaker (no referee rules a time-out there); the
    breaker's clock applies once the choice is made (14.1 R12 F9, carom C24)."""
    clock = {"limit_s": 30, "extensions": 0} if discipline == "straight_pool" else {"limit_s": 40, "warn_s": 30}
    g = new_game(discipline, {"lag_mode": "random", "shot_clock": clock}, 3)
    chooser = g.to_act
    assert [d["name"] for d in g.legal_actions()["decisions"]] == ["CHOOSE_BREAKER"] and not g.clock_applies()
    with pytest.raises(IllegalAction):
        g.apply_timeout(chooser)
    g.apply_decision(chooser, "CHOOSE_BREAKER", chooser)
    assert g.phase == "break" and g.to_act == chooser and g.clock_applies()
    r = g.apply_timeout(chooser)
    assert r.foul == "shot_clock"


def test_a_shot_clock_limit_alone_warns_at_two_thirds_of_it():
    """C24 with only ``limit_s``: the warning defaults to two thirds of the limit (UMB's 20 s of 30), so
    any limit in the allowed range is accepted; a warning given at or past the limit is refused."""
    assert carom_config("three_cushion", {"shot_clock": {"limit_s": 15}}, TABLE)["shot_clock"] == {
        "limit_s": 15.0, "warn_s": 10.0, "timeouts": 2}
    assert carom_config("three_cushion", {"shot_clock": {"limit_s": 30}}, TABLE)["shot_clock"]["warn_s"] == 20.0
    with pytest.raises(ValueError, match=r"warn_s \(15 s\) must be below limit_s \(15 s\)"):
        carom_config("three_cushion", {"shot_clock": {"limit_s": 15, "warn_s": 15}}, TABLE)
