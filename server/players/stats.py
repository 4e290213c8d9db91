"""A finished game's figures per seat, read from the referee's result (the one place they are computed).

Every referee's ``result`` (rules/carom.py ``_result``, rules/straight_pool.py ``_game_over``,
rules/multi.py ``_finish``) names the winner (a seat, or None for a draw) and the statistics:

- 14.1 and each carom discipline: ``points``, ``innings_total``, ``high_runs`` per seat (14.1:
  points before penalties, innings of R27; carom: over all sets, C26);
- pentathlon and triathlon: ``games``, each with ``scores``, ``innings``, ``high_runs`` and
  ``averages`` per seat.

:func:`seat_lines` turns that into one :class:`SeatLine` per seat: the score for the rating
(1 win, 0.5 draw, 0 loss), points, innings, high run, the game's average (points per inning) and
its best single-game average (the game itself, or a multi-discipline match's best game). A 14.1
result from before the statistics were in it lacks them: :class:`MissingStatistics`, and the
caller replays the record through the referee (:func:`replayed_result`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Mapping, Optional

from rules.registry import canonical_name

MULTI = ("pentathlon", "triathlon")


class MissingStatistics(ValueError):
    """The result does not carry the statistics (a 14.1 game recorded before they were in it)."""


@dataclass(frozen=True)
class SeatLine:
    score: float
    points: int
    innings: int
    high_run: int
    average: float
    best_average: float


def _avg(points: int, innings: int) -> float:
    return points / innings if innings else 0.0


def _pair(result: Mapping, key: str) -> List[int]:
    v = result.get(key)
    if not isinstance(v, (list, tuple)) or len(v) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise MissingStatistics(f"result: {key} is missing or not two integers")
    return [int(v[0]), int(v[1])]


def scores(result: Mapping) -> List[float]:
    """[score of seat 0, score of seat 1]: 1 / 0 for a win, 0.5 each for a draw. ``ValueError`` for a bad winner."""
    w = result.get("winner")
    if w is None:
        return [0.5, 0.5]
    if w not in (0, 1) or isinstance(w, bool):
        raise ValueError(f"result: winner must be 0, 1 or null, got {w!r}")
    return [1.0, 0.0] if w == 0 else [0.0, 1.0]


def seat_lines(discipline: str, result: Mapping[str, Any]) -> List[SeatLine]:
    """One :class:`SeatLine` per seat from a referee's ``result``.

    Raises :class:`MissingStatistics` when the result lacks the statistics, ``ValueError`` for an
    unknown discipline or a malformed result.
    """
    discipline = canonical_name(discipline)
    if not isinstance(result, Mapping):
        raise ValueError("result: expected an object")
    sc = scores(result)
    if discipline in MULTI:
        games = result.get("games")
        if not isinstance(games, list) or not games:
            raise MissingStatistics("result: games missing")
        pts, inn, hr, best = [0, 0], [0, 0], [0, 0], [0.0, 0.0]
        for g in games:
            if not isinstance(g, Mapping):
                raise MissingStatistics("result: a game is not an object")
            s, i, h = _pair(g, "scores"), _pair(g, "innings"), _pair(g, "high_runs")
            for seat in (0, 1):
                pts[seat] += s[seat]
                inn[seat] += i[seat]
                hr[seat] = max(hr[seat], h[seat])
                best[seat] = max(best[seat], _avg(s[seat], i[seat]))
        return [SeatLine(sc[s], pts[s], inn[s], hr[s], _avg(pts[s], inn[s]), best[s]) for s in (0, 1)]
    pts, inn, hr = _pair(result, "points"), _pair(result, "innings_total"), _pair(result, "high_runs")
    return [SeatLine(sc[s], pts[s], inn[s], hr[s], _avg(pts[s], inn[s]), _avg(pts[s], inn[s])) for s in (0, 1)]


def replayed_result(record: Mapping[str, Any]) -> Optional[dict]:
    """The referee's result after re-judging an exported record (rules/replay.py), or None if it does not finish.

    Raises ``ValueError`` when the record cannot be applied.
    """
    from rules.replay import replay

    gen = replay(record)
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            game = stop.value
            break
    return game.result if game is not None and game.over else None
