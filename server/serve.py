"""The options of ``billar serve`` (server/app.py runs it) and the garbage-collector tuning of a serving process.

Options override the environment variables of :mod:`server.config` (BILLAR_HOST, BILLAR_PORT,
REDIS_URL, BILLAR_DATA_DIR, BILLAR_GRACE_S, BILLAR_ORIGINS, BILLAR_KEY_PREFIX, BILLAR_STATIC_DIR,
BILLAR_LOG_LEVEL, BILLAR_CLUSTER, BILLAR_REUSE_PORT).

``--workers N`` runs N processes sharing the port and one Redis (server/workers.py);
``--cluster`` makes this process one of several on one ``REDIS_URL`` (docs/deploy.md).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import time
from typing import Optional

from server.config import Settings, from_env


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``billar serve``."""
    p.add_argument("--host", help="interface to bind (default 127.0.0.1; env BILLAR_HOST)")
    p.add_argument("--port", type=int, help="TCP port (default 8765; env BILLAR_PORT; 0 picks a free one)")
    p.add_argument("--redis-url", help="Redis to use, redis://host:port/db or unix:///path (env REDIS_URL); "
                                       "default: an embedded Redis under --data-dir")
    p.add_argument("--data-dir", help="embedded Redis data directory (default ./var; env BILLAR_DATA_DIR)")
    p.add_argument("--grace", type=float, dest="grace_s", help="seconds a disconnected player's seat is held (default 60)")
    p.add_argument("--origin", action="append", dest="origins",
                   help="allowed Origin of browser connections (repeatable; default any; env BILLAR_ORIGINS)")
    p.add_argument("--key-prefix", help="prefix of every Redis key (default billar:)")
    p.add_argument("--log-level", help="DEBUG, INFO, WARNING (default INFO)")
    p.add_argument("--workers", type=int, default=1,
                   help="run N server processes on this port (SO_REUSEPORT) around one Redis (default 1)")
    p.add_argument("--cluster", action="store_true", default=None,
                   help="this process shares REDIS_URL with others (env BILLAR_CLUSTER=1; implied by --workers)")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The settings of ``billar serve``: its options over the environment (server/config.py)."""
    return from_env(
        host=args.host, port=args.port, redis_url=args.redis_url, data_dir=args.data_dir, grace_s=args.grace_s,
        origins=tuple(args.origins) if args.origins else None, key_prefix=args.key_prefix, log_level=args.log_level,
        cluster=args.cluster,
    )


def worker_argv(args: argparse.Namespace) -> list:
    """The options each worker gets (host, port and Redis come through the environment, see server/workers.py)."""
    out = []
    if args.grace_s is not None:
        out += ["--grace", str(args.grace_s)]
    for o in args.origins or ():
        out += ["--origin", o]
    if args.key_prefix:
        out += ["--key-prefix", args.key_prefix]
    if args.log_level:
        out += ["--log-level", args.log_level]
    return out


GC_THRESHOLDS = (2_000, 10, 10)
"""Garbage-collector thresholds of a serving process (CPython's default is (700, 10, 10)); with
:class:`GcPolicy` only the young generation is ever scanned between full collections."""


def resident_bytes() -> int:
    """This process's resident memory in bytes (Linux: /proc/self/statm; elsewhere the peak, ``ru_maxrss``)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class GcPolicy:
    """How a serving process collects garbage: young objects only, survivors out of sight, everything again when
    the process's memory has grown by a quarter, at most once every ten minutes.

    With thousands of connections CPython's generational collector stops the event loop for as long as it
    walks its generations: bench/capacity.py measured, at 3,000 tables (12,000 connections), young
    collections of 100,000 objects at 55 ms each every 2-4 s under thresholds (100000, 50, 100), and middle
    ones of 170 ms; every such pause delays the strokes that arrive meanwhile (the p99 shot-to-broadcast
    latency went from 12 ms to 160-290 ms). Here:

    - at start-up, everything that exists is moved to the permanent generation (``gc.freeze``);
    - a young collection runs every ``GC_THRESHOLDS[0]`` net allocations (about 2 ms), collecting the
      short-lived cycles (exceptions and their tracebacks, futures, coroutines);
    - after every collection its survivors are frozen too, so that no collection walks them again;
    - every ``check_every_s`` the process's resident memory is read; when it is more than ``1 + growth``
      times what it was after the last full collection, and that was at least ``min_interval_s`` ago,
      everything is unfrozen and collected once (the cycles among objects that lived long, such as a closed
      connection's, are freed then) and what survives is frozen again. CPython's own rule for its oldest
      generation is alike (a full collection once the objects promoted since the last one pass 25 % of those
      it kept); the memory stands for the objects because counting the frozen ones
      (``gc.get_freeze_count``) walks all of them, half a second at 19,600 connections.

    A full collection is long (about 1.2 s at 19,600 connections, bench/capacity.py): at most one every
    ``min_interval_s`` (10 minutes), and none while the population of long-lived objects holds steady. (At
    4,900 tables playing a stroke every 5 s the game histories grow by about 50,000 objects a second: on
    CPython's rule alone a full collection would stop the loop every 30 s or so.)
    """

    def __init__(self, growth: float = 0.25, check_every_s: float = 30.0, min_interval_s: float = 600.0,
                 thresholds: tuple = GC_THRESHOLDS):
        self.growth, self.check_every_s, self.min_interval_s, self.thresholds = growth, check_every_s, min_interval_s, thresholds
        self._last_full = time.monotonic()
        self.baseline = 0  # resident bytes after the last full collection
        self._timer: Optional[asyncio.TimerHandle] = None
        self.full_collections = 0

    def install(self) -> None:
        """Collect and freeze what exists, set the thresholds, hook the collections and start the growth checks
        (in the running loop). Undone by :meth:`uninstall`."""
        gc.collect()
        gc.freeze()
        self.baseline = resident_bytes()
        gc.set_threshold(*self.thresholds)
        if self._after not in gc.callbacks:
            gc.callbacks.append(self._after)
        if self.growth > 0:
            self._timer = asyncio.get_running_loop().call_later(self.check_every_s, self._check)

    def uninstall(self) -> None:
        if self._after in gc.callbacks:
            gc.callbacks.remove(self._after)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    @staticmethod
    def _after(phase: str, info: dict) -> None:
        if phase == "stop":  # the collection is over: its survivors (and what is older) out of the collector's sight
            gc.freeze()

    def _check(self) -> None:
        if (resident_bytes() > self.baseline * (1.0 + self.growth)
                and time.monotonic() - self._last_full >= self.min_interval_s):
            self.full_collect()
        self._timer = asyncio.get_running_loop().call_later(self.check_every_s, self._check)

    def full_collect(self) -> None:
        """Unfreeze, collect everything, freeze the survivors (a long pause: see the class docstring)."""
        self.full_collections += 1
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.baseline = resident_bytes()
        self._last_full = time.monotonic()


def tune_gc(growth: float) -> GcPolicy:
    """Install the serving process's :class:`GcPolicy` (in the running loop; ``growth``: Settings.gc_full_growth,
    0 for no full collection) and return it."""
    policy = GcPolicy(growth)
    policy.install()
    return policy
