"""What the pages and the API read: a player's profile, their game list, a game's record, the leaderboards.

Each function takes the :class:`server.db.Database` and returns plain JSON-ready values (times as
ISO 8601 strings in UTC, ratings rounded to 0.01) or None when there is no such player or game.
Players are found by name without regard to case or confusables (names.py ``canonical_key``);
deleted accounts are not found. Every list is bounded (:data:`MAX_PAGE`, :data:`LEADERBOARD_SIZE`,
:data:`HISTORY_POINTS`, :data:`RECENT_GAMES`); the queries follow the indexes of server/db/models.py.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from sqlalchemy import and_, bindparam, func, literal, select, union_all
from sqlalchemy.orm import aliased

from server.db.engine import Database
from server.db.models import accounts, game_players, game_records, games, rating_history, ratings, statistics
from server.players import glicko2
from server.players.accounts import RETIRED_PREFIX
from server.players.games import LEADERBOARD_RD, SECONDS_PER_DAY
from server.players.names import lookup_keys

MAX_PAGE = 50
DEFAULT_PAGE = 20
RECENT_GAMES = 10
HISTORY_POINTS = 50
LEADERBOARD_SIZE = 100
#: a rating whose live RD is at least this is shown as provisional (lichess: 110)
PROVISIONAL_RD = 110.0
MAX_NAME_CHARS = 64


def _iso(t: Optional[dt.datetime]) -> Optional[str]:
    return None if t is None else t.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _r(x: Optional[float]) -> Optional[float]:
    return None if x is None else round(float(x), 2)


def _avg(points: int, innings: int) -> float:
    return round(points / innings, 3) if innings else 0.0


def live(rating: float, rd: float, volatility: float, rated_at: dt.datetime, now: dt.datetime) -> glicko2.Rating:
    """The stored rating with its RD grown by the days since ``rated_at`` (glicko2.decay)."""
    return glicko2.decay(glicko2.Rating(rating, rd, volatility), (now - rated_at).total_seconds() / SECONDS_PER_DAY)


def _keys(name: str) -> tuple:
    """The stored keys ``name`` may be under (names.lookup_keys: a legacy key first, when it differs), or ()."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME_CHARS:
        return ()
    return lookup_keys(name)


# The statements are built once (bound parameters), so a request pays for executing them only.
_ACCOUNT = (select(accounts.c.id, accounts.c.username, accounts.c.created_at)
            .where(accounts.c.username_key == bindparam("key"), accounts.c.deleted_at.is_(None)))

# the account, then one row per discipline it has statistics in (with its rating if rated): one round trip
_PROFILE = (select(accounts.c.id, accounts.c.username, accounts.c.created_at, statistics.c.discipline,
                   statistics.c.games, statistics.c.wins, statistics.c.draws, statistics.c.losses, statistics.c.points,
                   statistics.c.innings, statistics.c.high_run, statistics.c.best_average, statistics.c.best_game_id,
                   ratings.c.rating, ratings.c.rd, ratings.c.volatility, ratings.c.rated_games, ratings.c.rated_at)
            .select_from(accounts)
            .outerjoin(statistics, statistics.c.account_id == accounts.c.id)
            .outerjoin(ratings, and_(ratings.c.account_id == statistics.c.account_id,
                                     ratings.c.discipline == statistics.c.discipline))
            .where(accounts.c.username_key == bindparam("key"), accounts.c.deleted_at.is_(None))
            .order_by(statistics.c.discipline))



def _history_stmt(k: int):
    """The last HISTORY_POINTS ratings of an account in each of ``k`` disciplines (bind d0..d<k-1>), one
    ordered, limited index scan each (an index range per discipline, however many games the player has)."""
    parts = []
    for i in range(k):
        parts.append(select(rating_history.c.discipline, rating_history.c.at, rating_history.c.rating,
                            rating_history.c.id)
                     .where(rating_history.c.account_id == bindparam("account"),
                            rating_history.c.discipline == bindparam(f"d{i}"))
                     .order_by(rating_history.c.id.desc()).limit(HISTORY_POINTS).subquery(f"h{i}"))
    if k == 1:
        return select(parts[0]).order_by(parts[0].c.id)
    u = union_all(*[select(p) for p in parts]).subquery("h")
    return select(u).order_by(u.c.discipline, u.c.id)


_HISTORY = {k: _history_stmt(k) for k in range(1, 16)}

_op = aliased(game_players, name="op")
_me = aliased(accounts, name="me")
_account_of_key = (select(accounts.c.id).where(accounts.c.username_key == bindparam("key"),
                                               accounts.c.deleted_at.is_(None)).scalar_subquery())


def _registered(account: Optional[int], name: str) -> bool:
    """A game's opponent has a live account (a profile to link to): a deleted account's rows keep its id
    but carry its retired name (``deleted-<hex>``, a name nobody can register)."""
    return account is not None and not name.startswith(RETIRED_PREFIX)


def _games_stmt(by_key: bool, before: bool):
    """A page of one player's games: first the page's own rows (an index range of ``game_players``
    by (account_id, game_id), newest first, limited), then the joins for those rows only; the
    planner cannot know that a player has 30,000 games, so the limit must come before the joins."""
    gp = game_players
    cond = [gp.c.account_id == (_account_of_key if by_key else bindparam("account"))]
    if before:
        cond.append(gp.c.game_id < bindparam("before"))
    mine = (select(gp.c.game_id, gp.c.seat, gp.c.account_id, gp.c.discipline, gp.c.finished_at, gp.c.score,
                   gp.c.points, gp.c.innings, gp.c.high_run, gp.c.average, gp.c.rating_before, gp.c.rating_after)
            .where(*cond).order_by(gp.c.game_id.desc()).limit(bindparam("n")).subquery("mine"))
    return (select(mine, games.c.rated, games.c.result.label("game_result"), _op.c.name.label("op_name"), _op.c.account_id.label("op_account"),
                   _op.c.points.label("op_points"), _op.c.rating_before.label("op_rating"),
                   _me.c.username.label("me_name"))
            .select_from(mine)
            .join(_me, _me.c.id == mine.c.account_id)
            .join(games, games.c.id == mine.c.game_id)
            .join(_op, and_(_op.c.game_id == mine.c.game_id, _op.c.seat == 1 - mine.c.seat))
            .order_by(mine.c.game_id.desc()))


_GAMES_OF_ID = _games_stmt(False, False)
_GAMES_OF_KEY = _games_stmt(True, False)
_GAMES_OF_KEY_BEFORE = _games_stmt(True, True)
_RESULT = {1.0: "win", 0.5: "draw", 0.0: "loss"}


def _game_item(r) -> Dict[str, Any]:
    change = None if r.rating_after is None else round(r.rating_after - r.rating_before, 2)
    return {
        "id": r.game_id, "discipline": r.discipline, "rated": bool(r.rated),
        "aborted": isinstance(r.game_result, dict) and r.game_result.get("aborted") is True, "finished_at": _iso(r.finished_at),
        "seat": r.seat, "result": _RESULT.get(r.score, "loss"), "points": r.points, "innings": r.innings,
        "high_run": r.high_run, "average": round(r.average, 3),
        "rating_before": _r(r.rating_before), "rating_after": _r(r.rating_after), "rating_change": change,
        "opponent": {"name": r.op_name, "registered": _registered(r.op_account, r.op_name), "points": r.op_points,
                     "rating_before": _r(r.op_rating)},
    }


async def profile(db: Database, name: str, now: Optional[dt.datetime] = None) -> Optional[Dict[str, Any]]:
    """A player's page: ratings per discipline (live RD), statistics, rating history, recent games.

    Shape: ``{"username", "created_at", "ratings": [{"discipline", "rating", "rd", "provisional",
    "games", "rated_at"}], "statistics": [{"discipline", "games", "wins", "draws", "losses",
    "points", "innings", "average", "high_run", "best_average", "best_game_id"}], "history":
    {discipline: [[unix seconds, rating], ...]} (the last 50 rated games, oldest first: the chart's
    points, compact), "recent_games":
    [game list item, ...]}``; None for an unknown or deleted player. Three queries.
    """
    keys = _keys(name)
    now = now or dt.datetime.now(dt.timezone.utc)
    async with db.read() as conn:
        rows = []
        for key in keys:
            rows = (await conn.execute(_PROFILE, {"key": key})).all()
            if rows:
                break
        if not rows:
            return None
        acc = rows[0]
        played = rows[0].discipline is not None
        rated = [r.discipline for r in rows if r.rating is not None][:len(_HISTORY)]
        hist = []
        if rated:
            params = {"account": acc.id, **{f"d{i}": d for i, d in enumerate(rated)}}
            hist = (await conn.execute(_HISTORY[len(rated)], params)).all()
        # not only when the statistics hold a discipline: an aborted game is listed but counts in none
        recent = (await conn.execute(_GAMES_OF_ID, {"account": acc.id, "n": RECENT_GAMES})).all()
    out_ratings, out_stats = [], []
    for r in rows if played else ():
        if r.rating is not None:
            lv = live(r.rating, r.rd, r.volatility, r.rated_at, now)
            out_ratings.append({"discipline": r.discipline, "rating": _r(lv.rating), "rd": _r(lv.rd),
                                "provisional": lv.rd >= PROVISIONAL_RD, "games": r.rated_games,
                                "rated_at": _iso(r.rated_at)})
        out_stats.append({"discipline": r.discipline, "games": r.games, "wins": r.wins, "draws": r.draws,
                          "losses": r.losses, "points": r.points, "innings": r.innings,
                          "average": _avg(r.points, r.innings), "high_run": r.high_run,
                          "best_average": round(r.best_average, 3), "best_game_id": r.best_game_id})
    history: Dict[str, List[list]] = {}
    for d, at, rating, _ in hist:
        points = history.get(d)
        if points is None:
            points = history[d] = []
        points.append([int(at.timestamp()), round(rating, 1)])
    return {"username": acc.username, "created_at": _iso(acc.created_at), "ratings": out_ratings,
            "statistics": out_stats, "history": history, "recent_games": [_game_item(g) for g in recent]}


async def player_games(db: Database, name: str, before: Optional[int] = None,
                       limit: int = DEFAULT_PAGE) -> Optional[Dict[str, Any]]:
    """One page of a player's games, newest first: ``{"username", "games": [item, ...], "next": id or None}``.

    ``before``: only games with a smaller id (the previous page's ``next``); ``limit`` 1..:data:`MAX_PAGE`
    (``ValueError`` outside). None for an unknown player. One query (two for an empty page).
    """
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"limit: must be in [1, {MAX_PAGE}]")
    keys = _keys(name)
    async with db.read() as conn:
        for key in keys:
            if before is None:
                rows = (await conn.execute(_GAMES_OF_KEY, {"key": key, "n": limit + 1})).all()
            else:
                rows = (await conn.execute(_GAMES_OF_KEY_BEFORE, {"key": key, "n": limit + 1, "before": before})).all()
            if rows:
                username = rows[0].me_name
                break
            acc = (await conn.execute(_ACCOUNT, {"key": key})).first()
            if acc is not None:
                username = acc.username
                break
        else:
            return None
    more = len(rows) > limit
    rows = rows[:limit]
    return {"username": username, "games": [_game_item(r) for r in rows],
            "next": rows[-1].game_id if more else None}


@dataclass
class StoredRecord:
    """A game's stored record: ``format`` and ``data`` (record.py), and the seats' names as shown now
    (``renamed``: some player's account was deleted since, so the names inside ``data`` are stale)."""

    game_id: int
    format: int
    data: bytes
    names: List[str]
    renamed: bool


_deleted_seat = (select(game_players.c.game_id).select_from(game_players)
                 .join(accounts, accounts.c.id == game_players.c.account_id)
                 .where(game_players.c.game_id == game_records.c.game_id, accounts.c.deleted_at.is_not(None))
                 .exists())
_RECORD = (select(game_records.c.format, game_records.c.data, _deleted_seat.label("renamed"))
           .where(game_records.c.game_id == bindparam("id")))
_NAMES = select(game_players.c.name).where(game_players.c.game_id == bindparam("id")).order_by(game_players.c.seat)


async def game_record(db: Database, game_id: int) -> Optional[StoredRecord]:
    """The stored record of game ``game_id``, or None. One query (two when a player was deleted since)."""
    if not 1 <= game_id < 2**63:
        return None
    async with db.read() as conn:
        rec = (await conn.execute(_RECORD, {"id": game_id})).first()
        if rec is None:
            return None
        names = (await conn.execute(_NAMES, {"id": game_id})).scalars().all() if rec.renamed else []
    return StoredRecord(game_id, rec.format, bytes(rec.data), list(names), bool(rec.renamed))


_by_rating = (select(literal("rating").label("kind"), accounts.c.id.label("aid"), accounts.c.username,
                     ratings.c.rating.label("a"),
                     ratings.c.rd.label("b"), ratings.c.volatility.label("c"), ratings.c.rated_at.label("at"),
                     ratings.c.rated_games.label("games"), literal(0).label("points"), literal(0).label("innings"))
              .select_from(ratings).join(accounts, accounts.c.id == ratings.c.account_id)
              .where(ratings.c.discipline == bindparam("discipline"), ratings.c.rd < LEADERBOARD_RD,
                     ratings.c.active_until > bindparam("now"))
              .order_by(ratings.c.rating.desc()).limit(bindparam("n")).subquery())
_by_run = (select(literal("high_run").label("kind"), accounts.c.id.label("aid"), accounts.c.username,
                  statistics.c.high_run.label("a"),
                  literal(0.0).label("b"), literal(0.0).label("c"), statistics.c.updated_at.label("at"),
                  statistics.c.games, statistics.c.points, statistics.c.innings)
           .select_from(statistics).join(accounts, accounts.c.id == statistics.c.account_id)
           .where(statistics.c.discipline == bindparam("discipline"), statistics.c.high_run > 0)
           .order_by(statistics.c.high_run.desc(), statistics.c.account_id.desc()).limit(bindparam("n")).subquery())
# both tables in one round trip, each its own ordered, limited index scan
_LEADERBOARD = union_all(select(_by_rating), select(_by_run))


async def leaderboard(db: Database, discipline: str, now: Optional[dt.datetime] = None,
                      size: int = LEADERBOARD_SIZE) -> Dict[str, Any]:
    """The top ``size`` by rating among players whose live RD is under 100, and the top ``size`` by high run.

    Shape: ``{"discipline", "rating": [{"rank", "username", "rating", "rd", "games"}],
    "high_run": [{"rank", "username", "high_run", "games", "average"}]}``. One query.
    """
    now = now or dt.datetime.now(dt.timezone.utc)
    async with db.read() as conn:
        rows = (await conn.execute(_LEADERBOARD, {"discipline": discipline, "now": now, "n": size})).all()
    # a union keeps no order: each table is sorted again as its query ordered it
    top = sorted((r for r in rows if r.kind == "rating"), key=lambda r: (-r.a, r.aid))
    runs = sorted((r for r in rows if r.kind == "high_run"), key=lambda r: (-r.a, -r.aid))
    by_rating = []
    for r in top:
        lv = live(r.a, r.b, r.c, r.at, now)
        if lv.rd < LEADERBOARD_RD:
            by_rating.append({"rank": len(by_rating) + 1, "username": r.username, "rating": _r(lv.rating),
                              "rd": _r(lv.rd), "games": r.games})
    by_run = [{"rank": i + 1, "username": r.username, "high_run": int(r.a), "games": r.games,
               "average": _avg(r.points, r.innings)} for i, r in enumerate(runs)]
    return {"discipline": discipline, "rating": by_rating, "high_run": by_run}


async def rating_of(db: Database, account_id: int, discipline: str, now: Optional[dt.datetime] = None) -> glicko2.Rating:
    """The live rating of ``account_id`` in ``discipline`` (its RD grown by inactivity), or the new player's
    (1500 / 350 / 0.06) when the player has no rated game in it."""
    now = now or dt.datetime.now(dt.timezone.utc)
    async with db.read() as conn:
        row = (await conn.execute(select(ratings.c.rating, ratings.c.rd, ratings.c.volatility, ratings.c.rated_at)
                                  .where(ratings.c.account_id == account_id, ratings.c.discipline == discipline))).first()
    if row is None:
        return glicko2.NEW_PLAYER
    return live(row.rating, row.rd, row.volatility, row.rated_at, now)
