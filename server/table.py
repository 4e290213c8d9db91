"""One actor per table: an asyncio task with an inbox that owns the seats, the referee, the shot clock and the version.

Everything that changes a table goes through :meth:`TableActor.submit` (inbound messages) or
:meth:`TableActor.submit_internal` (disconnects, timers, resyncs) and is handled one item at a
time, so no lock is needed and every stream message gets the next version.

A stroke: check seat, token, turn and sequence number -> ``game.prepare_shot`` -> physics
``simulate`` (inline: the core releases the GIL and takes well under a millisecond) ->
``game.apply_shot`` -> persist (one Redis pipeline) -> ONE encoded ``stroke`` message published
to players and spectators. The latency of each stage goes to the ``billar_shot_latency_seconds``
histogram.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Deque, Dict, List, Optional, Tuple

import msgpack

import protocol
from protocol import inbound as I
from protocol import outbound as O
from protocol.errors import CloseCode, ErrorCode
from rules.base import IllegalAction
from rules.registry import canonical_name, game_from_state, new_game
from server import computer
from server.feed import PLAYER, SPECTATOR, TableFeed
from server.store import Fenced, TableWrite

if TYPE_CHECKING:  # pragma: no cover
    from server.app import Server
    from server.session import Session

log = logging.getLogger("billar.table")

STATE_FORMAT = 1  # version of the persisted table state
#: the referees' argument names (IllegalAction.field) -> the field of the shot/decision message
_WIRE_FIELD = {"call": "call", "cue_ball_position": "cue_ball", "decision": "name", "arg": "arg"}
CLOCK_RESUME_MIN_S = 5.0  # s, the least a player who reconnects in the middle of a turn gets on the shot clock


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_table_id() -> str:
    """A fresh table id (11 characters of ``[A-Za-z0-9_-]``, unguessable)."""
    return secrets.token_urlsafe(8)


class TableLost(Exception):
    """The table's lease is held by another process: this actor must stop without writing (server/cluster.py)."""


def lag_cue_ball(seat: int, lag_balls: Dict[str, Any], layout: Dict[int, Any]) -> int:
    """The ball ``seat`` strikes in the lag: ``legal.shoot.lag_balls`` maps each seat (str) to its ball id or its
    ball's start position (both forms exist among the referees); seat s lags ball s otherwise."""
    v = lag_balls.get(str(seat))
    if isinstance(v, int):
        return v
    if isinstance(v, (list, tuple)) and len(v) == 2:
        for b, p in layout.items():
            if abs(p[0] - v[0]) < 1e-9 and abs(p[1] - v[1]) < 1e-9:
                return b
    return seat


class Seat:
    """A seat: the player, the hash of its resume token, the bound connection and the sequence numbers."""

    __slots__ = ("player", "name", "token_hash", "session", "last_seq", "last_v", "grace_until")

    def __init__(self, player: str, name: str, token_hash: str, last_seq: int = -1, last_v: int = 0):
        self.player, self.name, self.token_hash = player, name, token_hash
        self.session: Optional["Session"] = None
        self.last_seq, self.last_v = last_seq, last_v
        self.grace_until: Optional[float] = None

    def to_state(self) -> Dict[str, Any]:
        return {"player": self.player, "name": self.name, "token_hash": self.token_hash, "last_seq": self.last_seq,
                "last_v": self.last_v}


class TableActor:
    """A table: ``id``, discipline and configuration, two seats, spectators, the game, its stream.

    Construct with :meth:`create` (new table; ``ValueError`` naming the key for a bad
    discipline or configuration) or :meth:`from_state` (restore after a restart).
    """

    def __init__(self, server: "Server", table_id: str, discipline: str, config: Dict[str, Any], private: bool, game: Any,
                 seed: int, game_no: int = 1, created: Optional[float] = None):
        st = server.settings
        self.server, self.settings, self.metrics = server, st, server.metrics
        self.id, self.discipline, self.config, self.private = table_id, discipline, dict(config), private
        self.game, self.seed, self.game_no = game, seed, game_no
        self.created = created if created is not None else time.time()
        self.seats: List[Optional[Seat]] = [None, None]
        self.version = 0
        self.feed = TableFeed(table_id, st.history_len, server.metrics)
        self.inbox: asyncio.Queue = asyncio.Queue(maxsize=st.inbox_size)
        self.chat: Deque[Dict[str, Any]] = deque(maxlen=st.chat_history)
        self.rematch_offers = [False, False]
        self.lag: Dict[int, Dict[str, Any]] = {}  # seat -> pending lag shot (disciplines with a simulated lag)
        self.record_len = 0  # actions recorded in this game
        self.computers: Dict[int, Any] = {}  # seat -> server.computer.ComputerSeat
        self.clock: Optional[Dict[str, Any]] = None
        self._clock_handle: Optional[asyncio.TimerHandle] = None
        self._idle_handle: Optional[asyncio.TimerHandle] = None
        self.pending: Optional[TableWrite] = None  # writes not yet in Redis
        self.last_state: Dict[str, Any] = game.to_state()  # last persisted game state (restored if the referee fails)
        self.task: Optional[asyncio.Task] = None
        self.closed = False
        self.lease: Optional[str] = None  # "<node>|<fence>": every write is checked against it (server/cluster.py)
        self.lease_at = float("-inf")  # monotonic time before the last write that extended the lease (it renews it)
        self.lost = False  # the lease went to another process: this actor stopped without writing
        self.creation: Optional[Dict[str, Any]] = None  # {"hash": sha256 of the creation id, "seat": creator's seat}
        self._preset = game.table.to_json()
        self._ids = protocol.preset_ids(self._preset)
        self._spectators_dirty = False
        self._batch: List[Tuple[int, bytes]] = []  # stream messages waiting to be persisted and published
        self._batch_records: List[Tuple[int, int, bytes]] = []
        self._batch_meta = False
        self._batch_strokes = 0
        self._state_changed = False
        self._flushed = (0, 0)  # (version, record_len) of the last write
        self._flushed_seqs: List[Optional[Tuple[int, int]]] = [None, None]  # seats' (last_seq, last_v) at that write
        self._clock_gen = 0  # counts the clock's starts: a timer queued before a restart is stale
        self._turn = 0  # strokes and rulings so far: a new turn of the shot clock after each
        self._flushed_turn: Tuple[int, Optional[Dict[str, Any]], Any] = (0, None, None)  # (_turn, clock, _clock_left) at that write
        self._clock_left: Optional[Tuple[Tuple[int, int, int], float]] = None  # (turn key, s left) of a stopped clock
        self._lobby_key: Optional[Tuple[Any, ...]] = None  # (seats, scores, status, spectators) of the last lobby entry written
        self._lobby_at = float("-inf")  # monotonic time of that write
        self._lobby_due = False  # a score changed since: written by publish_lobby once lobby_update_s has passed

    # ----- construction ----------------------------------------------------------------------
    @classmethod
    def create(cls, server: "Server", discipline: str, config: Dict[str, Any], private: bool,
               table_id: Optional[str] = None, creation_id: Optional[str] = None,
               creator_seat: Optional[int] = None) -> "TableActor":
        """A new table (``table_id``: chosen by the caller, else fresh); ``creation_id`` makes a retried
        ``create_table`` find this table again (its hash is kept, with the creator's seat)."""
        name = canonical_name(discipline)
        seed = secrets.randbits(31)
        game = new_game(name, config, seed)
        t = cls(server, table_id or new_table_id(), name, config, private, game, seed)
        if creation_id is not None:
            t.creation = {"hash": token_hash(creation_id), "seat": creator_seat}
        return t

    @classmethod
    def from_state(cls, server: "Server", state: Dict[str, Any], stream: List[Tuple[int, bytes]]) -> "TableActor":
        """Restore a persisted table; every seat starts a fresh grace period (the server, not the player, went away)."""
        game = game_from_state(state["game"])
        t = cls(server, state["id"], state["discipline"], state["config"], state["private"], game, state["seed"],
                state["game_no"], state["created"])
        t.version = state["version"]
        now = time.time()
        for i, s in enumerate(state["seats"]):
            if s is not None:
                seat = Seat(s["player"], s["name"], s["token_hash"], s["last_seq"], s["last_v"])
                seat.grace_until = now + server.settings.grace_s
                t.seats[i] = seat
        t.chat.extend(state.get("chat", ()))
        t.rematch_offers = list(state.get("rematch", [False, False]))
        t.lag = {int(k): v for k, v in state.get("lag", {}).items()}
        t.record_len = state.get("record_len", 0)
        computer.restore(t, state.get("computers", {}))
        t.creation = state.get("creation")
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
            "record_len": self.record_len,
            "computers": {str(k): c.level for k, c in self.computers.items()},
            "creation": self.creation,
        }

    # ----- the actor loop --------------------------------------------------------------------
    def start(self, restored: bool = False) -> None:
        """Run the actor. A restored table starts its idle timer at once (its players must come back);
        a new one is written to Redis first (so that every process can find it), then serves its creator."""
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")
        if not restored:
            self.submit_internal(self._persist_new)
        if restored:
            self._check_idle()
        self._arm_clock()

    def submit(self, session: "Session", msg: I.Inbound) -> bool:
        """Queue an inbound message; False when the inbox is full (the caller answers ``busy``)."""
        return self.submit_internal(self._on_message, session, msg)

    def submit_internal(self, fn: Callable[..., Any], *args: Any) -> bool:
        if self.closed:
            return False
        try:
            self.inbox.put_nowait((fn, args))
            return True
        except asyncio.QueueFull:
            return False

    async def _run(self) -> None:
        while True:
            fn, args = await self.inbox.get()
            if fn is None:  # stop: what is still batched goes to Redis first
                try:
                    await self._flush_batch()
                except TableLost:
                    self.server.cluster.table_lost(self)
                except Exception:
                    log.exception("final flush failed", extra={"table": self.id})
                break
            try:
                res = fn(*args)
                if asyncio.iscoroutine(res):
                    await res
                if self.inbox.empty() or len(self._batch) >= 64:
                    await self._flush_batch()
                if self.computers:
                    computer.after_step(self)
            except TableLost:  # another process holds the table: nothing of this batch was persisted or seen
                self.server.cluster.table_lost(self)
                break
            except Exception:
                log.exception("table actor step failed", extra={"table": self.id})
                self._restore_after_fault()
                if args and hasattr(args[0], "error"):
                    args[0].error(ErrorCode.INTERNAL, "internal error; the table is unchanged", table=self.id)
            if self.closed:
                break

    def _restore_after_fault(self) -> None:
        """Put the game back to its last persisted state (a referee exception must not leave it half-changed).

        Stream messages not yet flushed were never seen by anybody: they are dropped with it, and
        the seats' sequence numbers go back with them, so a retry of the failed action with the
        same ``seq`` is played, not refused as a duplicate.
        """
        self._batch, self._batch_records, self._batch_meta, self._batch_strokes = [], [], False, 0
        self._state_changed = False
        self.version, self.record_len = self._flushed
        for seat, seqs in zip(self.seats, self._flushed_seqs):  # the failed action's seq was never played
            if seat is not None and seqs is not None:
                seat.last_seq, seat.last_v = seqs
        try:
            self.game = game_from_state(self.last_state)
        except Exception:
            log.exception("could not restore game state", extra={"table": self.id})
        # the turn goes back too: the shot clock of the restored turn goes on (the failed action's
        # turn change, and a clock armed for it, never happened)
        self._turn, self.clock, self._clock_left = self._flushed_turn
        self._arm_clock()

    def abandon(self) -> None:
        """The lease is lost (server/cluster.py): stop at once, write nothing more, publish nothing more."""
        self.closed = self.lost = True
        self._cancel_timers()
        self._batch, self._batch_records, self._batch_strokes = [], [], 0
        self.pending = None
        self.server.dirty.discard(self.id)
        if self.task is not None and self.task is not asyncio.current_task() and not self.task.done():
            self.task.cancel()
        for comp in self.computers.values():
            if comp.thinking is not None:
                comp.thinking.cancel()

    async def _persist_new(self) -> None:
        """A new table's first step: write it (state and lease, no lobby entry yet) before anybody learns its
        id, so that a join through another process finds it at once (server/cluster.py)."""
        await self._persist(self._write([], [], False, lobby=False))
        self._flushed = (self.version, self.record_len)

    def published_version(self) -> int:
        """Version of the last stream message persisted (and so published) by this actor."""
        return self._flushed[0]

    async def stop(self) -> None:
        """Server shutdown: flush pending writes, stop the loop (the state stays in Redis for the next start)."""
        self._cancel_timers()
        if self.task is not None and not self.task.done():
            self.submit_internal(self.flush)
            try:
                self.inbox.put_nowait((None, ()))
            except asyncio.QueueFull:
                self.task.cancel()
            try:
                await asyncio.wait_for(asyncio.shield(self.task), 5.0)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                self.task.cancel()
        self.closed = True

    # ----- views -----------------------------------------------------------------------------
    def seat_of(self, session: "Session") -> Optional[int]:
        for i, s in enumerate(self.seats):
            if s is not None and s.session is session:
                return i
        return None

    def seats_view(self) -> List[Optional[Dict[str, Any]]]:
        return [O.seat_entry(i, s.player, s.name, s.session is not None, None if s.session else s.grace_until) if s else None
                for i, s in enumerate(self.seats)]

    def both_seated(self) -> bool:
        return self.seats[0] is not None and self.seats[1] is not None

    def state_view(self) -> Dict[str, Any]:
        g = self.game
        zones = g.table_zones() if hasattr(g, "table_zones") else None  # carom zone chalk lines, for drawing
        return O.game_state(g.phase, g.to_act, g.layout(), g.scoreboard(), None if g.over else g.legal_actions(), g.over,
                            g.result if g.over else None, zones=zones)

    def snapshot(self, v: Optional[int] = None) -> Dict[str, Any]:
        return O.table_snapshot(
            self.id, self.version if v is None else v, time.time(), game=self.game_no, discipline=self.discipline,
            config=self.game.config, preset=self._preset, private=self.private, seats=self.seats_view(),
            spectators=self.feed.spectator_count(), state=self.state_view(), clock=self.clock, chat=list(self.chat),
            rematch=self.rematch_offers)

    def status(self) -> str:
        """The lobby's word for the table: ``over``; ``waiting`` (a seat is free); ``paused`` (both seats
        taken but a player is away: the seat is held for the grace period); ``playing``."""
        if self.game.over:
            return "over"
        if not self.both_seated():
            return "waiting"
        return "paused" if any(s.session is None for s in self.seats) else "playing"

    def lobby_entry(self) -> Dict[str, Any]:
        scores = self.game.scoreboard().get("scores", [])
        return O.lobby_entry(self.id, self.discipline, [s.name if s else None for s in self.seats], scores, self.status(),
                             self.feed.spectator_count(), self.version, time.time())

    def connected(self) -> int:
        return (sum(1 for s in self.seats if s is not None and s.session is not None and not computer.is_computer(s.session))
                + self.feed.spectator_count())

    # ----- stream, persistence ---------------------------------------------------------------
    def _next_v(self) -> int:
        self.version += 1
        return self.version

    def _write(self, records: List[Tuple[int, int, bytes]], stream: List[Tuple[int, bytes]], meta: bool,
               lobby: bool = True) -> TableWrite:
        gs = self.game.to_state()
        self.last_state = gs
        self._flushed_seqs = [(s.last_seq, s.last_v) if s else None for s in self.seats]
        self._flushed_turn = (self._turn, self.clock, self._clock_left)
        w = TableWrite(self.id, state=msgpack.packb(self.to_state(gs), use_bin_type=True), records=records, stream=stream,
                       lease=self.lease)
        if meta:
            w.meta[self.game_no] = msgpack.packb(self.record_meta(), use_bin_type=True)
        if lobby:
            self._add_lobby(w)
        return w

    def _add_lobby(self, w: TableWrite) -> None:
        """Put the lobby entry (and its ``lobby_update``) into ``w`` when the lobby must change now.

        The lobby follows what it shows, not every version: a new entry, other seats, another
        status or spectator count go out with this write; a score change alone at most every
        ``lobby_update_s`` (the rest is left to :meth:`publish_lobby`, called by the server's
        housekeeping when that time has passed); a stroke that changes nothing shown (most
        misses) writes no lobby entry at all. The entry's expiry is refreshed by the server.
        """
        if self.private:
            return
        entry = self.lobby_entry()
        key = (entry["seats"], entry["scores"], entry["status"], entry["spectators"])
        last = self._lobby_key
        if key == last:
            self._lobby_due = False
            return
        now = time.monotonic()
        if last is None or key[0] != last[0] or key[2:] != last[2:] or now - self._lobby_at >= self.settings.lobby_update_s:
            self._lobby_key, self._lobby_at, self._lobby_due = key, now, False
            w.lobby = msgpack.packb(entry, use_bin_type=True)
            w.publish_lobby = protocol.encode(O.lobby_update(entry))
        else:
            self._lobby_due = True
            self.server.lobby_due.add(self.id)

    def lobby_due_at(self) -> Optional[float]:
        """Monotonic time from which a pending score change may go to the lobby, or None when nothing is pending."""
        if not self._lobby_due or self.closed:
            return None
        return self._lobby_at + self.settings.lobby_update_s

    async def _persist(self, w: TableWrite) -> None:
        """Send a write now, or keep it (merged) for the retry loop when Redis is down.

        The write carries the table's lease: when another process holds the table, nothing is
        written and :class:`TableLost` is raised. In a cluster (``Settings.cluster``) a write is
        retried here until Redis answers, so that nothing is published that is not persisted: a
        process cut from Redis then pauses its tables, and whatever it had not persisted was never
        seen by anybody when another process adopts them.
        """
        if self.pending is not None:
            self.pending.merge(w, self.settings.history_len)
            w = self.pending
        if w.lease is None:
            w.lease = self.lease
        store = self.server.store
        strict = self.settings.cluster
        delay = 0.05
        while True:
            if store.healthy or strict:
                try:
                    t0 = time.monotonic()
                    await store.write_table(w)
                    self.pending = None
                    if not w.closed:
                        self.lease_at = t0
                    return
                except Fenced:
                    self.pending = None
                    raise TableLost(self.id) from None
                except Exception as exc:  # RedisUnavailable, counted by the store
                    log.warning("persist failed, will retry", extra={"table": self.id, "error": repr(exc)})
            if not strict or self.closed:
                break
            await asyncio.sleep(delay)
            delay = min(0.5, delay * 2)
        self.pending = w
        self.server.dirty.add(self.id)

    async def flush(self) -> None:
        if self.pending is not None:
            w, self.pending = self.pending, None
            await self._persist(w)
        if self.pending is None:
            self.server.dirty.discard(self.id)

    async def publish_lobby(self) -> None:
        """The spectator count changed, or a score change waits: refresh this public table's lobby entry and
        tell lobby watchers (nothing is written when the lobby already shows it, see :meth:`_add_lobby`)."""
        if self.private or self.closed:
            return
        w = TableWrite(self.id, lease=self.lease)
        self._add_lobby(w)
        if w.lobby is not None:
            await self._persist(w)

    def _commit(self, message: Dict[str, Any], record: Optional[Dict[str, Any]] = None, meta: bool = False,
                stroke: bool = False) -> None:
        """Add a stream message (and its record entry) to the batch the actor persists, then publishes.

        The batch is flushed when the inbox is empty (or holds 64 messages): ONE Redis
        transaction for all of it, then each message published in version order. A stroke is
        thus persisted before anybody sees it, and a burst of chat lines costs one write.
        """
        data = protocol.encode(message)
        if record is not None:
            self._batch_records.append((self.game_no, self.record_len, msgpack.packb(record, use_bin_type=True)))
            self.record_len += 1
        self._batch.append((message["v"], data))
        self._batch_meta = self._batch_meta or meta
        self._batch_strokes += stroke
        self._state_changed = True

    async def _flush_batch(self) -> None:
        """Persist the batch (or a state change without a message) in one write, then publish its messages."""
        if not self._state_changed:
            return
        batch, records, meta, strokes = self._batch, self._batch_records, self._batch_meta, self._batch_strokes
        self._batch, self._batch_records, self._batch_meta, self._batch_strokes = [], [], False, 0
        self._state_changed = False
        t0 = time.perf_counter()
        if self.server.cluster.outbox_pending():  # replies to other processes' connections go out first
            await self.server.cluster.flush_outbox()
        await self._persist(self._write(records, batch, meta))
        self._flushed = (self.version, self.record_len)
        t1 = time.perf_counter()
        for v, data in batch:
            self.feed.publish(v, data)
        t2 = time.perf_counter()
        for _ in range(strokes):
            self.metrics.shot_latency.observe(t1 - t0, "persist")
            self.metrics.shot_latency.observe(t2 - t1, "broadcast")

    def record_meta(self) -> Dict[str, Any]:
        return {"table": self.id, "game": self.game_no, "discipline": self.discipline, "config": self.game.config,
                "seed": self.seed, "created": self.created, "players": [s.name if s else None for s in self.seats],
                "over": self.game.over, "result": self.game.result if self.game.over else None, "strokes": self.record_len}

    # ----- inbound dispatch ------------------------------------------------------------------
    async def _on_message(self, session: "Session", msg: I.Inbound) -> None:
        handler = self._HANDLERS.get(type(msg))
        if handler is None:  # pragma: no cover - every table message type has a handler
            session.error(ErrorCode.UNKNOWN_TYPE, f"type: {msg.TYPE} is not a table message", "type", msg.TYPE)
            return
        if isinstance(msg, I.SEAT_ACTIONS):
            seat = self._seat_action(session, msg)
            if seat is None:
                return
            await handler(self, session, msg, seat)
        else:
            await handler(self, session, msg)

    def _seat_action(self, session: "Session", msg: Any) -> Optional[int]:
        """The seat ``msg.token`` opens, if this connection is bound to it; else an error and None."""
        h = token_hash(msg.token)
        for i, s in enumerate(self.seats):
            if s is not None and hmac.compare_digest(s.token_hash, h):
                if s.session is not session:
                    session.error(ErrorCode.RESUME_REQUIRED, "token: send resume on this connection first", "token",
                                  msg.TYPE, table=self.id)
                    return None
                return i
        if session in self.feed.members and self.seat_of(session) is None:
            session.error(ErrorCode.NOT_SEATED, "spectators cannot act", "token", msg.TYPE, table=self.id)
        else:
            session.error(ErrorCode.BAD_TOKEN, "token: does not open a seat at this table", "token", msg.TYPE, table=self.id)
        return None

    def _illegal(self, session: "Session", exc: IllegalAction, msg: Any) -> None:
        """An action the referee refused: ``error`` naming the wire field it came from (none when the
        referee names its own state, e.g. ``phase``)."""
        code = ErrorCode.NOT_YOUR_TURN if exc.code == "not_your_turn" else (
            ErrorCode.GAME_OVER if exc.code == "game_over" else ErrorCode.ILLEGAL_ACTION)
        session.error(code, str(exc), _WIRE_FIELD.get(exc.field), msg.TYPE, table=self.id, seq=getattr(msg, "seq", None),
                      rule=exc.code)

    def _check_seq(self, session: "Session", msg: Any, seat: int) -> bool:
        s = self.seats[seat]
        if msg.seq == s.last_seq:
            session.error(ErrorCode.DUPLICATE_SEQUENCE, f"seq: {msg.seq} was already played (version {s.last_v})", "seq",
                          msg.TYPE, table=self.id, seq=msg.seq, v=s.last_v)
            return False
        if msg.seq < s.last_seq:
            session.error(ErrorCode.STALE_SEQUENCE, f"seq: must be greater than {s.last_seq}", "seq", msg.TYPE,
                          table=self.id, seq=msg.seq)
            return False
        return True

    def _ready(self, session: "Session", msg: Any) -> bool:
        if self.game.over:
            session.error(ErrorCode.GAME_OVER, "the game is over", None, msg.TYPE, table=self.id, seq=getattr(msg, "seq", None))
            return False
        if not self.both_seated():
            session.error(ErrorCode.NOT_YOUR_TURN, "waiting for an opponent to take the other seat", None, msg.TYPE,
                          table=self.id, seq=getattr(msg, "seq", None))
            return False
        return True

    # ----- joining, watching, resuming, leaving ----------------------------------------------
    def _room_for(self, session: "Session", ref: str) -> bool:
        if self.id in session.tables:
            return True
        if len(session.tables) >= self.settings.max_tables_per_session:
            session.error(ErrorCode.TOO_MANY_TABLES, f"at most {self.settings.max_tables_per_session} tables per connection",
                          ref=ref, table=self.id)
            return False
        return True

    async def _on_join(self, session: "Session", msg: I.Join) -> None:
        await self.seat_player(session, msg.seat, ref="join")

    async def seat_player(self, session: "Session", want: Optional[int], ref: str = "join") -> Optional[int]:
        """Give ``session`` a seat (``want`` or the first free one): ``seated`` + snapshot to it, ``seats`` to all."""
        await self._flush_batch()  # the snapshot below must not be older than anything still to be published
        if self.seat_of(session) is not None:
            session.error(ErrorCode.ALREADY_SEATED, "this connection already holds a seat here", None, ref, table=self.id)
            return None
        if not self._room_for(session, ref):
            return None
        free = [i for i, s in enumerate(self.seats) if s is None]
        if want is not None and want not in free:
            session.error(ErrorCode.SEAT_TAKEN, f"seat: {want} is taken", "seat", ref, table=self.id)
            return None
        if not free:
            session.error(ErrorCode.TABLE_FULL, "both seats are taken; watch instead", None, ref, table=self.id)
            return None
        i = want if want is not None else free[0]
        token = secrets.token_urlsafe(24)
        seat = Seat(session.player, session.name, token_hash(token))
        seat.session = session
        self.seats[i] = seat
        self.rematch_offers = [False, False]
        session.tables.add(self.id)
        self.feed.add(session, PLAYER)
        session.send(O.seated(self.id, i, token))
        session.send(self.snapshot())
        session.at_version(self.id, self.version, PLAYER)
        self._arm_clock()
        await self._broadcast_seats(meta=True)
        self._check_idle()
        return i

    async def _on_watch(self, session: "Session", msg: I.Watch) -> None:
        await self._flush_batch()
        if self.seat_of(session) is None:
            if not self._room_for(session, "watch"):
                return
            session.tables.add(self.id)
            if self.feed.members.get(session) != SPECTATOR:
                self.feed.add(session, SPECTATOR)
                self._spectators_changed()
        self._catch_up(session, msg.v)
        self._check_idle()

    def _catch_up(self, session: "Session", v: Optional[int]) -> None:
        """Replay the stream after ``v`` when the history holds it, else send a snapshot."""
        replay = self.feed.since(v, self.version) if v is not None else None
        if replay is None:
            session.send(self.snapshot())
        else:
            for ver, data in replay:
                session.send_stream(self.id, ver, data)
        session.at_version(self.id, self.version, self.feed.members.get(session))

    async def _on_resume(self, session: "Session", msg: I.Resume) -> None:
        await self._flush_batch()
        h = token_hash(msg.token)
        for i, s in enumerate(self.seats):
            if s is not None and hmac.compare_digest(s.token_hash, h):
                break
        else:
            session.error(ErrorCode.BAD_TOKEN, "token: does not open a seat at this table", "token", "resume", table=self.id)
            return
        if s.session is not session and not self._room_for(session, "resume"):
            return
        old = s.session
        changed = old is None
        if old is not None and old is not session:
            self.feed.remove(old)
            old.tables.discard(self.id)
            old.close(CloseCode.REPLACED, "seat resumed on another connection")
        if self.feed.members.get(session) == SPECTATOR:
            self._spectators_changed()
        s.session, s.grace_until = session, None
        s.player, s.name = session.player, session.name if session.name else s.name
        session.tables.add(self.id)
        self.feed.add(session, PLAYER)
        session.caught_up(self.id)
        session.send(O.seated(self.id, i, msg.token))
        self._catch_up(session, msg.v)
        if changed:
            self._arm_clock()
            await self._broadcast_seats()
        self._check_idle()

    async def resync(self, session: "Session") -> None:
        """A player that fell behind has drained its buffer: send the current snapshot and resume the stream."""
        await self._flush_batch()
        if session in self.feed.members and not session.closing:
            self.metrics.resyncs.inc()
            session.send(self.snapshot())
            session.at_version(self.id, self.version, self.feed.members.get(session))
        session.caught_up(self.id)

    async def reclaim_creation(self, session: "Session", msg: I.CreateTable) -> None:
        """A ``create_table`` retried with this table's creation id (from any connection): the creator's seat
        is bound to ``session`` with a new token (the old one stops working), or, when the creator only
        watched or gave the seat up, ``session`` watches. Never a second table."""
        c = self.creation
        if c is None or not hmac.compare_digest(c["hash"], token_hash(msg.creation_id)):
            session.error(ErrorCode.BAD_TOKEN, "creation_id: does not belong to this table", "creation_id", "create_table",
                          table=self.id)
            return
        seat = c.get("seat")
        if seat is None or self.seats[seat] is None or computer.is_computer(self.seats[seat].session):
            await self._on_watch(session, I.Watch(table=self.id))
            return
        token = secrets.token_urlsafe(24)
        self.seats[seat].token_hash = token_hash(token)
        self._state_changed = True  # the new token's hash is persisted with the next flush
        await self._on_resume(session, I.Resume(table=self.id, token=token))

    async def _on_leave(self, session: "Session", msg: I.Leave) -> None:
        if msg.token is None:
            if self.seat_of(session) is not None:
                session.error(ErrorCode.BAD_TOKEN, "token: give the seat token to leave the seat", "token", "leave", table=self.id)
                return
            if self.feed.remove(session) is None:
                session.error(ErrorCode.NOT_WATCHING, "not watching this table", "table", "leave", table=self.id)
                return
            session.tables.discard(self.id)
            self._spectators_changed()
            session.send(O.left(self.id))
            self._check_idle()
            return
        seat = self._seat_action(session, msg)
        if seat is None:
            return
        if not self.game.over and self.both_seated() and self.record_len > 0:
            await self._rule("resign", seat, None, self.game.apply_forfeit(seat, "left"), {"player": seat, "forfeit": "left"})
        self.seats[seat] = None
        self.feed.remove(session)
        session.tables.discard(self.id)
        session.send(O.left(self.id))
        self._arm_clock()
        await self._broadcast_seats(meta=True)
        self._check_idle()

    async def on_disconnect(self, session: "Session") -> None:
        """The connection closed. A seat is held for the grace period; a stale socket never evicts a resumed one."""
        role = self.feed.remove(session)
        session.tables.discard(self.id)
        if role == SPECTATOR:
            self._spectators_changed()
        for s in self.seats:
            if s is not None and s.session is session:  # only the connection currently bound to the seat
                s.session = None
                s.grace_until = time.time() + self.settings.grace_s
                if not self.server.stopping:
                    self._arm_clock()
                    await self._broadcast_seats()
        self._check_idle()

    async def _broadcast_seats(self, meta: bool = False) -> None:
        v = self._next_v()
        self._commit(O.seats(self.id, v, time.time(), self.seats_view(), self.clock), meta=meta)

    def _spectators_changed(self) -> None:
        """Spectator counts are coalesced: the server flushes them to the table and the lobby twice a second."""
        self._spectators_dirty = True
        self.server.spectators_dirty.add(self.id)

    def flush_spectators(self) -> None:
        if self._spectators_dirty:
            self._spectators_dirty = False
            data = protocol.encode(O.spectators(self.id, self.feed.spectator_count()))
            self.feed.send_all(data)
            if self.feed.has_remote():  # connections on other processes (server/cluster.py)
                self.server.cluster.publish_unversioned(self.id, data)

    # ----- play ------------------------------------------------------------------------------
    async def _on_shot(self, session: "Session", msg: I.Shot, seat: int) -> None:
        if not self._check_seq(session, msg, seat) or not self._ready(session, msg):
            return
        legal = self.game.legal_actions()
        shoot = legal.get("shoot") or {}
        if shoot.get("lag"):
            await self._lag_shot(session, msg, seat, shoot.get("lag_balls") or {})
            return
        try:
            layout = self.game.prepare_shot(seat, msg.call, msg.cue_ball)
        except IllegalAction as exc:
            self._illegal(session, exc, msg)
            return
        from physics import Shot, simulate

        t0 = time.perf_counter()
        try:
            sim = simulate(self.game.table, layout, Shot(cue_ball=shoot["cue_ball"], **msg.stroke))
        except ValueError as exc:
            field = str(exc).split(":", 1)[0]
            session.error(ErrorCode.BAD_FIELD, str(exc), f"stroke.{field}" if field in msg.stroke else field, "shot",
                          table=self.id, seq=msg.seq)
            return
        t1 = time.perf_counter()
        ruling = self.game.apply_shot(seat, msg.call, sim)
        t2 = time.perf_counter()
        self.metrics.shot_latency.observe(t1 - t0, "simulate")
        self.metrics.shot_latency.observe(t2 - t1, "referee")
        shot = {"seat": seat, "seq": msg.seq, "stroke": msg.stroke, "call": msg.call,
                "cue_ball": list(msg.cue_ball) if msg.cue_ball else None}
        log_map = protocol.encode_log(sim, *self._ids)
        record = {"player": seat, "seq": msg.seq, "call": msg.call, "cue_ball_position": shot["cue_ball"],
                  "stroke": msg.stroke, "log": log_map, "ts": time.time()}
        await self._stroke([shot], log_map, ruling, record)

    async def _lag_shot(self, session: "Session", msg: I.Shot, seat: int, lag_balls: Dict[str, Any]) -> None:
        """Disciplines with a simulated lag: keep each player's blind lag stroke; simulate both together."""
        if seat in self.lag:
            session.error(ErrorCode.ILLEGAL_ACTION, "lag: already played; waiting for the opponent's", None, "shot",
                          table=self.id, seq=msg.seq, rule="lag_pending")
            return
        try:
            layout = self.game.prepare_shot(seat, None, None)
        except IllegalAction as exc:
            self._illegal(session, exc, msg)
            return
        self.lag[seat] = {"seq": msg.seq, "stroke": msg.stroke}
        self.seats[seat].last_seq = msg.seq
        if len(self.lag) < 2:
            self._state_changed = True  # persisted with the next flush
            return
        from physics import Shot, simulate

        shots = [Shot(cue_ball=lag_cue_ball(s, lag_balls, layout), **self.lag[s]["stroke"]) for s in (0, 1)]
        t0 = time.perf_counter()
        sim = simulate(self.game.table, layout, shots)
        t1 = time.perf_counter()
        ruling = self.game.apply_lag(sim)
        t2 = time.perf_counter()
        self.metrics.shot_latency.observe(t1 - t0, "simulate")
        self.metrics.shot_latency.observe(t2 - t1, "referee")
        played = [{"seat": s, "seq": self.lag[s]["seq"], "stroke": self.lag[s]["stroke"], "call": None, "cue_ball": None}
                  for s in (0, 1)]
        log_map = protocol.encode_log(sim, *self._ids)
        record = {"lag": True, "player": None, "strokes": [self.lag[s]["stroke"] for s in (0, 1)], "log": log_map,
                  "ts": time.time()}
        self.lag = {}
        await self._stroke(played, log_map, ruling, record)

    async def _stroke(self, shots: List[Dict[str, Any]], log_map: Dict[str, Any], ruling: Any, record: Dict[str, Any]) -> None:
        self.rematch_offers = [False, False]
        v = self._next_v()
        for sh in shots:
            s = self.seats[sh["seat"]]
            s.last_seq, s.last_v = sh["seq"], v
        self._turn += 1
        self._arm_clock()
        rd = ruling.to_dict()
        record["ruling"] = rd
        message = O.stroke(self.id, v, time.time(), game=self.game_no, shots=shots, log=log_map, ruling=rd,
                           state=self.state_view(), clock=self.clock)
        self.metrics.strokes.inc()
        self._commit(message, record, meta=self.game.over, stroke=True)
        self._game_end_check()

    async def _rule(self, cause: str, seat: Optional[int], seq: Optional[int], ruling: Any, record: Dict[str, Any],
                    decision: Optional[Dict[str, Any]] = None) -> None:
        """Broadcast a ruling that has no stroke (decision, time-out, resignation, claim)."""
        v = self._next_v()
        if seq is not None and seat is not None:
            self.seats[seat].last_seq, self.seats[seat].last_v = seq, v
        self._turn += 1
        self._arm_clock()
        rd = ruling.to_dict()
        record = dict(record, ts=time.time(), ruling=rd)
        message = O.ruling(self.id, v, time.time(), game=self.game_no, cause=cause, seat=seat, seq=seq, decision=decision,
                           ruling=rd, state=self.state_view(), clock=self.clock)
        self.metrics.rulings.inc(1.0, cause)
        self._commit(message, record, meta=self.game.over)
        self._game_end_check()

    def _game_end_check(self) -> None:
        if self.game.over:
            self.metrics.games_finished.inc()
            self._check_idle()

    async def _on_decision(self, session: "Session", msg: I.Decision, seat: int) -> None:
        if not self._check_seq(session, msg, seat) or not self._ready(session, msg):
            return
        try:
            ruling = self.game.apply_decision(seat, msg.name, msg.arg)
        except IllegalAction as exc:
            self._illegal(session, exc, msg)
            return
        d = {"name": msg.name, "arg": list(msg.arg) if isinstance(msg.arg, tuple) else msg.arg}
        await self._rule("decision", seat, msg.seq, ruling, {"player": seat, "seq": msg.seq, "decision": d}, decision=d)

    async def _on_resign(self, session: "Session", msg: I.Resign, seat: int) -> None:
        if not self._ready(session, msg):
            return
        await self._rule("resign", seat, None, self.game.apply_forfeit(seat, "resigned"), {"player": seat, "forfeit": "resigned"})

    async def _on_claim(self, session: "Session", msg: I.Claim, seat: int) -> None:
        if not self._ready(session, msg):
            return
        other = self.seats[1 - seat]
        if other.session is not None:
            session.error(ErrorCode.NOTHING_TO_CLAIM, "the opponent is connected", None, "claim", table=self.id)
            return
        if other.grace_until is not None and other.grace_until > time.time():
            session.error(ErrorCode.GRACE_NOT_EXPIRED, f"the opponent's grace period ends at {other.grace_until:.3f}", None,
                          "claim", table=self.id)
            return
        await self._rule("claim", 1 - seat, None, self.game.apply_forfeit(1 - seat, "abandoned"),
                         {"player": 1 - seat, "forfeit": "abandoned"})

    async def _on_rematch(self, session: "Session", msg: Any, seat: int) -> None:
        if not self.game.over:
            session.error(ErrorCode.GAME_NOT_OVER, "a rematch can be offered when the game is over", None, msg.TYPE, table=self.id)
            return
        if not self.both_seated():
            session.error(ErrorCode.NOT_YOUR_TURN, "waiting for an opponent to take the other seat", None, msg.TYPE, table=self.id)
            return
        if isinstance(msg, I.RematchAccept) and not self.rematch_offers[1 - seat]:
            session.error(ErrorCode.ILLEGAL_ACTION, "no rematch offer to accept", None, msg.TYPE, table=self.id,
                          rule="no_rematch_offer")
            return
        self.rematch_offers[seat] = True
        if not all(self.rematch_offers):
            v = self._next_v()
            self._commit(O.rematch(self.id, v, time.time(), self.rematch_offers))
            return
        self.seed = secrets.randbits(31)
        self.game = new_game(self.discipline, self.config, self.seed)
        self.game_no += 1
        self.record_len = 0
        self.rematch_offers = [False, False]
        self.lag = {}
        self._arm_clock()
        v = self._next_v()
        self._commit(self.snapshot(v), meta=True)
        self._check_idle()

    async def _on_chat(self, session: "Session", msg: I.Chat) -> None:
        seat = self.seat_of(session)
        if seat is None and self.feed.members.get(session) != SPECTATOR:
            session.error(ErrorCode.NOT_WATCHING, "join or watch the table to chat", "table", "chat", table=self.id)
            return
        v = self._next_v()
        m = O.chat(self.id, v, time.time(), seat=seat, name=session.name, text=msg.text)
        self.chat.append({k: m[k] for k in ("seat", "name", "text", "ts")})
        self._commit(m)

    # ----- shot clock ------------------------------------------------------------------------
    def _clock_limit(self) -> Optional[float]:
        cfg = self.game.config.get("shot_clock") if isinstance(self.game.config, dict) else None
        if isinstance(cfg, dict) and cfg.get("limit_s"):
            return float(cfg["limit_s"])
        return None

    def _arm_clock(self) -> None:
        """(Re)start the shot clock for the player to act, when the table has one and the game is on.

        The clock runs only while that player is connected: a disconnected player is covered by
        the grace period and the opponent's claim, and a restart never times anybody out. When the
        clock is re-armed within the same turn (a seat change, the opponent dropping or coming back) it
        goes on; when the player to act drops and comes back in the same turn it goes on with the time
        that was left (at least :data:`CLOCK_RESUME_MIN_S`): reconnecting never buys a fresh limit.
        """
        if self._clock_handle is not None:
            self._clock_handle.cancel()
            self._clock_handle = None
        now = time.time()
        running = self.clock
        limit = self._clock_limit()
        to_act = self.game.to_act
        if (limit is None or not self.game.clock_applies() or not self.both_seated() or self.closed
                or self.seats[to_act].session is None):
            if running is not None:  # stopped: what was left of this turn waits for the player's return
                self._clock_left = (self._turn_key(running["seat"]), running["deadline"] - now)
            self.clock = None
            return
        key = self._turn_key(to_act)
        if running is not None and self._turn_key(running["seat"]) == key:
            left = max(0.0, running["deadline"] - now)  # the same turn, clock running: it goes on
        elif self._clock_left is not None and self._clock_left[0] == key:
            left = min(limit, max(self._clock_left[1], CLOCK_RESUME_MIN_S))  # the same turn, clock stopped meanwhile
        else:
            left = limit
        self._clock_left = None
        deadline = now + left
        self.clock = {"seat": to_act, "limit_s": limit, "deadline": deadline}
        self._clock_gen += 1
        marker = (self._clock_gen, to_act, deadline)
        self._clock_handle = asyncio.get_running_loop().call_later(left, self.submit_internal, self._on_clock, marker)

    def _turn_key(self, seat: int) -> Tuple[int, int, int]:
        """What identifies a turn for the shot clock: (seat, game, strokes and rulings so far)."""
        return (seat, self.game_no, self._turn)

    async def _on_clock(self, marker: Tuple[int, int, float]) -> None:
        if self.clock is None or marker != (self._clock_gen, self.clock["seat"], self.clock["deadline"]) or self.game.over:
            return
        seat = self.clock["seat"]
        try:
            ruling = self.game.apply_timeout(seat)
        except IllegalAction:
            self.clock = None
            return
        await self._rule("timeout", seat, None, ruling, {"player": seat, "timeout": True})

    # ----- idle tables -----------------------------------------------------------------------
    def _check_idle(self) -> None:
        """Close the table when nobody is connected: at once if no seat is held, else after linger/abandon time."""
        if self._idle_handle is not None:
            self._idle_handle.cancel()
            self._idle_handle = None
        if self.closed or self.server.stopping or self.connected() > 0:
            return
        if self.seats == [None, None]:
            self.submit_internal(self._close, "empty")
            return
        in_play = self.both_seated() and not self.game.over
        delay = self.settings.abandon_s if in_play else max(self.settings.linger_s, self.settings.grace_s)
        self._idle_handle = asyncio.get_running_loop().call_later(delay, self.submit_internal, self._close_if_idle)

    async def _close_if_idle(self) -> None:
        if self.connected() == 0:
            await self._close("abandoned" if not self.game.over else "idle")

    async def _close(self, reason: str) -> None:
        if self.closed or (reason == "empty" and (self.connected() > 0 or self.seats != [None, None])):
            return
        await self._flush_batch()  # the last records (a forfeit, ...) go in first
        self._cancel_timers()
        w = TableWrite(self.id, closed=True, lease=self.lease)
        if self.record_len:
            meta = dict(self.record_meta(), closed=reason)
            w.meta[self.game_no] = msgpack.packb(meta, use_bin_type=True)
        if not self.private:
            w.lobby_gone = True
            w.publish_lobby = protocol.encode(O.lobby_remove(self.id))
        self.pending = None
        self.server.dirty.discard(self.id)
        try:
            await self.server.store.write_table(w)
        except Fenced:  # another process holds the table: it is not ours to close
            self.server.cluster.table_lost(self)
            return
        except Exception:
            self.pending = w  # the server retries closed tables' writes too
            self.server.orphan_writes.append(w)
        self.closed = True
        self.server.table_closed(self)
        log.info("table closed", extra={"table": self.id, "reason": reason})

    def _cancel_timers(self) -> None:
        for h in (self._clock_handle, self._idle_handle):
            if h is not None:
                h.cancel()
        self._clock_handle = self._idle_handle = None

    _HANDLERS: Dict[type, Callable[..., Any]] = {
        I.Join: _on_join,
        I.Watch: _on_watch,
        I.Resume: _on_resume,
        I.Leave: _on_leave,
        I.Shot: _on_shot,
        I.Decision: _on_decision,
        I.Resign: _on_resign,
        I.Claim: _on_claim,
        I.RematchOffer: _on_rematch,
        I.RematchAccept: _on_rematch,
        I.Chat: _on_chat,
    }
