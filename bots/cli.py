"""``billar bots``: play whole games with bot players over the real protocol and print a summary.

    billar bots --url ws://127.0.0.1:8765/ws --tables 4 --discipline three_cushion --target 3 \\
                --spectators 2 --level 1

Each table is created by one bot and joined by another; ``--spectators`` bots watch each table.
The summary gives games finished, strokes, decisions, errors, stream gaps, and percentiles of
shot-to-broadcast latency, spectator fan-out delay and engine think time (see bots/client.py),
and what dropped connections cost: reconnects, resumes, actions sent again. A dropped
connection is opened again and the seat resumed (or the table watched again) within
``--retries`` attempts, pausing ``--retry-delay`` seconds and twice as long each time up to 5 s.
``--rated`` plays rated tables between registered players, signed in through the HTTP API and
the WebSocket handshake a browser uses (bots/accounts.py): ``--accounts FILE`` names them (lines
``name:password``, two a table in order; logged in when they exist, registered when absent),
else throwaway accounts are registered. Every account is signed in before any table starts; the
summary lists them (``logged in`` / ``registered``) and each game's rating changes
(``game_rated``).

Exit status: 0 when every game finished with no protocol error (and, with ``--rated``, every game
was rated); 1 otherwise, or when an account could not sign in (wrong password, 429 too many failed
logins, ...); 2 for bad arguments (a malformed accounts file among them).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from urllib.parse import urlparse

from bots.accounts import AccountError, read_accounts
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
    p.add_argument("--rated", action="store_true",
                   help="rated tables between registered players (accounts from --accounts, else throwaway ones)")
    p.add_argument("--accounts", metavar="FILE", default=None,
                   help="with --rated: the players' accounts, lines name:password (two a table, in order; "
                        "registered when absent)")
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
    config = target_config(args.discipline, args.target)
    args.account_list = None
    if args.accounts is not None:
        if not args.rated:
            raise ValueError("accounts: only with --rated")
        args.account_list = read_accounts(args.accounts)  # AccountsFileError (a ValueError) names the line
        if len(args.account_list) < 2 * args.tables:
            raise ValueError(f"accounts: {args.accounts} has {len(args.account_list)} accounts, "
                             f"{2 * args.tables} needed (two a table)")
    return config


def summary(stats: Stats, tables: int, rated: bool = False) -> str:
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
    if rated:
        lines.insert(1, f"games rated        {sum(1 for r in stats.results if r['table'] in stats.rated)} / {tables}")
        lines += [f"  account {a}" for a in sorted(stats.accounts)]
    for r in stats.results:
        res = r["result"] or {}
        lines.append(f"  table {r['table']}: winner seat {res.get('winner')}, scores {res.get('scores')}")
        for x in sorted(stats.rated.get(r["table"], ()), key=lambda x: x["seat"]):
            lines.append(f"    rated seat {x['seat']} {x['name']}: {x['before']} -> {x['after']} "
                         f"({x['after'] - x['before']:+g}, rd {x['rd_after']})")
    for e in stats.errors[:20]:
        lines.append(f"  error: {e}")
    if len(stats.errors) > 20:
        lines.append(f"  ... {len(stats.errors) - 20} more errors")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    config = check_args(args)
    retry = Retry(args.retries, args.retry_delay)
    try:
        stats = asyncio.run(run_tables(args.url, args.tables, args.discipline, config, args.spectators, args.level,
                                       args.think, args.timeout, args.seed, retry, args.rated, args.account_list))
    except AccountError as exc:
        sys.stderr.write(f"billar bots: FAILED: {exc}\n")
        return 1
    print(summary(stats, args.tables, args.rated), flush=True)
    unrated = [r["table"] for r in stats.results if r["table"] not in stats.rated] if args.rated else []
    ok = not stats.errors and stats.games_finished == args.tables and not unrated
    if not ok:
        why = "protocol errors or unfinished games" + (", or games not rated" if args.rated else "")
        sys.stderr.write(f"billar bots: FAILED ({why})\n")
    return 0 if ok else 1
