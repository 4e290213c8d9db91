"""server/table/practice.py without asyncio or sockets: the start of a practice table, placements (the placement test
of position codes), strokes judged but never scored, previews that change nothing, undo/redo bit for bit."""

import math
import re

import pytest

import protocol
from physics import Shot, simulate
from protocol import inbound as I
from protocol import limits as L
from protocol.errors import ErrorCode
from rules.drills import achieved, drill_by_id, game_at, solo_text
from rules.position import decode
from server.table import play, practice

TOKEN = "t" * 32
SOFT = {"phi_deg": 0.0, "V0": 1.0, "a": 0.0, "b": 0.0, "theta_deg": 0.0}


def ids(game):
    return protocol.preset_ids(game.table.to_json())


def shot(seq=1, call=None, cue_ball=None, **stroke):
    return I.Shot(table="T", token=TOKEN, seq=seq, stroke=dict(SOFT, **stroke), call=call, cue_ball=cue_ball)


def stop_shot(drill_id="pool-9ft-stop-1"):
    """A stroke that meets the stop-shot drill (searched as tests/rules/test_drills.py does)."""
    d = drill_by_id(drill_id)
    lay, t = d.position.layout(), d.position.preset()
    game = game_at(d.position)
    phi = math.degrees(math.atan2(lay[1][1] - lay[0][1], lay[1][0] - lay[0][0]))
    for V0 in (2.0, 2.5, 3.0, 3.5, 4.0):
        for b in (-0.1, -0.2, -0.3):
            if achieved(d, game, 0, simulate(t, lay, Shot(cue_ball=0, phi_deg=phi, V0=V0, b=b))):
                return {"phi_deg": phi, "V0": V0, "a": 0.0, "b": b, "theta_deg": 0.0}
    raise AssertionError("no stop shot")


def test_a_drill_table_starts_at_the_drill_and_judges_its_goal():
    p, g = practice.setup("straight_pool", {}, {"drill": "pool-9ft-stop-1"}, seed=1)
    d = drill_by_id("pool-9ft-stop-1")
    assert p.kind == "drill" and p.preset == "pool-9ft" and p.start == d.code() and not p.coach
    assert {b: tuple(xy) for b, xy in g.layout().items()} == d.position.layout()
    good = stop_shot()
    out = practice.stroke(g, p, ids(g), 0, shot(call={"ball": 1, "pocket": "FR"}, **good),
                          play.shoot_options(g))
    outcome, nxt = out
    assert outcome.ruling_extra == {"drill": {"id": d.id, "achieved": True}}
    assert outcome.text_extra == "Drill: goal achieved"
    # the practice game goes on where the balls rest, the same player to shoot, nothing scored
    assert nxt.to_act == 0 and not nxt.over and nxt.scores_now() == [0, 0]
    assert 0 in nxt.layout()
    # the last object ball pocketed: the 14.1 referee re-racks (rules-14-1), as in a game
    assert outcome.ruling.to_dict()["rerack"] and len(nxt.layout()) == 16
    # a soft miss: judged, the goal missed, still the same player
    p2, g2 = practice.setup("straight_pool", {}, {"drill": "pool-9ft-stop-1"}, seed=1)
    outcome, nxt = practice.stroke(g2, p2, ids(g2), 1, shot(call={"safety": True}, phi_deg=90.0, V0=0.5), play.shoot_options(g2))
    assert outcome.ruling_extra["drill"]["achieved"] is False
    assert outcome.shots[0]["seat"] == 1  # the coach shot it
    assert nxt.to_act == 0


def test_a_position_code_and_the_opening():
    code = drill_by_id("3c-umbrella").code()
    p, g = practice.setup("three_cushion", {"distance": 3}, {"position": code, "coach": True}, seed=2)
    assert p.kind == "position" and p.start == code and p.coach and p.preset == "carom"
    assert g.phase == "play" and g.to_act == 0
    p, g = practice.setup("14_1", {"table": "7ft", "target_points": 1, "shot_clock": {"limit_s": 30}}, {}, seed=2)
    assert p.kind == "opening" and p.start is None and p.preset == "pool-7ft" and g.phase == "break"
    assert g.config["shot_clock"] is None and g.config["target_points"] == 150  # nothing scored: no target read
    # a carom break that scores does not end the practice game, whatever distance the creator asked for
    p, g = practice.setup("three_cushion", {"distance": 1}, {}, seed=2)
    assert g.config["distance"] != 1


@pytest.mark.parametrize("discipline,spec,field,rule", [
    ("pentathlon", {}, "discipline", None),
    ("straight_pool", {"drill": "no-such-drill"}, "practice.drill", None),
    ("straight_pool", {"position": "AAAA"}, "practice.position", "malformed"),
    ("straight_pool", {"position": "x" * 20}, "practice.position", None),
    ("three_cushion", {"drill": "pool-9ft-stop-1"}, "discipline", None),  # the drill is a 14.1 position
    ("straight_pool", {"drill": "pool-9ft-stop-1", "position": "AAAA"}, "practice", None),
])
def test_a_practice_table_that_cannot_be_made(discipline, spec, field, rule):
    with pytest.raises(practice.PracticeError) as ei:
        practice.setup(discipline, {}, spec, seed=1)
    assert ei.value.field == field
    if rule is not None:
        assert ei.value.rule == rule


def test_placements_pass_the_placement_test_of_position_codes():
    p, g = practice.setup("straight_pool", {}, {"drill": "pool-9ft-stop-1"}, seed=1)
    t = g.table
    ok = practice.place(g, p, {"0": (0.5, 0.6), "1": (1.5, 0.6), "9": (2.0, 0.3)})
    assert not isinstance(ok, play.Refusal)
    assert ok.layout() == {0: (0.5, 0.6), 1: (1.5, 0.6), 9: (2.0, 0.3)} or {
        b: tuple(v) for b, v in ok.layout().items()} == {0: (0.5, 0.6), 1: (1.5, 0.6), 9: (2.0, 0.3)}
    # without the cue ball: in hand behind the head string
    hand = practice.place(g, p, {"1": (1.5, 0.6)})
    assert hand.legal_actions()["shoot"]["in_hand"]["region"] == "kitchen"
    fr = t.pocket_by_name("FR").corner
    for balls, rule in [
        ({"0": (0.5, 0.6), "1": (0.5 + t.R, 0.6)}, "overlap"),
        ({"0": (0.5, 0.6), "1": fr}, "pocket"),
        ({"0": (0.5, 0.6), "1": (3.9, 0.6)}, "off_bed"),
        ({"0": (0.5, 0.6), "1": (0.01, 0.6)}, "off_bed"),
        ({}, "missing_ball"),
    ]:
        r = practice.place(g, p, balls)
        assert isinstance(r, play.Refusal) and r.code == ErrorCode.BAD_POSITION and r.rule == rule, (balls, r)
        assert r.field == "balls"
    # carom: ids 0-2, all three
    pc, gc = practice.setup("three_cushion", {}, {"drill": "3c-umbrella"}, seed=1)
    assert practice.place(gc, pc, {"0": (0.5, 0.5), "1": (1.0, 0.5), "5": (1.5, 0.5)}).rule == "bad_ball"
    assert practice.place(gc, pc, {"0": (0.5, 0.5), "1": (1.0, 0.5)}).rule == "missing_ball"


def test_a_preview_is_the_stroke_as_it_would_be_played_and_changes_nothing():
    p, g = practice.setup("straight_pool", {}, {"drill": "pool-9ft-stop-1"}, seed=1)
    before = practice.pack(g)
    good = stop_shot()
    log, ruling = practice.preview(g, ids(g), I.Preview(table="T", token=TOKEN, stroke=good,
                                                         call={"ball": 1, "pocket": "FR"}), play.shoot_options(g))
    assert practice.pack(g) == before
    outcome, _ = practice.stroke(g, p, ids(g), 0, shot(call={"ball": 1, "pocket": "FR"}, **good),
                                 play.shoot_options(g))
    assert log == outcome.log
    # the referee's words for one player (what the table's stroke message says too: server/table/actor.py)
    assert ruling["text"] == solo_text(outcome.ruling.to_dict()["text"])
    assert not re.search(r"\b[AB] (to shoot|continues)", ruling["text"]), ruling["text"]
    # refused like a stroke: a cue ball placed where the referee does not allow it
    _, hand = practice.setup("straight_pool", {}, {}, seed=1)  # the opening: in hand behind the head string
    r = practice.preview(hand, ids(hand), I.Preview(table="T", token=TOKEN, stroke=SOFT, cue_ball=(2.0, 0.6)),
                         play.shoot_options(hand))
    assert isinstance(r, play.Refusal) and r.code == ErrorCode.ILLEGAL_ACTION


def test_undo_and_redo_give_the_exact_states_back():
    p, g = practice.setup("straight_pool", {}, {}, seed=3)
    states = [practice.pack(g)]
    layouts = [g.layout()]
    seq = 0
    for cue in ((0.3, 0.6), None, None):
        seq += 1
        before = practice.pack(g)
        msg = I.Shot(table="T", token=TOKEN, seq=seq, stroke=dict(SOFT, phi_deg=3.0 * seq, V0=4.0 - seq),
                     call=None if seq == 1 else {"safety": True}, cue_ball=cue)
        out = practice.stroke(g, p, ids(g), 0, msg, play.shoot_options(g))
        assert not isinstance(out, play.Refusal), out
        _, g = out
        p.changed(before)
        states.append(practice.pack(g))
        layouts.append(g.layout())
    assert len(p.undo) == 3 and not p.redo
    for k in (2, 1, 0):  # back to each state, bit for bit (the floats compared exactly)
        g = practice.unpack(p.step_back(practice.pack(g)))
        assert practice.pack(g) == states[k] and g.layout() == layouts[k]
    assert p.step_back(practice.pack(g)) is None
    for k in (1, 2, 3):
        g = practice.unpack(p.step_forward(practice.pack(g)))
        assert practice.pack(g) == states[k] and g.layout() == layouts[k]
    assert p.step_forward(practice.pack(g)) is None
    # a new change forgets the redo stack; the undo stack is bounded
    p.step_back(practice.pack(g))
    p.changed(b"x")
    assert not p.redo
    for _ in range(3 * L.PRACTICE_UNDO):
        p.changed(b"y")
    assert len(p.undo) == L.PRACTICE_UNDO
    assert practice.Practice.from_state(p.to_state()) == p


def test_the_view_gives_the_position_code_now():
    p, g = practice.setup("straight_pool", {}, {"drill": "pool-9ft-stop-1"}, seed=1)
    v = p.view(g)
    assert v["kind"] == "drill" and v["drill"]["id"] == "pool-9ft-stop-1" and v["code"] == p.start
    assert decode(v["code"]).layout() == drill_by_id("pool-9ft-stop-1").position.quantized().layout()
    assert v["undo"] == 0 and v["redo"] == 0 and v["coach"] is False
