"""Whole games between two :class:`bots.engine.Player` objects straight through the referee and the physics.

No network: ``game.prepare_shot`` -> :func:`physics.simulate` -> ``game.apply_shot`` (the lag:
both lag strokes in one simulation and ``game.apply_lag``), ``game.apply_decision`` for
decisions; exactly the sequence the server's table actor runs. Used by the strength benchmark
(bench/bots_strength.py) and the tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from bots.engine import Player
from physics import simulate
from rules.registry import new_game


@dataclass
class GameStats:
    """What one game showed. ``runs[s]``: every finished run of seat s (points scored in one
    inning, 0 included); ``points``: final scores; ``winner``: seat or None (draw); ``strokes``
    per seat; ``think_s``: seconds each decision took, per seat; ``fouls`` per seat;
    ``actions``: actions played (strokes, lags and decisions)."""

    discipline: str
    winner: Optional[int] = None
    points: List[int] = field(default_factory=lambda: [0, 0])
    runs: List[List[int]] = field(default_factory=lambda: [[], []])
    strokes: List[int] = field(default_factory=lambda: [0, 0])
    fouls: List[int] = field(default_factory=lambda: [0, 0])
    think_s: List[List[float]] = field(default_factory=lambda: [[], []])
    actions: int = 0

    def average_run(self, seat: int) -> float:
        r = self.runs[seat]
        return sum(r) / len(r) if r else 0.0


def play_game(discipline: str, config: Optional[Dict[str, Any]], players: Sequence[Player], seed: int = 0,
              max_actions: int = 4000, record: Optional[List[Dict[str, Any]]] = None) -> GameStats:
    """Play one game of ``discipline`` with ``config`` between ``players[0]`` (seat 0) and ``players[1]``.

    Returns :class:`GameStats`. Raises ``RuntimeError`` when the game has not ended after
    ``max_actions`` actions (a bug or an endless stalemate), and whatever the referee raises
    for an action it refuses (a bot bug: bots only play legal actions). When ``record`` is a list, the
    game's record entries in the format ``billar referee`` replays (rules/replay.py: lags, decisions and
    strokes with their ``sim``) are appended to it.
    """
    game = new_game(discipline, config or {}, seed)
    st = GameStats(discipline)
    run_of: List[int] = [0, 0]
    shooting: Optional[int] = None
    for _ in range(max_actions):
        if game.over:
            break
        st.actions += 1
        shoot = game.legal_actions().get("shoot")
        if shoot and shoot.get("lag"):
            t0 = time.perf_counter()
            acts = [players[s].choose(game, s) for s in (0, 1)]
            st.think_s[0].append((time.perf_counter() - t0) / 2)
            layout = game.prepare_shot(0, None)
            sim = simulate(game.table, layout, [a.shot for a in acts])
            game.apply_lag(sim)
            if record is not None:
                record.append({"lag": True, "sim": sim.to_json()})
            continue
        seat = game.to_act
        t0 = time.perf_counter()
        act = players[seat].choose(game, seat)
        st.think_s[seat].append(time.perf_counter() - t0)
        if act.kind == "decision":
            game.apply_decision(seat, act.name, act.arg)
            if record is not None:
                record.append({"player": seat, "decision": {"name": act.name, "arg": act.arg}})
            continue
        if shooting is not None and shooting != seat:
            st.runs[shooting].append(run_of[shooting])
            run_of[shooting] = 0
        shooting = seat
        before = list(_scores(game))
        layout = game.prepare_shot(seat, act.call, act.cue_ball)
        sim = simulate(game.table, layout, act.shot)
        ruling = game.apply_shot(seat, act.call, sim)
        if record is not None:
            record.append({"player": seat, "call": act.call, "cue_ball_position": _point(act.cue_ball),
                           "sim": sim.to_json()})
        st.strokes[seat] += 1
        if ruling.foul is not None:
            st.fouls[seat] += 1
        gained = max(0, ruling.points[seat]) if ruling.foul is None else 0
        run_of[seat] += gained if _scores(game)[seat] >= before[seat] else 0
        if ruling.next_player != seat:
            st.runs[seat].append(run_of[seat])
            run_of[seat] = 0
            shooting = None
    else:
        raise RuntimeError(f"{discipline}: no end after {max_actions} actions")
    if shooting is not None:
        st.runs[shooting].append(run_of[shooting])
    st.points = list(_scores(game))
    st.winner = (game.result or {}).get("winner")
    return st


def _point(p: Any) -> Optional[List[float]]:
    return None if p is None else [float(p[0]), float(p[1])]


def _scores(game: Any) -> List[int]:
    sb = game.scoreboard()
    return list(sb.get("scores", [0, 0]))
