"""record_game / import_records: one transaction, idempotent, ratings after Glicko-2, statistics from the referee's result,
and no lost rating update when one player's two games finish at once on two engines (processes)."""

import asyncio
import datetime as dt
import io
import json

import pytest
from sqlalchemy import func, select

from server.db.models import game_players, game_records, games, rating_history, ratings, statistics
from server.players import glicko2, record
from server.players.accounts import Accounts
from server.players.games import import_records, record_game as _record_game
from rules.replay import run as replay_run
from server.records import export
from records_helpers import server_record

PW = "correct horse battery"


def record_game(db, meta, entries):
    """record_game with the server's exporter (what the lead passes)."""
    return _record_game(db, meta, entries, export)


async def make_accounts(db, hasher, *names):
    acc = Accounts(db, hasher=hasher)
    return [(await acc.register(n, PW))[0].id for n in names]


async def rows(db, table, *where):
    async with db.read() as conn:
        return (await conn.execute(select(table).where(*where))).all()


async def total(db, table):
    async with db.read() as conn:
        return (await conn.execute(select(func.count()).select_from(table))).scalar()


async def test_rated_game_ratings_statistics_and_idempotency(db, hasher):
    ann, bob = await make_accounts(db, hasher, "Ann", "Bob")
    meta, entries = server_record("straight_pool", "tbl1", 1, accounts=[ann, bob], rated=True)
    out = await record_game(db, meta, entries)
    assert out.recorded and out.rated and out.game_id > 0
    # seat 1 (Bob) won 20-14: both new players, one game -> Glicko-2 of 1500/350/0.06 each
    want_ann, want_bob = glicko2.rate_game(glicko2.NEW_PLAYER, glicko2.NEW_PLAYER, 0.0)
    a, b = out.ratings
    assert (a.account_id, b.account_id) == (ann, bob)
    assert a.rating_before == 1500.0 and a.rd_before == 350.0
    assert a.rating_after == pytest.approx(want_ann.rating) and b.rating_after == pytest.approx(want_bob.rating)
    assert b.change == pytest.approx(162.31, abs=0.01) and a.change == pytest.approx(-162.31, abs=0.01)
    r = {x.account_id: x for x in await rows(db, ratings)}
    assert r[bob].rating == pytest.approx(want_bob.rating) and r[bob].rd == pytest.approx(want_bob.rd)
    assert r[bob].rated_games == 1 and r[bob].discipline == "straight_pool"
    # statistics from the 14.1 referee: Ann 17 points in 5 innings, high run 8; Bob 21 in 5, high run 15
    st = {x.account_id: x for x in await rows(db, statistics)}
    assert (st[ann].games, st[ann].wins, st[ann].draws, st[ann].losses) == (1, 0, 0, 1)
    assert (st[bob].games, st[bob].wins, st[bob].losses) == (1, 1, 0)
    assert (st[ann].points, st[ann].innings, st[ann].high_run) == (17, 5, 8)
    assert (st[bob].points, st[bob].innings, st[bob].high_run) == (21, 5, 15)
    assert st[bob].best_average == pytest.approx(4.2) and st[bob].best_game_id == out.game_id
    gp = {x.seat: x for x in await rows(db, game_players)}
    assert gp[0].name == "Ann" and gp[0].score == 0.0 and gp[1].score == 1.0 and gp[1].average == pytest.approx(4.2)
    assert gp[1].rating_before == 1500.0 and gp[1].rating_after == pytest.approx(want_bob.rating)
    g = (await rows(db, games))[0]
    assert (g.table_id, g.game_no, g.discipline, g.rated, g.winner, g.strokes) == ("tbl1", 1, "straight_pool", True, 1, 50)
    assert g.started_at == dt.datetime.fromtimestamp(1_796_000_000, dt.timezone.utc)
    assert g.finished_at == dt.datetime.fromtimestamp(1_796_000_000 + 490, dt.timezone.utc)
    # the stored record is the exported one billar referee replays, with each stroke's time
    data = (await rows(db, game_records))[0]
    stored = record.decode(data.data, data.format)
    want = export(meta, entries)
    assert stored["strokes"][5]["sim"] == want["strokes"][5]["sim"] and stored["result"] == meta["result"]
    assert [s.get("ts") for s in stored["strokes"]] == [e["ts"] for e in entries]
    out_text = io.StringIO()
    assert replay_run(stored, None, True, out_text) == 0  # billar referee re-judges it: no difference
    assert json.loads(out_text.getvalue().splitlines()[-1])["scores"] == [14, 20]
    assert {k: v for k, v in stored.items() if k != "strokes"} == {k: v for k, v in want.items() if k != "strokes"}

    # the second call with the same table + game changes nothing and says so
    counts = [await total(db, t) for t in (games, game_players, ratings, rating_history, statistics)]
    again = await record_game(db, meta, entries)
    assert not again.recorded and again.game_id == out.game_id
    assert again.ratings[1].rating_after == pytest.approx(b.rating_after)
    assert [await total(db, t) for t in (games, game_players, ratings, rating_history, statistics)] == counts
    assert (await rows(db, statistics, statistics.c.account_id == bob))[0].games == 1

    # a second game: ratings go on from the first, and the RD grew back with 10 days of inactivity
    meta2, entries2 = server_record("straight_pool", "tbl1", 2, accounts=[ann, bob], rated=True,
                                    t0=1_796_000_000 + 10 * 86400)
    out2 = await record_game(db, meta2, entries2)
    b_before = glicko2.decay(want_bob, (10 * 86400 + 490 - 490) / 86400)
    assert out2.ratings[1].rd_before == pytest.approx(b_before.rd) and out2.ratings[1].rd_before > want_bob.rd
    a2, b2 = glicko2.rate_game(want_ann, want_bob, 0.0, 10.0, 10.0)
    assert out2.ratings[1].rating_after == pytest.approx(b2.rating) and out2.ratings[0].rating_after == pytest.approx(a2.rating)
    st = {x.account_id: x for x in await rows(db, statistics)}
    assert (st[bob].games, st[bob].wins, st[bob].points, st[bob].innings, st[bob].high_run) == (2, 2, 42, 10, 15)
    hist = await rows(db, rating_history, rating_history.c.account_id == bob)
    assert [h.rating for h in hist] == pytest.approx([want_bob.rating, b2.rating])


async def test_carom_and_multi_statistics(db, hasher):
    ann, bob = await make_accounts(db, hasher, "Ann", "Bob")
    await record_game(db, *server_record("three_cushion", "c1", 1, accounts=[ann, bob], rated=True))
    m, e = server_record("pentathlon", "p1", 1, accounts=[bob, ann], rated=True)
    await record_game(db, m, e)
    st = {(x.account_id, x.discipline): x for x in await rows(db, statistics)}
    # three-cushion 9-10 in 3 innings each, high runs 3 and 4
    tc_a, tc_b = st[(ann, "three_cushion")], st[(bob, "three_cushion")]
    assert (tc_a.points, tc_a.innings, tc_a.high_run, tc_a.losses) == (9, 3, 3, 1)
    assert (tc_b.points, tc_b.innings, tc_b.high_run, tc_b.wins) == (10, 3, 4, 1)
    assert tc_b.best_average == pytest.approx(10 / 3)
    # pentathlon (Bob seat 0, Ann seat 1; seat 1 wins 8-2 in match points): five games summed
    games_ = m["result"]["games"]
    pts1 = sum(g["scores"][1] for g in games_)
    inn1 = sum(g["innings"][1] for g in games_)
    pa = st[(ann, "pentathlon")]
    assert (pa.points, pa.innings, pa.wins) == (pts1, inn1, 1) and (pa.points, pa.innings) == (20, 6)
    assert pa.high_run == max(g["high_runs"][1] for g in games_) == 4
    assert pa.best_average == pytest.approx(4.0)
    # each discipline has its own rating
    r = {(x.account_id, x.discipline) for x in await rows(db, ratings)}
    assert r == {(ann, "three_cushion"), (bob, "three_cushion"), (ann, "pentathlon"), (bob, "pentathlon")}


async def test_unrated_guest_and_computer_games(db, hasher):
    (ann,) = await make_accounts(db, hasher, "Ann")
    # rated asked but a guest in seat 1: unrated; Ann's statistics still count
    out = await record_game(db, *server_record("three_cushion", "g1", 1, accounts=[ann, None], rated=True,
                                               names=("Ann", "Computer (level 2)")))
    assert out.recorded and not out.rated and out.ratings == [None, None]
    assert await total(db, ratings) == 0 and await total(db, rating_history) == 0
    st = await rows(db, statistics)
    assert len(st) == 1 and st[0].account_id == ann and st[0].games == 1
    gp = {x.seat: x for x in await rows(db, game_players)}
    assert gp[1].account_id is None and gp[1].name == "Computer (level 2)" and gp[1].rating_before is None
    # one account in both seats: never rated
    out = await record_game(db, *server_record("three_cushion", "g2", 1, accounts=[ann, ann], rated=True))
    assert not out.rated


async def test_draw_scores_half(db, hasher):
    ann, bob = await make_accounts(db, hasher, "Ann", "Bob")
    meta, entries = server_record("three_cushion", "d1", 1, accounts=[ann, bob], rated=True)
    meta["result"] = dict(meta["result"], winner=None, draw=True)
    out = await record_game(db, meta, entries)
    assert out.ratings[0].rating_after == pytest.approx(1500.0) and out.ratings[1].rating_after == pytest.approx(1500.0)
    st = {x.account_id: x for x in await rows(db, statistics)}
    assert st[ann].draws == st[bob].draws == 1 and st[ann].wins == st[ann].losses == 0


async def test_bad_records_refused(db):
    meta, entries = server_record("three_cushion", "b1")
    for change, msg in [({"result": None}, "not finished"), ({"table": ""}, "table"), ({"game": -1}, "game"),
                        ({"discipline": "snooker"}, "discipline"), ({"accounts": [1]}, "accounts"),
                        ({"accounts": ["1", 2]}, "account ids"), ({"result": {"winner": 3}}, "winner")]:
        with pytest.raises(ValueError, match=msg):
            await record_game(db, dict(meta, **change), entries)
    assert await total(db, games) == 0


async def test_old_14_1_result_is_rejudged(db, hasher):
    ann, bob = await make_accounts(db, hasher, "Ann", "Bob")
    meta, entries = server_record("straight_pool", "old1", 1, accounts=[ann, bob], rated=True,
                                  result={"winner": 1, "scores": [14, 20], "reason": "target"})
    out = await record_game(db, meta, entries)
    assert out.recorded
    st = {x.account_id: x for x in await rows(db, statistics)}
    assert (st[bob].points, st[bob].innings, st[bob].high_run) == (21, 5, 15)


async def test_import_records_idempotent(db, hasher):
    ann, bob = await make_accounts(db, hasher, "Ann", "Bob")
    items = [server_record("three_cushion", "i1", 1, accounts=[ann, bob], rated=True),
             server_record("straight_pool", "i1", 2, accounts=[bob, ann], rated=True),
             server_record("pentathlon", "i2", 1)]
    unfinished = server_record("three_cushion", "i3", 1)
    unfinished[0]["result"], unfinished[0]["over"] = None, False
    broken = server_record("three_cushion", "i4", 1)
    broken[0]["discipline"] = "nine_ball"
    rep = await import_records(db, items + [unfinished, broken], export=export)
    assert (rep.recorded, rep.duplicates, rep.unfinished) == (3, 0, 1) and rep.failed[0][0] == "i4/1"
    before = [(x.account_id, x.discipline, x.rating, x.rated_games) for x in await rows(db, ratings)]
    rep = await import_records(db, items, export=export)
    assert (rep.recorded, rep.duplicates) == (0, 3)
    assert [(x.account_id, x.discipline, x.rating, x.rated_games) for x in await rows(db, ratings)] == before
    assert await total(db, games) == 3


async def test_same_game_recorded_twice_at_once(dbf, hasher):
    db1, db2 = dbf.engine(), dbf.engine()
    ann, bob = await make_accounts(db1, hasher, "Ann", "Bob")
    meta, entries = server_record("three_cushion", "twice", 1, accounts=[ann, bob], rated=True)
    outs = await asyncio.gather(record_game(db1, meta, entries), record_game(db2, meta, entries))
    assert sorted(o.recorded for o in outs) == [False, True] and outs[0].game_id == outs[1].game_id
    assert await total(db1, games) == 1 and await total(db1, rating_history) == 2
    assert [x.rated_games for x in await rows(db1, ratings)] == [1, 1]


async def test_concurrent_games_of_one_player_lose_no_update(dbf, hasher):
    """Ann plays Bob on one process and Cid on another; both games end at the same moment."""
    setup = dbf.engine()
    ann, bob, cid = await make_accounts(setup, hasher, "Ann", "Bob", "Cid")
    for rnd in range(3):
        p1, p2 = dbf.engine(pool_size=2), dbf.engine(pool_size=2)
        g1 = server_record("three_cushion", f"x{rnd}", 1, accounts=[ann, bob], rated=True)
        g2 = server_record("three_cushion", f"y{rnd}", 1, accounts=[ann, cid], rated=True)
        await asyncio.gather(record_game(p1, *g1), record_game(p2, *g2))
    r = {x.account_id: x for x in await rows(setup, ratings)}
    assert r[ann].rated_games == 6 and r[bob].rated_games == 3 and r[cid].rated_games == 3
    hist = await rows(setup, rating_history, rating_history.c.account_id == ann)
    assert len(hist) == 6
    # every one of Ann's games started from the rating her previous game left (in the order the rating
    # rows were locked, which is the history's order; on PostgreSQL not always the games' id order)
    mine = {x.game_id: x for x in await rows(setup, game_players, game_players.c.account_id == ann)}
    prev = 1500.0
    for h in sorted(hist, key=lambda h: h.id):
        x = mine[h.game_id]
        assert x.rating_before == pytest.approx(prev)  # no update was computed from a stale row
        assert h.rating == pytest.approx(x.rating_after)
        prev = x.rating_after
    assert r[ann].rating == pytest.approx(prev)
