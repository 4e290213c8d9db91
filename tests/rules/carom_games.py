"""Carom games played through the real physics by search bots, recorded in the replay format of
rules/replay.py (``{"discipline", "config", "seed", "strokes": [...]}``).

Run as a script to (re)write the stored records under tests/rules/data/:
``.venv/bin/python tests/rules/carom_games.py``.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import sys
from typing import Dict, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
if __name__ == "__main__":  # pragma: no cover - script use
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from bots.carom_search import find_carom, lag_shots, safe_stroke  # noqa: E402
from physics import simulate  # noqa: E402
from rules.registry import new_game  # noqa: E402

MAX_ACTIONS = 3000


def play_recorded(discipline: str, config: Optional[dict] = None, seed: int = 0,
                  run_cap: Tuple[int, int] = (3, 4), lag_short: float = 0.06):
    """Play a whole game between two search bots; returns ``(game, record)``.

    Seat 0 lags best, seat 1 ``lag_short`` m/s short of its best lag; the lag winner breaks.
    A bot ends its run after ``run_cap[seat]`` points with a soft miss (so games have innings);
    at touching balls it chooses ``SET_UP``.
    """
    game = new_game(discipline, config or {}, seed=seed)
    record = {"discipline": discipline, "config": dict(config or {}), "seed": seed, "strokes": []}
    strokes = record["strokes"]
    for _ in range(MAX_ACTIONS):
        if game.over:
            break
        phase = game.phase
        if phase == "lag":
            shots = lag_shots(_current(game))
            shots[1] = dataclasses.replace(shots[1], V0=shots[1].V0 - lag_short)
            sim = simulate(game.table, _current(game).lag_layout(), shots)
            ruling = game.apply_lag(sim)
            strokes.append({"lag": True, "sim": sim.to_json(), "ruling": ruling.to_dict()})
            continue
        seat = game.to_act
        if phase in ("choose_breaker", "decision"):
            name, arg = ("CHOOSE_BREAKER", seat) if phase == "choose_breaker" else ("SET_UP", None)
            ruling = game.apply_decision(seat, name, arg)
            strokes.append({"player": seat, "decision": {"name": name, "arg": arg}, "ruling": ruling.to_dict()})
            continue
        found = None
        if _current(game).run < run_cap[seat]:
            found = find_carom(game)
        shot = found.shot if found is not None else safe_stroke(game)
        layout = game.prepare_shot(seat, None)
        sim = simulate(game.table, layout, shot)
        ruling = game.apply_shot(seat, None, sim)
        strokes.append({"player": seat, "call": None, "cue_ball_position": None, "sim": sim.to_json(),
                        "ruling": ruling.to_dict()})
    if not game.over:
        raise RuntimeError(f"{discipline}: the game did not end within {MAX_ACTIONS} actions")
    return game, record


def _current(game):
    """The carom game in progress (the game itself, or the current game of a multi-discipline match)."""
    return getattr(game, "game", game)


STORED: Dict[str, Tuple[str, dict]] = {
    "carom_three_cushion_game.json.gz": ("three_cushion", {"distance": 10}),
    "carom_pentathlon_match.json.gz": ("pentathlon", {"distances": {"libre": 5, "balkline_47_1": 4, "one_cushion": 4,
                                                                    "balkline_71_2": 4, "three_cushion": 3}}),
}


def write_stored(directory: str = os.path.join(HERE, "data")) -> None:
    for fname, (discipline, config) in STORED.items():
        _, record = play_recorded(discipline, config, seed=2024)
        with gzip.open(os.path.join(directory, fname), "wt", encoding="utf-8") as fh:
            json.dump(record, fh, separators=(",", ":"))


if __name__ == "__main__":  # pragma: no cover
    write_stored()
