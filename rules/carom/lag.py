# cython: annotation_typing=False
"""The carom lag (rules-carom C4): both lag strokes simulated at once, or a seeded draw.

:class:`Lag` is a part of :class:`rules.carom.game.CaromGame`: the lag layout and the ruling of
the simulated lag; its winner chooses who breaks (``CHOOSE_BREAKER``).
"""

from __future__ import annotations

from typing import Dict, Tuple

from physics.events import SimResult
from rules.base import IllegalAction, Ruling, as_xy, off_table_balls, stroke_contacts
from rules.carom.config import CHOOSE_BREAKER, D_CHOOSE_BREAKER, LAG, LAG_CUSHION_OFFSET, LAG_EQUAL, RED


class Lag:
    """The lag (C4) and the choice of breaker it gives."""

    def lag_layout(self) -> Dict[int, Tuple[float, float]]:
        """C4: seat 0's ball (0) at (L/4, 0.30), seat 1's ball (1) at (L/4, W - 0.30), red on the top spot."""
        t = self.table
        x = t.bottom_spot[0]
        return {0: (x, LAG_CUSHION_OFFSET), 1: (x, t.width - LAG_CUSHION_OFFSET), RED: as_xy(t.top_spot)}


    # ----- the lag (C4) --------------------------------------------------------------------
    def apply_lag(self, sim: SimResult) -> Ruling:
        """Judge the simulated lag (C4, ``lag_mode = simulated``): both lag strokes in one simulation.

        Seat s lags ball s from :meth:`lag_layout`. A ball that touches the red, leaves the table,
        does not reach the top cushion (INTERPRETATION of "to the top cushion and back"), or
        crossed the long string (y = W/2) before a collision of the two balls loses; a collision whose fault cannot be told (both or neither crossed),
        both balls faulty, or distances equal within 0.5 mm mean a repeat. Otherwise the ball that
        stops nearer the short cushion it started from (the bottom one, x = 0: distance x - R) wins, and its seat chooses who breaks.
        Raises :class:`IllegalAction` outside the lag or for a simulation of another layout.
        """
        return self._guarded(self._apply_lag, sim)

    def _apply_lag(self, sim) -> Ruling:
        self._check_open()
        if self.phase != LAG:
            raise IllegalAction("bad_phase", f"no lag in phase {self.phase}", "phase")
        self._check_sim(sim, self.lag_layout(), [0, 1])
        t = self.table
        top = [c for c in t.cushions if c.normal[0] < -0.5][0].name
        contacts = stroke_contacts(sim)
        faults = {0: [], 1: []}
        t_meet = None
        reached_top = {0: False, 1: False}
        for c in contacts:
            if c.kind == "ball_ball" and not c.frozen:
                pair = {c.ball, c.other}
                if pair == {0, 1}:
                    if t_meet is None:
                        t_meet = c.t
                else:
                    for s in (0, 1):
                        if s in pair and RED in pair and "touched the red" not in faults[s]:
                            faults[s].append("touched the red")
            elif c.kind == "ball_cushion" and c.ball in (0, 1) and c.cushion == top:
                reached_top[c.ball] = True
        off = off_table_balls(sim)
        for s in (0, 1):
            if s in off:
                faults[s].append("left the table")
            if not reached_top[s]:
                faults[s].append("did not reach the top cushion")
        undetermined = False
        if t_meet is not None:
            half = t.width / 2.0
            crossed = {
                0: sim.max_projection(0, (0.0, 1.0), 0.0, t_meet) > half,
                1: sim.max_projection(1, (0.0, -1.0), 0.0, t_meet) > -half,
            }
            if crossed[0] != crossed[1]:
                s = 0 if crossed[0] else 1
                faults[s].append("crossed the long string before the collision")
            else:
                undetermined = True
        dist = [None, None]
        for s in (0, 1):
            if s not in off:
                dist[s] = sim.final[s].r[0] - t.R
        faulty = [s for s in (0, 1) if faults[s]]
        winner = None
        if len(faulty) == 1:
            winner = 1 - faulty[0]
        elif not faulty and not undetermined:
            if abs(dist[0] - dist[1]) > LAG_EQUAL:
                winner = 0 if dist[0] < dist[1] else 1
        ruling = Ruling(None, [0, 0], list(self.frame["scores"]))
        ruling.extras["lag"] = {"distances": dist, "faults": [faults[0], faults[1]], "winner": winner,
                                "repeat": winner is None}
        if winner is None:
            ruling.next_player = None
            why = "both balls faulty" if len(faulty) == 2 else ("the collision's fault cannot be told" if undetermined
                                                              else "equal distances")
            ruling.text = f"Lag repeated: {why}"
            return ruling
        self.lag_winner = winner
        self.phase = CHOOSE_BREAKER
        ruling.next_player = winner
        ruling.options = [D_CHOOSE_BREAKER]
        loser = 1 - winner
        why = f" (seat {loser}: " + "; ".join(faults[loser]) + ")" if faults[loser] else ", nearer the short cushion it started from"
        ruling.text = f"Lag won by seat {winner}{why}; seat {winner} chooses who breaks"
        return ruling

