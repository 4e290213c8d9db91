"""Fixtures of the bot tests: a real server in-process (embedded Redis), and helpers to place games."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from server.app import Server
from server.config import Settings
from server.embedded import start_embedded
from server.metrics import parse_text


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    url, handle = start_embedded(str(tmp_path_factory.mktemp("redis-bots")))
    yield url
    del handle


@pytest.fixture
async def server(redis_url):
    srv = Server(Settings(port=0, redis_url=redis_url, key_prefix=f"bots-{uuid.uuid4().hex[:8]}:", ping_interval_s=None,
                          refresh_s=0.5, lobby_ttl_s=5.0))
    await srv.start()
    yield srv
    await srv.stop()


async def counters_back_to_zero(srv: Server, timeout: float = 10.0) -> dict:
    """Wait until the server holds no connection, table or spectator and its lobby is empty; returns the gauges."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        m = parse_text(srv.render_metrics())
        gauges = {k: m[k] for k in ("billar_connections", "billar_tables_active", "billar_spectators", "billar_players_connected")}
        lobby = await srv.store.lobby_list()
        if not any(gauges.values()) and not lobby:
            return gauges
        if loop.time() > end:
            raise AssertionError(f"counters not back to zero: {gauges}, lobby {lobby}")
        await asyncio.sleep(0.05)
