"""Run the Alembic migrations shipped in ``server/db/migrations``: :func:`upgrade` and ``billar db upgrade``.

No ``alembic.ini``: the configuration is built here, so the migrations go wherever the package
is installed. ``billar serve`` calls :func:`upgrade_database` at start; operators can run
``billar db upgrade [--url URL]`` beforehand (the URL defaults to :func:`server.db.engine.database_url`).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Optional

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from server.db.engine import Database, database_url

MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(url: Optional[str] = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision() -> str:
    """The newest revision the package ships."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


#: the PostgreSQL advisory lock that serializes migrations: processes starting together (a cluster, a
#: rolling restart) take turns, and each finds the revision the one before it left
MIGRATION_LOCK_KEY = 0x62696C6C6172  # "billar"


async def upgrade_database(db: Database, revision: str = "head") -> str:
    """Migrate ``db`` to ``revision`` (default the newest) in one transaction; returns the revision now in place.

    Safe when several processes start at once: on PostgreSQL the transaction first takes the
    advisory lock :data:`MIGRATION_LOCK_KEY` (and creates ``db.schema`` when it is missing, under that
    lock); on SQLite it begins with ``BEGIN IMMEDIATE``, the database's single writer lock.
    """
    cfg = alembic_config(db.url)

    def run(sync_conn) -> str:
        cfg.attributes["connection"] = sync_conn
        command.upgrade(cfg, revision)
        return MigrationContext.configure(sync_conn).get_current_revision()

    async with db.engine.connect() as conn:
        if db.dialect == "sqlite":
            await conn.execution_options(billar_write=True)
        async with conn.begin():
            if db.dialect == "postgresql":
                await conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
                if db.schema:
                    await conn.exec_driver_sql(f'CREATE SCHEMA IF NOT EXISTS "{_ident(db.schema)}"')
            return await conn.run_sync(run)


async def upgrade(url: str, *, schema: Optional[str] = None, revision: str = "head") -> str:
    """Migrate the database at ``url`` (in ``schema`` on PostgreSQL, created when missing) to ``revision``.

    Returns the revision now in place. Raises ``ValueError`` for an unsupported URL; database
    errors (unreachable server, refused login) propagate as SQLAlchemy's ``OperationalError``.
    """
    db = Database(url, schema=schema, pool_size=1)
    try:
        return await upgrade_database(db, revision)
    finally:
        await db.close()


def _ident(name: str) -> str:
    if not name.replace("_", "").isalnum() or not name.isascii() or len(name) > 63:
        raise ValueError(f"schema: expected letters, digits and _ (at most 63), got {name!r}")
    return name


# ----- billar db ---------------------------------------------------------------------------------
def register(subparsers) -> None:
    p = subparsers.add_parser("db", help="the relational database (accounts, ratings, finished games)")
    sub = p.add_subparsers(dest="db_command", required=True)
    up = sub.add_parser("upgrade", help="apply the database migrations (also done by billar serve at start)")
    up.add_argument("--url", help="database URL (default: DATABASE_URL, else sqlite under --data-dir)")
    up.add_argument("--data-dir", default=None, help="where the embedded SQLite file lives (default ./var; env BILLAR_DATA_DIR)")
    up.add_argument("--revision", default="head", help="target revision (default: the newest)")
    up.set_defaults(func=_main_upgrade)


def _main_upgrade(args: argparse.Namespace) -> int:
    import os

    url = args.url or database_url(args.data_dir or os.environ.get("BILLAR_DATA_DIR") or "var")
    rev = asyncio.run(upgrade(url, revision=args.revision))
    print(f"billar db: at revision {rev} ({_safe(url)})")
    return 0


def _safe(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
