"""Judging a puzzle attempt with the real physics and the real referee.

A puzzle is a :class:`rules.position.Position` (no cue stroke in it) and a goal: ``pot`` (14.1: the
called ball into the called pocket, no foul) or ``carom`` (any carom discipline: the stroke scores a
point under the discipline's rules). The solver always shoots ball :data:`CUE` (the 14.1 cue ball,
the carom white: the miner swaps white and yellow when the yellow was the shooter's ball).

:func:`judge` sets up the referee at the position exactly as a practice table does
(``rules.drills.game_at``), then ``prepare_shot`` -> ``physics.simulate`` -> ``apply_shot``, and
returns an :class:`Attempt`: whether it solved the puzzle, the referee's ruling (``Ruling.to_dict()``,
the dict a table sends) and the stroke in the record format replays read (:func:`stroke_record`).
Pure: no database, no asyncio.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Dict, Mapping, Optional, Tuple

import protocol
from physics import Shot, simulate
from physics.table import get_table
from rules.carom.diamonds import cushion_diamonds
from rules.drills import game_at, solo_text
from rules.position import Position

CUE = 0
#: a goal per discipline kind: 14.1 ``pot``, every carom discipline ``carom``
GOALS = ("pot", "carom")
GOAL_TEXT = {
    "pot": "Find the pot: call a ball and a pocket and make it",
    "carom": "Find the carom: score a {name} point",
}
STROKE_KEYS = ("phi_deg", "a", "b", "theta_deg", "V0")


def goal_of(discipline: str) -> str:
    """``pot`` for 14.1 (``straight_pool``), ``carom`` for every carom discipline."""
    return "pot" if discipline == "straight_pool" else "carom"


def goal_text(discipline: str) -> str:
    """The goal in words (``Find the carom: score a three-cushion point``)."""
    goal = goal_of(discipline)
    return GOAL_TEXT[goal].format(name=discipline.replace("_", "-"))


@lru_cache(maxsize=None)
def _ids(table_name: str) -> Tuple[Dict[str, int], Dict[str, int]]:
    return protocol.preset_ids(get_table(table_name).to_json())


@dataclass(frozen=True)
class Attempt:
    """A judged stroke: ``solved``; ``ruling`` (``Ruling.to_dict()``: ``text``, ``points``, ``foul``, ...);
    ``record`` (:func:`stroke_record`)."""

    solved: bool
    ruling: Dict[str, Any]
    record: Dict[str, Any]


def new_game(position: Position) -> Any:
    """The referee at ``position``, seat 0 to shoot ball :data:`CUE` (``rules.drills.game_at``, the practice
    table's set-up). Raises ``rules.position.PositionError`` for an impossible position."""
    return game_at(position, 0)


def stroke_record(game: Any, seat: int, stroke: Mapping[str, float], call: Optional[Mapping[str, Any]],
                  sim: Any) -> Dict[str, Any]:
    """One stroke as a replay reads it: ``{"player", "call", "cue_ball_position": null, "stroke", "sim"
    (SimResult.to_json(): ``initial``, ``events``, ``final``), "log" (the wire event log, format 1 of
    protocol/eventlog.py), and for carom "diamonds"`` (rules/carom/diamonds.py: where the cue ball met
    each cushion)}``."""
    rec: Dict[str, Any] = {
        "player": seat, "call": dict(call) if call is not None else None, "cue_ball_position": None,
        "stroke": {k: float(stroke[k]) for k in STROKE_KEYS},
        "sim": sim.to_json(),
        "log": protocol.encode_log(sim, *_ids(game.table.name), fmt=1),
    }
    if game.table.kind == "carom":
        rec["diamonds"] = cushion_diamonds(game.table, sim.events, CUE)
    return rec


def _pocketed(sim: Any, ball: int, pocket: str) -> bool:
    return any(e.kind == "ball_pocket" and e.balls and e.balls[0] == ball and e.pocket == pocket for e in sim.events)


def judge(position: Position, stroke: Mapping[str, float], call: Optional[Mapping[str, Any]] = None) -> Attempt:
    """Play ``stroke`` (``phi_deg`` deg, ``a``/``b`` fractions of R, ``theta_deg`` deg, ``V0`` m/s; already
    within the protocol's limits) from ``position``; 14.1 with ``call`` ``{"ball", "pocket"}``.

    Solved: 14.1, the called ball in the called pocket and no foul (the referee credits the stroke);
    carom, a point scored. Raises ``ValueError`` (the referee's ``IllegalAction`` is one, the physics'
    refusals too) for a stroke or call the referee or the physics refuses: the caller turns it into a 400.
    """
    game = new_game(position)
    seat = 0
    layout = game.prepare_shot(seat, call, None)
    sim = simulate(game.table, layout, Shot(cue_ball=CUE, **{k: float(stroke[k]) for k in STROKE_KEYS}))
    ruling = game.apply_shot(seat, call, sim)
    if goal_of(position.discipline) == "pot":
        solved = (call is not None and "ball" in call and ruling.foul is None and ruling.points[seat] > 0
                  and _pocketed(sim, int(call["ball"]), str(call["pocket"])))
    else:
        solved = ruling.foul is None and ruling.points[seat] > 0
    said = ruling.to_dict()
    said["text"] = solo_text(said.get("text") or "")  # one player: nobody else is "to shoot" (QA)
    return Attempt(bool(solved), said, stroke_record(game, seat, stroke, call, sim))
