"""Bytes per stroke on the wire: the event log in format 1 (full) and format 2 (compact), side by side.

For every workload of bench/workloads.py (the physics bench's shots: 14.1 break, 9-ball break, 50
random pool shots, 50 random three-cushion shots) it prints the msgpack size of
``protocol.encode_log`` per stroke in both formats (median, p90, max), the ratio of the two, and
the CPU time per stroke of ``encode_log`` and ``decode_log`` in Python for each format (the log
alone: the rest of a stroke message is the same in both formats). Every stroke is checked to
decode to ``SimResult.to_json()`` bit for bit before anything is timed. Issue 13's goal is a
break of at most 6 KB and median strokes of at most 1.0 KB (KB = 1000 bytes).

Run: ``.venv/bin/python bench/wire_bytes.py [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import struct
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import msgpack  # noqa: E402

import protocol  # noqa: E402
from bench.workloads import WORKLOADS  # noqa: E402
from physics import Shot, get_table, simulate  # noqa: E402

BREAK_GOAL = 6000  # bytes: a break (one shot)
MEDIAN_GOAL = 1000  # bytes: the median stroke of the random workloads


def _bits(x):
    """A comparable form of a decoded log: floats by their bits, dicts with their key order."""
    if isinstance(x, float):
        return ("f", struct.pack("<d", x))
    if isinstance(x, dict):
        return ("d", tuple((k, _bits(v)) for k, v in x.items()))
    if isinstance(x, list):
        return ("l", tuple(_bits(v) for v in x))
    return (type(x).__name__, x)


def _pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def _cpu_per_call(fn, items, repeat):
    """Least CPU seconds per item of ``fn(item)`` over ``repeat`` passes (process time: robust to other load)."""
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        for it in items:
            fn(it)
        best = min(best, (time.process_time() - t) / len(items))
    return best


def measure(name, shots, repeat):
    sims = [simulate(get_table(t), balls, Shot(**kw)) for t, balls, kw in shots]
    table = sims[0].table
    ids = protocol.preset_ids(table.to_json())
    names = tuple({v: k for k, v in m.items()} for m in ids)
    row = {"name": name, "strokes": len(sims), "events": statistics.median(len(s.events) for s in sims)}
    for fmt in (1, 2):
        logs = [protocol.encode_log(s, *ids, fmt=fmt) for s in sims]
        packed = [msgpack.packb(log) for log in logs]
        received = [msgpack.unpackb(p) for p in packed]
        for sim, log in zip(sims, received):
            assert log.get("f", 1) == fmt
            if fmt == 2:
                assert _bits(protocol.decode_log(log, *names)) == _bits(sim.to_json()), f"{name}: not exact"
        sizes = [len(p) for p in packed]
        row[fmt] = {
            "median": statistics.median(sizes), "p90": _pct(sizes, 0.9), "max": max(sizes), "total": sum(sizes),
            "encode_us": 1e6 * _cpu_per_call(lambda s: protocol.encode_log(s, *ids, fmt=fmt), sims, repeat),
            "decode_us": 1e6 * _cpu_per_call(lambda log: protocol.decode_log(log, *names), received, repeat),
        }
    goal = BREAK_GOAL if len(sims) == 1 else MEDIAN_GOAL
    row["goal"] = goal
    row["met"] = row[2]["median"] <= goal
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="timing passes per workload (the least is kept)")
    args = ap.parse_args(argv)
    rows = [measure(name, make(), args.repeat) for name, make in WORKLOADS.items()]
    print("Bytes per stroke (msgpack of protocol.encode_log), format 1 -> format 2")
    print()
    print("| workload | strokes | events (median) | median | p90 | max | ratio (median) | ratio (all bytes) | goal | met |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        a, b = r[1], r[2]
        cells = [f"{a[k]:.0f} -> {b[k]:.0f}" for k in ("median", "p90", "max")]
        print(f"| {r['name']} | {r['strokes']} | {r['events']:.0f} | {' | '.join(cells)} | {b['median'] / a['median']:.2f} | "
              f"{b['total'] / a['total']:.2f} | <= {r['goal']} | {'yes' if r['met'] else 'NO'} |")
    print()
    print("CPU time per stroke in Python (us; least of the passes), format 1 / format 2")
    print()
    print("| workload | encode_log f1 | encode_log f2 | decode_log f1 | decode_log f2 |")
    print("|---|---|---|---|---|")
    for r in rows:
        a, b = r[1], r[2]
        print(f"| {r['name']} | {a['encode_us']:.1f} | {b['encode_us']:.1f} | {a['decode_us']:.1f} | {b['decode_us']:.1f} |")
    print()
    print("goal (issue 13): break <= 6 KB, median strokes <= 1.0 KB:", "met" if all(r["met"] for r in rows) else "NOT met")


if __name__ == "__main__":
    main()
