"""Locust's ``--rated --accounts FILE``: two players from the file (one registered before, one absent) sign in, pair by
rated quick play, play rated games and see each game's ``game_rated``; a real server process with its database."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from loadtest.serverproc import ROOT, start_server, stop_server, wait_empty

# the loadtest extras (make loadtest installs them); found, not imported: Locust's gevent patches the process
pytestmark = pytest.mark.skipif(importlib.util.find_spec("locust") is None, reason="locust not installed")


def _post(port: int, path: str, body: dict) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def _profile(port: int, name: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/players/{name}", timeout=15) as r:
        return json.loads(r.read())


def test_locust_rated_players_from_an_accounts_file(tmp_path):
    port = 8796
    data = str(tmp_path / "data")
    server = start_server(port, data, log_path=str(tmp_path / "server.log"), grace_s=2.0)
    try:
        assert _post(port, "/api/account/register", {"username": "Ann", "password": "ann password 1"}) == 201
        accounts = tmp_path / "accounts.txt"
        accounts.write_text("Ann:ann password 1\nBob:bob password 1\n")
        env = dict(os.environ, BILLAR_TARGET="1", BILLAR_THINK_S="0.1")
        locust = os.path.join(os.path.dirname(sys.executable), "locust")
        out = subprocess.run([locust, "-f", os.path.join(ROOT, "loadtest", "locustfile.py"), "PlayerUser", "--headless",
                              "-u", "2", "-r", "2", "-t", "25s", "--host", f"ws://127.0.0.1:{port}/ws", "--csv",
                              str(tmp_path / "locust"), "--only-summary", "--stop-timeout", "10",
                              "--exit-code-on-error", "0", "--rated", "--accounts", str(accounts)],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
        assert out.returncode == 0, out.stderr[-3000:]
        with open(tmp_path / "locust_stats.csv") as f:
            rows = {r["Name"]: r for r in csv.DictReader(f)}
        assert int(rows["Aggregated"]["Failure Count"]) == 0, out.stderr[-3000:]
        assert int(rows["sign in"]["Request Count"]) == 2
        rated = int(rows["rated"]["Request Count"])
        assert rated >= 2, rows  # each player saw at least one game_rated
        games = []
        for name in ("Ann", "Bob"):
            r = next(x for x in _profile(port, name)["ratings"] if x["discipline"] == "three_cushion")
            games.append(r["games"])
        assert games[0] == games[1] >= 1  # they played each other
        assert _post(port, "/api/account/login", {"username": "Bob", "password": "bob password 1"}) == 200  # registered
        wait_empty(port, timeout=30.0)
    finally:
        stop_server(server, data_dir=data)
