"""A billar server in a child process for the load tests, and the end-of-run check that it is empty again.

``start_server`` runs ``billar serve`` on 127.0.0.1 (embedded Redis under ``data_dir``),
optionally pinned to CPU cores with ``taskset``, and waits for ``/healthz``. ``counters`` reads
the gauges of ``/metrics``; :func:`wait_empty` waits until every connection, table and
spectator gauge is 0 and the lobby (asked over the protocol) lists no table, and raises
``AssertionError`` naming what is left otherwise.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Dict, List, Optional, Sequence

from websockets.asyncio.client import connect

import protocol
from protocol import inbound as I

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BILLAR = os.path.join(os.path.dirname(sys.executable), "billar")
GAUGES = ("billar_connections", "billar_tables_active", "billar_spectators", "billar_players_connected",
          "billar_lobby_subscribers")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now (the kernel's pick), for a test server that must not collide with another run."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def start_server(port: int, data_dir: str, cpus: Optional[Sequence[int]] = None, log_path: Optional[str] = None,
                 grace_s: float = 60.0, fresh: bool = True, redis_url: Optional[str] = None,
                 key_prefix: Optional[str] = None, root: Optional[str] = None) -> subprocess.Popen:
    """Start ``billar serve`` on 127.0.0.1:``port``; returns the process once ``/healthz`` answers (60 s at most).

    ``fresh`` empties ``data_dir`` first (no table restored from an earlier run). ``redis_url``:
    use that Redis (on this machine) instead of the embedded one, under ``key_prefix``. ``root``:
    run the server of another checkout (its own ``.venv``), e.g. to compare with an earlier
    revision in one run. Every table of a load test comes from 127.0.0.1: the per-address table
    limit is lifted (BILLAR_MAX_TABLES_PER_ADDRESS=0). Raises ``RuntimeError`` when the server does not
    come up.
    """
    with socket.socket() as probe:  # another server on the port would answer /healthz in this one's place
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT is no obstacle
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            raise RuntimeError(f"port {port} is in use (another server?): choose another (--port)") from None
    if fresh and os.path.isdir(data_dir):
        shutil.rmtree(data_dir)
    os.makedirs(data_dir, exist_ok=True)
    billar = BILLAR if root is None else os.path.join(root, ".venv", "bin", "billar")
    cmd = [billar, "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", data_dir, "--grace", str(grace_s),
           "--log-level", "WARNING"]
    if redis_url:
        cmd += ["--redis-url", redis_url, "--key-prefix", key_prefix or f"capacity-{os.getpid()}:"]
    if cpus:
        cmd = ["taskset", "-c", ",".join(str(c) for c in cpus)] + cmd
    out = open(log_path, "w") if log_path else subprocess.DEVNULL
    env = dict(os.environ)
    env.pop("REDIS_URL", None)  # the embedded Redis, always, and a SQLite database under the data dir
    env.pop("DATABASE_URL", None)
    env.pop("BILLAR_DATABASE_SCHEMA", None)
    env["BILLAR_MAX_TABLES_PER_ADDRESS"] = "0"
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=root or ROOT, env=env)
    end = time.monotonic() + 60.0
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} (log: {log_path})")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1.0) as r:
                if r.status == 200 and proc.poll() is None:
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("server did not answer /healthz within 60 s")


def embedded_redis_pids(data_dir: str) -> List[int]:
    """Process ids of the embedded redis-server working in ``data_dir`` (found through /proc/<pid>/cwd)."""
    want = os.path.abspath(data_dir)
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{name}/cwd")
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"redis-server" in cmd and cwd.replace(" (deleted)", "") == want:
            out.append(int(name))
    return out


def pin(pid: int, cpus: Sequence[int]) -> None:
    """Move process ``pid`` to ``cpus`` (sched_setaffinity)."""
    os.sched_setaffinity(pid, set(cpus))


def stop_server(proc: subprocess.Popen, timeout: float = 20.0, data_dir: Optional[str] = None) -> int:
    """SIGTERM (graceful shutdown), then SIGKILL after ``timeout`` seconds; returns the exit code.

    With ``data_dir``, an embedded redis-server still running there afterwards is stopped too
    (seen on this machine: it can outlive ``billar serve``)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if data_dir is not None:
        pids = embedded_redis_pids(data_dir)
        for sig in (15, 9):  # redis-server may refuse SIGTERM when its final save fails
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
            end = time.monotonic() + 5.0
            while time.monotonic() < end and any(os.path.exists(f"/proc/{p}") for p in pids):
                time.sleep(0.1)
    return proc.returncode


def metrics(port: int) -> Dict[str, float]:
    """``/metrics`` as ``{"name{labels}": value}`` (Prometheus text exposition, comments skipped)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5.0) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, val = line.rpartition(" ")
            out[key] = float(val)
    return out


async def lobby_tables(port: int) -> List[dict]:
    """The lobby's tables, asked over the protocol (hello, lobby_subscribe, the ``lobby`` reply)."""
    async with connect(f"ws://127.0.0.1:{port}/ws", compression=None, ping_interval=None) as ws:
        await ws.send(protocol.encode_client(I.Hello(protocol=protocol.PROTOCOL_VERSION, name="check")))
        await ws.send(protocol.encode_client(I.LobbySubscribe()))
        while True:
            msg = protocol.decode_server(await asyncio.wait_for(ws.recv(), 10.0))
            if msg["type"] == "lobby":
                return msg["tables"]


def wait_empty(port: int, timeout: float = 30.0) -> Dict[str, float]:
    """Wait until the server's gauges are all 0 and the lobby is empty; returns the gauges.

    The lobby check opens one connection itself, so the gauges are read before and after it.
    Raises ``AssertionError`` with what is left after ``timeout`` seconds.
    """
    end = time.monotonic() + timeout
    while True:
        g = {k: v for k, v in metrics(port).items() if k in GAUGES}
        lobby = asyncio.run(lobby_tables(port)) if not any(g.values()) else None
        if lobby == []:
            time.sleep(0.3)
            g = {k: v for k, v in metrics(port).items() if k in GAUGES}
            if not any(g.values()):
                return g
        if time.monotonic() > end:
            raise AssertionError(f"server not empty after the run: {g}, lobby {lobby}")
        time.sleep(0.5)
