"""The diamond readout (rules/carom/diamonds.py): hand-computed values on constructed and simulated logs, and the
golden carom vectors' logged contacts."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest

from physics import Shot, simulate
from physics.table import get_table
from rules.carom.diamonds import cushion_diamonds, readout_text, round1, stroke_cue_ball

CAROM = get_table("carom")
L, W, R = CAROM.length, CAROM.width, CAROM.R
GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden")


def ev(kind, balls, cushion=None, r=None):
    states = {} if r is None else {str(balls[0]): {"state": "sliding", "r": list(r), "v": [0, 0], "w": [0, 0, 0]}}
    return {"t": 0.0, "kind": kind, "balls": balls, "cushion": cushion, "pocket": None, "states": states}


def test_a_constructed_log_reads_the_diamonds_computed_by_hand():
    log = [ev("strike", [1], r=(1.0, 1.0)),
           ev("ball_cushion", [1], "Lf", (3 * L / 8, W - R)),  # long rail, 3 diamonds from the bottom rail
           ev("ball_cushion", [0], "R", (1.0, R)),  # another ball: not read
           ev("ball_cushion", [1], "T", (L - R, W / 2)),  # top rail at its middle: 2 of 4
           ev("ball_ball", [1, 2], r=(2.0, 0.4)),
           ev("ball_cushion", [1], "R", (0.7 * L / 8, R)),  # 0.7
           ev("ball_cushion", [1], "B", (R, 0.355 * 3.25))]  # 3.25 short-rail diamonds: 3.3 (half away from zero)
    assert stroke_cue_ball(log) == 1
    assert cushion_diamonds(CAROM, log) == [
        {"n": 1, "cushion": "Lf", "rail": "long", "diamond": 3.0},
        {"n": 2, "cushion": "T", "rail": "short", "diamond": 2.0},
        {"n": 3, "cushion": "R", "rail": "long", "diamond": 0.7},
        {"n": 4, "cushion": "B", "rail": "short", "diamond": 3.3},
    ]
    assert readout_text(cushion_diamonds(CAROM, log)[:2]) == "1 Lf 3.0, 2 T 2.0"
    assert cushion_diamonds(CAROM, log, ball=0) == [{"n": 1, "cushion": "R", "rail": "long", "diamond": 2.8}]
    assert cushion_diamonds(CAROM, []) == []
    assert round1(0.25) == 0.3 and round1(-0.25) == -0.3 and round1(7.96) == 8.0


def test_a_simulated_stroke_square_into_the_long_rail_reads_its_diamond():
    """A ball struck straight across the table from x = 5 diamonds meets the left rail at 5.0 and, back, the right
    rail at 5.0 (no side spin: the path stays on x = 5 L / 8)."""
    sim = simulate(CAROM, {0: (5 * L / 8, W / 2), 1: (0.3, 0.3), 2: (0.3, 1.1)}, Shot(cue_ball=0, phi_deg=90.0, V0=2.0))
    r = cushion_diamonds(CAROM, sim.events)
    assert r[:2] == [{"n": 1, "cushion": "Lf", "rail": "long", "diamond": 5.0},
                     {"n": 2, "cushion": "R", "rail": "long", "diamond": 5.0}]
    # the Event objects, their JSON and any objects with the same attributes read the same
    assert cushion_diamonds(CAROM, sim.to_json()["events"]) == r
    ducks = [SimpleNamespace(kind=e.kind, balls=list(e.balls), cushion=e.cushion,
                             states={b: SimpleNamespace(r=s.r) for b, s in e.states.items()}) for e in sim.events]
    assert cushion_diamonds(CAROM, ducks) == r


def test_the_golden_umbrella_reads_as_computed_from_its_logged_contacts():
    with open(os.path.join(GOLDEN, "carom_umbrella.json")) as fh:
        g = json.load(fh)
    contacts = [e for e in g["result"]["events"] if e["kind"] == "ball_cushion" and 0 in e["balls"]]
    want = []
    for n, e in enumerate(contacts, 1):
        x, y = e["states"]["0"]["r"]
        long_rail = e["cushion"] in ("R", "Lf")
        want.append({"n": n, "cushion": e["cushion"], "rail": "long" if long_rail else "short",
                     "diamond": round1(8 * x / L if long_rail else 4 * y / W)})
    got = cushion_diamonds(CAROM, g["result"]["events"])
    assert got == want and len(got) == 5
    # by hand: Lf at x = 1.266906 m (8 x / 2.84 = 3.569), R at x = 1.941194 m (5.468)
    assert [d["diamond"] for d in got[:2]] == [3.6, 5.5]


@pytest.mark.parametrize("name", sorted(f for f in os.listdir(GOLDEN) if f.startswith("carom_") and f.endswith(".json")))
def test_every_golden_carom_readout_is_on_the_rails(name):
    with open(os.path.join(GOLDEN, name)) as fh:
        g = json.load(fh)
    for d in cushion_diamonds(CAROM, g["result"]["events"]):
        assert 0.0 <= d["diamond"] <= (8.0 if d["rail"] == "long" else 4.0)
        assert round(d["diamond"], 1) == d["diamond"]
