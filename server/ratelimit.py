"""Credits over a window: a token bucket per connection (messages) and per connection (chat lines)."""

from __future__ import annotations

import time
from typing import Callable


class TokenBucket:
    """``burst`` credits, refilled at ``per_s`` credits per second; :meth:`take` spends one.

    ``clock`` is injectable (monotonic seconds) so tests can drive time.
    """

    __slots__ = ("per_s", "burst", "credits", "stamp", "clock")

    def __init__(self, per_s: float, burst: float, clock: Callable[[], float] = time.monotonic):
        self.per_s, self.burst, self.clock = per_s, burst, clock
        self.credits = burst
        self.stamp = clock()

    def take(self, cost: float = 1.0) -> bool:
        """Spend ``cost`` credits; False (nothing spent) when not enough are left."""
        now = self.clock()
        self.credits = min(self.burst, self.credits + (now - self.stamp) * self.per_s)
        self.stamp = now
        if self.credits < cost:
            return False
        self.credits -= cost
        return True
