"""Accounts: register, log in, log out, change password, delete; sessions behind a cookie's token.

Passwords are hashed with Argon2id (argon2-cffi's ``PasswordHasher``, RFC 9106's parameters by
default), in a worker thread so the event loop goes on; they are never logged, stored or returned
in clear. A session token is 32 random bytes (``secrets.token_urlsafe``); the database keeps its
SHA-256 only, so a stolen copy of the table opens nothing. Logging in always makes a new token
(and ends the session of the token the client came with): a token known before a login is
worthless after it.

No enumeration: a wrong password and an unknown username raise the same :class:`PlayersError`
``login_failed`` with the same message, and each verifies one Argon2 hash (a dummy one for an
unknown name), so they take the same time too. Failures are counted by the name typed (its
canonical key), whether or not an account has it: after :data:`throttle.ACCOUNT_FAILURES` of them
any login with that name, existing or not, even with the right password, raises
``too_many_attempts`` "too many failed logins for this name; try again in N minutes" (so the real
owner learns why, and the answer says nothing about which names exist). Too many failures from
one address raise ``too_many_attempts`` too (another message; this says nothing about any account).

Device cookies (OWASP "Slow Down Online Guessing Attacks with Device Cookies"), so that nobody can
lock a player out by failing logins with their name: every successful login or registration
gives the browser a device cookie (:meth:`Accounts.device_cookie`, the API's ``billar_device``)
``<account id>.<nonce>.<mac>``: a fresh random nonce (16 bytes, base64url) and the HMAC-SHA256,
base64url, of the account id and the nonce under the throttle's key
(:meth:`throttle.LoginThrottle.device_secret`: the server's is kept in Redis, made once and shared
by every process, throttle.py ``RedisLoginThrottle``; the in-memory throttle's is random per
process, so its cookies do not outlive the process). A login that shows a valid device cookie
*of the account whose name is typed* is not held by that name's lock; its failures are counted
under the device's own key (``"<account id>:<nonce>"``, the same limit,
:data:`throttle.DEVICE_FAILURES`: past it, ``too_many_attempts`` with the name's message, for that
browser only) and not against the name, so they lock nobody else out. Any other cookie (absent,
malformed, over :data:`DEVICE_COOKIE_MAX_CHARS`, not ASCII, a wrong MAC, another account's, an
account deleted since) is "no device cookie": the name's lock and count, as above. The address
limit holds for everybody. Changing the password and deleting the account check the current
password under the same rules (:meth:`Accounts._check_current`). A device cookie is no login and
has no server-side state: the worst a stolen one gives is the device's own budget of guesses.

Deleting an account keeps its games: the account row stays with a retired name
(``deleted-<hex>``), no password and no sessions; its ratings, rating history and statistics go
(it leaves the leaderboards), and its rows in games show the retired name. The original name
stays taken.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import hashlib
import hmac
import logging
import re
import secrets
from dataclasses import dataclass
from typing import Any, Optional, Tuple

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from server.db.engine import Database
from server.db.models import accounts, game_players, rating_history, ratings, sessions, statistics
from server.players.errors import PlayersError
from server.players.names import UsernameError, canonical_key, check_username, lookup_keys
from server.players.throttle import LoginThrottle, MemoryLoginThrottle

log = logging.getLogger("billar.players")

PASSWORD_MIN_CHARS = 8
PASSWORD_MAX_CHARS = 256
#: fewest different characters (blanks aside) in a password: "aaaaaaaa", "abababab" and eight blanks are refused
PASSWORD_MIN_DISTINCT = 4
#: how long a login lasts
SESSION_TTL = dt.timedelta(days=30)
#: longest token accepted from a cookie (token_urlsafe(32) is 43 characters)
TOKEN_MAX_CHARS = 64
RETIRED_PREFIX = "deleted-"
#: how long a browser keeps its device cookie (the Max-Age the API gives it)
DEVICE_TTL = dt.timedelta(days=365)
#: longest device cookie looked at (a real one is about 90 characters); anything longer is no device cookie
DEVICE_COOKIE_MAX_CHARS = 128
_DEVICE_NONCE = re.compile(r"[A-Za-z0-9_-]{22}")  # token_urlsafe(16)
_DEVICE_MAC = re.compile(r"[A-Za-z0-9_-]{43}")  # 32 bytes, base64url without padding
_DEVICE_ID = re.compile(r"[1-9][0-9]{0,17}")

LOGIN_FAILED = "wrong username or password"


def name_locked_message(retry_after_s: float) -> str:
    minutes = max(1, -(-int(retry_after_s) // 60))
    return f"too many failed logins for this name; try again in {minutes} minute{'s' if minutes != 1 else ''}"


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def token_hash(token: str) -> str:
    """SHA-256 of a session token, hex (what the ``sessions`` table keeps)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def device_mac(secret: bytes, account_id: int, nonce: str) -> str:
    """The MAC of a device cookie: HMAC-SHA256 of ``billar-device:<account id>:<nonce>`` under ``secret``, base64url."""
    mac = hmac.new(secret, f"billar-device:{account_id}:{nonce}".encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode("ascii").rstrip("=")


@dataclass(frozen=True)
class Account:
    """A registered player: ``id``, ``username`` as shown, ``created_at`` (aware UTC)."""

    id: int
    username: str
    created_at: dt.datetime


def check_password(value: Any, field: str = "password") -> str:
    """``value`` if it is an acceptable password (a string of 8-256 characters, no NUL, at least
    :data:`PASSWORD_MIN_DISTINCT` different characters besides blanks, not a run of consecutive characters such as
    "12345678"); ``PlayersError`` ``bad_password`` otherwise."""
    if not isinstance(value, str):
        raise PlayersError("bad_password", f"{field}: must be a string")
    if len(value) < PASSWORD_MIN_CHARS:
        raise PlayersError("bad_password", f"{field}: must be at least {PASSWORD_MIN_CHARS} characters")
    if len(value) > PASSWORD_MAX_CHARS:
        raise PlayersError("bad_password", f"{field}: must be at most {PASSWORD_MAX_CHARS} characters")
    if "\x00" in value:
        raise PlayersError("bad_password", f"{field}: must not contain NUL")
    # NIST SP 800-63B 5.1.1.2: refuse the "repetitive or sequential characters" (QA: eight blanks were a password)
    if len({c for c in value if not c.isspace()}) < PASSWORD_MIN_DISTINCT:
        raise PlayersError("bad_password", f"{field}: must have at least {PASSWORD_MIN_DISTINCT} different characters "
                                           f"besides blanks")
    steps = {ord(b) - ord(a) for a, b in zip(value.lower(), value.lower()[1:])}
    if steps in ({1}, {-1}):
        raise PlayersError("bad_password", f"{field}: must not be a run such as 12345678 or abcdefgh")
    return value


class Accounts:
    """The account operations over ``db``; ``throttle`` counts failed logins (in memory by default).

    ``hasher``: an argon2-cffi ``PasswordHasher`` (RFC 9106 low-memory parameters by default; tests
    pass cheaper ones). ``clock``: aware UTC now. The device cookies' HMAC key is the throttle's
    (:meth:`LoginThrottle.device_secret`).
    """

    def __init__(self, db: Database, throttle: Optional[LoginThrottle] = None,
                 hasher: Optional[PasswordHasher] = None, clock=utcnow):
        self.db = db
        self.throttle = throttle or MemoryLoginThrottle()
        self.hasher = hasher or PasswordHasher()
        self.clock = clock
        self._dummy_hash: Optional[str] = None

    # ----- hashing (in a thread: Argon2 takes tens of milliseconds by design) ---------------------
    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, hashed: Optional[str], password: str) -> bool:
        if hashed is None:
            if self._dummy_hash is None:
                self._dummy_hash = await self._hash(secrets.token_urlsafe(16))
            hashed = self._dummy_hash
            real = False
        else:
            real = True

        def check() -> bool:
            try:
                return self.hasher.verify(hashed, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

        ok = await asyncio.to_thread(check)
        return ok and real

    # ----- sessions --------------------------------------------------------------------------------
    async def _new_session(self, conn, account_id: int, client: Optional[str]) -> str:
        token = secrets.token_urlsafe(32)
        now = self.clock()
        await conn.execute(insert(sessions).values(
            token_hash=token_hash(token), account_id=account_id, created_at=now, expires_at=now + SESSION_TTL,
            client=(client or "")[:64] or None))
        return token

    async def session_account(self, token: Optional[str]) -> Optional[Account]:
        """The account a session token (the cookie's value) belongs to, or None (unknown, expired, malformed)."""
        if not isinstance(token, str) or not 16 <= len(token) <= TOKEN_MAX_CHARS:
            return None
        async with self.db.read() as conn:
            row = (await conn.execute(
                select(accounts.c.id, accounts.c.username, accounts.c.created_at)
                .join(sessions, sessions.c.account_id == accounts.c.id)
                .where(sessions.c.token_hash == token_hash(token), sessions.c.expires_at > self.clock(),
                       accounts.c.deleted_at.is_(None)))).first()
        return Account(row.id, row.username, row.created_at) if row else None

    # ----- device cookies (the module docstring) ----------------------------------------------------
    async def _device_secret(self) -> Optional[bytes]:
        try:
            secret = await self.throttle.device_secret()
        except Exception as exc:  # a throttle that cannot: no device cookies, the logins of before
            log.warning("accounts: no device-cookie key: %s", type(exc).__name__)
            return None
        return secret if isinstance(secret, bytes) and secret else None

    async def device_cookie(self, account: Account) -> Optional[str]:
        """A new device cookie's value for ``account`` (a fresh nonce each time), or None when the key
        cannot be had now (then the browser keeps the one it has, if any)."""
        secret = await self._device_secret()
        if secret is None:
            return None
        nonce = secrets.token_urlsafe(16)
        return f"{account.id}.{nonce}.{device_mac(secret, account.id, nonce)}"

    async def _device(self, cookie: Any) -> Optional[Tuple[int, str]]:
        """(account id, device key) of a valid device cookie; None for anything else (hostile input: never raises)."""
        if not isinstance(cookie, str) or not 0 < len(cookie) <= DEVICE_COOKIE_MAX_CHARS or not cookie.isascii():
            return None
        parts = cookie.split(".")
        if len(parts) != 3:
            return None
        ident, nonce, mac = parts
        if not (_DEVICE_ID.fullmatch(ident) and _DEVICE_NONCE.fullmatch(nonce) and _DEVICE_MAC.fullmatch(mac)):
            return None
        secret = await self._device_secret()
        if secret is None:
            return None
        account_id = int(ident)
        if not hmac.compare_digest(mac.encode("ascii"), device_mac(secret, account_id, nonce).encode("ascii")):
            return None
        return account_id, f"{account_id}:{nonce}"

    async def _check_device_lock(self, device_key: str) -> None:
        """``too_many_attempts`` while the device ``device_key`` is locked (the name's answer: nothing new is told)."""
        if await self.throttle.device_locked(device_key):
            wait = await self.throttle.device_retry_after(device_key)
            raise PlayersError("too_many_attempts", name_locked_message(wait))

    # ----- the operations --------------------------------------------------------------------------
    async def is_registered(self, name: str) -> bool:
        """Whether ``name`` is an account's name, or passes for one (its case, look-alike letters or separators
        aside: any of :func:`names.lookup_keys`); deleted accounts do not count. A guest may not show such a name."""
        keys = lookup_keys(name) if isinstance(name, str) and len(name) <= 64 else ()
        if not keys:
            return False
        async with self.db.read() as conn:
            return (await conn.execute(select(accounts.c.id).where(
                accounts.c.username_key.in_(keys), accounts.c.deleted_at.is_(None)).limit(1))).first() is not None

    async def register(self, username: Any, password: Any, client: Optional[str] = None) -> Tuple[Account, str]:
        """Create an account and log it in; returns (account, session token).

        Raises :class:`PlayersError`: ``bad_username``/``reserved_username`` (names.py),
        ``bad_password``, ``username_taken`` when the name or one differing by case or confusables
        exists.
        """
        try:
            name = check_username(username)
        except UsernameError as exc:
            raise PlayersError(exc.code, str(exc)) from None
        if canonical_key(name).startswith(canonical_key(RETIRED_PREFIX)):
            raise PlayersError("reserved_username", "username: this name is reserved")
        password = check_password(password)
        hashed = await self._hash(password)
        now = self.clock()
        try:
            async with self.db.write() as conn:
                res = await conn.execute(insert(accounts).values(
                    username=name, username_key=canonical_key(name), password_hash=hashed, created_at=now,
                    password_changed_at=now))
                account_id = res.inserted_primary_key[0]
                token = await self._new_session(conn, account_id, client)
        except IntegrityError:
            raise PlayersError("username_taken", "username: this name (or one that looks the same) is taken") from None
        return Account(account_id, name, now), token

    async def login(self, username: Any, password: Any, client: str = "", old_token: Optional[str] = None,
                    device: Optional[str] = None) -> Tuple[Account, str]:
        """Check the password and start a new session; returns (account, new token).

        ``old_token``: the session token the client came with, ended here (rotation). ``device``:
        the device cookie the client came with (any string: checked here): when it is a valid one
        of the account named, the name's lock does not hold and a failure counts against the device
        instead (the module docstring). Raises :class:`PlayersError` ``login_failed`` (wrong
        password, unknown or malformed name: alike), ``too_many_attempts`` (this address failed too
        often; the name, or this device, is locked), ``bad_password`` when the password is not a string.
        """
        if not isinstance(password, str) or len(password) > PASSWORD_MAX_CHARS:
            raise PlayersError("bad_password", "password: must be a string of at most 256 characters")
        if await self.throttle.address_blocked(client):
            raise PlayersError("too_many_attempts", "too many failed logins from this address; try again later")
        key = canonical_key(username) if isinstance(username, str) and len(username) <= 64 else ""
        dev = await self._device(device) if key else None
        if dev is None:
            await self._check_name_lock(key)
        row = None
        if key:
            async with self.db.read() as conn:
                for k in lookup_keys(username):  # an account that kept its legacy key (migration 0003) first
                    row = (await conn.execute(
                        select(accounts.c.id, accounts.c.username, accounts.c.created_at, accounts.c.password_hash)
                        .where(accounts.c.username_key == k, accounts.c.deleted_at.is_(None)))).first()
                    if row is not None:
                        break
        if dev is not None:
            if row is None or row.id != dev[0]:  # another account's cookie (or the name is nobody's): no device cookie
                dev = None
            await self._check_lock(key, dev)
        ok = await self._verify(row.password_hash if row is not None else None, password)
        if not ok or row is None:
            await self._count_failure(key, dev, client)
            raise PlayersError("login_failed", LOGIN_FAILED)
        if dev is not None:
            await self.throttle.device_succeeded(dev[1], client)
        else:
            await self.throttle.succeeded(key, client)
        rehash = self.hasher.check_needs_rehash(row.password_hash)
        new_hash = await self._hash(password) if rehash else None
        async with self.db.write() as conn:
            if old_token:
                await conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash(old_token)))
            if new_hash:
                await conn.execute(update(accounts).where(accounts.c.id == row.id).values(password_hash=new_hash))
            token = await self._new_session(conn, row.id, client)
        return Account(row.id, row.username, row.created_at), token

    async def _check_lock(self, key: str, dev: Optional[Tuple[int, str]]) -> None:
        """``too_many_attempts`` while what a failure here counts against is locked: the device of ``dev`` (a valid
        device cookie of the account, :meth:`_device`), else the name ``key``."""
        if dev is not None:
            await self._check_device_lock(dev[1])
        else:
            await self._check_name_lock(key)

    async def _count_failure(self, key: str, dev: Optional[Tuple[int, str]], client: str) -> None:
        """Count a failed password against the device of ``dev``, else against the name ``key`` (and, either way, the
        address ``client``)."""
        if dev is not None:
            await self.throttle.device_failed(dev[1], client)
        else:
            await self.throttle.failed(key, client)

    async def _check_name_lock(self, key: str) -> None:
        """``too_many_attempts`` while the name ``key`` (any name: the count is by name, not by account) is locked."""
        if await self.throttle.account_locked(key):
            wait = await self.throttle.account_retry_after(key)
            raise PlayersError("too_many_attempts", name_locked_message(wait))

    async def logout(self, token: Optional[str]) -> bool:
        """End the session of ``token``; True if there was one."""
        if not isinstance(token, str) or len(token) > TOKEN_MAX_CHARS:
            return False
        async with self.db.write() as conn:
            res = await conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash(token)))
        return res.rowcount > 0

    async def _check_current(self, account: Account, password: Any, client: str, device: Optional[str] = None) -> None:
        """The account's current password, counted like a login (the same limits and answer; ``device``: the
        device cookie, as at :meth:`login`: one of this account lifts the name's lock for the device's own)."""
        if not isinstance(password, str) or len(password) > PASSWORD_MAX_CHARS:
            raise PlayersError("bad_password", "password: must be a string of at most 256 characters")
        if await self.throttle.address_blocked(client):
            raise PlayersError("too_many_attempts", "too many failed logins from this address; try again later")
        key = canonical_key(account.username)
        dev = await self._device(device)
        if dev is not None and dev[0] != account.id:
            dev = None
        await self._check_lock(key, dev)
        async with self.db.read() as conn:
            hashed = (await conn.execute(select(accounts.c.password_hash).where(
                accounts.c.id == account.id, accounts.c.deleted_at.is_(None)))).scalar()
        if not await self._verify(hashed, password):
            await self._count_failure(key, dev, client)
            raise PlayersError("login_failed", LOGIN_FAILED)

    async def change_password(self, account: Account, current: Any, new: Any, client: str = "",
                              device: Optional[str] = None) -> str:
        """Set a new password after checking the current one; every session of the account ends and a
        new token is returned. ``device``: the device cookie (:meth:`login`). Raises ``login_failed``,
        ``too_many_attempts``, ``bad_password``."""
        new = check_password(new, "new_password")
        await self._check_current(account, current, client, device)
        hashed = await self._hash(new)
        async with self.db.write() as conn:
            await conn.execute(update(accounts).where(accounts.c.id == account.id).values(
                password_hash=hashed, password_changed_at=self.clock()))
            await conn.execute(delete(sessions).where(sessions.c.account_id == account.id))
            return await self._new_session(conn, account.id, client)

    async def delete(self, account: Account, password: Any, client: str = "", device: Optional[str] = None) -> str:
        """Delete the account after checking its password; returns the retired name its games now show.

        ``device``: the device cookie (:meth:`login`). Raises ``login_failed``, ``too_many_attempts``,
        ``bad_password``.
        """
        await self._check_current(account, password, client, device)
        retired = f"{RETIRED_PREFIX}{secrets.token_hex(4)}"
        async with self.db.write() as conn:
            await conn.execute(update(accounts).where(accounts.c.id == account.id).values(
                username=retired, password_hash=None, deleted_at=self.clock()))
            await conn.execute(delete(sessions).where(sessions.c.account_id == account.id))
            await conn.execute(delete(ratings).where(ratings.c.account_id == account.id))
            await conn.execute(delete(rating_history).where(rating_history.c.account_id == account.id))
            await conn.execute(delete(statistics).where(statistics.c.account_id == account.id))
            await conn.execute(update(game_players).where(game_players.c.account_id == account.id).values(name=retired))
        return retired
