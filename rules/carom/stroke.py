# cython: annotation_typing=False
"""The stroke as the carom rules read it (rules-carom C5, C6, C14, C15, C18; K4-K6, K8).

:class:`CaromStroke` reads one :class:`physics.events.SimResult` for one cue ball: its first
event, the first contact with each object ball, the cushion impacts (K4), the balls off the
table; its methods give the carom test (C6), the break's red-first test (C5) and K-F6.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from physics.events import SimResult
from rules.base import EPS_LEAVE, off_table_balls, stroke_contacts
from rules.carom.config import BALLS, EPS_TIE, RED


class CaromStroke:
    """Facts of one stroke for cue ball ``cue`` (C5, C6, C14, C15, C18; K4-K6, K8).

    ``first_event``: the cue ball's first collision (:class:`rules.base.Contact`, initial-freeze
    continuations included) or None; ``first_contact``: object ball id -> time (s) of the cue
    ball's first real contact with it (K5); ``impacts``: ``[(t, cushion)]`` cue-ball cushion
    impacts (K4: a repeated event on the same cushion counts only after the ball separated from
    it by more than ``EPS_LEAVE``); ``off_table``: balls that left the table.
    """

    def __init__(self, sim: SimResult, cue: int):
        self.cue = cue
        self.object_balls = tuple(b for b in BALLS if b != cue)
        self.first_event = None
        self.first_contact: Dict[int, float] = {}
        self.impacts: List[Tuple[float, str]] = []
        cushions = {c.name: c for c in sim.table.cushions}
        R = sim.table.R
        previous: Dict[str, float] = {}
        for c in stroke_contacts(sim):
            if c.kind == "ball_ball" and c.involves(cue):
                if self.first_event is None:
                    self.first_event = c
                if c.frozen:
                    continue
                other = c.other if c.ball == cue else c.ball
                if other in self.object_balls and other not in self.first_contact:
                    self.first_contact[other] = c.t
            elif c.kind == "ball_cushion" and c.ball == cue:
                if self.first_event is None:
                    self.first_event = c
                before = previous.get(c.cushion)
                previous[c.cushion] = c.t
                if c.frozen:
                    continue
                if before is not None and c.cushion in cushions:
                    cu = cushions[c.cushion]
                    n = cu.normal
                    gap = sim.max_projection(cue, n, before, c.t) - (cu.p1[0] * n[0] + cu.p1[1] * n[1]) - R
                    if gap <= EPS_LEAVE:
                        continue  # still in contact since the previous event: one impact (K4)
                self.impacts.append((c.t, c.cushion))
        self.off_table = off_table_balls(sim)

    @property
    def played_into_touching(self) -> bool:
        """K-F6 (C14, C15): the cue ball's first event pushes into a ball or cushion it touched."""
        return self.first_event is not None and self.first_event.frozen

    def second_ball_time(self) -> Optional[float]:
        """t2 of C6: time of the first contact with the second object ball, or None (no carom)."""
        if len(self.first_contact) < len(self.object_balls):
            return None
        return max(self.first_contact.values())

    def cushions_before_second(self) -> int:
        """n of C6: cue-ball impacts before t2 (ties within ``EPS_TIE`` count as before); all impacts if no t2."""
        t2 = self.second_ball_time()
        if t2 is None:
            return len(self.impacts)
        return sum(1 for t, _ in self.impacts if t <= t2 + EPS_TIE)

    def is_carom(self, min_cushions: int) -> bool:
        """C6: both object balls contacted, with at least ``min_cushions`` impacts before the second."""
        return self.second_ball_time() is not None and self.cushions_before_second() >= min_cushions

    def red_first(self, direct: bool) -> bool:
        """C5: the cue ball's first contact is with the red (``direct``: nothing, not even a cushion,
        before it); the red wins ties within ``EPS_TIE`` (K8)."""
        t_red = self.first_contact.get(RED)
        if t_red is None:
            return False
        rivals = [t for b, t in self.first_contact.items() if b != RED]
        if direct:
            rivals.extend(t for t, _ in self.impacts)
        return all(t_red <= t + EPS_TIE for t in rivals)

