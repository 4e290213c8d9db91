"""billar's own physics speed on the shared workloads (bench/workloads.py), without pooltool.

For each workload: median wall time per shot of ``physics.simulate`` (validation and the
``SimResult`` included), events per shot and time per event. The spec's targets (100x pooltool 0.6.0) are printed beside
the figures: < 0.5 ms per 15-ball break, < 50 us per random pool shot, < 20 us per random
three-cushion shot. A first-call line shows the latency of the very first simulation in a
fresh interpreter (the server's first-shot budget, spec section 5 #18).

A second table says where a shot's CPU time goes (``time.process_time`` over back-to-back runs,
the least of 3 rounds, 15 for a one-shot workload; median over the shots): the event loop alone (``engine.run`` without building the log), of it
the Mathavan 2010 cushion impacts (the workload's own impacts, timed in a C loop by
``mathavan_2010.time_resolves``, times the impacts per shot), building and freeing the log's
Python objects, checking the arguments and the call; and, after ``simulate``, reading the whole
log once (every event's ``states`` and every state's ``r``, ``v``, ``w``: the parts of the log
made on first read, physics/records.pyx).

Usage::

    .venv/bin/python bench/physics_speed.py [--repeats N] [--cushion-model NAME] [--only NAME ...]

A benchmark, not a test: nothing here runs in ``make test``.
"""

from __future__ import annotations

import argparse
import math
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
from physics import engine, mathavan_2010  # noqa: E402
from physics.evolve import STATE_CODES, evolve_state  # noqa: E402

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


def cpu_per_call(fn, reps: int) -> float:
    """Process CPU seconds per call of ``fn()``, over ``reps`` calls back to back."""
    c0 = time.process_time()
    for _ in range(reps):
        fn()
    return (time.process_time() - c0) / reps


def read_log(res) -> None:
    """Touch every part of a log a consumer reads (protocol.encode_log reads all of them)."""
    for e in res.events:
        for s in e.states.values():
            s.r, s.v, s.w


def cushion_impacts(table, res) -> list:
    """``(v, w, normal)`` before each ball-cushion contact of ``res`` (the arguments of
    ``mathavan_2010.resolve``): the ball's state at its previous event moved on to the contact by
    the closed-form motion, the normal from the ball toward the straight cushion or the jaw."""
    lines = {c.name: c for c in table.cushions}
    jaws = {j.name: j for j in table.jaws}
    c = table.cloth
    last = {b: (0.0, s) for b, s in res.initial.items()}
    out = []
    for e in res.events:
        if e.kind == "ball_cushion":
            t0, s = last[e.balls[0]]
            _, r, v, w = evolve_state(STATE_CODES[s.state], tuple(s.r), tuple(s.v), tuple(s.w), e.t - t0, table.R,
                                      c.mu_s, c.mu_r, c.mu_sp, c.g)
            if e.cushion in lines:
                n = lines[e.cushion].normal
                out.append((v, w, (-n[0], -n[1])))
            else:
                j = jaws[e.cushion]
                dx, dy = j.centre[0] - r[0], j.centre[1] - r[1]
                d = (dx * dx + dy * dy) ** 0.5
                out.append((v, w, (dx / d, dy / d)))
        for b, st in e.states.items():
            last[b] = (e.t, st)
    return out


def where_time_goes(name: str, shots: list, reps: int) -> dict:
    """The split of a shot's CPU time (us, median over the shots) for the second table."""
    parts = {k: [] for k in ("simulate", "loop", "log", "checks", "read", "impacts")}
    impacts = []
    table = get_table(shots[0][0])
    for table_name, balls, kw in shots:
        shot = Shot(**kw)
        args = engine.prepare(table, balls, shot, None, "frictional_inelastic", 5000)
        res = simulate(table, balls, shot)
        impacts += cushion_impacts(table, res)
        parts["impacts"].append(sum(e.kind == "ball_cushion" for e in res.events))
        # rounds of the four measurements, each part its least (the machine may be shared)
        loop = run = sim = read = math.inf
        for _ in range(3 if len(shots) > 1 else 15):
            loop = min(loop, cpu_per_call(lambda: engine.run(*args, build=False), reps))
            run = min(run, cpu_per_call(lambda: engine.run(*args), reps))
            sim = min(sim, cpu_per_call(lambda: simulate(table, balls, shot), reps))
            read = min(read, cpu_per_call(lambda: read_log(simulate(table, balls, shot)), reps))
        parts["simulate"].append(sim)
        parts["loop"].append(loop)
        parts["log"].append(run - loop)
        parts["checks"].append(sim - run)
        parts["read"].append(read - sim)
    out = {k: statistics.median(v) * (1.0 if k == "impacts" else 1e6) for k, v in parts.items()}
    out["mean_impacts"] = statistics.fmean(parts["impacts"])
    out["impact_ns"] = math.nan
    if table.default_cushion_model == "mathavan_2010" and impacts:
        c = table.cloth
        sec, _ = mathavan_2010.time_resolves(impacts, max(1, 20000 // len(impacts)), table.R, table.cushion_height, c.e_c,
                                             c.f_c, c.mu_s, engine.MATHAVAN_STEPS)
        out["impact_ns"] = sec * 1e9
    return out


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
    if args.cushion_model is None:
        print()
        print("Where a shot's CPU time goes (us per shot, median over the shots; the impacts: the workload's own, in a C loop):")
        print()
        print("| workload | simulate | event loop | of it Mathavan impacts (per shot x ns) | building + freeing the log "
              "| checks + call | reading the whole log afterwards |")
        print("|---|---|---|---|---|---|---|")
        for name, fn in wl.WORKLOADS.items():
            if args.only and name not in args.only:
                continue
            shots = fn()
            w = where_time_goes(name, shots, args.repeats if len(shots) > 1 else 5 * args.repeats)
            share = w["mean_impacts"] * w["impact_ns"] * 1e-3
            print(f"| {name} | {w['simulate']:.2f} | {w['loop']:.2f} | {share:.2f} ({w['mean_impacts']:.1f} x {w['impact_ns']:.0f}) "
                  f"| {w['log']:.2f} | {w['checks']:.2f} | {w['read']:.2f} |")
    print()
    print(f"first simulation in a fresh interpreter (import + first shot): {first_call_latency() * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
