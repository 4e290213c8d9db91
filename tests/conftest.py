"""Shared pytest set-up.

The compiled cores must be the ones imported: no silent pure-Python fallback. A missing or
stale build fails the whole run loudly here.
"""

import glob
import importlib
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _compiled_modules():
    mods = [os.path.splitext(p)[0].replace(os.sep, ".") for p in glob.glob("physics/*.pyx", root_dir=ROOT)]
    for p in glob.glob("rules/**/*.py", root_dir=ROOT, recursive=True):
        if not p.endswith("__init__.py"):
            mods.append(os.path.splitext(p)[0].replace(os.sep, "."))
    return sorted(mods)


def pytest_sessionstart(session):
    bad = []
    for name in _compiled_modules():
        mod = importlib.import_module(name)
        if not (mod.__file__ or "").endswith(".so"):
            bad.append(f"{name} -> {mod.__file__}")
    if bad:
        raise pytest.UsageError(
            "compiled extensions are not the ones imported (run `make build`): " + "; ".join(bad)
        )


# puzzle mining of finished games runs in the background of a server (server/puzzles/service.py): off in the
# tests, except the test of mining itself, which turns it on for its own server
os.environ.setdefault("BILLAR_PUZZLE_MINING", "0")
