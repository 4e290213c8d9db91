"""``billar serve --workers 2``: two processes on one port (SO_REUSEPORT) around one embedded Redis."""

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request

import psutil

from cluster_harness import ROOT, Match, plan_miss
from harness import Client
from protocol import inbound as I
from test_cluster_game import seat_two, watch


class Port:
    def __init__(self, port):
        self.port = port


def serve_workers(pid):
    """The ``billar serve`` worker processes under the supervisor ``pid`` (not the embedded Redis's guard)."""
    return [c for c in psutil.Process(pid).children() if "serve" in c.cmdline()]


def start_workers(tmp_path):
    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    return subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--workers", "2", "--port", "0", "--data-dir",
                             str(tmp_path / "var"), "--log-level", "WARNING"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


async def test_workers_share_one_port_and_one_embedded_redis(tmp_path):
    proc = start_workers(tmp_path)
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 90)
        m = re.search(r":(\d+) .*2 workers", line)
        assert m, line
        port = int(m.group(1))

        def health():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                return json.loads(r.read())

        seen = {}
        for _ in range(100):  # new connections are spread over both processes by the kernel
            h = await asyncio.to_thread(health)
            seen[h["node"]] = h
            if len(seen) == 2 and all(h["nodes"] == 2 for h in seen.values()):  # each sees the other beat
                break
            await asyncio.sleep(0.05)
        assert len(seen) == 2 and all(h["cluster"] and h["nodes"] == 2 for h in seen.values()), seen
        srv = Port(port)
        ann, bob = await Client.open(srv, "ann"), await Client.open(srv, "bob")
        watchers = [await Client.open(srv, f"w{i}") for i in range(4)]
        tid, ta, tb = await seat_two(ann, bob, config={"distance": 5, "breaker": 0})
        snap = None
        for w in watchers:
            snap = await watch(w, tid)
        match = Match(tid, {0: [ann, ta], 1: [bob, tb]}, watchers, snap, plan=plan_miss)
        for _ in range(3):
            await match.step()  # every client, on either process, gets the same bytes in the same order
        assert match.v == 5
        proc.send_signal(signal.SIGTERM)
        for c in (ann, bob, *watchers):
            assert (await c.closed()) in (1001, 1012)
        assert await asyncio.to_thread(proc.wait, 60) == 0
        err = proc.stderr.read()
        assert "Traceback" not in err, err[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_a_killed_worker_is_replaced_and_its_tables_adopted(tmp_path):
    proc = start_workers(tmp_path)
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 90)
        port = int(re.search(r":(\d+) ", line).group(1))
        srv = Port(port)
        ann, bob = await Client.open(srv, "ann"), await Client.open(srv, "bob")
        tid, ta, tb = await seat_two(ann, bob, config={"distance": 5, "breaker": 0})
        workers = serve_workers(proc.pid)
        assert len(workers) == 2
        victim = workers[0]
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
        for _ in range(300):  # the parent starts another worker
            live = [c.pid for c in serve_workers(proc.pid)]
            if len(live) == 2 and victim.pid not in live:
                break
            await asyncio.sleep(0.05)
        assert len(live) == 2 and victim.pid not in live
        for cl in (ann, bob):
            await cl.close()
        # whichever worker it was on, the table is served again: a player resumes through the port
        ann2 = await Client.open(srv, "ann")
        await ann2.send(I.Resume(table=tid, token=ta))
        await ann2.expect("seated", seat=0, timeout=15.0)
        snap = await ann2.expect("table_snapshot", timeout=15.0)
        assert snap["table"] == tid and snap["seats"][1]["name"] == "bob"
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_a_killed_supervisor_takes_its_workers_and_the_embedded_redis_with_it(tmp_path):
    """SIGKILL of the parent: the kernel sends each worker SIGTERM (they drain and exit) and the guard
    then shuts the embedded redis-server down: nothing keeps serving or running."""
    proc = start_workers(tmp_path)
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 90)
        port = int(re.search(r":(\d+) ", line).group(1))
        ann = await Client.open(Port(port), "ann")
        await ann.send(I.CreateTable(discipline="three_cushion", config={"distance": 5}))
        await ann.expect("seated")
        workers = serve_workers(proc.pid)
        guards = [c for c in psutil.Process(proc.pid).children() if "server.embedded" in c.cmdline()]
        assert len(workers) == 2 and len(guards) == 1
        import redis

        sock = guards[0].cmdline()[-1]
        redis_pids = [psutil.Process(redis.Redis(unix_socket_path=sock).info()["process_id"])]
        proc.kill()
        proc.wait()
        gone, alive = await asyncio.to_thread(psutil.wait_procs, workers + redis_pids + guards, 45)
        assert alive == [], [p.pid for p in alive]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
