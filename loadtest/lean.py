"""The lean load generator: thousands of tables of two players and two spectators from asyncio processes.

The one load client of the capacity benchmarks (bench/capacity.py, bench/cluster_capacity.py)
and of tests/loadtest. Every message is built with protocol/inbound and read with
protocol.decode_server; nothing else is needed (no engine: the generator must stay light).

:class:`LeanTable`: two players (one creates a public three-cushion table to 10,000 points, so
no game ends, the other joins) and two spectators, each connection to a server of its own choice
(``urls``: creator, joiner, spectators; with several server processes the table's players and
spectators sit on different ones). The player to act plays one stroke every ``period_s`` seconds
(each table at its own phase; a player acts only on a new state, so never before its last stroke is answered):
a soft hit on the red (mostly a miss: the turn passes), a stroke at +x in the lag, the first
option of any decision. Measured into a :class:`Window` on the process's clock:

- shot-to-broadcast latency (ms): from sending a ``shot`` to the shooter receiving the
  ``stroke`` with its sequence number;
- spectator fan-out (ms): receive time minus the server's ``ts``;
- with ``track_arrivals``, each spectator's arrival time per (table, version), so that two
  spectators of one table on different server processes can be compared message by message;
- errors (``error`` messages, connections closed) and version gaps at a spectator.

A process can hold one connection per file descriptor (20,000 at most on this machine), so
:func:`run_steps` spreads the tables of a step over ``generators`` worker processes (``python
loadtest/lean.py --worker``, driven by JSON lines on their stdin and stdout) and merges what
they measured; it also pings the server on a connection of its own (the event loop's stalls) and
reads the server's CPU, memory and ``/metrics`` stage sums over each window.

Standalone, ``python loadtest/lean.py --port P --server-pid PID --steps 100,200 [--generators N]``
prints one JSON line per step (bench/capacity.py prints them as a table).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import random
import resource
import subprocess
import sys
import time
import urllib.request
from typing import Any, Dict, List, Optional, Sequence, Tuple

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

import protocol
from protocol import inbound as I
from server.metrics import SHOT_STAGES as STAGES

CONFIG = {"lag_mode": "random", "distance": 10000}  # a distance nobody reaches: every table plays on
CONNS_PER_GENERATOR = 12_000  # connections one worker process opens at most (fd limit 20,000; CPU)


class Window:
    """Measurements of the current window (reset at each step's start); ``on`` while measuring."""

    def __init__(self, track_arrivals: bool = False):
        self.track_arrivals = track_arrivals
        self.reset(False)

    def reset(self, on: bool) -> None:
        self.on = on
        self.latency: List[float] = []
        self.fanout: List[float] = []
        self.strokes = 0
        self.errors: List[str] = []
        self.gaps = 0
        self.arrivals: Dict[Tuple[str, int], Dict[str, float]] = {}  # (table, v) -> {spectator: perf_counter}


def percentile(vals: Sequence[float], q: float) -> float:
    """Nearest-rank ``q`` quantile (0..1) of ``vals``; 0.0 when empty."""
    if not vals:
        return 0.0
    s = sorted(vals)
    return s[max(0, min(len(s) - 1, math.ceil(q * len(s)) - 1))]


async def open_ws(url: str, name: str):
    """A connection to ``url`` that has said ``hello`` and got its ``welcome``. Raises ``RuntimeError`` otherwise."""
    ws = await connect(url, compression=None, max_size=None, ping_interval=None, open_timeout=60, close_timeout=2)
    await ws.send(protocol.encode_client(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=name, client="lean")))
    msg = protocol.decode_server(await asyncio.wait_for(ws.recv(), 60))
    if msg["type"] != "welcome":
        raise RuntimeError(f"no welcome: {msg}")
    return ws


class LeanTable:
    """Two players and two spectators of one table; the players' strokes are paced by ``period_s``.

    ``urls``: the creator's server, the joiner's, then one per spectator (a single URL: all on it).
    """

    def __init__(self, window: Window, urls: Sequence[str], index: int, period_s: float, spectators: int = 2):
        self.w, self.index, self.period_s = window, index, period_s
        urls = list(urls)
        self.urls = urls if len(urls) >= 2 + spectators else [urls[0]] * (2 + spectators)
        self.phase = random.uniform(0.0, period_s)
        self.table: Optional[str] = None
        self.tokens: Dict[int, str] = {}
        self.seq = {0: 0, 1: 0}
        self.sent: Dict[tuple, float] = {}
        self.state: Optional[Dict[str, Any]] = None
        self.state_v = -1
        self.acted_v = {0: -1, 1: -1}
        self.next_at = 0.0
        self.ws: List[Any] = []
        self.tasks: List[asyncio.Task] = []
        self.stop = False

    async def open(self) -> None:
        a = await open_ws(self.urls[0], f"p{self.index}a")
        self.ws.append(a)
        await a.send(protocol.encode_client(I.CreateTable(discipline="three_cushion", config=CONFIG, seat=0)))
        while self.table is None:
            msg = protocol.decode_server(await asyncio.wait_for(a.recv(), 60))
            if msg["type"] == "seated":
                self.table, self.tokens[0] = msg["table"], msg["token"]
            elif msg["type"] == "error":
                raise RuntimeError(f"create_table: {msg}")
        b = await open_ws(self.urls[1], f"p{self.index}b")
        self.ws.append(b)
        for k, url in enumerate(self.urls[2:]):
            s = await open_ws(url, f"s{self.index}.{k}")
            self.ws.append(s)
            await s.send(protocol.encode_client(I.Watch(table=self.table)))
        loop = asyncio.get_running_loop()
        self.next_at = loop.time() + self.phase
        self.tasks = [loop.create_task(self.player(a, 0)), loop.create_task(self.player(b, 1, join=True))]
        self.tasks += [loop.create_task(self.spectator(s, f"w{k}")) for k, s in enumerate(self.ws[2:])]

    async def player(self, ws, seat: int, join: bool = False) -> None:
        W = self.w
        if join:
            await ws.send(protocol.encode_client(I.Join(table=self.table, seat=1)))
        try:
            async for data in ws:
                now = time.perf_counter()
                msg = protocol.decode_server(data)
                t = msg["type"]
                if t == "seated":
                    self.tokens[seat] = msg["token"]
                    continue
                if t == "error":
                    if W.on:
                        W.errors.append(f"{msg.get('code')}: {msg.get('message')}")
                    continue
                if t in ("stroke", "ruling"):
                    shots = msg["shots"] if t == "stroke" else [{"seat": msg["seat"], "seq": msg["seq"]}]
                    for sh in shots:
                        k = (sh.get("seat"), sh.get("seq"))
                        if sh.get("seat") == seat and k in self.sent:
                            t0 = self.sent.pop(k)
                            if W.on and len(shots) == 1:
                                W.latency.append((now - t0) * 1000.0)
                    if t == "stroke" and seat == 0 and W.on:
                        W.strokes += 1
                if "state" in msg and msg.get("v", -1) > self.state_v:
                    self.state, self.state_v = msg["state"], msg["v"]
                await self.maybe_act(ws, seat)
        except ConnectionClosed:
            if not self.stop and W.on:
                W.errors.append(f"player {self.index}/{seat}: connection closed")

    async def maybe_act(self, ws, seat: int) -> None:
        st = self.state
        if st is None or st["over"] or len(self.tokens) < 2 or self.acted_v[seat] == self.state_v or self.stop:
            return
        legal = st["legal"] or {}
        shoot = legal.get("shoot") or {}
        lag = bool(shoot.get("lag"))
        if not lag and st["to_act"] != seat:
            return
        self.acted_v[seat] = self.state_v
        loop = asyncio.get_running_loop()
        wait = self.next_at - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        if not lag:
            self.next_at = max(self.next_at + self.period_s, loop.time())
        if self.stop:
            return
        self.seq[seat] += 1
        q = self.seq[seat]
        token = self.tokens[seat]
        if shoot:
            if lag:
                stroke = {"phi_deg": 0.0, "V0": 1.5, "a": 0.0, "b": 0.0, "theta_deg": 0.0}
            else:
                lay = st["layout"]
                cue, red = lay[str(shoot["cue_ball"])], lay["2"]
                phi = math.degrees(math.atan2(red[1] - cue[1], red[0] - cue[0])) % 360.0
                stroke = {"phi_deg": phi, "V0": 1.0, "a": 0.0, "b": 0.0, "theta_deg": 0.0}
            out = I.Shot(table=self.table, token=token, seq=q, stroke=stroke)
        else:
            d = legal["decisions"][0]
            arg = d["args"][0] if d["args"] else None
            if d["name"] == "CHOOSE_BREAKER":
                arg = seat
            out = I.Decision(table=self.table, token=token, seq=q, name=d["name"], arg=arg)
        self.sent[(seat, q)] = time.perf_counter()
        await ws.send(protocol.encode_client(out))

    async def spectator(self, ws, name: str) -> None:
        W = self.w
        last = None
        try:
            async for data in ws:
                now = time.time()
                msg = protocol.decode_server(data)
                if "v" not in msg or msg.get("table") != self.table:
                    continue
                if W.on:
                    W.fanout.append(max(0.0, (now - msg["ts"]) * 1000.0))
                    if msg["type"] != "table_snapshot" and last is not None and msg["v"] != last + 1:
                        W.gaps += 1
                    if W.track_arrivals:
                        W.arrivals.setdefault((self.table, msg["v"]), {})[name] = time.perf_counter()
                last = msg["v"]
        except ConnectionClosed:
            if not self.stop and W.on:
                W.errors.append(f"spectator {self.index}: connection closed")

    async def leave(self) -> None:
        """Both players give up their seats (the table then closes at once)."""
        self.stop = True
        for k in (0, 1):
            try:
                if k in self.tokens:
                    await self.ws[k].send(protocol.encode_client(I.Leave(table=self.table, token=self.tokens[k])))
            except Exception:
                pass

    async def close(self) -> None:
        for ws in self.ws:
            try:
                await ws.close()
            except Exception:
                pass
        for t in self.tasks:
            t.cancel()


async def open_tables(tables: List[LeanTable], concurrency: int = 100) -> Tuple[List[LeanTable], List[BaseException]]:
    """Open ``tables`` (``concurrency`` at a time); returns (the opened ones, the failures)."""
    sem = asyncio.Semaphore(concurrency)

    async def one(t: LeanTable) -> None:
        async with sem:
            await t.open()

    results = await asyncio.gather(*(one(t) for t in tables), return_exceptions=True)
    return [t for t, r in zip(tables, results) if not isinstance(r, BaseException)], [r for r in results if isinstance(r, BaseException)]


async def close_tables(tables: List[LeanTable]) -> None:
    """Every player leaves (the tables close), then every connection closes."""
    for t in tables:
        await t.leave()
    await asyncio.sleep(3.0)  # the leaves are played before the connections close
    await asyncio.gather(*(t.close() for t in tables))
    await asyncio.sleep(1.0)


async def probe(url: str, stop: asyncio.Event, out: List[float], period_s: float = 0.02) -> None:
    """Ping the server every ``period_s`` on a connection of its own and keep the round trips (ms): pings
    are answered by the session before anything else, so a slow pong is the server's event loop stalled."""
    ws = await open_ws(url, "probe")
    try:
        while not stop.is_set():
            t0 = time.perf_counter()
            await ws.send(protocol.encode_client(I.Ping(t=t0)))
            while protocol.decode_server(await ws.recv())["type"] != "pong":
                pass
            out.append((time.perf_counter() - t0) * 1000.0)
            await asyncio.sleep(period_s)
    finally:
        await ws.close()


def raise_fd_limit() -> int:
    """Raise this process's file-descriptor limit as far as allowed (inherited by children); returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(hard, 65536)
    try:  # root may raise the hard limit too (up to fs.nr_open), where the machine allows it
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[1]


def proc_stats(pid: int) -> Tuple[float, int]:
    """(CPU seconds, resident bytes) of process ``pid`` from /proc."""
    cpu, _ = proc_cpu(pid)
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))
    return cpu, rss


def proc_cpu(pid: int) -> Tuple[float, float]:
    """(user + system CPU seconds, system CPU seconds: the kernel's share, e.g. TCP sends) of ``pid``."""
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(parts[11]) + int(parts[12])) / tick, int(parts[12]) / tick


def stage_sums(port: int) -> Dict[str, float]:
    """Sums and counts of ``billar_shot_latency_seconds`` per stage from the server's ``/metrics``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        for s in STAGES:
            if line.startswith(f'billar_shot_latency_seconds_sum{{stage="{s}"}}'):
                out[s] = float(line.rsplit(" ", 1)[1])
            if line.startswith(f'billar_shot_latency_seconds_count{{stage="{s}"}}'):
                out[s + "_n"] = float(line.rsplit(" ", 1)[1])
    return out


# ----- worker processes ---------------------------------------------------------------------------
async def worker(args) -> None:
    """A worker: commands on stdin, one JSON line each, answered by one JSON line on stdout.

    ``{"cmd": "open", "upto": N}`` opens this worker's share of tables ``0..N-1`` (index modulo
    ``--shards`` equal to ``--shard``); ``{"cmd": "measure"}`` starts a window; ``{"cmd": "report"}``
    ends it and answers with what was measured (raw latencies, fan-out times, strokes, errors,
    gaps, the worker's CPU seconds); ``{"cmd": "leave"}`` closes every table and exits.
    """
    raise_fd_limit()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    W = Window()
    tables: List[LeanTable] = []
    opened_upto = 0
    cpu0 = 0.0

    def answer(obj: Dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    while True:
        line = await reader.readline()
        if not line:
            break
        cmd = json.loads(line)
        if cmd["cmd"] == "open":
            t0 = time.monotonic()
            new = [LeanTable(W, [args.url], i, args.period) for i in range(opened_upto, cmd["upto"])
                   if i % args.shards == args.shard]
            opened_upto = max(opened_upto, cmd["upto"])
            ok, failed = await open_tables(new, args.open_concurrency)
            tables += ok
            freeze_heap()
            answer({"opened": len(ok), "tables": len(tables), "failed": [repr(f) for f in failed[:3]],
                    "failures": len(failed), "open_s": time.monotonic() - t0})
        elif cmd["cmd"] == "measure":
            W.reset(True)
            cpu0 = time.process_time()
            answer({"ok": True})
        elif cmd["cmd"] == "report":
            W.on = False
            answer({"latency": W.latency, "fanout": W.fanout, "strokes": W.strokes, "errors": W.errors[:20],
                    "n_errors": len(W.errors), "gaps": W.gaps, "cpu_s": time.process_time() - cpu0})
        elif cmd["cmd"] == "leave":
            await close_tables(tables)
            answer({"left": len(tables)})
            break


class Generators:
    """``n`` worker processes (this script with ``--worker``) driven over pipes; ``cpus``: pin them (taskset)."""

    def __init__(self, n: int, url: str, period_s: float, cpus: Optional[Sequence[int]] = None, open_concurrency: int = 100):
        self.procs: List[subprocess.Popen] = []
        for k in range(n):
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--url", url, "--shard", str(k), "--shards", str(n),
                   "--period", str(period_s), "--open-concurrency", str(open_concurrency)]
            if cpus:
                cmd = ["taskset", "-c", ",".join(map(str, cpus))] + cmd
            self.procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1))

    async def ask(self, cmd: Dict[str, Any]) -> List[Dict[str, Any]]:
        """Send ``cmd`` to every worker and gather their answers (in worker order)."""
        line = json.dumps(cmd) + "\n"
        for p in self.procs:
            p.stdin.write(line)
            p.stdin.flush()

        def read(p: subprocess.Popen) -> Dict[str, Any]:
            out = p.stdout.readline()
            if not out:
                raise RuntimeError(f"load generator worker exited with {p.wait()}")
            return json.loads(out)

        return list(await asyncio.gather(*(asyncio.to_thread(read, p) for p in self.procs)))

    def pids(self) -> List[int]:
        return [p.pid for p in self.procs]

    def close(self) -> None:
        for p in self.procs:
            try:
                p.stdin.close()
            except OSError:
                pass
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()


def generators_for(tables: int) -> int:
    """Worker processes needed for ``tables`` tables (4 connections each), at most CONNS_PER_GENERATOR each."""
    return max(1, -(-4 * tables // CONNS_PER_GENERATOR))


async def run_steps(args) -> None:
    """Step up the tables (``args.steps``), print one JSON line per step; stop at the first step over
    ``args.p99_limit_ms`` or with errors."""
    raise_fd_limit()
    n = args.generators or generators_for(max(args.steps))
    url = f"ws://127.0.0.1:{args.port}/ws"
    gens = Generators(n, url, args.period, open_concurrency=args.open_concurrency)
    try:
        for step in args.steps:
            t_open = time.monotonic()
            opened = await gens.ask({"cmd": "open", "upto": step})
            open_s = time.monotonic() - t_open
            tables = sum(o["tables"] for o in opened)
            failures = sum(o["failures"] for o in opened)
            await asyncio.sleep(args.warmup)
            cpu0, _ = proc_stats(args.server_pid)
            sys0 = proc_cpu(args.server_pid)[1]
            red0 = sum(proc_stats(p)[0] for p in args.redis_pids)
            st0 = stage_sums(args.port)
            await gens.ask({"cmd": "measure"})
            t0 = time.monotonic()
            pings: List[float] = []
            stop = asyncio.Event()
            prober = asyncio.get_running_loop().create_task(probe(url, stop, pings))
            spy = None
            if args.profile_dir:
                spy = await asyncio.create_subprocess_exec(
                    os.path.join(os.path.dirname(sys.executable), "py-spy"), "record", "--pid", str(args.server_pid),
                    "--duration", str(int(args.hold)), "--format", "raw", "--nonblocking", "--output",
                    os.path.join(args.profile_dir, f"profile-{tables}.txt"),
                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
            await asyncio.sleep(args.hold)
            reports = await gens.ask({"cmd": "report"})
            wall = time.monotonic() - t0
            stop.set()
            await asyncio.gather(prober, return_exceptions=True)
            if spy is not None:
                await spy.wait()
            cpu1, rss = proc_stats(args.server_pid)
            sys1 = proc_cpu(args.server_pid)[1]
            redis_cpu = (sum(proc_stats(p)[0] for p in args.redis_pids) - red0) / wall
            st1 = stage_sums(args.port)
            latency = [x for r in reports for x in r["latency"]]
            fanout = [x for r in reports for x in r["fanout"]]
            strokes = sum(r["strokes"] for r in reports)
            errors = [e for r in reports for e in r["errors"]]
            n_errors = sum(r["n_errors"] for r in reports) + failures
            stage_ms = {}
            for s in STAGES:
                dn = st1.get(s + "_n", 0.0) - st0.get(s + "_n", 0.0)
                stage_ms[s] = 1000.0 * (st1.get(s, 0.0) - st0.get(s, 0.0)) / dn if dn else 0.0
            row = {
                "tables": tables, "connections": 4 * tables, "generators": n, "open_failures": failures,
                "open_s": round(open_s, 1), "strokes": strokes, "strokes_per_s": strokes / wall,
                "p50_ms": percentile(latency, 0.5), "p99_ms": percentile(latency, 0.99), "max_ms": max(latency, default=0.0),
                "fanout_p99_ms": percentile(fanout, 0.99), "loop_p99_ms": percentile(pings, 0.99),
                "loop_max_ms": max(pings, default=0.0), "errors": n_errors, "gaps": sum(r["gaps"] for r in reports),
                "server_cpu": (cpu1 - cpu0) / wall, "generator_cpu": sum(r["cpu_s"] for r in reports) / wall,
                "redis_cpu": redis_cpu, "server_rss_mb": rss / 2**20, "server_kb_per_conn": rss / 1024 / max(1, 4 * tables),
                "cpu_ms_per_stroke": 1000.0 * (cpu1 - cpu0) / strokes if strokes else 0.0,
                "sys_ms_per_stroke": 1000.0 * (sys1 - sys0) / strokes if strokes else 0.0,
                "stage_ms": stage_ms, "first_errors": (errors + [f for o in opened for f in o["failed"]])[:3],
                "loadavg": open("/proc/loadavg").read().split()[0],
            }
            print(json.dumps(row), flush=True)
            if row["p99_ms"] > args.p99_limit_ms or row["errors"]:
                break
        await gens.ask({"cmd": "leave"})
    finally:
        gens.close()


def rare_collections() -> None:
    """Make garbage collections rare in a generator process: it must not measure its own pauses (with
    thousands of connections a full collection takes tens of milliseconds; the process is short-lived)."""
    gc.set_threshold(200_000, 100, 1000)


def freeze_heap() -> None:
    """After opening connections: collect once, then keep what exists (the connections' objects, which
    stay) out of every later collection."""
    gc.collect()
    gc.freeze()


def main() -> int:
    rare_collections()
    ap = argparse.ArgumentParser(description="lean asyncio load generator (bench/capacity.py)")
    ap.add_argument("--port", type=int)
    ap.add_argument("--server-pid", type=int)
    ap.add_argument("--steps", type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--period", type=float, default=5.0)
    ap.add_argument("--warmup", type=float, default=10.0)
    ap.add_argument("--hold", type=float, default=30.0)
    ap.add_argument("--p99-limit-ms", type=float, default=50.0)
    ap.add_argument("--open-concurrency", type=int, default=100)
    ap.add_argument("--generators", type=int, default=0,
                    help=f"worker processes holding the connections (0: one per {CONNS_PER_GENERATOR} connections)")
    ap.add_argument("--redis-pids", type=lambda s: [int(x) for x in s.split(",") if x], default=[],
                    help="processes whose CPU share is reported as Redis's")
    ap.add_argument("--profile-dir", default=None, help="py-spy the server during each step's window into this folder")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    ap.add_argument("--shard", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--shards", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        asyncio.run(worker(args))
        return 0
    if args.port is None or args.server_pid is None or not args.steps:
        ap.error("--port, --server-pid and --steps are required")
    asyncio.run(run_steps(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
