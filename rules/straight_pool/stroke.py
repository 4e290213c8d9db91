"""What the 14.1 rules read from one stroke's event log (rules-14-1 D4-D6, D8; R5, R9, R12 F1-F5).

:class:`StrokeFacts` reads a :class:`physics.events.SimResult` once: the collisions in order
(:func:`rules.base.stroke_contacts`, initial-freeze continuations marked, D6), the cue ball's
first contact, pocketed and off-table balls, the resting layout; its methods answer the rule
questions (rails after the first contact, balls driven to a rail, the standard fouls F1-F5 of
the stroke, the balls to spot). It knows nothing of the game's state beyond what it is given.
"""

from __future__ import annotations

import math
from typing import Callable, Dict, FrozenSet, List, Mapping, Optional

from physics.events import SimResult
from physics.table import Vec2
from rules.base import EPS_LEAVE, as_xy, frozen_pairs, off_table_balls, pocketed_balls, stroke_contacts
from rules.spotting import EPS_LINE, behind_head_string
from rules.straight_pool.config import CUE


class StrokeFacts:
    """What the rules read from one stroke's event log (D4-D6, D8).

    ``start``: layout at the strike; ``contacts``: rules/base.py contacts in order, aligned with
    ``events``; ``first``: index of the cue ball's first contact with an object ball (D6: a
    frozen cue ball pushing its object ball counts), ``first_ball`` that ball; ``pocketed``
    ball -> pocket; ``off`` off-table balls; ``resting`` the balls left on the bed.
    """

    def __init__(self, sim: Optional[SimResult], start, shooter: int, in_hand: Optional[str] = None,
                 restrict: Optional[Callable[[int, Dict[int, Vec2], FrozenSet], Dict[int, str]]] = None):
        """``sim``: the stroke (None: no stroke, see :meth:`idle`); ``start``: ball id -> (x, y) m at
        the strike; ``shooter``: the seat; ``in_hand``: the region the cue ball was in hand in, or
        None; ``restrict(shooter, start, frozen)``: object ball -> rail whose contact does not count for the
        shooter now (R24, :mod:`rules.straight_pool.near_rail`), or None for no restriction."""
        self.sim = sim
        self.start: Dict[int, Vec2] = dict(start) if start else {}
        self.shooter = shooter
        self.in_hand = in_hand
        self.contacts = []
        self.events = []
        self.pocketed: Dict[int, str] = {}
        self.off = frozenset()
        self.first: Optional[int] = None
        self.first_ball: Optional[int] = None
        self.resting: Dict[int, Vec2] = {}
        self.frozen = frozenset()
        self.restricted: Dict[int, str] = {}
        self.ob_pocketed: Dict[int, str] = {}
        if sim is None:
            return
        T = sim.table
        self.frozen = frozen_pairs(T, self.start)
        self.contacts = stroke_contacts(sim, self.frozen)
        self.events = [e for e in sim.events if e.kind in ("ball_ball", "ball_cushion", "ball_pocket", "off_table")]
        self.pocketed = pocketed_balls(sim)
        self.off = off_table_balls(sim)
        self.ob_pocketed = {b: pk for b, pk in self.pocketed.items() if b != CUE}
        self.resting = {
            b: as_xy(s.r) for b, s in sim.final.items() if s.state != "pocketed" and b not in self.off and b not in self.pocketed
        }
        for i, c in enumerate(self.contacts):
            if c.kind != "ball_ball" or not c.involves(CUE):
                continue
            other = c.other if c.ball == CUE else c.ball
            if other == CUE or other is None:
                continue
            if c.frozen and not self._frozen_push(i, other):
                continue
            self.first = i
            self.first_ball = other
            break
        self.restricted = restrict(shooter, self.start, self.frozen) if restrict is not None else {}

    @classmethod
    def idle(cls, balls: Mapping[int, Vec2], shooter: int, in_hand: Optional[str]) -> "StrokeFacts":
        """No stroke (shot-clock foul): every ball of ``balls`` stays where it lies."""
        f = cls(None, balls, shooter, in_hand)
        f.resting = dict(balls)
        return f

    def _frozen_push(self, i: int, ball: int) -> bool:
        """D6 exception: the cue ball frozen to ``ball`` and the stroke moves that ball at this contact."""
        st = self.events[i].states.get(ball)
        if st is not None and (st.state in ("sliding", "rolling") or abs(st.v[0]) + abs(st.v[1]) > 0.0):
            return True
        for c in self.contacts[:i]:
            if c.involves(ball):
                return False
        p0 = self.start[ball]
        if ball in self.pocketed or ball in self.off:
            return True
        p1 = self.resting.get(ball, p0)
        return math.hypot(p1[0] - p0[0], p1[1] - p0[1]) > EPS_LEAVE

    # ----- derived facts ---------------------------------------------------------------------
    def rails_after_first(self) -> list:
        """Rail contacts (D4) after the first contact, the R24 restrictions applied."""
        if self.first is None:
            return []
        out = []
        for c in self.contacts[self.first + 1:]:
            if c.kind != "ball_cushion" or c.frozen:
                continue
            if self.restricted.get(c.ball) == c.cushion and c.ball == self.first_ball:
                continue
            out.append(c)
        return out

    def cue_driven_after_first(self) -> bool:
        """The cue ball is driven to a rail after its first object-ball contact (D4, R5b)."""
        if self.first is None:
            return False
        if CUE in self.pocketed or CUE in self.off:
            return True
        return any(c.ball == CUE for c in self.rails_after_first())

    def object_balls_driven(self) -> set:
        """Object balls driven to a rail on the stroke: a rail contact, pocketed or off the table (D4)."""
        out = {b for b in self.ob_pocketed}
        out |= {b for b in self.off if b != CUE}
        for c in self.contacts:
            if c.kind == "ball_cushion" and not c.frozen and c.ball != CUE:
                out.add(c.ball)
        return out

    def rail_requirement_met(self) -> bool:
        """R9: after the first contact an object ball is pocketed, or the cue ball or an object ball is
        driven to a rail (pocketed or off-table counts, D4)."""
        if self.first is None:
            return False
        if self.ob_pocketed or self.off or CUE in self.pocketed:
            return True
        return bool(self.rails_after_first())

    def fouls(self, config: Mapping) -> List[str]:
        """The standard fouls of the stroke (R12 F1-F5), in detection order."""
        T = self.sim.table
        out = []
        if CUE in self.pocketed:
            out.append("scratch")
        if CUE in self.off:
            out.append("cue_ball_off_table")
        if self.first is None:
            out.append("no_contact")
        elif not self.rail_requirement_met():
            out.append("no_rail")
        if config["object_ball_off_table_is_foul"] and any(b != CUE for b in self.off):
            out.append("object_ball_off_table")
        if self.in_hand == "kitchen":
            hx = T.head_string_x
            if self.first is not None:
                t1 = self.contacts[self.first].t
                first_pos = self.sim.ball_state_at(self.first_ball, t1).r
                crossed = self.sim.max_projection(CUE, (1.0, 0.0), 0.0, t1) > hx + EPS_LINE
                if behind_head_string(T, first_pos) and not crossed:
                    out.append("bad_kitchen_play")  # F5a
                    return out
            crossed_ever = self.sim.max_projection(CUE, (1.0, 0.0), 0.0, math.inf) > hx + EPS_LINE
            front_contact = False
            for c in self.contacts:
                if c.kind == "ball_ball" and c.involves(CUE) and not c.frozen:
                    o = c.other if c.ball == CUE else c.ball
                    if not behind_head_string(T, self.sim.ball_state_at(o, c.t).r):
                        front_contact = True
                        break
            if not crossed_ever and not front_contact:
                out.append("kitchen_not_left")  # F5b
        return out

    def to_spot(self) -> List[int]:
        """Object balls spotted after a stroke that scores nothing (a foul R12, a miss or safety R19,
        a breaking foul R6): every pocketed and every off-table object ball (R20)."""
        return sorted(set(self.ob_pocketed) | {b for b in self.off if b != CUE})

    def jumped_object_balls(self) -> List[int]:
        """Off-table object balls (spotted after a scoring stroke under the R20 variant)."""
        return sorted(b for b in self.off if b != CUE)

