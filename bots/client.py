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

Failures counted: ``error`` messages, version gaps or repeats in a table's stream, a spectator
receiving different bytes than the players for the same version, mirror disagreements, games
not finished before the deadline, connections closed by the server.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

import protocol
from bots.engine import Player
from bots.seat import SeatPlay, Stream
from protocol import inbound as I

STREAM = protocol.STREAM_TYPES


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
    spectator_messages: int = 0
    results: List[Dict[str, Any]] = field(default_factory=list)

    def error(self, who: str, text: str) -> None:
        self.errors.append(f"{who}: {text}")


class Link:
    """One WebSocket connection: ``hello`` sent on :meth:`open`, messages in and out through protocol/."""

    def __init__(self, ws, name: str):
        self.ws, self.name = ws, name
        self.welcome: Dict[str, Any] = {}

    @classmethod
    async def open(cls, url: str, name: str) -> "Link":
        ws = await connect(url, compression=None, max_size=None, open_timeout=20, ping_interval=None)
        link = cls(ws, name)
        await link.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=name, client="billar-bots"))
        msg, _ = await link.recv(20.0)
        if msg["type"] != "welcome":
            raise RuntimeError(f"{name}: expected welcome, got {msg}")
        link.welcome = msg
        return link

    async def send(self, msg: I.Inbound) -> None:
        await self.ws.send(protocol.encode_client(msg))

    async def recv(self, timeout: Optional[float] = None):
        data = await asyncio.wait_for(self.ws.recv(), timeout)
        return protocol.decode_server(data), data

    async def close(self) -> None:
        await self.ws.close()


class BotPlayer:
    """A bot seated at a table over one :class:`Link`: :class:`bots.seat.SeatPlay` does the bookkeeping."""

    def __init__(self, link: Link, player: Player, stats: Stats, think_s: float = 0.0, seen: Optional[Dict] = None):
        self.link, self.player, self.stats, self.think_s = link, player, stats, think_s
        self.play_state = SeatPlay()
        self.seen = seen if seen is not None else {}  # (table, v) -> bytes, to compare with spectators

    @property
    def table(self) -> Optional[str]:
        return self.play_state.table

    @property
    def over(self) -> bool:
        return self.play_state.over

    async def play(self, deadline: float) -> None:
        """Run until the game is over (then leave the seat) or the deadline passes."""
        loop = asyncio.get_running_loop()
        while not self.over:
            left = deadline - loop.time()
            if left <= 0:
                self.stats.error(self.link.name, "game not finished before the deadline")
                return
            try:
                msg, data = await self.link.recv(left)
            except asyncio.TimeoutError:
                continue
            except ConnectionClosed as exc:
                self.stats.error(self.link.name, f"connection closed by the server ({exc.rcvd.code if exc.rcvd else 'no code'})")
                return
            await self.on_message(msg, data)
        leave = self.play_state.leave()
        if leave is not None:
            await self.link.send(leave)

    async def on_message(self, msg: Dict[str, Any], data: bytes) -> None:
        ps = self.play_state
        first = ps.mirror is None
        fb = ps.feed(msg, time.perf_counter())
        st = self.stats
        for e in fb.errors:
            st.error(self.link.name, e)
        if fb.gap:
            st.gaps += 1
            st.error(self.link.name, f"stream gap: {fb.gap}")
        st.resyncs += fb.resync
        st.latency_ms += [x * 1000.0 for x in fb.latency_s]
        if msg["type"] in STREAM and msg["type"] != "table_snapshot" and msg.get("table") == ps.table:
            self.seen[(ps.table, msg["v"])] = data
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
        await self.link.send(ps.message_for(act, time.perf_counter()))


async def spectate(link: Link, table: str, stats: Stats, seen: Dict, deadline: float) -> None:
    """Watch ``table`` until its game is over: version continuity, fan-out delay, bytes equal to the players'."""
    await link.send(I.Watch(table=table))
    stream = Stream()
    loop = asyncio.get_running_loop()
    pending: List[tuple] = []
    while True:
        left = deadline - loop.time()
        if left <= 0:
            stats.error(link.name, "spectated game not finished before the deadline")
            return
        try:
            msg, data = await link.recv(left)
        except asyncio.TimeoutError:
            continue
        except ConnectionClosed as exc:
            stats.error(link.name, f"connection closed by the server ({exc.rcvd.code if exc.rcvd else 'no code'})")
            return
        t = msg["type"]
        if t == "error":
            stats.error(link.name, f"error {msg.get('code')}: {msg.get('message')}")
            continue
        if t not in STREAM or msg.get("table") != table:
            continue
        stats.spectator_messages += 1
        stats.fanout_ms.append(max(0.0, (time.time() - msg["ts"]) * 1000.0))
        gap = stream.check(msg)
        if gap:
            stats.gaps += 1
            stats.error(link.name, f"stream gap: {gap}")
        if t != "table_snapshot":
            pending.append((msg["v"], data))
        if msg.get("state", {}).get("over"):
            break
    await link.send(I.Leave(table=table))
    await asyncio.sleep(0.05)
    for v, data in pending:  # the players' copies are there by now (same broadcast)
        theirs = seen.get((table, v))
        if theirs is not None and theirs != data:
            stats.error(link.name, f"v{v}: spectator bytes differ from the players'")


async def run_table(url: str, index: int, discipline: str, config: Dict[str, Any], spectators: int, level: int,
                    think_s: float, stats: Stats, deadline: float, seed: int) -> None:
    """One table: bot A creates it (seat 0), bot B joins (seat 1), ``spectators`` watch; one whole game."""
    links: List[Link] = []
    try:
        a = await Link.open(url, f"bot{index}a")
        links.append(a)
        b = await Link.open(url, f"bot{index}b")
        links.append(b)
        seen: Dict = {}
        pa = BotPlayer(a, Player(level, seed * 2 + 1), stats, think_s, seen)
        pb = BotPlayer(b, Player(level, seed * 2 + 2), stats, think_s, seen)
        await a.send(I.CreateTable(discipline=discipline, config=config, seat=0))
        while pa.table is None:  # seated, then the snapshot
            msg, data = await a.recv(max(0.1, deadline - asyncio.get_running_loop().time()))
            await pa.on_message(msg, data)
            if msg["type"] == "error":
                return
        await b.send(I.Join(table=pa.table, seat=1))
        watchers = []
        for k in range(spectators):
            s = await Link.open(url, f"spec{index}.{k}")
            links.append(s)
            watchers.append(spectate(s, pa.table, stats, seen, deadline))
        await asyncio.gather(pa.play(deadline), pb.play(deadline), *watchers)
    except (OSError, ConnectionClosed, asyncio.TimeoutError, RuntimeError) as exc:
        stats.error(f"table{index}", f"{type(exc).__name__}: {exc}")
    finally:
        for link in links:
            try:
                await link.close()
            except Exception:
                pass


async def run_tables(url: str, tables: int, discipline: str, config: Dict[str, Any], spectators: int = 0, level: int = 1,
                     think_s: float = 0.0, timeout_s: float = 600.0, seed: int = 1) -> Stats:
    """Play ``tables`` whole games at once against the server at ``url`` (ws://HOST:PORT/ws); returns :class:`Stats`."""
    stats = Stats()
    deadline = asyncio.get_running_loop().time() + timeout_s
    await asyncio.gather(*(run_table(url, i, discipline, config, spectators, level, think_s, stats, deadline, seed + i)
                           for i in range(tables)))
    return stats
