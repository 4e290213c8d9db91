"""The carom cases K01-K26 of shared/cases/rules.md, one test each, with the values the cases give."""

from __future__ import annotations

import math

import pytest

from carom_helpers import BREAK_LAYOUT, SPOTS, TABLE, R, carom_log, play
from logs import stroke_log
from rules.base import IllegalAction
from rules.carom_disciplines import Balkline47_1, Balkline47_2, Libre, OneCushion, ThreeCushion
from rules.multi import Pentathlon
from rules.zones import IN, INSIDE

W, Y, RD = 0, 1, 2
TOP, CEN, BOT, STL, STR = SPOTS["top"], SPOTS["cen"], SPOTS["bot"], SPOTS["stL"], SPOTS["stR"]
MID = {W: (0.50, 0.50), Y: (2.00, 1.00), RD: (1.50, 0.30)}  # an ordinary mid-game layout


def close(p, q, tol=1e-9):
    return math.hypot(p[0] - q[0], p[1] - q[1]) <= tol


def game_in_play(cls, layout, striker=0, config=None, scores=(0, 0), innings=(1, 0), run=0):
    """A game in the middle of ``striker``'s inning with ``layout`` (the white_seat is seat 0)."""
    g = cls(config=dict(config or {}, breaker=0))
    s = g.to_state()
    s["layout"] = {str(b): list(p) for b, p in layout.items()}
    s["phase"] = "play"
    s["break_pending"] = False
    s["striker"] = striker
    s["run"] = run
    s["frame"]["scores"] = list(scores)
    s["frame"]["innings"] = list(innings)
    for seat in (0, 1):
        s["stats"][seat]["points"] = scores[seat]
        s["stats"][seat]["innings"] = innings[seat]
    return cls.from_state(s)


def reach_inning(cls, layout, config=None):
    """Play into P1's (white, seat 0) second inning through two misses; the second leaves ``layout``."""
    g = cls(config=dict(config or {}, breaker=0))
    r = play(g, "W>RD", final={W: (1.0, 0.3)})  # the break: red first, no carom
    assert r.points == [0, 0] and r.foul is None and g.to_act == 1
    r = play(g, "Y>RD", final=layout)
    assert r.points == [0, 0] and r.foul is None and g.to_act == 0
    assert g.scoreboard()["inning"] == 2
    return g


# ----- lag, break ----------------------------------------------------------------------------

def lag_sim(game, steps, final):
    return stroke_log(TABLE, game.lag_layout(), [("strike", 0), ("strike", 1, {"t": 0.0})] + steps, final=final)


def test_K01_lag_with_the_red_touched():
    g = ThreeCushion()
    assert g.phase == "lag" and g.to_act is None
    lay = g.lag_layout()
    assert close(lay[1], (0.71, 1.12)) and close(lay[0], (0.71, 0.30)) and close(lay[RD], TOP)
    # A = seat 1 (yellow from the left), B = seat 0 (white from the right)
    sim = lag_sim(g, [
        ("ball_cushion", 1, "T", {1: (TABLE.length - R, 1.0), "t": 1.0}),
        ("ball_cushion", 0, "T", {0: (TABLE.length - R, 0.35), "t": 1.05}),
        ("ball_ball", 1, RD, {1: (TOP[0] - 2 * R, TOP[1] + 0.01), "t": 1.4}),
    ], final={1: (R + 0.04, 1.0), 0: (R + 0.15, 0.35)})
    r = g.apply_lag(sim).to_dict()
    assert r["lag"]["winner"] == 0
    assert r["lag"]["distances"][1] == pytest.approx(0.04) and r["lag"]["distances"][0] == pytest.approx(0.15)
    assert "touched the red" in r["lag"]["faults"][1]
    assert g.phase == "choose_breaker" and g.to_act == 0 and r["options"] == ["CHOOSE_BREAKER"]
    with pytest.raises(IllegalAction):
        g.apply_decision(1, "CHOOSE_BREAKER", 1)
    # B takes the break: B is P1 and plays white for the whole match, A plays yellow
    r = g.apply_decision(0, "CHOOSE_BREAKER", 0).to_dict()
    assert g.white_seat == 0 and g.cue_ball(0) == W and g.cue_ball(1) == Y
    assert g.phase == "break" and g.to_act == 0
    # ... or B gives the break to A: then A plays white
    g2 = ThreeCushion()
    g2.apply_lag(lag_sim(g2, [
        ("ball_cushion", 1, "T", {1: (TABLE.length - R, 1.0), "t": 1.0}),
        ("ball_cushion", 0, "T", {0: (TABLE.length - R, 0.35), "t": 1.05}),
        ("ball_ball", 1, RD, {1: (TOP[0] - 2 * R, TOP[1] + 0.01), "t": 1.4}),
    ], final={1: (R + 0.04, 1.0), 0: (R + 0.15, 0.35)}))
    g2.apply_decision(0, "CHOOSE_BREAKER", 1)
    assert g2.white_seat == 1 and g2.cue_ball(1) == W and g2.cue_ball(0) == Y


def test_K02_libre_break():
    g = Libre(config={"breaker": 0})
    assert g.layout() == BREAK_LAYOUT
    r = play(g, "W>RD; W|T; W>Y").to_dict()
    assert r["points"] == [1, 0] and r["scores"] == [1, 0] and r["foul"] is None
    assert r["next_player"] == 0 and g.phase == "play"


def test_K03_break_hitting_the_wrong_ball_first():
    g = Libre(config={"breaker": 0})
    r = play(g, "W>Y; W>RD", final={W: (1.0, 0.3)}).to_dict()
    assert r["foul"] == "break_not_red_first" and r["points"] == [0, 0] and r["scores"] == [0, 0]
    assert r["next_player"] == 1 and g.striker == 1 and g.phase == "play"
    lay = g.layout()  # P2 plays from the layout: the balls stayed
    assert close(lay[W], (1.0, 0.3)) and close(lay[Y], BOT) and close(lay[RD], TOP)


@pytest.mark.parametrize("mode,points", [("direct", 0), ("first_ball", 1)])
def test_K04_break_with_a_cushion_before_the_red(mode, points):
    g = Libre(config={"breaker": 0, "break_red_first": mode})
    r = play(g, "W|R; W>RD; W>Y").to_dict()
    assert r["points"] == [points, 0]
    if mode == "direct":
        assert r["foul"] == "break_not_red_first" and r["next_player"] == 1
    else:
        assert r["foul"] is None and r["next_player"] == 0


def test_K05_three_cushion_break_valid():
    g = ThreeCushion(config={"breaker": 0})
    r = play(g, "W>RD@0.30; W|T@0.80; W|Lf@1.20; W|R@1.90; W>Y@2.60").to_dict()
    assert r["cushions"] == 3 and r["points"] == [1, 0] and r["next_player"] == 0


# ----- the carom test ------------------------------------------------------------------------

def test_K06_three_cushion_two_cushions():
    g = game_in_play(ThreeCushion, MID)
    r = play(g, "W>RD; W|T; W|Lf; W>Y").to_dict()
    assert r["points"] == [0, 0] and r["foul"] is None and r["carom"] is False and r["cushions"] == 2
    assert r["next_player"] == 1
    assert close(g.layout()[Y], MID[Y]) and close(g.layout()[RD], MID[RD])  # balls stay


def test_K07_three_cushion_cushions_first():
    g = game_in_play(ThreeCushion, MID)
    r = play(g, "W|R; W|T; W|Lf; W>RD; W>Y").to_dict()
    assert r["points"] == [1, 0] and r["cushions"] == 3 and r["next_player"] == 0


def test_K08_three_cushion_third_cushion_after_the_second_ball():
    g = game_in_play(ThreeCushion, MID)
    r = play(g, "W>RD; W|Lf; W|T; W>Y; W|R").to_dict()
    assert r["points"] == [0, 0] and r["cushions"] == 2 and r["next_player"] == 1


def test_K09_three_cushion_the_same_cushion_twice():
    g = game_in_play(ThreeCushion, MID)
    r = play(g, "W>RD@0.20; W|Lf@0.55; W~Lf@0.70; W>RD@0.90; W|Lf@1.40; W|T@1.90; W>Y@2.50").to_dict()
    assert r["cushions"] == 3 and r["points"] == [1, 0]
    # the contrast: two Lf events without separating from Lf (rolling along it) are one impact
    # (the log's balls jump between events, so W arrives at Lf by a move just before the impact)
    g = game_in_play(ThreeCushion, MID)
    lf_y = TABLE.width - R
    r = play(g, [("ball_ball", W, RD, {W: (1.5 - 2 * R, 0.30), "t": 0.2}),
                 ("move", {W: (1.2, lf_y), "t": 0.549}),
                 ("ball_cushion", W, "Lf", {W: (1.2, lf_y), "t": 0.55}),
                 ("ball_cushion", W, "Lf", {W: (1.6, lf_y - 0.0003), "t": 1.0}),
                 ("ball_cushion", W, "T", {W: (TABLE.length - R, 1.2), "t": 1.9}),
                 ("ball_ball", W, Y, {W: (2.0 + 2 * R, 1.0), "t": 2.5})], final={W: (2.3, 0.9)}).to_dict()
    assert r["cushions"] == 2 and r["points"] == [0, 0]


def test_K10_one_cushion():
    g = game_in_play(OneCushion, MID)
    r = play(g, "W>RD; W>Y; W|T").to_dict()
    assert r["points"] == [0, 0] and r["cushions"] == 0 and r["next_player"] == 1
    g = game_in_play(OneCushion, MID)
    r = play(g, "W|T; W>RD; W>Y").to_dict()
    assert r["points"] == [1, 0] and r["cushions"] == 1 and r["next_player"] == 0


# ----- fouls ---------------------------------------------------------------------------------

def test_K11_ball_off_the_table_after_a_valid_three_cushion_carom():
    g = game_in_play(ThreeCushion, MID)
    r = play(g, "W>RD; W|T; W|R; W|B; W>Y; RD^", final={W: (0.9, 1.2)}).to_dict()
    assert r["foul"] == "off_table" and r["carom"] is True and r["points"] == [0, 0]
    assert r["next_player"] == 1 and g.striker == 1
    assert r["placed"] == {"2": list(TOP)}
    lay = g.layout()
    assert close(lay[RD], TOP) and close(lay[W], (0.9, 1.2)) and close(lay[Y], MID[Y])


FROZEN_LF = {W: (1.20, 1.38925), Y: (2.30, 0.40), RD: (0.60, 0.50)}


def test_K12_cue_ball_frozen_to_a_cushion_played_away():
    assert abs(TABLE.width - R - FROZEN_LF[W][1]) < 1e-12  # W touches Lf
    g = game_in_play(ThreeCushion, FROZEN_LF)
    assert g.scoreboard()["frozen"] == [[W, "Lf"]]
    r = play(g, "W>RD; W|T; W|R; W|B; W>Y").to_dict()
    assert r["cushions"] == 3 and r["points"] == [1, 0] and r["foul"] is None


def test_K13_cue_ball_frozen_to_a_cushion_played_into_it():
    g = game_in_play(ThreeCushion, FROZEN_LF)
    r = play(g, "W|Lf@0.001; W>RD; W|T; W|R; W>Y").to_dict()
    assert r["foul"] == "played_into_touching" and r["points"] == [0, 0] and r["next_player"] == 1
    assert close(g.layout()[Y], FROZEN_LF[Y]) and close(g.layout()[RD], FROZEN_LF[RD])  # balls stay


# ----- touching balls and set-ups -------------------------------------------------------------

def _leave_touching(cls, final, config=None):
    """P1 scores a break and his cue ball comes to rest at ``final``; returns (game, ruling)."""
    g = cls(config=dict(config or {}, breaker=0))
    r = play(g, "W>RD; W|T; W|Lf; W|R; W>Y", final=final)
    assert r.points == [1, 0]
    return g, r


def test_K14_cue_ball_frozen_to_the_red_set_up_requested():
    g, r = _leave_touching(ThreeCushion, {W: (1.80, 0.40), RD: (1.8615, 0.40), Y: (0.50, 1.00)})
    assert g.phase == "decision" and g.to_act == 0
    assert [d["name"] for d in g.legal_actions()["decisions"]] == ["PLAY_ON", "SET_UP"]
    assert r.to_dict()["options"] == ["PLAY_ON", "SET_UP"]
    assert g.scoreboard()["frozen"] == [[W, RD]]  # K6: published before the stroke
    r = g.apply_decision(0, "SET_UP").to_dict()
    lay = g.layout()
    assert close(lay[RD], TOP) and close(lay[W], BOT) and close(lay[Y], (0.50, 1.00))
    assert r["placed"] == {"2": list(TOP), "0": list(BOT)}
    assert g.phase == "play" and g.break_pending is False
    # an ordinary stroke: Y first is no foul
    r = play(g, "W>Y; W|T; W|R; W|B; W>RD").to_dict()
    assert r["points"] == [1, 0] and r["foul"] is None


def test_K15_set_up_with_an_occupied_spot():
    g, _ = _leave_touching(ThreeCushion, {W: (1.80, 0.40), RD: (1.8615, 0.40), Y: TOP})
    g.apply_decision(0, "SET_UP")
    lay = g.layout()
    assert close(lay[RD], CEN) and close(lay[W], BOT) and close(lay[Y], TOP)


def test_K16_libre_cue_ball_touching_a_ball():
    g, r = _leave_touching(Libre, {W: (1.60, 0.90), Y: (1.60 + 2 * R, 0.90), RD: (0.50, 0.40)})
    d = r.to_dict()
    assert g.phase == "play" and g.legal_actions()["decisions"] == [] and d["options"] == []
    lay = g.layout()
    assert close(lay[RD], TOP) and close(lay[W], BOT) and close(lay[Y], CEN)
    assert d["placed"] == {"2": list(TOP), "0": list(BOT), "1": list(CEN)}


# ----- zones ---------------------------------------------------------------------------------

K17_START = {RD: (1.72, 0.76), Y: (1.52, 0.61), W: (1.02, 0.71)}


def _k17_after_stroke_1():
    g = reach_inning(Balkline47_2, K17_START)
    assert g.zones == {"X2Y2": IN} and g.announce() == ["entran"]
    r = play(g, "W>RD; W>Y", final={RD: (1.77, 0.79), Y: (1.47, 0.59), W: (1.10, 0.70)}).to_dict()
    assert r["points"] == [1, 0] and g.zones == {"X2Y2": INSIDE} and r["announce"] == ["dentro"]
    return g


def test_K17_balkline_47_2_a_correct_sequence():
    g = _k17_after_stroke_1()
    r = play(g, ["W>RD", ("move", {RD: (2.55, 0.77)}), "W>Y"], final={RD: (2.52, 0.76), Y: (1.42, 0.61), W: (1.0, 0.4)}).to_dict()
    assert r["points"] == [1, 0] and r["foul"] is None and g.zones == {}
    r = play(g, "W>RD; W>Y", final={Y: (2.47, 0.61), RD: (2.50, 0.77), W: (1.5, 0.3)}).to_dict()
    assert r["points"] == [1, 0] and g.zones == {"X3Y2": IN}
    assert g.scoreboard()["scores"] == [3, 0] and g.run == 3


@pytest.mark.parametrize("max_x,zone_foul", [(2.365, True), (2.3704, True), (2.3706, False)])
def test_K18_balkline_47_2_zone_foul(max_x, zone_foul):
    g = _k17_after_stroke_1()
    r = play(g, ["W>RD", ("move", {RD: (max_x, 0.80)}), "W>Y"], final={RD: (2.30, 0.80), Y: (1.50, 0.62), W: (1.10, 0.70)}).to_dict()
    if not zone_foul:
        assert r["points"] == [1, 0] and g.zones == {"X2Y2": IN}
        return
    assert r["foul"] == "zone" and r["zone_foul"] == "X2Y2" and r["carom"] is True and r["points"] == [0, 0]
    assert r["next_player"] == 1 and g.striker == 1
    lay = g.layout()
    assert close(lay[RD], (2.30, 0.80)) and close(lay[W], (1.10, 0.70)) and close(lay[Y], (1.50, 0.62))
    assert g.zones == {"X2Y2": IN} and g.announce() == ["entran"]  # P2's object balls RD and W
    assert g.scoreboard()["zone_fouls"] == [1, 0]


K19_START = {RD: (1.57, 0.71), Y: (1.37, 1.10), W: (0.80, 0.60)}


@pytest.mark.parametrize("cls", [Balkline47_1, Balkline47_2])
def test_K19_balkline_47_1_dentro_on_arrival(cls):
    g = reach_inning(cls, K19_START)
    assert g.zones == {}
    r = play(g, "W>RD; W>Y", final={RD: (1.52, 1.01), W: (0.9, 0.5)}).to_dict()
    assert r["points"] == [1, 0]
    assert g.zones == {"X2Y3": INSIDE if cls is Balkline47_1 else IN}
    r = play(g, "W>RD; W>Y", final={RD: (1.60, 1.05), Y: (1.30, 1.12), W: (1.0, 0.5)}).to_dict()
    if cls is Balkline47_1:
        assert r["foul"] == "zone" and r["zone_foul"] == "X2Y3" and r["points"] == [0, 0] and r["next_player"] == 1
    else:
        assert r["foul"] is None and r["points"] == [1, 0] and g.zones == {"X2Y3": INSIDE}


def test_K20_libre_corner_zone():
    zs = Libre(config={"breaker": 0}).zoneset
    tl = zs.zone("TL")
    value = lambda p: (2.84 - p[0]) / 0.71 + (1.42 - p[1]) / 0.315  # the case's test values
    assert value((2.72, 1.31)) == pytest.approx(0.518, abs=5e-4) and value((2.52, 1.36)) == pytest.approx(0.641, abs=5e-4)
    assert value((2.37, 1.27)) == pytest.approx(1.138, abs=5e-4) and tl.outside_by((2.37, 1.27)) == pytest.approx(0.040, abs=5e-4)
    g = reach_inning(Libre, {RD: (2.72, 1.31), Y: (2.52, 1.36), W: (2.0, 0.8)})
    assert g.zones == {"TL": IN}
    r = play(g, "W>RD; W>Y", final={RD: (2.70, 1.33), Y: (2.57, 1.37), W: (2.0, 0.8)}).to_dict()
    assert r["points"] == [1, 0] and g.zones == {"TL": INSIDE}
    r = play(g, ["W>RD", "W>Y", ("move", {Y: (2.37, 1.27)})], final={Y: (2.54, 1.36), W: (2.0, 0.8)}).to_dict()
    assert r["points"] == [1, 0] and g.zones == {"TL": IN}
    r = play(g, "W>RD; W>Y", final={W: (2.0, 0.8)}).to_dict()
    assert r["points"] == [1, 0] and g.zones == {"TL": INSIDE}
    r = play(g, "W>RD; W>Y", final={W: (2.0, 0.8)}).to_dict()
    assert r["foul"] == "zone" and r["zone_foul"] == "TL" and r["points"] == [0, 0] and r["next_player"] == 1
    assert g.scoreboard()["scores"] == [3, 0]


# ----- end of the game -----------------------------------------------------------------------

MISS = "W>RD"
CAROM3 = "W>RD; W|T; W|Lf; W|R; W>Y"


def _stroke(g, hit_first=RD, scores=True, final=None):
    """A three-cushion stroke of the seat to act: a carom (or a miss), cue ball resting clear of the others."""
    cue = g.cue_ball(g.to_act)
    names = {0: "W", 1: "Y", 2: "RD"}
    others = [b for b in (0, 1, 2) if b != cue]
    first = hit_first if hit_first in others else others[0]
    second = [b for b in others if b != first][0]
    c = names[cue]
    script = f"{c}>{names[first]}; {c}|T; {c}|Lf; {c}|R" + (f"; {c}>{names[second]}" if scores else "")
    return play(g, script, final=final)


def _k21_game(config=None, p2_points=34):
    cfg = {"distance": 40}
    cfg.update(config or {})
    g = game_in_play(ThreeCushion, MID, striker=0, config=cfg, scores=(39, p2_points), innings=(30, 29), run=3)
    r = _stroke(g).to_dict()
    assert r["scores"] == [40, p2_points]
    return g, r


def test_K21_equalising_inning_not_reached():
    g, r = _k21_game()
    assert r["game_over"] is False and g.equalizing is True and g.phase == "break" and g.to_act == 1
    lay = g.layout()
    assert close(lay[RD], TOP) and close(lay[W], BOT) and close(lay[Y], STR)
    assert g.scoreboard()["innings"] == [30, 30]
    g.apply_decision(1, "STARTING_SPOT", "left")
    assert close(g.layout()[Y], STL)
    for _ in range(4):
        assert _stroke(g).points == [0, 1]
    r = _stroke(g, scores=False).to_dict()
    assert r["game_over"] is True and r["winner"] == 0 and g.over
    res = g.result
    assert res["scores"] == [40, 38] and res["innings"] == [30, 30]
    assert res["averages"] == [1.333, 1.267]


def test_K21_equalising_inning_first_stroke_must_attack_the_red():
    g, _ = _k21_game()
    r = _stroke(g, hit_first=W).to_dict()  # Y hits the white first: K-F10
    assert r["foul"] == "break_not_red_first" and r["points"] == [0, 0] and r["winner"] == 0
    assert g.result["scores"] == [40, 34]


@pytest.mark.parametrize("resolution", ["draw", "extra_inning", "penalty_shootout"])
def test_K22_equalising_inning_ending_in_a_draw(resolution):
    g, _ = _k21_game({"draw_resolution": resolution})
    for k in range(6):
        r = _stroke(g).to_dict()
    assert r["scores"] == [40, 40]
    assert g.scoreboard()["innings"] == [30, 30]
    if resolution == "draw":
        assert r["game_over"] is True and r["winner"] is None and g.result["draw"] is True
        assert g.result["scores"] == [40, 40] and g.result["innings"] == [30, 30]
        return
    # tie-break (draw_resolution): rounds from the opening position, the starter first
    assert not g.over and g.tiebreak["mode"] == resolution and g.to_act == 0 and g.phase == "break"
    r = _stroke(g).to_dict()  # P1 scores
    if resolution == "extra_inning":
        assert g.to_act == 0  # his inning goes on
        _stroke(g, scores=False)
    assert g.to_act == 1 and g.phase == "break"
    r = _stroke(g, scores=False).to_dict()
    assert r["game_over"] is True and r["winner"] == 0 and g.result["tiebreak"]["rounds"] == [[1, 0]]
    assert g.result["scores"] == [40, 40]


def test_K23_second_player_reaches_the_distance_first():
    g = game_in_play(ThreeCushion, MID, striker=1, config={"distance": 40}, scores=(35, 39), innings=(28, 28))
    r = _stroke(g).to_dict()
    assert r["game_over"] is True and r["winner"] == 1 and g.result["scores"] == [35, 40]
    assert g.result["innings"] == [28, 28] and g.to_act is None


def test_K24_sets_no_equalising_inning():
    g = game_in_play(ThreeCushion, MID, striker=0, config={"sets": {"sets_to_win": 2, "set_distance": 15}},
                     scores=(14, 12), innings=(9, 8))
    r = _stroke(g).to_dict()
    assert r["game_over"] is False and r["sets_won"] == [1, 0] and r["set"] == 2
    assert g.frames[0]["scores"] == [15, 12] and g.frames[0]["innings"] == [9, 8] and g.frames[0]["winner"] == 0
    assert g.phase == "break" and g.to_act == 1 and g.cue_ball(1) == Y  # P2 breaks set 2 with the yellow
    lay = g.layout()
    assert close(lay[Y], STR) and close(lay[W], BOT) and close(lay[RD], TOP)
    assert g.scoreboard()["scores"] == [0, 0] and g.scoreboard()["innings"] == [0, 1]


@pytest.mark.parametrize("p1,p2,winner", [(33, 30, 0), (33, 33, None)])
def test_K25_inning_limit(p1, p2, winner):
    g = game_in_play(ThreeCushion, MID, striker=1, config={"distance": 40, "inning_limit": 50},
                     scores=(p1, p2), innings=(50, 50))
    r = _stroke(g, scores=False).to_dict()
    assert r["game_over"] is True and r["winner"] == winner and g.result["scores"] == [p1, p2]
    assert g.result["reason"] == "inning limit"


def test_K25_inning_limit_distance_reached_in_the_last_inning():
    g = game_in_play(ThreeCushion, MID, striker=0, config={"distance": 40, "inning_limit": 50},
                     scores=(39, 30), innings=(50, 49))
    _stroke(g)
    assert g.equalizing is True and g.phase == "break" and g.to_act == 1
    assert close(g.layout()[RD], TOP) and close(g.layout()[W], BOT) and g.scoreboard()["innings"] == [50, 50]


def test_K26_pentathlon_order():
    m = Pentathlon(config={"distances": {"libre": 1, "balkline_47_1": 1, "one_cushion": 2, "balkline_71_2": 1,
                                         "three_cushion": 1}})
    # P1 (seat 0) wins the lag and breaks game 1
    sim = stroke_log(TABLE, m.game.lag_layout(), [
        ("strike", 0), ("strike", 1, {"t": 0.0}),
        ("ball_cushion", 0, "T", {0: (TABLE.length - R, 0.3), "t": 1.0}),
        ("ball_cushion", 1, "T", {1: (TABLE.length - R, 1.1), "t": 1.0}),
    ], final={0: (R + 0.05, 0.3), 1: (R + 0.20, 1.1)})
    assert m.apply_lag(sim).to_dict()["lag"]["winner"] == 0
    m.apply_decision(0, "CHOOSE_BREAKER", 0)
    order, breakers = [], []

    def carom(m, move_red=False):
        cue = m.cue_ball(m.to_act)
        c = "W" if cue == W else "Y"
        o = "Y" if cue == W else "W"
        steps = [f"{c}>RD"] + ([("move", {RD: (2.60, 0.25)})] if move_red else []) + [f"{c}|T; {c}|Lf; {c}|R; {c}>{o}"]
        return play(m, steps)

    # game 1 libre: seat 0 scores, seat 1 misses the equalising inning -> seat 0 wins
    order.append(m.game.discipline); breakers.append(m.game.white_seat)
    assert m.game.target == 1 and m.game.zoneset.names() == ["BR", "BL", "TR", "TL"]
    carom(m)
    r = play(m, "Y>RD").to_dict()
    assert r["game_result"]["winner"] == 0 and r["game_result"]["match_points"] == [2, 0]
    # game 2 balkline 47/1: broken by P2 (seat 1), who plays white in it; a draw
    order.append(m.game.discipline); breakers.append(m.game.white_seat)
    assert m.to_act == 1 and m.cue_ball(1) == W and m.cue_ball(0) == Y
    assert "A-R1" in m.game.zoneset.names() and m.game.zones == {"X2Y2": INSIDE}  # dentro at the break in 47/1
    carom(m, move_red=True)
    r = carom(m, move_red=True).to_dict()
    assert r["game_result"]["winner"] is None and r["game_result"]["match_points"] == [1, 1]
    # game 3 one-cushion to 2: seat 0 breaks, scores 1 and misses; seat 1 reaches 2 first -> seat 1 wins 1-2
    order.append(m.game.discipline); breakers.append(m.game.white_seat)
    assert m.game.zoneset is None and m.game.target == 2
    carom(m)
    play(m, "W>RD")
    carom(m)
    r = carom(m).to_dict()
    assert r["game_result"]["winner"] == 1 and r["game_result"]["scores"] == [1, 2]
    assert r["game_result"]["match_points"] == [0, 2]
    # game 4 balkline 71/2 and game 5 three-cushion: the breaker wins each
    for expect_breaker in (1, 0):
        order.append(m.game.discipline); breakers.append(m.game.white_seat)
        assert m.game.white_seat == expect_breaker
        carom(m, move_red=True)
        r = play(m, ("Y" if m.cue_ball(m.to_act) == Y else "W") + ">RD").to_dict()
    assert order == ["libre", "balkline_47_1", "one_cushion", "balkline_71_2", "three_cushion"]
    assert breakers == [0, 1, 0, 1, 0]
    assert r["game_over"] is True and m.over
    assert m.result["match_points"] == [2 + 1 + 0 + 0 + 2, 0 + 1 + 2 + 2 + 0] == [5, 5]
    # equal match points: the sum of score / distance decides: 1 + 1 + 1/2 + 0 + 1 against 0 + 1 + 1 + 1 + 0
    assert m.result["score_fractions"] == [3.5, 3.0] and m.result["winner"] == 0
    assert m.result["reason"] == "sum of score / distance"


def test_K26_pentathlon_default_distances_and_zones():
    m = Pentathlon(config={"breaker": 0})
    assert m.config["disciplines"] == ["libre", "balkline_47_1", "one_cushion", "balkline_71_2", "three_cushion"]
    assert m.config["distances"] == {"libre": 100, "balkline_47_1": 80, "one_cushion": 50, "balkline_71_2": 100,
                                     "three_cushion": 30}
    assert m.game.discipline == "libre" and m.game.target == 100
