"""14.1 R24: the near-rail and frozen-ball safety limits (``near_rail_limit`` ``wsr`` or ``frozen_two_each``).

``wsr`` (WSR, S0): two successive safeties on an object ball near its rail (gap < 2R) are allowed;
after them, and at once while the player is on a foul, a contact of that ball with that rail does
not count as a rail (the ball is treated as frozen to it). ``frozen_two_each`` (S2 §12): two
safeties each on a ball frozen to a rail; the third must drive the ball to another rail or the cue
ball to a rail, else all fifteen are re-racked and the shooter breaks. :class:`NearRail` is a part
of :class:`rules.straight_pool.game.StraightPool` (counts in ``near_rail`` per seat).
"""

from __future__ import annotations

import math
from typing import Dict, Mapping, Optional

from physics.table import Table, Vec2
from rules.base import Ruling
from rules.straight_pool.config import CUE, SEAT_NAMES
from rules.straight_pool.stroke import StrokeFacts


def near_rail_balls(table: Table, start: Mapping[int, Vec2], frozen) -> Dict[int, str]:
    """R24 ``wsr``: object balls not frozen to a cushion whose gap to the nearest rail nose is < 2R."""
    R = table.R
    rails = [c for c in table.cushions if "." not in c.name]
    frozen_to_cushion = {a for a, b in frozen if isinstance(b, str)}
    out: Dict[int, str] = {}
    for b, p in start.items():
        if b == CUE or b in frozen_to_cushion:
            continue
        best, name = math.inf, None
        for c in rails:
            dx, dy = c.p2[0] - c.p1[0], c.p2[1] - c.p1[1]
            s = ((p[0] - c.p1[0]) * dx + (p[1] - c.p1[1]) * dy) / (dx * dx + dy * dy)
            if not 0.0 <= s <= 1.0:
                continue
            gap = (p[0] - c.p1[0]) * c.normal[0] + (p[1] - c.p1[1]) * c.normal[1] - R
            if gap < best:
                best, name = gap, c.name
        if name is not None and best < 2.0 * R:
            out[b] = name
    return out



class NearRail:
    """R24 for the game: which rails do not count for a player now, and the counts after each stroke."""

    def _restricted_rails(self, p: int, start: Mapping[int, Vec2], frozen) -> Dict[int, str]:
        """R24 ``wsr``: object balls whose contact with their near rail does not count for ``p`` now."""
        if self.config["near_rail_limit"] != "wsr":
            return {}
        near = near_rail_balls(self.table, start, frozen)
        if self.fouls_in_row[p] >= 1:
            return near
        nr = self.near_rail[p]
        if nr and nr["count"] >= 2 and near.get(nr["ball"]) == nr["rail"]:
            return {nr["ball"]: nr["rail"]}
        return {}

    def _update_near_rail(self, p: int, facts: StrokeFacts) -> None:
        """Count consecutive near-rail safeties (R24 ``wsr``) after a legal stroke of ``p``."""
        if self.config["near_rail_limit"] != "wsr":
            return
        x = facts.first_ball
        near = near_rail_balls(self.table, facts.start, facts.frozen)
        rail = near.get(x) if x is not None else None
        ok = rail is not None and not facts.ob_pocketed and not facts.off
        if ok:
            after = facts.rails_after_first()
            ok = bool(after) and all(c.ball == x and c.cushion == rail for c in after)
        if not ok:
            self.near_rail[p] = None
            return
        nr = self.near_rail[p]
        if nr and nr["ball"] == x and nr["rail"] == rail:
            nr["count"] += 1
        else:
            self.near_rail[p] = {"ball": x, "rail": rail, "count": 1}

    def _reset_near_rail(self, p: int) -> None:
        if self.config["near_rail_limit"] in ("wsr", "frozen_two_each"):
            self.near_rail[p] = None

    def _frozen_two_each(self, p: int, call, facts: StrokeFacts) -> Optional[Ruling]:
        """R24 ``frozen_two_each`` (S2 §12): two safeties each on a ball frozen to a rail; the third must
        drive that ball to another rail or the cue ball to a rail after the contact, else all fifteen are
        re-racked and the shooter breaks. Counts legal strokes that pocket nothing and first contact
        a ball frozen to a rail; any other stroke of the player resets his count."""
        x = facts.first_ball
        rail = None
        if x is not None:
            for pair in facts.frozen:
                if pair[0] == x and isinstance(pair[1], str):
                    rail = pair[1]
                    break
        if rail is None or facts.ob_pocketed:
            self.near_rail[p] = None
            return None
        nr = self.near_rail[p]
        count = nr["count"] if nr and nr["ball"] == x and nr["rail"] == rail else 0
        if count >= 2:
            after = facts.rails_after_first()
            good = any(c.ball == x and c.cushion != rail for c in after) or any(c.ball == CUE for c in after)
            self.near_rail[p] = None
            if not good:
                self.fouls_in_row[p] = 0
                self._end_inning()
                rerack = self._rerack_to_break(p)
                return self._ruling(
                    p,
                    [0, 0],
                    f"Third safety on frozen ball {x} without a new rail: all fifteen re-racked, {SEAT_NAMES[p]} breaks",
                    rerack=rerack,
                    extras={"break": False, "frozen_ball_limit": True},
                )
            return None
        self.near_rail[p] = {"ball": x, "rail": rail, "count": count + 1}
        return None
