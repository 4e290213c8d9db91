"""Helpers of the scale-out tests: server processes (nodes) on loopback around one Redis, and a game driver.

A :class:`Node` is a real ``billar serve --cluster`` subprocess with its own port, sharing the
test's Redis and key prefix. Clients are the scripted protocol client of tests/server/harness.py.
:class:`Match` plays a carom game through the protocol, choosing strokes with the bots' carom
search on a :class:`bots.mirror.Mirror` of the stream (the test cannot look inside a server
process), and checks at every stroke that every client got the same bytes at the same version.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

from bots.mirror import Mirror
from harness import Client
from protocol import inbound as I
from server.metrics import parse_text
from test_server_games import plan_carom, stroke_of

from bots import carom_search as C

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    """Copy ``src`` into ``dst`` until either side ends, then close ``dst`` (one direction of a TCP proxy)."""
    try:
        while data := await src.read(65536):
            dst.write(data)
            await dst.drain()
    except (OSError, asyncio.CancelledError):
        pass
    finally:
        dst.close()


def schema_of(prefix: str) -> str:
    """The PostgreSQL schema of the test that uses key ``prefix``."""
    return "t_" + "".join(ch if ch.isalnum() else "_" for ch in prefix.strip(":")).lower()


class Node:
    """One server process of the cluster (``billar serve --cluster --port 0``)."""

    def __init__(self, redis_url: str, prefix: str, name: str, env: Optional[Dict[str, str]] = None,
                 args: Optional[List[str]] = None):
        self.redis_url, self.prefix, self.name = redis_url, prefix, name
        self.env = env or {}  # more environment variables (they override the defaults below: BILLAR_CLUSTER="0" ...)
        self.args = list(args or [])  # more ``billar serve`` options (``--grace 2`` ...)
        self.proc: Optional[subprocess.Popen] = None
        self.port = 0
        self.stderr_path = ""
        self.paused = False

    async def start(self, tmp: str, port: int = 0) -> "Node":
        """Start the process (``port``: 0 picks a free one; a restart may ask for the port it had)."""
        env = dict(os.environ, REDIS_URL=self.redis_url, BILLAR_KEY_PREFIX=self.prefix, BILLAR_CLUSTER="1",
                   BILLAR_LOG_LEVEL="WARNING")
        # one database for the nodes of a test: a schema of its own on DATABASE_URL's PostgreSQL (dropped with the
        # test's keys), else a SQLite file in the test's folder
        if os.environ.get("DATABASE_URL"):
            env["BILLAR_DATABASE_SCHEMA"] = schema_of(self.prefix)
        else:
            env["DATABASE_URL"] = f"sqlite+aiosqlite:///{os.path.join(tmp, 'billar-' + self.prefix.strip(':') + '.db')}"
        env.update(self.env)
        self.stderr_path = os.path.join(tmp, f"{self.name}.err")
        err = open(self.stderr_path, "a")
        self.paused = False
        self.proc = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--port", str(port)] + self.args,
                                     cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=err, text=True)
        err.close()
        line = await asyncio.wait_for(asyncio.to_thread(self.proc.stdout.readline), 60)
        m = re.search(r":(\d+) ", line)
        assert m, f"{self.name} did not start: {line!r} {self.stderr()}"
        self.port = int(m.group(1))
        return self

    def stderr(self) -> str:
        with open(self.stderr_path) as fh:
            return fh.read()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: nothing is flushed, released or said."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def term(self) -> None:
        self.proc.send_signal(signal.SIGTERM)

    def pause(self) -> None:
        """SIGSTOP: the process stands still (its sockets stay open, nothing is read, its leases run out)."""
        self.proc.send_signal(signal.SIGSTOP)
        self.paused = True

    def cont(self) -> None:
        """SIGCONT: a paused process goes on from where it stood."""
        self.proc.send_signal(signal.SIGCONT)
        self.paused = False

    async def wait(self, timeout: float = 40.0) -> int:
        return await asyncio.to_thread(self.proc.wait, timeout)

    def _get(self, path: str) -> bytes:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as r:
            return r.read()

    async def health(self) -> Dict[str, Any]:
        return json.loads(await asyncio.to_thread(self._get, "/healthz"))

    async def metrics(self) -> Dict[str, float]:
        return parse_text((await asyncio.to_thread(self._get, "/metrics")).decode())

    async def client(self, name: str) -> Client:
        return await Client.open(self, name)


async def start_nodes(redis_url: str, prefix: str, tmp: str, names: List[str]) -> List[Node]:
    return list(await asyncio.gather(*(Node(redis_url, prefix, n).start(tmp) for n in names)))


def stop_nodes(nodes: List[Node]) -> None:
    for n in nodes:
        if n.alive():
            if n.paused:
                n.cont()
            n.proc.send_signal(signal.SIGTERM)
    for n in nodes:
        if n.proc is not None:
            try:
                n.proc.wait(30)
            except subprocess.TimeoutExpired:
                n.proc.kill()
                n.proc.wait()


async def next_stream(c: Client, timeout: float = 20.0) -> Dict[str, Any]:
    """The next message of ``c`` that is not a private ``seated`` / ``table_snapshot``."""
    while True:
        m = await c.recv(timeout)
        if m["type"] not in ("seated", "table_snapshot"):
            return m


def plan_miss(game):
    """A soft stroke at the red (a miss, nearly always): for tests that need strokes, not points."""
    return None, None, stroke_of(C.safe_stroke(game))


class Match:
    """A carom game driven through the protocol: ``seats`` = {seat: [client, token]}, ``watchers``: more clients
    that must see every stream message (spectators and players alike), ``mirror`` from the start snapshot."""

    def __init__(self, tid: str, seats: Dict[int, List[Any]], watchers: List[Client], snapshot: Dict[str, Any],
                 plan=plan_carom):
        self.tid, self.seats, self.watchers, self.plan = tid, seats, watchers, plan
        self.mirror = Mirror(snapshot)
        self.v = snapshot["v"]
        self.seq = {0: 0, 1: 0}
        self.state = snapshot["state"]
        self.stream: List[bytes] = []  # every stream message, in order (the first watcher's bytes)
        self.strokes = 0

    def everyone(self) -> List[Client]:
        out = [c for c, _ in self.seats.values()]
        return out + [w for w in self.watchers if w not in out]

    def action(self) -> List[Tuple[int, I.Inbound]]:
        """The next move(s): (seat, message) chosen on the mirror (both seats for a lag)."""
        game, legal = self.mirror.game, self.state["legal"]
        if legal["shoot"] and legal["shoot"]["lag"]:
            lag = C.lag_shots(game)
            out = []
            for seat in (0, 1):
                st = stroke_of(lag[seat])
                st["V0"] += 0.05 * seat
                self.seq[seat] += 1
                out.append((seat, I.Shot(table=self.tid, token=self.seats[seat][1], seq=self.seq[seat], stroke=st)))
            return out
        seat = self.state["to_act"]
        self.seq[seat] += 1
        if legal["shoot"]:
            call, cue, st = self.plan(game)
            return [(seat, I.Shot(table=self.tid, token=self.seats[seat][1], seq=self.seq[seat], stroke=st))]
        d = legal["decisions"][0]
        return [(seat, I.Decision(table=self.tid, token=self.seats[seat][1], seq=self.seq[seat], name=d["name"],
                                  arg=d["args"][0] if d["args"] else None))]

    async def play(self, moves: List[Tuple[int, I.Inbound]]) -> Dict[str, Any]:
        for seat, msg in moves:
            await self.seats[seat][0].send(msg)
        return await self.receive()

    async def receive(self, timeout: float = 20.0) -> Dict[str, Any]:
        """The next stream message, identical bytes at every client; applied to the mirror. A private
        ``seated`` or ``table_snapshot`` (a seat re-established after the table moved) is skipped."""
        first = None
        for c in self.everyone():
            m = await next_stream(c, timeout)
            if first is None:
                first = m
                self.stream.append(c.raw[-1])
            else:
                assert c.raw[-1] == self.stream[-1], f"{c.name} got other bytes at v{m.get('v')}: {m}"
        assert first.get("v") == self.v + 1, f"expected v{self.v + 1}, got {first}"
        self.v = first["v"]
        if first["type"] in ("stroke", "ruling"):
            self.mirror.apply(first)
            self.state = first["state"]
            self.strokes += first["type"] == "stroke"
        return first

    async def step(self) -> Dict[str, Any]:
        m = await self.play(self.action())
        while m["type"] not in ("stroke", "ruling"):
            m = await self.receive()
        return m
