"""``billar referee DISCIPLINE --replay FILE`` for every carom discipline (rules/replay.py via the registry).

Records are played through the real physics by the search bots (tests/rules/carom_games.py);
two stored records (tests/rules/data/carom_*.json.gz) carry the rulings given when they were
made, so a change in the referee's rulings shows up as a difference.
"""

from __future__ import annotations

import gzip
import json
import os

import pytest

from carom_games import STORED, play_recorded
from server.cli import main as billar

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

SMALL = {
    "libre": {"distance": 6},
    "balkline_47_2": {"distance": 6},
    "balkline_47_1": {"distance": 5},
    "balkline_71_2": {"distance": 6},
    "one_cushion": {"distance": 5},
    "three_cushion": {"distance": 4, "sets": {"sets_to_win": 2, "set_distance": 2}},
    "pentathlon": {"distances": {"libre": 3, "balkline_47_1": 2, "one_cushion": 2, "balkline_71_2": 2, "three_cushion": 2}},
    "triathlon": {"distances": {"balkline_47_2": 3, "one_cushion": 2, "three_cushion": 2}, "multi_break_order": "lag_each"},
}


@pytest.mark.parametrize("discipline", sorted(SMALL))
def test_replay_every_carom_discipline(discipline, tmp_path, capsys):
    config = dict(SMALL[discipline])
    if discipline == "three_cushion":
        config.pop("distance")
    game, record = play_recorded(discipline, config, seed=5)
    path = tmp_path / f"{discipline}.json"
    path.write_text(json.dumps(record))
    assert billar(["referee", discipline, "--replay", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(record["strokes"]) + 1
    w = game.result["winner"]
    assert out[-1].endswith("; winner " + "AB"[w]) if w is not None else out[-1].endswith("; draw")
    assert billar(["referee", discipline, "--replay", str(path), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["ruling"] for x in lines[:-1]] == [json.loads(json.dumps(e["ruling"])) for e in record["strokes"]]
    final = lines[-1]
    assert final["final"] is True and final["over"] is True and final["result"]["winner"] == w
    assert final["scores"] == game.scoreboard()["scores"] and final["differences"] == 0


@pytest.mark.parametrize("fname", sorted(STORED))
def test_stored_records_replay_with_the_same_rulings(fname, capsys):
    path = os.path.join(DATA, fname)
    discipline = STORED[fname][0]
    assert billar(["referee", discipline, "--replay", path]) == 0
    out = capsys.readouterr().out
    assert "differ" not in out and "Final score" in out


def test_replay_reports_a_changed_ruling_and_a_wrong_discipline(tmp_path, capsys):
    with gzip.open(os.path.join(DATA, "carom_three_cushion_game.json.gz"), "rt") as fh:
        record = json.load(fh)
    idx = next(i for i, e in enumerate(record["strokes"]) if e.get("sim") and e["ruling"]["points"] != [0, 0])
    record["strokes"][idx]["ruling"]["scores"] = [99, 99]
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    assert billar(["referee", "three_cushion", "--replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "differs from the record: scores: recorded [99, 99]" in out and "1 ruling(s) differ" in out
    assert billar(["referee", "libre", "--replay", str(path)]) == 2
    assert "the record is a three_cushion game, not libre" in capsys.readouterr().err
    # an entry whose log does not start from the referee's layout stops the replay
    record["strokes"][idx]["sim"]["initial"]["2"] = [1.0, 1.0]
    path.write_text(json.dumps(record))
    assert billar(["referee", "three_cushion", "--replay", str(path)]) == 2
    assert f"entry {idx}: sim: ball 2 starts at" in capsys.readouterr().err
