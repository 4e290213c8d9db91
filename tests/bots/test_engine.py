"""The shot-selection engine on placed positions: what it calls, where it places, what the referee rules."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from bots.engine import Player
from bots.levels import LEVELS, execute, get_level
from bots.pool import lag_speed
from physics import Shot, simulate
from rules.registry import new_game
from rules.spotting import behind_head_string

from bots_helpers import pool_at

FR = (2.5036868, 0.0363132)  # aim point of the foot-right corner pocket on the 9-ft table


def play(game, act, seat=None):
    seat = game.to_act if seat is None else seat
    layout = game.prepare_shot(seat, act.call, act.cue_ball)
    sim = simulate(game.table, layout, act.shot)
    return game.apply_shot(seat, act.call, sim).to_dict()


def on_line(p, q, d):
    """The point ``d`` m from p away from q (on the line q -> p, beyond p)."""
    dx, dy = p[0] - q[0], p[1] - q[1]
    n = math.hypot(dx, dy)
    return (p[0] + dx / n * d, p[1] + dy / n * d)


@pytest.mark.parametrize("level", [1, 3, 5])
def test_straight_in_pot_is_called_and_made(level):
    ob = (2.10, 0.40)
    cue = on_line(ob, FR, 0.5)
    g = pool_at({0: cue, 5: ob, 9: (0.6, 1.0)})
    before = g.to_state()
    act = Player(level, seed=3).choose(g)
    assert g.to_state() == before  # the engine never changes the game
    assert act.kind == "shot" and act.call == {"ball": 5, "pocket": "FR"}
    assert act.cue_ball is None
    assert abs(act.intended.phi_deg - math.degrees(math.atan2(FR[1] - cue[1], FR[0] - cue[0])) % 360.0) < 1.5
    # the stroke the search chose pots the ball, as the referee rules it
    ruling = play(pool_at({0: cue, 5: ob, 9: (0.6, 1.0)}), type(act)("shot", shot=act.intended, call=act.call))
    assert ruling["call_fulfilled"] is True and ruling["scored"] == [5] and ruling["foul"] is None
    assert act.sims >= 1 and act.value > 0.9


def test_ball_in_hand_is_placed_in_the_kitchen_and_pots():
    g = pool_at({3: (1.95, 0.50), 7: (1.20, 1.00), 12: (0.40, 0.30)}, in_hand="kitchen")
    act = Player(4, seed=1).choose(g)
    assert act.kind == "shot" and act.cue_ball is not None
    assert behind_head_string(g.table, act.cue_ball) and act.cue_ball[0] < g.table.head_string_x
    assert act.call.get("ball") in (3, 7)  # ball 12 lies in the kitchen: it may not be played first
    ruling = play(g, type(act)("shot", shot=act.intended, call=act.call, cue_ball=act.cue_ball))
    assert ruling["foul"] is None and ruling["call_fulfilled"] is True


def test_safety_when_nothing_scores():
    # one object ball frozen to the middle of the foot cushion, the cue ball far up the table:
    # every pot is a cut of about 90 degrees, so the bot calls safety and plays it legally
    T = new_game("straight_pool", {}, 0).table
    g = pool_at({0: (0.40, 0.635), 4: (T.length - T.R - 1e-6, 0.635), 11: (T.length - T.R - 1e-6, 0.20)})
    act = Player(5, seed=2).choose(g)
    assert act.call == {"safety": True}
    assert act.plan.startswith("safety")
    ruling = play(g, type(act)("shot", shot=act.intended, call=act.call))
    assert ruling["foul"] is None and ruling["next_player"] == 1


def test_opening_break_is_legal_and_the_lag_winner_lets_the_opponent_break():
    g = new_game("straight_pool", {"lag_mode": "random"}, 4)
    assert g.phase == "decision"
    act = Player(3, seed=1).choose(g)
    assert (act.kind, act.name, act.arg) == ("decision", "CHOOSE_BREAKER", 1 - g.to_act)
    g.apply_decision(g.to_act, act.name, act.arg)
    assert g.phase == "break"
    brk = Player(3, seed=1).choose(g)
    assert brk.call is None and brk.cue_ball is not None and behind_head_string(g.table, brk.cue_ball)
    ruling = play(g, type(brk)("shot", shot=brk.intended, cue_ball=brk.cue_ball))
    assert ruling["foul"] is None, ruling["text"]


def test_breaking_foul_decision_weighs_the_table():
    g = new_game("straight_pool", {"breaker": 0}, 5)
    # a breaking foul: a soft touch of the apex ball
    layout = g.layout()
    apex = min((b for b in layout if b), key=lambda b: layout[b][0])
    cue = (0.5, layout[apex][1])
    sim = simulate(g.table, g.prepare_shot(0, None, cue), Shot(0, phi_deg=0.0, V0=0.6))
    r = g.apply_shot(0, None, sim)
    assert r.foul == "breaking_foul"
    act = Player(3).choose(g)
    assert act.kind == "decision" and act.name in ("ACCEPT_TABLE", "REQUIRE_REBREAK")
    # the rack is still almost whole and the cue ball sits behind it: nothing easy to accept
    assert act.name == "REQUIRE_REBREAK", act.plan


def test_lag_speed_brings_the_ball_back_near_the_head_cushion():
    g = new_game("straight_pool", {}, 0)
    lay = g.lag_layout()
    v = lag_speed(g.table, tuple(lay[0]), 0)
    sim = simulate(g.table, {0: lay[0]}, Shot(0, phi_deg=0.0, V0=v))
    assert any(e.kind == "ball_cushion" for e in sim.events)
    assert sim.final[0].r[0] - g.table.R < 0.05  # within 5 cm of the head cushion
    act = Player(1, seed=9).choose(g, 1)
    assert act.plan == "lag" and act.shot.cue_ball == 1


def test_carom_break_hits_the_red_first_and_scores():
    g = new_game("three_cushion", {"breaker": 0}, 1)
    assert g.phase == "break"
    act = Player(5, seed=1).choose(g)
    assert act.kind == "shot" and act.call is None and act.cue_ball is None
    sim = simulate(g.table, g.prepare_shot(0, None), act.intended)
    verdict = g.evaluate_stroke(0, sim)
    assert verdict["scores"] and verdict["cushions"] >= 3 and not verdict["fouls"]
    first = next(e for e in sim.events if e.kind == "ball_ball")
    assert set(first.balls) == {act.intended.cue_ball, 2}  # the red first on the break
    assert 0.0 < act.value <= 1.0


def test_carom_lag_winner_breaks():
    g = new_game("three_cushion", {"lag_mode": "random"}, 2)
    assert g.phase == "choose_breaker"
    act = Player(2).choose(g)
    assert (act.name, act.arg) == ("CHOOSE_BREAKER", g.to_act)


def test_levels_and_execution_noise():
    with pytest.raises(ValueError, match="level"):
        get_level(6)
    assert [LEVELS[k].sigma_phi_deg for k in range(1, 6)] == sorted((LEVELS[k].sigma_phi_deg for k in range(1, 6)), reverse=True)
    assert [LEVELS[k].pots for k in range(1, 6)] == sorted(LEVELS[k].pots for k in range(1, 6))
    rng = random.Random(11)
    base = Shot(0, phi_deg=10.0, V0=3.0, a=0.1, b=-0.1)
    out = [execute(base, LEVELS[1], rng) for _ in range(4000)]
    dphi = [((s.phi_deg - 10.0 + 180.0) % 360.0) - 180.0 for s in out]
    assert abs(statistics.pstdev(dphi) - 0.60) < 0.03 and abs(statistics.fmean(dphi)) < 0.03
    assert abs(statistics.pstdev([s.V0 / 3.0 for s in out]) - 0.10) < 0.006
    assert abs(statistics.pstdev([s.a for s in out]) - 0.06) < 0.004
    # clipped to the miscue limit and the speed range
    edge = [execute(Shot(0, 0.0, 9.9, 0.49, 0.0), LEVELS[1], rng) for _ in range(500)]
    assert all(math.hypot(s.a, s.b) <= 0.5 and 0.0 < s.V0 <= 10.0 for s in edge)
    assert any(math.hypot(s.a, s.b) > 0.499 for s in edge) and any(s.V0 == 10.0 for s in edge)


def test_break_ball_after_a_rerack_is_potted_and_opens_the_rack():
    base = new_game("straight_pool", {"breaker": 0}, 3)
    rack = base.rack_positions(list(range(1, 15)), False)  # fourteen balls, apex empty (R21)
    ob, cue = (1.65, 0.35), (1.20, 0.45)  # the break ball below the rack, a cut into the foot-right corner
    balls = dict(rack)
    balls.update({15: ob, 0: cue})
    g = pool_at(balls)
    act = Player(4, seed=2).choose(g)
    assert act.call == {"ball": 15, "pocket": "FR"}, act.plan
    assert act.intended.V0 > 1.5  # firmer than a plain pot: the cue ball must reach the rack
    sim = simulate(g.table, g.prepare_shot(0, act.call, None), act.intended)
    ruling = g.apply_shot(0, act.call, sim).to_dict()
    assert ruling["call_fulfilled"] and ruling["foul"] is None
    moved = [b for b in rack if math.hypot(sim.final[b].r[0] - rack[b][0], sim.final[b].r[1] - rack[b][1]) > 0.01]
    assert len(moved) >= 3  # the cue ball went into the rack
