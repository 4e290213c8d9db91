"""The drills library (rules/drills.py): every drill a valid position that survives its code, and the carom drills
real positions: the bot's stroke search (bots/carom_search.py) finds a stroke that scores, and the referee scores it."""

from __future__ import annotations

import math

import pytest

from bots.carom_search import find_carom
from physics import Shot, simulate
from rules.drills import DRILLS, GOAL_KINDS, achieved, diamond, drill_by_id, game_at
from rules.position import decode, encode, validate

CAROM_DRILLS = [d for d in DRILLS if d.goal.kind == "carom"]


def test_the_library_has_the_standard_drills():
    ids = {d.id for d in DRILLS}
    for want in ("3c-corner-to-corner", "3c-umbrella", "3c-reverse", "3c-double-the-rail", "3c-ticky",
                 "pool-9ft-break-shot", "pool-9ft-key-ball", "pool-9ft-stop-1", "pool-9ft-follow-2",
                 "balk-rail-nurse", "balk-chuck-nurse", "balk-gather"):
        assert want in ids
    assert {d.goal.kind for d in DRILLS} == set(GOAL_KINDS)
    assert {d.discipline for d in DRILLS} == {"straight_pool", "three_cushion", "balkline_47_2"}


@pytest.mark.parametrize("drill", DRILLS, ids=lambda d: d.id)
def test_every_drill_validates_and_round_trips(drill):
    assert validate(drill.position) is drill.position
    code = drill.code()
    assert len(code) < 100
    back = decode(code)
    assert back == drill.position.quantized() and encode(back) == code
    for (b, x, y), (b2, x2, y2) in zip(drill.position.balls, back.balls):
        assert b == b2 and math.hypot(x - x2, y - y2) < 1e-4
    j = drill.to_json()
    assert j["code"] == code and j["goal_kind"] == drill.goal.kind and j["goal"]
    if drill.goal.area is not None:
        x0, y0, x1, y1 = drill.goal.area
        t = drill.position.preset()
        assert 0 <= x0 < x1 <= t.length and 0 <= y0 < y1 <= t.width


@pytest.mark.parametrize("drill", CAROM_DRILLS, ids=lambda d: d.id)
def test_every_carom_drill_has_a_scoring_stroke(drill):
    """The search simulates candidate strokes with the real physics and asks the discipline's referee; the stroke it
    finds is played through ``apply_shot`` and scores a point."""
    game = game_at(drill.position)
    found = find_carom(game, 0, max_sims=40000)
    assert found is not None, drill.id
    sim = simulate(game.table, drill.position.layout(), found.shot)
    assert achieved(drill, game, 0, sim)
    before = game.scoreboard()["scores"][0]
    ruling = game.apply_shot(0, None, sim)
    assert ruling.points[0] == 1 and game.scoreboard()["scores"][0] == before + 1


def test_a_miss_does_not_achieve_a_carom_drill():
    d = drill_by_id("3c-umbrella")
    game = game_at(d.position)
    sim = simulate(game.table, d.position.layout(), Shot(cue_ball=0, phi_deg=180.0, V0=0.5))
    assert not achieved(d, game, 0, sim)


def test_stop_shot_ladder_geometry_and_a_real_stop_shot():
    """The ladder's balls lie on the foot-right corner's bisector, one diamond crossing and 1 + k crossings from the
    pocket; a firm centre-ball stroke straight along it pockets the 1 and the cue ball stops in the target area."""
    d1 = drill_by_id("pool-9ft-stop-1")
    t = d1.position.preset()
    lay = d1.position.layout()
    fr = t.pocket_by_name("FR").corner
    assert math.isclose(lay[1][0], fr[0] - diamond(t), abs_tol=1e-12) and math.isclose(lay[1][1], diamond(t), abs_tol=1e-12)
    assert math.isclose(lay[0][0], fr[0] - 2 * diamond(t), abs_tol=1e-12)
    game = game_at(d1.position)
    phi = math.degrees(math.atan2(lay[1][1] - lay[0][1], lay[1][0] - lay[0][0]))
    hits = [V0 for V0 in (2.0, 2.5, 3.0, 3.5, 4.0) for b in (-0.1, -0.2, -0.3)
            if achieved(d1, game, 0, simulate(t, lay, Shot(cue_ball=0, phi_deg=phi, V0=V0, b=b)))]
    assert hits, "no stop shot found"
    # the follow drill of the same layout is not met by the stop shot
    f1 = drill_by_id("pool-9ft-follow-1")
    assert not achieved(f1, game, 0, simulate(t, lay, Shot(cue_ball=0, phi_deg=phi, V0=hits[0], b=-0.2)))


def test_game_at_sets_the_referee_up_at_the_position():
    for d in DRILLS:
        g = game_at(d.position)
        assert {b: tuple(p) for b, p in g.layout().items()} == d.position.layout()
        assert g.to_act == 0 and g.phase == "play"
        assert g.legal_actions()["shoot"] is not None


POOL_DRILLS = [d for d in DRILLS if d.discipline == "straight_pool"]


@pytest.mark.parametrize("drill", POOL_DRILLS, ids=lambda d: d.id)
def test_every_14_1_drill_has_a_stroke_that_meets_its_goal_and_the_referee_scores_the_call(drill):
    """Aimed at the ghost ball of the called ball and pocket (within 1.5 degrees), at a few speeds and tip heights:
    a stroke meets the goal, and the 14.1 referee credits the called ball."""
    game = game_at(drill.position)
    t, lay = game.table, drill.position.layout()
    ob, pk = lay[drill.goal.ball], t.pocket_by_name(drill.goal.pocket).corner
    u = ((pk[0] - ob[0]) / math.dist(pk, ob), (pk[1] - ob[1]) / math.dist(pk, ob))
    ghost = (ob[0] - 2 * t.R * u[0], ob[1] - 2 * t.R * u[1])
    phi0 = math.degrees(math.atan2(ghost[1] - lay[0][1], ghost[0] - lay[0][0]))
    found = next(((sim, shot) for V0 in (1.5, 2.0, 2.5, 3.0, 4.0) for b in (0.0, 0.2, 0.3, -0.2, -0.3, 0.1, -0.1)
                  for k in range(-15, 16)
                  for shot in [Shot(cue_ball=0, phi_deg=phi0 + 0.1 * k, V0=V0, b=b)]
                  for sim in [simulate(t, lay, shot)] if achieved(drill, game, 0, sim)), None)
    assert found is not None, drill.id
    call = {"ball": drill.goal.ball, "pocket": drill.goal.pocket}
    ruling = game.apply_shot(0, call, found[0])
    assert ruling.points[0] >= 1 and ruling.foul is None


def test_solo_text_leaves_out_the_next_player():
    """A practice table or a puzzle has one player: "B to shoot" named nobody there (QA)."""
    from rules.drills import solo_text

    assert solo_text("Safety; B to shoot") == "Safety"
    assert solo_text("Foul: cue ball pocketed, -1; B has ball in hand behind the head string") == \
        "Foul: cue ball pocketed, -1; ball in hand behind the head string"
    assert solo_text("Scored 1 (10 in FR); A continues; fourteen re-racked") == "Scored 1 (10 in FR); fourteen re-racked"
    assert solo_text("Safety; B to shoot; Drill: goal missed") == "Safety; Drill: goal missed"
    assert solo_text("Point: 3 cushions") == "Point: 3 cushions"  # nothing else is touched
    assert solo_text("Banana to shoot; Bob continues") == "Banana to shoot; Bob continues"
