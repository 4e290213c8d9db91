"""Credits over a window: token buckets (per connection for messages and chat lines; per key for HTTP)."""

from __future__ import annotations

import time
from collections import OrderedDict
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


class KeyedLimiter:
    """A :class:`TokenBucket` per key (a client address, an account), at most ``max_keys`` of them: the
    least recently used bucket is forgotten first (a forgotten key starts again with a full burst)."""

    def __init__(self, per_s: float, burst: float, max_keys: int = 10_000, clock: Callable[[], float] = time.monotonic):
        self.per_s, self.burst, self.max_keys, self.clock = per_s, burst, max_keys, clock
        self._buckets: "OrderedDict[str, TokenBucket]" = OrderedDict()

    def take(self, key: str, cost: float = 1.0) -> bool:
        b = self._buckets.get(key)
        if b is None:
            b = self._buckets[key] = TokenBucket(self.per_s, self.burst, self.clock)
            if len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return b.take(cost)
