# cython: annotation_typing=False
"""The carom match format: distance, equalising inning and draw (C19), inning limit (C20), sets
(C21), the optional rest (C22), tie-breaks (``draw_resolution``) and the statistics (C26).

:class:`MatchFormat` is a part of :class:`rules.carom.game.CaromGame`: it keeps the current
game or set (``frame``), the finished sets (``frames``), ``sets_won``, ``stats`` and
``tiebreak``, and decides after each point or inning what comes next (``_begin_inning`` of the
game starts it).
"""

from __future__ import annotations

from typing import Optional

from rules.base import plain_copy
from rules.carom.config import OVER



class MatchFormat:
    """What ends a game, a set or a match, and the result (C19-C22, C26)."""

    @staticmethod
    def _new_stats() -> dict:
        return {"points": 0, "innings": 0, "strokes": 0, "caroms": 0, "high_run": 0, "fouls": {}, "zone_fouls": 0}

    @staticmethod
    def _new_frame(index: int, starter: int) -> dict:
        return {"index": index, "starter": starter, "scores": [0, 0], "innings": [0, 0], "high_run": [0, 0]}


    @property
    def target(self) -> int:
        """Points to win the current game or set (C19, C21)."""
        sets = self.config["sets"]
        return sets["set_distance"] if sets else self.config["distance"]


    def _after_point(self) -> bool:
        """C19/C21 after a point: True when the game, set or inning ended because of the distance."""
        s = self.striker
        p1 = self.frame["starter"]
        p2 = 1 - p1
        if self.frame["scores"][s] < self.target:
            return False
        if self.equalizing:  # the second player equalised (C19): draw
            self.equalizing = False
            self._frame_tied("equalizing inning: distance reached by both")
            return True
        if s == p2:
            self._frame_won(p2, "distance")
            return True
        if self._equalizing_due():
            self.equalizing = True
            self._begin_inning(p2, opening=True)
            return True
        self._frame_won(p1, "distance")
        return True

    def _equalizing_due(self) -> bool:
        """C19 (no sets: ``equalizing_inning``) and C21 (sets: only with ``first_inning_only``
        when the starter won the set in his first inning)."""
        if self.config["sets"] is None:
            return self.config["equalizing_inning"]
        return self.config["set_equalizing"] == "first_inning_only" and self.frame["innings"][self.frame["starter"]] == 1

    def _inning_over(self) -> None:
        """The striker's inning ended without a point: the next tie-break turn, or :meth:`_end_inning`."""
        if self.tiebreak is not None:
            self._tiebreak_next()
        else:
            self._end_inning()

    def _end_inning(self) -> None:
        """The striker's inning ended without reaching the distance (C19, C20)."""
        s = self.striker
        p1 = self.frame["starter"]
        p2 = 1 - p1
        self._maybe_offer_rest()
        if self.equalizing:
            self.equalizing = False
            self._frame_won(p1, "equalizing inning ended below the distance")
            return
        limit = self.config["inning_limit"]
        if limit is not None:
            if s == p2 and self.frame["innings"][p2] >= limit:
                self._frame_by_score("inning limit")
                return
            if s == p1 and self.frame["innings"][p1] >= limit and self.config["limit_last_inning"] == "from_opening_position":
                self.last_inning = True
                self._begin_inning(p2, opening=True)
                return
        self._begin_inning(1 - s, opening=False)

    def _maybe_offer_rest(self) -> None:
        """C22: offer the optional rest once, at the end of an inning, at half distance (or half the
        inning limit) with at least 15 innings each."""
        if self.rest_offered or self.config["sets"] is not None:
            return
        inn = self.frame["innings"]
        if min(inn) < 15 or inn[0] != inn[1]:
            return
        half = max(self.frame["scores"]) * 2 >= self.target
        limit = self.config["inning_limit"]
        if limit is not None and inn[0] * 2 >= limit:
            half = True
        if half:
            self.rest_offered = True
            self._rest_now = True

    def _frame_by_score(self, reason: str) -> None:
        sc = self.frame["scores"]
        if sc[0] == sc[1]:
            self._frame_tied(reason)
        else:
            self._frame_won(0 if sc[0] > sc[1] else 1, reason)

    def _record_frame(self, winner: Optional[int], reason: str) -> None:
        f = plain_copy(self.frame)
        f["winner"] = winner
        f["reason"] = reason
        self.frames.append(f)

    def _frame_won(self, winner: int, reason: str) -> None:
        self._record_frame(winner, reason)
        sets = self.config["sets"]
        if sets is None:
            self._finish(winner, reason)
            return
        self.sets_won[winner] += 1
        if self.sets_won[winner] >= sets["sets_to_win"]:
            self._finish(winner, "sets")
            return
        stw = sets["sets_to_win"]
        if not self.rest_offered and ((stw == 2 and self.sets_won == [1, 1]) or (stw == 3 and sorted(self.sets_won) in ([0, 2], [1, 2]))):
            self.rest_offered = True
            self._rest_now = True
        self._next_frame()

    def _frame_tied(self, reason: str) -> None:
        if self.config["sets"] is not None:
            # a set cannot be drawn: it is replayed (INTERPRETATION; only possible with first_inning_only)
            self._record_frame(None, reason)
            self._next_frame()
            return
        mode = self.config["draw_resolution"]
        if mode == "draw":
            self._record_frame(None, reason)
            self._finish(None, reason)
            return
        p1 = self.frame["starter"]
        self.tiebreak = {"mode": mode, "round": 1, "points": [0, 0], "order": [p1, 1 - p1], "turn": 0, "rounds": []}
        self._begin_inning(p1, opening=True)

    def _tiebreak_next(self) -> None:
        """``draw_resolution`` (C19): rounds of one inning (``extra_inning``) or one stroke
        (``penalty_shootout``) each from the opening position, the starter first; a round with
        different points decides."""
        tb = self.tiebreak
        tb["turn"] += 1
        if tb["turn"] < 2:
            self._begin_inning(tb["order"][tb["turn"]], opening=True)
            return
        pts = tb["points"]
        tb["rounds"].append(list(pts))
        if pts[0] != pts[1]:
            winner = 0 if pts[0] > pts[1] else 1
            self._record_frame(winner, f"tie-break ({tb['mode']})")
            self._finish(winner, f"tie-break ({tb['mode']})")
            return
        tb["round"] += 1
        tb["points"] = [0, 0]
        tb["turn"] = 0
        self._begin_inning(tb["order"][0], opening=True)

    def _next_frame(self) -> None:
        """C21: the next set from the opening position; the first breaker breaks odd sets."""
        index = self.frame["index"] + 1
        breaker = self.white_seat if index % 2 == 1 else 1 - self.white_seat
        self.frame = self._new_frame(index, breaker)
        self.equalizing = False
        self.last_inning = False
        self._begin_inning(breaker, opening=True)

    def _finish(self, winner: Optional[int], reason: str) -> None:
        self.phase = OVER
        self.options = []
        self.zones = {}
        self.result = self._result(winner, reason)

    def _result(self, winner: Optional[int], reason: str) -> dict:
        st = self.stats
        res = {
            "winner": winner,
            "draw": winner is None,
            "reason": reason,
            "scores": list(self.frame["scores"]),
            "innings": list(self.frame["innings"]),
            "points": [st[0]["points"], st[1]["points"]],
            "innings_total": [st[0]["innings"], st[1]["innings"]],
            "averages": [self._avg(st[s]["points"], st[s]["innings"]) for s in (0, 1)],
            "high_runs": [st[0]["high_run"], st[1]["high_run"]],
            "white_seat": self.white_seat,
        }
        if self.config["sets"] is not None:
            res["sets_won"] = list(self.sets_won)
            res["sets"] = [list(f["scores"]) for f in self.frames]
            res["set_innings"] = [list(f["innings"]) for f in self.frames]
            # C26 over a match: general average (all sets) and best set average
            res["general_average"] = list(res["averages"])
            res["best_set_average"] = [max([self._avg(f["scores"][s], f["innings"][s]) for f in self.frames] or [0.0])
                                       for s in (0, 1)]
        if self.tiebreak is not None:
            res["tiebreak"] = {"mode": self.tiebreak["mode"], "rounds": plain_copy(self.tiebreak["rounds"])}
        return res

    @staticmethod
    def _avg(points: int, innings: int) -> float:
        return round(points / innings, 3) if innings else 0.0

