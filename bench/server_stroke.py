"""Cost of one stroke in the game server, printed as tables.

1. The wire: a stroke message (14.1 break, a three-cushion stroke) encoded with the compact
   float64 event log of protocol/eventlog.py, against the same content with the log as
   ``SimResult.to_json()`` (msgpack maps) and as JSON text: bytes, encode and decode times.
2. The server: T three-cushion tables, each with 2 players and 2 spectators over real
   WebSockets (clients in the same process), the embedded Redis; every table plays S strokes
   (soft strokes at the red, whatever the referee rules). Prints the server's time per stroke by
   stage (from ``billar_shot_latency_seconds``) and the shooter's send -> broadcast latency.

Run: ``.venv/bin/python bench/server_stroke.py [--tables 20] [--strokes 10]``. The clients share
the server's process and core, so the latency figures are an upper bound; issue 7's capacity
benchmark drives the load from another process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import msgpack  # noqa: E402

import protocol  # noqa: E402
from physics import Shot, get_table, simulate  # noqa: E402
from protocol import inbound as I  # noqa: E402
from protocol import outbound as O  # noqa: E402
from server.metrics import SHOT_STAGES  # noqa: E402


def timed(fn, n):
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1e6


def wire_table():
    rows = []
    pool = get_table("pool-9ft")
    balls = {0: (0.3, 0.6)}
    for i, p in enumerate(pool.rack_sites()):
        balls[i + 1] = p
    carom = get_table("carom")
    cases = [
        ("14.1 break", pool, simulate(pool, balls, Shot(cue_ball=0, phi_deg=0.0, V0=7.0, a=0.0, b=0.1))),
        ("three-cushion stroke", carom, simulate(carom, {0: (0.71, 0.5275), 1: (0.71, 0.71), 2: (2.13, 0.71)},
                                                 Shot(cue_ball=0, phi_deg=5.3, V0=2.5, a=0.0, b=0.3))),
    ]
    for name, table, sim in cases:
        ids = protocol.preset_ids(table.to_json())
        state = O.game_state("play", 1, {b: s.r for b, s in sim.final.items()}, {"scores": [0, 0]}, None, False, None)
        ruling = {"player": 0, "points": [0, 0], "scores": [0, 0], "text": "Safety"}

        def message(log):
            return O.stroke("t", 3, 0.0, game=1, shots=[{"seat": 0, "seq": 1}], log=log, ruling=ruling, state=state, clock=None)

        compact = message(protocol.encode_log(sim, *ids))
        verbose = message(sim.to_json())
        n = 200
        for label, msg in (("compact arrays, msgpack", compact), ("SimResult.to_json, msgpack", verbose)):
            data = protocol.encode(msg)
            enc = timed(lambda: protocol.encode(msg), n)
            dec = timed(lambda: msgpack.unpackb(data), n)
            rows.append((name, len(sim.events), label, len(data), enc, dec))
        text = json.dumps(verbose)
        enc = timed(lambda: json.dumps(verbose), n // 4)
        dec = timed(lambda: json.loads(text), n // 4)
        rows.append((name, len(sim.events), "SimResult.to_json, JSON", len(text.encode()), enc, dec))
        full = timed(lambda: protocol.encode(message(protocol.encode_log(sim, *ids))), n)
        rows.append((name, len(sim.events), "encode_log + encode (what the actor does)", len(protocol.encode(compact)), full, float("nan")))
    print("\n## A stroke message on the wire\n")
    print("| stroke | events | encoding | bytes | encode (us) | decode (us) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        dec = "-" if math.isnan(r[5]) else f"{r[5]:.0f}"
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.0f} | {dec} |")


async def server_table(n_tables: int, n_strokes: int):
    sys.path.insert(0, os.path.join(ROOT, "tests", "server"))
    from harness import open_client  # the tests' scripted client

    from server.app import Server
    from server.config import Settings

    data = tempfile.mkdtemp(prefix="billar-bench-")
    srv = Server(Settings(port=0, data_dir=data, key_prefix=f"bench{os.getpid()}:", ping_interval_s=None,
                          rate_per_s=1000.0, rate_burst=1000.0))
    await srv.start()
    latencies = []

    async def one_table(k):
        a = await open_client(srv, f"a{k}")
        b = await open_client(srv, f"b{k}")
        await a.send(I.CreateTable(discipline="three_cushion", config={"distance": 50, "breaker": 0}, private=True))
        sa = await a.expect("seated")
        tid = sa["table"]
        await a.expect("table_snapshot")
        await a.expect("seats")
        await b.send(I.Join(table=tid))
        sb = await b.expect("seated")
        await b.expect("table_snapshot")
        await b.expect("seats")
        await a.expect("seats")
        specs = []
        for j in range(2):
            s = await open_client(srv, f"s{k}{j}")
            await s.send(I.Watch(table=tid))
            await s.expect("table_snapshot")
            specs.append(s)
        clients, tokens = (a, b), (sa["token"], sb["token"])
        state = srv.tables[tid].state_view()
        for i in range(n_strokes):
            seat = state["to_act"]
            lay = state["layout"]
            cue = str(state["legal"]["shoot"]["cue_ball"])
            phi = math.degrees(math.atan2(lay["2"][1] - lay[cue][1], lay["2"][0] - lay[cue][0])) + 3.0 * (i % 5)
            msg = I.Shot(table=tid, token=tokens[seat], seq=i + 1,
                         stroke={"phi_deg": phi, "V0": 1.5 + 0.2 * (i % 7), "a": 0.0, "b": 0.0, "theta_deg": 0.0})
            t0 = time.perf_counter()
            await clients[seat].send(msg)
            m = await clients[seat].expect("stroke")
            latencies.append(time.perf_counter() - t0)
            await clients[1 - seat].expect("stroke")
            for s in specs:
                await s.expect("stroke")
            state = m["state"]
        for c in (a, b, *specs):
            await c.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(one_table(k) for k in range(n_tables)))
    wall = time.perf_counter() - t0
    h = srv.metrics.shot_latency
    await srv.stop()
    print(f"\n## Server: {n_tables} three-cushion tables x {n_strokes} strokes, 2 players + 2 spectators each, embedded Redis\n")
    print("| stage | strokes | mean per stroke (us) |")
    print("|---|---|---|")
    total = 0.0
    for stage in SHOT_STAGES:
        s = h.series.get((stage,))
        count = int(sum(s[:-1]))
        mean = s[-1] / count * 1e6
        total += mean
        print(f"| {stage} | {count} | {mean:.0f} |")
    print(f"| all six stages | | {total:.0f} |")
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1e3  # noqa: E731
    print("\n| shooter's send -> stroke received | p50 (ms) | p99 (ms) | max (ms) | strokes/s (wall) |")
    print("|---|---|---|---|---|")
    print(f"| {len(latencies)} strokes | {p(0.5):.2f} | {p(0.99):.2f} | {latencies[-1] * 1e3:.2f} | "
          f"{len(latencies) / wall:.0f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--strokes", type=int, default=10)
    args = ap.parse_args()
    print(f"billar server stroke benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores")
    wire_table()
    asyncio.run(server_table(args.tables, args.strokes))


if __name__ == "__main__":
    main()
