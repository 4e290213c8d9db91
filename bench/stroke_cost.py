"""Server CPU per stroke, this checkout side by side with another one (an earlier revision), in one run.

    .venv/bin/python bench/stroke_cost.py --baseline /path/to/other/checkout [--tables 1000] [--hold 20]
                                          [--rounds 2] [--profile]

Each round runs bench/capacity.py once per server (this checkout, then the baseline, with the
same load: ``--tables`` three-cushion tables, 2 players and 2 spectators each, a stroke per
table every 5 s, a private Redis and the load generator on core 1, the server alone on core 0).
From each run it takes the server's CPU time per stroke (``ms/str``, the server process's
user+system time over the measured window divided by the strokes in it) and the per-stage means
of ``billar_shot_latency_seconds``; "rest" is the CPU per stroke minus the physics and the
referee (everything else: decoding, validation, the actor, encoding, Redis client work, the
lobby, metrics, the broadcast, asyncio). Prints one row per run, then the medians per server and
their ratio. ``--profile`` adds the py-spy summary of this checkout's last run.

The baseline checkout must have its own ``.venv`` built (``make build`` there), e.g.
``git worktree add /tmp/base <commit> && make -C /tmp/base build``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_once(root, tables, hold, warmup, profile):
    out = tempfile.mktemp(suffix=".json", prefix="stroke-cost-")
    cmd = [sys.executable, os.path.join(ROOT, "bench", "capacity.py"), "--steps", str(tables), "--hold", str(hold),
           "--warmup", str(warmup), "--private-redis", "--json", out]
    if root is not None:
        cmd += ["--server-root", root]
    if profile:
        cmd.append("--profile")
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=hold * 4 + 300)
    rows = []
    if os.path.exists(out):
        with open(out) as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
        os.unlink(out)
    if not rows:
        raise RuntimeError(f"capacity run failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    lines = p.stdout.splitlines()
    prof = []
    if profile:
        start = next((i for i, l in enumerate(lines) if l.startswith("profile of the server")), None)
        if start is not None:
            prof = lines[start:]
    return rows[-1], prof


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="another checkout (with its .venv built)")
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--hold", type=float, default=20.0)
    ap.add_argument("--warmup", type=float, default=8.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    base = os.path.abspath(args.baseline)
    rev = lambda r: subprocess.run(["git", "-C", r, "rev-parse", "--short", "HEAD"], capture_output=True,  # noqa: E731
                                   text=True).stdout.strip()
    print(f"this checkout {rev(ROOT)} (dirty files count as this checkout), baseline {rev(base)} at {base}; "
          f"{args.tables} tables, {args.tables * 4} connections, hold {args.hold:.0f} s, {args.rounds} rounds", flush=True)
    head = (f"{'server':>8} {'round':>5} {'str/s':>6} {'p50':>6} {'p99':>6} {'cpu':>5} {'ms/str':>7} {'kernel':>6} | "
            f"{'sim':>5} {'ref':>5} {'rest':>6} {'r-user':>6} | {'pers':>5} {'bcast':>5} {'load':>5}")
    print(head, flush=True)
    results = {"this": [], "baseline": []}
    profile = []
    for rnd in range(args.rounds):
        for name, root in (("this", None), ("baseline", base)):
            want_prof = args.profile and name == "this" and rnd == args.rounds - 1
            r, prof = run_once(root, args.tables, args.hold, args.warmup, want_prof)
            if prof:
                profile = prof
            if not r["strokes_per_s"]:
                raise SystemExit(f"{name}: no stroke measured (errors: {r.get('first_errors')}); the load "
                                 f"generator of this checkout may speak what that server does not")
            s = r["stage_ms"]
            rest = r["cpu_ms_per_stroke"] - s["simulate"] - s["referee"]
            kernel = r.get("sys_ms_per_stroke", 0.0)
            results[name].append((r["cpu_ms_per_stroke"], rest, r["p99_ms"], rest - kernel, kernel))
            print(f"{name:>8} {rnd:>5} {r['strokes_per_s']:6.1f} {r['p50_ms']:6.1f} {r['p99_ms']:6.1f} "
                  f"{r['server_cpu']:5.2f} {r['cpu_ms_per_stroke']:7.3f} {kernel:6.3f} | {s['simulate']:5.3f} "
                  f"{s['referee']:5.3f} {rest:6.3f} {rest - kernel:6.3f} | {s['persist']:5.2f} {s['broadcast']:5.2f} "
                  f"{r['loadavg']:>5}", flush=True)
    med = {k: tuple(statistics.median(x[i] for x in v) for i in range(5)) for k, v in results.items()}
    print("\nmedians (ms per stroke of server CPU; kernel = system time, mostly loopback TCP sends; rest-user = the")
    print("rest without the kernel's share: the server's own Python and C code)")
    print(f"{'':>10} {'all':>7} {'rest':>7} {'kernel':>7} {'r-user':>7} {'p99 ms':>7}")
    for k in ("this", "baseline"):
        print(f"{k:>10} {med[k][0]:7.3f} {med[k][1]:7.3f} {med[k][4]:7.3f} {med[k][3]:7.3f} {med[k][2]:7.1f}")
    print(f"{'ratio':>10} {med['this'][0] / med['baseline'][0]:7.2f} {med['this'][1] / med['baseline'][1]:7.2f} "
          f"{'':>7} {med['this'][3] / med['baseline'][3]:7.2f}")
    print(f"goal: rest at most 0.300 ms -> {'met' if med['this'][1] <= 0.3 else 'not met'} ({med['this'][1]:.3f})")
    for line in profile:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
