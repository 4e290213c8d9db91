"""Exported match records carry the carom zone shapes a replay needs to draw the chalk lines."""

import gzip
import json
import os

from rules.registry import new_game
from server.records import _add_zones

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "rules", "data")


def _record(name):
    with gzip.open(os.path.join(DATA, name)) as f:
        rec = json.load(f)
    rec["table"] = "t1"
    return rec


def test_pentathlon_record_gives_each_stroke_the_zones_of_its_discipline():
    rec = _record("carom_pentathlon_match.json.gz")
    _add_zones(rec)
    assert [z["name"] for z in rec["zones"]] == ["BR", "BL", "TR", "TL"]  # libre first: the corner zones
    changes, prev = [], None
    for i, s in enumerate(rec["strokes"]):
        names = None if "zones" not in s else tuple(z["name"] for z in s["zones"])
        if names != prev:
            changes.append((i, None if names is None else len(names)))
            prev = names
    # balkline 47/1 (9 balk spaces, 8 anchors), one-cushion (no zones), 71/2 (6 and 6), three-cushion (no zones)
    assert changes == [(14, 17), (22, 0), (30, 12), (38, 0)]


def test_single_discipline_records():
    rec = _record("carom_three_cushion_game.json.gz")
    _add_zones(rec)
    assert "zones" not in rec and all("zones" not in s for s in rec["strokes"])
    rec = _record("straight_pool_game.json.gz")
    _add_zones(rec)
    assert "zones" not in rec
    rec = {"discipline": "balkline_47_2", "config": {}, "seed": 3, "table": "t2", "strokes": []}
    _add_zones(rec)
    assert rec["zones"] == new_game("balkline_47_2", {}).table_zones() and len(rec["zones"]) == 9 + 8
