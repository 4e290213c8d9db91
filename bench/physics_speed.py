"""billar's own physics speed on the shared workloads (bench/workloads.py), without pooltool.

For each workload: median wall time per shot of ``physics.simulate`` (validation and the
``SimResult`` included), events per shot and time per event. The spec's targets (100x pooltool 0.6.0) are printed beside
the figures: < 0.5 ms per 15-ball break, < 50 us per random pool shot, < 20 us per random
three-cushion shot. A first-call line shows the latency of the very first simulation in a
fresh interpreter (the server's first-shot budget, spec section 5 #18).

Usage::

    .venv/bin/python bench/physics_speed.py [--repeats N] [--cushion-model NAME] [--only NAME ...]

A benchmark, not a test: nothing here runs in ``make test``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

import workloads as wl  # noqa: E402
from physics import Shot, get_table, simulate  # noqa: E402

TARGET_US = {
    "14.1 break (15 balls)": 500.0,
    "9-ball break": 400.0,
    "random pool shots": 50.0,
    "random three-cushion shots": 20.0,
}


def time_shot(table, balls, shot, cushion_model, repeats):
    """Median wall time (s) of ``repeats`` runs of one shot, and its event count."""
    times = []
    res = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = simulate(table, balls, shot, cushion_model=cushion_model)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), len(res.events)


def first_call_latency() -> float:
    """Seconds from import to the end of the first simulation, in a fresh interpreter."""
    code = (
        "import time; t0 = time.perf_counter();"
        "from physics import simulate, Shot;"
        "simulate('pool-9ft', {0: (0.6, 0.6), 1: (1.8, 0.6)}, Shot(0, 0.0, 3.0));"
        "print(time.perf_counter() - t0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return float(out.stdout.strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20, help="runs per shot (default 20)")
    ap.add_argument("--cushion-model", default=None, help="han_2005 or mathavan_2010 (default: each table's own)")
    ap.add_argument("--only", nargs="*", help="workload names to run (default: all)")
    args = ap.parse_args()

    rows = []
    for name, fn in wl.WORKLOADS.items():
        if args.only and name not in args.only:
            continue
        shots = fn()
        per_shot, events = [], []
        for table_name, balls, kw in shots:
            table = get_table(table_name)
            shot = Shot(**kw)
            simulate(table, balls, shot, cushion_model=args.cushion_model)  # warm caches
            t, n = time_shot(table, balls, shot, args.cushion_model, args.repeats if len(shots) > 1 else 5 * args.repeats)
            per_shot.append(t)
            events.append(n)
        med = statistics.median(per_shot)
        per_event = statistics.median(t / n for t, n in zip(per_shot, events))
        rows.append((name, len(shots), med * 1e6, statistics.median(events), per_event * 1e6, TARGET_US[name]))

    print(f"cushion model: {args.cushion_model or 'table default'}; {args.repeats} runs per shot; median over shots")
    print()
    print("| workload | shots | median us/shot | events/shot | us/event | target us | met |")
    print("|---|---|---|---|---|---|---|")
    for name, n, us, ev, upe, target in rows:
        print(f"| {name} | {n} | {us:.1f} | {ev:g} | {upe:.2f} | {target:g} | {'yes' if us <= target else 'NO'} |")
    print()
    print(f"first simulation in a fresh interpreter (import + first shot): {first_call_latency() * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
