"""The database handle: one async engine for PostgreSQL (asyncpg) or SQLite (aiosqlite), one code path.

:func:`database_url` picks the URL: ``DATABASE_URL`` when set, else an embedded SQLite file
``<data_dir>/billar.db``. :class:`Database` wraps the engine with the two kinds of transaction
the rest uses:

- ``db.read()``: a connection for queries in autocommit mode (no BEGIN/COMMIT round trips);
- ``db.write()``: a transaction that writes. On SQLite it starts with ``BEGIN IMMEDIATE``, taking
  the database's single writer lock at once, so a read-modify-write (a rating update) of one
  process never interleaves with another's; on PostgreSQL it is an ordinary READ COMMITTED
  transaction and the writers lock the rows they change (``SELECT ... FOR UPDATE``).

SQLite connections run in WAL mode (readers do not wait for the writer), with foreign keys on and
a busy timeout, so a second process waits for the writer lock instead of failing at once.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import AsyncIterator, Mapping, Optional

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

#: seconds a SQLite connection waits for another process's writer lock before giving up
SQLITE_BUSY_TIMEOUT_S = 30.0
_WRITE = "billar_write"


def database_url(data_dir: str = "var", env: Optional[Mapping[str, str]] = None) -> str:
    """``DATABASE_URL`` from ``env`` (default ``os.environ``) if set, else ``sqlite+aiosqlite:///<data_dir>/billar.db``.

    Raises ``ValueError`` naming ``DATABASE_URL`` for a URL of a driver other than asyncpg or aiosqlite.
    """
    env = os.environ if env is None else env
    url = (env.get("DATABASE_URL") or "").strip()
    if not url:
        return f"sqlite+aiosqlite:///{Path(data_dir).resolve() / 'billar.db'}"
    check_url(url)
    return url


def check_url(url: str) -> str:
    """``url`` if it names a supported backend; ``ValueError`` naming ``DATABASE_URL`` otherwise."""
    try:
        u = make_url(url)
    except Exception as exc:
        raise ValueError(f"DATABASE_URL: not a database URL ({exc})") from None
    if u.drivername not in ("postgresql+asyncpg", "sqlite+aiosqlite"):
        raise ValueError(f"DATABASE_URL: expected postgresql+asyncpg://... or sqlite+aiosqlite:///..., got {u.drivername}://")
    return url


class Database:
    """An async engine over ``url`` with :meth:`read` and :meth:`write` transactions.

    ``schema`` (PostgreSQL only) puts every table in that schema (it is the connections'
    ``search_path``): the tests give each run its own. ``pool_size`` bounds the connections to
    PostgreSQL. ``echo`` logs the SQL (never on in production: it would log the bound values).
    """

    def __init__(self, url: str, *, schema: Optional[str] = None, pool_size: int = 10, echo: bool = False):
        check_url(url)
        self.url = url
        u = make_url(url)
        self.dialect = "sqlite" if u.drivername.startswith("sqlite") else "postgresql"
        self.schema = schema
        if self.dialect == "sqlite":
            if u.database and u.database != ":memory:":
                Path(u.database).parent.mkdir(parents=True, exist_ok=True)
            self.engine: AsyncEngine = create_async_engine(
                url, echo=echo, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})
            _sqlite_setup(self.engine)
        else:
            connect_args = {}
            if schema:
                connect_args["server_settings"] = {"search_path": schema}
            self.engine = create_async_engine(url, echo=echo, pool_size=pool_size, max_overflow=pool_size,
                                              pool_pre_ping=False, connect_args=connect_args)

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A connection for queries, each statement on its own (autocommit: no BEGIN/COMMIT round trips).

        Several statements see each its own committed state; a reader that needs one snapshot of
        several tables uses :meth:`write` (or one statement).
        """
        async with self.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            yield conn

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """A writing transaction: committed when the block ends, rolled back when it raises."""
        async with self.engine.connect() as conn:
            if self.dialect == "sqlite":
                await conn.execution_options(**{_WRITE: True})
            async with conn.begin():
                yield conn

    async def close(self) -> None:
        await self.engine.dispose()


def _sqlite_setup(engine: AsyncEngine) -> None:
    """pysqlite's own transaction handling off; BEGIN (or BEGIN IMMEDIATE for writes) emitted here.

    This is SQLAlchemy's documented recipe for SQLite transactions that behave as written.
    """

    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        cur.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(_WRITE) else "BEGIN")
