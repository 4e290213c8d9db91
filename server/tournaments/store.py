"""Tournaments in the database: create, join and leave before the start, start, save and load the state, finish.

Every function takes a :class:`server.db.Database` and runs one transaction, so it is safe from
any process of the cluster at any time:

- the size limit holds under concurrent joins: a join inserts the player's row and then bumps the
  ``players`` counter with a conditional ``UPDATE ... WHERE status = 'open' AND players <
  max_players``; when no row matches, the transaction (and its insert) rolls back;
- the state is saved with a compare-and-set on ``state_version`` (:func:`save_state`): a director
  that lost its lease and writes late gets :class:`StaleState` instead of overwriting the new
  director's state;
- :func:`start_tournament` and :func:`finish_tournament` are idempotent (a second call returns what
  the first did).

Errors for the player or the caller: :class:`TournamentError` (from state.py) and its subclasses
here, with messages fit to show.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Mapping, Optional

from sqlalchemy import and_, delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from rules.registry import canonical_name, new_game
from server.db.engine import Database
from server.db.models import (TABLE_ID_CHARS, TOURNAMENT_NAME_CHARS, accounts, games, ratings, tournament_games,
                              tournament_players, tournament_standings, tournaments)
from server.players.glicko2 import BASE_RATING
from server.tournaments import state as S
from server.tournaments.standings import Standing, standings

#: players a tournament may have, per format (a round robin of n takes n-1 rounds)
MAX_PLAYERS = {"round_robin": 24, "single_elimination": 128, "arena": 500}
#: an arena lasts between these (seconds)
ARENA_DURATION_S = (300, 6 * 3600)
#: a no-show is forfeited after a wait between these (seconds)
NO_SHOW_S = (30, 1800)
DEFAULT_NO_SHOW_S = 180
#: how far ahead a start time may be
MAX_LEAD = dt.timedelta(days=30)
STATUSES = ("open", "running", "finished", "cancelled")


class NotFound(S.TournamentError):
    pass


class Closed(S.TournamentError):
    """The tournament is not open for entries (started, finished or cancelled)."""


class Full(S.TournamentError):
    pass


class StaleState(S.TournamentError):
    """The saved state's version is not the one the caller read: another director moved it on."""


@dataclass(frozen=True)
class Settings:
    """What the creator chooses. ``config``: the discipline's match settings (target / distance,
    inning limit, sets, shot clock: rules spec section C), checked by the referee itself.
    ``starts_at`` None: start when full. ``duration_s``: arena only (and required there)."""

    name: str
    discipline: str
    format: str
    config: Mapping[str, Any]
    rated: bool = False
    min_players: int = 2
    max_players: int = 16
    starts_at: Optional[dt.datetime] = None
    duration_s: Optional[int] = None
    no_show_s: int = DEFAULT_NO_SHOW_S


def _int(v: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise S.TournamentError(f"{name}: expected an integer in [{lo}, {hi}], got {v!r}")
    return v


def validate(s: Settings, now: dt.datetime) -> Settings:
    """``s`` checked and normalised (canonical discipline; single elimination at carom gets
    ``draw_resolution: extra_inning`` unless the config chose a tie-break, and refuses ``draw``).

    Raises :class:`TournamentError` naming the field.
    """
    name = s.name.strip() if isinstance(s.name, str) else ""
    if not 1 <= len(name) <= TOURNAMENT_NAME_CHARS or not name.isprintable():
        raise S.TournamentError(f"name: 1-{TOURNAMENT_NAME_CHARS} printable characters")
    if s.format not in S.FORMATS:
        raise S.TournamentError(f"format: expected one of {S.FORMATS}, got {s.format!r}")
    try:
        discipline = canonical_name(s.discipline)
    except ValueError as exc:
        raise S.TournamentError(str(exc)) from None
    if not isinstance(s.config, Mapping):
        raise S.TournamentError("config: expected an object")
    config = dict(s.config)
    if s.format == "single_elimination" and discipline not in ("straight_pool", "pentathlon", "triathlon"):
        if config.get("draw_resolution", "draw") == "draw":
            if "draw_resolution" in config:
                raise S.TournamentError("config.draw_resolution: a knock-out game needs a winner "
                                        "(penalty_shootout or extra_inning)")
            config["draw_resolution"] = "extra_inning"
    try:
        new_game(discipline, config, seed=0)  # the referee checks every key and value
    except ValueError as exc:
        raise S.TournamentError(f"config: {exc}") from None
    if not isinstance(s.rated, bool):
        raise S.TournamentError("rated: expected true or false")
    hi = MAX_PLAYERS[s.format]
    mx = _int(s.max_players, "max_players", 2, hi)
    mn = _int(s.min_players, "min_players", 2, mx)
    duration = None
    if s.format == "arena":
        duration = _int(s.duration_s, "duration_s", *ARENA_DURATION_S)
    elif s.duration_s is not None:
        raise S.TournamentError("duration_s: only an arena has a duration")
    no_show = _int(s.no_show_s, "no_show_s", *NO_SHOW_S)
    starts = s.starts_at
    if starts is not None:
        if not isinstance(starts, dt.datetime) or starts.tzinfo is None:
            raise S.TournamentError("starts_at: expected an aware date and time")
        if not now < starts <= now + MAX_LEAD:
            raise S.TournamentError(f"starts_at: must be in the future, within {MAX_LEAD.days} days")
    return replace(s, name=name, discipline=discipline, config=config, min_players=mn, max_players=mx,
                   duration_s=duration, no_show_s=no_show)


def _now(now: Optional[dt.datetime]) -> dt.datetime:
    return now or dt.datetime.now(dt.timezone.utc)


def table_id(tournament_id: int, pairing_id: str) -> str:
    """The id of the table where a pairing is played: fixed by the pairing, so a director that takes
    over finds (or creates, exactly once) the same table."""
    out = f"tour-{tournament_id}-{pairing_id}"
    assert len(out) <= TABLE_ID_CHARS
    return out


# ----- before the start ----------------------------------------------------------------------------
async def create_tournament(db: Database, creator: int, settings: Settings, now: Optional[dt.datetime] = None) -> int:
    """A new open tournament created by account ``creator``; returns its id.

    The creator does not join by creating (they :func:`join` like anyone). Raises
    :class:`TournamentError` for bad settings, :class:`NotFound` for an unknown or deleted creator.
    """
    now = _now(now)
    s = validate(settings, now)
    async with db.write() as conn:
        ok = (await conn.execute(select(accounts.c.id).where(
            and_(accounts.c.id == creator, accounts.c.deleted_at.is_(None))))).first()
        if ok is None:
            raise NotFound(f"account {creator} does not exist")
        res = await conn.execute(insert(tournaments).values(
            name=s.name, created_by=creator, discipline=s.discipline, config=s.config, format=s.format,
            rated=s.rated, min_players=s.min_players, max_players=s.max_players, players=0, starts_at=s.starts_at,
            duration_s=s.duration_s, no_show_s=s.no_show_s, status="open", state=None, state_version=0,
            created_at=now).returning(tournaments.c.id))
        return int(res.scalar_one())


async def get_tournament(db: Database, tournament_id: int) -> Dict[str, Any]:
    """The tournament's row as a dict (``state`` as stored), with ``entries``: the account ids joined,
    in joining order. :class:`NotFound` if there is none."""
    async with db.read() as conn:
        row = (await conn.execute(select(tournaments).where(tournaments.c.id == tournament_id))).mappings().first()
        if row is None:
            raise NotFound(f"tournament {tournament_id} does not exist")
        ids = (await conn.execute(select(tournament_players.c.account_id)
                                  .where(tournament_players.c.tournament_id == tournament_id)
                                  .order_by(tournament_players.c.joined_at, tournament_players.c.account_id))).scalars()
        return {**dict(row), "entries": list(ids)}


@dataclass(frozen=True)
class Entry:
    """``joined``: False when the player was in already (nothing changed); ``players``: how many are in
    now; ``full``: the tournament reached its maximum (a start-when-full tournament starts now)."""

    joined: bool
    players: int
    full: bool


def _ins(db: Database):
    return postgresql.insert if db.dialect == "postgresql" else sqlite.insert


async def join(db: Database, tournament_id: int, account: int, now: Optional[dt.datetime] = None) -> Entry:
    """Enter ``account`` into open tournament ``tournament_id``. Idempotent (joining twice: ``joined`` False).

    Raises :class:`NotFound` (no such tournament or account), :class:`Closed` (not open),
    :class:`Full`.
    """
    now = _now(now)
    async with db.write() as conn:
        t = (await conn.execute(select(tournaments.c.status, tournaments.c.players, tournaments.c.max_players)
                                .where(tournaments.c.id == tournament_id))).first()
        if t is None:
            raise NotFound(f"tournament {tournament_id} does not exist")
        acc = (await conn.execute(select(accounts.c.id).where(
            and_(accounts.c.id == account, accounts.c.deleted_at.is_(None))))).first()
        if acc is None:
            raise NotFound(f"account {account} does not exist")
        inserted = (await conn.execute(
            _ins(db)(tournament_players).values(tournament_id=tournament_id, account_id=account, joined_at=now)
            .on_conflict_do_nothing(index_elements=["tournament_id", "account_id"])
            .returning(tournament_players.c.account_id))).first()
        if inserted is None:
            return Entry(joined=False, players=t.players, full=t.players >= t.max_players)
        bumped = (await conn.execute(
            update(tournaments).where(and_(tournaments.c.id == tournament_id, tournaments.c.status == "open",
                                           tournaments.c.players < tournaments.c.max_players))
            .values(players=tournaments.c.players + 1)
            .returning(tournaments.c.players, tournaments.c.max_players))).first()
        if bumped is None:
            # the player's row goes with the rolled-back transaction
            cur = (await conn.execute(select(tournaments.c.status).where(tournaments.c.id == tournament_id))).scalar()
            raise (Closed(f"tournament {tournament_id} is {cur}") if cur != "open"
                   else Full(f"tournament {tournament_id} is full"))
        return Entry(joined=True, players=bumped.players, full=bumped.players >= bumped.max_players)


async def leave(db: Database, tournament_id: int, account: int) -> bool:
    """Withdraw ``account`` before the start; False if they were not in. :class:`Closed` once started
    (a player leaving a running tournament is the director's drop)."""
    async with db.write() as conn:
        status = (await conn.execute(select(tournaments.c.status).where(tournaments.c.id == tournament_id))).scalar()
        if status is None:
            raise NotFound(f"tournament {tournament_id} does not exist")
        if status != "open":
            raise Closed(f"tournament {tournament_id} is {status}: leave it through its director")
        gone = (await conn.execute(delete(tournament_players).where(and_(
            tournament_players.c.tournament_id == tournament_id, tournament_players.c.account_id == account)))).rowcount
        if gone:
            await conn.execute(update(tournaments).where(tournaments.c.id == tournament_id)
                               .values(players=tournaments.c.players - 1))
        return bool(gone)


async def drop_player(db: Database, tournament_id: int, account: int, attempts: int = 10) -> bool:
    """``account`` leaves running tournament ``tournament_id`` (``state.drop``: inactive from now on, their open
    pairing forfeited): saved with the compare-and-set of :func:`save_state`, retried from a fresh load when the
    director saved first (it reloads in turn). False when they were out already. :class:`Closed` unless running,
    :class:`TournamentError` for a player not in it."""
    for _ in range(attempts):
        st = await load_state(db, tournament_id)
        if st is None:
            raise Closed(f"tournament {tournament_id} has not started")
        if st.finished:
            raise Closed(f"tournament {tournament_id} is finished")
        new = S.drop(st, account)
        if new is st:
            return False
        try:
            await save_state(db, new, st.version)
            return True
        except StaleState:
            continue
    raise StaleState(f"tournament {tournament_id}: the state kept moving; try again")


async def cancel(db: Database, tournament_id: int) -> bool:
    """Cancel an open tournament (too few players at the start time, or its creator's choice); False if it
    was not open."""
    async with db.write() as conn:
        n = (await conn.execute(update(tournaments).where(and_(tournaments.c.id == tournament_id,
                                                               tournaments.c.status == "open"))
                                .values(status="cancelled"))).rowcount
        return bool(n)


# ----- running ---------------------------------------------------------------------------------------
async def start_tournament(db: Database, tournament_id: int, now: Optional[dt.datetime] = None) -> S.TournamentState:
    """Close the entries and start: each player's rating in the discipline (Glicko-2; 1500 for none yet)
    seeds them; the first state (server/tournaments/state.py ``start``) is saved with status
    ``running``. Idempotent: a running or finished tournament's saved state is returned.

    Raises :class:`NotFound`, :class:`Closed` (cancelled), :class:`TournamentError` (fewer players
    than ``min_players``: the caller cancels it or waits).
    """
    now = _now(now)
    async with db.write() as conn:
        t = (await conn.execute(select(tournaments).where(tournaments.c.id == tournament_id))).mappings().first()
        if t is None:
            raise NotFound(f"tournament {tournament_id} does not exist")
        if t["status"] in ("running", "finished"):
            return S.TournamentState.from_dict(t["state"])
        if t["status"] != "open":
            raise Closed(f"tournament {tournament_id} is {t['status']}")
        rows = (await conn.execute(
            select(tournament_players.c.account_id, accounts.c.username, ratings.c.rating)
            .join(accounts, accounts.c.id == tournament_players.c.account_id)
            .outerjoin(ratings, and_(ratings.c.account_id == tournament_players.c.account_id,
                                     ratings.c.discipline == t["discipline"]))
            .where(tournament_players.c.tournament_id == tournament_id))).all()
        if len(rows) < t["min_players"]:
            raise S.TournamentError(f"tournament {tournament_id} has {len(rows)} players, needs {t['min_players']}")
        entrants = [S.Entrant(id=int(r.account_id), name=r.username,
                              rating=float(r.rating if r.rating is not None else BASE_RATING)) for r in rows]
        st = S.start(tournament_id, t["format"], t["discipline"], bool(t["rated"]), entrants, now=now.timestamp(),
                     duration_s=t["duration_s"])
        for e in st.entrants:
            await conn.execute(update(tournament_players).where(and_(
                tournament_players.c.tournament_id == tournament_id, tournament_players.c.account_id == e.id))
                .values(seed=e.seed, rating=e.rating))
        n = (await conn.execute(update(tournaments).where(and_(tournaments.c.id == tournament_id,
                                                               tournaments.c.status == "open")).values(
            status="running", started_at=now, state=st.to_dict(), state_version=st.version))).rowcount
        if n != 1:  # another process started it meanwhile: its state stands (never overwritten)
            raise StaleState(f"tournament {tournament_id} was started by another process")
        return st


async def load_state(db: Database, tournament_id: int) -> Optional[S.TournamentState]:
    """The saved state (None before the start). :class:`NotFound` if there is no such tournament."""
    async with db.read() as conn:
        row = (await conn.execute(select(tournaments.c.state).where(tournaments.c.id == tournament_id))).first()
    if row is None:
        raise NotFound(f"tournament {tournament_id} does not exist")
    return None if row.state is None else S.TournamentState.from_dict(row.state)


async def _link_games(conn, db: Database, st: S.TournamentState) -> None:
    """Rows of ``tournament_games`` for the pairings played (insert-or-nothing), with ``game_id`` filled in
    for those whose game has reached ``games``."""
    rows = [dict(tournament_id=st.tournament_id, pairing_id=p.id, round=p.round, table_id=p.result.game[0],
                 game_no=p.result.game[1])
            for p in st.pairings if p.result is not None and p.result.game is not None]
    if rows:
        await conn.execute(_ins(db)(tournament_games).on_conflict_do_nothing(
            index_elements=["tournament_id", "pairing_id"]), rows)
    g = games.c
    tg = tournament_games.c
    found = select(g.id).where(and_(g.table_id == tg.table_id, g.game_no == tg.game_no)).scalar_subquery()
    await conn.execute(update(tournament_games).where(and_(tournament_games.c.tournament_id == st.tournament_id,
                                                           tournament_games.c.game_id.is_(None)))
                       .values(game_id=found))


async def save_state(db: Database, st: S.TournamentState, expected_version: int) -> None:
    """Save ``st`` if the saved state is still at ``expected_version`` (the version the caller loaded and
    transformed); the pairings played are linked to their games in the same transaction.

    Raises :class:`StaleState` when another writer saved first (reload and re-apply: every
    transition is idempotent), :class:`Closed` when the tournament is not running.
    """
    async with db.write() as conn:
        n = (await conn.execute(update(tournaments).where(and_(
            tournaments.c.id == st.tournament_id, tournaments.c.status == "running",
            tournaments.c.state_version == expected_version)).values(
            state=st.to_dict(), state_version=st.version))).rowcount
        if n != 1:
            cur = (await conn.execute(select(tournaments.c.status, tournaments.c.state_version)
                                      .where(tournaments.c.id == st.tournament_id))).first()
            if cur is None:
                raise NotFound(f"tournament {st.tournament_id} does not exist")
            if cur.status != "running":
                raise Closed(f"tournament {st.tournament_id} is {cur.status}")
            raise StaleState(f"tournament {st.tournament_id}: saved version {cur.state_version}, "
                             f"expected {expected_version}")
        await _link_games(conn, db, st)


def _standing_row(tid: int, r: Standing) -> Dict[str, Any]:
    return dict(tournament_id=tid, rank=r.rank, account_id=r.player, score=float(r.primary),
                match_points=r.match_points, arena_points=r.arena_points, games=r.games, wins=r.wins, draws=r.draws,
                losses=r.losses, forfeits=r.forfeits, score_for=r.score_for, score_against=r.score_against,
                points=r.points, innings=r.innings, high_run=r.high_run, average=r.average)


async def finish_tournament(db: Database, st: S.TournamentState, expected_version: int,
                            now: Optional[dt.datetime] = None) -> List[Standing]:
    """Save finished state ``st`` (``state.finish`` applied), its final standings and its games' links, and
    mark the tournament finished, in one transaction. Idempotent: once finished, the stored standings
    are kept and returned as computed from the stored state.

    Raises :class:`TournamentError` when ``st`` is not finished, :class:`StaleState` as :func:`save_state`.
    """
    if not st.finished:
        raise S.TournamentError(f"tournament {st.tournament_id} is not finished")
    now = _now(now)
    async with db.write() as conn:
        cur = (await conn.execute(select(tournaments.c.status, tournaments.c.state, tournaments.c.state_version)
                                  .where(tournaments.c.id == st.tournament_id))).first()
        if cur is None:
            raise NotFound(f"tournament {st.tournament_id} does not exist")
        if cur.status == "finished":
            return standings(S.TournamentState.from_dict(cur.state))
        if cur.status != "running":
            raise Closed(f"tournament {st.tournament_id} is {cur.status}")
        if cur.state_version != expected_version:
            raise StaleState(f"tournament {st.tournament_id}: saved version {cur.state_version}, "
                             f"expected {expected_version}")
        rows = standings(st)
        await conn.execute(insert(tournament_standings), [_standing_row(st.tournament_id, r) for r in rows])
        await conn.execute(update(tournaments).where(tournaments.c.id == st.tournament_id).values(
            status="finished", finished_at=now, state=st.to_dict(), state_version=st.version))
        await _link_games(conn, db, st)
        return rows


async def final_standings(db: Database, tournament_id: int) -> List[Dict[str, Any]]:
    """The stored final standings, rank 1 first, each with the player's ``username`` (empty before the end)."""
    async with db.read() as conn:
        res = await conn.execute(
            select(tournament_standings, accounts.c.username)
            .join(accounts, accounts.c.id == tournament_standings.c.account_id)
            .where(tournament_standings.c.tournament_id == tournament_id).order_by(tournament_standings.c.rank))
        return [dict(r) for r in res.mappings()]


async def tournament_game_ids(db: Database, tournament_id: int) -> Dict[str, Optional[int]]:
    """pairing id -> ``games.id`` (None until the game is recorded) for the tournament's games played."""
    async with db.read() as conn:
        res = await conn.execute(select(tournament_games.c.pairing_id, tournament_games.c.game_id)
                                 .where(tournament_games.c.tournament_id == tournament_id))
        return {r.pairing_id: r.game_id for r in res}


#: tournaments per page of :func:`list_tournaments`
MAX_PAGE, DEFAULT_PAGE = 50, 20


async def list_tournaments(db: Database, status: Optional[str] = None, before: Optional[int] = None,
                           limit: int = DEFAULT_PAGE) -> List[Dict[str, Any]]:
    """The tournaments newest first (id descending), ``status`` only when given, ids under ``before``
    only when given; each row without its ``state`` and ``config``, with the creator's ``creator``
    username."""
    t = tournaments.c
    cols = [c for c in tournaments.c if c.name not in ("state", "config")]
    q = select(*cols, accounts.c.username.label("creator")).join(accounts, accounts.c.id == t.created_by)
    if status is not None:
        q = q.where(t.status == status)
    if before is not None:
        q = q.where(t.id < before)
    q = q.order_by(t.id.desc()).limit(limit)
    async with db.read() as conn:
        return [dict(r) for r in (await conn.execute(q)).mappings()]


async def entry_names(db: Database, tournament_id: int) -> List[Dict[str, Any]]:
    """The players joined, in joining order: ``account_id``, ``username``, ``seed`` and ``rating`` (None before the
    start), ``joined_at``."""
    tp = tournament_players.c
    async with db.read() as conn:
        res = await conn.execute(select(tp.account_id, accounts.c.username, tp.seed, tp.rating, tp.joined_at)
                                 .join(accounts, accounts.c.id == tp.account_id)
                                 .where(tp.tournament_id == tournament_id).order_by(tp.joined_at, tp.account_id))
        return [dict(r) for r in res.mappings()]


async def creator_name(db: Database, account: int) -> Optional[str]:
    async with db.read() as conn:
        return (await conn.execute(select(accounts.c.username).where(accounts.c.id == account))).scalar()


async def running(db: Database, limit: int = 1000) -> List[int]:
    """Ids of the running tournaments (the directors' work), oldest first."""
    t = tournaments.c
    async with db.read() as conn:
        return [int(x) for x in (await conn.execute(select(t.id).where(t.status == "running")
                                                    .order_by(t.id).limit(limit))).scalars()]


async def first_games(db: Database, table_ids: List[str]) -> Dict[str, Dict[str, Any]]:
    """table id -> its first finished game in ``games`` (``game_no``, ``result``, ``id``): a tournament's game
    at its fixed table (server/finished.py writes each exactly once, so a director that takes over finds it)."""
    if not table_ids:
        return {}
    g = games.c
    out: Dict[str, Dict[str, Any]] = {}
    async with db.read() as conn:
        res = await conn.execute(select(g.id, g.table_id, g.game_no, g.result).where(g.table_id.in_(table_ids))
                                 .order_by(g.table_id, g.game_no))
        for r in res:
            out.setdefault(r.table_id, {"id": int(r.id), "game_no": int(r.game_no), "result": r.result})
    return out


async def due_to_start(db: Database, now: Optional[dt.datetime] = None, limit: int = 100) -> List[int]:
    """Ids of the open tournaments that should start now: their start time has come, or they start when
    full and are full. The director's scheduler starts them (:func:`start_tournament`, or :func:`cancel`
    when too few joined)."""
    now = _now(now)
    t = tournaments.c
    due = (t.starts_at <= now) | (t.starts_at.is_(None) & (t.players >= t.max_players))
    q = (select(t.id).where(and_(t.status == "open", due))
         .order_by(t.id).limit(limit))
    async with db.read() as conn:
        return [int(x) for x in (await conn.execute(q)).scalars()]
