"""A finished game's referee ``result`` as the tournament's :class:`~server.tournaments.state.GameResult`.

The figures are those of the player statistics (server/players/stats.py ``seat_lines``: points,
innings, high run per seat, over all sets or all games of a multi-discipline match), so a
tournament's general average is computed from exactly what the profile pages show. ``scores`` (the
14.1 tie-breaks' points for and against): 14.1 — the final score after penalties (``scores``);
carom — the points over the whole match (a match in sets keeps only the last set in ``scores``).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from rules.registry import canonical_name
from server.players.stats import seat_lines
from server.tournaments.state import GameResult, InvalidResult


def from_referee(discipline: str, result: Mapping[str, Any], table_id: Optional[str] = None,
                 game_no: Optional[int] = None) -> GameResult:
    """The :class:`GameResult` of a referee ``result`` of ``discipline`` (seat 0 and 1 as at the table).

    ``table_id``/``game_no``: the game's key in the ``games`` table (both or neither). Raises
    :class:`InvalidResult` for a malformed result or one without statistics.
    """
    try:
        discipline = canonical_name(discipline)
        lines = seat_lines(discipline, result)
    except ValueError as exc:
        raise InvalidResult(f"result: {exc}") from None
    if discipline == "straight_pool":
        sc = result.get("scores")
        if not isinstance(sc, (list, tuple)) or len(sc) != 2 or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in sc):
            raise InvalidResult("result: scores must be two integers")
        scores = [int(sc[0]), int(sc[1])]
    else:
        scores = [lines[0].points, lines[1].points]
    game = [table_id, int(game_no)] if table_id is not None and game_no is not None else None
    return GameResult(winner=result.get("winner"), scores=scores, points=[lines[0].points, lines[1].points],
                      innings=[lines[0].innings, lines[1].innings], high_runs=[lines[0].high_run, lines[1].high_run],
                      game=game)
