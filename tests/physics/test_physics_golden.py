"""Golden vectors (tests/golden/*.json, written by tests/golden/make_golden.py): the engine
still produces every stored event log and every sampled position exactly, from the inputs
stored in the file; and the sampled positions are what the log's closed-form replay gives."""

import glob
import json
import math
import os

import pytest

from physics import SimResult, Shot, get_table, simulate

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden")
FILES = sorted(glob.glob(os.path.join(GOLDEN, "*.json")))


def load(path):
    with open(path) as f:
        return json.load(f)


def test_at_least_30_golden_shots_on_both_tables():
    assert len(FILES) >= 30
    tables = {load(p)["input"]["table"] for p in FILES}
    assert "carom" in tables and "pool-9ft" in tables


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.basename(p)[:-5])
def test_engine_reproduces_the_golden_log_exactly(path):
    data = load(path)
    inp = data["input"]
    table = get_table(inp["table"])
    balls = {int(k): tuple(v) for k, v in inp["balls"].items()}
    shots = [Shot(**s) for s in inp["shots"]]
    res = simulate(table, balls, shots, cushion_model=inp["cushion_model"], ball_model=inp["ball_model"], max_events=inp["max_events"])
    # compare the JSON text: floats are written with repr, so this is bit for bit
    assert json.dumps(res.to_json()) == json.dumps(data["result"])
    for smp in data["samples"]:
        st = res.state_at(smp["t"])
        assert {str(b): list(s.r) for b, s in sorted(st.items())} == smp["r"]


@pytest.mark.parametrize("path", FILES[:6], ids=lambda p: os.path.basename(p)[:-5])
def test_samples_follow_from_the_log_alone(path):
    # a client holding only the JSON log gets the sampled positions by the closed-form motion
    data = load(path)
    res = SimResult.from_json(data["result"])
    for smp in data["samples"]:
        st = res.state_at(smp["t"])
        for b, r in smp["r"].items():
            assert math.dist(st[int(b)].r, r) <= 1e-12
