"""14.1 racks and spotting: the rack order (R4), spotting balls (R18) and continuous play (R21-R23).

:class:`Racks` is a part of :class:`rules.straight_pool.game.StraightPool`. It draws from the
match's counter-based generator (``seed``, ``rng_count`` in the state), racks all fifteen for an
opening break, spots balls on the long string, and after a fulfilled call re-racks fourteen (or
fifteen) balls with the rack-interference cases of R22 (WPA 4.8, or the T14 table). Geometry
(rack sites, spots, the rack outline) comes from the :mod:`physics.table` preset and
:mod:`rules.spotting`.
"""

from __future__ import annotations

import random
from typing import Dict, Optional, Sequence, Tuple

from physics.table import Vec2
from rules.spotting import behind_head_string, blocks_spot, interferes_with_rack, spot_position
from rules.straight_pool.config import CUE, OBJECT_BALLS, xy_keys


class Racks:
    """Racking (R4), spotting (R18) and the re-racks of continuous play (R21-R23) for the game."""

    def _rng(self) -> random.Random:
        """A fresh generator for draw number ``rng_count`` of this match (counter-based, in the state)."""
        r = random.Random(f"billar-14.1:{self.seed}:{self.rng_count}")
        self.rng_count += 1
        return r

    def rack_positions(self, balls: Sequence[int], full: bool) -> Dict[int, Vec2]:
        """Sites for ``balls`` in a rack (R4): all 15 sites if ``full`` else the 14 without the apex.

        Order per ``rack_order``: ``wpa_random`` a uniform permutation from the match RNG;
        ``wsr_1_5`` ball 1 on the racker's right back corner (the breaker's left, y = W/2 + 4R),
        ball 5 on the other back corner, the rest random; ``classic_15_apex`` ball 15 on the apex,
        1 and 5 as wsr_1_5, the others by rows from the apex in descending number (S2 §3).
        Consumes one RNG draw for the random orders.
        """
        sites = self.table.rack_sites()
        free = list(range(15)) if full else list(range(1, 15))
        balls = sorted(balls)
        if len(balls) != len(free):
            raise ValueError(f"rack: {len(balls)} balls for {len(free)} sites")
        order = self.config["rack_order"]
        out: Dict[int, Vec2] = {}
        if order == "wpa_random":
            perm = list(balls)
            self._rng().shuffle(perm)
            for b, i in zip(perm, free):
                out[b] = sites[i]
            return out
        corners = {1: 14, 5: 10}  # row 4: site 14 at y = W/2 + 4R, site 10 at y = W/2 - 4R
        rest = list(balls)
        for b, i in corners.items():
            if b in rest:
                out[b] = sites[i]
                rest.remove(b)
                free.remove(i)
        if order == "wsr_1_5":
            self._rng().shuffle(rest)
            for b, i in zip(rest, free):
                out[b] = sites[i]
            return out
        for b, i in zip(sorted(rest, reverse=True), free):  # classic_15_apex
            out[b] = sites[i]
        return out

    def _rack_all(self) -> Dict[int, Vec2]:
        """All fifteen object balls racked (apex filled); the cue ball goes in hand behind the head string."""
        self.rack_number += 1
        self.rack_points = [0, 0]
        pos = self.rack_positions(OBJECT_BALLS, True)
        self.balls = dict(pos)
        self.in_hand = "kitchen"
        return pos

    def _start_break(self, breaker: int) -> Dict[int, Vec2]:
        """All fifteen racked, the cue ball in hand behind the head string, ``breaker`` to take an
        opening break (R4, R5); returns the rack positions."""
        pos = self._rack_all()
        self.phase = "break"
        self.to_act = breaker
        self.pending = None
        return pos

    def _rerack_to_break(self, breaker: int) -> dict:
        """:meth:`_start_break`, returning the ruling's ``rerack``: ``{"balls": 1-15, "positions": {id: [x, y]}}``."""
        pos = self._start_break(breaker)
        return {"balls": list(OBJECT_BALLS), "positions": xy_keys(pos)}

    def _spot(self, balls: Sequence[int]) -> Dict[int, Vec2]:
        """Spot ``balls`` one by one in ascending number on the long string (R18); returns their places."""
        out: Dict[int, Vec2] = {}
        for b in sorted(balls):
            occupied = [q for k, q in self.balls.items() if k != CUE]
            cue = self.balls.get(CUE)
            pos = spot_position(self.table, occupied, cue)
            self.balls[b] = pos
            out[b] = pos
        return out

    # ----- R21-R23: continuous play ------------------------------------------------------
    def _continuous_rerack(self) -> Tuple[Optional[dict], Dict[int, Vec2], str]:
        """After a fulfilled call: re-rack when one object ball (R21, R22) or none (R23) is left."""
        obs = self.object_balls_on_table()
        if len(obs) > 1:
            return None, {}, ""
        T = self.table
        cue = self.balls.get(CUE)
        cb_in = cue is not None and interferes_with_rack(T, cue)
        pocketed = [b for b in OBJECT_BALLS if b not in self.balls]
        placed: Dict[int, Vec2] = {}
        if not obs:  # R23
            self.rack_number += 1
            self.rack_points = [0, 0]
            pos = self.rack_positions(pocketed, True)
            self.balls.update(pos)
            note = "all fifteen re-racked"
            if cb_in:
                del self.balls[CUE]
                self.in_hand = "kitchen"
                note += "; cue ball in hand behind the head string"
            return {"balls": sorted(pos), "positions": xy_keys(pos)}, placed, note
        ob = obs[0]
        obp = self.balls[ob]
        hs, cs = T.head_spot, T.centre_spot
        ob_in = interferes_with_rack(T, obp)
        cb_blocks_hs = cue is not None and not cb_in and blocks_spot(T, cue, hs)
        full = False
        note = ""
        if ob_in:  # R22 row 2
            if cb_in:
                full = True
                note = "both balls interfere: all fifteen re-racked; cue ball in hand behind the head string"
            elif cb_blocks_hs:
                placed[ob] = cs
                note = f"{ob} to the centre spot"
            else:
                placed[ob] = hs
                note = f"{ob} to the head spot"
        elif cb_in:  # R22 rows 3-5
            ob_behind = behind_head_string(T, obp)
            ob_blocks_hs = blocks_spot(T, obp, hs)
            if self.config["interference_table"] == "t14" and ob_blocks_hs:
                placed[CUE] = cs
                note = "cue ball to the centre spot"
            elif ob_behind and ob_blocks_hs:
                placed[CUE] = cs
                note = "cue ball to the centre spot"
            elif ob_behind:
                placed[CUE] = hs
                note = "cue ball to the head spot"
            else:
                del self.balls[CUE]
                self.in_hand = "kitchen"
                note = "cue ball in hand behind the head string"
        self.rack_number += 1
        self.rack_points = [0, 0]
        if full:
            del self.balls[CUE]
            self.in_hand = "kitchen"
            pos = self.rack_positions(pocketed + [ob], True)
        else:
            pos = self.rack_positions(pocketed, False)
        self.balls.update(placed)
        self.balls.update(pos)
        head = "all fifteen re-racked" if full else "fourteen re-racked"
        return {"balls": sorted(pos), "positions": xy_keys(pos)}, placed, f"{head}; {note}" if note else head
