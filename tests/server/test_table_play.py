"""server/table/play.py without asyncio or sockets: strokes, the lag, decisions and claims against the real
referees and physics, and what each refusal says."""

import pytest

import protocol
from physics import Shot, simulate
from protocol import inbound as I
from protocol.errors import ErrorCode
from rules.registry import game_from_state, new_game
from server.table import play

POOL = {"breaker": 0, "target_points": 5}  # seat 0 breaks, no lag
KITCHEN = (0.3, 0.6)
BREAK = {"phi_deg": 0.0, "V0": 2.0, "a": 0.0, "b": 0.0, "theta_deg": 0.0}


def ids(game):
    return protocol.preset_ids(game.table.to_json())


def shot(seat_seq=1, **kw):
    return I.Shot(table="T", token="t" * 32, seq=seat_seq, stroke=dict(BREAK, **kw.pop("stroke", {})), **kw)


def test_a_stroke_is_the_physics_and_the_referee_of_this_very_shot():
    g = new_game("straight_pool", POOL, seed=1)
    before = g.to_state()
    msg = shot(cue_ball=KITCHEN, call=None)
    out = play.stroke(g, ids(g), 0, msg, play.shoot_options(new_game("straight_pool", POOL, seed=1)))
    assert isinstance(out, play.Outcome)
    # the same inputs through physics and a fresh referee give the same log and ruling
    ref = game_from_state(before)
    layout = ref.prepare_shot(0, None, KITCHEN)
    sim = simulate(ref.table, layout, Shot(cue_ball=0, **BREAK))
    assert out.log == protocol.encode_log(sim, *ids(ref))
    assert out.ruling.to_dict() == ref.apply_shot(0, None, sim).to_dict()
    assert out.shots == [{"seat": 0, "seq": 1, "stroke": BREAK, "call": None, "cue_ball": [0.3, 0.6]}]
    assert out.record["player"] == 0 and out.record["cue_ball_position"] == [0.3, 0.6] and out.record["log"] is out.log
    assert out.sim_s > 0 and out.referee_s > 0
    assert g.to_state() == ref.to_state()  # the game moved on exactly as the referee ruled


def test_a_refused_stroke_leaves_the_game_unchanged_and_names_the_wire_field():
    g = new_game("straight_pool", POOL, seed=1)
    before = g.to_state()
    out = play.stroke(g, ids(g), 0, shot(), play.shoot_options(g))  # in hand at the break: cue ball not placed
    assert isinstance(out, play.Refusal)
    assert (out.code, out.field, out.rule) == (ErrorCode.ILLEGAL_ACTION, "cue_ball", "bad_placement")
    out = play.stroke(g, ids(g), 1, shot(cue_ball=KITCHEN), play.shoot_options(g))
    assert (out.code, out.rule, out.field) == (ErrorCode.NOT_YOUR_TURN, "not_your_turn", None)
    assert g.to_state() == before


def test_sequence_numbers_and_readiness():
    assert play.check_seq(4, 17, 5) is None
    dup = play.check_seq(4, 17, 4)
    assert (dup.code, dup.field, dup.v) == (ErrorCode.DUPLICATE_SEQUENCE, "seq", 17) and dup.extra() == {"v": 17}
    assert play.check_seq(4, 17, 3).code == ErrorCode.STALE_SEQUENCE
    g = new_game("straight_pool", POOL, seed=1)
    assert play.ready(g, both_seated=False).code == ErrorCode.NOT_YOUR_TURN
    assert play.ready(g, both_seated=True) is None


def test_the_lag_keeps_the_first_stroke_and_plays_both_together():
    g = new_game("three_cushion", {"distance": 5}, seed=3)
    ref = new_game("three_cushion", {"distance": 5}, seed=3)
    shoot = play.shoot_options(g)
    assert shoot["lag"]
    s0 = {"phi_deg": 90.0, "V0": 1.2, "a": 0.0, "b": 0.0, "theta_deg": 0.0}
    first = play.lag_stroke(g, ids(g), {}, 0, I.Shot(table="T", token="t" * 32, seq=1, stroke=s0), shoot)
    assert first == {"seq": 1, "stroke": s0}
    again = play.lag_stroke(g, ids(g), {0: first}, 0, I.Shot(table="T", token="t" * 32, seq=2, stroke=s0), shoot)
    assert again.code == ErrorCode.ILLEGAL_ACTION and again.rule == "lag_pending"
    s1 = dict(s0, V0=1.4)
    out = play.lag_stroke(g, ids(g), {0: first}, 1, I.Shot(table="T", token="t" * 32, seq=1, stroke=s1), shoot)
    assert isinstance(out, play.Outcome)
    assert [s["seat"] for s in out.shots] == [0, 1] and out.record["strokes"] == [s0, s1] and out.record["lag"]
    # the same two strokes simulated together and judged by a fresh referee
    layout = ref.prepare_shot(0, None, None)
    balls = shoot.get("lag_balls") or {}
    sim = simulate(ref.table, layout, [Shot(cue_ball=play.lag_cue_ball(s, balls, layout), **st)
                                       for s, st in ((0, s0), (1, s1))])
    assert out.log == protocol.encode_log(sim, *ids(ref))
    assert out.ruling.to_dict() == ref.apply_lag(sim).to_dict() and "lag" in out.ruling.to_dict()


def test_decisions_and_forfeits():
    g = new_game("straight_pool", {"target_points": 5}, seed=2)  # a lag, then the winner chooses the breaker
    bad = play.decision(g, 0, I.Decision(table="T", token="t" * 32, seq=1, name="CHOOSE_BREAKER", arg=0))
    assert isinstance(bad, play.Refusal) and bad.code in (ErrorCode.ILLEGAL_ACTION, ErrorCode.NOT_YOUR_TURN)
    out = play.forfeit(g, 1, "resigned")
    assert out.record == {"player": 1, "forfeit": "resigned"} and g.over and g.result["winner"] == 0


@pytest.mark.parametrize("case, connected, grace, to_act, before_game, expect", [
    ("opponent connected", True, None, 1, False, ErrorCode.NOTHING_TO_CLAIM),
    ("before the break", False, 0.0, 1, True, ErrorCode.NOTHING_TO_CLAIM),
    ("claimant to act", False, 0.0, 0, False, ErrorCode.NOTHING_TO_CLAIM),
    ("grace running", False, 1e12, 1, False, ErrorCode.GRACE_NOT_EXPIRED),
    ("granted", False, 0.0, 1, False, None),
])
def test_a_claim_is_granted_only_when_the_absent_opponent_must_act(case, connected, grace, to_act, before_game, expect):
    if before_game:
        g = new_game("straight_pool", {"target_points": 5}, seed=2)  # the lag
    else:
        g = new_game("straight_pool", POOL, seed=1)  # seat 0 to break
        if to_act == 1:
            out = play.stroke(g, ids(g), 0, shot(cue_ball=KITCHEN, stroke={"V0": 0.5, "phi_deg": 90.0}),
                              play.shoot_options(g))
            assert isinstance(out, play.Outcome)
        assert g.to_act == to_act, g.to_act
    out = play.claim(g, 0, connected, grace, now=1000.0)
    if expect is None:
        assert isinstance(out, play.Outcome) and out.record == {"player": 1, "forfeit": "abandoned"}
        assert g.over and g.result["winner"] == 0
    else:
        assert isinstance(out, play.Refusal) and out.code == expect, out.message
        assert not g.over


def test_before_game_covers_the_lag_and_the_choice_of_breaker():
    g = new_game("three_cushion", {"distance": 5, "lag_mode": "random"}, seed=5)
    assert play.before_game(g)  # the random lag goes straight to the winner's choice of breaker
    assert not play.before_game(new_game("straight_pool", POOL, seed=1))


def test_a_carom_stroke_records_its_diamond_readout_and_the_history_entry_carries_it():
    from rules.carom.diamonds import cushion_diamonds
    from rules.drills import drill_by_id, game_at
    from server.table.actor import history_of

    pos = drill_by_id("3c-umbrella").position
    g = game_at(pos)
    msg = shot(stroke={"phi_deg": 90.0, "V0": 3.0})
    out = play.stroke(g, ids(g), 0, msg, play.shoot_options(game_at(pos)))
    assert isinstance(out, play.Outcome)
    sim = simulate(g.table, pos.layout(), Shot(cue_ball=0, phi_deg=90.0, V0=3.0))
    want = cushion_diamonds(g.table, sim.events, 0)
    assert len(want) >= 2 and want[0]["cushion"] == "Lf"
    # white from 2 diamonds up the table, straight across: the left rail at 2.0
    assert want[0]["diamond"] == 2.0
    assert out.record["diamonds"] == want
    entry = history_of(0, dict(out.record, ruling=out.ruling.to_dict(), v=5))
    assert entry["diamonds"] == want and entry["kind"] == "stroke"
    # a pool stroke has none, and its entry no such field
    p = new_game("straight_pool", POOL, seed=1)
    out = play.stroke(p, ids(p), 0, shot(cue_ball=KITCHEN, call=None), play.shoot_options(new_game("straight_pool", POOL, seed=1)))
    assert "diamonds" not in out.record and "diamonds" not in history_of(0, dict(out.record, ruling={}))


def test_both_played_counts_each_seats_own_strokes_not_the_lag_or_rulings():
    e = lambda kind, seat: {"kind": kind, "seat": seat}  # noqa: E731
    assert not play.both_played([])
    assert not play.both_played([e("lag", None), e("decision", 0), e("stroke", 0), e("stroke", 0)])
    assert not play.both_played([e("stroke", 1), e("timeout", 0), e("forfeit", 0)])
    assert play.both_played([e("lag", None), e("stroke", 0), e("stroke", 1)])
    assert play.both_played([e("stroke", 1), e("decision", 1), e("stroke", 0), e("forfeit", 1)])
