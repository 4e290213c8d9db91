"""Simulate bench/workloads.py's 50 random three-cushion shots ``--rounds`` times, warm (for
``valgrind --tool=callgrind``: instructions per shot are repeatable on a shared machine).

    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out --toggle-collect='*_simulate*' \\
        .venv/bin/python bench/callgrind_3c.py --rounds 10
"""
import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

import workloads as wl  # noqa: E402
from physics import Shot, get_table, simulate  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=10)
ap.add_argument("--workload", default="random three-cushion shots")
args = ap.parse_args()
shots = [(get_table(t), b, Shot(**kw)) for t, b, kw in wl.WORKLOADS[args.workload]()]
for t, b, s in shots:   # warm
    simulate(t, b, s)
for _ in range(args.rounds):
    for t, b, s in shots:
        simulate(t, b, s)
print(len(shots) * args.rounds, "shots")
