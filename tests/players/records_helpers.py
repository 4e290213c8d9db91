"""Finished games in the server's record format (what Redis holds: meta + entries with wire logs), made
from the recorded games of tests/rules/data (real strokes, real rulings)."""

from __future__ import annotations

import copy
import gzip
import json
import os
from functools import lru_cache
from typing import Any, Dict, List, Optional, Sequence, Tuple

import protocol
from physics.events import SimResult
from physics.table import get_table
from rules.replay import replay

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "rules", "data")
FILES = {
    "straight_pool": "straight_pool_game.json.gz",
    "three_cushion": "carom_three_cushion_game.json.gz",
    "pentathlon": "carom_pentathlon_match.json.gz",
}


@lru_cache(maxsize=None)
def _base(discipline: str) -> Tuple[Dict[str, Any], List[Dict[str, Any]], Dict[str, Any]]:
    with gzip.open(os.path.join(DATA, FILES[discipline])) as f:
        rec = json.load(f)
    gen = replay(rec)
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        game = stop.value
    entries = []
    for e in rec["strokes"]:
        out = {k: v for k, v in e.items() if k != "sim"}
        if "sim" in e:
            table = get_table(e["sim"]["table"])
            sim = SimResult.from_json(e["sim"], table)
            out["log"] = protocol.encode_log(sim, *protocol.preset_ids(table.to_json()))
        entries.append(out)
    return rec, entries, game.result


def server_record(discipline: str, table: str, game_no: int = 1, accounts: Sequence[Optional[int]] = (None, None),
                  rated: bool = False, names: Sequence[str] = ("Ann", "Bob"), t0: float = 1_796_000_000.0,
                  result: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """(meta, entries) of the recorded ``discipline`` game as the server keeps it, at ``table``/``game_no``.

    Entries are stamped ``t0 + 10 s * index``; ``result`` overrides the referee's result.
    """
    rec, entries, res = _base(discipline)
    entries = copy.deepcopy(entries)
    for i, e in enumerate(entries):
        e["ts"] = t0 + 10.0 * i
    meta = {"table": table, "game": game_no, "discipline": rec["discipline"], "config": rec["config"],
            "seed": rec["seed"], "created": t0 - 5.0, "players": list(names), "over": True,
            "result": copy.deepcopy(result if result is not None else res), "strokes": len(entries),
            "accounts": list(accounts), "rated": rated}
    return meta, entries


def winner_of(discipline: str) -> Optional[int]:
    return _base(discipline)[2]["winner"]
