"""Fixtures of the bot tests: a real server in-process (embedded Redis). Helpers live in bots_helpers.py."""

from __future__ import annotations

import uuid

import pytest

from server.app import Server
from server.config import Settings
from server.embedded import start_embedded


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    url, handle = start_embedded(str(tmp_path_factory.mktemp("redis-bots")))
    yield url
    del handle


@pytest.fixture
async def server(redis_url, tmp_path):
    """A server on the test's Redis prefix, its SQLite database in the test's own folder (never ./var)."""
    srv = Server(Settings(port=0, redis_url=redis_url, key_prefix=f"bots-{uuid.uuid4().hex[:8]}:", ping_interval_s=None,
                          refresh_s=0.5, lobby_ttl_s=5.0, database_url=f"sqlite+aiosqlite:///{tmp_path}/billar.db"))
    await srv.start()
    yield srv
    await srv.stop()


@pytest.fixture
def db_server(server):
    """The same server, named for the tests that use its database (accounts, rated games)."""
    return server
