"""The tournament routes of the API (issue 17): list, create, one tournament, join, leave.

:class:`TournamentsApi` holds the five routes; :class:`server.api.handlers.PlayersApi` adds them
to its own (as it does the position routes) and gives it ``require``, its logged-in check. Every
check of the settings is the store's (server/tournaments/store.py ``validate``); its errors come
back as the API's other errors: :class:`TournamentError` 400 ``bad_field``, ``NotFound`` 404
``not_found``, ``Closed`` 409 ``closed``, ``Full`` 409 ``full``.

The create body has fields of several types, so its schema (``TournamentCreate``) is in
``schemas.HANDLER_CHECKED``: :func:`read_create` checks it here, strictly (exact keys, JSON types,
an RFC 3339 ``starts_at`` with its offset).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional

from server.api.messages import ApiRequest, ApiResponse
from server.api.router import Param, Route
from server.db.engine import Database
from server.players.accounts import Account
from server.players.errors import PlayersError
from server.tournaments import state as S
from server.tournaments import store
from server.tournaments.standings import standings

_RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]\d\d:\d\d)", re.ASCII)
_FIELDS = {"name": str, "discipline": str, "format": str, "config": dict, "rated": bool, "min_players": int,
           "max_players": int, "starts_at": (str, type(None)), "duration_s": (int, type(None)), "no_show_s": int}
_REQUIRED = ("name", "discipline", "format")


def _iso(t: Optional[dt.datetime]) -> Optional[str]:
    return None if t is None else t.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _bad(message: str) -> PlayersError:
    return PlayersError("bad_field", message)


def read_create(body: Mapping[str, Any]) -> store.Settings:
    """The settings of a ``POST /api/tournaments`` body (types and keys; the values are the store's to check)."""
    for k in body:
        if k not in _FIELDS:
            raise _bad(f"{k[:32]}: unknown field")
    for k in _REQUIRED:
        if k not in body:
            raise _bad(f"{k}: required")
    for k, v in body.items():
        want = _FIELDS[k]
        if (isinstance(v, bool) and want in (int, (int, type(None)))) or not isinstance(v, want):
            raise _bad(f"{k}: wrong type")
    starts = body.get("starts_at")
    starts_at = None
    if starts is not None:
        if not _RFC3339.fullmatch(starts):
            raise _bad("starts_at: expected an RFC 3339 date and time with its offset")
        try:
            starts_at = dt.datetime.fromisoformat(starts.replace("Z", "+00:00"))
        except ValueError:
            raise _bad("starts_at: not a date and time") from None
    return store.Settings(
        name=body["name"], discipline=body["discipline"], format=body["format"], config=body.get("config", {}),
        rated=body.get("rated", False), min_players=body.get("min_players", 2),
        max_players=body.get("max_players", 16), starts_at=starts_at, duration_s=body.get("duration_s"),
        no_show_s=body.get("no_show_s", store.DEFAULT_NO_SHOW_S))


def _errors(exc: S.TournamentError) -> PlayersError:
    if isinstance(exc, store.NotFound):
        return PlayersError("not_found", str(exc))
    if isinstance(exc, store.Full):
        return PlayersError("full", str(exc))
    if isinstance(exc, store.Closed):
        return PlayersError("closed", str(exc))
    return PlayersError("bad_field", str(exc))


def summary(row: Mapping[str, Any]) -> Dict[str, Any]:
    """A tournament's line in the list (and the head of its page)."""
    return {"id": int(row["id"]), "name": row["name"], "discipline": row["discipline"], "format": row["format"],
            "rated": bool(row["rated"]), "status": row["status"], "players": int(row["players"]),
            "min_players": int(row["min_players"]), "max_players": int(row["max_players"]),
            "starts_at": _iso(row["starts_at"]), "duration_s": row["duration_s"], "no_show_s": int(row["no_show_s"]),
            "creator": row["creator"], "created_at": _iso(row["created_at"]), "started_at": _iso(row["started_at"]),
            "finished_at": _iso(row["finished_at"])}


def pairing_json(st: S.TournamentState, p: S.Pairing, game_ids: Mapping[str, Optional[int]]) -> Dict[str, Any]:
    names = {e.id: e.name for e in st.entrants}
    r = p.result
    return {"id": p.id, "round": p.round,
            "players": [None if pl is None else names.get(pl, "?") for pl in p.players],
            "table": None if p.is_bye else store.table_id(st.tournament_id, p.id),
            "game_id": game_ids.get(p.id),
            "result": None if r is None else {"winner": r.winner, "scores": list(r.scores), "reason": r.reason,
                                              "forfeit": list(r.forfeit)}}


def standing_json(r: Any) -> Dict[str, Any]:
    d = r.as_dict()
    out = {k: d[k] for k in ("rank", "name", "seed", "match_points", "arena_points", "stage", "games", "wins",
                             "draws", "losses", "forfeits", "score_for", "score_against", "points", "innings",
                             "high_run", "active")}
    out["score"] = float(d["primary"])
    out["average"] = round(float(d["average"]), 3)
    return out


class TournamentsApi:
    """``GET``/``POST /api/tournaments``, ``GET /api/tournaments/{id}``, ``POST .../join`` and ``.../leave``."""

    def __init__(self, db: Database, require: Callable[[ApiRequest], Awaitable[Account]],
                 clock: Callable[[], dt.datetime]):
        self.db, self.require, self.clock = db, require, clock
        tid = Param("id", "path", {"type": "integer", "minimum": 1}, "the tournament's id")
        self.routes: List[Route] = [
            Route("GET", "/api/tournaments", self.list, "Tournaments, newest first (paged, by status)",
                  "listTournaments",
                  {200: ("one page; `next` is the `before` of the next page", "TournamentPage"),
                   400: ("bad status, before or limit", "Error")},
                  [Param("status", "query", {"type": "string", "enum": list(store.STATUSES)},
                         "only tournaments in this status", False),
                   Param("before", "query", {"type": "integer", "minimum": 1}, "only ids under this", False),
                   Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": store.MAX_PAGE,
                                            "default": store.DEFAULT_PAGE}, "tournaments per page", False)],
                  tag="tournaments"),
            Route("POST", "/api/tournaments", self.create, "Create a tournament (logged in; the creator does not "
                  "join by creating)", "createTournament",
                  {201: ("created", "Tournament"), 400: ("bad settings (the message names the field)", "Error"),
                   401: ("not logged in", "Error")},
                  body="TournamentCreate", tag="tournaments"),
            Route("GET", "/api/tournaments/{id}", self.get, "A tournament: settings, entries, status, standings, "
                  "pairings with their tables and games", "getTournament",
                  {200: ("the tournament", "Tournament"), 404: ("no such tournament", "Error")}, [tid],
                  tag="tournaments"),
            Route("POST", "/api/tournaments/{id}/join", self.join, "Join an open tournament (logged in)",
                  "joinTournament",
                  {200: ("in (`joined` false: was in already)", "TournamentEntry"), 400: ("malformed body", "Error"),
                   401: ("not logged in", "Error"), 404: ("no such tournament", "Error"),
                   409: ("not open (`closed`) or full (`full`)", "Error")},
                  [tid], body="Empty", tag="tournaments"),
            Route("POST", "/api/tournaments/{id}/leave", self.leave, "Leave a tournament (logged in): before the "
                  "start the entry goes; once running a drop (your open game and every later one forfeited)",
                  "leaveTournament",
                  {200: ("out (`left` false: was not in, or dropped already)", "TournamentLeft"),
                   400: ("malformed body, or not a player of this running tournament", "Error"),
                   401: ("not logged in", "Error"), 404: ("no such tournament", "Error"),
                   409: ("finished or cancelled (`closed`)", "Error")},
                  [tid], body="Empty", tag="tournaments"),
        ]

    async def list(self, req: ApiRequest, body: None) -> ApiResponse:
        q = req.params()
        status = q.get("status")
        if status is not None and status not in store.STATUSES:
            raise _bad(f"status: one of {', '.join(store.STATUSES)}")
        before = _int_param(q, "before", 1, 2**63 - 1, None)
        limit = _int_param(q, "limit", 1, store.MAX_PAGE, store.DEFAULT_PAGE)
        rows = await store.list_tournaments(self.db, status, before, limit)
        nxt = int(rows[-1]["id"]) if len(rows) == limit else None
        return ApiResponse(200, {"tournaments": [summary(r) for r in rows], "next": nxt})

    async def view(self, tournament_id: int) -> Dict[str, Any]:
        try:
            row = await store.get_tournament(self.db, tournament_id)
        except store.NotFound:
            raise PlayersError("not_found", "no such tournament") from None
        row["creator"] = await store.creator_name(self.db, row["created_by"])
        out = summary(row)
        out["config"] = row["config"]
        out["entries"] = [{"username": e["username"], "seed": e["seed"],
                           "rating": None if e["rating"] is None else round(float(e["rating"]), 1)}
                          for e in await store.entry_names(self.db, tournament_id)]
        out["standings"], out["pairings"], out["version"], out["ends_at"] = [], [], int(row["state_version"]), None
        if row["state"] is not None:
            st = S.TournamentState.from_dict(row["state"])
            game_ids = await store.tournament_game_ids(self.db, tournament_id)
            out["standings"] = [standing_json(r) for r in standings(st)]
            out["pairings"] = [pairing_json(st, p, game_ids) for p in st.pairings]
            out["ends_at"] = st.ends_at
        return out

    async def get(self, req: ApiRequest, body: None, id: int) -> ApiResponse:
        return ApiResponse(200, await self.view(id))

    async def create(self, req: ApiRequest, body: Dict[str, Any]) -> ApiResponse:
        acc = await self.require(req)
        settings = read_create(body)
        try:
            tid = await store.create_tournament(self.db, acc.id, settings, now=self.clock())
        except S.TournamentError as exc:
            raise _errors(exc) from None
        return ApiResponse(201, await self.view(tid))

    async def join(self, req: ApiRequest, body: Dict[str, Any], id: int) -> ApiResponse:
        acc = await self.require(req)
        try:
            e = await store.join(self.db, id, acc.id, now=self.clock())
        except S.TournamentError as exc:
            raise _errors(exc) from None
        return ApiResponse(200, {"joined": e.joined, "players": e.players, "full": e.full})

    async def leave(self, req: ApiRequest, body: Dict[str, Any], id: int) -> ApiResponse:
        acc = await self.require(req)
        try:
            try:
                left = await store.leave(self.db, id, acc.id)
            except store.Closed:  # started: a drop (the director sees it at its next step)
                left = await store.drop_player(self.db, id, acc.id)
        except S.TournamentError as exc:
            raise _errors(exc) from None
        return ApiResponse(200, {"left": left})


def _int_param(q: Dict[str, str], name: str, lo: int, hi: int, default: Optional[int]) -> Optional[int]:
    v = q.get(name)
    if v is None:
        return default
    if not v.isascii() or not v.isdigit() or len(v) > 19 or not lo <= int(v) <= hi:
        raise _bad(f"{name}: must be an integer in [{lo}, {hi}]")
    return int(v)
