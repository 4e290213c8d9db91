"""server/tournaments/store.py on SQLite and (DATABASE_URL) PostgreSQL: create, join/leave, start, save/load, finish."""

import asyncio
import datetime as dt

import pytest
from sqlalchemy import insert, update

from server.db.models import accounts, games, ratings
from server.tournaments import state as S
from server.tournaments import store

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


async def make_accounts(db, n, ratings_by_index=None):
    ids = []
    async with db.write() as conn:
        for i in range(n):
            res = await conn.execute(insert(accounts).values(username=f"p{i}", username_key=f"p{i}", created_at=NOW)
                                     .returning(accounts.c.id))
            ids.append(res.scalar_one())
        for i, r in (ratings_by_index or {}).items():
            await conn.execute(insert(ratings).values(account_id=ids[i], discipline="three_cushion", rating=r, rd=60,
                                                      volatility=0.06, rated_games=30, rated_at=NOW, active_until=NOW))
    return ids


def rr(**kw):
    base = dict(name="Sunday 3C", discipline="three_cushion", format="round_robin", config={"distance": 15},
                rated=True, min_players=2, max_players=4)
    base.update(kw)
    return store.Settings(**base)


async def test_create_validates_the_settings(db):
    [a] = await make_accounts(db, 1)
    bad = [
        rr(format="swiss"), rr(discipline="snooker"), rr(config={"no_such_key": 1}), rr(max_players=25),
        rr(min_players=5), rr(name="  "), rr(format="arena"), rr(duration_s=600),
        rr(starts_at=NOW - dt.timedelta(minutes=1)), rr(starts_at=dt.datetime(2027, 1, 1)),
        rr(format="single_elimination", config={"distance": 15, "draw_resolution": "draw"}), rr(no_show_s=5),
    ]
    for s in bad:
        with pytest.raises(S.TournamentError):
            await store.create_tournament(db, a, s, now=NOW)
    with pytest.raises(store.NotFound):
        await store.create_tournament(db, 999, rr(), now=NOW)
    tid = await store.create_tournament(db, a, rr(format="single_elimination",
                                                  max_players=64), now=NOW)
    t = await store.get_tournament(db, tid)
    assert t["status"] == "open" and t["config"] == {"distance": 15, "draw_resolution": "extra_inning"}
    assert t["entries"] == [] and t["players"] == 0 and t["created_by"] == a
    tid = await store.create_tournament(db, a, rr(format="arena", duration_s=1800, max_players=200,
                                                  starts_at=NOW + dt.timedelta(hours=1), discipline="14.1",
                                                  config={"target_points": 50}), now=NOW)
    t = await store.get_tournament(db, tid)
    assert t["discipline"] == "straight_pool" and t["starts_at"] == NOW + dt.timedelta(hours=1)


async def test_join_and_leave_before_the_start(db):
    ids = await make_accounts(db, 5)
    tid = await store.create_tournament(db, ids[0], rr(max_players=3), now=NOW)
    assert await store.join(db, tid, ids[0]) == store.Entry(joined=True, players=1, full=False)
    assert await store.join(db, tid, ids[0]) == store.Entry(joined=False, players=1, full=False)
    await store.join(db, tid, ids[1])
    assert await store.join(db, tid, ids[2]) == store.Entry(joined=True, players=3, full=True)
    with pytest.raises(store.Full):
        await store.join(db, tid, ids[3])
    assert await store.leave(db, tid, ids[1]) is True
    assert await store.leave(db, tid, ids[1]) is False
    assert (await store.join(db, tid, ids[3])).full
    assert (await store.get_tournament(db, tid))["entries"] == [ids[0], ids[2], ids[3]]
    with pytest.raises(store.NotFound):
        await store.join(db, tid + 100, ids[4])
    with pytest.raises(store.NotFound):
        await store.join(db, tid, 12345)
    async with db.write() as conn:
        await conn.execute(update(accounts).where(accounts.c.id == ids[4]).values(deleted_at=NOW))
    with pytest.raises(store.NotFound):
        await store.join(db, tid, ids[4])
    await store.start_tournament(db, tid, now=NOW)
    with pytest.raises(store.Closed):
        await store.leave(db, tid, ids[0])
    with pytest.raises(store.Closed):
        await store.join(db, tid, ids[1])


async def test_concurrent_joins_never_exceed_the_limit(dbf, db):
    ids = await make_accounts(db, 12)
    tid = await store.create_tournament(db, ids[0], rr(max_players=5), now=NOW)
    engines = [dbf.engine(pool_size=2) for _ in range(3)]

    async def one(i):
        try:
            return await store.join(engines[i % 3], tid, ids[i])
        except store.Full:
            return None

    out = await asyncio.gather(*(one(i) for i in range(12)))
    assert sum(1 for o in out if o is not None) == 5
    t = await store.get_tournament(db, tid)
    assert t["players"] == len(t["entries"]) == 5


async def test_start_seeds_by_rating_and_is_idempotent(db):
    ids = await make_accounts(db, 4, {2: 1900.0, 3: 1700.0})
    tid = await store.create_tournament(db, ids[0], rr(min_players=3), now=NOW)
    await store.join(db, tid, ids[0])
    await store.join(db, tid, ids[1])
    with pytest.raises(S.TournamentError, match="needs 3"):
        await store.start_tournament(db, tid, now=NOW)
    await store.join(db, tid, ids[2])
    await store.join(db, tid, ids[3])
    st = await store.start_tournament(db, tid, now=NOW)
    assert [e.id for e in st.entrants] == [ids[2], ids[3], ids[0], ids[1]]  # 1900, 1700, 1500 (lower id first)
    assert st.entrants[2].rating == 1500.0 and st.rated
    assert await store.start_tournament(db, tid, now=NOW + dt.timedelta(minutes=1)) == st
    assert await store.load_state(db, tid) == st
    assert (await store.get_tournament(db, tid))["status"] == "running"


async def test_save_is_compare_and_set_and_finish_keeps_standings_and_games(db):
    ids = await make_accounts(db, 3)
    tid = await store.create_tournament(db, ids[0], rr(), now=NOW)
    assert await store.load_state(db, tid) is None
    for a in ids:
        await store.join(db, tid, a)
    st = await store.start_tournament(db, tid, now=NOW)
    t = NOW.timestamp()
    # a game of the tournament already in the games table: it gets linked
    async with db.write() as conn:
        gid = (await conn.execute(insert(games).values(
            table_id=store.table_id(tid, "R1-1"), game_no=0, discipline="three_cushion", config={}, seed=1,
            rated=True, result={}, winner=0, strokes=10, started_at=NOW, finished_at=NOW, recorded_at=NOW)
            .returning(games.c.id))).scalar_one()
    rnd = 0
    while not S.is_complete(st, t):
        rnd += 1
        nxt = S.pair(st, t)
        await store.save_state(db, nxt, st.version)
        with pytest.raises(store.StaleState):
            await store.save_state(db, nxt, st.version)  # a late director cannot overwrite
        st = nxt
        for p in st.open_pairings():
            r = S.GameResult(winner=0, scores=[15, 9], points=[15, 9], innings=[20, 20], high_runs=[4, 2],
                             game=[store.table_id(tid, p.id), 0])
            nxt = S.record_result(st, p.id, r)
            await store.save_state(db, nxt, st.version)
            st = nxt
        assert await store.load_state(db, tid) == st
    assert rnd == 3
    links = await store.tournament_game_ids(db, tid)
    assert links["R1-1"] == gid and len(links) == 3 and sum(v is None for v in links.values()) == 2
    # the other games reach the games table later: linked at the finish
    async with db.write() as conn:
        for pid in ("R2-1", "R3-1"):
            await conn.execute(insert(games).values(
                table_id=store.table_id(tid, pid), game_no=0, discipline="three_cushion", config={}, seed=1,
                rated=True, result={}, winner=0, strokes=10, started_at=NOW, finished_at=NOW, recorded_at=NOW))
    done = S.finish(st, t)
    with pytest.raises(store.StaleState):
        await store.finish_tournament(db, done, st.version - 1)
    rows = await store.finish_tournament(db, done, st.version, now=NOW)
    assert [r.rank for r in rows] == [1, 2, 3]
    again = await store.finish_tournament(db, done, st.version, now=NOW)
    assert again == rows
    stored = await store.final_standings(db, tid)
    assert [(r["rank"], r["account_id"], r["match_points"]) for r in stored] == [
        (r.rank, r.player, r.match_points) for r in rows]
    assert stored[0]["username"] in ("p0", "p1", "p2") and stored[0]["average"] == rows[0].average
    assert all(v is not None for v in (await store.tournament_game_ids(db, tid)).values())
    t_row = await store.get_tournament(db, tid)
    assert t_row["status"] == "finished" and t_row["finished_at"] == NOW
    with pytest.raises(store.Closed):
        await store.save_state(db, done, done.version)


async def test_cancel_only_while_open(db):
    ids = await make_accounts(db, 2)
    tid = await store.create_tournament(db, ids[0], rr(), now=NOW)
    assert await store.cancel(db, tid)
    assert not await store.cancel(db, tid)
    with pytest.raises(store.Closed):
        await store.join(db, tid, ids[1])
    with pytest.raises(store.Closed):
        await store.start_tournament(db, tid)


async def test_due_to_start_by_time_or_when_full(db):
    ids = await make_accounts(db, 2)
    timed = await store.create_tournament(db, ids[0], rr(starts_at=NOW + dt.timedelta(minutes=10)), now=NOW)
    when_full = await store.create_tournament(db, ids[0], rr(max_players=2), now=NOW)
    assert await store.due_to_start(db, NOW) == []
    assert await store.due_to_start(db, NOW + dt.timedelta(minutes=10)) == [timed]
    for a in ids:
        await store.join(db, when_full, a)
    assert await store.due_to_start(db, NOW) == [when_full]
    await store.start_tournament(db, when_full, now=NOW)
    assert await store.due_to_start(db, NOW + dt.timedelta(hours=1)) == [timed]


@pytest.mark.parametrize("fmt", ["round_robin", "single_elimination", "arena"])
async def test_two_directors_on_one_version_pair_the_same_and_only_one_saves(dbf, db, fmt):
    """A director that takes over (or a stale one still running) never pairs a round twice."""
    ids = await make_accounts(db, 5)
    kw = dict(format=fmt, max_players=5) | (dict(duration_s=600) if fmt == "arena" else {})
    tid = await store.create_tournament(db, ids[0], rr(**kw), now=NOW)
    for a in ids:
        await store.join(db, tid, a)
    await store.start_tournament(db, tid, now=NOW)
    a_db, b_db = dbf.engine(pool_size=1), dbf.engine(pool_size=1)
    t = NOW.timestamp() + 1
    sa, sb = await store.load_state(a_db, tid), await store.load_state(b_db, tid)
    na, nb = S.pair(sa, t), S.pair(sb, t)
    assert na == nb and na.version == sa.version + 1  # same state, same pairings
    await store.save_state(a_db, na, sa.version)
    with pytest.raises(store.StaleState):
        await store.save_state(b_db, nb, sb.version)
    again = await store.load_state(b_db, tid)
    assert again == na and S.pair(again, t) is again  # B, reloaded, has nothing to pair
    opened = again.open_pairings()
    assert opened and len({store.table_id(tid, p.id) for p in opened}) == len(opened)
