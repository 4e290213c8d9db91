"""Mining puzzles from recorded games, and judging attempts: the stored solution solves, mining is deterministic,
the judge rules as a practice table does, trivial positions are refused, the seed set holds up."""

import gzip
import json
import math
import os
import random

import pytest

import protocol
from bots.aim import pocket_aim_point, pocket_axis
from physics.table import get_table
from protocol import inbound as I
from rules.drills import solo_text
from rules.position import Position, decode, encode
from rules.replay import replay
from server.puzzles import mine
from server.puzzles.judge import goal_text, judge
from server.puzzles.service import load_seed, mine_game_record
from server.table import practice

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "rules", "data")


def record(name):
    with gzip.open(os.path.join(DATA, name)) as f:
        return json.load(f)


POOL = "straight_pool_game.json.gz"
CAROM = "carom_three_cushion_game.json.gz"


@pytest.mark.parametrize("name, indexes", [(POOL, [31]), (CAROM, [5, 14, 19])])
def test_mining_a_recorded_game_gives_puzzles_its_solution_solves(name, indexes):
    rec = record(name)
    found = mine.mine_record(rec)
    assert [m.stroke_index for m in found] == indexes
    for m in found:
        pos = decode(m.code)
        assert pos.discipline == rec["discipline"] and m.goal == ("pot" if pos.discipline == "straight_pool" else "carom")
        assert judge(pos, m.stroke, m.call).solved
        assert mine.MIN_SUCCESSES <= m.successes <= mine.TRIALS
        assert mine.robustness(pos, m.code, m.stroke, m.call) == m.successes  # the noise is seeded
        if m.goal == "pot":
            assert set(m.call) == {"ball", "pocket"} and m.call["ball"] in pos.layout()
        else:
            assert m.call is None
    # deterministic: a second run finds the very same puzzles, bit for bit
    assert mine.mine_record(record(name)) == found


@pytest.mark.parametrize("name", [POOL, CAROM])
def test_candidates_are_strokes_that_scored_nothing(name):
    """Every candidate is a stroke whose recorded ruling gave its shooter no point, from the layout just before it."""
    rec = record(name)
    rulings = {i: d for i, kind, player, desc, d, diffs in replay(rec)}
    cands = list(mine.candidates(rec))
    assert cands
    for c in cands:
        entry = rec["strokes"][c.index]
        assert rulings[c.index]["points"][entry["player"]] <= 0
        initial = {int(k): tuple(v) for k, v in entry["sim"]["initial"].items()}
        if rec["discipline"] == "straight_pool":  # the position is the layout the stroke started from
            assert c.position.layout() == initial
    # 14.1: only strokes with the cue ball on the bed; carom: the shooter's ball is always ball 0
    for c in cands:
        assert 0 in c.position.layout()


def test_carom_shooter_with_the_yellow_gets_the_colours_swapped():
    rec = record(CAROM)
    game_layouts = {}
    from rules.registry import new_game
    from rules.replay import apply_entry
    g = new_game(rec["discipline"], rec["config"], seed=rec["seed"])
    for i, e in enumerate(rec["strokes"]):
        if e.get("sim") is not None and not e.get("lag") and g.phase == "play":
            game_layouts[i] = (g.cue_ball(e["player"]), dict(g.layout()))
        apply_entry(g, e)
    swapped = 0
    for c in mine.candidates(rec):
        cue, lay = game_layouts[c.index]
        got = c.position.layout()
        assert got[0] == tuple(lay[cue]) and got[2] == tuple(lay[2]) and got[1] == tuple(lay[1 - cue])
        swapped += cue == 1
    assert swapped >= 1


def test_a_straight_in_short_pot_is_trivial():
    t = get_table("pool-9ft")
    ax, ay = pocket_axis(t, "FR")
    px, py = pocket_aim_point(t, "FR")
    ball = (px - ax * 0.25, py - ay * 0.25)
    cue = (px - ax * 0.6, py - ay * 0.6)
    pos = Position.make("pool-9ft", "straight_pool", {0: cue, 1: ball}).quantized()
    tries, trivial, scoring = mine._pot_search(pos)
    assert trivial and scoring > 0
    assert mine.examine(mine.Candidate(0, pos)) is None


def test_noise_stays_within_its_bounds_and_the_limits():
    rng = random.Random(3)
    base = {"phi_deg": 10.0, "a": 0.3, "b": 0.39, "theta_deg": 0.0, "V0": 9.9}
    for _ in range(500):
        n = mine._noisy(base, rng)
        assert abs(n["phi_deg"] - 10.0) <= mine.NOISE_PHI_DEG
        assert n["V0"] <= 10.0 and abs(n["V0"] / 9.9 - 1.0) <= mine.NOISE_V_REL + 1e-12
        assert math.hypot(n["a"], n["b"]) <= 0.5
        assert n["theta_deg"] == 0.0


def test_pentathlon_is_not_mined():
    with pytest.raises(ValueError, match="not mined"):
        list(mine.candidates(record("carom_pentathlon_match.json.gz")))
    assert mine_game_record(record("carom_pentathlon_match.json.gz"), 1) == []


def test_the_seed_set_is_solved_by_its_solutions_and_was_made_by_the_miner():
    seed = load_seed()
    assert 12 <= len(seed) <= 16
    assert {p["discipline"] for p in seed} == {"straight_pool", "three_cushion"}
    assert len({p["code"] for p in seed}) == len(seed)
    for p in seed:
        pos = decode(p["code"])
        assert encode(pos) == p["code"]
        sol = p["solution"]
        assert judge(pos, sol["stroke"], sol["call"]).solved, p["code"]
        assert p["successes"] >= mine.MIN_SUCCESSES
    # the first self-play game of each discipline, played again, is mined into the same puzzles
    from bots.engine import Player
    from bots.selfplay import play_game

    for discipline in ("straight_pool", "three_cushion"):
        cfg = next(p["selfplay"]["config"] for p in seed if p["discipline"] == discipline)
        entries = []
        play_game(discipline, cfg, [Player(3, 2), Player(3, 3)], seed=1, record=entries)
        rec = {"discipline": discipline, "config": cfg, "seed": 1, "strokes": entries}
        got = [(m.code, m.solution(), m.stroke_index) for m in mine.mine_record(rec, max_puzzles=2)]
        want = [(p["code"], p["solution"], p["source_stroke"]) for p in seed
                if p["discipline"] == discipline and p["selfplay"]["seed"] == 1]
        assert got == want and got


def _practice_stroke(code, stroke, call):
    """The ruling and simulation a practice table at position ``code`` gives ``stroke`` (server/table/practice.py)."""
    pos = decode(code)
    p, game = practice.setup(pos.discipline, {}, {"position": code}, seed=1)
    shoot = game.legal_actions()["shoot"]
    ids = protocol.preset_ids(game.table.to_json())
    msg = I.Shot(table="t1", token="x" * 16, seq=1, stroke=dict(stroke), call=call)
    out, _ = practice.stroke(game, p, ids, 0, msg, shoot, now=0.0)
    names = {v: k for k, v in ids[0].items()}, {v: k for k, v in ids[1].items()}
    said = out.ruling.to_dict()
    said["text"] = solo_text(said["text"])  # what the table says to its one player (server/table/actor.py)
    return said, protocol.decode_log(out.record["log"], *names), out.record.get("diamonds")


@pytest.mark.parametrize("index", range(16))
def test_the_judge_rules_as_a_practice_table(index):
    """The solution, and the solution aimed 3 degrees off (usually a miss), are ruled the same by the judge and by
    a practice table at the puzzle's position: the same ruling, the same event log, the same diamonds."""
    p = load_seed()[index]
    sol = p["solution"]
    for off in (0.0, 3.0):
        stroke = dict(sol["stroke"], phi_deg=(sol["stroke"]["phi_deg"] + off) % 360.0)
        got = judge(decode(p["code"]), stroke, sol["call"])
        ruling, sim, diamonds = _practice_stroke(p["code"], stroke, sol["call"])
        assert got.ruling == ruling
        assert got.record["sim"] == sim
        assert protocol.decode_log(got.record["log"], *({v: k for k, v in m.items()} for m in
                                                         protocol.preset_ids(get_table(sim["table"]).to_json()))) == sim
        assert "f" not in got.record["log"]  # wire format 1
        assert got.record.get("diamonds") == diamonds
        if off == 0.0:
            assert got.solved


def test_goal_texts():
    assert goal_text("straight_pool") == "Find the pot: call a ball and a pocket and make it"
    assert goal_text("three_cushion") == "Find the carom: score a three-cushion point"
