"""The shot clock of one table: who is timed, until when, and what is left of a turn it stopped in.

The clock runs only for the player to act, only while that player is connected, and only where
the referee rules a time-out (``GameBase.clock_applies``): a disconnected player is covered by
the grace period and the opponent's claim, and a restart never times anybody out. A turn is
identified by (seat, game number, strokes and rulings so far): re-armed within the same turn (a
seat change, the opponent dropping or coming back) the clock goes on; when the player to act
drops and comes back in the same turn it goes on with the time that was left (at least
:data:`RESUME_MIN_S`), so reconnecting never buys a fresh limit.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable, Dict, Optional, Tuple

RESUME_MIN_S = 5.0  # s, the least a player who reconnects in the middle of a turn gets on the shot clock

Marker = Tuple[int, int, float]  # (arming generation, seat, deadline): a timer of an older arming is stale
TurnKey = Tuple[int, int, int]  # (seat, game number, turn)


class ShotClock:
    """``view``: ``{"seat", "limit_s", "deadline"}`` (deadline in Unix s) while running, else None; ``turn``:
    strokes and rulings so far. ``expire(marker)`` is called (by the timer) when the time is up; the actor
    passes a function that queues it into its inbox."""

    def __init__(self, expire: Callable[[Marker], Any]):
        self._expire = expire
        self.view: Optional[Dict[str, Any]] = None
        self.turn = 0
        self._left: Optional[Tuple[TurnKey, float]] = None  # (turn key, s left) of a clock stopped mid-turn
        self._gen = 0
        self._handle: Optional[asyncio.TimerHandle] = None

    def next_turn(self) -> None:
        self.turn += 1

    def arm(self, limit_s: Optional[float], runs: bool, to_act: Optional[int], game_no: int) -> None:
        """(Re)start the clock for ``to_act`` when ``runs`` (the table has a limit, the referee times this phase,
        both seats are taken and the player to act is connected), else stop it, keeping what was left."""
        self.cancel_timer()
        now = time.time()
        running = self.view
        if limit_s is None or not runs or to_act is None:
            if running is not None:  # stopped: what was left of this turn waits for the player's return
                self._left = ((running["seat"], game_no, self.turn), running["deadline"] - now)
            self.view = None
            return
        key = (to_act, game_no, self.turn)
        if running is not None and (running["seat"], game_no, self.turn) == key:
            left = max(0.0, running["deadline"] - now)  # the same turn, clock running: it goes on
        elif self._left is not None and self._left[0] == key:
            left = min(limit_s, max(self._left[1], RESUME_MIN_S))  # the same turn, clock stopped meanwhile
        else:
            left = limit_s
        self._left = None
        deadline = now + left
        self.view = {"seat": to_act, "limit_s": limit_s, "deadline": deadline}
        self._gen += 1
        marker = (self._gen, to_act, deadline)
        self._handle = asyncio.get_running_loop().call_later(left, self._expire, marker)

    def expired(self, marker: Marker) -> Optional[int]:
        """The seat whose time is up, if ``marker`` is the running clock's (else None: stale)."""
        v = self.view
        if v is None or marker != (self._gen, v["seat"], v["deadline"]):
            return None
        return v["seat"]

    def stop(self) -> None:
        self.cancel_timer()
        self.view = None

    def cancel_timer(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def save(self) -> Tuple[int, Optional[Dict[str, Any]], Any]:
        """What a fault rollback puts back (see ``TableActor``): the turn, the running clock, what was left."""
        return self.turn, self.view, self._left

    def restore(self, saved: Tuple[int, Optional[Dict[str, Any]], Any]) -> None:
        self.turn, self.view, self._left = saved
