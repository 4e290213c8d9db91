"""Registered players for bots: the accounts file, throwaway accounts, logging in as a browser does.

Used by ``billar bots --rated`` (bots/cli.py, bots/client.py) and by the Locust players
(loadtest/locustfile.py): one place for both.

- :func:`read_accounts` reads an accounts file: one ``name:password`` a line (the password is
  everything after the first ``:``, so it may hold more of them; the name is stripped), blank
  lines and lines starting with ``#`` ignored. A malformed line raises :class:`AccountsFileError`
  naming the file and the line number.
- :func:`throwaway` makes credentials for an account nobody has: ``bot`` + 12 hex digits (15
  characters: the server takes 2-20, server/players/names.py) and a 32-character random password.
- :func:`sign_in` gets a session for credentials through the HTTP API the browser client uses,
  on the same host and port as the WebSocket URL, with an ``Origin`` header of that origin
  (the API refuses state-changing requests of another origin): ``GET /api/players/<name>`` tells
  whether the account exists; an existing one is logged in (``POST /api/account/login``), an
  absent one registered (``POST /api/account/register``; when the name turns out taken after
  all, one login is tried). Asking first keeps absent names from counting as failed logins: the
  server limits failed logins per account and per address (30 in 15 minutes from one address),
  and a first run with a file of new names would otherwise spend that budget. Throwaway
  accounts are registered straight away (a new name on the rare ``409``).
- The :class:`Session` carries the ``billar_session`` cookie; :meth:`Session.ws_headers` are the
  WebSocket handshake's headers (``Cookie`` and the same-origin ``Origin``) so that ``hello``
  is that player, and :func:`check_welcome` makes sure the server's ``welcome.account`` says so.

Failures raise :class:`AccountError` with a message naming the account: a wrong password, a name the server refuses, ``429`` (too many failed logins from this address, or
for this name: :class:`RateLimited`, never retried), an unreachable server. ``503``
(database not answering) is tried again twice, after 1 and 2 s.

HTTP through the standard library's ``http.client`` (the server's runtime dependencies have no
HTTP client): blocking, so asyncio callers use :func:`sign_in_async` (a worker thread); under
Locust, gevent has patched the sockets and :func:`sign_in` is called as is.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import quote, urlparse

COOKIE = "billar_session"
PASSWORD_MIN_CHARS, PASSWORD_MAX_CHARS = 8, 256  # server/players/accounts.py
NAME_MIN_CHARS, NAME_MAX_CHARS = 2, 20  # server/players/names.py
UNAVAILABLE_RETRIES = 2


class AccountError(Exception):
    """Signing in failed; the message names the account and says why."""


class RateLimited(AccountError):
    """The server answered 429: too many failed logins from this address (wait, do not retry at once)."""


class AccountsFileError(ValueError):
    """A malformed accounts file; the message names the file and the line."""


@dataclass(frozen=True)
class Credentials:
    name: str
    password: str
    line: int = 0  # in the accounts file (0: a throwaway account)


@dataclass(frozen=True)
class Session:
    """A logged-in account: ``name`` as the server spells it, the ``cookie`` (``billar_session=...``), the
    server's ``origin``, and whether this sign-in ``registered`` the account (else it logged in)."""

    name: str
    cookie: str
    origin: str
    registered: bool

    def ws_headers(self) -> Dict[str, str]:
        """The WebSocket handshake's headers that make the connection this player."""
        return {"Cookie": self.cookie, "Origin": self.origin}


def read_accounts(path: str) -> List[Credentials]:
    """The credentials of the accounts file ``path`` (see the module's docstring). Raises
    :class:`AccountsFileError` for a malformed line, a repeated name or an unreadable file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise AccountsFileError(f"accounts file {path}: cannot be read: {exc}") from None
    out: List[Credentials] = []
    seen: Dict[str, int] = {}
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"accounts file {path}, line {no}"
        name, sep, password = raw.lstrip().partition(":")
        name = name.strip()
        if not sep:
            raise AccountsFileError(f"{where}: expected name:password, found no ':'")
        if not NAME_MIN_CHARS <= len(name) <= NAME_MAX_CHARS:
            raise AccountsFileError(f"{where}: the name must be {NAME_MIN_CHARS}-{NAME_MAX_CHARS} characters, "
                                    f"got {len(name)}")
        if not PASSWORD_MIN_CHARS <= len(password) <= PASSWORD_MAX_CHARS:
            raise AccountsFileError(f"{where}: the password must be {PASSWORD_MIN_CHARS}-{PASSWORD_MAX_CHARS} "
                                    f"characters, got {len(password)}")
        if name.casefold() in seen:
            raise AccountsFileError(f"{where}: {name!r} is already on line {seen[name.casefold()]}")
        seen[name.casefold()] = no
        out.append(Credentials(name, password, no))
    return out


def throwaway() -> Credentials:
    """Credentials of a new random account (``bot`` + 12 hex digits; a 32-character random password)."""
    return Credentials(f"bot{secrets.token_hex(6)}", secrets.token_urlsafe(24))


def http_endpoint(ws_url: str) -> Tuple[str, str, Optional[int], str]:
    """(scheme, host, port, origin) of the HTTP side of the WebSocket URL ``ws_url`` (ws -> http, wss -> https)."""
    u = urlparse(ws_url)
    if u.scheme not in ("ws", "wss") or not u.hostname:
        raise ValueError(f"url: expected ws://HOST:PORT/ws, got {ws_url!r}")
    scheme = "https" if u.scheme == "wss" else "http"
    netloc = u.netloc.rpartition("@")[2]
    return scheme, u.hostname, u.port, f"{scheme}://{netloc}"


class _Api:
    """JSON requests to the server's /api/ (one connection per request; same-origin headers)."""

    def __init__(self, ws_url: str, timeout: float):
        self.scheme, self.host, self.port, self.origin = http_endpoint(ws_url)
        self.timeout = timeout

    def request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None):
        """(status, parsed JSON body or {}, Set-Cookie values). Raises ``AccountError`` when unreachable."""
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        headers = {"Host": self.origin.split("://", 1)[1], "Origin": self.origin, "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        conn = cls(self.host, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            cookies = resp.headers.get_all("Set-Cookie") or []
        except (OSError, http.client.HTTPException) as exc:
            raise AccountError(f"{method} {self.origin}{path}: {type(exc).__name__}: {exc}") from None
        finally:
            conn.close()
        try:
            parsed = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, ValueError):
            parsed = {}
        return resp.status, parsed if isinstance(parsed, dict) else {}, cookies

    def call(self, method: str, path: str, body: Optional[Dict[str, Any]] = None):
        """:meth:`request`, tried again after 1 and 2 s while the server answers 503."""
        for k in range(UNAVAILABLE_RETRIES + 1):
            got = self.request(method, path, body)
            if got[0] != 503 or k == UNAVAILABLE_RETRIES:
                return got
            time.sleep(1.0 * 2 ** k)
        raise AssertionError("unreachable")


def _why(body: Dict[str, Any]) -> str:
    err = body.get("error") if isinstance(body.get("error"), dict) else {}
    return f"{err.get('code', '?')}: {err.get('message', '')}".rstrip(": ")


def _session(api: _Api, who: str, body: Dict[str, Any], cookies: List[str], registered: bool) -> Session:
    cookie = next((c.split(";", 1)[0].strip() for c in cookies if c.strip().startswith(COOKIE + "=")), None)
    if not cookie or cookie == COOKIE + "=":
        raise AccountError(f"account {who}: the server set no {COOKIE} cookie")
    name = (body.get("account") or {}).get("username")
    if not isinstance(name, str) or not name:
        raise AccountError(f"account {who}: the server's answer names no account: {body}")
    return Session(name, cookie, api.origin, registered)


def _refused(who: str, what: str, status: int, body: Dict[str, Any]) -> AccountError:
    if status == 429:
        return RateLimited(f"account {who}: {what} refused with 429 ({_why(body)}): too many failed logins from "
                           f"this address or for this name; wait (up to 15 minutes) before trying again")
    if status == 401 and what == "login":
        return AccountError(f"account {who}: login failed: wrong password")
    return AccountError(f"account {who}: {what} refused with {status} ({_why(body)})")


def _login(api: _Api, cred: Credentials) -> Session:
    st, body, cookies = api.call("POST", "/api/account/login", {"username": cred.name, "password": cred.password})
    if st != 200:
        raise _refused(cred.name, "login", st, body)
    return _session(api, cred.name, body, cookies, registered=False)


def _register(api: _Api, cred: Credentials):
    """(status, Session or None, body)."""
    st, body, cookies = api.call("POST", "/api/account/register", {"username": cred.name, "password": cred.password})
    return st, (_session(api, cred.name, body, cookies, registered=True) if st == 201 else None), body


def sign_in(ws_url: str, cred: Credentials, *, fresh: bool = False, timeout: float = 15.0) -> Session:
    """A session for ``cred`` on the server of ``ws_url``: logged in when the account exists, registered when
    absent (``fresh``: a throwaway account, registered straight away). Raises :class:`AccountError`."""
    api = _Api(ws_url, timeout)
    if fresh:
        for _ in range(3):
            st, sess, body = _register(api, cred)
            if sess is not None:
                return sess
            if st != 409:
                raise _refused(cred.name, "register", st, body)
            cred = throwaway()  # taken by chance: another name
        raise AccountError(f"account {cred.name}: three random names were all taken")
    st, body, _ = api.call("GET", f"/api/players/{quote(cred.name, safe='')}")
    if st == 200:
        return _login(api, cred)
    if st != 404:
        raise _refused(cred.name, "looking the player up", st, body)
    st, sess, body = _register(api, cred)
    if sess is not None:
        return sess
    if st != 409:
        raise _refused(cred.name, "register", st, body)
    try:  # taken after all: registered meanwhile, or a name that differs only by case or confusable characters
        return _login(api, cred)
    except RateLimited:
        raise
    except AccountError as exc:
        raise AccountError(f"{exc} (the name, or one differing only by case or confusable characters, is "
                           f"taken)") from None


async def sign_in_async(ws_url: str, cred: Credentials, *, fresh: bool = False, timeout: float = 15.0) -> Session:
    """:func:`sign_in` in a worker thread."""
    return await asyncio.to_thread(sign_in, ws_url, cred, fresh=fresh, timeout=timeout)


def check_welcome(welcome: Dict[str, Any], session: Session) -> None:
    """Raise ``RuntimeError`` unless the server's ``welcome`` greets the connection as ``session``'s account."""
    acc = welcome.get("account")
    got = acc.get("name") if isinstance(acc, dict) else None
    if got != session.name:
        raise RuntimeError(f"account {session.name}: the server greeted the connection as "
                           f"{'a guest' if got is None else repr(got)}, not as the account (session cookie not "
                           f"accepted: another origin, an expired session, or the database not answering)")
