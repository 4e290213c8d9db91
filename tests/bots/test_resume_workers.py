"""``billar bots`` against ``billar serve --workers 2`` (two processes on one port, embedded Redis): the worker
that owns the table is killed with SIGKILL mid-game, and the bots (a subprocess) still finish the game, every
stroke played once. The test finds which worker owns the table by asking each one directly: it opens a socket
to the shared port, looks up (psutil) which worker accepted it, and reads that worker's ``/healthz``."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request

import psutil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BILLAR = os.path.join(os.path.dirname(sys.executable), "billar")


def get_from_worker(port: int, workers: list, path: str):
    """(worker pid, body) of ``GET path`` answered by whichever worker the kernel gives the connection to."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        mine = s.getsockname()[1]
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        pid = next((w for w in workers
                    if any(c.raddr and c.raddr.port == mine and c.laddr.port == port
                           for c in psutil.Process(w).net_connections("tcp"))), None)
    return pid, data.split(b"\r\n\r\n", 1)[1]


def per_worker(port: int, workers: list, path: str, tries: int = 200) -> dict:
    """{worker pid: body of ``GET path``} from every worker."""
    out = {}
    for _ in range(tries):
        pid, body = get_from_worker(port, workers, path)
        if pid is not None:
            out[pid] = body
        if len(out) == len(workers):
            return out
    raise AssertionError(f"not every worker answered: {sorted(out)} of {workers}")


def figure(out: str, name: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(name))[len(name):].strip()


async def test_bots_finish_a_game_whose_worker_is_killed(tmp_path):
    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    server = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--workers", "2", "--port", "0",
                               "--data-dir", str(tmp_path / "var"), "--log-level", "WARNING"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bots = None
    try:
        line = await asyncio.wait_for(asyncio.to_thread(server.stdout.readline), 90)
        port = int(re.search(r":(\d+) .*2 workers", line).group(1))
        workers = [c.pid for c in psutil.Process(server.pid).children() if "server.cli" in c.cmdline()]  # not Redis
        assert len(workers) == 2
        bots = await asyncio.create_subprocess_exec(
            BILLAR, "bots", "--url", f"ws://127.0.0.1:{port}/ws", "--tables", "1", "--spectators", "2",
            "--discipline", "three_cushion", "--target", "3", "--level", "1", "--think", "0.15", "--seed", "2",
            "--timeout", "120", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT)
        owner = None
        for _ in range(300):  # the worker holding the table, once three strokes are played there
            health = await asyncio.to_thread(per_worker, port, workers, "/healthz")
            owners = [pid for pid, body in health.items() if json.loads(body)["tables"] == 1]
            if owners:
                metrics = dict(await asyncio.to_thread(per_worker, port, workers, "/metrics"))
                strokes = re.search(rb"^billar_strokes_total (\S+)", metrics[owners[0]], re.M)
                if strokes and float(strokes.group(1)) >= 3:
                    owner = owners[0]
                    break
            await asyncio.sleep(0.1)
        assert owner is not None, "no stroke played"
        assert bots.returncode is None, "the game ended before the kill"
        os.kill(owner, signal.SIGKILL)
        out, err = await asyncio.wait_for(bots.communicate(), 150)
        out, err = out.decode(), err.decode()
        assert bots.returncode == 0, out + err
        assert figure(out, "games finished") == "1 / 1" and figure(out, "errors") == "0", out
        assert figure(out, "stream gaps") == "0"
        assert int(figure(out, "reconnects")) >= 1  # at least the creator's connection was on the killed worker
        assert int(figure(out, "resumes")) == 2  # both players seated again: by their resume or by the server
        table = next(ln.split()[1].rstrip(":") for ln in out.splitlines() if ln.strip().startswith("table "))
        body = await asyncio.to_thread(
            lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/records/{table}.json", timeout=10).read())
        rec = json.loads(body)
        strokes = [s for s in rec["strokes"] if s.get("lag") or s.get("stroke")]
        assert len(strokes) == int(figure(out, "strokes"))  # nothing lost, nothing played twice
        for seat in (0, 1):
            seqs = [s["seq"] for s in rec["strokes"] if s.get("player") == seat and s.get("seq") is not None]
            assert seqs == sorted(set(seqs)), seqs
        assert rec["result"] and max(rec["result"]["scores"]) == 3
    finally:
        if bots is not None and bots.returncode is None:
            bots.kill()
            await bots.wait()
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(server.wait, 60)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
