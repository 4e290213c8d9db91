"""Puzzles in the database: adding mined puzzles, reading one, the puzzle of the day, attempts and ratings.

Tables in server/db/models.py (``puzzles``, ``puzzle_attempts``, ``puzzle_ratings``, ``puzzle_daily``).
Ratings are Glicko-2 (server/players/glicko2.py ``rate_game``: one rating period per game, lichess's
way): a logged-in player's FIRST attempt at a puzzle is one game against the puzzle, a win when
solved, and updates both the player's puzzle rating and the puzzle's. Later attempts are counted,
never rated. A player's rating deviation grows back with the days since their last rated attempt
(``glicko2.decay``); a puzzle's does not (it is played all the time).

The attempt is one write transaction: the puzzle's row and the player's rating row are read ``FOR
UPDATE`` (PostgreSQL; SQLite's writes are serialized by ``BEGIN IMMEDIATE``), the attempt number is
the count of the player's attempts plus one, and the unique (puzzle, player, attempt) key refuses a
concurrent duplicate: :func:`attempt` then tries once more.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from sqlalchemy import Integer, cast, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from server.db.engine import Database
from server.db.models import puzzle_attempts, puzzle_daily, puzzle_ratings, puzzles
from server.players import glicko2

SECONDS_PER_DAY = 86400.0
#: a new puzzle's rating (the players' start, lichess's too)
NEW_PUZZLE = glicko2.NEW_PLAYER


@dataclass(frozen=True)
class Puzzle:
    """A stored puzzle (the columns of ``puzzles``)."""

    id: int
    code: str
    discipline: str
    goal: str
    solution: Dict[str, Any]
    source_game_id: Optional[int]
    source_stroke: Optional[int]
    source_key: str
    rating: float
    rd: float
    volatility: float
    plays: int
    wins: int


@dataclass(frozen=True)
class RatingChange:
    """The ratings a first attempt changed: the player's ``before``/``after``/``rd`` (after), the puzzle's
    ``puzzle_before``/``puzzle_after``."""

    before: float
    after: float
    rd: float
    puzzle_before: float
    puzzle_after: float

    def to_json(self) -> Dict[str, Any]:
        return {"player": {"before": self.before, "after": self.after, "rd": self.rd},
                "puzzle": {"before": self.puzzle_before, "after": self.puzzle_after}}


def _row(r: Any) -> Puzzle:
    return Puzzle(int(r.id), r.code, r.discipline, r.goal, dict(r.solution), r.source_game_id, r.source_stroke,
                  r.source_key, float(r.rating), float(r.rd), float(r.volatility), int(r.plays), int(r.wins))


async def add(db: Database, found: Iterable[Dict[str, Any]], now: dt.datetime) -> List[int]:
    """Store puzzles ``found`` (dicts: ``code``, ``discipline``, ``goal``, ``solution``, ``source_game_id``,
    ``source_stroke``, ``source_key``, ``successes``); a code already stored is left as it is. Returns the ids
    of the puzzles added, in order. A concurrent writer adding the same code makes this raise
    ``IntegrityError`` (nothing of this call is kept)."""
    found = list(found)
    if not found:
        return []
    ids: List[int] = []
    async with db.write() as conn:
        codes = [f["code"] for f in found]
        have = set((await conn.execute(select(puzzles.c.code).where(puzzles.c.code.in_(codes)))).scalars())
        for f in found:
            if f["code"] in have:
                continue
            have.add(f["code"])
            res = await conn.execute(insert(puzzles).values(
                code=f["code"], discipline=f["discipline"], goal=f["goal"], solution=f["solution"],
                source_game_id=f.get("source_game_id"), source_stroke=f.get("source_stroke"),
                source_key=f.get("source_key", "game"), successes=int(f.get("successes", 0)),
                rating=NEW_PUZZLE.rating, rd=NEW_PUZZLE.rd, volatility=NEW_PUZZLE.volatility, plays=0, wins=0,
                created_at=now).returning(puzzles.c.id))
            ids.append(int(res.scalar_one()))
    return ids


async def count(db: Database) -> int:
    async with db.read() as conn:
        return int((await conn.execute(select(func.count()).select_from(puzzles))).scalar_one())


async def get(db: Database, puzzle_id: int) -> Optional[Puzzle]:
    """The puzzle ``puzzle_id``, or None."""
    async with db.read() as conn:
        r = (await conn.execute(select(puzzles).where(puzzles.c.id == puzzle_id))).first()
    return None if r is None else _row(r)


async def next_id(db: Database, puzzle_id: int) -> Optional[int]:
    """The id of the puzzle after ``puzzle_id`` (the smallest larger id; after the last, the first), or None when
    ``puzzle_id`` is the only one."""
    async with db.read() as conn:
        nxt = (await conn.execute(select(func.min(puzzles.c.id)).where(puzzles.c.id > puzzle_id))).scalar()
        if nxt is None:
            nxt = (await conn.execute(select(func.min(puzzles.c.id)))).scalar()
    return None if nxt is None or int(nxt) == puzzle_id else int(nxt)


def daily_index(day: dt.date, n: int) -> int:
    """Which of ``n`` puzzles (by ascending id) is the puzzle of ``day``: the SHA-256 of the ISO date, modulo n."""
    return int.from_bytes(hashlib.sha256(day.isoformat().encode()).digest()[:8], "big") % n


async def daily(db: Database, day: dt.date) -> Optional[Puzzle]:
    """The puzzle of ``day`` (UTC): chosen once (:func:`daily_index` among the puzzles stored then) and kept in
    ``puzzle_daily``, so the whole day shows the same puzzle even when more are mined meanwhile. None when there
    are no puzzles."""
    key = day.isoformat()
    for _ in range(2):
        async with db.read() as conn:
            pid = (await conn.execute(select(puzzle_daily.c.puzzle_id).where(puzzle_daily.c.day == key))).scalar()
        if pid is not None:
            p = await get(db, int(pid))
            if p is not None:
                return p
        try:
            async with db.write() as conn:
                pid = (await conn.execute(select(puzzle_daily.c.puzzle_id).where(puzzle_daily.c.day == key))).scalar()
                if pid is None:
                    ids = list((await conn.execute(select(puzzles.c.id).order_by(puzzles.c.id))).scalars())
                    if not ids:
                        return None
                    pid = ids[daily_index(day, len(ids))]
                    await conn.execute(insert(puzzle_daily).values(day=key, puzzle_id=pid))
        except IntegrityError:  # another process chose it at the same moment: read theirs
            continue
        return await get(db, int(pid))
    return None


def _live(r: Any, now: dt.datetime) -> glicko2.Rating:
    days = (now - r.rated_at).total_seconds() / SECONDS_PER_DAY
    return glicko2.decay(glicko2.Rating(float(r.rating), float(r.rd), float(r.volatility)), days)


async def me(db: Database, puzzle_id: int, account_id: int, now: dt.datetime) -> Dict[str, Any]:
    """``{"attempts", "solved", "rating", "rd"}`` of a player at a puzzle: their attempts there, whether one solved
    it, and their puzzle rating now (a new player's 1500 / 350 before any rated attempt)."""
    async with db.read() as conn:
        n, solved = (await conn.execute(
            select(func.count(), func.max(cast(puzzle_attempts.c.solved, Integer)))
            .where(puzzle_attempts.c.puzzle_id == puzzle_id, puzzle_attempts.c.account_id == account_id))).one()
        r = (await conn.execute(select(puzzle_ratings).where(puzzle_ratings.c.account_id == account_id))).first()
    rating = _live(r, now) if r is not None else glicko2.NEW_PLAYER
    return {"attempts": int(n), "solved": bool(solved), "rating": rating.rating, "rd": rating.rd}


async def attempt(db: Database, puzzle_id: int, account_id: int, solved: bool,
                  now: dt.datetime) -> Tuple[int, Optional[RatingChange]]:
    """Record a logged-in player's attempt: ``(attempt number, rating change or None)``. The first attempt
    rates both the player and the puzzle (module docstring); later ones are only counted. Raises ``KeyError``
    when the puzzle is gone."""
    for tries in range(2):
        try:
            return await _attempt(db, puzzle_id, account_id, solved, now)
        except IntegrityError:
            if tries:
                raise
    raise AssertionError("unreachable")


async def _attempt(db: Database, puzzle_id: int, account_id: int, solved: bool,
                   now: dt.datetime) -> Tuple[int, Optional[RatingChange]]:
    async with db.write() as conn:
        p = (await conn.execute(select(puzzles).where(puzzles.c.id == puzzle_id).with_for_update())).first()
        if p is None:
            raise KeyError(puzzle_id)
        n = int((await conn.execute(select(func.count()).select_from(puzzle_attempts).where(
            puzzle_attempts.c.puzzle_id == puzzle_id, puzzle_attempts.c.account_id == account_id))).scalar_one()) + 1
        change: Optional[RatingChange] = None
        if n == 1:
            r = (await conn.execute(select(puzzle_ratings).where(puzzle_ratings.c.account_id == account_id)
                                    .with_for_update())).first()
            player = glicko2.Rating(float(r.rating), float(r.rd), float(r.volatility)) if r is not None \
                else glicko2.NEW_PLAYER
            days = (now - r.rated_at).total_seconds() / SECONDS_PER_DAY if r is not None else 0.0
            puzzle = glicko2.Rating(float(p.rating), float(p.rd), float(p.volatility))
            new_player, new_puzzle = glicko2.rate_game(player, puzzle, 1.0 if solved else 0.0, days_a=days)
            values = dict(rating=new_player.rating, rd=new_player.rd, volatility=new_player.volatility,
                          rated_at=now)
            if r is None:
                await conn.execute(insert(puzzle_ratings).values(account_id=account_id, attempts=1,
                                                                 solved=int(solved), **values))
            else:
                await conn.execute(update(puzzle_ratings).where(puzzle_ratings.c.account_id == account_id).values(
                    attempts=puzzle_ratings.c.attempts + 1, solved=puzzle_ratings.c.solved + int(solved), **values))
            await conn.execute(update(puzzles).where(puzzles.c.id == puzzle_id).values(
                rating=new_puzzle.rating, rd=new_puzzle.rd, volatility=new_puzzle.volatility,
                plays=puzzles.c.plays + 1, wins=puzzles.c.wins + int(solved)))
            change = RatingChange(player.rating, new_player.rating, new_player.rd, puzzle.rating, new_puzzle.rating)
        await conn.execute(insert(puzzle_attempts).values(
            puzzle_id=puzzle_id, account_id=account_id, attempt=n, solved=solved, at=now,
            rating_before=None if change is None else change.before,
            rating_after=None if change is None else change.after))
    return n, change
