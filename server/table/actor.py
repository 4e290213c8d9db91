"""One actor per table: an asyncio task with an inbox that owns the seats, the referee, the shot clock and the version.

Everything that changes a table enters through its inbox: :meth:`TableActor.submit` (inbound
messages) and the requests :meth:`~TableActor.seat_player`, :meth:`~TableActor.reclaim`,
:meth:`~TableActor.resync`, :meth:`~TableActor.disconnected`, :meth:`~TableActor.add_computer`
(which queue a step), and its own timers (shot clock, idle close, spectator counts, lobby
entry, a retry when Redis is back). Steps run one at a time, so no lock is needed and every
stream message gets the next version.

A stroke: check seat, token, turn and sequence number -> :func:`server.table.play.stroke`
(``game.prepare_shot`` -> physics ``simulate`` -> ``game.apply_shot``) -> the stream message
goes into the :class:`~server.table.batch.Batch` -> when the inbox is empty, ONE fenced Redis
write -> the same encoded bytes published to players and spectators. The latency of each stage
goes to the ``billar_shot_latency_seconds`` histogram.

What the actor needs from its process is the small *host* interface (server/registry.py):
``settings``, ``metrics``, ``store``, ``outbox``, ``stopping``, ``background(coro)``,
``closed(actor)``, ``lost(actor)``, ``reroute(conn, msg, auto)`` and ``keep_write(write)``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional, Sequence, Tuple

import msgpack

import protocol
from protocol import inbound as I
from protocol import outbound as O
from protocol.errors import ErrorCode
from rules.drills import solo_text
from rules.registry import canonical_name, game_from_state, new_game
from server.conn import Connection
from server.store import Fenced, TableWrite, frame_stream
from server.table import computer, play, practice, seats
from server.table.batch import Batch, LobbyPace, Persister, TableLost
from server.table.clock import ShotClock
from server.table.feed import SPECTATOR, TableFeed

log = logging.getLogger("billar.table")

STATE_FORMAT = 1  # version of the persisted table state
SPECTATORS_S = 0.5  # spectator counts are sent at most this often


def new_table_id() -> str:
    """A fresh table id (11 characters of ``[A-Za-z0-9_-]``, unguessable)."""
    return secrets.token_urlsafe(8)


class TableActor:
    """A table: ``id``, discipline and configuration, two seats, spectators, the game, its stream.

    Construct with :meth:`create` (new table; ``ValueError`` naming the key for a bad
    discipline or configuration) or :meth:`from_state` (restore after a restart or an adoption).
    """

    def __init__(self, host: Any, table_id: str, discipline: str, config: Dict[str, Any], private: bool, game: Any,
                 seed: int, game_no: int = 1, created: Optional[float] = None, rated: bool = False,
                 practice_state: Optional[practice.Practice] = None):
        st = host.settings
        self.host, self.settings, self.metrics = host, st, host.metrics
        self.id, self.discipline, self.config, self.private = table_id, discipline, dict(config), private
        self.rated = rated  # the games count for ratings (both players logged in)
        self.practice = practice_state  # a practice table's own state (server/table/practice.py), None at a game table
        self.rated_result: Optional[List[Dict[str, Any]]] = None  # the last game's rating changes, once recorded
        self._finish_due: Optional[str] = None  # "<table>:<game>" of a game just ended, until its write is in
        self.final_meta: Optional[Dict[str, Any]] = None  # the record header of the game that ended (record_meta)
        self.game, self.seed, self.game_no = game, seed, game_no
        self.created = created if created is not None else time.time()
        self.seats: List[Optional[seats.Seat]] = [None, None]
        self.version = 0
        self.feed = TableFeed(table_id, st.history_len, host.metrics)
        self.inbox: asyncio.Queue = asyncio.Queue(maxsize=st.inbox_size)
        self.chat: Deque[Dict[str, Any]] = deque(maxlen=st.chat_history)
        self.rematch_offers = [False, False]
        self.lag: Dict[int, Dict[str, Any]] = {}  # seat -> pending lag stroke (disciplines with a simulated lag)
        self.record_len = 0  # actions recorded in this game
        self.history: List[Dict[str, Any]] = []  # protocol.outbound.history_entry of each of them (the snapshot's)
        self.computers: Dict[int, Any] = {}  # seat -> server.table.computer.ComputerSeat
        self.clock = ShotClock(lambda marker: self.submit_internal(self._on_clock, marker))
        self.batch = Batch()
        self.lobby = LobbyPace(st.lobby_update_s)
        self.persister = Persister(table_id, host.store, st.cluster, st.history_len,
                                   lambda: self.submit_internal(self.flush_pending))
        self.last_state: Dict[str, Any] = game.to_state()  # last persisted game state (restored if the referee fails)
        self.task: Optional[asyncio.Task] = None
        self.closed = False
        self.lost = False  # the lease went to another process: this actor stopped without writing
        self.creation: Optional[Dict[str, Any]] = None  # {"hash": sha256 of the creation id, "seat": creator's seat}
        # a tournament's table (server/tournaments/director.py): seat i only for account reserved[i]; while a
        # reserved seat is empty the table waits for its player until hold_until (Unix s), even when nobody is in
        self.reserved: List[Optional[int]] = [None, None]
        self.hold_until = 0.0
        self._preset = game.table.to_json()
        self._ids = protocol.preset_ids(self._preset)
        self._flushed = (0, 0)  # (version, record_len) of the last write
        self._flushed_seqs: List[Optional[Tuple[int, int]]] = [None, None]  # seats' (last_seq, last_v) at that write
        self._flushed_clock = self.clock.save()  # the clock's turn, running clock and time left at that write
        self._idle_handle: Optional[asyncio.TimerHandle] = None
        self._spectators_dirty = False
        self._spectators_handle: Optional[asyncio.TimerHandle] = None
        self._lobby_handle: Optional[asyncio.TimerHandle] = None

    # ----- construction ----------------------------------------------------------------------
    @classmethod
    def create(cls, host: Any, discipline: str, config: Dict[str, Any], private: bool,
               table_id: Optional[str] = None, creation_id: Optional[str] = None,
               creator_seat: Optional[int] = None, rated: bool = False,
               practice_spec: Optional[Dict[str, Any]] = None,
               reserved: Optional[List[Optional[int]]] = None, hold_until: float = 0.0) -> "TableActor":
        """A new table (``table_id``: chosen by the caller, else fresh); ``creation_id`` makes a retried
        ``create_table`` find this table again (its hash is kept, with the creator's seat); ``practice_spec``
        (``create_table.practice``): a practice table (``practice.PracticeError`` when it cannot be made).
        ``reserved``: the account each seat is kept for (a tournament's pairing), waited for until
        ``hold_until`` (Unix s)."""
        name = canonical_name(discipline)
        seed = secrets.randbits(31)
        pr = None
        if practice_spec is not None:
            pr, game = practice.setup(name, config, practice_spec, seed)
        else:
            game = new_game(name, config, seed)
        t = cls(host, table_id or new_table_id(), name, config, private, game, seed, rated=rated, practice_state=pr)
        if creation_id is not None:
            t.creation = {"hash": seats.token_hash(creation_id), "seat": creator_seat}
        if reserved is not None:
            t.reserved, t.hold_until = list(reserved), float(hold_until)
        return t

    @classmethod
    def from_state(cls, host: Any, state: Dict[str, Any], stream: List[Tuple[int, bytes]],
                   records: Sequence[Dict[str, Any]] = ()) -> "TableActor":
        """Restore a persisted table; every seat starts a fresh grace period (the server, not the player, went away).
        ``records``: the current game's record entries, in order (they give the snapshot's history back)."""
        game = game_from_state(state["game"])
        t = cls(host, state["id"], state["discipline"], state["config"], state["private"], game, state["seed"],
                state["game_no"], state["created"], state.get("rated", False),
                practice.Practice.from_state(state["practice"]) if state.get("practice") else None)
        t._finish_due = state.get("finish_due") or None
        t.final_meta = state.get("final_meta")
        t.version = state["version"]
        now = time.time()
        for i, s in enumerate(state["seats"]):
            if s is not None:
                seat = seats.Seat.from_state(s)
                seat.grace_until = now + host.settings.grace_s
                t.seats[i] = seat
        t.chat.extend(state.get("chat", ()))
        t.rematch_offers = list(state.get("rematch", [False, False]))
        t.lag = {int(k): v for k, v in state.get("lag", {}).items()}
        t.record_len = state.get("record_len", 0)
        t.history = [history_of(i, e) for i, e in enumerate(records[: t.record_len])]
        computer.restore(t, state.get("computers", {}))
        t.creation = state.get("creation")
        t.reserved = list(state.get("reserved") or [None, None])
        t.hold_until = float(state.get("hold_until") or 0.0)
        for v, data in stream:
            t.feed.history.append((v, data))
        t.last_state = state["game"]
        t._flushed = (t.version, t.record_len)
        return t

    def to_state(self, game_state: Dict[str, Any]) -> Dict[str, Any]:
        return {
            "format": STATE_FORMAT, "id": self.id, "discipline": self.discipline, "config": self.config,
            "private": self.private, "seed": self.seed, "game_no": self.game_no, "created": self.created,
            "version": self.version, "game": game_state,
            "seats": [s.to_state() if s else None for s in self.seats],
            "chat": list(self.chat), "rematch": self.rematch_offers, "lag": {str(k): v for k, v in self.lag.items()},
            "record_len": self.record_len, "rated": self.rated, "finish_due": self._finish_due,
            "final_meta": self.final_meta,
            "computers": {str(k): c.level for k, c in self.computers.items()},
            "creation": self.creation, "reserved": self.reserved, "hold_until": self.hold_until,
            "practice": self.practice.to_state() if self.practice is not None else None,
        }

    @property
    def lease(self) -> Optional[str]:
        """``"<node>|<fence>"``: every write is checked against it (server/cluster/node.py)."""
        return self.persister.lease

    @lease.setter
    def lease(self, value: Optional[str]) -> None:
        self.persister.lease = value

    @property
    def lease_at(self) -> float:
        """Monotonic time before the last write that extended the lease (the node renews the others)."""
        return self.persister.lease_at

    @property
    def pending(self) -> Optional[TableWrite]:
        """The write Redis refused, waiting for it to be back."""
        return self.persister.pending

    # ----- the actor loop --------------------------------------------------------------------
    def start(self, restored: bool = False) -> None:
        """Run the actor. A new table is written to Redis first (so that every process can find it), then
        serves its creator; either way an idle timer runs from the start, so a table nobody comes to closes."""
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")
        if restored:
            self.check_idle()
        else:
            self.submit_internal(self._persist_new)
            self._idle_handle = asyncio.get_running_loop().call_later(
                max(self.settings.linger_s, self.settings.grace_s), self.submit_internal, self._close_if_idle)
        self.arm_clock()

    def submit(self, conn: Connection, msg: I.Inbound, auto: bool = False) -> bool:
        """Queue an inbound message; False when the inbox is full (the caller answers ``busy``). ``auto``: a
        resume a node sent for its connection after the table moved (server/table/seats.py ``resume``)."""
        return self.submit_internal(self.handle, conn, msg, auto)

    def submit_internal(self, fn: Callable[..., Any], *args: Any) -> bool:
        if self.closed:
            return False
        try:
            self.inbox.put_nowait((fn, args))
            return True
        except asyncio.QueueFull:
            return False

    # requests from the rest of the process, each one step in the inbox
    def seat_player(self, conn: Connection, seat: Optional[int], ref: str) -> bool:
        return self.submit_internal(seats.take_seat, self, conn, seat, ref)

    def add_computer(self, seat: int, level: int) -> bool:
        return self.submit_internal(computer.seat_computer, self, seat, level)

    def reclaim(self, conn: Connection, msg: I.CreateTable) -> bool:
        return self.submit_internal(seats.reclaim, self, conn, msg)

    def resync(self, conn: Connection) -> bool:
        return self.submit_internal(seats.resync, self, conn)

    def disconnected(self, conn: Connection) -> bool:
        return self.submit_internal(seats.disconnected, self, conn)

    def renamed(self, conn: Connection) -> bool:
        """``conn`` has a new name (no game in progress here): its seat shows it."""
        return self.submit_internal(seats.renamed, self, conn)

    async def _run(self) -> None:
        while True:
            fn, args = await self.inbox.get()
            if fn is None:  # stop: what is still batched goes to Redis first
                try:
                    await self.flush()
                except TableLost:
                    self.host.lost(self)
                except Exception:
                    log.exception("final flush failed", extra={"table": self.id})
                break
            try:
                res = fn(*args)
                if asyncio.iscoroutine(res):
                    await res
                if self.inbox.empty() or self.batch.full():
                    await self.flush()
                if self.computers:
                    computer.after_step(self)
            except TableLost:  # another process holds the table: nothing of this batch was persisted or seen
                self.host.lost(self)
                if fn == self.handle:  # the message goes on to the table's new owner, as if it had gone there first
                    self.host.reroute(*args)
                break
            except Exception:
                log.exception("table actor step failed", extra={"table": self.id})
                self._restore_after_fault()
                if args and isinstance(args[0], Connection):
                    args[0].error(ErrorCode.INTERNAL, "internal error; the table is unchanged", table=self.id)
            if self.closed:
                break

    def _restore_after_fault(self) -> None:
        """Put the game back to its last persisted state (a referee exception must not leave it half-changed).

        Stream messages not yet flushed were never seen by anybody: they are dropped with it, and
        the seats' sequence numbers go back with them, so a retry of the failed action with the
        same ``seq`` is played, not refused as a duplicate. The shot clock's turn goes back too:
        the clock of the restored turn goes on (the failed action's turn change, and a clock armed
        for it, never happened).
        """
        self.batch.clear()
        self.version, self.record_len = self._flushed
        for seat, seqs in zip(self.seats, self._flushed_seqs):  # the failed action's seq was never played
            if seat is not None and seqs is not None:
                seat.last_seq, seat.last_v = seqs
        try:
            self.game = game_from_state(self.last_state)
        except Exception:
            log.exception("could not restore game state", extra={"table": self.id})
        self.clock.restore(self._flushed_clock)
        self.arm_clock()

    def abandon(self) -> None:
        """The lease is lost (server/cluster/node.py): stop at once, write nothing more, publish nothing more."""
        self.closed = self.lost = True
        self.persister.closed = True
        self._cancel_timers()
        self.batch.take()
        self.persister.pending = None
        if self.task is not None and self.task is not asyncio.current_task() and not self.task.done():
            self.task.cancel()
        for comp in self.computers.values():
            if comp.thinking is not None:
                comp.thinking.cancel()

    async def _persist_new(self) -> None:
        """A new table's first step: write it (state and lease, no lobby entry yet) before anybody learns its
        id, so that a join through another process finds it at once."""
        await self.persister.persist(self.write([], [], False, lobby=False))
        self._flushed = (self.version, self.record_len)

    def published_version(self) -> int:
        """Version of the last stream message persisted (and so published) by this actor."""
        return self._flushed[0]

    async def stop(self) -> None:
        """Server shutdown: flush pending writes, stop the loop (the state stays in Redis for the next start)."""
        self._cancel_timers()
        if self.task is not None and not self.task.done():
            self.submit_internal(self.flush_pending)
            try:
                self.inbox.put_nowait((None, ()))
            except asyncio.QueueFull:
                self.task.cancel()
            try:
                await asyncio.wait_for(asyncio.shield(self.task), 5.0)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                self.task.cancel()
        self.closed = True

    # ----- inbound dispatch ------------------------------------------------------------------
    async def handle(self, conn: Connection, msg: I.Inbound, auto: bool = False) -> None:
        """Play one validated inbound message of ``conn`` (an actor step)."""
        if isinstance(msg, I.Resume):
            await seats.resume(self, conn, msg, auto)
            return
        if isinstance(msg, I.PRACTICE_ACTIONS) and self.practice is None:
            self.error(conn, ErrorCode.NOT_PRACTICE, f"{msg.TYPE}: only at a practice table; this is a game table",
                       None, msg.TYPE, table=self.id, seq=getattr(msg, "seq", None))
            return
        handler = _HANDLERS.get(type(msg))
        if handler is None:  # pragma: no cover - every table message type has a handler
            self.error(conn, ErrorCode.UNKNOWN_TYPE, f"type: {msg.TYPE} is not a table message", "type", msg.TYPE)
            return
        if isinstance(msg, I.SEAT_ACTIONS):
            seat = self.seat_action(conn, msg)
            if seat is None:
                return
            await handler(self, conn, msg, seat)
        else:
            await handler(self, conn, msg)

    def error(self, conn: Connection, code: str, message: str, field: Optional[str] = None, ref: Optional[str] = None,
              **kw: Any) -> None:
        """Answer ``conn`` with an error. While an action is batched but not yet published, the error waits for
        it (it may be about that action: a duplicate, a second claim), so no reply overtakes what it refers to."""
        if self.batch.messages:
            self.batch.after.append(lambda: conn.error(code, message, field, ref, **kw))
        else:
            conn.error(code, message, field, ref, **kw)

    def refuse(self, conn: Connection, r: play.Refusal, msg: Any) -> None:
        self.error(conn, r.code, r.message, r.field, msg.TYPE, table=self.id, seq=getattr(msg, "seq", None), **r.extra())

    def seat_action(self, conn: Connection, msg: Any) -> Optional[int]:
        """The seat ``msg.token`` opens, if this connection is bound to it; else an error and None."""
        i = seats.seat_with_token(self, msg.token)
        if i is not None:
            if self.seats[i].session is not conn:
                self.error(conn, ErrorCode.RESUME_REQUIRED, "token: send resume on this connection first", "token",
                           msg.TYPE, table=self.id)
                return None
            return i
        if conn in self.feed.members and self.seat_of(conn) is None:
            self.error(conn, ErrorCode.NOT_SEATED, "spectators cannot act", "token", msg.TYPE, table=self.id)
        else:
            self.error(conn, ErrorCode.BAD_TOKEN, "token: does not open a seat at this table", "token", msg.TYPE,
                       table=self.id)
        return None

    # ----- views -----------------------------------------------------------------------------
    def seat_of(self, conn: Connection) -> Optional[int]:
        for i, s in enumerate(self.seats):
            if s is not None and s.session is conn:
                return i
        return None

    def seats_view(self) -> List[Optional[Dict[str, Any]]]:
        return [O.seat_entry(i, s.player, s.name, s.session is not None, None if s.session else s.grace_until, s.rating,
                             s.provisional)
                if s else None for i, s in enumerate(self.seats)]

    def both_seated(self) -> bool:
        return self.seats[0] is not None and self.seats[1] is not None

    def game_in_progress(self) -> bool:
        """Both seats taken and the game not over (the lag counts: the game is on); never at a practice table."""
        return self.practice is None and self.both_seated() and not self.game.over

    def practice_view(self) -> Optional[Dict[str, Any]]:
        return self.practice.view(self.game) if self.practice is not None else None

    def open_seats(self) -> List[int]:
        """The seats a player may take now: the free ones; at a practice table the coach's (1) only when offered."""
        free = [i for i, s in enumerate(self.seats) if s is None]
        if self.practice is not None and not self.practice.coach:
            free = [i for i in free if i == 0]
        return free

    def state_view(self) -> Dict[str, Any]:
        g = self.game
        zones = g.table_zones() if hasattr(g, "table_zones") else None  # carom zone chalk lines, for drawing
        return O.game_state(g.phase, g.to_act, g.layout(), g.scoreboard(), None if g.over else g.legal_actions(), g.over,
                            g.result if g.over else None, zones=zones)

    def snapshot(self, v: Optional[int] = None) -> Dict[str, Any]:
        return O.table_snapshot(
            self.id, self.version if v is None else v, time.time(), game=self.game_no, discipline=self.discipline,
            config=self.game.config, preset=self._preset, private=self.private, seats=self.seats_view(),
            spectators=self.feed.spectator_count(), state=self.state_view(), clock=self.clock.view, chat=list(self.chat),
            rematch=self.rematch_offers, history=self.history, rated=self.rated, rated_result=self.rated_result,
            practice=self.practice_view())

    def status(self) -> str:
        """The lobby's word for the table: ``over``; ``waiting`` (a seat is free); ``paused`` (both seats
        taken but a player is away: the seat is held for the grace period); ``playing``."""
        if self.game.over:
            return "over"
        if self.practice is not None:
            if self.open_seats():
                return "waiting"
            return "paused" if any(s.session is None for s in self.seats if s is not None) else "playing"
        if not self.both_seated():
            return "waiting"
        return "paused" if any(s.session is None for s in self.seats) else "playing"

    def lobby_key(self) -> Tuple[Any, ...]:
        """What the lobby shows of the table (seats and their ratings, scores and the run, status, spectators, game), cheap to compare
        (a change of the scores or the run alone is paced: server/table/batch.py LobbyPace)."""
        return (tuple((s.name, s.rating, s.provisional) if s else None for s in self.seats),
                (tuple(self.game.scores_now()), self.run_now()), self.status(), self.feed.spectator_count(), self.game_no)

    def run_now(self) -> int:
        """The current run at the table (the TV's heat): the referee's ``run`` (a multi-discipline match's: its
        current game's), 0 when it has none."""
        g = self.game
        run = getattr(g, "run", None)
        if run is None:
            run = getattr(getattr(g, "game", None), "run", 0)
        return run if isinstance(run, int) and run > 0 else 0

    def lobby_entry(self) -> Dict[str, Any]:
        scores = self.game.scores_now()
        return O.lobby_entry(self.id, self.discipline, [s.name if s else None for s in self.seats], scores, self.status(),
                             self.feed.spectator_count(), self.version, time.time(), self.rated,
                             [s.rating if s else None for s in self.seats], self.run_now(), self.game_no,
                             practice=self.practice is not None,
                             provisional=[s.provisional if s else None for s in self.seats])

    def connected(self) -> int:
        return (sum(1 for s in self.seats if s is not None and s.session is not None and not s.session.computer)
                + self.feed.spectator_count())

    # ----- stream, persistence ---------------------------------------------------------------
    def next_v(self) -> int:
        self.version += 1
        return self.version

    def commit(self, message: Dict[str, Any], record: Optional[Dict[str, Any]] = None, meta: bool = False,
               stroke: bool = False) -> None:
        """Add a stream message (and its record entry) to the batch: persisted, then published, at the flush."""
        rec = None
        if record is not None:
            record["v"] = message["v"]
            self.history.append(history_of(self.record_len, record))
            rec = (self.game_no, self.record_len, msgpack.packb(record, use_bin_type=True))
            self.record_len += 1
        self.batch.add(message["v"], protocol.encode(message), rec, meta, stroke)

    def write(self, records: List[Tuple[int, int, bytes]], stream: List[Tuple[int, bytes]], meta: bool,
              lobby: bool = True) -> TableWrite:
        """The table's write: state, the given records and stream messages, the lobby entry when it must change."""
        gs = self.game.to_state()
        self.last_state = gs
        self._flushed_seqs = [(s.last_seq, s.last_v) if s else None for s in self.seats]
        self._flushed_clock = self.clock.save()
        w = TableWrite(self.id, state=msgpack.packb(self.to_state(gs), use_bin_type=True), records=records, stream=stream,
                       lease=self.lease)
        if meta:
            w.meta[self.game_no] = msgpack.packb(self.record_meta(), use_bin_type=True)
        if lobby:
            self._add_lobby(w)
        if self._finish_due:  # in the same write as the game's end: recorded in the database exactly once
            w.finished.append(self._finish_due)
        return w

    def _add_lobby(self, w: TableWrite) -> None:
        """Put the lobby entry (and its ``lobby_update``) into ``w`` when the lobby must change now (LobbyPace);
        a score change that must wait is written by :meth:`publish_lobby` when its time comes."""
        if self.private:
            return
        if self.lobby.decide(self.lobby_key(), time.monotonic()):
            entry = self.lobby_entry()
            w.lobby = msgpack.packb(entry, use_bin_type=True)
            w.publish_lobby = protocol.encode(O.lobby_update(entry))
        elif self.lobby.due and self._lobby_handle is None and not self.closed:
            delay = max(0.0, self.lobby.due_at() - time.monotonic())
            self._lobby_handle = asyncio.get_running_loop().call_later(delay, self._lobby_due)

    def _lobby_due(self) -> None:
        self._lobby_handle = None
        self.submit_internal(self.publish_lobby)

    async def publish_lobby(self) -> None:
        """Refresh this public table's lobby entry now if what it shows changed (nothing when it already shows it)."""
        if self.private or self.closed:
            return
        w = TableWrite(self.id, lease=self.lease)
        self._add_lobby(w)
        if w.lobby is not None:
            await self.persister.persist(w)

    async def flush_or_confirm(self) -> None:
        """:meth:`flush`, or when there is nothing to flush, a write of the state alone: either way this process
        knows it still holds the table (:class:`TableLost` otherwise) before it answers."""
        if self.batch.changed:
            await self.flush()
        else:
            await self.persister.persist(self.write([], [], False, lobby=False))

    async def flush(self) -> None:
        """Persist the batch (or a state change without a message) in one write, then publish its messages and
        send the replies that waited for them."""
        if not self.batch.changed:
            return
        b = self.batch.take()
        t0 = time.perf_counter()
        if self.host.outbox.pending():  # replies to other processes' connections go out first
            await self.host.outbox.flush()
        finishing = self._finish_due
        if await self.persister.persist(self.write(b.records, b.messages, b.meta)) and finishing:
            self._finish_due = None
            self.host.game_finished(finishing)  # the database write can start now (server/finished.py)
        self._flushed = (self.version, self.record_len)
        t1 = time.perf_counter()
        for v, data in b.messages:
            self.feed.publish(v, data)
        for fn in b.after:
            fn()
        t2 = time.perf_counter()
        for _ in range(b.strokes):
            self.metrics.shot_latency.observe(t1 - t0, "persist")
            self.metrics.shot_latency.observe(t2 - t1, "broadcast")

    async def flush_pending(self) -> None:
        """Redis is back (or the server stops): send the write it refused."""
        await self.persister.flush()

    def record_meta(self) -> Dict[str, Any]:
        """The game's record header: its players and accounts as they were when it ended (a player who left the
        game, forfeiting it, is still its player and its loser; a seat taken after the end changes nothing)."""
        if self.final_meta is not None and self.final_meta.get("game") == self.game_no:
            return self.final_meta
        return self._live_meta()

    def _live_meta(self) -> Dict[str, Any]:
        return {"table": self.id, "game": self.game_no, "discipline": self.discipline, "config": self.game.config,
                "seed": self.seed, "created": self.created, "players": [s.name if s else None for s in self.seats],
                "over": self.game.over, "result": self.game.result if self.game.over else None, "strokes": self.record_len,
                "rated": self.rated, "accounts": [s.account if s else None for s in self.seats]}

    # ----- seats and spectators, as the other steps see them -----------------------------------
    def broadcast_seats(self, meta: bool = False) -> None:
        v = self.next_v()
        self.commit(O.seats(self.id, v, time.time(), self.seats_view(), self.clock.view), meta=meta)

    def spectators_changed(self) -> None:
        """Spectator counts are coalesced: sent to the table and the lobby at most every :data:`SPECTATORS_S`."""
        self._spectators_dirty = True
        if self._spectators_handle is None and not self.closed:
            self._spectators_handle = asyncio.get_running_loop().call_later(SPECTATORS_S, self._spectators_due)

    def _spectators_due(self) -> None:
        self._spectators_handle = None
        self.submit_internal(self.flush_spectators)

    async def flush_spectators(self) -> None:
        if not self._spectators_dirty:
            return
        self._spectators_dirty = False
        data = protocol.encode(O.spectators(self.id, self.feed.spectator_count()))
        self.feed.send_all(data)
        if any(s.remote for s in self.feed.members):  # connections on other processes: through the table's channel
            self.host.background(self.host.store.publish_quietly(self.host.store.key("stream", self.id),
                                                                 frame_stream(None, data)))
        await self.publish_lobby()

    # ----- play ------------------------------------------------------------------------------
    async def _on_shot(self, conn: Connection, msg: I.Shot, seat: int) -> None:
        if self.practice is not None:
            await self._on_practice_shot(conn, msg, seat)
            return
        s = self.seats[seat]
        r = play.check_seq(s.last_seq, s.last_v, msg.seq) or play.ready(self.game, self.both_seated())
        if r is not None:
            self.refuse(conn, r, msg)
            return
        shoot = play.shoot_options(self.game)
        if shoot.get("lag"):
            out = play.lag_stroke(self.game, self._ids, self.lag, seat, msg, shoot)
            if isinstance(out, play.Refusal):
                self.refuse(conn, out, msg)
            elif isinstance(out, dict):  # the other lag stroke is awaited; persisted with the next flush
                self.lag[seat] = out
                s.last_seq = msg.seq
                self.batch.changed = True
            else:
                self.lag = {}
                self._stroke(out)
            return
        out = play.stroke(self.game, self._ids, seat, msg, shoot)
        if isinstance(out, play.Refusal):
            self.refuse(conn, out, msg)
            return
        self._stroke(out)

    def _stroke(self, out: play.Outcome) -> None:
        t0 = time.perf_counter()
        self.metrics.shot_latency.observe(out.sim_s, "simulate")
        self.metrics.shot_latency.observe(out.referee_s, "referee")
        self.metrics.shot_latency.observe(out.encode_s, "encode")
        self.rematch_offers = [False, False]
        v = self.next_v()
        for sh in out.shots:
            st = self.seats[sh["seat"]]
            st.last_seq, st.last_v = sh["seq"], v
        self.clock.next_turn()
        self.arm_clock()
        rd = out.ruling.to_dict()
        rd.update(out.ruling_extra)
        if out.text_extra:
            rd["text"] = f"{rd['text']}; {out.text_extra}" if rd.get("text") else out.text_extra
        if self.practice is not None:  # the practice game goes on with the same player (server/table/practice.py)
            rd["next_player"] = self.game.to_act
            rd["text"] = solo_text(rd.get("text") or "")
        out.record["ruling"] = rd
        message = O.stroke(self.id, v, time.time(), game=self.game_no, shots=out.shots, log=out.log, ruling=rd,
                           state=self.state_view(), clock=self.clock.view, practice=self.practice_view())
        self.metrics.strokes.inc()
        self.commit(message, out.record, meta=self.game.over, stroke=True)
        self._game_end_check()
        self.metrics.shot_latency.observe(time.perf_counter() - t0, "message")

    def rule(self, cause: str, seat: Optional[int], seq: Optional[int], out: play.Outcome) -> None:
        """Broadcast a ruling that has no stroke (decision, time-out, resignation, claim)."""
        v = self.next_v()
        if seq is not None and seat is not None:
            self.seats[seat].last_seq, self.seats[seat].last_v = seq, v
        self.clock.next_turn()
        self.arm_clock()
        rd = out.ruling.to_dict()
        aborted = self.rated and self.game.over and "forfeit" in out.record and not play.both_played(self.history)
        if aborted:  # recorded, not rated (play.both_played)
            rd["aborted"] = True
            rd["text"] = f"{rd['text']}; {play.ABORTED_TEXT}" if rd.get("text") else play.ABORTED_TEXT
        record = dict(out.record, ts=time.time(), ruling=rd)
        message = O.ruling(self.id, v, time.time(), game=self.game_no, cause=cause, seat=seat, seq=seq,
                           decision=out.decision, ruling=rd, state=self.state_view(), clock=self.clock.view)
        self.metrics.rulings.inc(1.0, cause)
        self.commit(message, record, meta=self.game.over)
        self._game_end_check(aborted)

    def rule_forfeit(self, seat: int, reason: str) -> None:
        """``seat`` loses by ``reason`` (resigned, left)."""
        self.rule("resign", seat, None, play.forfeit(self.game, seat, reason))

    def _game_end_check(self, aborted: bool = False) -> None:
        if self.game.over:
            self.final_meta = self._live_meta()  # before a leaving player's seat is emptied
            if aborted:  # the record's header says so: server/players/games.py does not rate it
                self.final_meta.update(rated=False, aborted=True)
            self.metrics.games_finished.inc()
            self._finish_due = f"{self.id}:{self.game_no}"
            self.rated_result = None
            self.check_idle()

    def announce_rating(self, game_no: int, ratings: List[Dict[str, Any]]) -> bool:
        """The database has rated game ``game_no``: tell everybody at the table (``game_rated``, unversioned)."""
        return self.submit_internal(self._announce_rating, game_no, ratings)

    async def _announce_rating(self, game_no: int, ratings: List[Dict[str, Any]]) -> None:
        if game_no != self.game_no:
            return  # a rematch has begun meanwhile: the new game's players see it in their profiles
        self.rated_result = ratings
        for r in ratings:  # the scoreboard shows the new rating from now on (QA: it kept the old one)
            s = self.seats[r["seat"]] if r.get("seat") in (0, 1) else None
            if s is not None and s.name == r.get("name"):
                s.rating, s.provisional = r["after"], bool(r.get("provisional"))
        data = protocol.encode(O.game_rated(self.id, game_no, ratings))
        self.feed.send_all(data)
        if any(m.remote for m in self.feed.members):
            self.host.background(self.host.store.publish_quietly(self.host.store.key("stream", self.id),
                                                                 frame_stream(None, data)))
        await self.publish_lobby()  # the lobby's row shows the new ratings too

    async def _on_decision(self, conn: Connection, msg: I.Decision, seat: int) -> None:
        s = self.seats[seat]
        if self.practice is not None:  # shooter or coach, for the referee's player to act; the change can be undone
            before = practice.pack(self.game)
            out = play.check_seq(s.last_seq, s.last_v, msg.seq) or play.decision(self.game, practice.striker(self.game), msg)
            if isinstance(out, play.Refusal):
                self.refuse(conn, out, msg)
                return
            self.practice.changed(before)
            self.rule("decision", seat, msg.seq, out)
            return
        r = play.check_seq(s.last_seq, s.last_v, msg.seq) or play.ready(self.game, self.both_seated())
        out = r or play.decision(self.game, seat, msg)
        if isinstance(out, play.Refusal):
            self.refuse(conn, out, msg)
            return
        self.rule("decision", seat, msg.seq, out)

    async def _on_resign(self, conn: Connection, msg: I.Resign, seat: int) -> None:
        if self._not_at_practice(conn, msg):
            return
        r = play.ready(self.game, self.both_seated())
        if r is not None:
            self.refuse(conn, r, msg)
            return
        self.rule_forfeit(seat, "resigned")

    async def _on_claim(self, conn: Connection, msg: I.Claim, seat: int) -> None:
        if self._not_at_practice(conn, msg):
            return
        r = play.ready(self.game, self.both_seated())
        if r is not None:
            self.refuse(conn, r, msg)
            return
        other = self.seats[1 - seat]
        out = play.claim(self.game, seat, other.session is not None, other.grace_until, time.time())
        if isinstance(out, play.Refusal):
            self.error(conn, out.code, out.message, None, "claim", table=self.id)
            return
        self.rule("claim", 1 - seat, None, out)

    async def _on_rematch(self, conn: Connection, msg: Any, seat: int) -> None:
        if self._not_at_practice(conn, msg):
            return
        if not self.game.over:
            if self.game_no > 1 and not self.history:
                return  # a late click on a rematch that has just begun (the offers crossed): it is what they asked for
            self.error(conn, ErrorCode.GAME_NOT_OVER, "a rematch can be offered when the game is over", None, msg.TYPE,
                       table=self.id)
            return
        if not self.both_seated():
            self.error(conn, ErrorCode.NOT_YOUR_TURN, "waiting for an opponent to take the other seat", None, msg.TYPE,
                       table=self.id)
            return
        if isinstance(msg, I.RematchAccept) and not self.rematch_offers[1 - seat]:
            self.error(conn, ErrorCode.ILLEGAL_ACTION, "no rematch offer to accept", None, msg.TYPE, table=self.id,
                       rule="no_rematch_offer")
            return
        self.rematch_offers[seat] = True
        if not all(self.rematch_offers):
            v = self.next_v()
            self.commit(O.rematch(self.id, v, time.time(), self.rematch_offers))
            return
        self.seed = secrets.randbits(31)
        self.game = new_game(self.discipline, self.config, self.seed)
        self.game_no += 1
        self.record_len = 0
        self.history = []
        self.rematch_offers = [False, False]
        self.lag = {}
        self.arm_clock()
        v = self.next_v()
        self.commit(self.snapshot(v), meta=True)
        self.check_idle()

    async def _on_aim(self, conn: Connection, msg: I.Aim) -> None:
        """Show the others where the player to act aims (unversioned, never persisted). From anybody else, or
        when nobody is to stroke, it is dropped without an answer (the turn may just have changed)."""
        seat = self.seat_of(conn)
        if seat is None:
            self.error(conn, ErrorCode.NOT_SEATED, "aim: only the player to act shows an aim", "token", "aim", table=self.id)
            return
        s = self.seats[seat]
        if seats.token_hash(msg.token) != s.token_hash:
            return
        if self.practice is None and (not self.game_in_progress() or self.game.to_act != seat):
            return
        data = protocol.encode(O.aim(self.id, seat, msg.phi_deg, msg.a, msg.b, msg.theta_deg, msg.V0, msg.cue_ball))
        self.feed.send_all(data, exclude=conn)
        if any(m.remote for m in self.feed.members):  # connections on other processes: through the table's channel
            self.host.background(self.host.store.publish_quietly(self.host.store.key("stream", self.id),
                                                                 frame_stream(None, data)))

    # ----- practice tables (server/table/practice.py) --------------------------------------------
    def _not_at_practice(self, conn: Connection, msg: Any) -> bool:
        """Refuse a game-only action (resign, claim, rematch) at a practice table."""
        if self.practice is None:
            return False
        self.error(conn, ErrorCode.ILLEGAL_ACTION, f"{msg.TYPE}: nothing is at stake at a practice table", None,
                   msg.TYPE, table=self.id, rule="practice")
        return True

    async def _on_practice_shot(self, conn: Connection, msg: I.Shot, seat: int) -> None:
        s = self.seats[seat]
        r = play.check_seq(s.last_seq, s.last_v, msg.seq)
        if r is not None:
            self.refuse(conn, r, msg)
            return
        before = practice.pack(self.game)
        out = practice.stroke(self.game, self.practice, self._ids, seat, msg, play.shoot_options(self.game))
        if isinstance(out, play.Refusal):
            self.refuse(conn, out, msg)
            return
        outcome, self.game = out
        self.practice.changed(before)
        self._stroke(outcome)
        drill = outcome.ruling_extra.get("drill")
        if drill is not None and conn.account_id is not None:  # the player's record at the drill (a guest's: the page)
            self.host.drill_result(conn.account_id, drill["id"], bool(drill["achieved"]))

    async def _on_edit(self, conn: Connection, msg: Any, seat: int) -> None:
        """``place_balls``, ``undo``, ``redo``, ``reset``: a new position, broadcast as ``position``."""
        s = self.seats[seat]
        r = play.check_seq(s.last_seq, s.last_v, msg.seq)
        if r is not None:
            self.refuse(conn, r, msg)
            return
        pr = self.practice
        now = practice.pack(self.game)
        if isinstance(msg, (I.Undo, I.Redo)):
            data = pr.step_back(now) if isinstance(msg, I.Undo) else pr.step_forward(now)
            if data is None:
                word = "undo" if isinstance(msg, I.Undo) else "redo"
                self.refuse(conn, play.Refusal(ErrorCode.NOTHING_TO_UNDO, f"{word}: nothing to {word}"), msg)
                return
            game = practice.unpack(data)
            cause = msg.TYPE
        else:
            if isinstance(msg, I.PlaceBalls):
                game, cause = practice.place(self.game, pr, msg.balls), "place"
            elif msg.to == "rack":
                game, cause = practice.rack(pr, self.discipline, self.config, self.seed), "reset"
            else:
                game, cause = practice.restart(pr, self.discipline, self.config, self.seed), "reset"
            if isinstance(game, play.Refusal):
                self.refuse(conn, game, msg)
                return
            pr.changed(now)
        self.game = game
        v = self.next_v()
        s.last_seq, s.last_v = msg.seq, v
        self.clock.next_turn()
        self.arm_clock()
        self.commit(O.position(self.id, v, time.time(), game=self.game_no, cause=cause, seat=seat, seq=msg.seq,
                               state=self.state_view(), practice=self.practice_view()))

    async def _on_preview(self, conn: Connection, msg: I.Preview, seat: int) -> None:
        """The stroke as set, simulated from the position now and not played: to the sender only."""
        out = practice.preview(self.game, self._ids, msg, play.shoot_options(self.game))
        if isinstance(out, play.Refusal):
            self.refuse(conn, out, msg)
            return
        message = O.preview(self.id, self.version, out[0], out[1])
        if self.batch.messages:  # after the position it was computed from has been published
            self.batch.after.append(lambda: conn.send(message))
        else:
            conn.send(message)

    async def _on_chat(self, conn: Connection, msg: I.Chat) -> None:
        seat = self.seat_of(conn)
        if seat is None and self.feed.members.get(conn) != SPECTATOR:
            self.error(conn, ErrorCode.NOT_WATCHING, "join or watch the table to chat", "table", "chat", table=self.id)
            return
        v = self.next_v()
        m = O.chat(self.id, v, time.time(), seat=seat, name=conn.name, text=msg.text)
        self.chat.append({k: m[k] for k in ("seat", "name", "text", "ts")})
        self.commit(m)

    # ----- shot clock ------------------------------------------------------------------------
    def _clock_limit(self) -> Optional[float]:
        cfg = self.game.config.get("shot_clock") if isinstance(self.game.config, dict) else None
        if isinstance(cfg, dict) and cfg.get("limit_s"):
            return float(cfg["limit_s"])
        return None

    def arm_clock(self) -> None:
        """(Re)start the shot clock for the player to act, when the table has one and the game is on
        (server/table/clock.py has the rules)."""
        to_act = self.game.to_act
        runs = (self.game.clock_applies() and self.both_seated() and not self.closed and to_act is not None
                and self.seats[to_act].session is not None)
        self.clock.arm(self._clock_limit(), runs, to_act, self.game_no)

    async def _on_clock(self, marker: Tuple[int, int, float]) -> None:
        seat = self.clock.expired(marker)
        if seat is None or self.game.over:
            return
        out = play.timeout(self.game, seat)
        if out is None:
            self.clock.stop()
            return
        self.rule("timeout", seat, None, out)

    # ----- idle tables -----------------------------------------------------------------------
    def check_idle(self) -> None:
        """Close the table when nobody is connected: at once if no seat is held, else after linger/abandon time."""
        if self._idle_handle is not None:
            self._idle_handle.cancel()
            self._idle_handle = None
        if self.closed or self.host.stopping or self.connected() > 0:
            return
        hold = self.hold_until - time.time() if any(a is not None for a in self.reserved) else 0.0
        if self.seats == [None, None] and hold <= 0:
            self.submit_internal(self._close, "empty")
            return
        if hold > 0 and not self.both_seated():  # a tournament's table waits for its players
            self._idle_handle = asyncio.get_running_loop().call_later(hold, self.submit_internal,
                                                                      self._close_if_idle)
            return
        in_play = self.game_in_progress()
        delay = self.settings.abandon_s if in_play else max(self.settings.linger_s, self.settings.grace_s)
        self._idle_handle = asyncio.get_running_loop().call_later(delay, self.submit_internal, self._close_if_idle)

    async def _close_if_idle(self) -> None:
        if (any(a is not None for a in self.reserved) and self.hold_until > time.time()
                and not self.both_seated()):
            self.check_idle()  # a tournament's table still waits for its players
            return
        if self.connected() == 0:
            await self._close("abandoned" if not self.game.over else "idle")

    async def _close(self, reason: str) -> None:
        if self.closed or (reason == "empty" and (self.connected() > 0 or self.seats != [None, None])):
            return
        await self.flush()  # the last records (a forfeit, ...) go in first
        self._cancel_timers()
        w = TableWrite(self.id, closed=True, lease=self.lease)
        if self._finish_due:
            w.finished.append(self._finish_due)
        if self.record_len:
            meta = dict(self.record_meta(), closed=reason)
            w.meta[self.game_no] = msgpack.packb(meta, use_bin_type=True)
        if not self.private:
            w.lobby_gone = True
            w.publish_lobby = protocol.encode(O.lobby_remove(self.id))
        if self.persister.pending is not None:  # what Redis refused earlier goes first, in the same write
            self.persister.pending.merge(w, self.settings.history_len)
            w = self.persister.pending
            self.persister.pending = None
        try:
            await self.host.store.write_table(w)
        except Fenced:  # another process holds the table: it is not ours to close
            self.host.lost(self)
            return
        except Exception:
            self.host.keep_write(w)  # retried by the host when Redis is back
        self.closed = True
        self.persister.closed = True
        self.host.closed(self)
        log.info("table closed", extra={"table": self.id, "reason": reason})

    def _cancel_timers(self) -> None:
        self.clock.cancel_timer()
        for h in (self._idle_handle, self._spectators_handle, self._lobby_handle):
            if h is not None:
                h.cancel()
        self._idle_handle = self._spectators_handle = self._lobby_handle = None


_HANDLERS: Dict[type, Callable[..., Any]] = {
    I.Join: lambda t, conn, msg: seats.take_seat(t, conn, msg.seat, "join"),
    I.Watch: seats.watch,
    I.Leave: seats.leave,
    I.Shot: TableActor._on_shot,
    I.Decision: TableActor._on_decision,
    I.Resign: TableActor._on_resign,
    I.Claim: TableActor._on_claim,
    I.RematchOffer: TableActor._on_rematch,
    I.RematchAccept: TableActor._on_rematch,
    I.Chat: TableActor._on_chat,
    I.Aim: TableActor._on_aim,
    I.PlaceBalls: TableActor._on_edit,
    I.Undo: TableActor._on_edit,
    I.Redo: TableActor._on_edit,
    I.Reset: TableActor._on_edit,
    I.Preview: TableActor._on_preview,
}


def history_of(i: int, record: Dict[str, Any]) -> Dict[str, Any]:
    """The snapshot's history entry of record entry ``i`` of the game (server/records.py has the entry shapes)."""
    if "forfeit" in record:
        kind = "forfeit"
    elif record.get("timeout"):
        kind = "timeout"
    elif "decision" in record:
        kind = "decision"
    else:
        kind = "lag" if record.get("lag") else "stroke"
    return O.history_entry(i, record.get("v"), kind, record.get("player"), record.get("call"), record.get("decision"),
                           record.get("ruling") or {}, record.get("diamonds"))
