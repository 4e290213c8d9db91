"""A logged-in player's record at each drill (issue 16): strokes played at the drill's practice table and the ones
that met its goal, as the referee judged them (rules/drills.py ``achieved``; the table says it in the ruling's
``drill``). Kept in ``drill_progress`` (server/db/models.py), one row per account and drill; a guest's record is
kept by the browser instead."""

from __future__ import annotations

import datetime as dt
from typing import Dict

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from server.db import Database
from server.db.models import drill_progress


async def record_drill(db: Database, account_id: int, drill_id: str, achieved: bool, now: dt.datetime) -> None:
    """Count one stroke of ``account_id`` at drill ``drill_id`` (and a success when ``achieved``). Two writes at
    once for a new row: the one that loses the insert adds its stroke to the row the other made."""
    inc = {"attempts": drill_progress.c.attempts + 1, "successes": drill_progress.c.successes + int(achieved),
           "updated_at": now}
    where = (drill_progress.c.account_id == account_id) & (drill_progress.c.drill_id == drill_id)
    for _ in range(2):
        async with db.write() as conn:
            if (await conn.execute(update(drill_progress).where(where).values(**inc))).rowcount:
                return
        try:
            async with db.write() as conn:
                await conn.execute(drill_progress.insert().values(account_id=account_id, drill_id=drill_id, attempts=1,
                                                                  successes=int(achieved), updated_at=now))
            return
        except IntegrityError:
            continue


async def progress(db: Database, account_id: int) -> Dict[str, Dict[str, int]]:
    """``{drill id: {"attempts", "successes"}}`` of ``account_id`` (drills never played are absent)."""
    async with db.read() as conn:
        rows = (await conn.execute(select(drill_progress.c.drill_id, drill_progress.c.attempts,
                                          drill_progress.c.successes)
                                   .where(drill_progress.c.account_id == account_id))).all()
    return {r.drill_id: {"attempts": int(r.attempts), "successes": int(r.successes)} for r in rows}
