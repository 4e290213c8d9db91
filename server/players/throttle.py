"""Failed-login limits: per account and per client address, behind a small interface.

:class:`LoginThrottle` is what :class:`server.players.accounts.Accounts` asks; the in-memory
:class:`MemoryLoginThrottle` serves one process (the lead backs the interface with Redis for
several). Keys are the canonical key of the name typed (server/players/names.py), whether or not
such an account exists, so the limits say nothing about which names are registered, and the
client address as the transport gives it.

Limits (sliding windows): :data:`ACCOUNT_FAILURES` failures on one name within
:data:`WINDOW_S` lock that name's logins until the oldest of them leaves the window
(:meth:`LoginThrottle.account_retry_after`; they are answered ``429`` "too many failed logins for
this name", for a name that exists or not alike); :data:`ADDRESS_FAILURES` failures from one address within the window make
that address wait (``429``). A successful login clears the account's count, not the address's.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Callable, Deque, Dict, Protocol

WINDOW_S = 15 * 60.0
ACCOUNT_FAILURES = 10
ADDRESS_FAILURES = 30
#: most keys one process tracks; the oldest are forgotten past it (bounded memory under a flood)
MAX_KEYS = 100_000


class LoginThrottle(Protocol):
    async def account_locked(self, account_key: str) -> bool:
        """True while ``account_key`` has had too many failed logins."""

    async def account_retry_after(self, account_key: str) -> float:
        """Seconds until ``account_key`` is no longer locked (0 when it is not)."""

    async def address_blocked(self, address: str) -> bool:
        """True while ``address`` has had too many failed logins."""

    async def failed(self, account_key: str, address: str) -> None:
        """Count one failed login of ``account_key`` from ``address``."""

    async def succeeded(self, account_key: str, address: str) -> None:
        """A login succeeded: forget the failures of ``account_key``."""


class _Windows:
    def __init__(self, limit: int, window_s: float, clock: Callable[[], float]):
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self.hits: Dict[str, Deque[float]] = {}

    def _live(self, key: str) -> Deque[float]:
        q = self.hits.get(key)
        if q is None:
            return deque()
        cut = self.clock() - self.window_s
        while q and q[0] <= cut:
            q.popleft()
        if not q:
            del self.hits[key]
        return q

    def over(self, key: str) -> bool:
        return len(self._live(key)) >= self.limit

    def retry_after(self, key: str) -> float:
        q = self._live(key)
        if len(q) < self.limit:
            return 0.0
        return max(0.0, q[-self.limit] + self.window_s - self.clock())

    def add(self, key: str) -> None:
        q = self._live(key)
        if key not in self.hits:
            if len(self.hits) >= MAX_KEYS:
                self.hits.pop(next(iter(self.hits)))
            self.hits[key] = q
        q.append(self.clock())
        while len(q) > self.limit:  # only the last ``limit`` matter
            q.popleft()

    def clear(self, key: str) -> None:
        self.hits.pop(key, None)


class MemoryLoginThrottle:
    """:class:`LoginThrottle` in this process's memory (``clock``: seconds, monotonic by default)."""

    def __init__(self, account_failures: int = ACCOUNT_FAILURES, address_failures: int = ADDRESS_FAILURES,
                 window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic):
        self.accounts = _Windows(account_failures, window_s, clock)
        self.addresses = _Windows(address_failures, window_s, clock)

    async def account_locked(self, account_key: str) -> bool:
        return self.accounts.over(account_key)

    async def account_retry_after(self, account_key: str) -> float:
        return self.accounts.retry_after(account_key)

    async def address_blocked(self, address: str) -> bool:
        return self.addresses.over(address)

    async def failed(self, account_key: str, address: str) -> None:
        self.accounts.add(account_key)
        self.addresses.add(address)

    async def succeeded(self, account_key: str, address: str) -> None:
        self.accounts.clear(account_key)


class RedisLoginThrottle:
    """:class:`LoginThrottle` shared by every process of a cluster, in Redis sliding windows.

    ``store``: anything with ``window_add(name, window_s)``, ``window_count(name, window_s)`` and
    ``window_clear(name)`` (server/store/redis.py ``Store``). When Redis is unreachable the limits
    fail open for the check (a login is not refused for it) and the failure is not counted.
    """

    def __init__(self, store, account_failures: int = ACCOUNT_FAILURES, address_failures: int = ADDRESS_FAILURES,
                 window_s: float = WINDOW_S):
        self.store, self.window_s = store, window_s
        self.account_failures, self.address_failures = account_failures, address_failures

    async def _count(self, name: str) -> int:
        try:
            return await self.store.window_count(name, self.window_s)
        except Exception:
            return 0

    async def account_locked(self, account_key: str) -> bool:
        return await self._count(f"login-account:{account_key}") >= self.account_failures

    async def account_retry_after(self, account_key: str) -> float:
        """The whole window (the store keeps counts, not times: an upper bound)."""
        return self.window_s if await self.account_locked(account_key) else 0.0

    async def address_blocked(self, address: str) -> bool:
        return await self._count(f"login-address:{address}") >= self.address_failures

    async def failed(self, account_key: str, address: str) -> None:
        try:
            await self.store.window_add(f"login-account:{account_key}", self.window_s)
            await self.store.window_add(f"login-address:{address}", self.window_s)
        except Exception:
            pass

    async def succeeded(self, account_key: str, address: str) -> None:
        try:
            await self.store.window_clear(f"login-account:{account_key}")
        except Exception:
            pass
