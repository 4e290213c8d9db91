"""Bit-exact fingerprints of many simulated shots, to check that a change of the engine's code
changes no result (a tool for performance work; not a benchmark, not a test).

``--write FILE`` simulates the shots below and writes one line per shot: its label and the
SHA-256 of its whole event log (each event's time, kind, balls, cushion, pocket and every state
of every ball it lists, the floats packed with ``struct.pack('d')``, so bit for bit), the final
layout and the flags; plus one line per batch of random Mathavan 2010 impacts (``resolve`` on
both tables, the outputs packed the same way). ``--check FILE`` simulates them again and
reports every line that differs (exit 1 if any).

Shots: random three-cushion and random pool shots from bench/workloads.py's generators with
seeds other than the benchmark's (both cushion models), and rack breaks with other wiggles.

Usage::

    .venv/bin/python bench/bitexact_logs.py --write /tmp/ref.txt [--n 2000]
    .venv/bin/python bench/bitexact_logs.py --check /tmp/ref.txt [--n 2000]
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

import workloads as wl  # noqa: E402
from physics import Shot, get_table, mathavan_2010, simulate  # noqa: E402
from physics import engine  # noqa: E402


def _pack(h, *xs):
    for x in xs:
        h.update(struct.pack("d", x))


def log_digest(res) -> str:
    h = hashlib.sha256()
    for e in res.events:
        _pack(h, e.t)
        h.update(repr((e.kind, e.balls, e.cushion, e.pocket)).encode())
        for b, s in e.states.items():
            h.update(repr((b, s.state)).encode())
            _pack(h, *s.r, *s.v, *s.w)
    for b, s in sorted(res.final.items()):
        h.update(repr((b, s.state)).encode())
        _pack(h, *s.r, *s.v, *s.w)
    h.update(repr((res.capped, res.flags)).encode())
    return h.hexdigest()


def shots(n: int):
    """(label, table, balls, Shot, cushion_model) for every shot compared."""
    for k, (tname, balls, kw) in enumerate(wl.random_three_cushion_shots(n, seed=777)):
        yield f"3c-{k}", tname, balls, Shot(**kw), None
    for k, (tname, balls, kw) in enumerate(wl.random_pool_shots(n, seed=888)):
        yield f"pool-{k}", tname, balls, Shot(**kw), None
    for k, (tname, balls, kw) in enumerate(wl.random_three_cushion_shots(n // 4, seed=999)):
        yield f"3c-han-{k}", tname, balls, Shot(**kw), "han_2005"
    for k, (tname, balls, kw) in enumerate(wl.random_pool_shots(n // 4, seed=1111)):
        yield f"pool-han-{k}", tname, balls, Shot(**kw), "han_2005"
    # breaks: other wiggles, speeds and offsets
    rng = random.Random(4242)
    for k in range(max(1, n // 20)):
        table = get_table("pool-9ft")
        pos = wl._wiggled_rack(table, list(range(15)), random.Random(5000 + k))
        tname, balls, kw = wl._break("pool-9ft", {i + 1: p for i, p in enumerate(pos)})
        kw = dict(kw, V0=rng.uniform(3.0, 9.0), a=rng.uniform(-0.3, 0.3), b=rng.uniform(-0.3, 0.3),
                  phi_deg=kw["phi_deg"] + rng.uniform(-1.0, 1.0))
        yield f"break-{k}", tname, balls, Shot(**kw), None
    for k in range(max(1, n // 20)):
        table = get_table("pool-9ft")
        pos = wl._wiggled_rack(table, wl._DIAMOND_SITES, random.Random(6000 + k))
        tname, balls, kw = wl._break("pool-9ft", dict(zip(wl._DIAMOND_BALLS, pos)))
        kw = dict(kw, V0=rng.uniform(3.0, 9.0), a=rng.uniform(-0.3, 0.3), b=rng.uniform(-0.3, 0.3))
        yield f"break9-{k}", tname, balls, Shot(**kw), None


def impact_lines(n: int):
    """Random Mathavan impacts on both tables (as the cushion tests draw them), in batches of 500."""
    rng = random.Random(31337)
    for tname in ("carom", "pool-9ft"):
        t = get_table(tname)
        c = t.cloth
        for batch in range(max(1, n // 500)):
            h = hashlib.sha256()
            for _ in range(500):
                speed = rng.uniform(0.05, 8.0)
                ang = math.radians(rng.uniform(-89.0, 89.0))
                nang = rng.uniform(0.0, 2.0 * math.pi)
                ox, oy = math.cos(nang), math.sin(nang)
                # v: into the cushion at angle ang from the normal
                vn, vt = speed * math.cos(ang), speed * math.sin(ang)
                v = (vn * ox - vt * oy, vn * oy + vt * ox)
                w = tuple(rng.uniform(-1.0, 1.0) * 2.0 * speed / t.R for _ in range(3))
                if rng.random() < 0.2:   # rolling into it
                    w = (-v[1] / t.R, v[0] / t.R, w[2])
                if rng.random() < 0.1:   # stun
                    w = (0.0, 0.0, 0.0)
                (vx, vy), (wx, wy, wz) = mathavan_2010.resolve(v, w, (ox, oy), t.R, t.cushion_height, c.e_c, c.f_c,
                                                               c.mu_s, engine.MATHAVAN_STEPS)
                _pack(h, vx, vy, wx, wy, wz)
            yield f"impacts-{tname}-{batch}", h.hexdigest()


def lines(n: int):
    for label, tname, balls, shot, cm in shots(n):
        res = simulate(tname, balls, shot, cushion_model=cm)
        yield f"{label}", f"{len(res.events)} {log_digest(res)}"
    for label, d in impact_lines(10 * n):
        yield label, d


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", metavar="FILE")
    g.add_argument("--check", metavar="FILE")
    ap.add_argument("--n", type=int, default=2000, help="random shots per generator (default 2000)")
    args = ap.parse_args()
    if args.write:
        with open(args.write, "w") as f:
            k = 0
            for label, d in lines(args.n):
                f.write(f"{label} {d}\n")
                k += 1
        print(f"wrote {k} lines to {args.write}")
        return 0
    ref = {}
    with open(args.check) as f:
        for line in f:
            label, d = line.rstrip("\n").split(" ", 1)
            ref[label] = d
    bad = 0
    k = 0
    events = 0
    for label, d in lines(args.n):
        k += 1
        if not label.startswith("impacts"):
            events += int(d.split()[0])
        if ref.get(label) != d:
            bad += 1
            if bad <= 20:
                print(f"DIFFERS {label}: {d} != {ref.get(label)}")
    if k != len(ref):
        print(f"line counts differ: {k} now, {len(ref)} in {args.check}")
        bad += 1
    print(f"{k} lines ({events} events) compared, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
