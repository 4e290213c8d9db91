"""Recording finished games: the game, its players' rows, rating updates and statistics in one transaction.

:func:`record_game` is what the server calls when a game ends (and again, harmlessly, when it is
not sure the first call got through); :func:`import_records` feeds it the finished games still only
in Redis. Both are idempotent: the key is (table id, game number), unique in ``games``; a second
call finds the game there, changes nothing and says so (``RecordOutcome.recorded`` False).

The record is the server's (``meta``, ``entries``) as kept in Redis (server/records.py), plus two
keys the table adds for registered players: ``meta["accounts"]`` ([account id or None] per seat:
None for a guest or the computer) and ``meta["rated"]`` (the table was created rated, and the game was not
aborted: a forfeit before both players had played a stroke, server/table/play.py ``both_played``, writes
False there and ``meta["aborted"]`` True). A game is rated only when both hold: two different accounts and
``meta["rated"]``. An aborted game is stored with ``"aborted": true`` in its ``result`` (the games lists say so)
and adds nothing to the players' statistics.

Rating updates: Glicko-2 per discipline (glicko2.py; pentathlon and triathlon are their own
disciplines), the rating period one game. Concurrent games of one player on several processes
lose no update: on PostgreSQL the two rating rows are locked (an upsert that returns them, in
account order so two games never wait on each other crosswise) as they are read; on SQLite
the write transaction holds the database's writer lock from its start (server/db/engine.py).
Statistics rows are upserted with arithmetic in the statement (``games = games + 1``,
``high_run = max(...)``), so they need no lock.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, List, Mapping, Optional, Sequence, Tuple

from sqlalchemy import and_, bindparam, case, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from rules.registry import canonical_name
from server.db.engine import Database
from server.db.models import (PLAYER_NAME_CHARS, TABLE_ID_CHARS, game_players, game_records, games, rating_history,
                              ratings, statistics)
from server.players import glicko2, record
from server.players.stats import MissingStatistics, SeatLine, replayed_result, seat_lines

log = logging.getLogger("billar.players")

#: a player whose live RD is under this is on the rating leaderboard (lichess's cut is RD < 100 too)
LEADERBOARD_RD = 100.0
SECONDS_PER_DAY = 86400.0
GUEST_NAME = "Guest"

Export = Callable[[Mapping[str, Any], List[Mapping[str, Any]]], Mapping[str, Any]]


@dataclass(frozen=True)
class SeatRating:
    """A seat's rating change: before (the RD grown by inactivity) and after the game."""

    account_id: int
    rating_before: float
    rd_before: float
    rating_after: float
    rd_after: float

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before


@dataclass
class RecordOutcome:
    """``game_id`` of the game in the database; ``recorded`` False when it was there already (nothing
    changed); ``ratings`` per seat (None: unrated); ``db_seconds`` the wall time of the transaction."""

    game_id: int
    recorded: bool
    rated: bool
    ratings: List[Optional[SeatRating]] = field(default_factory=lambda: [None, None])
    db_seconds: float = 0.0


def _ts(v: Any) -> Optional[dt.datetime]:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 1e11:
        return None
    return dt.datetime.fromtimestamp(float(v), dt.timezone.utc)


def _seat_names(meta: Mapping) -> List[str]:
    players = meta.get("players")
    out = []
    for s in (0, 1):
        n = players[s] if isinstance(players, (list, tuple)) and len(players) == 2 else None
        out.append(n[:PLAYER_NAME_CHARS] if isinstance(n, str) and n.strip() else GUEST_NAME)
    return out


def _seat_accounts(meta: Mapping) -> List[Optional[int]]:
    acc = meta.get("accounts")
    if acc is None:
        return [None, None]
    if not isinstance(acc, (list, tuple)) or len(acc) != 2:
        raise ValueError("meta: accounts must be [id or null, id or null]")
    for a in acc:
        if a is not None and (isinstance(a, bool) or not isinstance(a, int) or a <= 0):
            raise ValueError(f"meta: account ids must be positive integers, got {a!r}")
    return list(acc)


@dataclass
class _Prepared:
    table_id: str
    game_no: int
    discipline: str
    config: dict
    seed: int
    result: dict
    winner: Optional[int]
    rated: bool
    names: List[str]
    accounts: List[Optional[int]]
    lines: List[SeatLine]
    started: dt.datetime
    finished: dt.datetime
    strokes: int
    data: bytes


def prepare(meta: Mapping[str, Any], entries: Sequence[Mapping[str, Any]], export: Export,
            now: Optional[dt.datetime] = None) -> _Prepared:
    """Check a finished game's record and work out everything :func:`record_game` writes (no I/O).

    ``export``: ``server.records.export`` (meta, entries) -> the record ``billar referee`` replays,
    which is what is stored (record.py). Raises ``ValueError`` for a game that is not finished or
    a malformed record; a 14.1 result without statistics is re-judged from the exported record.
    """
    if not isinstance(meta, Mapping):
        raise ValueError("meta: expected an object")
    table_id, game_no = meta.get("table"), meta.get("game")
    if not isinstance(table_id, str) or not 1 <= len(table_id) <= TABLE_ID_CHARS:
        raise ValueError("meta: table must be a string of 1-64 characters")
    if isinstance(game_no, bool) or not isinstance(game_no, int) or not 0 <= game_no < 2**31:
        raise ValueError("meta: game must be an integer in [0, 2^31)")
    discipline = canonical_name(meta.get("discipline"))
    result = meta.get("result")
    if not isinstance(result, Mapping):
        raise ValueError(f"meta: game {table_id}/{game_no} is not finished (no result)")
    entries = list(entries)
    try:
        exported = export(meta, entries)
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"record {table_id}/{game_no}: malformed entries ({type(exc).__name__}: {exc})") from None
    try:
        lines = seat_lines(discipline, result)
    except MissingStatistics:
        replayed = replayed_result(exported)
        if replayed is None:
            raise ValueError(f"record {table_id}/{game_no}: the referee does not finish the record") from None
        lines = seat_lines(discipline, replayed)
    accounts = _seat_accounts(meta)
    rated = bool(meta.get("rated")) and None not in accounts and accounts[0] != accounts[1]
    stamps = [t for t in (_ts(e.get("ts")) for e in entries if isinstance(e, Mapping)) if t is not None]
    now = now or dt.datetime.now(dt.timezone.utc)
    started = min(stamps) if stamps else (_ts(meta.get("created")) or now)
    finished = max(stamps) if stamps else now
    seed = meta.get("seed", 0)
    return _Prepared(
        table_id=table_id, game_no=game_no, discipline=discipline, config=dict(meta.get("config") or {}),
        seed=int(seed) if isinstance(seed, int) and not isinstance(seed, bool) and abs(seed) < 2**63 else 0,
        result=dict(result, aborted=True) if meta.get("aborted") else dict(result), winner=result.get("winner"), rated=rated, names=_seat_names(meta), accounts=accounts,
        lines=lines, started=started, finished=finished, strokes=len(entries), data=record.encode(exported, entries))


@lru_cache(maxsize=None)
def _statements(dialect: str):
    """The upserts of record_game for ``dialect``, built once (their compiled forms are cached):
    (game insert or nothing, rating rows upsert-and-lock, statistics upsert)."""
    ins = postgresql.insert if dialect == "postgresql" else sqlite.insert
    game = ins(games).on_conflict_do_nothing(index_elements=["table_id", "game_no"]).returning(games.c.id)
    # the conflict branch rewrites a column with itself: on PostgreSQL that takes the row lock
    rate = (ins(ratings).on_conflict_do_update(index_elements=["account_id", "discipline"],
                                               set_={"rated_games": ratings.c.rated_games})
            .returning(*ratings.c, sort_by_parameter_order=True))
    stat = ins(statistics)
    st, ex = statistics.c, stat.excluded
    stat = stat.on_conflict_do_update(index_elements=["account_id", "discipline"], set_=dict(
        games=st.games + ex.games, wins=st.wins + ex.wins, draws=st.draws + ex.draws, losses=st.losses + ex.losses,
        points=st.points + ex.points, innings=st.innings + ex.innings,
        high_run=case((ex.high_run > st.high_run, ex.high_run), else_=st.high_run),
        best_game_id=case((ex.best_average > st.best_average, ex.best_game_id), else_=st.best_game_id),
        best_average=case((ex.best_average > st.best_average, ex.best_average), else_=st.best_average),
        updated_at=ex.updated_at))
    return game, rate, stat


async def record_game(db: Database, meta: Mapping[str, Any], entries: Sequence[Mapping[str, Any]],
                      export: Export) -> RecordOutcome:
    """Write a finished game, its players' rows, the rating updates and the statistics in ONE transaction.

    ``export``: ``server.records.export`` (see :func:`prepare`). Idempotent on (``meta["table"]``, ``meta["game"]``): when the game is already recorded nothing
    changes and the outcome has ``recorded=False`` (with the ratings as recorded the first time).
    Raises ``ValueError`` for an unfinished game or a malformed record (see :func:`prepare`);
    database errors propagate (the caller keeps the record queued and tries again).
    """
    # the export, JSON and gzip of a record take 5-30 ms of CPU: in a worker thread, the event loop
    # keeps running between the interpreter's switches (zlib and the database driver release the GIL)
    p = await asyncio.to_thread(prepare, meta, entries, export)
    ins = _statements(db.dialect)
    game_row = dict(table_id=p.table_id, game_no=p.game_no, discipline=p.discipline, config=p.config, seed=p.seed,
                    rated=p.rated, result=p.result, winner=p.winner, strokes=p.strokes, started_at=p.started,
                    finished_at=p.finished, recorded_at=dt.datetime.now(dt.timezone.utc))
    t0 = time.perf_counter()
    async with db.write() as conn:
        game_id = (await conn.execute(ins[0], game_row)).scalar()
        if game_id is None:
            return await _existing(conn, p, t0)
        await conn.execute(insert(game_records).values(game_id=game_id, format=record.FORMAT, data=p.data))
        seat_ratings: List[Optional[SeatRating]] = [None, None]
        if p.rated:
            seat_ratings = await _rate(conn, ins, p, game_id)
        rows = []
        for s in (0, 1):
            ln, sr = p.lines[s], seat_ratings[s]
            rows.append(dict(
                game_id=game_id, seat=s, account_id=p.accounts[s], name=p.names[s], discipline=p.discipline,
                finished_at=p.finished, score=ln.score, points=ln.points, innings=ln.innings, high_run=ln.high_run,
                average=ln.average, rating_before=sr.rating_before if sr else None,
                rating_after=sr.rating_after if sr else None, rd_before=sr.rd_before if sr else None,
                rd_after=sr.rd_after if sr else None))
        await conn.execute(insert(game_players), rows)
        if not p.result.get("aborted"):  # an aborted game is kept (its record, the games lists) but counts nowhere
            await _add_statistics(conn, ins, p, game_id)
    return RecordOutcome(game_id, True, p.rated, seat_ratings, time.perf_counter() - t0)


async def _existing(conn, p: _Prepared, t0: float) -> RecordOutcome:
    row = (await conn.execute(select(games.c.id, games.c.rated).where(
        games.c.table_id == p.table_id, games.c.game_no == p.game_no))).first()
    seats = (await conn.execute(select(game_players).where(game_players.c.game_id == row.id)
                                .order_by(game_players.c.seat))).all()
    out: List[Optional[SeatRating]] = [None, None]
    for r in seats:
        if r.rating_after is not None and r.account_id is not None:
            out[r.seat] = SeatRating(r.account_id, r.rating_before, r.rd_before, r.rating_after, r.rd_after)
    return RecordOutcome(row.id, False, bool(row.rated), out, time.perf_counter() - t0)


_UPDATE_RATING = (update(ratings)
                  .where(and_(ratings.c.account_id == bindparam("aid"), ratings.c.discipline == bindparam("disc")))
                  .values(rating=bindparam("r"), rd=bindparam("rd"), volatility=bindparam("vol"),
                          rated_games=ratings.c.rated_games + 1, rated_at=bindparam("at"), active_until=bindparam("until")))


async def _rate(conn, ins, p: _Prepared, game_id: int) -> List[Optional[SeatRating]]:
    """Lock both rating rows (created at the defaults when new), update them, append their history.

    One statement creates the missing rows and locks and returns both: an upsert whose conflict
    branch rewrites a column with itself (``ON CONFLICT DO UPDATE`` takes the row lock on PostgreSQL)
    and ``RETURNING`` the row as it stands, rows in account order (no crosswise waits).
    """
    new = glicko2.NEW_PLAYER
    rows = [dict(account_id=a, discipline=p.discipline, rating=new.rating, rd=new.rd, volatility=new.volatility,
                 rated_games=0, rated_at=p.finished, active_until=p.finished) for a in sorted(p.accounts)]
    current = {r.account_id: r for r in (await conn.execute(ins[1], rows)).all()}
    before, days = [], []
    for a in p.accounts:
        r = current[a]
        before.append(glicko2.Rating(r.rating, r.rd, r.volatility))
        days.append((p.finished - r.rated_at).total_seconds() / SECONDS_PER_DAY if r.rated_games else 0.0)
    after = glicko2.rate_game(before[0], before[1], p.lines[0].score, days[0], days[1])
    out: List[Optional[SeatRating]] = []
    params = []
    for s in (0, 1):
        a, b0, b1 = p.accounts[s], glicko2.decay(before[s], days[s]), after[s]
        until = p.finished + dt.timedelta(days=glicko2.days_until_rd(b1, LEADERBOARD_RD))
        # a game finishing before the row's last one (a late import) leaves rated_at at the later time
        params.append(dict(aid=a, disc=p.discipline, r=b1.rating, rd=b1.rd, vol=b1.volatility,
                           at=max(p.finished, current[a].rated_at), until=until))
        out.append(SeatRating(a, b0.rating, b0.rd, b1.rating, b1.rd))
    await conn.execute(_UPDATE_RATING, params)
    await conn.execute(insert(rating_history), [
        dict(account_id=p.accounts[s], discipline=p.discipline, game_id=game_id, at=p.finished,
             rating=out[s].rating_after, rd=out[s].rd_after) for s in (0, 1)])
    return out


async def _add_statistics(conn, ins, p: _Prepared, game_id: int) -> None:
    rows = []
    for s in (0, 1):
        a = p.accounts[s]
        if a is None or (s == 1 and a == p.accounts[0]):
            continue
        ln = p.lines[s]
        rows.append(dict(account_id=a, discipline=p.discipline, games=1, wins=int(ln.score == 1.0),
                         draws=int(ln.score == 0.5), losses=int(ln.score == 0.0), points=ln.points,
                         innings=ln.innings, high_run=ln.high_run, best_average=ln.best_average,
                         best_game_id=game_id, updated_at=p.finished))
    if rows:
        await conn.execute(ins[2], rows)


@dataclass
class ImportReport:
    recorded: int = 0
    duplicates: int = 0
    unfinished: int = 0
    failed: List[Tuple[str, str]] = field(default_factory=list)  # (table/game, reason)


async def import_records(db: Database, items: Iterable[Tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]],
                         export: Export) -> ImportReport:
    """Record every finished game of ``items`` ((meta, entries) as in Redis) not yet in the database.

    Idempotent: games already recorded are counted as ``duplicates``; unfinished games
    (no result) as ``unfinished``; a malformed record is logged and listed in ``failed`` and the
    others go on. Database errors propagate (run it again when the database is back).
    """
    rep = ImportReport()
    for meta, entries in items:
        key = f"{meta.get('table')}/{meta.get('game')}" if isinstance(meta, Mapping) else "?"
        if not isinstance(meta, Mapping) or meta.get("result") is None:
            rep.unfinished += 1
            continue
        try:
            out = await record_game(db, meta, entries, export)
        except ValueError as exc:
            log.warning("import: record %s skipped: %s", key, exc)
            rep.failed.append((key, str(exc)))
            continue
        if out.recorded:
            rep.recorded += 1
        else:
            rep.duplicates += 1
    return rep
