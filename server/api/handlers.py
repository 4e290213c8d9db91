"""The players' JSON API as transport-independent handlers: :class:`PlayersApi`.

``await api.handle(request) -> ApiResponse`` runs, in order, the checks of issue 15 and then the
route's handler:

1. a body over 16 KB (or a ``Content-Length`` saying so): 413 ``too_large``;
2. an unknown path: 404 ``not_found``; a known path with another method: 405 ``method_not_allowed``
   (``Allow`` lists the methods);
3. a state-changing request (POST) whose ``Origin`` names another origin than the request's own
   (``scheme://Host``) or one of ``origins``, or that the browser marks ``Sec-Fetch-Site:
   cross-site``: 403 ``forbidden_origin`` (CSRF; API clients send no Origin and need no token);
4. a POST without ``Content-Type: application/json``, or with a ``charset`` other than UTF-8: 415
   ``unsupported_media_type``;
5. a body that is not UTF-8 JSON, repeats a key in an object (``{"username": "a", "username": "b"}``:
   which one counts is not said by JSON), is not an object, or does not fit the route's schema: 400
   ``bad_json`` / ``bad_field``;
6. the handler: errors of server/players (errors.py) with their status (400, 401, 404, 409, 429);
   a database that does not answer: 503 ``unavailable``; anything else: 500 ``internal``
   (logged, never shown).

Every error body is ``{"error": {"code", "message"}}``. Logins set the session cookie
(``billar_session``: HttpOnly, SameSite=Lax, Path=/, Max-Age 30 days, Secure over HTTPS);
logout and delete clear it. Logins and registrations also set the device cookie (``billar_device``:
HttpOnly, SameSite=Lax, Path=/api/account, Max-Age 365 days, Secure over HTTPS; a new one at each
login), which login, password change and delete hand to server/players/accounts.py: one of the
account named exempts this browser from the name's failed-login lock (it has its own; see the
module docstring there); logout keeps it, delete clears it.
:meth:`PlayersApi.account_for_cookie` is what the WebSocket side asks.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import gzip
import json
import logging
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from sqlalchemy.exc import DBAPIError, OperationalError

from rules.registry import canonical_name
from server.api.live import LiveSource, NoLive
from server.api.messages import MAX_BODY_BYTES, ApiRequest, ApiResponse, error
from server.api.positions import PositionsApi
from server.api.puzzles import PuzzlesApi
from server.api.router import Param, Route, Router
from server.api.schemas import TV_CHANNELS, BodyError, check_body
from server.api.tournaments import TournamentsApi
from server.db.engine import Database
from server.players import drills, queries
from server.players.accounts import DEVICE_TTL, SESSION_TTL, Account, Accounts
from server.players.errors import PlayersError
from server.players.record import decompress

log = logging.getLogger("billar.api")

COOKIE = "billar_session"
#: the device cookie (accounts.py): sent only to the account routes
DEVICE_COOKIE, DEVICE_PATH = "billar_device", "/api/account"
MAX_LIVE, DEFAULT_LIVE = 500, 100  # GET /api/games/live: games per answer
STATUS = {"bad_username": 400, "reserved_username": 400, "bad_password": 400, "bad_field": 400, "bad_json": 400,
          "username_taken": 409, "login_failed": 401, "not_logged_in": 401, "too_many_attempts": 429,
          "not_found": 404, "closed": 409, "full": 409}


def _account_json(a: Account) -> Dict[str, Any]:
    return {"account": {"username": a.username, "created_at": queries._iso(a.created_at)}}


class PlayersApi:
    """The routes under ``/api/`` over ``db`` and ``accounts``.

    ``origins``: origins allowed besides the request's own (``BILLAR_ORIGINS``);
    ``leaderboard_ttl_s``: how long a leaderboard's encoded answer is served from memory (the same
    for every visitor; 0 turns the cache off); ``clock``: aware UTC now, ``monotonic``: seconds
    (tests); ``live``: the TV and the live games (server/tv/channel.py; default: nothing live).
    """

    def __init__(self, db: Database, accounts: Accounts, origins: Iterable[str] = (),
                 clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc),
                 leaderboard_ttl_s: float = 2.0, monotonic: Callable[[], float] = time.monotonic,
                 live: Optional[LiveSource] = None):
        self.db, self.accounts, self.clock = db, accounts, clock
        self.live: LiveSource = live if live is not None else NoLive()
        self.leaderboard_ttl_s, self.monotonic = leaderboard_ttl_s, monotonic
        self._boards: Dict[str, Tuple[float, bytes]] = {}
        self._board_locks: Dict[str, asyncio.Lock] = {}
        self.origins = frozenset(o.rstrip("/") for o in origins)
        name = Param("name", "path", {"type": "string", "minLength": 1, "maxLength": 64}, "the player's username")
        self.routes: List[Route] = [
            Route("POST", "/api/account/register", self.register, "Register an account and log in", "register",
                  {201: ("registered and logged in (session and device cookies set)", "Account"),
                   400: ("bad username, reserved name or bad password", "Error"),
                   409: ("the name, or one differing only by case or confusable characters, is taken", "Error")},
                  body="Credentials", tag="account"),
            Route("POST", "/api/account/login", self.login, "Log in (a new session cookie and device cookie)", "login",
                  {200: ("logged in (session and device cookies set)", "Account"),
                   400: ("malformed body", "Error"),
                   401: ("wrong username or password (the same answer for an unknown name)", "Error"),
                   429: ("too many failed logins from this address, or for this name (whether or not it exists; "
                         "not held against a browser with the account's device cookie), or from this device cookie",
                         "Error")},
                  body="Credentials", tag="account"),
            Route("POST", "/api/account/logout", self.logout, "Log out (the session ends, the cookie is cleared)",
                  "logout", {200: ("logged out", "Ok"), 400: ("malformed body", "Error")}, body="Empty", tag="account"),
            Route("POST", "/api/account/password", self.password, "Change the password (every other session ends)",
                  "changePassword",
                  {200: ("changed (a new session cookie)", "Ok"), 400: ("bad new password", "Error"),
                   401: ("not logged in, or the current password is wrong", "Error"),
                   429: ("too many failed attempts from this address, for this name, or from this device cookie",
                         "Error")},
                  body="PasswordChange", tag="account"),
            Route("POST", "/api/account/delete", self.delete, "Delete the account (its games stay under a retired name)",
                  "deleteAccount",
                  {200: ("deleted", "Deleted"), 400: ("malformed body", "Error"),
                   401: ("not logged in, or the password is wrong", "Error"),
                   429: ("too many failed attempts from this address, for this name, or from this device cookie",
                         "Error")},
                  body="PasswordConfirmation", tag="account"),
            Route("GET", "/api/account", self.me, "The logged-in player", "currentAccount",
                  {200: ("the account of the session cookie", "Account"), 401: ("not logged in", "Error")},
                  tag="account"),
            Route("GET", "/api/account/drills", self.my_drills, "The logged-in player's record at each drill",
                  "accountDrills", {200: ("strokes and successes per drill played", "DrillProgress"),
                                    401: ("not logged in", "Error")}, tag="account"),
            Route("GET", "/api/players/{name}", self.player, "A player's ratings, statistics and recent games",
                  "getPlayer", {200: ("the profile", "Profile"), 404: ("no such player", "Error")}, [name]),
            Route("GET", "/api/players/{name}/games", self.player_games, "A player's games, newest first (paged)",
                  "getPlayerGames",
                  {200: ("one page; `next` is the `before` of the next page", "GamePage"),
                   400: ("bad before or limit", "Error"), 404: ("no such player", "Error")},
                  [name,
                   Param("before", "query", {"type": "integer", "minimum": 1}, "only games older than this id", False),
                   Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": queries.MAX_PAGE,
                                            "default": queries.DEFAULT_PAGE}, "games per page", False)]),
            Route("GET", "/api/games/{id}", self.game, "A finished game's record (what `billar referee` replays)",
                  "getGame", {200: ("the record", "Record"), 404: ("no such game", "Error")},
                  [Param("id", "path", {"type": "integer", "minimum": 1}, "the game's id")], tag="games",
                  raw_response=True),
            Route("GET", "/api/leaderboard/{discipline}", self.leaderboard,
                  "The top 100 by rating (RD under 100) and by high run", "getLeaderboard",
                  {200: ("both tables", "Leaderboard"), 404: ("no such discipline", "Error")},
                  [Param("discipline", "path", {"type": "string", "maxLength": 32}, "a discipline name (or 14.1)")],
                  tag="leaderboards"),
            Route("GET", "/api/tv", self.tv, "The featured live table of every TV channel (each discipline, and all)",
                  "getTv", {200: ("every channel, `table` null where nothing is featured", "Tv"),
                            503: ("the live state (Redis) is not answering", "Error")}, tag="tv"),
            Route("GET", "/api/tv/{channel}", self.tv_channel, "One TV channel's featured live table", "getTvChannel",
                  {200: ("the channel (`table` null: nothing featured)", "TvChannel"),
                   404: ("no such channel", "Error"), 503: ("the live state (Redis) is not answering", "Error")},
                  [Param("channel", "path", {"type": "string", "maxLength": 32},
                         "a discipline name (or 14.1), or `all` (every discipline)")], tag="tv"),
            Route("GET", "/api/games/live", self.live_games, "Every public live game, best TV score first",
                  "getLiveGames",
                  {200: ("the games (at most `limit`) and how many there are", "LiveGames"),
                   400: ("bad discipline or limit", "Error"), 503: ("the live state (Redis) is not answering", "Error")},
                  [Param("discipline", "query", {"type": "string", "maxLength": 32},
                         "only this discipline's games (a discipline name, or 14.1)", False),
                   Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": MAX_LIVE,
                                            "default": DEFAULT_LIVE}, "games at most", False)], tag="tv"),
        ]
        self.positions = PositionsApi()
        self.routes += self.positions.routes
        self.tournaments = TournamentsApi(db, self._require, clock)
        self.routes += self.tournaments.routes
        self.puzzles = PuzzlesApi(db, self._who, clock, monotonic)
        self.routes += self.puzzles.routes
        self.router = Router(self.routes)

    # ----- the checks ------------------------------------------------------------------------
    def _foreign_origin(self, req: ApiRequest) -> bool:
        if (req.header("sec-fetch-site") or "").lower() == "cross-site":
            return True
        origin = req.header("origin")
        if origin is None:
            return False
        origin = origin.strip().rstrip("/")
        own = f"{'https' if req.https else 'http'}://{(req.header('host') or '').strip()}"
        return origin != own and origin not in self.origins

    async def handle(self, req: ApiRequest) -> ApiResponse:
        """The response to ``req`` (never raises)."""
        length = req.header("content-length")
        if len(req.body) > MAX_BODY_BYTES or (length is not None and length.strip().isdigit()
                                               and int(length) > MAX_BODY_BYTES):
            return error(413, "too_large", f"request body over {MAX_BODY_BYTES} bytes")
        route, params, allowed = self.router.match(req.method.upper(), req.path)
        if route is None:
            if allowed:
                return error(405, "method_not_allowed", f"{req.method} is not allowed here; use {', '.join(allowed)}",
                             [("Allow", ", ".join(allowed))])
            return error(404, "not_found", "no such API route")
        if route.max_body is not None and (len(req.body) > route.max_body or (
                length is not None and length.strip().isdigit() and int(length) > route.max_body)):
            return error(413, "too_large", f"request body over {route.max_body} bytes")
        body: Any = None
        if route.body is not None:
            if self._foreign_origin(req):
                return error(403, "forbidden_origin", "cross-origin requests may not change anything")
            if not _json_content_type(req.header("content-type") or ""):
                return error(415, "unsupported_media_type",
                             "the body must be UTF-8 JSON (Content-Type: application/json)")
            try:
                body = json.loads(req.body.decode("utf-8"), object_pairs_hook=_unique_keys)
            except _DuplicateKey as exc:
                return error(400, "bad_json", f"the body repeats the key {str(exc)[:40]!r} in an object")
            except (UnicodeDecodeError, ValueError, RecursionError):
                return error(400, "bad_json", "the body is not valid UTF-8 JSON")
            try:
                body = check_body(body, route.body)
            except BodyError as exc:
                return error(400, "bad_field", str(exc))
        try:
            return await route.handler(req, body, **params)
        except PlayersError as exc:
            return error(STATUS.get(exc.code, 400), exc.code, exc.message)
        except (OperationalError, DBAPIError, ConnectionError, OSError) as exc:
            log.warning("api: database unavailable on %s %s: %s", req.method, route.pattern, type(exc).__name__)
            return error(503, "unavailable", "the database is not answering; try again shortly")
        except Exception:
            log.exception("api: %s %s failed", req.method, route.pattern)
            return error(500, "internal", "internal error")

    # ----- cookies ---------------------------------------------------------------------------
    @staticmethod
    def _cookie(req: ApiRequest, name: str, value: str, path: str, max_age: int) -> Tuple[str, str]:
        """The ``Set-Cookie`` header of every cookie the API sets: HttpOnly, SameSite=Lax, Secure over HTTPS
        (``max_age`` 0 and an empty ``value`` clear it)."""
        secure = "; Secure" if req.https else ""
        return ("Set-Cookie", f"{name}={value}; Path={path}; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}")

    def _set_cookie(self, req: ApiRequest, token: str) -> Tuple[str, str]:
        return self._cookie(req, COOKIE, token, "/", int(SESSION_TTL.total_seconds()))

    def _clear_cookie(self, req: ApiRequest) -> Tuple[str, str]:
        return self._cookie(req, COOKIE, "", "/", 0)

    async def _device_cookie(self, req: ApiRequest, acc: Account) -> List[Tuple[str, str]]:
        """A new device cookie for ``acc`` (none when the key cannot be had now: the browser keeps its own)."""
        value = await self.accounts.device_cookie(acc)
        if value is None:
            return []
        return [self._cookie(req, DEVICE_COOKIE, value, DEVICE_PATH, int(DEVICE_TTL.total_seconds()))]

    def _clear_device_cookie(self, req: ApiRequest) -> Tuple[str, str]:
        return self._cookie(req, DEVICE_COOKIE, "", DEVICE_PATH, 0)

    async def account_for_cookie(self, cookie_header: Optional[str]) -> Optional[Account]:
        """The account whose session the ``Cookie`` header carries, or None (what the WebSocket ``hello`` asks)."""
        return await self.accounts.session_account(ApiRequest("GET", "/", headers={"cookie": cookie_header or ""})
                                                   .cookie(COOKIE))

    async def _who(self, req: ApiRequest) -> Optional[Account]:
        """The logged-in account of ``req`` (its session cookie), or None."""
        return await self.accounts.session_account(req.cookie(COOKIE))

    async def _require(self, req: ApiRequest) -> Account:
        acc = await self.accounts.session_account(req.cookie(COOKIE))
        if acc is None:
            raise PlayersError("not_logged_in", "not logged in")
        return acc

    # ----- account routes --------------------------------------------------------------------
    async def register(self, req: ApiRequest, body: Dict[str, str]) -> ApiResponse:
        acc, token = await self.accounts.register(body["username"], body["password"], client=req.client)
        return ApiResponse(201, _account_json(acc), [self._set_cookie(req, token)] + await self._device_cookie(req, acc))

    async def login(self, req: ApiRequest, body: Dict[str, str]) -> ApiResponse:
        acc, token = await self.accounts.login(body["username"], body["password"], client=req.client,
                                               old_token=req.cookie(COOKIE), device=req.cookie(DEVICE_COOKIE))
        return ApiResponse(200, _account_json(acc), [self._set_cookie(req, token)] + await self._device_cookie(req, acc))

    async def logout(self, req: ApiRequest, body: Dict[str, str]) -> ApiResponse:
        await self.accounts.logout(req.cookie(COOKIE))
        return ApiResponse(200, {"ok": True}, [self._clear_cookie(req)])

    async def password(self, req: ApiRequest, body: Dict[str, str]) -> ApiResponse:
        acc = await self._require(req)
        token = await self.accounts.change_password(acc, body["current_password"], body["new_password"],
                                                    client=req.client, device=req.cookie(DEVICE_COOKIE))
        return ApiResponse(200, {"ok": True}, [self._set_cookie(req, token)])

    async def delete(self, req: ApiRequest, body: Dict[str, str]) -> ApiResponse:
        acc = await self._require(req)
        retired = await self.accounts.delete(acc, body["password"], client=req.client, device=req.cookie(DEVICE_COOKIE))
        return ApiResponse(200, {"deleted": True, "retired_name": retired},
                           [self._clear_cookie(req), self._clear_device_cookie(req)])

    async def me(self, req: ApiRequest, body: None) -> ApiResponse:
        return ApiResponse(200, _account_json(await self._require(req)))

    async def my_drills(self, req: ApiRequest, body: None) -> ApiResponse:
        acc = await self._require(req)
        return ApiResponse(200, {"drills": await drills.progress(self.db, acc.id)})

    # ----- players, games, leaderboards ------------------------------------------------------
    async def player(self, req: ApiRequest, body: None, name: str) -> ApiResponse:
        prof = await queries.profile(self.db, name, self.clock())
        if prof is None:
            raise PlayersError("not_found", "no such player")
        return ApiResponse(200, prof)

    async def player_games(self, req: ApiRequest, body: None, name: str) -> ApiResponse:
        q = req.params()
        before = _int_param(q, "before", 1, 2**63 - 1, None)
        limit = _int_param(q, "limit", 1, queries.MAX_PAGE, queries.DEFAULT_PAGE)
        page = await queries.player_games(self.db, name, before, limit)
        if page is None:
            raise PlayersError("not_found", "no such player")
        return ApiResponse(200, page)

    async def game(self, req: ApiRequest, body: None, id: int) -> ApiResponse:
        rec = await queries.game_record(self.db, id)
        if rec is None:
            raise PlayersError("not_found", "no such game")
        gzip_ok = "gzip" in (req.header("accept-encoding") or "").lower()
        if rec.renamed:  # a player was deleted since: show the retired name (the slow path, rare)
            doc = json.loads(decompress(rec.data, rec.format))
            doc["players"] = rec.names
            raw = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            data, encoded = (gzip.compress(raw, 6, mtime=0), True) if gzip_ok else (raw, False)
        elif gzip_ok:
            data, encoded = rec.data, True
        else:
            data, encoded = decompress(rec.data, rec.format), False
        headers = [("Content-Type", "application/json")]
        if encoded:
            headers.append(("Content-Encoding", "gzip"))
        headers.append(("Vary", "Accept-Encoding"))
        return ApiResponse(200, headers=headers, raw=data)

    async def leaderboard(self, req: ApiRequest, body: None, discipline: str) -> ApiResponse:
        try:
            name = canonical_name(discipline)
        except ValueError:
            raise PlayersError("not_found", "no such discipline") from None
        hit = self._boards.get(name)
        if hit is None or hit[0] <= self.monotonic():
            lock = self._board_locks.setdefault(name, asyncio.Lock())
            async with lock:  # one query per expiry, however many requests arrive meanwhile
                hit = self._boards.get(name)
                if hit is None or hit[0] <= self.monotonic():
                    body = ApiResponse(200, await queries.leaderboard(self.db, name, self.clock())).body()
                    hit = (self.monotonic() + self.leaderboard_ttl_s, body)
                    if self.leaderboard_ttl_s > 0:
                        self._boards[name] = hit
        return ApiResponse(200, headers=[("Content-Type", "application/json")], raw=hit[1])

    # ----- TV and live games -----------------------------------------------------------------
    async def tv(self, req: ApiRequest, body: None) -> ApiResponse:
        return ApiResponse(200, await self.live.featured(TV_CHANNELS))

    async def tv_channel(self, req: ApiRequest, body: None, channel: str) -> ApiResponse:
        if channel != "all":
            try:
                channel = canonical_name(channel)
            except ValueError:
                raise PlayersError("not_found", "no such TV channel: a discipline or all") from None
        return ApiResponse(200, (await self.live.featured([channel]))[channel])

    async def live_games(self, req: ApiRequest, body: None) -> ApiResponse:
        q = req.params()
        limit = _int_param(q, "limit", 1, MAX_LIVE, DEFAULT_LIVE)
        discipline = q.get("discipline")
        if discipline is not None:
            try:
                discipline = canonical_name(discipline)
            except ValueError:
                raise PlayersError("bad_field", "discipline: no such discipline") from None
        games = await self.live.live_games(discipline)
        return ApiResponse(200, {"games": games[:limit], "total": len(games)})


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    """``object_pairs_hook`` of the body's ``json.loads``: an object with a key twice is refused."""
    out: Dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def _json_content_type(value: str) -> bool:
    """``application/json``, whose ``charset`` parameter, if any, says UTF-8 (any case, quoted or not)."""
    media, *params = value.split(";")
    if media.strip().lower() != "application/json":
        return False
    for p in params:
        name, _, val = p.partition("=")
        name, val = name.strip().lower(), val.strip().strip('"').lower()
        if name == "charset" and val not in ("utf-8", "utf8"):
            return False
    return True


def _int_param(q: Dict[str, str], name: str, lo: int, hi: int, default: Optional[int]) -> Optional[int]:
    v = q.get(name)
    if v is None:
        return default
    if not v.isascii() or not v.isdigit() or len(v) > 19 or not lo <= int(v) <= hi:
        raise PlayersError("bad_field", f"{name}: must be an integer in [{lo}, {hi}]")
    return int(v)
