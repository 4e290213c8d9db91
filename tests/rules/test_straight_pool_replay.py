"""rules/replay.py (``billar referee``) on a recorded 14.1 game and on hand-made records.

tests/rules/data/straight_pool_game.json.gz was recorded through the physics with
``PYTHONPATH=. python tests/rules/pool_games.py tests/rules/data/straight_pool_game.json.gz 12 20``
(seed 12, target 20: a lag, a breaking foul the opponent accepts, scratches, two re-racks),
each stroke with the ruling given at the time.
"""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys

import pytest
from logs import stroke_log
from pool_helpers import TABLE

from rules.replay import load_record, replay, run
from rules.straight_pool import StraightPool

DATA = os.path.join(os.path.dirname(__file__), "data", "straight_pool_game.json.gz")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def record():
    return load_record(DATA)


def test_recorded_game_replays_to_the_same_rulings(record):
    out = io.StringIO()
    assert run(record, "14.1", False, out) == 0
    lines = out.getvalue().splitlines()
    n = len(record["strokes"])
    assert len(lines) == n + 1
    assert lines[0].startswith("#0") and "wins the lag" in lines[0]
    assert "Breaking foul, -2: B chooses" in lines[2]
    assert lines[-1] == "Final score: A 14, B 20; winner B"
    kinds = [k for _, k, *_ in replay(record)]
    assert kinds.count("lag") == 1 and kinds.count("decision") == 2 and kinds.count("stroke") == n - 3
    texts = [d["text"] for *_, d, diffs in replay(record)]
    stored = [e["ruling"]["text"] for e in record["strokes"] if "ruling" in e]
    assert [t for t, e in zip(texts, record["strokes"]) if "ruling" in e] == stored
    assert sum("fourteen re-racked" in t for t in texts) == 2


def test_recorded_game_json_lines(record):
    out = io.StringIO()
    assert run(record, "straight_pool", True, out) == 0
    objs = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(objs) == len(record["strokes"]) + 1
    assert [o["index"] for o in objs[:-1]] == list(range(len(record["strokes"])))
    assert objs[-1] == {"final": True, "scores": [14, 20], "over": True, "result": {
        "winner": 1, "scores": [14, 20], "reason": "target",
        # the game's statistics (R25, R27): points before penalties, innings, high runs, points per inning
        "points": [17, 21], "innings_total": [5, 5], "high_runs": [8, 15], "averages": [3.4, 4.2]}, "differences": 0}
    for o, e in zip(objs, record["strokes"]):
        if "ruling" in e:
            assert o["ruling"]["scores"] == e["ruling"]["scores"] and o["ruling"]["foul"] == e["ruling"]["foul"]


def test_disputed_ruling_is_reported(record):
    rec = copy.deepcopy(record)
    k = next(i for i, e in enumerate(rec["strokes"]) if e.get("ruling", {}).get("foul") == "scratch")
    rec["strokes"][k]["ruling"]["foul"] = None
    out = io.StringIO()
    assert run(rec, None, False, out) == 1
    text = out.getvalue()
    assert "! differs from the record: foul: recorded None, now 'scratch'" in text
    assert text.rstrip().endswith("1 ruling(s) differ from the record")


def test_bad_records_name_the_entry(record):
    rec = copy.deepcopy(record)
    k = next(i for i, e in enumerate(rec["strokes"]) if e.get("sim") and not e.get("lag") and i > 5)
    rec["strokes"][k]["player"] = 1 - rec["strokes"][k]["player"]
    with pytest.raises(ValueError, match=f"^entry {k}: it is [AB]'s turn"):
        run(rec, None, False, io.StringIO())
    with pytest.raises(ValueError, match="^discipline:"):
        run(record, "three_cushion", False, io.StringIO())
    with pytest.raises(ValueError, match="^strokes:"):
        run({"discipline": "straight_pool", "strokes": {}}, None, False, io.StringIO())


def test_hand_made_record_with_decisions_time_out_admin_and_forfeit():
    cfg = {"breaker": 0, "shot_clock": {"limit_s": 30, "extensions": 1}}
    rec = {"discipline": "straight_pool", "config": cfg, "seed": 3, "strokes": []}
    g = StraightPool(cfg, 3)  # the record's game, to script its opening break
    apex = min((b for b in g.layout()), key=lambda b: g.layout()[b][0])
    start = g.prepare_shot(0, None, (0.5, 0.6))
    brk = stroke_log(TABLE, start, [("ball_ball", 0, apex)])
    rec["strokes"] = [
        {"player": 0, "call": None, "cue_ball_position": [0.5, 0.6], "decision": None, "sim": brk.to_json()},
        {"player": 1, "decision": {"name": "ACCEPT_TABLE", "arg": None}},
        {"player": 1, "timeout": True},
        {"admin": "serious_foul", "player": 1, "args": {}},
        {"player": 0, "decision": {"name": "RERACK_OFFENDER_BREAKS", "arg": None}},
        {"player": 0, "forfeit": "resigned"},
    ]
    out = io.StringIO()
    assert run(rec, "14.1", False, out) == 0
    lines = out.getvalue().splitlines()
    assert "Breaking foul, -2: B chooses" in lines[0]
    assert "Foul: shot clock expired, -1" in lines[2]
    assert "Serious foul, -16: A chooses" in lines[3] and lines[3].endswith("[-2:-17]")
    assert "A has all fifteen re-racked: B breaks" in lines[4]
    assert lines[-1] == "Final score: A -2, B -17; winner B"
    bad = copy.deepcopy(rec)
    bad["strokes"][3] = {"admin": "reset_scores", "player": 1}
    with pytest.raises(ValueError, match="^entry 3: admin: unknown action"):
        run(bad, None, False, io.StringIO())


def test_command_line(tmp_path, record):
    env = dict(os.environ, PYTHONPATH=ROOT)
    cmd = [sys.executable, "-m", "server.cli", "referee", "14.1", "--replay", DATA]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1] == "Final score: A 14, B 20; winner B"
    p = subprocess.run(cmd + ["--json"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0 and json.loads(p.stdout.splitlines()[-1])["scores"] == [14, 20]
    plain = tmp_path / "game.json"
    plain.write_text(json.dumps(record))
    p = subprocess.run(cmd[:-1] + [str(plain)], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0 and p.stdout.splitlines()[-1].startswith("Final score: A 14")
    p = subprocess.run(cmd[:-1] + [str(tmp_path / "missing.json")], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 2 and "cannot read" in p.stderr
    (tmp_path / "bad.json").write_text("{")
    p = subprocess.run(cmd[:-1] + [str(tmp_path / "bad.json")], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 2 and "is not JSON" in p.stderr


def _first_sim_entry(rec):
    return next(i for i, e in enumerate(rec["strokes"]) if e.get("sim") and not e.get("lag") and i > 1)


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda s: s.__setitem__("sim", "garbage"), r"^entry \d+: (sim: malformed|malformed entry)"),
        (lambda s: s["sim"]["events"][1].__setitem__("balls", [42]), r"^entry \d+: sim\.events\[1\]\.balls: ball 42"),
        (lambda s: s["sim"]["events"][1].__setitem__("kind", "teleport"), r"^entry \d+: sim\.events\[1\]\.kind: unknown"),
        (lambda s: s["sim"]["events"][1].__setitem__("t", float("nan")), r"^entry \d+: sim\.events\[1\]\.t:"),
        (lambda s: s["sim"]["events"][1]["states"].clear() or s["sim"]["events"][1]["states"].__setitem__("0", {"state": "flying", "r": [1, 1]}), r"^entry \d+: sim\.events\[1\]\.states\.0\.state"),
        (lambda s: s["sim"].pop("events"), r"^entry \d+: (sim: malformed|malformed entry)"),
    ],
)
def test_malformed_sims_in_a_record_are_named_not_crashes(record, damage, message):
    rec = copy.deepcopy(record)
    k = _first_sim_entry(rec)
    damage(rec["strokes"][k])
    with pytest.raises(ValueError, match=message):
        run(rec, None, False, io.StringIO())


def test_truncated_gzip_record_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "cut.json.gz"
    bad.write_bytes(open(DATA, "rb").read()[:100])
    out = subprocess.run([sys.executable, "-m", "server.cli", "referee", "14.1", "--replay", str(bad)], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "cannot read" in out.stderr
