"""Database fixtures: every database test runs on SQLite and, when ``DATABASE_URL`` is set, on PostgreSQL.

Each test gets a fresh database: a SQLite file in its temporary directory, or on PostgreSQL a
schema of its own (``t_<random>``), migrated with the shipped Alembic migrations and dropped
afterwards.
"""

from __future__ import annotations

import os
import uuid

import pytest
from argon2 import PasswordHasher

from server.db import Database, upgrade

BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("DATABASE_URL") else [])


class DbFactory:
    """Makes the test's database (``url``, ``schema``) and more engines on it (as other processes would)."""

    def __init__(self, backend: str, tmp_path):
        self.backend = backend
        if backend == "sqlite":
            self.url = f"sqlite+aiosqlite:///{tmp_path / 'billar.db'}"
            self.schema = None
        else:
            self.url = os.environ["DATABASE_URL"]
            self.schema = f"t_{uuid.uuid4().hex[:12]}"
        self.engines = []

    async def migrate(self) -> str:
        return await upgrade(self.url, schema=self.schema)

    def engine(self, **kw) -> Database:
        db = Database(self.url, schema=self.schema, pool_size=kw.pop("pool_size", 5), **kw)
        self.engines.append(db)
        return db

    async def close(self) -> None:
        for db in self.engines:
            await db.close()
        if self.schema:
            admin = Database(self.url, pool_size=1)
            async with admin.write() as conn:
                await conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
            await admin.close()


@pytest.fixture(params=BACKENDS)
async def dbf(request, tmp_path):
    f = DbFactory(request.param, tmp_path)
    await f.migrate()
    yield f
    await f.close()


@pytest.fixture
async def db(dbf):
    return dbf.engine()


@pytest.fixture
def hasher():
    """Argon2id with small parameters: the real algorithm, fast enough for many logins in a test."""
    return PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1)
