"""Cost of the 14.1 referee per stroke, beside the cost of simulating the same stroke.

Usage: ``.venv/bin/python bench/straight_pool_referee.py [--games N] [--target P]``

Workload: ``N`` games to ``P`` points played through the real physics by the ghost-ball player
of tests/rules/pool_games.py (bots/aim.py); every stroke is kept as (game state before, seat,
call, the Shot, the SimResult). Each stroke is then timed again: ``physics.simulate`` of the
same Shot from the same layout, and ``apply_shot`` on a game restored from the state before
(the whole ruling: stroke_contacts with initial-freeze continuations, fouls, spotting,
re-racks, statistics). Also ``to_state`` + ``msgpack.packb``, ``from_state`` and the packed
state's size. Medians in microseconds, opening breaks apart from the other strokes.

A benchmark, not a test: nothing here runs in ``make test``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "rules"))

import msgpack  # noqa: E402

from physics import simulate  # noqa: E402
from rules.straight_pool import StraightPool  # noqa: E402


def make_workload(games: int, target: int):
    from pool_games import choose_decision, choose_stroke

    items = []
    for k in range(games):
        rng = random.Random(k)
        g = StraightPool({"breaker": k % 2, "target_points": target}, seed=k)
        for _ in range(3000):
            if g.over:
                break
            acts = g.legal_actions()
            if g.phase == "decision" or any(d["name"] == "SPOT_REQUEST" for d in acts["decisions"]):
                name, arg = choose_decision(g)
                g.apply_decision(g.to_act, name, arg)
                continue
            seat = g.to_act
            call, cue, shot = choose_stroke(g, rng)
            start = g.prepare_shot(seat, call, cue)
            state = g.to_state()
            sim = simulate(g.table, start, shot)
            items.append({"break": g.phase == "break", "state": state, "seat": seat, "call": call, "start": start, "shot": shot, "sim": sim})
            g.apply_shot(seat, call, sim)
    return items


def _median_us(fn, repeat: int) -> float:
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6


def measure(items, repeat: int):
    rows = {}
    for label, sel in (("opening breaks", [i for i in items if i["break"]]), ("other strokes", [i for i in items if not i["break"]])):
        if not sel:
            continue
        sim_us, ref_us, pack_us, load_us, size, events = [], [], [], [], [], []
        for it in sel:
            table = StraightPool.from_state(it["state"]).table
            sim_us.append(_median_us(lambda: simulate(table, it["start"], it["shot"]), repeat))

            def rule():
                g = StraightPool.from_state(it["state"])
                t0 = time.perf_counter()
                g.apply_shot(it["seat"], it["call"], it["sim"])
                return time.perf_counter() - t0

            ref_us.append(statistics.median(rule() for _ in range(repeat)) * 1e6)
            g = StraightPool.from_state(it["state"])
            blob = msgpack.packb(g.to_state())
            pack_us.append(_median_us(lambda: msgpack.packb(g.to_state()), repeat))
            load_us.append(_median_us(lambda: StraightPool.from_state(msgpack.unpackb(blob)), repeat))
            size.append(len(blob))
            events.append(len(it["sim"].events))
        rows[label] = {
            "n": len(sel),
            "events": statistics.median(events),
            "simulate": statistics.median(sim_us),
            "apply_shot": statistics.median(ref_us),
            "apply_shot_p95": sorted(ref_us)[int(0.95 * (len(ref_us) - 1))],
            "to_state+pack": statistics.median(pack_us),
            "from_state": statistics.median(load_us),
            "state_bytes": statistics.median(size),
        }
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--target", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    items = make_workload(args.games, args.target)
    rows = measure(items, args.repeat)
    print(f"14.1 referee vs physics, {args.games} games to {args.target}, {len(items)} strokes, medians over {args.repeat} runs (us)")
    head = f"{'strokes':<16}{'n':>6}{'events':>8}{'simulate':>11}{'apply_shot':>12}{'p95':>10}{'ref/sim':>9}{'state+pack':>12}{'from_state':>12}{'bytes':>8}"
    print(head)
    print("-" * len(head))
    for label, r in rows.items():
        print(
            f"{label:<16}{r['n']:>6}{r['events']:>8.0f}{r['simulate']:>11.0f}{r['apply_shot']:>12.0f}{r['apply_shot_p95']:>10.0f}"
            f"{r['apply_shot'] / r['simulate']:>9.2f}{r['to_state+pack']:>12.0f}{r['from_state']:>12.0f}{r['state_bytes']:>8.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
