"""server/db: URLs, migrations (the shipped revisions build exactly the models' schema), transactions on both backends."""

import datetime as dt

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import insert, select, text

from server.cli import main as billar
from server.db import Database, database_url, upgrade
from server.db.migrate import head_revision
from server.db.models import accounts, metadata


def test_database_url_defaults_to_sqlite_under_the_data_dir(tmp_path):
    assert database_url(str(tmp_path), env={}) == f"sqlite+aiosqlite:///{tmp_path / 'billar.db'}"
    pg = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
    assert database_url(str(tmp_path), env={"DATABASE_URL": pg}) == pg
    with pytest.raises(ValueError, match="DATABASE_URL"):
        database_url(str(tmp_path), env={"DATABASE_URL": "mysql://x"})
    with pytest.raises(ValueError, match="DATABASE_URL"):
        database_url(str(tmp_path), env={"DATABASE_URL": "postgresql://postgres@h/db"})  # sync driver


async def test_migrations_build_the_models_schema(dbf, db):
    assert head_revision() == "0006"
    async with db.read() as conn:
        def diff(sync_conn):
            ctx = MigrationContext.configure(sync_conn, opts={"compare_type": True})
            return ctx.get_current_revision(), compare_metadata(ctx, metadata)
        rev, changes = await conn.run_sync(diff)
    assert rev == "0006"
    assert changes == []
    # a second upgrade is a no-op
    assert await dbf.migrate() == "0006"


async def test_times_round_trip_as_aware_utc(db):
    t = dt.datetime(2026, 12, 1, 21, 30, 5, 123456, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    async with db.write() as conn:
        await conn.execute(insert(accounts).values(username="Ann", username_key="ann", created_at=t))
    async with db.read() as conn:
        got = (await conn.execute(select(accounts.c.created_at))).scalar()
    assert got == t and got.tzinfo == dt.timezone.utc and got.hour == 19
    with pytest.raises(Exception, match="naive"):
        async with db.write() as conn:
            await conn.execute(insert(accounts).values(username="Bo", username_key="bo",
                                                       created_at=dt.datetime(2026, 1, 1)))


async def test_write_rolls_back_on_error(db):
    with pytest.raises(RuntimeError):
        async with db.write() as conn:
            await conn.execute(insert(accounts).values(username="Ann", username_key="ann",
                                                       created_at=dt.datetime.now(dt.timezone.utc)))
            raise RuntimeError("boom")
    async with db.read() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM accounts"))).scalar() == 0


def test_cli_db_upgrade(tmp_path, capsys):
    url = f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"
    assert billar(["db", "upgrade", "--url", url]) == 0
    assert "at revision 0006" in capsys.readouterr().out
    assert billar(["db", "upgrade", "--url", "mysql://nope"]) == 2
    assert "DATABASE_URL" in capsys.readouterr().err


async def test_migration_0003_recomputes_username_keys_without_orphaning(tmp_path, hasher):
    """Accounts stored with the keys of before (separators kept) are found by their names after 0003; an
    account whose new key is another's keeps its old one, and both still log in and have profiles."""
    from server.players.accounts import Accounts
    from server.players.names import key_before_0005 as canonical_key  # the key of revisions 0003-0004
    from server.players.names import legacy_key
    from server.players.queries import player_games, profile

    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    assert await upgrade(url, revision="0002") == "0002"
    db = Database(url)
    t = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)
    pw = hasher.hash("correct horse battery")
    async with db.write() as conn:
        for name in ["Ann 4712", "bob4712", "bob_4712", "Cy.d"]:
            await conn.execute(insert(accounts).values(username=name, username_key=legacy_key(name), created_at=t,
                                                       password_hash=pw, password_changed_at=t))
    assert await upgrade(url, revision="0003") == "0003"
    async with db.read() as conn:
        keys = dict((await conn.execute(select(accounts.c.username, accounts.c.username_key))).all())
    assert keys == {"Ann 4712": canonical_key("ann4712"), "bob4712": canonical_key("bob4712"),
                    "bob_4712": legacy_key("bob_4712"), "Cy.d": canonical_key("cyd")}
    assert legacy_key("bob_4712") != canonical_key("bob_4712") and legacy_key("Cy.d") != canonical_key("Cy.d")
    acc = Accounts(db, hasher=hasher)
    for typed, shown in [("Ann 4712", "Ann 4712"), ("ann4712", "Ann 4712"), ("bob4712", "bob4712"),
                         ("bob_4712", "bob_4712"), ("Cy.d", "Cy.d"), ("CYD", "Cy.d")]:
        assert (await acc.login(typed, "correct horse battery"))[0].username == shown, typed
        assert (await profile(db, typed))["username"] == shown, typed
        assert (await player_games(db, typed, None, 5))["username"] == shown, typed
    for taken in ["ann_4712", "Bob.4712", "c y d"]:
        with pytest.raises(Exception) as e:
            await acc.register(taken, "correct horse battery")
        assert e.value.code == "username_taken", taken
    await db.close()


async def test_migration_0005_makes_keys_blind_to_case_without_orphaning(tmp_path, hasher):
    """Keys of before 0005 made "mike" and "MIKE" two names (QA). After 0005 a lone "Jim" is under its new key
    (found as "JIM" too), "mike" and "MIKE" registered before both keep logging in, "Mike" can no longer be
    registered, and a deleted account keeps the key that keeps its old name taken."""
    from server.players.accounts import Accounts
    from server.players.names import canonical_key, key_before_0005

    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    assert await upgrade(url, revision="0004") == "0004"
    db = Database(url)
    t = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)
    pw = hasher.hash("correct horse battery")
    async with db.write() as conn:
        for name in ["mike", "MIKE", "Jim", "bob"]:
            await conn.execute(insert(accounts).values(username=name, username_key=key_before_0005(name), created_at=t,
                                                       password_hash=pw, password_changed_at=t))
        await conn.execute(insert(accounts).values(username="deleted-00ff", username_key=key_before_0005("Milo"),
                                                   created_at=t, deleted_at=t, password_hash=None))
    assert key_before_0005("mike") != key_before_0005("MIKE") == canonical_key("mike")
    assert await upgrade(url, revision="0005") == "0005"
    async with db.read() as conn:
        keys = dict((await conn.execute(select(accounts.c.username, accounts.c.username_key))).all())
    assert keys == {"mike": key_before_0005("mike"), "MIKE": canonical_key("MIKE"), "Jim": canonical_key("jim"),
                    "bob": "bob", "deleted-00ff": key_before_0005("Milo")}
    assert canonical_key("Jim") != key_before_0005("Jim")
    acc = Accounts(db, hasher=hasher)
    for typed, shown in [("mike", "mike"), ("MIKE", "MIKE"), ("Jim", "Jim"), ("JIM", "Jim"), ("BOB", "bob")]:
        assert (await acc.login(typed, "correct horse battery"))[0].username == shown, typed
    for taken in ["Mike", "jim", "JlM", "B0B"]:
        with pytest.raises(Exception) as e:
            await acc.register(taken, "correct horse battery")
        assert e.value.code == "username_taken", taken
    await db.close()
