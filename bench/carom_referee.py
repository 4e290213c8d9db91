"""Cost of the carom referee per stroke: compiled (Cython) against the same source as plain Python.

Usage: ``.venv/bin/python bench/carom_referee.py [--games N] [--repeat R]``

Workload: for each discipline, ``N`` games to a short distance played through the real physics
by the search bots (bots/carom_search.py); every stroke is kept as (game state before, seat,
simulation). Each stroke is then ruled again on a game restored from its state, timing
``apply_shot`` (the whole ruling: carom test, fouls, zones, match format), ``evaluate_stroke``,
``to_state`` + ``msgpack.packb`` and ``from_state``. The compiled referee runs in this process;
the pure-Python one runs the same ``rules/**/*.py`` sources (copied without their compiled
modules) in a child process on the same workload. Medians in microseconds; the search bot's
cost per stroke (simulated candidates and milliseconds) is given for the compiled build only.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DISCIPLINES = ("libre", "balkline_47_2", "balkline_71_2", "one_cushion", "three_cushion")
DISTANCE = 8


def make_workload(games: int) -> dict:
    """discipline -> list of {"state", "seat", "sim"} plus search statistics."""
    sys.path.insert(0, ROOT)
    from bots.carom_search import find_carom, safe_stroke
    from physics import simulate
    from rules.registry import new_game

    out = {}
    search = {}
    for name in DISCIPLINES:
        items, tried, ms = [], [], []
        for k in range(games):
            g = new_game(name, {"breaker": k % 2, "distance": DISTANCE}, seed=k)
            for _ in range(500):
                if g.over:
                    break
                if g.phase == "decision":
                    g.apply_decision(g.to_act, "SET_UP")
                    continue
                seat = g.to_act
                state = g.to_state()
                t0 = time.perf_counter()
                found = find_carom(g) if g.run < 3 else None
                ms.append((time.perf_counter() - t0) * 1e3)
                if found is not None:
                    tried.append(found.tried)
                shot = found.shot if found else safe_stroke(g)
                sim = simulate(g.table, g.prepare_shot(seat, None), shot)
                items.append({"state": state, "seat": seat, "sim": sim.to_json()})
                g.apply_shot(seat, None, sim)
        out[name] = items
        search[name] = {"ms": statistics.median(ms), "tried": statistics.median(tried) if tried else 0}
    return {"strokes": out, "search": search}


def measure(path: str, repeat: int) -> dict:
    """Time the referee on the workload in ``path``; returns discipline -> medians (us) and sizes."""
    import msgpack

    import rules.carom.game
    from physics.events import SimResult
    from rules.registry import game_class

    with open(path) as fh:
        work = json.load(fh)["strokes"]
    res = {"compiled": rules.carom.game.__file__.endswith(".so")}
    for name, items in work.items():
        cls = game_class(name)
        sims = [SimResult.from_json(it["sim"]) for it in items]
        t_apply, t_eval, t_pack, t_load, sizes = [], [], [], [], []
        for _ in range(repeat):
            for it, sim in zip(items, sims):
                g = cls.from_state(it["state"])
                t0 = time.perf_counter()
                g.evaluate_stroke(it["seat"], sim)
                t1 = time.perf_counter()
                g.apply_shot(it["seat"], None, sim)
                t2 = time.perf_counter()
                blob = msgpack.packb(g.to_state())
                t3 = time.perf_counter()
                cls.from_state(msgpack.unpackb(blob))
                t4 = time.perf_counter()
                t_eval.append(t1 - t0)
                t_apply.append(t2 - t1)
                t_pack.append(t3 - t2)
                t_load.append(t4 - t3)
                sizes.append(len(blob))
        us = lambda xs: statistics.median(xs) * 1e6
        res[name] = {"strokes": len(items), "apply": us(t_apply), "evaluate": us(t_eval), "pack": us(t_pack),
                     "load": us(t_load), "bytes": statistics.median(sizes)}
    return res


def _pure_python_copy(tmp: str) -> str:
    """The .py sources of rules/ and its subpackages under ``tmp``/rules, without compiled modules."""
    for p in glob.glob("rules/**/*.py", root_dir=ROOT, recursive=True):
        dst = os.path.join(tmp, p)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(os.path.join(ROOT, p), dst)
    return tmp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=3, help="games per discipline (default 3)")
    ap.add_argument("--repeat", type=int, default=3, help="timing passes over the workload (default 3)")
    ap.add_argument("--measure", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:  # child process: print the measurement as JSON
        print(json.dumps(measure(args.measure, args.repeat)))
        return
    sys.path.insert(0, ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        work = make_workload(args.games)
        path = os.path.join(tmp, "work.json")
        with open(path, "w") as fh:
            json.dump(work, fh)
        compiled = measure(path, args.repeat)
        env = dict(os.environ, PYTHONPATH=_pure_python_copy(os.path.join(tmp, "py")) + os.pathsep + ROOT)
        child = subprocess.run([sys.executable, os.path.abspath(__file__), "--measure", path, "--repeat", str(args.repeat)],
                               env=env, capture_output=True, text=True, check=True, cwd=tmp)
        pure = json.loads(child.stdout)
    assert compiled["compiled"] and not pure["compiled"], "the two runs must differ in build"
    print(f"carom referee, games to {DISTANCE} by the search bots, {args.games} per discipline, medians "
          f"of {args.repeat} passes (us per stroke)")
    print()
    print("| discipline | strokes | apply_shot compiled | apply_shot pure Python | speed-up | evaluate_stroke compiled "
          "| state bytes (msgpack) | to_state+packb | unpackb+from_state | search ms/stroke | candidates/carom |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in DISCIPLINES:
        c, p, s = compiled[name], pure[name], work["search"][name]
        print(f"| {name} | {c['strokes']} | {c['apply']:.0f} | {p['apply']:.0f} | {p['apply'] / c['apply']:.2f}x | "
              f"{c['evaluate']:.0f} | {c['bytes']:.0f} | {c['pack']:.0f} | {c['load']:.0f} | {s['ms']:.1f} | {s['tried']:.0f} |")


if __name__ == "__main__":
    main()
