"""Failed-login limits: per account, per device cookie and per client address, behind a small interface.

:class:`LoginThrottle` is what :class:`server.players.accounts.Accounts` asks; the in-memory
:class:`MemoryLoginThrottle` serves one process, :class:`RedisLoginThrottle` every process of a
cluster. Keys are the canonical key of the name typed (server/players/names.py), whether or not
such an account exists, so the limits say nothing about which names are registered; the key of a
valid device cookie (``"<account id>:<nonce>"``, accounts.py); and the client address as the
transport gives it.

Limits (sliding windows): :data:`ACCOUNT_FAILURES` failures on one name within
:data:`WINDOW_S` lock that name's logins *from browsers without a device cookie of that account*
until the oldest of them leaves the window (:meth:`LoginThrottle.account_retry_after`; they are
answered ``429`` "too many failed logins for this name", for a name that exists or not alike).
A login that shows a valid device cookie of the account is not held by the name's lock: its
failures are counted under the device's own key instead (as many, :data:`DEVICE_FAILURES`, in
the same window), and do not count against the name (OWASP "Slow Down Online Guessing Attacks
with Device Cookies"). :data:`ADDRESS_FAILURES` failures from one address within the window make
that address wait (``429``), with or without a device cookie. A successful login clears the
count of the name (or of the device) it was counted under, not the address's.

:meth:`LoginThrottle.device_secret` is the HMAC key of the device cookies: kept where the counts
are, so that every process sharing them accepts the cookies of the others.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import deque
from typing import Callable, Deque, Dict, Optional, Protocol

log = logging.getLogger("billar.players")

WINDOW_S = 15 * 60.0
ACCOUNT_FAILURES = 10
#: failures from one device cookie within the window (as many as a name's: a stolen cookie guesses no faster)
DEVICE_FAILURES = ACCOUNT_FAILURES
ADDRESS_FAILURES = 30
#: bytes of a new device-cookie key
SECRET_BYTES = 32
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

    async def device_locked(self, device_key: str) -> bool:
        """True while the device cookie ``device_key`` has had too many failed logins."""

    async def device_retry_after(self, device_key: str) -> float:
        """Seconds until ``device_key`` is no longer locked (0 when it is not)."""

    async def device_failed(self, device_key: str, address: str) -> None:
        """Count one failed login with the device cookie ``device_key`` from ``address`` (not against the name)."""

    async def device_succeeded(self, device_key: str, address: str) -> None:
        """A login with the device cookie ``device_key`` succeeded: forget its failures."""

    async def device_secret(self) -> Optional[bytes]:
        """The HMAC key of the device cookies (None when it cannot be had now: no device cookie counts then)."""


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
    """:class:`LoginThrottle` in this process's memory (``clock``: seconds, monotonic by default).

    ``device_failures``: the device cookies' limit (default: ``account_failures``). The device
    cookies' key is random, made for this object (this process): like the counts, it does not
    outlive the process, so a restart makes the cookies issued before it plain "no device cookie".
    ``secret``: a fixed key instead (bytes).
    """

    def __init__(self, account_failures: int = ACCOUNT_FAILURES, address_failures: int = ADDRESS_FAILURES,
                 window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic,
                 device_failures: Optional[int] = None, secret: Optional[bytes] = None):
        self.accounts = _Windows(account_failures, window_s, clock)
        self.devices = _Windows(account_failures if device_failures is None else device_failures, window_s, clock)
        self.addresses = _Windows(address_failures, window_s, clock)
        self.secret = secret or secrets.token_bytes(SECRET_BYTES)

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

    async def device_locked(self, device_key: str) -> bool:
        return self.devices.over(device_key)

    async def device_retry_after(self, device_key: str) -> float:
        return self.devices.retry_after(device_key)

    async def device_failed(self, device_key: str, address: str) -> None:
        self.devices.add(device_key)
        self.addresses.add(address)

    async def device_succeeded(self, device_key: str, address: str) -> None:
        self.devices.clear(device_key)

    async def device_secret(self) -> Optional[bytes]:
        return self.secret


class RedisLoginThrottle:
    """:class:`LoginThrottle` shared by every process of a cluster, in Redis sliding windows.

    ``store``: anything with ``window_add(name, window_s)``, ``window_count(name, window_s)`` and
    ``window_clear(name)`` (server/store/redis.py ``Store``), and for the device cookies' key
    ``shared_secret(name, make)``. When Redis is unreachable the limits
    fail open for the check (a login is not refused for it) and the failure is not counted.

    The device cookies' key is kept in Redis like the rest of the server's lasting state (AOF,
    docs/deploy.md): ``P secret:device-cookie``, a string of :data:`SECRET_BYTES` random bytes in
    hex, no expiry, made by the first process that needs it (``SET NX``: every process reads the
    same one) and then kept in memory. While Redis cannot give it, :meth:`device_secret` is None:
    no cookie is issued and none lifts a name's lock (the logins of before). Deleting the key makes
    every device cookie issued so far worthless (after a restart of the processes).
    """

    def __init__(self, store, account_failures: int = ACCOUNT_FAILURES, address_failures: int = ADDRESS_FAILURES,
                 window_s: float = WINDOW_S, device_failures: Optional[int] = None):
        self.store, self.window_s = store, window_s
        self.account_failures, self.address_failures = account_failures, address_failures
        self.device_failures = account_failures if device_failures is None else device_failures
        self._secret: Optional[bytes] = None

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

    async def device_locked(self, device_key: str) -> bool:
        return await self._count(f"login-device:{device_key}") >= self.device_failures

    async def device_retry_after(self, device_key: str) -> float:
        """The whole window (as :meth:`account_retry_after`)."""
        return self.window_s if await self.device_locked(device_key) else 0.0

    async def device_failed(self, device_key: str, address: str) -> None:
        try:
            await self.store.window_add(f"login-device:{device_key}", self.window_s)
            await self.store.window_add(f"login-address:{address}", self.window_s)
        except Exception:
            pass

    async def device_succeeded(self, device_key: str, address: str) -> None:
        try:
            await self.store.window_clear(f"login-device:{device_key}")
        except Exception:
            pass

    async def device_secret(self) -> Optional[bytes]:
        if self._secret is None:
            try:
                raw = await self.store.shared_secret("device-cookie", lambda: secrets.token_hex(SECRET_BYTES))
            except Exception as exc:
                log.warning("login throttle: no device-cookie key from Redis: %s", type(exc).__name__)
                return None
            raw = raw.encode("ascii", "replace") if isinstance(raw, str) else None
            if raw is None or len(raw) < SECRET_BYTES:
                log.warning("login throttle: the device-cookie key in Redis is malformed; device cookies are off")
                return None
            self._secret = raw
        return self._secret
