"""The tournament director: runs every running tournament, on whichever process holds its lease.

One :class:`Directors` per process (wired in server/app.py). Every ``tick_s`` it

1. **schedules**: starts the open tournaments that are due (their start time has come, or they start
   when full and are full: ``store.due_to_start``), or cancels one whose start time came with too
   few players. Any process may do this: ``start_tournament`` is one conditional transaction, so two
   processes starting one tournament at once start it once (the second gets ``StaleState``);
2. **takes or extends the directing leases** ``P tour:lease:<id>`` of the running tournaments (the
   TV's lease script: a free lease is taken, its own extended; ``lease_ttl_s``), and runs one
   :meth:`Directors.step` for each tournament it holds. A process that dies stops extending its
   leases; another process takes them within ``lease_ttl_s`` and carries on from the saved state.

A step (the plan of server/tournaments/README.md):

- ``load_state`` (the database: the one copy every process reads);
- **results**: for every open pairing, the first game of its fixed table
  (``store.table_id``) in the database's ``games`` table. That is the source, not the table's
  game-over in this process, because server/finished.py writes every finished game there exactly
  once whatever happens (the owner writes it; if it dies first, any process's sweep does): a
  director that takes over finds every result there, none is lost with a dead process's memory,
  and applying one twice changes nothing (``record_result`` is idempotent);
- **no-shows**: an open pairing ``no_show_s`` old whose table still waits (its game not begun) has
  its empty seats forfeited (``forfeit``, reason ``no_show``: the table's claim rule applied to a
  seat never taken);
- ``pair``; ``finish`` once ``is_complete``;
- the new state is saved with the compare-and-set of ``save_state`` (``finish_tournament`` at the
  end). ``StaleState`` means another director moved it on: this step stops, the next one reloads.
  Because the pairings are in the saved state, a takeover pairs nothing twice;
- only then the **side effects**, all idempotent: every open pairing's table is created, once, with
  its fixed id and both seats reserved for the paired accounts (seat 0 of the pairing breaks: the
  schedule's balanced order) on this process (``Registry.create_reserved``; a creation claim in
  Redis makes sure two directors in a handover never both create it, the ``P tables`` set that
  nobody created it yet); and each player whose seat is still empty is told
  (``tournament_game``, published on ``P tournament`` for whichever process they are connected
  to; again every ``remind_s`` until they sit).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

import msgpack

import protocol
from protocol import outbound as O
from server.db.engine import Database
from server.store import RedisUnavailable, Store
from server.tournaments import state as S
from server.tournaments import store as T
from server.tournaments.results import from_referee

log = logging.getLogger("billar.tournaments")

#: a creation claim lasts this long (s): a director that died between the claim and the table's first write
#: holds up its table's creation no longer than this
CLAIM_TTL_S = 15
#: a reserved table waits for its players this long past the no-show time (s), so that the forfeit comes first
HOLD_MARGIN_S = 60


class Directors:
    """This process's directors. ``registry``: the table registry (server/registry.py: ``get``,
    ``create_reserved``); ``clock``: Unix seconds."""

    def __init__(self, db: Database, store: Store, registry: Any, node: str, *, tick_s: float = 1.0,
                 lease_ttl_s: float = 10.0, remind_s: float = 5.0, clock: Callable[[], float] = time.time):
        self.db, self.store, self.registry, self.node = db, store, registry, node
        self.tick_s, self.lease_ttl_s, self.remind_s, self.clock = tick_s, lease_ttl_s, remind_s, clock
        self.held: Set[int] = set()
        self._settings: Dict[int, Dict[str, Any]] = {}  # tournament id -> its row (settings never change)
        self._told: Dict[Tuple[str, int], float] = {}  # (table, account) -> when last told
        self._task: Optional[asyncio.Task] = None
        self._stop = asyncio.Event()
        self.steps = 0  # steps run (tests)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="tournament-directors")

    async def stop(self) -> None:
        """Stop directing and release the leases held (another process takes over at once)."""
        self._stop.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, 10)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                self._task.cancel()
        try:
            await self.store.tour_release(self.node, sorted(self.held))
        except RedisUnavailable:
            pass
        self.held.clear()

    async def _run(self) -> None:
        while not self._stop.is_set():
            try:
                await self.tick()
            except Exception:
                log.exception("tournament directors: tick failed")
            try:
                await asyncio.wait_for(self._stop.wait(), self.tick_s)
            except asyncio.TimeoutError:
                pass

    async def tick(self) -> None:
        await self.schedule()
        ids = await T.running(self.db)
        self.held = set(await self.store.tour_leases(self.node, ids, int(self.lease_ttl_s * 1000)))
        for tid in sorted(self.held):
            if self._stop.is_set():
                return
            try:
                await self.step(tid)
            except Exception:
                log.exception("tournament director: step failed", extra={"tournament": tid})

    # ----- the scheduler ----------------------------------------------------------------------
    async def schedule(self) -> None:
        now = dt.datetime.fromtimestamp(self.clock(), dt.timezone.utc)
        for tid in await T.due_to_start(self.db, now):
            try:
                await T.start_tournament(self.db, tid, now)
                log.info("tournament started", extra={"tournament": tid})
            except T.StaleState:
                pass  # another process started it
            except (T.Closed, T.NotFound):
                pass
            except S.TournamentError as exc:  # too few players at the start time
                if await T.cancel(self.db, tid):
                    log.info("tournament cancelled", extra={"tournament": tid, "why": str(exc)})

    # ----- one step of one tournament ---------------------------------------------------------
    async def _row(self, tid: int) -> Dict[str, Any]:
        row = self._settings.get(tid)
        if row is None:
            row = await T.get_tournament(self.db, tid)
            self._settings[tid] = {k: row[k] for k in ("config", "no_show_s", "discipline", "rated")}
        return self._settings[tid]

    async def step(self, tid: int) -> Optional[S.TournamentState]:
        """One pass of the director's loop over tournament ``tid``; returns the state it left saved (None when it
        stopped: not running, or another director saved first)."""
        self.steps += 1
        st = await T.load_state(self.db, tid)
        if st is None or st.finished:
            return None
        row = await self._row(tid)
        v0, now = st.version, self.clock()
        # results: the first game of each open pairing's table, from the database
        tables = {T.table_id(tid, p.id): p for p in st.open_pairings() if not p.is_bye}
        for table, g in (await T.first_games(self.db, list(tables))).items():
            p = tables[table]
            try:
                st = S.record_result(st, p.id, from_referee(st.discipline, g["result"], table, g["game_no"]))
            except S.TournamentError as exc:
                log.error("tournament result refused", extra={"tournament": tid, "pairing": p.id, "why": str(exc)})
        # no-shows: the seats still empty at a table still waiting, no_show_s after the pairing
        for pid in S.overdue(st, now, row["no_show_s"]):
            p = st.pairing(pid)
            if p.closed or p.is_bye:
                continue
            seated, begun = await self._table_seats(T.table_id(tid, pid))
            if begun:
                continue
            empty = [i for i in (0, 1) if not seated[i]]
            if empty:
                st = S.forfeit(st, pid, empty, "no_show")
        st = S.pair(st, now)
        if S.is_complete(st, now):
            st = S.finish(st, now)
            try:
                await T.finish_tournament(self.db, st, v0, dt.datetime.fromtimestamp(now, dt.timezone.utc))
            except (T.StaleState, T.Closed):
                return None
            log.info("tournament finished", extra={"tournament": tid})
            await self.store.tour_release(self.node, [tid])
            self.held.discard(tid)
            return st
        if st.version != v0:
            try:
                await T.save_state(self.db, st, v0)
            except (T.StaleState, T.Closed):
                return None
        await self._tables_and_players(st, row, now)
        return st

    async def _table_seats(self, table: str) -> Tuple[List[bool], bool]:
        """([seat 0 taken, seat 1 taken], the game has begun) of a tournament's table (from its state in Redis; a
        table that does not exist has nobody)."""
        actor = self.registry.get(table)
        if actor is not None:
            return [s is not None for s in actor.seats], actor.both_seated() or actor.game.over or actor.game_no > 1
        row = await self.store.load_table(table)
        if row is None:
            return [False, False], False
        state = msgpack.unpackb(row[0], raw=False, strict_map_key=False)
        seats = [s is not None for s in state.get("seats", [None, None])]
        return seats, all(seats) or int(state.get("record_len") or 0) > 0 or int(state.get("game_no") or 1) > 1

    async def _tables_and_players(self, st: S.TournamentState, row: Dict[str, Any], now: float) -> None:
        names = {e.id: e.name for e in st.entrants}
        open_tables = {T.table_id(st.tournament_id, p.id) for p in st.open_pairings()}
        mine = f"tour-{st.tournament_id}-"
        for key in [k for k in self._told if k[0].startswith(mine) and k[0] not in open_tables]:
            del self._told[key]  # reminders of closed pairings are done with
        for p in st.open_pairings():
            if p.is_bye:
                continue
            table = T.table_id(st.tournament_id, p.id)
            try:
                seated = await self._ensure_table(st, row, p, table)
                if seated is None:
                    seated, _ = await self._table_seats(table)
            except RedisUnavailable:
                return
            for seat, acc in enumerate(p.players):
                if acc is None or seated[seat]:
                    continue
                if now - self._told.get((table, acc), 0.0) < self.remind_s:
                    continue
                self._told[(table, acc)] = now
                other = p.players[1 - seat]
                msg = O.tournament_game(st.tournament_id, p.id, table, seat, names.get(other) if other else None)
                try:
                    await self.store.tour_notify(acc, protocol.encode(msg))
                except RedisUnavailable:
                    return

    async def _ensure_table(self, st: S.TournamentState, row: Dict[str, Any], p: S.Pairing,
                            table: str) -> Optional[List[bool]]:
        """Create pairing ``p``'s table unless it exists (here or anywhere); returns its seats taken, when known."""
        actor = self.registry.get(table)
        if actor is not None:
            return [s is not None for s in actor.seats]
        if await self.store.table_exists(table):
            return None
        if await self.store.last_game(table) is not None:
            return None  # played once already (and closed): never a second table of that id
        claimed = await self.store.claim_creation(f"tour:{table}", table, CLAIM_TTL_S)
        if claimed is not None:
            return None  # another director is creating it (or died doing so: the claim expires)
        hold = p.created_at + row["no_show_s"] + HOLD_MARGIN_S
        try:
            self.registry.create_reserved(table, st.discipline, dict(row["config"]), st.rated, list(p.players), hold,
                                          f"tour:{table}")
        except ValueError as exc:
            log.error("tournament table refused", extra={"tournament": st.tournament_id, "table": table,
                                                         "why": str(exc)})
            return None
        log.info("tournament table created", extra={"tournament": st.tournament_id, "table": table})
        return [False, False]
