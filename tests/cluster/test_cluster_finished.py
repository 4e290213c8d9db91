"""A finished game reaches the database exactly once, also when its process dies between the last stroke and
the database write (issue 15): two real processes, one Redis, one database (PostgreSQL when DATABASE_URL is set,
else SQLite), the database held locked by the test while the owner is killed."""

import asyncio
import contextlib
import json
import os
import sqlite3

import pytest

from cluster_harness import Node, schema_of, stop_nodes
from harness import http_request as http
from harness import one_stroke_each, rated_table
from protocol import inbound as I

THREE = {"distance": 1, "breaker": 0}


@contextlib.asynccontextmanager
async def database_held(prefix, tmp):
    """Hold the test's database so that nobody can write to it (the database is 'down' for writers)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        import asyncpg
        from sqlalchemy.engine import make_url

        u = make_url(url)
        conn = await asyncpg.connect(host=u.host, port=u.port or 5432, user=u.username, password=u.password,
                                     database=u.database, server_settings={"search_path": schema_of(prefix)})
        tr = conn.transaction()
        await tr.start()
        await conn.execute("LOCK TABLE games IN EXCLUSIVE MODE")
        try:
            yield
        finally:
            await tr.rollback()
            await conn.close()
    else:
        db = sqlite3.connect(os.path.join(tmp, "billar-" + prefix.strip(":") + ".db"), isolation_level=None)
        db.execute("BEGIN EXCLUSIVE")
        try:
            yield
        finally:
            db.execute("ROLLBACK")
            db.close()


async def games_of(node, name):
    st, _, body = await http(node.port, "GET", f"/api/players/{name}/games")
    assert st == 200, body
    return json.loads(body)["games"]


async def test_a_game_whose_process_dies_before_the_database_write_is_recorded_once(redis_url, prefix, tmp_path):
    tmp = str(tmp_path)
    p1 = await Node(redis_url, prefix, "p1").start(tmp)
    p2 = await Node(redis_url, prefix, "p2").start(tmp)
    try:
        a, b, tid, ta, tb = await rated_table(p1.port, "three_cushion", THREE)
        await one_stroke_each(a, b, tid, ta, tb)  # a game resigned before both have played is not rated
        async with database_held(prefix, tmp):
            await b.send(I.Resign(table=tid, token=tb))
            while (await a.recv())["type"] != "ruling":
                pass
            import redis as redis_sync

            r = redis_sync.Redis.from_url(redis_url)
            try:
                assert r.smembers(f"{prefix}finished") == {f"{tid}:1".encode()}  # queued with the game's end
            finally:
                r.close()
            p1.kill()  # its database write is still waiting for the lock
        # the database is back: the other process finds the game in the queue and writes it, once
        for _ in range(100):
            if await games_of(p2, "Ann"):
                break
            await asyncio.sleep(0.2)
        ann, bob = await games_of(p2, "Ann"), await games_of(p2, "Bob")
        assert len(ann) == 1 and len(bob) == 1
        st, _, body = await http(p2.port, "GET", "/api/players/Ann")
        prof = json.loads(body)
        rating = next(x for x in prof["ratings"] if x["discipline"] == "three_cushion")
        assert rating["rating"] > 1500
        # a restarted p1 (or a second sweep) changes nothing: counted once
        p1b = await Node(redis_url, prefix, "p1b").start(tmp)
        await asyncio.sleep(3.0)
        assert len(await games_of(p2, "Ann")) == 1
        st, _, body = await http(p1b.port, "GET", "/api/players/Ann")
        assert json.loads(body)["ratings"] == prof["ratings"]
        stop_nodes([p1b])
    finally:
        stop_nodes([p2, p1])
