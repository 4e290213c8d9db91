"""Bot players and spectators over the real protocol (asyncio + websockets, messages through protocol/).

:func:`run_tables` is what ``billar bots`` runs: N tables, each created by one bot and joined by
another, K spectators per table, whole games to the end, then everyone leaves. Every message is
built with :mod:`protocol.inbound` and sent with :func:`protocol.encode_client`; every message
received is read with :func:`protocol.decode_server`. A bot keeps a :class:`bots.mirror.Mirror`
of its table and asks :class:`bots.engine.Player` for its move (in a worker thread: the physics
releases the GIL, and the event loop keeps reading meanwhile).

Measured (all in milliseconds, on the client's clock):

- shot-to-broadcast latency: from sending a ``shot``/``decision`` to receiving the stream message
  that carries its sequence number (lag strokes are left out: the server waits for both);
- spectator fan-out delay: a spectator's receive time minus the message's server timestamp ``ts``
  (same machine, same clock);
- think time: how long the engine took per move.

Failures counted: ``error`` messages, version gaps in a table's stream, a version received twice
with different bytes, a spectator receiving different bytes than the players for the same
version, mirror disagreements, games not finished before the deadline, connections closed for
good (a close code in :data:`FINAL_CLOSE_CODES`, or the retry budget spent).

Dropped connections (docs/protocol.md section 5). A connection closed with any other code (1006
when the server process died, 1012 after ``shutdown``, 1011, ...) is opened again to the same
URL (behind a shared port or a proxy it may land on any server process), greeted with ``hello``,
and a player sends ``resume`` with its seat token and the last version it applied, a spectator
``watch`` with that version: the server replays what was missed (or sends a snapshot). After
``seated`` a player sends again every ``shot``/``decision`` not answered yet, with the same
``seq`` (bots/seat.py); the same happens when the server itself sends ``seated`` again because
the table moved to another process. Each drop has a budget (:class:`Retry`: 10 attempts, pauses
from 0.25 s doubling up to 5 s, about 30 s in all); an ``unavailable``/``busy`` answer to
``resume``, ``watch``, ``shot`` or ``decision`` spends an attempt too. When a player's budget is
spent its table is given up (the other bots of the table stop at once) and the error counted.
Counted in :class:`Stats`: ``reconnects`` (connections opened again), ``resumes`` (``seated``
again), ``resent`` (actions sent again), ``duplicates`` (of those, the ones the server had
already played), ``repeats`` (stream versions received twice, same bytes, ignored).
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, WebSocketException

import protocol
from bots.accounts import Credentials, Session, check_welcome, sign_in_async, throwaway
from bots.engine import Player
from bots.seat import RETRY_CODES, SeatPlay, Stream
from protocol import inbound as I

STREAM = protocol.STREAM_TYPES

# Close codes after which connecting again cannot help: a protocol fault of the client (1002, 1003, 1007,
# 1008, 1009, 1010, 4000, 4001, 4003) or the seat resumed by another connection (4002).
FINAL_CLOSE_CODES = frozenset({1002, 1003, 1007, 1008, 1009, 1010, 4000, 4001, 4002, 4003})
OPEN_ERRORS = (OSError, WebSocketException, asyncio.TimeoutError, RuntimeError)  # failures of Link.open


def close_code(exc: ConnectionClosed) -> int:
    """The close code the server sent, 1006 when the connection ended without a close frame."""
    return exc.rcvd.code if exc.rcvd is not None else 1006


@dataclass(frozen=True)
class Retry:
    """Budget of one dropped connection: ``attempts`` connections (0: never reconnect), the k-th after a pause of
    ``first_s * 2**k`` seconds capped at ``max_s`` (times 0.8-1.2 at random), or after the ``retry_ms`` of a
    ``shutdown`` message when longer. Defaults: 10 attempts over about 30 s. Raises ``ValueError`` for
    negative figures."""

    attempts: int = 10
    first_s: float = 0.25
    max_s: float = 5.0

    def __post_init__(self):
        if self.attempts < 0 or not (0 <= self.first_s <= self.max_s):
            raise ValueError(f"retry: expected attempts >= 0 and 0 <= first_s <= max_s, got {self}")

    def pause(self, k: int, at_least: float = 0.0) -> float:
        """Seconds to wait before attempt ``k`` (0-based)."""
        return max(at_least, min(self.max_s, self.first_s * 2.0 ** k) * random.uniform(0.8, 1.2))


def percentile(values: List[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by the nearest-rank method (0.0 for an empty list)."""
    if not values:
        return 0.0
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(q * len(s) + 0.5)) - 1))
    return s[k]


@dataclass
class Stats:
    """Everything the bots saw, shared by all of them (one event loop, no locks needed)."""

    games_started: int = 0
    games_finished: int = 0
    strokes: int = 0
    decisions: int = 0
    latency_ms: List[float] = field(default_factory=list)
    fanout_ms: List[float] = field(default_factory=list)
    think_ms: List[float] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    gaps: int = 0
    resyncs: int = 0
    reconnects: int = 0
    resumes: int = 0
    resent: int = 0
    duplicates: int = 0
    repeats: int = 0
    spectator_messages: int = 0
    results: List[Dict[str, Any]] = field(default_factory=list)
    rated: Dict[str, List[Dict[str, Any]]] = field(default_factory=dict)  # table -> game_rated ``ratings``
    accounts: List[str] = field(default_factory=list)  # "name: logged in" / "name: registered"

    def error(self, who: str, text: str) -> None:
        self.errors.append(f"{who}: {text}")


class Link:
    """One WebSocket connection: ``hello`` sent on :meth:`open`, messages in and out through protocol/."""

    def __init__(self, ws, name: str, url: str = "", session: Optional[Session] = None):
        self.ws, self.name, self.url, self.session = ws, name, url, session
        self.welcome: Dict[str, Any] = {}

    @classmethod
    async def open(cls, url: str, name: str, timeout: float = 20.0, session: Optional[Session] = None) -> "Link":
        """Connect and greet. Raises one of :data:`OPEN_ERRORS` (refused, HTTP status other than 101, no welcome,
        or, with a logged-in ``session`` (bots/accounts.py), a welcome that is not that account's)."""
        ws = await connect(url, compression=None, max_size=None, open_timeout=timeout, ping_interval=None,
                           additional_headers=session.ws_headers() if session is not None else None)
        link = cls(ws, name, url, session)
        try:
            await link.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=name, client="billar-bots"))
            msg, _ = await link.recv(timeout)
            if msg["type"] != "welcome":
                raise RuntimeError(f"{name}: expected welcome, got {msg}")
            if session is not None:
                check_welcome(msg, session)
        except BaseException:
            await ws.close()
            raise
        link.welcome = msg
        return link

    async def send(self, msg: I.Inbound) -> None:
        await self.ws.send(protocol.encode_client(msg))

    async def send_quietly(self, msg: I.Inbound) -> None:
        """Send, or nothing when the connection is closed (the reader finds out and reconnects)."""
        try:
            await self.send(msg)
        except ConnectionClosed:
            pass

    async def recv(self, timeout: Optional[float] = None):
        # asyncio.timeout, not wait_for: the receive runs in this task, so cancelling the bot (its table gave
        # up) ends it at once (wait_for's inner task could hold the cancellation until the deadline)
        async with asyncio.timeout(timeout):
            data = await self.ws.recv()
        return protocol.decode_server(data), data

    async def recv_until(self, deadline: float):
        """The next (message, bytes), or None once the loop's clock passes ``deadline``; a closed
        connection raises ``ConnectionClosed``."""
        loop = asyncio.get_running_loop()
        while True:
            left = deadline - loop.time()
            if left <= 0:
                return None
            try:
                return await self.recv(left)
            except asyncio.TimeoutError:
                continue

    async def close(self) -> None:
        await self.ws.close()


class Reconnecting:
    """A bot whose connection may be opened again: the retry budget of the current drop and the ``shutdown`` hint."""

    def __init__(self, link: Link, stats: Stats, retry: Retry):
        self.link, self.stats, self.retry = link, stats, retry
        self.attempts = 0  # spent on the current drop (back to 0 once the table answered)
        self.hint_s = 0.0  # retry_ms of a ``shutdown`` message, for the next pause
        self.failed = False
        self.last_failure = ""
        self.deadline = float("inf")  # event-loop time by which the whole run must end
        self.reconnects = 0

    def give_up(self, text: str) -> bool:
        self.stats.error(self.link.name, text)
        self.failed = True
        return False

    async def wait_attempt(self, deadline: float, why: str) -> bool:
        """Spend one attempt: pause, or report ``why`` and return False when the budget or the deadline is out."""
        if self.attempts >= self.retry.attempts:
            more = f" after {self.attempts} attempts (last: {self.last_failure})" if self.attempts else ""
            return self.give_up(f"{why}; gave up{more}")
        pause = self.retry.pause(self.attempts, self.hint_s)
        self.hint_s = 0.0
        if asyncio.get_running_loop().time() + pause >= deadline:
            return self.give_up(f"{why}; no time left before the deadline")
        self.attempts += 1
        await asyncio.sleep(pause)
        return True

    async def reopen(self, deadline: float, why: str) -> bool:
        """Open a new connection to the same URL within the budget; True when greeted (``self.link`` replaced)."""
        while await self.wait_attempt(deadline, why):
            left = deadline - asyncio.get_running_loop().time()
            try:
                link = await Link.open(self.link.url, self.link.name, timeout=max(0.1, min(10.0, left)),
                                       session=self.link.session)
            except OPEN_ERRORS as exc:
                self.last_failure = f"{type(exc).__name__}: {exc}"
                continue
            old, self.link = self.link, link
            try:
                await old.close()
            except Exception:
                pass
            self.stats.reconnects += 1
            self.reconnects += 1
            return True
        return False

    def on_shutdown(self, msg: Dict[str, Any]) -> None:
        self.hint_s = max(0.0, float(msg.get("retry_ms") or 0) / 1000.0)


#: seconds a bot of a rated table waits after the game for its ``game_rated`` (the database records the game)
RATING_WAIT_S = 30.0


class BotPlayer(Reconnecting):
    """A bot seated at a table over one :class:`Link`: :class:`bots.seat.SeatPlay` does the bookkeeping.

    ``rated``: after the game the bot stays at the table until ``game_rated`` (or a snapshot's
    ``rated_result`` after a resume) tells the rating changes, at most :data:`RATING_WAIT_S`; seat 0
    keeps them in ``stats.rated`` and counts an error when they do not come."""

    def __init__(self, link: Link, player: Player, stats: Stats, think_s: float = 0.0, seen: Optional[Dict] = None,
                 retry: Retry = Retry(), rated: bool = False):
        super().__init__(link, stats, retry)
        self.player, self.think_s, self.rated = player, think_s, rated
        self.play_state = SeatPlay()
        self.seen = seen if seen is not None else {}  # (table, v) -> bytes, to compare with spectators
        self.ratings: Optional[List[Dict[str, Any]]] = None

    @property
    def table(self) -> Optional[str]:
        return self.play_state.table

    @property
    def over(self) -> bool:
        return self.play_state.over

    async def play(self, deadline: float) -> bool:
        """Run until the game is over (then leave the seat: True), or the deadline passes or the connection is
        lost for good (the error counted: False). Dropped connections are resumed within the budget."""
        self.deadline = deadline
        while not self.over:
            try:
                got = await self.link.recv_until(deadline)
            except ConnectionClosed as exc:
                if not await self._resume(exc):
                    return False
                continue
            if got is None:
                self.stats.error(self.link.name, "game not finished before the deadline")
                return False
            msg, data = got
            await self.on_message(msg, data)
            if self.failed:
                return False
        if self.rated and not await self._await_rating(deadline):
            return False
        leave = self.play_state.leave()
        if leave is not None:
            await self.link.send_quietly(leave)
        return True

    async def _await_rating(self, deadline: float) -> bool:
        """After a rated game: wait for its rating changes (see the class); False when they did not come."""
        ps, loop = self.play_state, asyncio.get_running_loop()
        until = min(deadline, loop.time() + RATING_WAIT_S)
        game = ps.mirror_game
        while self.ratings is None:
            try:
                got = await self.link.recv_until(until)
            except ConnectionClosed as exc:
                if not await self._resume(exc):
                    return False
                continue
            if got is None:
                if ps.seat == 0:
                    self.stats.error(self.link.name, f"table {ps.table}: game {game} not rated within "
                                                     f"{RATING_WAIT_S:g} s (no game_rated)")
                return False
            msg, data = got
            t = msg["type"]
            if t == "game_rated" and msg.get("table") == ps.table and msg.get("game") == game:
                self.ratings = msg["ratings"]
            elif t == "table_snapshot" and msg.get("table") == ps.table and msg.get("game") == game \
                    and msg.get("rated_result"):
                self.ratings = msg["rated_result"]
            if t != "game_rated":
                await self.on_message(msg, data)
            if self.failed:
                return False
        if ps.seat == 0:
            self.stats.rated[ps.table] = self.ratings
        return True

    async def _resume(self, exc: ConnectionClosed) -> bool:
        """The connection dropped: open another and send ``resume`` (its ``seated`` arrives in :meth:`play`)."""
        code, ps = close_code(exc), self.play_state
        why = f"connection closed by the server ({code})"
        if code in FINAL_CLOSE_CODES or ps.token is None:
            return self.give_up(why)
        if not await self.reopen(self.deadline, why):
            return False
        await self.link.send_quietly(I.Resume(table=ps.table, token=ps.token, v=ps.stream.v))
        return True

    async def on_message(self, msg: Dict[str, Any], data: bytes) -> None:
        ps = self.play_state
        first = ps.mirror is None
        if msg["type"] == "shutdown":
            self.on_shutdown(msg)
        fb = ps.feed(msg, time.perf_counter())
        st = self.stats
        for e in fb.errors:
            st.error(self.link.name, e)
        if fb.resume_error is not None:
            await self._resume_refused(fb.resume_error, msg)
            return
        if fb.reseated:
            st.resumes += 1
            await self._resend()
        if fb.retry:
            if await self.wait_attempt(self.deadline, f"{msg.get('ref')} answered {msg.get('code')}"):
                await self._resend()
            return
        st.duplicates += fb.duplicate
        if fb.repeat is not None:
            st.repeats += 1
            theirs = self.seen.get((ps.table, fb.repeat))
            if theirs is not None and theirs != data:
                st.error(self.link.name, f"v{fb.repeat} received twice with different bytes")
            return
        if msg["type"] == "seated" or msg["type"] in STREAM:
            self.attempts = 0  # the table answers: the drop is over
        if fb.gap:
            st.gaps += 1
            st.error(self.link.name, f"stream gap: {fb.gap}")
        st.resyncs += fb.resync
        st.latency_ms += [x * 1000.0 for x in fb.latency_s]
        if msg["type"] in STREAM and msg["type"] != "table_snapshot" and msg.get("table") == ps.table:
            self.seen.setdefault((ps.table, msg["v"]), data)
        if ps.seat == 0:
            st.games_started += first and ps.mirror is not None
            st.strokes += fb.stroke
            st.decisions += fb.decision
            if fb.over:
                st.games_finished += 1
                st.results.append({"table": ps.table, "result": fb.result})
        game = ps.position_to_move()
        if game is None:
            return
        t0 = time.perf_counter()
        act = await asyncio.to_thread(self.player.choose, game, ps.seat)
        st.think_ms.append((time.perf_counter() - t0) * 1000.0)
        if self.think_s > 0:
            await asyncio.sleep(self.think_s * random.uniform(0.5, 1.5))
        await self.link.send_quietly(ps.message_for(act, time.perf_counter()))

    async def _resend(self) -> None:
        for m in self.play_state.resend():
            self.stats.resent += 1
            await self.link.send_quietly(m)

    async def _resume_refused(self, code: str, msg: Dict[str, Any]) -> None:
        """``resume`` answered with an error: try again later when the table is moving, else give up."""
        ps = self.play_state
        why = f"resume refused: {code}: {msg.get('message')}"
        if code in RETRY_CODES and await self.wait_attempt(self.deadline, why):
            await self.link.send_quietly(I.Resume(table=ps.table, token=ps.token, v=ps.stream.v))
        elif code not in RETRY_CODES:
            self.give_up(why)


class Spectator(Reconnecting):
    """A bot watching one table to the end of its game; a dropped connection watches again from its last version."""

    def __init__(self, link: Link, table: str, stats: Stats, seen: Dict, retry: Retry = Retry(),
                 players_done: Optional[Callable[[], bool]] = None):
        super().__init__(link, stats, retry)
        self.table, self.seen = table, seen
        self.players_done = players_done or (lambda: False)  # the players saw the end (the table may be gone)
        self.stream = Stream()
        self.mine: Dict[int, bytes] = {}  # v -> the bytes this spectator received

    async def watch(self, deadline: float) -> bool:
        """Watch until the game is over (True) or the deadline / the budget runs out (False): version continuity,
        fan-out delay, bytes equal to the players'."""
        link, stats, table = self.link, self.stats, self.table
        await link.send(I.Watch(table=table))
        while True:
            try:
                got = await self.link.recv_until(deadline)
            except ConnectionClosed as exc:
                code = close_code(exc)
                why = f"connection closed by the server ({code})"
                if code in FINAL_CLOSE_CODES:
                    return self.give_up(why)
                if not await self.reopen(deadline, why):
                    return False
                await self.link.send_quietly(I.Watch(table=table, v=self.stream.v))
                continue
            if got is None:
                stats.error(self.link.name, "spectated game not finished before the deadline")
                return False
            msg, data = got
            t = msg["type"]
            if t == "shutdown":
                self.on_shutdown(msg)
                continue
            if t == "error":
                text = f"error {msg.get('code')}: {msg.get('message')}"
                if msg.get("ref") != "watch":
                    stats.error(self.link.name, text)
                elif msg.get("code") == "no_such_table" and self.reconnects and self.players_done():
                    return True  # back after the game ended and the players left: the table closed meanwhile
                elif msg.get("code") not in RETRY_CODES:
                    return self.give_up(text)  # no_such_table, too_many_tables: watching again would not help
                elif not await self.wait_attempt(deadline, text):
                    return False
                else:
                    await self.link.send_quietly(I.Watch(table=table, v=self.stream.v))
                continue
            if t not in STREAM or msg.get("table") != table:
                continue
            self.attempts = 0
            if self.stream.is_repeat(msg):
                stats.repeats += 1
                if self.mine.get(msg["v"], data) != data:
                    stats.error(self.link.name, f"v{msg['v']} received twice with different bytes")
                continue
            stats.spectator_messages += 1
            stats.fanout_ms.append(max(0.0, (time.time() - msg["ts"]) * 1000.0))
            gap = self.stream.check(msg)
            if gap:
                stats.gaps += 1
                stats.error(self.link.name, f"stream gap: {gap}")
            if t != "table_snapshot":
                self.mine[msg["v"]] = data
            if msg.get("state", {}).get("over"):
                break
        await self.link.send_quietly(I.Leave(table=table))
        await asyncio.sleep(0.05)
        for v, data in self.mine.items():  # the players' copies are there by now (same broadcast)
            theirs = self.seen.get((table, v))
            if theirs is not None and theirs != data:
                stats.error(self.link.name, f"v{v}: spectator bytes differ from the players'")
        return True


async def spectate(link: Link, table: str, stats: Stats, seen: Dict, deadline: float, retry: Retry = Retry()) -> bool:
    """Watch ``table`` until its game is over (see :class:`Spectator`)."""
    return await Spectator(link, table, stats, seen, retry).watch(deadline)


async def _play_table(players: List[BotPlayer], spectators: List[Spectator], deadline: float) -> None:
    """Run the players and spectators of one table; when a player gives up, the others stop at once."""
    tasks = {asyncio.ensure_future(p.play(deadline)): True for p in players}
    tasks.update({asyncio.ensure_future(s.watch(deadline)): False for s in spectators})
    pending = set(tasks)
    try:
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            if any(tasks[t] and t.result() is False for t in done):
                break
    finally:
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


async def run_table(url: str, index: int, discipline: str, config: Dict[str, Any], spectators: int, level: int,
                    think_s: float, stats: Stats, deadline: float, seed: int, retry: Retry = Retry(),
                    sessions: Optional[List[Session]] = None) -> None:
    """One table: bot A creates it (seat 0), bot B joins (seat 1), ``spectators`` watch; one whole game.
    ``sessions``: the two players' logged-in accounts (bots/accounts.py): the table is rated."""
    bots: List[Reconnecting] = []
    sa, sb = sessions if sessions else (None, None)
    rated = sessions is not None
    try:
        a = await Link.open(url, sa.name if sa else f"bot{index}a", session=sa)
        seen: Dict = {}
        pa = BotPlayer(a, Player(level, seed * 2 + 1), stats, think_s, seen, retry, rated)
        bots.append(pa)
        b = await Link.open(url, sb.name if sb else f"bot{index}b", session=sb)
        pb = BotPlayer(b, Player(level, seed * 2 + 2), stats, think_s, seen, retry, rated)
        bots.append(pb)
        await a.send(I.CreateTable(discipline=discipline, config=config, seat=0, rated=rated))
        while pa.table is None:  # seated, then the snapshot
            msg, data = await a.recv(max(0.1, deadline - asyncio.get_running_loop().time()))
            await pa.on_message(msg, data)
            if msg["type"] == "error":
                return
        await b.send(I.Join(table=pa.table, seat=1))
        watchers = []
        for k in range(spectators):
            s = Spectator(await Link.open(url, f"spec{index}.{k}"), pa.table, stats, seen, retry,
                          lambda: pa.over and pb.over)
            bots.append(s)
            watchers.append(s)
        await _play_table([pa, pb], watchers, deadline)
    except OPEN_ERRORS as exc:
        stats.error(f"table{index}", f"{type(exc).__name__}: {exc}")
    finally:
        for bot in bots:
            try:
                await bot.link.close()
            except Exception:
                pass


#: sign-ins at once (each costs the server an Argon2 hash)
SIGN_IN_CONCURRENCY = 4


async def sign_in_all(url: str, creds: List[Optional[Credentials]], stats: Stats) -> List[Session]:
    """Sessions for ``creds`` in order (None: a throwaway account), at most :data:`SIGN_IN_CONCURRENCY` at once.
    The first failure stops the others from starting and is raised (``bots.accounts.AccountError``)."""
    sem = asyncio.Semaphore(SIGN_IN_CONCURRENCY)
    failed: List[BaseException] = []

    async def one(cred: Optional[Credentials]) -> Optional[Session]:
        async with sem:
            if failed:
                return None
            try:
                sess = await sign_in_async(url, cred or throwaway(), fresh=cred is None)
            except BaseException as exc:
                failed.append(exc)
                raise
            stats.accounts.append(f"{sess.name}: {'registered' if sess.registered else 'logged in'}")
            return sess

    got = await asyncio.gather(*(one(c) for c in creds), return_exceptions=True)
    if failed:
        raise failed[0]
    return list(got)


async def run_tables(url: str, tables: int, discipline: str, config: Dict[str, Any], spectators: int = 0, level: int = 1,
                     think_s: float = 0.0, timeout_s: float = 600.0, seed: int = 1, retry: Retry = Retry(),
                     rated: bool = False, accounts: Optional[List[Credentials]] = None) -> Stats:
    """Play ``tables`` whole games at once against the server at ``url`` (ws://HOST:PORT/ws); returns :class:`Stats`.
    ``retry``: the budget of each dropped connection (:class:`Retry`). ``rated``: the players are registered
    accounts (``accounts``, two a table in order, else throwaway ones), signed in before any table starts (a
    failure raises ``bots.accounts.AccountError``), and every table is rated."""
    stats = Stats()
    sessions: List[Optional[List[Session]]] = [None] * tables
    if rated:
        creds: List[Optional[Credentials]] = list(accounts[:2 * tables]) if accounts else [None] * (2 * tables)
        if len(creds) < 2 * tables:
            raise ValueError(f"accounts: {len(creds)} given, {2 * tables} needed (two a table)")
        got = await sign_in_all(url, creds, stats)
        sessions = [got[2 * i:2 * i + 2] for i in range(tables)]
    deadline = asyncio.get_running_loop().time() + timeout_s
    await asyncio.gather(*(run_table(url, i, discipline, config, spectators, level, think_s, stats, deadline, seed + i,
                                     retry, sessions[i])
                           for i in range(tables)))
    return stats
