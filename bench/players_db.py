"""The players' database at scale (issue 15), against PostgreSQL: bulk load, API latency, recording cost, bytes per game.

Usage: ``.venv/bin/python bench/players_db.py [--url URL] [--accounts 100000] [--games 1000000]
[--concurrency 100] [--requests 3000] [--record 300] [--keep]``

``--url`` defaults to ``DATABASE_URL`` (``postgresql+asyncpg://postgres@127.0.0.1:5432/test``).
Everything lives in a schema of its own (``bench_players_<pid>``), dropped at the end unless
``--keep``.

1. **Load.** ``--accounts`` accounts and ``--games`` finished games between random pairs of them
   (disciplines weighted as a carom-and-pool site might see them, 80 % rated), each game with
   both players' rows, the Glicko-2 updates of the rated ones computed for real in game order
   (ratings and rating history), the statistics, and a stored record. The bulk games' records
   are small stand-ins (a record without strokes, about 250 bytes compressed): a million real
   records would take 30-85 GB here. Written with COPY (asyncpg ``copy_records_to_table``).
2. **Recording.** ``--record`` real finished games (the recorded 14.1, three-cushion and pentathlon
   games of tests/rules/data, 26-50 strokes) go through ``record_game`` between bench accounts:
   database time per game (the transaction's wall time, both rating updates included) and the
   bytes the database grows by per game (``pg_total_relation_size`` of every table, before and
   after, divided by the count).
3. **Reads.** Through ``PlayersApi.handle`` in this process, ``--concurrency`` tasks send
   requests back to back (``--requests`` in all per kind): a profile, a player's game list
   (first page and a page deep in the list), a game record (bulk and real ones), a leaderboard.
   Latency per request from the moment it is sent, p50/p99/max, and requests per second. The
   first row is the floor: a bare asyncpg ``SELECT 1`` per request at the same concurrency and
   pool size (the machine's own round-trip cost at that moment; other jobs share its two cores).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import gzip
import json
import os
import random
import statistics
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "players"))

import asyncpg  # noqa: E402
from argon2 import PasswordHasher  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from server.api import ApiRequest, PlayersApi  # noqa: E402
from server.db import Database, upgrade  # noqa: E402
from server.players import glicko2  # noqa: E402
from server.players.accounts import Accounts  # noqa: E402
from server.players.games import LEADERBOARD_RD, record_game  # noqa: E402
from server.players.names import canonical_key  # noqa: E402

DISCIPLINES = [("three_cushion", 35), ("straight_pool", 30), ("libre", 10), ("balkline_47_2", 6), ("one_cushion", 6),
               ("balkline_71_2", 4), ("balkline_47_1", 3), ("pentathlon", 3), ("triathlon", 3)]
UTC = dt.timezone.utc


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def stand_in_record(gid, table, disc, names, result):
    rec = {"discipline": disc, "config": {}, "seed": gid, "table": table, "game": 1, "players": names,
           "result": result, "preset": None, "strokes": []}
    return gzip.compress(json.dumps(rec, separators=(",", ":")).encode(), 6, mtime=0)


async def load(pg, n_accounts, n_games, rng):
    t0 = time.perf_counter()
    start = dt.datetime(2025, 12, 1, tzinfo=UTC)
    hashed = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1).hash("bench password")
    names = [f"player{i:06d}" for i in range(1, n_accounts + 1)]
    await pg.copy_records_to_table("accounts", columns=["id", "username", "username_key", "password_hash", "created_at"],
                                   records=((i + 1, n, canonical_key(n), hashed, start) for i, n in enumerate(names)))
    t_acc = time.perf_counter() - t0
    discs = [d for d, _ in DISCIPLINES]
    weights = [w for _, w in DISCIPLINES]
    # skewed activity: some players play far more than others
    activity = [rng.paretovariate(1.2) for _ in range(n_accounts)]
    cur = {}  # (account, discipline) -> [Rating, rated_games, rated_at]
    st = {}   # (account, discipline) -> [games, wins, draws, losses, points, innings, high_run, best, best_gid]
    games_rows, players_rows, hist_rows, rec_rows = [], [], [], []
    span = 365 * 86400.0
    picks_a = rng.choices(range(1, n_accounts + 1), weights=activity, k=n_games)
    picks_b = rng.choices(range(1, n_accounts + 1), weights=activity, k=n_games)
    hist_id = 0
    t_gen = time.perf_counter()

    async def flush():
        await pg.copy_records_to_table("games", columns=["id", "table_id", "game_no", "discipline", "config", "seed",
                                                          "rated", "result", "winner", "strokes", "started_at",
                                                          "finished_at", "recorded_at"], records=games_rows)
        await pg.copy_records_to_table("game_records", columns=["game_id", "format", "data"], records=rec_rows)
        await pg.copy_records_to_table("game_players", columns=[
            "game_id", "seat", "account_id", "name", "discipline", "finished_at", "score", "points", "innings",
            "high_run", "average", "rating_before", "rating_after", "rd_before", "rd_after"], records=players_rows)
        await pg.copy_records_to_table("rating_history", columns=["id", "account_id", "discipline", "game_id", "at",
                                                                   "rating", "rd"], records=hist_rows)
        for rows in (games_rows, rec_rows, players_rows, hist_rows):
            rows.clear()

    for gid in range(1, n_games + 1):
        a, b = picks_a[gid - 1], picks_b[gid - 1]
        if a == b:
            b = a % n_accounts + 1
        disc = rng.choices(discs, weights)[0]
        fin = start + dt.timedelta(seconds=span * gid / n_games)
        began = fin - dt.timedelta(minutes=rng.uniform(10, 60))
        rated = rng.random() < 0.8
        w = rng.choices([0, 1, None], [48, 48, 4])[0]
        score = [0.5, 0.5] if w is None else ([1.0, 0.0] if w == 0 else [0.0, 1.0])
        inn = [rng.randint(8, 50)] * 2
        pts = [max(0, int(inn[s] * rng.uniform(0.3, 4.0))) for s in (0, 1)]
        hr = [max(1, min(pts[s], int(rng.expovariate(1 / max(1.0, pts[s] / 6))))) for s in (0, 1)]
        result = {"winner": w, "scores": pts, "points": pts, "innings_total": inn, "high_runs": hr}
        games_rows.append((gid, f"bench{gid:07d}", 1, disc, "{}", gid, rated, json.dumps(result), w, 2 * inn[0], began,
                           fin, fin))
        nm = [names[a - 1], names[b - 1]]
        rec_rows.append((gid, 1, stand_in_record(gid, f"bench{gid:07d}", disc, nm, result)))
        before = [None, None]
        after = [None, None]
        if rated:
            rs = []
            days = []
            for acc in (a, b):
                c = cur.get((acc, disc))
                if c is None:
                    c = cur[(acc, disc)] = [glicko2.NEW_PLAYER, 0, fin]
                rs.append(c[0])
                days.append((fin - c[2]).total_seconds() / 86400 if c[1] else 0.0)
            na, nb = glicko2.rate_game(rs[0], rs[1], score[0], days[0], days[1])
            for s, (acc, new) in enumerate(((a, na), (b, nb))):
                before[s] = glicko2.decay(rs[s], days[s])
                after[s] = new
                c = cur[(acc, disc)]
                c[0], c[1], c[2] = new, c[1] + 1, fin
                hist_id += 1
                hist_rows.append((hist_id, acc, disc, gid, fin, new.rating, new.rd))
        for s, acc in enumerate((a, b)):
            avg = pts[s] / inn[s]
            players_rows.append((gid, s, acc, nm[s], disc, fin, score[s], pts[s], inn[s], hr[s], avg,
                                 before[s].rating if before[s] else None, after[s].rating if after[s] else None,
                                 before[s].rd if before[s] else None, after[s].rd if after[s] else None))
            x = st.get((acc, disc))
            if x is None:
                x = st[(acc, disc)] = [0, 0, 0, 0, 0, 0, 0, 0.0, None, fin]
            x[0] += 1
            x[1 + (0 if score[s] == 1 else 1 if score[s] == 0.5 else 2)] += 1
            x[4] += pts[s]
            x[5] += inn[s]
            x[6] = max(x[6], hr[s])
            if avg > x[7]:
                x[7], x[8] = avg, gid
            x[9] = fin
        if len(games_rows) >= 50_000:
            await flush()
    await flush()
    await pg.copy_records_to_table("ratings", columns=["account_id", "discipline", "rating", "rd", "volatility",
                                                       "rated_games", "rated_at", "active_until"],
                                   records=[(acc, d, c[0].rating, c[0].rd, c[0].volatility, c[1], c[2],
                                             c[2] + dt.timedelta(days=glicko2.days_until_rd(c[0], LEADERBOARD_RD)))
                                            for (acc, d), c in cur.items()])
    await pg.copy_records_to_table("statistics", columns=["account_id", "discipline", "games", "wins", "draws", "losses",
                                                          "points", "innings", "high_run", "best_average",
                                                          "best_game_id", "updated_at"],
                                   records=[(acc, d, *x) for (acc, d), x in st.items()])
    for seq, table, col in (("accounts_id_seq", "accounts", "id"), ("games_id_seq", "games", "id"),
                            ("rating_history_id_seq", "rating_history", "id")):
        await pg.execute(f"SELECT setval('{seq}', (SELECT max({col}) FROM {table}))")
    t_copy = time.perf_counter()
    await pg.execute("ANALYZE")
    t_end = time.perf_counter()
    return {"accounts_s": t_acc, "games_s": t_copy - t_gen, "analyze_s": t_end - t_copy, "total_s": t_end - t0,
            "ratings": len(cur), "statistics": len(st), "history": hist_id, "names": names,
            "now": start + dt.timedelta(seconds=span)}


async def db_bytes(pg):
    return await pg.fetchval("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
                             "ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'")


async def bench_record(db, pg, n, n_accounts, now, rng):
    from records_helpers import server_record
    from server.records import export

    kinds = ["three_cushion", "straight_pool", "pentathlon"]
    for k in kinds:  # warm the helpers' caches (the referee replay that builds them is not what is measured)
        server_record(k, "warm")
    from sqlalchemy import event

    stmt_s = []

    @event.listens_for(db.engine.sync_engine, "before_cursor_execute")
    def _before(conn, cursor, statement, parameters, context, executemany):
        conn.info["bench_t"] = time.perf_counter()

    @event.listens_for(db.engine.sync_engine, "after_cursor_execute")
    def _after(conn, cursor, statement, parameters, context, executemany):
        stmt_s.append(time.perf_counter() - conn.info["bench_t"])

    # the machine's floor for a durable commit of this size: one 64 KB row inserted and committed
    await pg.execute("CREATE TABLE IF NOT EXISTS bench_commit (id serial PRIMARY KEY, data bytea)")
    floor = []
    for _ in range(50):
        t = time.perf_counter()
        async with pg.transaction():
            await pg.execute("INSERT INTO bench_commit (data) VALUES ($1)", os.urandom(64 * 1024))
        floor.append(time.perf_counter() - t)
    await pg.execute("DROP TABLE bench_commit")
    before = await db_bytes(pg)
    db_s, wall, sizes, stmts = [], [], [], []
    for i in range(n):
        a = rng.randint(1, n_accounts)
        b = a % n_accounts + 1
        meta, entries = server_record(kinds[i % 3], f"real{uuid.uuid4().hex[:10]}", 1, accounts=[a, b], rated=True,
                                      t0=now.timestamp() + i)
        t = time.perf_counter()
        stmt_s.clear()
        out = await record_game(db, meta, entries, export)
        wall.append(time.perf_counter() - t)
        stmts.append(sum(stmt_s))
        assert out.recorded and out.rated and out.ratings[0] is not None
        db_s.append(out.db_seconds)
        sizes.append(await pg.fetchval("SELECT length(data) FROM game_records WHERE game_id = $1", out.game_id))
    after = await db_bytes(pg)
    ids = [r["game_id"] for r in await pg.fetch("SELECT game_id FROM game_records WHERE length(data) > 2000")]
    event.remove(db.engine.sync_engine, "before_cursor_execute", _before)
    event.remove(db.engine.sync_engine, "after_cursor_execute", _after)
    return {"db_ms": [x * 1e3 for x in db_s], "wall_ms": [x * 1e3 for x in wall], "bytes_per_game": (after - before) / n,
            "stmt_ms": [x * 1e3 for x in stmts], "floor_ms": [x * 1e3 for x in floor],
            "record_bytes": statistics.mean(sizes), "real_ids": ids}


async def bench_reads(api, kind, make_request, concurrency, total):
    lat = []
    errors = 0
    per = max(1, total // concurrency)

    async def user(u):
        nonlocal errors
        for i in range(per):
            req = make_request()
            t = time.perf_counter()
            resp = await api.handle(req)
            body = resp.body()
            lat.append(time.perf_counter() - t)
            if resp.status != 200 or not body:
                errors += 1

    cpu0, t0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(user(u) for u in range(concurrency)))
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    ms = [x * 1e3 for x in lat]
    return {"kind": kind, "n": len(ms), "p50": pct(ms, 50), "p99": pct(ms, 99), "max": max(ms), "rps": len(ms) / wall,
            "cpu_ms": cpu / len(ms) * 1e3, "errors": errors}


async def bench_floor(dsn, schema, concurrency, total, size):
    """The floor on this machine now: one bare asyncpg round trip (SELECT 1) per request, same concurrency and pool size."""
    pool = await asyncpg.create_pool(dsn, min_size=size, max_size=size, server_settings={"search_path": schema})
    lat = []
    per = max(1, total // concurrency)

    async def user():
        for _ in range(per):
            t = time.perf_counter()
            async with pool.acquire() as c:
                await c.fetchval("SELECT 1")
            lat.append(time.perf_counter() - t)

    cpu0, t0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(user() for _ in range(concurrency)))
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    await pool.close()
    ms = [x * 1e3 for x in lat]
    return {"kind": "floor: bare asyncpg SELECT 1", "n": len(ms), "p50": pct(ms, 50), "p99": pct(ms, 99), "max": max(ms),
            "rps": len(ms) / wall, "cpu_ms": cpu / len(ms) * 1e3, "errors": 0}


async def main(args):
    url = args.url or os.environ.get("DATABASE_URL") or "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
    schema = args.schema or f"bench_players_{os.getpid()}"
    u = make_url(url)
    dsn = u.set(drivername="postgresql").render_as_string(hide_password=False)
    rng = random.Random(2026)
    print(f"# players_db bench: schema {schema} on {u.render_as_string(hide_password=True)}; "
          f"{dt.datetime.now(UTC):%Y-%m-%d %H:%M} UTC; load average {os.getloadavg()[0]:.2f}")
    await upgrade(url, schema=schema)
    pg = await asyncpg.connect(dsn, server_settings={"search_path": schema})
    db = Database(url, schema=schema, pool_size=args.pool)
    try:
        if args.no_load:  # a schema a --keep run left: reuse its data
            n = await pg.fetchval("SELECT count(*) FROM accounts WHERE username LIKE 'player%'")
            lo = {"names": [f"player{i:06d}" for i in range(1, n + 1)],
                  "now": await pg.fetchval("SELECT max(finished_at) FROM games WHERE table_id LIKE 'bench%'")}
            args.accounts, args.games = n, await pg.fetchval("SELECT count(*) FROM games WHERE table_id LIKE 'bench%'")
            print(f"reusing {schema}: {args.accounts:,} accounts, {args.games:,} bulk games, "
                  f"database {await db_bytes(pg) / 2**20:,.0f} MiB")
        else:
            lo = await load(pg, args.accounts, args.games, rng)
        size = await db_bytes(pg)
        if not args.no_load:
            print(f"load: {args.accounts:,} accounts in {lo['accounts_s']:.1f} s; {args.games:,} games "
              f"({lo['ratings']:,} ratings, {lo['history']:,} rating history rows, {lo['statistics']:,} statistics rows) "
              f"generated and copied in {lo['games_s']:.1f} s; ANALYZE {lo['analyze_s']:.1f} s; total "
              f"{lo['total_s']:.1f} s; database {size / 2**20:,.0f} MiB")
        rec = await bench_record(db, pg, args.record, args.accounts, lo["now"], rng)
        real_ids = rec["real_ids"]
        api = PlayersApi(db, Accounts(db))
        api.clock = lambda: lo["now"] + dt.timedelta(days=1)
        names = lo["names"]
        heavy = [r["username"] for r in await pg.fetch(
            "SELECT a.username FROM statistics s JOIN accounts a ON a.id = s.account_id "
            "GROUP BY a.username ORDER BY sum(s.games) DESC LIMIT 200")]
        deep = {}
        for n in heavy[:50]:
            ids = [r["game_id"] for r in await pg.fetch(
                "SELECT gp.game_id FROM game_players gp JOIN accounts a ON a.id = gp.account_id "
                "WHERE a.username = $1 ORDER BY gp.game_id DESC OFFSET 500 LIMIT 1", n)]
            if ids:
                deep[n] = ids[0]
        H = {"host": "bench", "accept-encoding": "gzip"}

        def req(path, query=""):
            return ApiRequest("GET", path, query, H, b"", "127.0.0.1")

        kinds = [
            ("profile (random player)", lambda: req(f"/api/players/{rng.choice(names)}")),
            ("profile (most active 200)", lambda: req(f"/api/players/{rng.choice(heavy)}")),
            ("game list, first page", lambda: req(f"/api/players/{rng.choice(names)}/games")),
            ("game list, page past 500", lambda: (lambda n: req(f"/api/players/{n}/games", f"before={deep[n]}"))(
                rng.choice(list(deep)))),
            ("game record (stand-in)", lambda: req(f"/api/games/{rng.randint(1, args.games)}")),
            ("game record (real, 30-66 KB)", lambda: req(f"/api/games/{rng.choice(real_ids)}")),
            ("leaderboard", lambda: req(f"/api/leaderboard/{rng.choice(DISCIPLINES)[0]}")),
        ]
        for _, mk in kinds:  # warm up: connections, statement caches
            for _ in range(20):
                await api.handle(mk())
        # as billar serve does (server/serve.py): what exists after start-up is out of the collector's sight
        gc.collect()
        gc.freeze()
        gc.set_threshold(100_000, 50, 100)
        rows = [await bench_floor(dsn, schema, args.concurrency, args.requests, 2 * args.pool)]
        rows += [await bench_reads(api, k, mk, args.concurrency, args.requests) for k, mk in kinds]
        print(f"\nreads through PlayersApi.handle, {args.concurrency} concurrent, pool {args.pool}+{args.pool} connections")
        print(f"{'request':30} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'req/s':>8} {'CPU ms/req':>10} {'errors':>6}")
        for r in rows:
            print(f"{r['kind']:30} {r['n']:>6} {r['p50']:>8.2f} {r['p99']:>8.2f} {r['max']:>8.2f} {r['rps']:>8.0f} "
                  f"{r['cpu_ms']:>10.3f} {r['errors']:>6}")
        d, w = rec["db_ms"], rec["wall_ms"]
        print(f"\nrecord_game, {args.record} real games one after another (rated, both rating updates):")
        print(f"  database time (the transaction) p50 {pct(d, 50):.2f} ms, p99 {pct(d, 99):.2f} ms, max {max(d):.2f} ms; "
              f"whole call (with export, JSON, gzip) p50 {pct(w, 50):.1f} ms")
        sm, fl = rec["stmt_ms"], rec["floor_ms"]
        print(f"  of which the 7 statements p50 {pct(sm, 50):.2f} ms (p99 {pct(sm, 99):.2f}); the rest is BEGIN and the "
              f"durable COMMIT. Floor here: one 64 KB insert + COMMIT p50 {pct(fl, 50):.2f} ms, p99 {pct(fl, 99):.2f} ms")
        print(f"  bytes per game: the database grew {rec['bytes_per_game']:,.0f} B a game "
              f"(stored record {rec['record_bytes']:,.0f} B compressed on average)")
    finally:
        await db.close()
        if not args.keep:
            await pg.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await pg.close()


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url")
    p.add_argument("--accounts", type=int, default=100_000)
    p.add_argument("--games", type=int, default=1_000_000)
    p.add_argument("--concurrency", type=int, default=100)
    p.add_argument("--requests", type=int, default=3000)
    p.add_argument("--record", type=int, default=300)
    p.add_argument("--pool", type=int, default=10)
    p.add_argument("--keep", action="store_true", help="keep the schema (for --schema NAME --no-load runs)")
    p.add_argument("--schema", help="the schema to use (default bench_players_<pid>)")
    p.add_argument("--no-load", action="store_true", help="use the data already in --schema")
    asyncio.run(main(p.parse_args()))
