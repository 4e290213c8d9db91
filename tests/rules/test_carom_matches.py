"""Whole carom matches through the real physics (physics.simulate), strokes chosen by bots/carom_search.

- a three-cushion game to 15 with a simulated lag and an equalising inning;
- a balkline 47/2 game whose zone states are checked after every stroke against the spec's own
  numbers (C9, C11) and trajectories sampled from the log;
- a pentathlon with short distances.
Longer runs are marked ``soak``.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from bots.carom_search import find_carom, lag_shots, safe_stroke
from physics import simulate
from rules.carom_disciplines import Balkline47_2, ThreeCushion
from rules.multi import Pentathlon
from rules.zones import EPS_LINE, IN, INSIDE

W, Y, RD = 0, 1, 2
MAX_STROKES = 600


def _shoot(game, shot):
    seat = game.to_act
    sim = simulate(game.table, game.prepare_shot(seat, None), shot)
    return seat, sim, game.apply_shot(seat, None, sim)


def _settle_decision(game):
    if game.phase == "decision":
        game.apply_decision(game.to_act, "SET_UP")


def _raw_cushions_before_second(sim, cue):
    """Cue-ball ball_cushion events before the first contact with the second object ball (raw log count)."""
    first = {}
    n_at = None
    count = 0
    for e in sim.events:
        if e.kind == "ball_ball" and cue in e.balls:
            other = [b for b in e.balls if b != cue][0]
            first.setdefault(other, e.t)
            if len(first) == 2 and n_at is None:
                n_at = count
        elif e.kind == "ball_cushion" and e.balls[0] == cue and n_at is None:
            count += 1
    return n_at


def _lag(game):
    shots = lag_shots(game)
    shots[1] = dataclasses.replace(shots[1], V0=shots[1].V0 - 0.06)  # seat 1 lags a little short
    sim = simulate(game.table, game.lag_layout(), shots)
    return game.apply_lag(sim)


RUN_CAP_3C = {0: 4, 1: 6}


def play_three_cushion(distance):
    g = ThreeCushion(config={"distance": distance})
    r = _lag(g).to_dict()
    assert r["lag"]["winner"] == 0 and r["lag"]["distances"][0] < r["lag"]["distances"][1]
    g.apply_decision(0, "CHOOSE_BREAKER", 0)
    points = [0, 0]
    equalizing_seen = None
    for _ in range(MAX_STROKES):
        if g.over:
            break
        _settle_decision(g)
        seat = g.to_act
        if seat == 1 and not g.equalizing:
            shot = safe_stroke(g)  # the second player keeps missing until the equalising inning
        elif g.run >= RUN_CAP_3C[seat]:
            shot = safe_stroke(g)  # imperfect bots: a run ends after a few points
        else:
            found = find_carom(g)
            shot = found.shot if found else safe_stroke(g)
        was_break = g.phase == "break"
        seat, sim, r = _shoot(g, shot)
        d = r.to_dict()
        points[seat] += d["points"][seat]
        assert d["scores"] == points
        if d["points"][seat]:
            cue = g.cue_ball(seat)
            assert _raw_cushions_before_second(sim, cue) >= 3  # a counted carom really had 3 cushions first
            if was_break:
                first = [e for e in sim.events if e.kind in ("ball_ball", "ball_cushion") and cue in e.balls][0]
                assert first.kind == "ball_ball" and RD in first.balls
        if g.equalizing and equalizing_seen is None:
            equalizing_seen = (list(g.scoreboard()["scores"]), list(g.scoreboard()["innings"]), g.layout())
    assert g.over
    return g, points, equalizing_seen


def test_three_cushion_game_to_15_with_an_equalising_inning():
    g, points, eq = play_three_cushion(15)
    t = g.table
    assert eq is not None
    scores, innings, layout = eq
    assert scores[0] == 15 and innings[0] == innings[1]  # P2's inning k after P1's inning k
    assert layout[RD] == t.top_spot and layout[W] == t.bottom_spot and layout[Y] == t.starting_spots["right"]
    res = g.result
    assert res["scores"] == points and res["scores"][0] == 15 and innings[0] >= 4  # runs of at most 4
    assert res["innings"][0] == res["innings"][1] == innings[0]
    assert res["winner"] == (None if points[1] == 15 else 0)
    assert res["averages"] == [round(points[s] / res["innings"][s], 3) for s in (0, 1)]
    assert res["high_runs"][0] >= 1 and sum(g.stats[s]["caroms"] for s in (0, 1)) == sum(points)


# ----- balkline: zone states after every stroke ------------------------------------------

# spec numbers, written out (C9, C11), independent of rules/zones.py
COLS = [(0.0, 0.47), (0.47, 2.37), (2.37, 2.84)]
ROWS = [(0.0, 0.47), (0.47, 0.95), (0.95, 1.42)]
SPEC_ZONES = {f"X{i + 1}Y{j + 1}": (COLS[i], ROWS[j]) for i in range(3) for j in range(3)}
SPEC_ANCHORS = [((0.381, 0.559), (0.0, 0.178)), ((0.381, 0.559), (1.242, 1.42)), ((2.281, 2.459), (0.0, 0.178)),
                ((2.281, 2.459), (1.242, 1.42)), ((0.0, 0.178), (0.381, 0.559)), ((0.0, 0.178), (0.861, 1.039)),
                ((2.662, 2.84), (0.381, 0.559)), ((2.662, 2.84), (0.861, 1.039))]


def _beyond(rect, p):
    (x0, x1), (y0, y1) = rect
    return max(x0 - p[0], p[0] - x1, y0 - p[1], p[1] - y1)


def _spec_zones(game):
    """name -> rectangle, balk spaces from the spec table and anchors matched by their rectangles."""
    out = dict(SPEC_ZONES)
    for z in game.zoneset.zones:
        if z.kind == "anchor":
            xs = sorted({v[0] for v in z.vertices})
            ys = sorted({v[1] for v in z.vertices})
            rect = ((round(xs[0], 6), round(xs[-1], 6)), (round(ys[0], 6), round(ys[-1], 6)))
            assert rect in SPEC_ANCHORS
            out[z.name] = rect
    assert len(out) == 17
    return out


def _sampled_beyond(sim, ball, rect, n=400):
    """Largest distance beyond ``rect`` of ``ball`` over the stroke, sampled at events and n points between."""
    times = sorted({0.0} | {e.t for e in sim.events})
    best = -math.inf
    for a, b in zip(times, times[1:] + [times[-1] + 5.0]):
        for k in range(n // max(1, len(times)) + 2):
            t = a + (b - a) * k / (n // max(1, len(times)) + 1)
            best = max(best, _beyond(rect, sim.ball_state_at(ball, t).r))
    return best


def _check_zone_states(game, spec):
    a, b = [x for x in (W, Y, RD) if x != game.cue_ball(game.striker)]
    lay = game.layout()
    for name, state in game.zones.items():
        assert state in (IN, INSIDE)
        assert _beyond(spec[name], lay[a]) <= EPS_LINE and _beyond(spec[name], lay[b]) <= EPS_LINE
    for name, rect in spec.items():
        if _beyond(rect, lay[a]) < EPS_LINE - 1e-6 and _beyond(rect, lay[b]) < EPS_LINE - 1e-6:
            assert name in game.zones


SOFT = (0.8, 1.2, 1.6, 2.5)  # cue speeds for position play (m/s)


def _object_rest(sim, cue):
    return [sim.final[b].r for b in (W, Y, RD) if b != cue]


def test_balkline_47_2_game_zone_states_after_every_stroke():
    g = Balkline47_2(config={"breaker": 0, "distance": 20})
    spec = _spec_zones(g)
    _check_zone_states(g, spec)
    transitions = {"in_to_inside": 0, "left_back_to_in": 0, "zone_fouls": 0}
    fouls_wanted = 2
    for _ in range(MAX_STROKES):
        if g.over:
            break
        _settle_decision(g)
        before = dict(g.zones)
        seat = g.to_act
        found = None
        if INSIDE in before.values() and fouls_wanted:
            found = find_carom(g, speeds=SOFT, accept=lambda sim, v: v["carom"] and v["zone_foul"] is not None)
            fouls_wanted -= found is not None
        if found is None and IN in before.values():
            def stays_in(sim, v):  # a carom after which both object balls are still in a zone they never left
                return v["scores"] and any(z in g.zoneset.common(*_object_rest(sim, g.cue_ball(seat))) and not v["left"][z]
                                           for z in before)
            found = find_carom(g, speeds=SOFT, accept=stays_in)
        if found is None:
            found = find_carom(g)
        shot = found.shot if found else safe_stroke(g)
        seat, sim, r = _shoot(g, shot)
        d = r.to_dict()
        obj = [x for x in (W, Y, RD) if x != g.cue_ball(seat)]
        if d["foul"] == "zone":
            transitions["zone_fouls"] += 1
            z = d["zone_foul"]
            assert before[z] == INSIDE
            assert all(_sampled_beyond(sim, b, spec[z]) <= EPS_LINE for b in obj)  # no object ball left
            assert g.striker != seat
        elif d["points"][seat] and g.striker == seat and g.phase == "play" and not d["placed"]:
            for z, s in g.zones.items():
                left = max(_sampled_beyond(sim, b, spec[z]) for b in obj)
                if before.get(z) == IN and left < EPS_LINE - 1e-6:
                    assert s == INSIDE
                    transitions["in_to_inside"] += 1
                if before.get(z) in (IN, INSIDE) and left > EPS_LINE + 1e-6:
                    assert s == IN
                    transitions["left_back_to_in"] += 1
                if before.get(z) is None:
                    assert s == IN
            for z, s in before.items():
                if s == INSIDE and z in g.zones:  # a scoring stroke from dentro drove a ball out
                    assert max(_sampled_beyond(sim, b, spec[z]) for b in obj) > EPS_LINE - 1e-6
        if not g.over:
            _check_zone_states(g, spec)
    assert g.over and max(g.result["scores"]) == 20
    assert transitions["in_to_inside"] >= 1 and transitions["zone_fouls"] >= 1, transitions


# ----- pentathlon ------------------------------------------------------------------------------

RUN_CAP = {0: 2, 1: 3}


def play_multi(match):
    for _ in range(MAX_STROKES * 3):
        if match.over:
            break
        if match.phase == "lag":
            shots = lag_shots(match.game)
            shots[1] = dataclasses.replace(shots[1], V0=shots[1].V0 - 0.06)
            match.apply_lag(simulate(match.table, match.game.lag_layout(), shots))
            continue
        if match.phase == "choose_breaker":
            match.apply_decision(match.to_act, "CHOOSE_BREAKER", match.to_act)
            continue
        if match.phase == "decision":
            match.apply_decision(match.to_act, "SET_UP")
            continue
        if match.game.run >= RUN_CAP[match.to_act]:  # imperfect bots: a run ends after a few points
            _shoot(match, safe_stroke(match))
            continue
        found = find_carom(match)
        _shoot(match, found.shot if found else safe_stroke(match))
    assert match.over


def test_pentathlon_with_short_distances():
    dist = {"libre": 4, "balkline_47_1": 3, "one_cushion": 3, "balkline_71_2": 3, "three_cushion": 2}
    m = Pentathlon(config={"distances": dist})
    play_multi(m)
    res = m.result
    games = res["games"]
    assert [gm["discipline"] for gm in games[:5]] == ["libre", "balkline_47_1", "one_cushion", "balkline_71_2",
                                                     "three_cushion"]
    assert [gm["breaker"] for gm in games[:5]] == [0, 1, 0, 1, 0]  # lag winner seat 0 broke game 1, then alternate
    pts = [0, 0]
    for gm in games[:5]:
        assert gm["distance"] == dist[gm["discipline"]]
        assert max(gm["scores"]) == gm["distance"]
        if gm["winner"] is None:
            assert gm["scores"] == [gm["distance"]] * 2 and gm["match_points"] == [1, 1]
        else:
            assert gm["scores"][gm["winner"]] == gm["distance"] and gm["match_points"][gm["winner"]] == 2
        if gm["winner"] == gm["breaker"] or gm["winner"] is None:
            assert gm["innings"][0] == gm["innings"][1]  # the equalising inning was played
        for s in (0, 1):
            pts[s] += gm["match_points"][s]
    assert res["match_points"] == pts
    if pts[0] != pts[1]:
        assert res["winner"] == (0 if pts[0] > pts[1] else 1) and res["reason"] == "match points"


@pytest.mark.soak
def test_soak_three_cushion_game_to_40():
    g, points, eq = play_three_cushion(40)
    assert g.result["scores"][0] == 40 and eq is not None


@pytest.mark.soak
def test_soak_pentathlon_online_distances():
    m = Pentathlon(config={"distances": {"libre": 30, "balkline_47_1": 20, "one_cushion": 15, "balkline_71_2": 20,
                                         "three_cushion": 10}})
    play_multi(m)
    assert len(m.result["games"]) >= 5
