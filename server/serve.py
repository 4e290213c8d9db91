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
from typing import Callable, Optional

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
    p.add_argument("--loop", choices=LOOPS, default=os.environ.get("BILLAR_LOOP") or "uvloop",
                   help="the event loop: uvloop (default; env BILLAR_LOOP) or asyncio (the standard library's)")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The settings of ``billar serve``: its options over the environment (server/config.py)."""
    return from_env(
        host=args.host, port=args.port, redis_url=args.redis_url, data_dir=args.data_dir, grace_s=args.grace_s,
        origins=tuple(args.origins) if args.origins else None, key_prefix=args.key_prefix, log_level=args.log_level,
        cluster=args.cluster,
    )


LOOPS = ("uvloop", "asyncio")


def event_loop_factory(name: str) -> Optional[Callable[[], asyncio.AbstractEventLoop]]:
    """The factory of the serving process's event loop (``asyncio.Runner(loop_factory=...)``): uvloop's (libuv
    under the same asyncio interface: its callbacks, timers, sockets and selector are C, which bench/capacity.py
    measured as most of a stroke's cost outside the physics and the referee) or, for ``"asyncio"``, None (the
    standard library's loop). ``ValueError`` for another name."""
    if name == "uvloop":
        import uvloop

        return uvloop.new_event_loop
    if name == "asyncio":
        return None
    raise ValueError(f"unknown event loop {name!r} (one of {', '.join(LOOPS)})")


def worker_argv(args: argparse.Namespace) -> list:
    """The options each worker gets (host, port and Redis come through the environment, see server/workers.py)."""
    out = ["--loop", args.loop]
    if args.grace_s is not None:
        out += ["--grace", str(args.grace_s)]
    for o in args.origins or ():
        out += ["--origin", o]
    if args.key_prefix:
        out += ["--key-prefix", args.key_prefix]
    if args.log_level:
        out += ["--log-level", args.log_level]
    return out


GC_THRESHOLDS = (100_000, 50, 100)
"""Garbage-collector thresholds of a serving process (CPython's default is (700, 10, 10)).

With thousands of connections a full collection walks millions of live objects and stops the
event loop for hundreds of milliseconds: bench/capacity.py measured the p99 shot-to-broadcast
latency at 1,000 tables (4,000 connections) fall from 540-620 ms to 44 ms with these
thresholds (and from about 100 ms with no collector at all, the remaining stalls being others).
Reference cycles are still collected, only less often."""


def tune_gc() -> None:
    """Move what exists after start-up out of the collector's sight (``gc.freeze``) and make
    collections rarer (:data:`GC_THRESHOLDS`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
