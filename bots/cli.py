"""``billar bots``: play whole games with bot players over the real protocol and print a summary.

    billar bots --url ws://127.0.0.1:8765/ws --tables 4 --discipline three_cushion --target 3 \\
                --spectators 2 --level 1

Each table is created by one bot and joined by another; ``--spectators`` bots watch each table.
The summary gives games finished, strokes, decisions, errors, stream gaps, and percentiles of
shot-to-broadcast latency, spectator fan-out delay and engine think time (see bots/client.py),
and what dropped connections cost: reconnects, resumes, actions sent again. A dropped
connection is opened again and the seat resumed (or the table watched again) within
``--retries`` attempts, pausing ``--retry-delay`` seconds and twice as long each time up to 5 s.
Exit status: 0 when every game finished with no protocol error; 1 otherwise; 2 for bad
arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from urllib.parse import urlparse

from bots.client import Retry, Stats, percentile, run_tables
from bots.mirror import target_config
from rules.registry import DISCIPLINES, canonical_name


def register(subparsers) -> None:
    p = subparsers.add_parser("bots", help="play whole games with bot players over the protocol and print a summary")
    p.add_argument("--url", default="ws://127.0.0.1:8765/ws", help="server WebSocket URL (default ws://127.0.0.1:8765/ws)")
    p.add_argument("--tables", type=int, default=1, help="games played at once (default 1)")
    p.add_argument("--discipline", default="straight_pool", help=f"one of {', '.join(sorted(DISCIPLINES))} (default straight_pool)")
    p.add_argument("--spectators", type=int, default=0, help="spectators per table (default 0)")
    p.add_argument("--target", type=int, default=None,
                   help="points to win: 14.1 target_points, carom distance (default: the discipline's)")
    p.add_argument("--level", type=int, default=1, help="bot level 1..5 (default 1)")
    p.add_argument("--think", type=float, default=0.0, help="extra seconds a bot waits before each move (default 0)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds allowed for all games (default 600)")
    p.add_argument("--seed", type=int, default=1, help="seed of the bots' execution noise (default 1)")
    p.add_argument("--retries", type=int, default=Retry.attempts,
                   help=f"connections tried after each drop before giving up, 0 = never (default {Retry.attempts})")
    p.add_argument("--retry-delay", type=float, default=Retry.first_s,
                   help=f"seconds before the first of them, doubling up to {Retry.max_s:g} s (default {Retry.first_s:g})")
    p.set_defaults(func=main)


def check_args(args: argparse.Namespace) -> dict:
    """Validate the options; returns the table configuration. Raises ``ValueError`` naming the option."""
    u = urlparse(args.url)
    if u.scheme not in ("ws", "wss") or not u.hostname:
        raise ValueError(f"url: expected ws://HOST:PORT/ws, got {args.url!r}")
    if not 1 <= args.tables <= 10000:
        raise ValueError(f"tables: expected 1..10000, got {args.tables}")
    if not 0 <= args.spectators <= 100:
        raise ValueError(f"spectators: expected 0..100, got {args.spectators}")
    if not 1 <= args.level <= 5:
        raise ValueError(f"level: expected 1..5, got {args.level}")
    if args.think < 0 or args.timeout <= 0:
        raise ValueError("think/timeout: must be >= 0 / > 0 seconds")
    if not 0 <= args.retries <= 1000:
        raise ValueError(f"retries: expected 0..1000, got {args.retries}")
    if not 0 <= args.retry_delay <= Retry.max_s:
        raise ValueError(f"retry-delay: expected 0..{Retry.max_s:g} seconds, got {args.retry_delay}")
    args.discipline = canonical_name(args.discipline)
    return target_config(args.discipline, args.target)


def summary(stats: Stats, tables: int) -> str:
    """The printed summary (one figure per line, latency percentiles in milliseconds)."""
    def pct(vals):
        return (f"p50 {percentile(vals, 0.5):.1f}  p90 {percentile(vals, 0.9):.1f}  p99 {percentile(vals, 0.99):.1f}  "
                f"max {max(vals) if vals else 0.0:.1f}  (n={len(vals)})")

    lines = [
        f"games finished     {stats.games_finished} / {tables}",
        f"strokes            {stats.strokes}",
        f"decisions          {stats.decisions}",
        f"errors             {len(stats.errors)}",
        f"stream gaps        {stats.gaps}",
        f"spectator messages {stats.spectator_messages}",
        f"reconnects         {stats.reconnects}",
        f"resumes            {stats.resumes}",
        f"resent actions     {stats.resent} ({stats.duplicates} already played)",
        f"repeated versions  {stats.repeats}",
        f"shot->broadcast ms {pct(stats.latency_ms)}",
        f"spectator fan-out  {pct(stats.fanout_ms)}",
        f"think ms           {pct(stats.think_ms)}",
    ]
    for r in stats.results:
        res = r["result"] or {}
        lines.append(f"  table {r['table']}: winner seat {res.get('winner')}, scores {res.get('scores')}")
    for e in stats.errors[:20]:
        lines.append(f"  error: {e}")
    if len(stats.errors) > 20:
        lines.append(f"  ... {len(stats.errors) - 20} more errors")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    config = check_args(args)
    retry = Retry(args.retries, args.retry_delay)
    stats = asyncio.run(run_tables(args.url, args.tables, args.discipline, config, args.spectators, args.level, args.think,
                                   args.timeout, args.seed, retry))
    print(summary(stats, args.tables), flush=True)
    ok = not stats.errors and stats.games_finished == args.tables
    if not ok:
        sys.stderr.write("billar bots: FAILED (protocol errors or unfinished games)\n")
    return 0 if ok else 1
