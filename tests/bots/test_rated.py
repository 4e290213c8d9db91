"""``billar bots --rated``: rated games between registered players, through the HTTP API and the WebSocket handshake
a browser uses (bots/accounts.py), against a real server with a database."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import urllib.error
import urllib.request
from urllib.parse import quote

import pytest

from bots.accounts import AccountsFileError, read_accounts

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BILLAR = os.path.join(os.path.dirname(sys.executable), "billar")
# 14.1 to one point: the lowest target, and no draw (a carom game may end drawn after the equalizing inning)
GAME = ("--discipline", "14.1", "--target", "1", "--level", "3")


async def run_cli(*args: str, timeout: float = 300.0):
    proc = await asyncio.create_subprocess_exec(BILLAR, "bots", *args, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE, cwd=ROOT)
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    return proc.returncode, out.decode(), err.decode()


def _http(port: int, method: str, path: str, body=None):
    """(status, JSON body) of one request (no Origin header: an API client's)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


async def http(port: int, method: str, path: str, body=None):
    return await asyncio.to_thread(_http, port, method, path, body)


async def profile(port: int, name: str) -> dict:
    st, body = await http(port, "GET", f"/api/players/{quote(name)}")
    assert st == 200, (name, st, body)
    return body


def pool_rating(prof: dict):
    return next((r for r in prof["ratings"] if r["discipline"] == "straight_pool"), None)


def rated_lines(out: str):
    """{seat: (name, before, after)} from the summary's ``rated seat`` lines, and the winner seat."""
    winner = int(re.search(r"winner seat (\d)", out).group(1))
    seats = {}
    for m in re.finditer(r"rated seat (\d) (\S+): ([\d.]+) -> ([\d.]+)", out):
        seats[int(m.group(1))] = (m.group(2), float(m.group(3)), float(m.group(4)))
    return winner, seats


async def check_rated_game(port: int, out: str) -> dict:
    """The game of the summary was rated: the winner went up, the loser down, both profiles show one rated game at
    the ratings the summary printed. Returns {name: seat}."""
    assert "games rated        1 / 1" in out, out
    winner, seats = rated_lines(out)
    assert sorted(seats) == [0, 1], out
    for seat, (name, before, after) in seats.items():
        r = pool_rating(await profile(port, name))
        assert r is not None and r["games"] == 1, (name, r)
        assert abs(r["rating"] - after) <= 0.5, (name, r, after)
        assert before == 1500.0
        if seat == winner:
            assert after > 1500.0 and r["rating"] > 1500, (name, r)
        else:
            assert after < 1500.0 and r["rating"] < 1500, (name, r)
    return {name: seat for seat, (name, _, _) in seats.items()}


async def test_rated_game_with_an_accounts_file(db_server, tmp_path):
    port = db_server.port
    st, body = await http(port, "POST", "/api/account/register", {"username": "Ann", "password": "ann password 1"})
    assert st == 201, body
    created = (await profile(port, "Ann"))["created_at"]
    st, _ = await http(port, "GET", "/api/players/Bob")
    assert st == 404
    accounts = tmp_path / "accounts.txt"
    accounts.write_text("# players of the test\n\nAnn:ann password 1\n  Bob:bob:pass:word  \n")
    rc, out, err = await run_cli("--url", f"ws://127.0.0.1:{port}/ws", "--rated", "--accounts", str(accounts), *GAME)
    assert rc == 0, out + err
    assert "account Ann: logged in" in out and "account Bob: registered" in out, out
    names = await check_rated_game(port, out)
    assert set(names) == {"Ann", "Bob"} and names["Ann"] == 0  # the file's order: the first creates the table
    assert (await profile(port, "Ann"))["created_at"] == created  # logged in, not made again
    # Bob's password is everything after the first ':' (spaces kept)
    st, body = await http(port, "POST", "/api/account/login", {"username": "Bob", "password": "bob:pass:word  "})
    assert st == 200, body


async def test_rated_game_with_throwaway_accounts(db_server):
    port = db_server.port
    rc, out, err = await run_cli("--url", f"ws://127.0.0.1:{port}/ws", "--rated", *GAME)
    assert rc == 0, out + err
    made = re.findall(r"account (\S+): registered", out)
    assert len(made) == 2 and "logged in" not in out, out
    assert all(re.fullmatch(r"bot[0-9a-f]{12}", n) for n in made), made
    names = await check_rated_game(port, out)
    assert set(names) == set(made)


async def test_malformed_accounts_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "accounts.txt"
    bad.write_text("# ok so far\nAnn:ann password 1\n\nBob has no colon\n")
    rc, out, err = await run_cli("--url", "ws://127.0.0.1:9/ws", "--rated", "--accounts", str(bad))
    assert rc == 2, out + err
    assert "line 4" in err and str(bad) in err and "name:password" in err, err
    short = tmp_path / "short.txt"
    short.write_text("Ann:ann password 1\nBob:short\n")
    rc, out, err = await run_cli("--url", "ws://127.0.0.1:9/ws", "--rated", "--accounts", str(short))
    assert rc == 2 and "line 2" in err and "password" in err, err
    one = tmp_path / "one.txt"
    one.write_text("Ann:ann password 1\n")
    rc, out, err = await run_cli("--url", "ws://127.0.0.1:9/ws", "--rated", "--accounts", str(one))
    assert rc == 2 and "2 needed" in err, err
    rc, out, err = await run_cli("--url", "ws://127.0.0.1:9/ws", "--accounts", str(one))
    assert rc == 2 and "--rated" in err or "only with" in err, err


def test_read_accounts(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("\n# c\n Ann : pw:with:colons \r\n#Bob:x\nCid:12345678\n")
    got = read_accounts(str(f))
    assert [(c.name, c.password, c.line) for c in got] == [("Ann", " pw:with:colons ", 3), ("Cid", "12345678", 5)]
    for text, line in [("Ann:12345678\nann:87654321\n", 2), ("x:12345678\n", 1), (":12345678\n", 1),
                       ("Ann:1234567\n", 1), ("Ann12345678\n", 1)]:
        f.write_text(text)
        with pytest.raises(AccountsFileError, match=f"line {line}"):
            read_accounts(str(f))


async def test_wrong_password_is_a_clear_error(db_server, tmp_path):
    port = db_server.port
    st, body = await http(port, "POST", "/api/account/register", {"username": "Ann", "password": "the right one"})
    assert st == 201, body
    accounts = tmp_path / "accounts.txt"
    accounts.write_text("Ann:the wrong one\nBob:bob password\n")
    rc, out, err = await run_cli("--url", f"ws://127.0.0.1:{port}/ws", "--rated", "--accounts", str(accounts), *GAME)
    assert rc == 1, out + err
    assert "account Ann: login failed: wrong password" in err, err
    assert pool_rating(await profile(port, "Ann")) is None  # no game was played


async def test_too_many_failed_logins_is_a_clear_error(db_server, tmp_path):
    port = db_server.port
    st, body = await http(port, "POST", "/api/account/register", {"username": "Ann", "password": "the right one"})
    assert st == 201, body
    for i in range(40):  # the address's budget of failed logins (30 in 15 minutes) spent (4 a name: no name locked)
        st, _ = await http(port, "POST", "/api/account/login", {"username": f"Zed{i // 4}", "password": "not this one"})
        if st == 429:
            break
    assert st == 429
    accounts = tmp_path / "accounts.txt"
    accounts.write_text("Ann:the right one\nBob:bob password\n")
    rc, out, err = await run_cli("--url", f"ws://127.0.0.1:{port}/ws", "--rated", "--accounts", str(accounts), *GAME)
    assert rc == 1, out + err
    assert "account Ann: login refused with 429" in err and "too many failed logins" in err, err


async def test_rated_players_resume_as_themselves_through_dropped_connections(db_server, monkeypatch):
    """Each player's connection drops once mid-game: the bot connects again with its session cookie, so the
    ``resume`` of its seat is that account's (a guest's would be refused ``login_required``) and the game ends
    rated."""
    from server.session import Session as ServerSession
    from test_resume import FAST, Drops

    from bots.accounts import Credentials
    from bots.client import run_tables

    drops = Drops(db_server, names=("Ann", "Bob"))
    monkeypatch.setattr(ServerSession, "on_frame", drops.on_frame(ServerSession.on_frame))
    url = f"ws://127.0.0.1:{db_server.port}/ws"
    stats = await run_tables(url, 1, "three_cushion", {"distance": 2}, level=1, think_s=0.04, timeout_s=240, seed=4,
                             retry=FAST, rated=True,
                             accounts=[Credentials("Ann", "ann password 1"), Credentials("Bob", "bob password 1")])
    assert stats.errors == [] and stats.games_finished == 1, (stats.errors, drops.dropped)
    assert set(drops.dropped) == {"Ann", "Bob"} and stats.resumes == 2
    assert sorted(stats.accounts) == ["Ann: registered", "Bob: registered"]
    table = stats.results[0]["table"]
    assert sorted(r["name"] for r in stats.rated[table]) == ["Ann", "Bob"]
    for name in ("Ann", "Bob"):
        three = [x for x in (await profile(db_server.port, name))["ratings"] if x["discipline"] == "three_cushion"]
        assert len(three) == 1 and three[0]["games"] == 1, three
