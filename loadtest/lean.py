"""The lean load generator of the capacity benchmark: thousands of tables from one asyncio process.

Run by bench/capacity.py in its own process (pinned to a core of its own). Per table: two
players (one creates a public three-cushion table, the other joins) and two spectators; the
player to act plays one stroke every ``period_s`` seconds (each table at its own phase): a soft
hit on the red (a miss: the turn passes, the game goes on), a stroke at +x in the lag, the first
option of any decision. Every message is built with protocol/inbound and read with
protocol.decode_server; nothing else is needed (no engine: the generator must stay light).

For each step (a number of tables) it opens the new tables, lets them warm up, then measures
for ``hold_s`` seconds and prints one JSON line: tables, connections, strokes, strokes per
second, shot-to-broadcast percentiles (ms, at the shooter), spectator fan-out percentiles (ms,
receive time minus the server's ``ts``), errors, version gaps, and the server's CPU seconds,
resident memory and ``/metrics`` stage sums over the window (it reads /proc/<pid> of the server).
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
import sys
import time
import urllib.request
from typing import Any, Dict, List, Optional

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

import protocol
from protocol import inbound as I

STAGES = ("simulate", "referee", "persist", "broadcast")


class Window:
    """Measurements of the current window (reset at each step's start)."""

    def __init__(self):
        self.reset(False)

    def reset(self, on: bool) -> None:
        self.on = on
        self.latency: List[float] = []
        self.fanout: List[float] = []
        self.strokes = 0
        self.errors: List[str] = []
        self.gaps = 0


W = Window()


def pct(vals: List[float], q: float) -> float:
    if not vals:
        return 0.0
    s = sorted(vals)
    return s[max(0, min(len(s) - 1, math.ceil(q * len(s)) - 1))]


async def open_ws(port: int, name: str):
    ws = await connect(f"ws://127.0.0.1:{port}/ws", compression=None, max_size=None, ping_interval=None, open_timeout=60,
                       close_timeout=2)
    await ws.send(protocol.encode_client(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=name, client="lean")))
    msg = protocol.decode_server(await asyncio.wait_for(ws.recv(), 60))
    if msg["type"] != "welcome":
        raise RuntimeError(f"no welcome: {msg}")
    return ws


class LeanTable:
    """Two players and two spectators of one table; the players' strokes are paced by ``period_s``."""

    def __init__(self, port: int, index: int, period_s: float):
        self.port, self.index, self.period_s = port, index, period_s
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
        a = await open_ws(self.port, f"p{self.index}a")
        self.ws.append(a)
        await a.send(protocol.encode_client(I.CreateTable(discipline="three_cushion", config={"lag_mode": "random"}, seat=0)))
        while self.table is None:
            msg = protocol.decode_server(await asyncio.wait_for(a.recv(), 60))
            if msg["type"] == "seated":
                self.table, self.tokens[0] = msg["table"], msg["token"]
            elif msg["type"] == "error":
                raise RuntimeError(f"create_table: {msg}")
        b = await open_ws(self.port, f"p{self.index}b")
        self.ws.append(b)
        for k in range(2):
            s = await open_ws(self.port, f"s{self.index}.{k}")
            self.ws.append(s)
            await s.send(protocol.encode_client(I.Watch(table=self.table)))
        loop = asyncio.get_running_loop()
        self.next_at = loop.time() + self.phase
        self.tasks = [loop.create_task(self.player(a, 0)), loop.create_task(self.player(b, 1, join=True)),
                      loop.create_task(self.spectator(self.ws[2])), loop.create_task(self.spectator(self.ws[3]))]

    async def player(self, ws, seat: int, join: bool = False) -> None:
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
                if self.state is not None and "seats" in msg:
                    pass
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

    async def spectator(self, ws) -> None:
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


async def probe(port: int, stop: asyncio.Event, out: List[float], period_s: float = 0.02) -> None:
    """Ping the server every ``period_s`` on a connection of its own and keep the round trips (ms): pings
    are answered by the session before anything else, so a slow pong is the server's event loop stalled."""
    ws = await open_ws(port, "probe")
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


def proc_stats(pid: int):
    """(CPU seconds, resident bytes) of process ``pid`` from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    tick = 100.0
    cpu = (int(parts[11]) + int(parts[12])) / tick
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))
    return cpu, rss


def stage_sums(port: int) -> Dict[str, float]:
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


async def run(args) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(hard, 65536)
    try:  # root may raise the hard limit too (up to fs.nr_open)
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    tables: List[LeanTable] = []
    sem = asyncio.Semaphore(args.open_concurrency)

    async def open_one(t: LeanTable) -> None:
        async with sem:
            await t.open()

    for n in args.steps:
        t_open = time.monotonic()
        new = [LeanTable(args.port, i, args.period) for i in range(len(tables), n)]
        results = await asyncio.gather(*(open_one(t) for t in new), return_exceptions=True)
        failed = [r for r in results if isinstance(r, Exception)]
        tables += [t for t, r in zip(new, results) if not isinstance(r, Exception)]
        open_s = time.monotonic() - t_open
        gc.collect()
        gc.freeze()  # the connections' objects stay: keep them out of later collections
        await asyncio.sleep(args.warmup)
        cpu0, _ = proc_stats(args.server_pid)
        gen0 = time.process_time()
        red0 = sum(proc_stats(p)[0] for p in args.redis_pids)
        st0 = stage_sums(args.port)
        W.reset(True)
        t0 = time.monotonic()
        pings: List[float] = []
        stop = asyncio.Event()
        prober = asyncio.get_running_loop().create_task(probe(args.port, stop, pings))
        spy = None
        if args.profile_dir:
            spy = await asyncio.create_subprocess_exec(
                os.path.join(os.path.dirname(sys.executable), "py-spy"), "record", "--pid", str(args.server_pid),
                "--duration", str(int(args.hold)), "--format", "raw", "--nonblocking", "--output",
                os.path.join(args.profile_dir, f"profile-{len(tables)}.txt"),
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        await asyncio.sleep(args.hold)
        wall = time.monotonic() - t0
        W.on = False
        stop.set()
        await asyncio.gather(prober, return_exceptions=True)
        if spy is not None:
            await spy.wait()
        cpu1, rss = proc_stats(args.server_pid)
        gen_cpu = (time.process_time() - gen0) / wall
        redis_cpu = (sum(proc_stats(p)[0] for p in args.redis_pids) - red0) / wall
        st1 = stage_sums(args.port)
        strokes = W.strokes
        stage_ms = {}
        for s in STAGES:
            dn = st1.get(s + "_n", 0.0) - st0.get(s + "_n", 0.0)
            stage_ms[s] = 1000.0 * (st1.get(s, 0.0) - st0.get(s, 0.0)) / dn if dn else 0.0
        row = {
            "tables": len(tables), "connections": 4 * len(tables), "open_failures": len(failed), "open_s": round(open_s, 1),
            "strokes": strokes, "strokes_per_s": strokes / wall,
            "p50_ms": pct(W.latency, 0.5), "p99_ms": pct(W.latency, 0.99), "max_ms": max(W.latency, default=0.0),
            "fanout_p99_ms": pct(W.fanout, 0.99), "loop_p99_ms": pct(pings, 0.99), "loop_max_ms": max(pings, default=0.0), "errors": len(W.errors) + len(failed), "gaps": W.gaps,
            "server_cpu": (cpu1 - cpu0) / wall, "generator_cpu": gen_cpu, "redis_cpu": redis_cpu, "server_rss_mb": rss / 2**20,
            "server_kb_per_conn": rss / 1024 / max(1, 4 * len(tables)),
            "cpu_ms_per_stroke": 1000.0 * (cpu1 - cpu0) / strokes if strokes else 0.0,
            "stage_ms": stage_ms, "first_errors": (W.errors + [repr(f) for f in failed])[:3],
        }
        print(json.dumps(row), flush=True)
        if row["p99_ms"] > args.p99_limit_ms or row["errors"] or failed:
            break
    for t in tables:
        await t.leave()
    await asyncio.sleep(3.0)  # the leaves are played before the connections close
    await asyncio.gather(*(t.close() for t in tables))
    await asyncio.sleep(1.0)


def main() -> int:
    # the generator must not measure its own pauses: with thousands of connections a full garbage
    # collection takes tens of milliseconds, so collections are made rare (the process is short-lived)
    gc.set_threshold(200_000, 100, 1000)
    ap = argparse.ArgumentParser(description="lean asyncio load generator (bench/capacity.py)")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--server-pid", type=int, required=True)
    ap.add_argument("--steps", type=lambda s: [int(x) for x in s.split(",")], required=True)
    ap.add_argument("--period", type=float, default=5.0)
    ap.add_argument("--warmup", type=float, default=10.0)
    ap.add_argument("--hold", type=float, default=30.0)
    ap.add_argument("--p99-limit-ms", type=float, default=50.0)
    ap.add_argument("--open-concurrency", type=int, default=100)
    ap.add_argument("--redis-pids", type=lambda s: [int(x) for x in s.split(",") if x], default=[],
                    help="processes whose CPU share is reported as Redis's")
    ap.add_argument("--profile-dir", default=None, help="py-spy the server during each step's window into this folder")
    args = ap.parse_args()
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
