"""Browser end-to-end set-up: the built web client, a real `billar serve` process, Debian's Chromium.

- ``client_dist``: client_web/dist, rebuilt (``npm ci`` when node_modules is missing, then
  ``npm run build``) when a source file is newer than the build.
- ``live_server``: ``billar serve`` in a subprocess on a free port with its own embedded Redis
  under a temporary data directory, serving that build; stopped with SIGTERM at the end.
- ``browser``: Chromium driven by Playwright for Python (``/usr/bin/chromium``; Playwright's own
  browser downloads are never used).

Screenshots go to ``test-artifacts/`` at the repository root.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLIENT = os.path.join(ROOT, "client_web")
DIST_INDEX = os.path.join(CLIENT, "dist", "index.html")
ARTIFACTS = os.path.join(ROOT, "test-artifacts")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # pages of the same browser play against each other: none of them may be throttled as hidden
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]


def pytest_collection_modifyitems(items):
    here = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.browser)


def _client_sources():
    pats = ["src/**/*", "index.html", "package.json", "package-lock.json", "vite.config.ts", "tsconfig.json"]
    for pat in pats:
        for p in glob.glob(os.path.join(CLIENT, pat), recursive=True):
            if os.path.isfile(p):
                yield p


@pytest.fixture(scope="session")
def client_dist():
    """The client build, rebuilt when stale (same rule as the Makefile's client_web/dist/index.html)."""
    newest = max(os.path.getmtime(p) for p in _client_sources())
    if not os.path.exists(DIST_INDEX) or os.path.getmtime(DIST_INDEX) < newest:
        npm = shutil.which("npm")
        assert npm, "npm is needed to build client_web (Node 20 with npm)"
        if not os.path.isdir(os.path.join(CLIENT, "node_modules")):
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENT, check=True)
        subprocess.run([npm, "run", "build"], cwd=CLIENT, check=True)
    assert os.path.exists(DIST_INDEX)
    return os.path.dirname(DIST_INDEX)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, url: str, proc: subprocess.Popen, log_path: str):
        self.url = url
        self.proc = proc
        self.log_path = log_path

    def log_tail(self, n: int = 40) -> str:
        try:
            with open(self.log_path, "r", errors="replace") as fh:
                return "".join(fh.readlines()[-n:])
        except OSError:
            return ""


@pytest.fixture(scope="session")
def live_server(client_dist, tmp_path_factory):
    data = tmp_path_factory.mktemp("billar-e2e")
    port = _free_port()
    env = dict(os.environ)
    # its own embedded Redis under a temporary directory: nothing left behind in a shared Redis
    # ... and its own SQLite database there (DATABASE_URL's tests are the database tests)
    for k in ("REDIS_URL", "BILLAR_ORIGINS", "DATABASE_URL", "BILLAR_DATABASE_SCHEMA"):
        env.pop(k, None)
    env.update(
        BILLAR_HOST="127.0.0.1",
        BILLAR_PORT=str(port),
        BILLAR_DATA_DIR=str(data / "var"),
        BILLAR_STATIC_DIR=client_dist,
        BILLAR_LOG_LEVEL="WARNING",
        BILLAR_KEY_PREFIX=f"e2e-{uuid.uuid4().hex[:8]}:",
    )
    exe = os.path.join(os.path.dirname(sys.executable), "billar")
    cmd = [exe, "serve"] if os.path.exists(exe) else [sys.executable, "-m", "server.cli", "serve"]
    log_path = str(data / "server.log")
    log = open(log_path, "wb")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            log.close()
            raise RuntimeError("billar serve did not start:\n" + open(log_path, errors="replace").read()[-3000:])
        time.sleep(0.2)
    server = LiveServer(url, proc, log_path)
    yield server
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def _speaks(url: str, probe: dict) -> bool:
    """True unless the server answers the message ``probe`` with ``unknown_type`` (a server without
    that message type yet). One plain WebSocket connection: hello, the probe, the first reply."""
    import msgpack
    from websockets.sync.client import connect

    with connect(url.replace("http", "ws", 1) + "/ws", open_timeout=10) as ws:
        ws.send(msgpack.packb({"type": "hello", "protocol": 1, "name": "probe"}))
        while msgpack.unpackb(ws.recv(timeout=10))["type"] != "welcome":
            pass
        ws.send(msgpack.packb(probe))
        reply = msgpack.unpackb(ws.recv(timeout=10))
        return not (reply.get("type") == "error" and reply.get("code") == "unknown_type")


@pytest.fixture(scope="session")
def server_speaks(live_server):
    """``server_speaks(kind)`` for the server parts of issue 14 the lead adds after the server
    restructure (wire shapes fixed in the client brief): ``"rename"``, ``"aim"``. A browser test
    of such a feature calls ``pytest.skip`` with the reason when the running server lacks it, so it
    runs (and must pass) as soon as the server has it."""
    probes = {
        "rename": {"type": "rename", "name": "probe2"},
        "aim": {"type": "aim", "table": "no-such-table", "token": "t" * 24, "phi_deg": 0.0, "a": 0.0, "b": 0.0,
                "theta_deg": 0.0, "V0": 1.0, "cue_ball": None},
    }
    known: dict = {}

    def speaks(kind: str) -> bool:
        if kind not in known:
            known[kind] = _speaks(live_server.url, probes[kind])
        return known[kind]

    return speaks


@pytest.fixture(scope="session")
def browser():
    assert os.path.exists(CHROMIUM), f"{CHROMIUM} is missing: apt-get update && apt-get install -y chromium (make test does it)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(autouse=True)
def _close_contexts(request):
    """After each browser test, close every browser context it opened (with their pages). The
    browser lives for the whole session: a page left open keeps its WebSocket, its seat or its
    place among a table's spectators, and its timers (the shot clock's tick, the TV and tournament
    polls), so each test's leftovers made every later test in the worker slower (128 renderer
    processes half way through a run, at a load average of 35 on 2 cores)."""
    yield
    if "browser" in request.fixturenames:
        for ctx in list(request.getfixturevalue("browser").contexts):
            ctx.close()


@pytest.fixture(scope="session")
def artifacts():
    os.makedirs(ARTIFACTS, exist_ok=True)
    return ARTIFACTS
