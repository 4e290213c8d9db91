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
from bots.mirror import Mirror, MirrorError
from protocol import inbound as I
from rules.registry import game_from_state

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


class Stream:
    """Version bookkeeping of one table's stream as one connection receives it."""

    def __init__(self):
        self.v: Optional[int] = None

    def check(self, msg: Dict[str, Any]) -> Optional[str]:
        """Accept a stream message; returns a failure text for a gap or a repeat, else None."""
        v = msg["v"]
        if msg["type"] == "table_snapshot":
            self.v = v
            return None
        if self.v is not None and v != self.v + 1:
            text = f"version {v} after {self.v}"
            self.v = v
            return text
        self.v = v
        return None


class BotPlayer:
    """A bot seated at a table: reads the stream, mirrors the game, plays its moves."""

    def __init__(self, link: Link, player: Player, stats: Stats, think_s: float = 0.0, seen: Optional[Dict] = None):
        self.link, self.player, self.stats, self.think_s = link, player, stats, think_s
        self.table: Optional[str] = None
        self.seat: Optional[int] = None
        self.token: Optional[str] = None
        self.mirror: Optional[Mirror] = None
        self.stream = Stream()
        self.seq = 0
        self.sent: Dict[int, float] = {}  # seq -> perf_counter at send
        self.acted_v: Optional[int] = None  # version at which this bot last acted (never twice per version)
        self.state: Optional[Dict[str, Any]] = None
        self.state_v: Optional[int] = None  # version of the last message that carried a position
        self.seats_full = False
        self.seen = seen if seen is not None else {}  # (table, v) -> bytes, to compare with spectators
        self.over = False

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
        if self.token is not None:
            await self.link.send(I.Leave(table=self.table, token=self.token))

    async def on_message(self, msg: Dict[str, Any], data: bytes) -> None:
        t = msg["type"]
        now = time.perf_counter()
        if t == "error":
            self.stats.error(self.link.name, f"error {msg.get('code')}: {msg.get('message')}")
            return
        if t == "seated":
            self.table, self.seat, self.token = msg["table"], msg["seat"], msg["token"]
            return
        if t not in STREAM or msg.get("table") != self.table:
            return
        gap = self.stream.check(msg)
        if gap:
            self.stats.gaps += 1
            self.stats.error(self.link.name, f"stream gap: {gap}")
        if t != "table_snapshot":
            self.seen[(self.table, msg["v"])] = data
        try:
            if t == "table_snapshot":
                if self.mirror is None:
                    self.mirror = Mirror(msg)
                    self.stats.games_started += self.seat == 0
                else:
                    self.mirror.apply(msg)
                    self.stats.resyncs += 1 if msg["v"] != self.mirror.v else 0
            elif self.mirror is not None:
                self.mirror.apply(msg)
        except MirrorError as exc:
            self.stats.error(self.link.name, str(exc))
            self.over = True
            return
        if t in ("stroke", "ruling"):
            mine = [s for s in msg.get("shots", [])] if t == "stroke" else [{"seat": msg["seat"], "seq": msg["seq"]}]
            for s in mine:
                if s.get("seat") == self.seat and s.get("seq") in self.sent:
                    t0 = self.sent.pop(s["seq"])
                    if not (t == "stroke" and len(msg["shots"]) == 2):
                        self.stats.latency_ms.append((now - t0) * 1000.0)
            if t == "stroke" and self.seat == 0:
                self.stats.strokes += 1
            if t == "ruling" and self.seat == 0 and msg["cause"] == "decision":
                self.stats.decisions += 1
        if "state" in msg:
            self.state, self.state_v = msg["state"], msg["v"]
        if "seats" in msg:
            self.seats_full = all(s is not None for s in msg["seats"])
        if self.state is None or self.mirror is None:
            return
        if self.state["over"]:
            self.over = True
            if self.seat == 0:
                self.stats.games_finished += 1
                self.stats.results.append({"table": self.table, "result": self.state["result"]})
            return
        await self.maybe_act()

    async def maybe_act(self) -> None:
        """Move once per position (the version of the last message with a ``state``), both seats taken."""
        st = self.state
        legal = st["legal"] or {}
        shoot = legal.get("shoot") or {}
        lag = bool(shoot.get("lag"))
        if not self.seats_full or (not lag and st["to_act"] != self.seat) or self.acted_v == self.state_v:
            return
        self.acted_v = self.state_v
        game = game_from_state(self.mirror.game.to_state())
        t0 = time.perf_counter()
        act = await asyncio.to_thread(self.player.choose, game, self.seat)
        self.stats.think_ms.append((time.perf_counter() - t0) * 1000.0)
        if self.think_s > 0:
            await asyncio.sleep(self.think_s * random.uniform(0.5, 1.5))
        self.seq += 1
        if act.kind == "decision":
            out = I.Decision(table=self.table, token=self.token, seq=self.seq, name=act.name, arg=act.arg)
        else:
            out = I.Shot(table=self.table, token=self.token, seq=self.seq, stroke=act.stroke(), call=act.call,
                         cue_ball=tuple(act.cue_ball) if act.cue_ball is not None else None)
        self.sent[self.seq] = time.perf_counter()
        await self.link.send(out)


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
