"""One stroke's CPU with warm caches and with cold ones, side by side: why the serving process is slower
than a micro-benchmark.

    .venv/bin/python bench/stroke_cache.py [--games 1000] [--strokes 1000] [--sweeps 0,1,4,16,64]

The server's stage timings (``billar_shot_latency_seconds``, bench/capacity.py) put a three-cushion
stroke's simulate + referee + encode at about 0.27 ms at 1,000 tables, where a loop over the same
calls takes a fraction of that. This bench runs the server's own stroke path (``server.table.play.stroke``:
the referee's preparation, ``physics.simulate``, the ruling, the wire log; then the stroke message and
the record packed with msgpack, as the actor does) on three-cushion games like the load generator's
(random lag, a distance nobody reaches, a stroke of V0 1.2 m/s at a new angle each time), in rows:

- ``1 game``: the same game stroke after stroke (everything it touches stays in the caches);
- ``N games``: the games in turn (the code stays warm, each game's data is cold);
- ``N games, sweep M MB``: the games in turn, and before each stroke M MB of other memory is read
  (``zlib.crc32`` over a buffer: plain loads through the caches). Between two strokes of one table a
  serving process reads and writes far more than that (other tables, 4 connections a table, Redis).

Each row prints the mean microseconds per stroke of each stage (simulate, referee, encode: the stages
the server times; ``message``: the stroke message and record packed) and the total's ratio to the
``1 game`` row. The machine's cache sizes are printed first (``lscpu``). Pin it to one core for
steadier figures: ``taskset -c 0 .venv/bin/python bench/stroke_cache.py``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import msgpack  # noqa: E402

import protocol  # noqa: E402
from protocol import inbound as I  # noqa: E402
from protocol import outbound as O  # noqa: E402
from rules.registry import new_game  # noqa: E402
from server.table import play  # noqa: E402

CONFIG = {"lag_mode": "random", "distance": 10000}  # loadtest/lean.py's tables: no lag, no end


def ready(game) -> dict:
    """The game's legal actions after taking the first option of any decision (the breaker's choice)."""
    la = game.legal_actions()
    while la["decisions"] and not la["shoot"]:
        d = la["decisions"][0]
        game.apply_decision(la["player"], d["name"], d["args"][0] if d.get("args") else None)
        la = game.legal_actions()
    return la


def one_stroke(game, ids, n: int) -> tuple:
    """Play stroke ``n`` of ``game`` as the actor does; the seconds of (simulate, referee, encode, message)."""
    la = ready(game)
    msg = I.Shot(table="T", token="t" * 32, seq=n + 1,
                 stroke={"phi_deg": (n * 37.0) % 360.0, "V0": 1.2, "a": 0.0, "b": 0.0, "theta_deg": 0.0})
    out = play.stroke(game, ids, la["player"], msg, play.shoot_options(game))
    if isinstance(out, play.Refusal):
        raise SystemExit(f"the referee refused the bench's stroke: {out.code} {out.message}")
    t0 = time.perf_counter()
    rd = out.ruling.to_dict()
    out.record["ruling"] = rd
    g = game
    state = O.game_state(g.phase, g.to_act, g.layout(), g.scoreboard(), g.legal_actions(), g.over, None,
                         zones=g.table_zones())
    message = O.stroke("T", n, time.time(), game=0, shots=out.shots, log=out.log, ruling=rd, state=state, clock=None)
    protocol.encode(message)
    msgpack.packb(out.record, use_bin_type=True)
    return out.sim_s, out.referee_s, out.encode_s, time.perf_counter() - t0


def run(games, ids, strokes: int, sweep_mb: float, counters: dict) -> list:
    """Mean seconds per stroke of each stage over ``strokes`` strokes, the games in turn, ``sweep_mb`` MB
    read before each."""
    buf = bytes(int(sweep_mb * (1 << 20))) if sweep_mb else b""
    sums = [0.0, 0.0, 0.0, 0.0]
    for k in range(strokes):
        g = games[k % len(games)]
        if buf:
            zlib.crc32(buf)
        n = counters.get(id(g), 0)
        counters[id(g)] = n + 1
        for i, t in enumerate(one_stroke(g, ids, n)):
            sums[i] += t
    return [s / strokes for s in sums]


def caches() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "(lscpu not available)"
    return "; ".join(" ".join(line.split()) for line in out.splitlines()
                     if line.strip().startswith(("Model name", "L1d", "L1i", "L2", "L3")))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--strokes", type=int, default=1000, help="strokes timed per row")
    ap.add_argument("--sweeps", default="0,1,4,16,64", help="MB read before each stroke, one row each (0: none)")
    args = ap.parse_args()
    sweeps = [float(x) for x in args.sweeps.split(",") if x.strip()]
    print(caches())
    games = [new_game("three_cushion", CONFIG, seed=i) for i in range(max(1, args.games))]
    ids = protocol.preset_ids(games[0].table.to_json())
    counters: dict = {}
    run(games, ids, min(args.strokes, len(games)), 0.0, counters)  # every game past its first stroke
    rows = [("1 game", run(games[:1], ids, args.strokes, 0.0, counters))]
    for mb in sweeps:
        label = f"{len(games)} games" + (f", sweep {mb:g} MB" if mb else "")
        rows.append((label, run(games, ids, args.strokes, mb, counters)))
    hot = sum(rows[0][1])
    print(f"\nus per three-cushion stroke, {args.strokes} strokes a row (server stages: simulate, referee, encode; "
          f"message: the stroke message and record packed)")
    print(f"{'row':>26} {'simulate':>9} {'referee':>8} {'encode':>7} {'message':>8} {'total':>7} {'x 1 game':>9}")
    for label, r in rows:
        us = [x * 1e6 for x in r]
        print(f"{label:>26} {us[0]:9.1f} {us[1]:8.1f} {us[2]:7.1f} {us[3]:8.1f} {sum(us):7.1f} {sum(r) / hot:9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
