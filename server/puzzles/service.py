"""Puzzles around the database: the seed set, mining finished games (in the background or by command), ``billar puzzles``.

- **The seed set** (``server/puzzles/seed.json``): puzzles mined by :mod:`server.puzzles.mine` from
  bot self-play games of 14.1 and three-cushion (:func:`generate_seed` made it), so a fresh server
  has puzzles. :func:`seed_if_empty` adds them when the ``puzzles`` table is empty (``billar serve``
  at start); ``billar puzzles seed`` adds those not stored yet.
- **Background mining** (:class:`Miner`): a game written to the database (server/finished.py, once
  per game) is handed to :meth:`Miner.submit`; its record is read from the database and mined in a
  worker thread (``run_in_executor``: the search is CPU work, off the event loop), at most
  ``max_pending`` games at once (more are dropped: mining is best effort). ``BILLAR_PUZZLE_MINING=0``
  turns it off (config.py).
- ``billar puzzles mine [--limit N]`` mines the newest finished games of the database.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import logging
import os
from typing import Any, Dict, List, Mapping, Optional, Set

from sqlalchemy import select

from rules.registry import canonical_name
from server.db.engine import Database
from server.db.models import games
from server.players import queries
from server.players.record import decompress
from server.puzzles import store
from server.puzzles.mine import Mined, mine_record

log = logging.getLogger("billar.puzzles")

SEED_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seed.json")
#: disciplines whose games are mined
MINED = ("straight_pool", "libre", "balkline_47_2", "balkline_47_1", "balkline_71_2", "one_cushion", "three_cushion")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def as_row(m: Mined, game_id: Optional[int], key: str) -> Dict[str, Any]:
    """What :func:`server.puzzles.store.add` stores of a mined puzzle."""
    return {"code": m.code, "discipline": m.discipline, "goal": m.goal, "solution": m.solution(),
            "source_game_id": game_id, "source_stroke": m.stroke_index, "source_key": key, "successes": m.successes}


def mine_game_record(record: Mapping[str, Any], game_id: Optional[int]) -> List[Dict[str, Any]]:
    """The puzzle rows of one record (nothing for a discipline that is not mined, or a record the referee
    refuses: logged)."""
    try:
        if canonical_name(record.get("discipline") or "") not in MINED:
            return []
        return [as_row(m, game_id, "game") for m in mine_record(record)]
    except ValueError as exc:
        log.warning("puzzles: a record could not be mined", extra={"game": game_id, "error": str(exc)})
        return []


async def mine_game(db: Database, game_id: int, loop: Optional[asyncio.AbstractEventLoop] = None) -> List[int]:
    """Mine the stored game ``game_id`` (its record read from the database, the search in the default executor);
    returns the ids of the puzzles added."""
    rec = await queries.game_record(db, game_id)
    if rec is None:
        return []
    record = json.loads(decompress(rec.data, rec.format))
    loop = loop or asyncio.get_running_loop()
    rows = await loop.run_in_executor(None, mine_game_record, record, game_id)
    return await store.add(db, rows, _now()) if rows else []


class Miner:
    """Mines finished games in the background (module docstring); ``enabled`` False: :meth:`submit` does nothing."""

    def __init__(self, db: Database, enabled: bool = True, max_pending: int = 2):
        self.db, self.enabled, self.max_pending = db, enabled, max_pending
        self._tasks: Set[asyncio.Task] = set()
        self.mined = 0  # puzzles added by this process
        self.dropped = 0  # games not mined because too many were pending

    def submit(self, game_id: int) -> Optional[asyncio.Task]:
        """Mine game ``game_id`` soon (a task), or drop it when mining is off or ``max_pending`` games are being
        mined."""
        if not self.enabled:
            return None
        if len(self._tasks) >= self.max_pending:
            self.dropped += 1
            return None
        task = asyncio.get_running_loop().create_task(self._mine(game_id), name=f"puzzles-mine-{game_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _mine(self, game_id: int) -> None:
        try:
            added = await mine_game(self.db, game_id)
            self.mined += len(added)
            if added:
                log.info("puzzles mined", extra={"game": game_id, "puzzles": added})
        except Exception as exc:  # best effort: a database away, a record the miner cannot read
            log.warning("puzzles: mining failed", extra={"game": game_id, "error": repr(exc)})

    async def stop(self, timeout_s: float = 5.0) -> None:
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout_s)


# ----- the seed set --------------------------------------------------------------------------------
def load_seed(path: str = SEED_PATH) -> List[Dict[str, Any]]:
    """The seed puzzles as rows for :func:`server.puzzles.store.add`."""
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    return [dict(p, source_game_id=None, source_key="seed") for p in doc["puzzles"]]


async def seed(db: Database, path: str = SEED_PATH) -> List[int]:
    """Add the seed puzzles not stored yet; returns the ids added."""
    return await store.add(db, load_seed(path), _now())


async def seed_if_empty(db: Database, path: str = SEED_PATH) -> int:
    """Add the seed set when there are no puzzles at all (a fresh server); returns how many were added."""
    if await store.count(db):
        return 0
    try:
        return len(await seed(db, path))
    except Exception as exc:  # another process seeded at the same moment (the codes are unique)
        log.info("puzzles: seed skipped", extra={"error": repr(exc)})
        return 0


def generate_seed(path: str = SEED_PATH, games_per_discipline: int = 4, per_game: int = 2) -> Dict[str, Any]:
    """Play bot self-play games of 14.1 and three-cushion (level 3 against level 3, seeds 1, 2, ...), mine their
    records and write the seed set to ``path``. Deterministic. Returns the document written."""
    from bots.engine import Player
    from bots.selfplay import play_game

    out: List[Dict[str, Any]] = []
    setups = (("straight_pool", {"target_points": 25}), ("three_cushion", {"distance": 8}))
    for discipline, config in setups:
        for seed_no in range(1, games_per_discipline + 1):
            entries: List[Dict[str, Any]] = []
            play_game(discipline, config, [Player(3, 2 * seed_no), Player(3, 2 * seed_no + 1)], seed=seed_no,
                      record=entries)
            record = {"discipline": discipline, "config": config, "seed": seed_no, "strokes": entries}
            for m in mine_record(record, max_puzzles=per_game):
                row = as_row(m, None, "seed")
                row.pop("source_game_id")
                row["selfplay"] = {"seed": seed_no, "config": config}
                out.append(row)
    doc = {"about": "shot puzzles mined (server/puzzles/mine.py) from bot self-play games (bots/selfplay.py); "
                    "regenerate with `billar puzzles seed --generate`", "puzzles": out}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    return doc


async def recent_games(db: Database, limit: int) -> List[int]:
    """The ids of the ``limit`` newest finished games of mined disciplines."""
    async with db.read() as conn:
        return [int(i) for i in (await conn.execute(
            select(games.c.id).where(games.c.discipline.in_(MINED)).order_by(games.c.id.desc()).limit(limit))).scalars()]


# ----- billar puzzles ------------------------------------------------------------------------------
def register(subparsers) -> None:
    """Add ``puzzles`` to the ``billar`` command (server/cli.py)."""
    p = subparsers.add_parser("puzzles", help="shot puzzles: the seed set, mining finished games")
    sub = p.add_subparsers(dest="puzzles_command", required=True)
    for name, helptext in (("seed", "add the seed puzzles (server/puzzles/seed.json) not stored yet"),
                           ("mine", "mine the newest finished games of the database for puzzles")):
        q = sub.add_parser(name, help=helptext)
        q.add_argument("--url", help="database URL (default: DATABASE_URL, else sqlite under --data-dir)")
        q.add_argument("--data-dir", default=None, help="where the embedded SQLite file lives (default ./var)")
        if name == "mine":
            q.add_argument("--limit", type=int, default=20, help="games to mine, newest first (default 20)")
        else:
            q.add_argument("--generate", action="store_true",
                           help="first play bot games and write a new seed.json (takes a minute)")
        q.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    from server.db.engine import database_url
    from server.db.migrate import upgrade_database

    if getattr(args, "limit", 1) < 1:
        raise ValueError("limit: must be at least 1")
    url = args.url or database_url(args.data_dir or os.environ.get("BILLAR_DATA_DIR") or "var")

    async def run() -> int:
        db = Database(url, pool_size=1)
        try:
            await upgrade_database(db)
            if args.puzzles_command == "seed":
                if args.generate:
                    doc = generate_seed()
                    print(f"billar puzzles: wrote {len(doc['puzzles'])} puzzles to {SEED_PATH}")
                ids = await seed(db)
                print(f"billar puzzles: {len(ids)} seed puzzles added ({await store.count(db)} in all)")
            else:
                added: List[int] = []
                for gid in await recent_games(db, args.limit):
                    added += await mine_game(db, gid)
                print(f"billar puzzles: {len(added)} puzzles mined ({await store.count(db)} in all)")
            return 0
        finally:
            await db.close()

    return asyncio.run(run())
