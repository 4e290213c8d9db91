"""A lean asyncio load client on protocol/: tables of two players and spectators, paced strokes, timings.

Reusable by any capacity benchmark (bench/cluster_capacity.py uses it). One process, one event
loop, one ``websockets`` connection per simulated user; every message is built with
:mod:`protocol.inbound` and read with :func:`protocol.decode_server` (a stream message is decoded
only as far as needed: its type, version, timestamps and shots).

A :class:`LoadTable` is a three-cushion table (a distance nobody reaches) whose player to act sends
one stroke (a random aim at 2 m/s) every ``period_s`` seconds (jittered). Measured, on the
client's clock (``time.perf_counter``, one clock for every connection of the process):

- shot-to-broadcast latency: from sending a ``shot`` to the shooter receiving the ``stroke`` with
  its sequence number (ms);
- spectator arrival times per (table, version), so that two spectators of the same table on
  different server processes can be compared message by message.

Errors counted: ``error`` messages, closed connections, version gaps at a spectator.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

import protocol
from protocol import inbound as I

CONFIG = {"distance": 10000, "breaker": 0}


def percentile(values: List[float], q: float) -> float:
    """Nearest-rank ``q`` quantile (0..1) of ``values``; 0.0 when empty."""
    if not values:
        return 0.0
    s = sorted(values)
    return s[max(0, min(len(s) - 1, int(round(q * len(s) + 0.5)) - 1))]


@dataclass
class Stats:
    latency_ms: List[float] = field(default_factory=list)
    strokes: int = 0
    errors: List[str] = field(default_factory=list)
    arrivals: Dict[Tuple[str, int], Dict[str, float]] = field(default_factory=dict)  # (table, v) -> {watcher: t}

    def reset(self) -> None:
        self.latency_ms, self.strokes, self.errors, self.arrivals = [], 0, [], {}


class Conn:
    """One WebSocket connection: ``hello`` on :meth:`open`; a reader task hands each message to ``on_message``."""

    def __init__(self, ws, name: str, stats: Stats):
        self.ws, self.name, self.stats = ws, name, stats
        self.on_message = None
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.reader: Optional[asyncio.Task] = None

    @classmethod
    async def open(cls, url: str, name: str, stats: Stats) -> "Conn":
        ws = await connect(url, compression=None, max_size=None, ping_interval=None, open_timeout=30)
        c = cls(ws, name, stats)
        await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=name))
        await c.expect("welcome")
        c.reader = asyncio.get_running_loop().create_task(c._read())
        return c

    async def send(self, msg: I.Inbound) -> None:
        await self.ws.send(protocol.encode_client(msg))

    async def expect(self, type_: str, timeout: float = 30.0) -> Dict[str, Any]:
        while True:
            if self.reader is None:
                m = protocol.decode_server(await asyncio.wait_for(self.ws.recv(), timeout))
            else:
                m = await asyncio.wait_for(self.inbox.get(), timeout)
            if m["type"] == type_:
                return m
            if m["type"] == "error":
                raise RuntimeError(f"{self.name}: {m}")

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                t = time.perf_counter()
                m = protocol.decode_server(data)
                if self.on_message is None or not self.on_message(m, t):
                    self.inbox.put_nowait(m)
        except ConnectionClosed as exc:
            if exc.rcvd is None or exc.rcvd.code not in (1000, 1001, 1012):
                self.stats.errors.append(f"{self.name}: closed {exc.rcvd.code if exc.rcvd else 'abruptly'}")

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()


class LoadTable:
    """A table: ``urls`` = (creator's server, joiner's server, spectators' servers...)."""

    def __init__(self, stats: Stats, urls: List[str], period_s: float, rng: random.Random):
        self.stats, self.urls, self.period_s, self.rng = stats, urls, period_s, rng
        self.tid = ""
        self.players: List[Conn] = []
        self.tokens: List[str] = []
        self.watchers: List[Conn] = []
        self.to_act: Optional[int] = 0
        self.seq = [0, 0]
        self.sent: Dict[Tuple[int, int], float] = {}
        self.legal: Optional[Dict[str, Any]] = None
        self.task: Optional[asyncio.Task] = None
        self.running = False

    async def setup(self) -> None:
        a = await Conn.open(self.urls[0], "pa", self.stats)
        b = await Conn.open(self.urls[1], "pb", self.stats)
        await a.send(I.CreateTable(discipline="three_cushion", config=CONFIG))
        sa = await a.expect("seated")
        self.tid = sa["table"]
        await a.expect("table_snapshot")
        await b.send(I.Join(table=self.tid))
        sb = await b.expect("seated")
        await b.expect("table_snapshot")
        self.players, self.tokens = [a, b], [sa["token"], sb["token"]]
        for i, url in enumerate(self.urls[2:]):
            w = await Conn.open(url, f"w{i}", self.stats)
            await w.send(I.Watch(table=self.tid))
            await w.expect("table_snapshot")
            w.on_message = self._watcher_handler(f"w{i}")
            self.watchers.append(w)
        for seat, p in enumerate(self.players):
            p.on_message = self._player_handler(seat)

    def _player_handler(self, seat: int):
        def handle(m: Dict[str, Any], t: float) -> bool:
            typ = m["type"]
            if typ == "error":
                self.stats.errors.append(f"{self.tid} seat {seat}: {m.get('code')} {m.get('message')}")
                return True
            if typ == "seated":
                self.tokens[seat] = m["token"]
                return True
            if typ in ("stroke", "ruling"):
                self.to_act = m["state"]["to_act"]
                self.legal = m["state"]["legal"]
                for s in m.get("shots", ()):
                    if s["seat"] != seat:
                        continue
                    t0 = self.sent.pop((seat, s["seq"]), None)
                    if t0 is not None:
                        self.stats.latency_ms.append((t - t0) * 1000.0)
                        self.stats.strokes += 1
                return True
            return typ in ("seats", "spectators", "chat", "table_snapshot")
        return handle

    def _watcher_handler(self, name: str):
        def handle(m: Dict[str, Any], t: float) -> bool:
            v = m.get("v")
            if v is not None and m.get("table") == self.tid:
                self.stats.arrivals.setdefault((self.tid, v), {})[name] = t
            return True
        return handle

    async def play(self) -> None:
        """Until :attr:`running` is cleared: the player to act strokes every ``period_s`` (jittered)."""
        await asyncio.sleep(self.rng.uniform(0, self.period_s))
        while self.running:
            seat = self.to_act
            legal = self.legal
            if seat is not None and self.tokens[seat] and not self.sent:  # (a player waits for its last stroke)
                self.seq[seat] += 1
                if legal is not None and not legal.get("shoot"):
                    d = legal["decisions"][0]
                    msg: I.Inbound = I.Decision(table=self.tid, token=self.tokens[seat], seq=self.seq[seat], name=d["name"],
                                                arg=d["args"][0] if d["args"] else None)
                else:
                    stroke = {"phi_deg": self.rng.uniform(-180.0, 180.0), "V0": 2.0, "a": 0.0, "b": 0.0, "theta_deg": 0.0}
                    msg = I.Shot(table=self.tid, token=self.tokens[seat], seq=self.seq[seat], stroke=stroke)
                    self.sent[(seat, self.seq[seat])] = time.perf_counter()
                try:
                    await self.players[seat].send(msg)
                except ConnectionClosed:
                    self.stats.errors.append(f"{self.tid}: player connection closed")
                    return
            await asyncio.sleep(self.period_s * self.rng.uniform(0.8, 1.2))

    def start(self) -> None:
        self.running = True
        self.task = asyncio.get_running_loop().create_task(self.play())

    async def stop(self) -> None:
        self.running = False
        if self.task is not None:
            await asyncio.gather(self.task, return_exceptions=True)

    async def close(self) -> None:
        await self.stop()
        for w in self.watchers:
            try:
                await w.send(I.Leave(table=self.tid))
            except ConnectionClosed:
                pass
        for seat, p in enumerate(self.players):
            try:
                if self.tokens[seat]:
                    await p.send(I.Leave(table=self.tid, token=self.tokens[seat]))
            except ConnectionClosed:
                pass
        await asyncio.sleep(0.05)
        for c in self.players + self.watchers:
            await c.close()
