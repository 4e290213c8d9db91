"""``billar serve --workers N``: N server processes on one machine, one port, one Redis.

The parent process starts the embedded Redis when no ``REDIS_URL`` is given (one for all the
workers), picks the port when ``--port 0``, and runs N ``billar serve`` children with
``BILLAR_CLUSTER=1`` and ``BILLAR_REUSE_PORT=1``: each binds the same port with SO_REUSEPORT
and the kernel spreads new connections over them. Any worker serves any table (server/cluster.py).

The parent forwards SIGTERM/SIGINT to every worker (each drains: hands its tables over, tells its
clients to reconnect) and exits when they have; a worker that dies otherwise (a crash, SIGKILL) is
started again after a second, while its tables are adopted by the others. Should the parent itself
be killed, the kernel sends each worker SIGTERM (Linux ``PR_SET_PDEATHSIG``), so no worker keeps
serving the port on its own; the embedded Redis has its own guard (server/embedded.py).
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import List, Optional

from server.config import ROOT, Settings
from server.embedded import start_embedded

log = logging.getLogger("billar.workers")

RESTART_DELAY_S = 1.0


def free_port(host: str) -> int:
    """A TCP port free on ``host`` right now (for ``--port 0``: every worker must bind the same one)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        s.bind((host, 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In a worker, before exec: ask the kernel for SIGTERM when the parent dies (Linux prctl; elsewhere nothing)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def worker_command(argv: List[str]) -> List[str]:
    """The command line of a worker: ``billar serve`` with the given options (no ``--workers``)."""
    return [sys.executable, "-m", "server.cli", "serve"] + argv


class Supervisor:
    """Runs and watches the worker processes. ``argv``: the options passed to each ``billar serve`` worker."""

    def __init__(self, settings: Settings, workers: int, argv: List[str]):
        self.settings, self.n, self.argv = settings, workers, argv
        self.procs: List[Optional[subprocess.Popen]] = [None] * workers
        self.stopping = False
        self.redis_url = settings.redis_url
        self._embedded = None
        self.port = settings.port

    def _env(self) -> dict:
        env = dict(os.environ)
        env.update(REDIS_URL=self.redis_url, BILLAR_CLUSTER="1", BILLAR_REUSE_PORT="1", BILLAR_PORT=str(self.port),
                   BILLAR_HOST=self.settings.host)
        return env

    def _spawn(self, i: int) -> subprocess.Popen:
        p = subprocess.Popen(worker_command(self.argv), cwd=ROOT, env=self._env(), stdout=subprocess.PIPE, text=True,
                             preexec_fn=_die_with_parent)
        line = p.stdout.readline()  # "billar serving on ..." once it listens (empty if it died)
        if not line:
            raise RuntimeError(f"worker {i} did not start (exit status {p.wait()})")
        threading.Thread(target=self._drain, args=(p,), daemon=True).start()
        return p

    @staticmethod
    def _drain(p: subprocess.Popen) -> None:
        for line in p.stdout:
            sys.stdout.write(line)

    def run(self) -> int:
        if self.redis_url is None:
            self.redis_url, self._embedded = start_embedded(self.settings.data_dir)
        if not self.port:
            self.port = free_port(self.settings.host)
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        try:
            for i in range(self.n):
                self.procs[i] = self._spawn(i)
        except RuntimeError as exc:
            print(f"billar: {exc}", file=sys.stderr, flush=True)
            self._stop_all()
            return 1
        print(f"billar serving on http://{self.settings.host}:{self.port} (WebSocket /ws, {self.n} workers)", flush=True)
        while not self.stopping:
            time.sleep(0.2)
            for i, p in enumerate(self.procs):
                if p is not None and p.poll() is not None and not self.stopping:
                    log.warning("worker exited; starting it again", extra={"worker": i, "status": p.returncode})
                    time.sleep(RESTART_DELAY_S)
                    if self.stopping:
                        break
                    try:
                        self.procs[i] = self._spawn(i)
                    except RuntimeError:
                        log.exception("worker restart failed", extra={"worker": i})
        return self._stop_all()

    def _on_signal(self, signum, frame) -> None:
        self.stopping = True

    def _stop_all(self) -> int:
        """SIGTERM every worker (they drain in parallel) and wait; returns 0 when all exited cleanly."""
        live = [p for p in self.procs if p is not None and p.poll() is None]
        for p in live:
            p.send_signal(signal.SIGTERM)
        status = 0
        for p in live:
            try:
                status |= p.wait(self.settings.drain_timeout_s + 30) != 0
            except subprocess.TimeoutExpired:
                p.kill()
                status = 1
        return int(status)
