"""14.1 lag for the break (R3): the simulated lag of both players, or a seeded draw.

:class:`Lag` is a part of :class:`rules.straight_pool.game.StraightPool`: the lag layout, the
lag phase, the ruling of the simulated lag, and the offer of ``CHOOSE_BREAKER`` to its winner.
"""

from __future__ import annotations

from typing import Dict, Optional

from physics.events import SimResult
from physics.table import Vec2
from rules.base import IllegalAction, Ruling, as_xy, off_table_balls, pocketed_balls, stroke_contacts
from rules.spotting import EPS_LINE
from rules.straight_pool.config import LAG_BEHIND, LAG_TIE, SAME_POS, SEAT_NAMES


class Lag:
    """The lag (R3) and the choice of breaker it gives."""

    def lag_layout(self) -> Dict[int, Vec2]:
        """Start layout of the simulated lag (R3): seat 0's ball (id 0) at (hx - 0.035, W/4), seat 1's (id 1) at 3W/4."""
        x = self.table.head_string_x - LAG_BEHIND
        W = self.table.width
        return {0: (x, W / 4.0), 1: (x, 3.0 * W / 4.0)}

    def _start_lag(self) -> None:
        self.phase = "lag"
        self.to_act = None
        self.balls = {}
        self.in_hand = None
        self.pending = None

    def _random_lag(self) -> int:
        winner = self._rng().randrange(2)
        self._offer_choose_breaker(winner)
        return winner

    def _offer_choose_breaker(self, winner: int) -> None:
        self.balls = {}
        self.in_hand = None
        self.phase = "decision"
        self.to_act = winner
        self.pending = {
            "kind": "lag",
            "player": winner,
            "options": [{"name": "CHOOSE_BREAKER", "args": [0, 1]}],
        }

    def apply_lag(self, sim) -> Ruling:
        """Rule the simulated lag (R3): one simulation of both lag balls from :meth:`lag_layout`.

        A lag is bad if its ball crosses the long string, touches the foot cushion other than
        exactly once, touches any other rail (side rails, pocket facings or jaws), touches the
        other lag ball, is pocketed or leaves the table, or rests beyond the head cushion nose.
        The good lag resting nearer the head cushion wins (ball edge distance); both bad or equal
        within 0.5 mm: lag again. The winner is offered ``CHOOSE_BREAKER``.
        """
        return self._guarded(self._apply_lag, sim)

    def _apply_lag(self, sim) -> Ruling:
        self._check_open()
        if self.phase != "lag":
            raise IllegalAction("bad_phase", "there is no lag to play now", "phase")
        if self.config["lag_mode"] != "simulated":
            raise IllegalAction("bad_phase", "the lag is drawn at random in this match", "phase")
        if not isinstance(sim, SimResult) or sim.table.name != self.table.name:
            raise IllegalAction("bad_sim", "sim: expected the SimResult of the lag on this table", "sim")
        lay = self.lag_layout()
        start = {b: as_xy(s.r) for b, s in sim.initial.items()}
        if set(start) != set(lay) or any(
            abs(start[b][0] - lay[b][0]) > SAME_POS or abs(start[b][1] - lay[b][1]) > SAME_POS for b in lay
        ):
            raise IllegalAction("layout_mismatch", "sim: the lag balls must start from lag_layout()", "sim")
        T = self.table
        contacts = stroke_contacts(sim)
        pocketed = pocketed_balls(sim)
        off = off_table_balls(sim)
        y0 = T.long_string_y
        bad: Dict[int, str] = {}
        dist: Dict[int, float] = {}
        touched = any(c.kind == "ball_ball" and not c.frozen for c in contacts)
        crossed = {}
        for s in (0, 1):
            n = (0.0, 1.0) if lay[s][1] < y0 else (0.0, -1.0)
            lim = y0 if n[1] > 0 else -y0
            crossed[s] = sim.max_projection(s, n) > lim + EPS_LINE
        for s in (0, 1):
            reasons = []
            if crossed[s]:
                reasons.append("crossed the long string")
            rails = [c.cushion for c in contacts if c.kind == "ball_cushion" and c.ball == s and not c.frozen]
            if rails.count("foot") != 1:
                reasons.append(f"touched the foot cushion {rails.count('foot')} times")
            if any(r not in ("foot", "head") for r in rails):
                reasons.append("touched a side rail")
            if s in pocketed:
                reasons.append("pocketed")
            if s in off:
                reasons.append("left the table")
            if touched and not crossed[0] and not crossed[1]:
                reasons.append("touched the other lag ball")
            if not reasons:
                edge = sim.final[s].r[0] - T.R
                if edge < -EPS_LINE:
                    reasons.append("rests beyond the head cushion nose")
                dist[s] = edge
            if reasons:
                bad[s] = ", ".join(reasons)
        text_bad = "; ".join(f"{SEAT_NAMES[s]}'s lag is bad ({r})" for s, r in sorted(bad.items()))
        extras = {"lag": True, "bad": {str(s): r for s, r in bad.items()}, "distances": {str(s): d for s, d in dist.items()}}
        winner: Optional[int] = None
        if len(dist) == 2:
            if abs(dist[0] - dist[1]) > LAG_TIE:
                winner = 0 if dist[0] < dist[1] else 1
        elif len(dist) == 1:
            winner = next(iter(dist))
        if winner is None:
            text = (text_bad + "; " if text_bad else "") + "lag again"
            ruling = self._ruling(None, [0, 0], text[0].upper() + text[1:], extras=extras)
            return self._finish(ruling)
        self._offer_choose_breaker(winner)
        text = (text_bad + "; " if text_bad else "") + f"{SEAT_NAMES[winner]} wins the lag and chooses who breaks"
        extras["lag_winner"] = winner
        return self._finish(self._ruling(None, [0, 0], text[0].upper() + text[1:], extras=extras))
