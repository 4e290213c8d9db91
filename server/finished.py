"""Finished games on their way to the database: each is written there exactly once, whatever happens.

A game's end is persisted in Redis together with an entry ``"<table>:<game>"`` in the set
``P finished`` (the same fenced write as the last stroke or ruling, server/table/actor.py). Then:

- the process that owns the table writes the game to the database at once
  (:meth:`Recorder.soon`: ``server.players.games.record_game``: the record, both players' rows,
  the rating updates and the statistics in one transaction) and removes the entry;
- every process sweeps the set every :data:`SWEEP_S` seconds for entries nobody has written yet
  (the owner died between the last stroke and the database write, the database was away), and
  writes them.

``record_game`` is idempotent on (table, game): a game written twice (the sweeper and the owner
at once, a crash between the database's commit and the entry's removal) is counted once. When the
database is away the entry stays, and is written when the database is back.

At the first start of a process over a Redis that has games recorded before the database existed,
those games are queued once (a flag in Redis), so they reach the database too.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Dict, List, Optional, Set

from server import records
from server.db.engine import Database
from server.players.games import RecordOutcome, record_game
from server.players.queries import PROVISIONAL_RD
from server.store import RedisUnavailable, Store

log = logging.getLogger("billar.finished")

SWEEP_S = 2.0  # s between two sweeps of the finished games not yet in the database
BACKOFF_MAX_S = 30.0  # the longest pause between sweeps while the database is away


class Recorder:
    """Writes finished games to ``db`` (``announce(table, game, ratings)``: tell the table's players the rating
    changes when the table runs here; the app wires it to the registry)."""

    def __init__(self, store: Store, db: Database, announce: Callable[[str, int, List[Dict[str, Any]]], None]):
        self.store, self.db, self.announce = store, db, announce
        self._busy: Set[str] = set()
        self._task: Optional[asyncio.Task] = None
        self._stop = asyncio.Event()
        self._bg: Set[asyncio.Task] = set()
        self.recorded = 0  # games this process wrote (not counting those found already written)
        self.on_recorded: Optional[Callable[[int], Any]] = None  # told the id of each game written (puzzle mining)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._sweep(), name="finished-games")

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._bg:
            await asyncio.wait(list(self._bg), timeout=5.0)

    def soon(self, entry: str) -> None:
        """The game of ``entry`` has just ended here (its end is in Redis): write it now."""
        task = asyncio.get_running_loop().create_task(self._record_now(entry))
        self._bg.add(task)
        task.add_done_callback(self._bg.discard)

    async def _record_now(self, entry: str) -> None:
        try:
            await self.record(entry)
        except Exception as exc:  # the database is away: the sweeper writes it later
            log.warning("finished game waits for the database", extra={"entry": entry, "error": repr(exc)})

    async def record(self, entry: str) -> Optional[RecordOutcome]:
        """Write the game of ``entry`` to the database and take it off the set; None when it cannot be now (it
        stays queued: the sweeper tries again)."""
        if entry in self._busy:
            return None
        self._busy.add(entry)
        try:
            table, _, game = entry.rpartition(":")
            try:
                rec = await self.store.record(table, int(game))
            except (RedisUnavailable, ValueError):
                return None
            if rec is None:  # the record expired (older than records_ttl_s): nothing left to write
                log.warning("finished game without a record", extra={"entry": entry})
                await self._done(entry)
                return None
            meta, entries = rec
            if not meta.get("over"):
                log.warning("finished game whose record is not over", extra={"entry": entry})
                await self._done(entry)
                return None
            try:
                outcome = await record_game(self.db, meta, entries, records.export)
            except ValueError as exc:  # a record the database refuses (malformed): kept out of the way
                log.error("finished game refused by the database", extra={"entry": entry, "error": str(exc)})
                await self._done(entry)
                return None
            await self._done(entry)
            if outcome.recorded:
                self.recorded += 1
                if self.on_recorded is not None:
                    self.on_recorded(outcome.game_id)
            if outcome.rated:
                names = meta.get("players") or [None, None]
                ratings = [{"seat": s, "name": names[s], "before": round(r.rating_before), "after": round(r.rating_after),
                            "rd_after": round(r.rd_after), "provisional": r.rd_after >= PROVISIONAL_RD}
                           for s, r in enumerate(outcome.ratings) if r is not None]
                self.announce(table, int(game), ratings)
            return outcome
        finally:
            self._busy.discard(entry)

    async def _done(self, entry: str) -> None:
        try:
            await self.store.finished_recorded(entry)
        except RedisUnavailable:
            pass  # written again later: the database counts it once

    async def import_once(self) -> int:
        """Queue the finished games recorded in Redis before the database existed (once per Redis: a flag);
        returns how many were queued."""
        try:
            if not await self.store.flag("imported-records"):
                return 0
            metas = await self.store.record_metas()
            await self.store.add_finished([f"{t}:{g}" for t, g in metas])
        except RedisUnavailable:
            return 0
        if metas:
            log.info("records queued for the database", extra={"games": len(metas)})
        return len(metas)

    async def _sweep(self) -> None:
        pause = SWEEP_S
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._stop.wait(), pause)
                return
            except asyncio.TimeoutError:
                pass
            try:
                entries = await self.store.finished_games()
            except RedisUnavailable:
                continue
            failed = False
            for entry in entries:
                try:
                    await self.record(entry)
                except Exception as exc:  # the database is away: the entries stay queued
                    log.warning("finished games wait for the database", extra={"error": repr(exc)})
                    failed = True
                    break
            pause = min(BACKOFF_MAX_S, pause * 2) if failed else SWEEP_S
