"""``make loadtest``: a server with its embedded Redis on 127.0.0.1, Locust headless for a bounded time, a summary.

    .venv/bin/python loadtest/run.py [--users 60] [--spawn-rate 10] [--time 60s] [--port 8799]
                                     [--rated [--accounts FILE]]

Writes Locust's CSV files (``var/loadtest/locust_stats.csv``, ...) and HTML report
(``var/loadtest/report.html``), prints the request table (shot->broadcast, fan-out, lobby, and
every failure kind) and checks that the server is empty afterwards (every connection, table and
spectator gauge back to 0, no table in the lobby). Exit status 1 when Locust reports failures or
the server is not empty, 0 otherwise. Traffic goes to 127.0.0.1 only; Locust stops itself
after ``--time``.

``--rated`` (``--accounts FILE``) is passed to the locustfile: players sign in as registered
accounts (from the file, registered when absent, else throwaway ones) and play rated quick play
(loadtest/locustfile.py). The server's database starts empty on every run (its data dir is
fresh), so the file's accounts are registered anew each time.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
from typing import Tuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from loadtest.serverproc import ROOT, start_server, stop_server, wait_empty  # noqa: E402

OUT = os.path.join(ROOT, "var", "loadtest")


def main() -> int:
    ap = argparse.ArgumentParser(description="billar load test (Locust, headless, loopback only)")
    ap.add_argument("--users", type=int, default=60)
    ap.add_argument("--spawn-rate", type=float, default=10.0)
    ap.add_argument("--time", default="60s", help="Locust run time (e.g. 60s, 2m)")
    ap.add_argument("--port", type=int, default=8799)
    ap.add_argument("--rated", action="store_true", help="players are registered accounts playing rated games")
    ap.add_argument("--accounts", metavar="FILE", help="with --rated: accounts file, lines name:password")
    args = ap.parse_args()
    if args.accounts:
        if not args.rated:
            print("loadtest: --accounts only with --rated", file=sys.stderr)
            return 2
        from bots.accounts import AccountsFileError, read_accounts
        try:
            read_accounts(args.accounts)
        except AccountsFileError as exc:
            print(f"loadtest: {exc}", file=sys.stderr)
            return 2
    os.makedirs(OUT, exist_ok=True)
    data_dir = os.path.join(OUT, "redis")
    try:
        server = start_server(args.port, data_dir, log_path=os.path.join(OUT, "server.log"), grace_s=5.0)
    except RuntimeError as exc:
        print(f"loadtest: {exc} (make loadtest LOADTEST_PORT=...)", file=sys.stderr)
        return 2
    try:
        locust = os.path.join(os.path.dirname(sys.executable), "locust")
        cmd = [locust, "-f", os.path.join(ROOT, "loadtest", "locustfile.py"), "--headless", "-u", str(args.users), "-r",
               str(args.spawn_rate), "-t", args.time, "--host", f"ws://127.0.0.1:{args.port}/ws", "--csv",
               os.path.join(OUT, "locust"), "--html", os.path.join(OUT, "report.html"), "--stop-timeout", "10",
               "--only-summary", "--exit-code-on-error", "0"]
        if args.rated:
            cmd.append("--rated")
        if args.accounts:
            cmd += ["--accounts", os.path.abspath(args.accounts)]
        rc = subprocess.run(cmd, cwd=ROOT, timeout=3600).returncode
        print(f"locust exited with {rc}")
        empty_error = None
        try:
            gauges = wait_empty(args.port, timeout=60.0)
            print("server empty after the run:", ", ".join(f"{k} {v:g}" for k, v in gauges.items()), "; lobby: no table")
        except AssertionError as exc:
            empty_error = str(exc)
            print(f"FAILED: {exc}")
    finally:
        stop_server(server, data_dir=data_dir)
    failures, strokes = print_summary(os.path.join(OUT, "locust_stats.csv"))
    print(f"reports: {OUT}/locust_stats.csv, locust_failures.csv, report.html")
    if not strokes:
        print(f"FAILED: no stroke was measured: with {args.users} users Locust starts too few players to pair "
              f"(players are 6 in 10 users: use 4 or more), or the run was too short")
    return 1 if (failures or empty_error or rc not in (0,) or not strokes) else 0


def print_summary(path: str) -> Tuple[int, int]:
    """Print the request table of Locust's stats CSV; returns (failures, shot->broadcast requests)."""
    failures = strokes = 0
    with open(path) as f:
        rows = list(csv.DictReader(f))
    print(f"{'name':<18} {'count':>7} {'fail':>6} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for r in rows:
        if r["Name"] == "Aggregated":
            continue
        failures += int(r["Failure Count"])
        if r["Name"] == "shot->broadcast":
            strokes += int(r["Request Count"])
        print(f"{r['Name']:<18} {r['Request Count']:>7} {r['Failure Count']:>6} {r['50%']:>8} {r['90%']:>8} {r['99%']:>8} "
              f"{float(r['Max Response Time']):8.0f}")
    return failures, strokes


if __name__ == "__main__":
    raise SystemExit(main())
