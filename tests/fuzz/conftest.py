"""Fixtures of the fuzz tests: one Redis for the session (embedded, or ``REDIS_URL`` when set), a key prefix per
test (deleted afterwards), and the server and cluster test helpers on the import path (harness.py,
cluster_harness.py: a real ``billar serve`` process is a ``Node``)."""

import os
import sys
import uuid

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
for sub in ("server", "cluster"):
    path = os.path.join(TESTS, sub)
    if path not in sys.path:
        sys.path.insert(0, path)

from harness import delete_prefix  # noqa: E402
from server.embedded import start_embedded  # noqa: E402

BACKENDS = ["embedded"] + (["redis_url"] if os.environ.get("REDIS_URL") else [])


@pytest.fixture(scope="session")
def fuzz_embedded_url(tmp_path_factory):
    url, handle = start_embedded(str(tmp_path_factory.mktemp("fuzz-redis")))
    yield url
    try:
        handle.shutdown(nosave=True)
    except Exception:
        pass


@pytest.fixture(params=BACKENDS)
def redis_url(request, fuzz_embedded_url):
    return fuzz_embedded_url if request.param == "embedded" else os.environ["REDIS_URL"]


@pytest.fixture
def prefix(redis_url):
    p = f"fz-{uuid.uuid4().hex[:10]}:"
    yield p
    delete_prefix(redis_url, p)
