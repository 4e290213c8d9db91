"""The puzzle routes in-process (GET /api/puzzles/daily, GET /api/puzzles/{id}, POST /api/puzzles/{id}/attempt):
the contract's shapes and values, every refused input changing nothing, the rate limit, ratings on the first
attempt only (checked against Glicko-2 worked out here step by step), the puzzle of the day, background mining."""

import asyncio
import datetime as dt
import json
import math

import pytest
from sqlalchemy import func, select

from physics.table import get_table
from rules.position import decode
from server.api import PlayersApi
from server.db.models import puzzle_attempts, puzzle_daily, puzzle_ratings, puzzles
from server.players.accounts import Accounts
from server.players.games import record_game
from server.players.record import decompress
from server.players import queries
from server.puzzles import store
from server.puzzles.mine import mine_record
from server.puzzles.service import Miner, load_seed, seed
from server.records import export
from records_helpers import server_record
from test_api import PW, Client

DAY = dt.datetime(2026, 12, 2, 15, 0, tzinfo=dt.timezone.utc)


class Clocks:
    def __init__(self):
        self.now = DAY
        self.mono = 1000.0


@pytest.fixture
async def env(db, hasher):
    clocks = Clocks()
    api = PlayersApi(db, Accounts(db, hasher=hasher), leaderboard_ttl_s=0, clock=lambda: clocks.now,
                     monotonic=lambda: clocks.mono)
    ids = await seed(db)
    assert ids == list(range(1, 17))
    return api, clocks, load_seed()


def pool_and_carom(seeds):
    pool = next(i for i, p in enumerate(seeds, 1) if p["discipline"] == "straight_pool")
    carom = next(i for i, p in enumerate(seeds, 1) if p["discipline"] == "three_cushion")
    return pool, carom


def body_of(p):
    sol = p["solution"]
    return {"stroke": sol["stroke"], **({"call": sol["call"]} if sol["call"] else {})}


async def snapshot(db):
    """Everything an attempt may change."""
    async with db.read() as conn:
        rows = [tuple(r) for r in (await conn.execute(select(puzzles).order_by(puzzles.c.id))).all()]
        att = (await conn.execute(select(func.count()).select_from(puzzle_attempts))).scalar()
        rat = [tuple(r) for r in (await conn.execute(select(puzzle_ratings))).all()]
    return rows, att, rat


async def login(api, name="Ann"):
    c = Client(api)
    await c.call("POST", "/api/account/register", {"username": name, "password": PW})
    return c


# ----- reading puzzles ----------------------------------------------------------------------------

async def test_a_puzzle_view(env):
    api, clocks, seeds = env
    pid, cid = pool_and_carom(seeds)
    c = Client(api)
    for i in (pid, cid):
        v = (await c.call("GET", f"/api/puzzles/{i}")).decoded()
        p = seeds[i - 1]
        pos = decode(p["code"])
        assert v["id"] == i and v["discipline"] == p["discipline"] and v["position"] == p["code"]
        assert v["goal"] == ("pot" if i == pid else "carom")
        assert v["goal_text"] == ("Find the pot: call a ball and a pocket and make it" if i == pid
                                  else "Find the carom: score a three-cushion point")
        assert v["table"] == json.loads(json.dumps(get_table(pos.table).to_json()))
        assert v["balls"] == {str(b): [x, y] for b, x, y in pos.balls}
        assert v["cue_ball"] == 0 and v["rating"] == 1500.0 and v["rd"] == 350.0 and v["plays"] == 0 and v["wins"] == 0
        assert v["source"] == {"game": None, "stroke": None} and v["me"] is None
        assert v["next"] == (i % len(seeds)) + 1  # the next id; after the last, the first (QA: a dead end)
    me = await login(api)
    v = (await me.call("GET", f"/api/puzzles/{pid}")).decoded()
    assert v["me"] == {"attempts": 0, "solved": False, "rating": 1500.0, "rd": 350.0}


@pytest.mark.parametrize("bad", ["abc", "0", "-1", "1.5", "1e3", "01x", "99999999999999999999", "%C3%A9", " 1"])
async def test_bad_ids(env, bad):
    api, clocks, seeds = env
    c = Client(api)
    r = await c.call("GET", f"/api/puzzles/{bad}")
    assert (r.status, r.decoded()["error"]["code"]) == (400, "bad_id")
    before = await snapshot(api.db)
    r = await c.call("POST", f"/api/puzzles/{bad}/attempt", body_of(seeds[0]))
    assert (r.status, r.decoded()["error"]["code"]) == (400, "bad_id")
    assert await snapshot(api.db) == before


async def test_unknown_puzzle(env):
    api, clocks, seeds = env
    c = Client(api)
    for path in ("/api/puzzles/17", "/api/puzzles/9223372036854775807"):
        r = await c.call("GET", path)
        assert (r.status, r.decoded()["error"]["code"]) == (404, "no_puzzle")
    r = await c.call("POST", "/api/puzzles/17/attempt", body_of(seeds[0]))
    assert (r.status, r.decoded()["error"]["code"]) == (404, "no_puzzle")
    r = await c.call("DELETE", "/api/puzzles/1")
    assert r.status == 405


async def test_daily_is_stable_for_a_day_and_changes_with_it(env):
    api, clocks, seeds = env
    c = Client(api)
    first = (await c.call("GET", "/api/puzzles/daily")).decoded()
    clocks.now = DAY + dt.timedelta(hours=8, minutes=59)  # 23:59 UTC: the same day
    assert (await c.call("GET", "/api/puzzles/daily")).decoded() == first
    assert first["id"] == 1 + store.daily_index(DAY.date(), 16)
    await store.add(api.db, [dict(load_seed()[0], code="AQMAB" + "x" * 10, source_key="game")], DAY)  # a new puzzle
    assert (await c.call("GET", "/api/puzzles/daily")).decoded()["id"] == first["id"]  # chosen once for the day
    clocks.now = DAY + dt.timedelta(days=1)
    second = (await c.call("GET", "/api/puzzles/daily")).decoded()
    assert second["id"] == 1 + store.daily_index((DAY + dt.timedelta(days=1)).date(), 17)
    assert second["id"] != first["id"]
    async with api.db.read() as conn:
        assert dict((await conn.execute(select(puzzle_daily.c.day, puzzle_daily.c.puzzle_id))).all()) == {
            "2026-12-02": first["id"], "2026-12-03": second["id"]}


async def test_daily_without_puzzles(db, hasher):
    api = PlayersApi(db, Accounts(db, hasher=hasher))
    r = await Client(api).call("GET", "/api/puzzles/daily")
    assert (r.status, r.decoded()["error"]["code"]) == (404, "no_puzzle")


# ----- attempts: refused input ----------------------------------------------------------------------

STROKE = {"phi_deg": 10.0, "a": 0.0, "b": 0.0, "theta_deg": 0.0, "V0": 2.0}


def refused_bodies(pool_call):
    """(raw body, expected field named in the message or None) of attempts that must be refused with 400."""
    ok = {"stroke": STROKE, "call": pool_call}
    out = [
        (b"{", "bad_json", None),
        (b'{"stroke": {"phi_deg": NaN, "a": 0, "b": 0, "theta_deg": 0, "V0": 2}, "call": null}', "bad_field", "stroke.phi_deg"),
        (b'{"stroke": {"phi_deg": 1, "a": 0, "b": 0, "theta_deg": 0, "V0": Infinity}}', "bad_field", "stroke.V0"),
        (b'{"stroke": {"phi_deg": 1e400, "a": 0, "b": 0, "theta_deg": 0, "V0": 2}}', "bad_field", "stroke.phi_deg"),
        (('{"stroke": {"phi_deg": 1' + "0" * 400 + ', "a": 0, "b": 0, "theta_deg": 0, "V0": 2}}').encode(), "bad_field",
         "stroke.phi_deg"),
        (b'[1, 2]', "bad_field", "body"),
        (b'{"stroke": {"phi_deg": 1, "phi_deg": 2}}', "bad_json", None),
    ]
    for stroke, field in [
        (dict(STROKE, phi_deg=360.5), "stroke.phi_deg"), (dict(STROKE, V0=0), "stroke.V0"),
        (dict(STROKE, V0=10.01), "stroke.V0"), (dict(STROKE, a=0.4, b=0.4), "stroke.a"),
        (dict(STROKE, theta_deg=71), "stroke.theta_deg"), (dict(STROKE, V0="2"), "stroke.V0"),
        (dict(STROKE, V0=True), "stroke.V0"), ({k: v for k, v in STROKE.items() if k != "b"}, "stroke.b"),
        (dict(STROKE, spin=1), "stroke.spin"), ("fast", "stroke"), (None, "stroke"),
    ]:
        out.append((json.dumps(dict(ok, stroke=stroke)).encode(), "bad_field", field))
    out.append((json.dumps({"call": pool_call}).encode(), "bad_field", "stroke"))
    out.append((json.dumps(dict(ok, extra=1)).encode(), "bad_field", "extra"))
    return out


async def test_every_bad_attempt_is_refused_and_changes_nothing(env):
    api, clocks, seeds = env
    pid, cid = pool_and_carom(seeds)
    pool_call = seeds[pid - 1]["solution"]["call"]
    me = await login(api)
    before = await snapshot(api.db)
    cases = [(pid, raw, code, field) for raw, code, field in refused_bodies(pool_call)]
    cases += [(cid, raw, code, field) for raw, code, field in refused_bodies(None)]
    others = [b for b, x, y in decode(seeds[pid - 1]["code"]).balls if b != 0]
    absent = next(b for b in range(1, 16) if b not in others)
    for call, field in [(None, "call"), ({"safety": True}, "call"), ({"ball": absent, "pocket": "FR"}, "call.ball"),
                        ({"ball": 0, "pocket": "FR"}, "call.ball"), ({"ball": others[0], "pocket": "ZZ"}, "call.pocket"),
                        ({"ball": others[0], "pocket": "fr"}, "call.pocket"), ({"ball": others[0]}, "call.pocket"),
                        ("FR", "call"), ({"ball": 1.5, "pocket": "FR"}, "call.ball")]:
        body = {"stroke": STROKE} if call is None else {"stroke": STROKE, "call": call}
        cases.append((pid, json.dumps(body).encode(), "bad_field", field))
    for call in ({"ball": 1, "pocket": "FR"}, {"safety": True}):
        cases.append((cid, json.dumps({"stroke": STROKE, "call": call}).encode(), "bad_field", "call"))
    for who in (Client(api), me):
        for puzzle, raw, code, field in cases:
            r = await who.call("POST", f"/api/puzzles/{puzzle}/attempt", raw=raw)
            err = r.decoded()["error"]
            assert (r.status, err["code"]) == (400, code), (raw[:80], err)
            if field is not None:
                assert err["message"].startswith(field), (raw[:80], err, field)
    # far more requests than the rate limit allows: refused input spends no attempt
    assert len(cases) * 2 > 10
    assert await snapshot(api.db) == before
    r = await me.call("POST", f"/api/puzzles/{pid}/attempt", body_of(seeds[pid - 1]))
    assert r.status == 200


async def test_oversized_bodies(env):
    api, clocks, seeds = env
    c = Client(api)
    before = await snapshot(api.db)
    big = json.dumps(dict(body_of(seeds[0]), pad="x" * 4096)).encode()
    r = await c.call("POST", "/api/puzzles/1/attempt", raw=big)
    assert (r.status, r.decoded()["error"]["code"]) == (413, "too_large")
    r = await c.call("POST", "/api/puzzles/1/attempt", body_of(seeds[0]), headers={"content-length": "5000"})
    assert r.status == 413
    exactly = json.dumps(body_of(seeds[0])).encode()
    padded = exactly[:-1] + b" " * (4096 - len(exactly)) + b"}"
    assert len(padded) == 4096
    assert (await c.call("POST", "/api/puzzles/1/attempt", raw=padded)).status == 200
    r = await c.call("POST", "/api/puzzles/1/attempt", raw=b'{"stroke": 1}', headers={"content-type": "text/plain"})
    assert r.status == 415
    assert (await snapshot(api.db)) == before  # a guest's attempts store nothing


async def test_rate_limit_per_address(env):
    api, clocks, seeds = env
    a, b = Client(api, client="10.0.0.1"), Client(api, client="10.0.0.2")
    body = body_of(seeds[0])
    for _ in range(10):
        assert (await a.call("POST", "/api/puzzles/1/attempt", body)).status == 200
    r = await a.call("POST", "/api/puzzles/1/attempt", body)
    assert (r.status, r.decoded()["error"]["code"]) == (429, "too_many_attempts")
    assert (await b.call("POST", "/api/puzzles/1/attempt", body)).status == 200  # another address
    clocks.mono += 6.0  # one attempt back every 6 s
    assert (await a.call("POST", "/api/puzzles/1/attempt", body)).status == 200
    assert (await a.call("POST", "/api/puzzles/1/attempt", body)).status == 429


# ----- attempts: judging and ratings ----------------------------------------------------------------

def glicko2_by_hand(r, rd, sigma, r_j, rd_j, s, tau=0.75):
    """Glicko-2 for one game (Glickman's "Example of the Glicko-2 system", steps 2-8), written out here, with the
    volatility found by bisection instead of the paper's Illinois iteration."""
    mu, phi = (r - 1500) / 173.7178, rd / 173.7178
    mu_j, phi_j = (r_j - 1500) / 173.7178, rd_j / 173.7178
    g = 1 / math.sqrt(1 + 3 * phi_j ** 2 / math.pi ** 2)
    E = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g * g * E * (1 - E))
    delta = v * g * (s - E)
    a = math.log(sigma ** 2)

    def f(x):
        return math.exp(x) * (delta ** 2 - phi ** 2 - v - math.exp(x)) / (2 * (phi ** 2 + v + math.exp(x)) ** 2) \
            - (x - a) / tau ** 2
    lo, hi = a - 20, a + 20
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    sigma2 = math.exp(lo / 2)
    phi_star = math.sqrt(phi ** 2 + sigma2 ** 2)
    phi_new = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    mu_new = mu + phi_new ** 2 * g * (s - E)
    return 173.7178 * mu_new + 1500, 173.7178 * phi_new, sigma2


async def test_first_attempt_rates_later_ones_do_not(env):
    api, clocks, seeds = env
    pid, cid = pool_and_carom(seeds)
    ann = await login(api, "Ann")
    r = (await ann.call("POST", f"/api/puzzles/{pid}/attempt", body_of(seeds[pid - 1]))).decoded()
    assert r["solved"] is True and r["attempt"] == 1
    pr, prd, psig = glicko2_by_hand(1500, 350, 0.06, 1500, 350, 1.0)
    zr, zrd, zsig = glicko2_by_hand(1500, 350, 0.06, 1500, 350, 0.0)
    assert r["rating"]["player"]["before"] == 1500.0
    assert r["rating"]["player"]["after"] == pytest.approx(pr, abs=1e-6)
    assert r["rating"]["player"]["rd"] == pytest.approx(prd, abs=1e-6)
    assert r["rating"]["puzzle"] == {"before": 1500.0, "after": pytest.approx(zr, abs=1e-6)}
    assert pr > 1500 > zr
    v = (await ann.call("GET", f"/api/puzzles/{pid}")).decoded()
    assert (v["plays"], v["wins"]) == (1, 1) and v["rating"] == pytest.approx(zr) and v["rd"] == pytest.approx(zrd)
    assert v["me"] == {"attempts": 1, "solved": True, "rating": pytest.approx(pr), "rd": pytest.approx(prd)}
    # a second attempt, a miss this time: counted, not rated
    miss = body_of(seeds[pid - 1])
    miss["stroke"] = dict(miss["stroke"], V0=0.05)
    again = (await ann.call("POST", f"/api/puzzles/{pid}/attempt", miss)).decoded()
    assert again["solved"] is False and again["attempt"] == 2 and again["rating"] is None
    v2 = (await ann.call("GET", f"/api/puzzles/{pid}")).decoded()
    assert (v2["plays"], v2["wins"], v2["rating"]) == (1, 1, v["rating"])
    assert v2["me"] == dict(v["me"], attempts=2)
    # Bob's first attempt misses: a loss against the puzzle as Ann left it
    bob = await login(api, "Bob")
    b = (await bob.call("POST", f"/api/puzzles/{pid}/attempt", miss)).decoded()
    br, brd, _ = glicko2_by_hand(1500, 350, 0.06, zr, zrd, 0.0)
    zr2, _, _ = glicko2_by_hand(zr, zrd, zsig, 1500, 350, 1.0)
    assert b["attempt"] == 1 and b["solved"] is False
    assert b["rating"]["player"]["after"] == pytest.approx(br, abs=1e-6) and br < 1500
    assert b["rating"]["puzzle"] == {"before": pytest.approx(zr), "after": pytest.approx(zr2, abs=1e-6)}
    async with api.db.read() as conn:
        vol = (await conn.execute(select(puzzles.c.volatility).where(puzzles.c.id == pid))).scalar()
        rows = (await conn.execute(select(puzzle_attempts.c.attempt, puzzle_attempts.c.solved,
                                          puzzle_attempts.c.rating_before, puzzle_attempts.c.rating_after)
                                   .order_by(puzzle_attempts.c.id))).all()
    assert [tuple(x) for x in rows] == [(1, True, 1500.0, pytest.approx(pr)), (2, False, None, None),
                                        (1, False, 1500.0, pytest.approx(br))]
    # Ann's rating on her next puzzle starts from where the first left it (a carom miss: a loss)
    cm = body_of(seeds[cid - 1])
    cm["stroke"] = dict(cm["stroke"], V0=0.05)
    c = (await ann.call("POST", f"/api/puzzles/{cid}/attempt", cm)).decoded()
    cr, crd, _ = glicko2_by_hand(pr, prd, psig, 1500, 350, 0.0)
    assert c["solved"] is False and c["rating"]["player"]["before"] == pytest.approx(pr)
    assert c["rating"]["player"]["after"] == pytest.approx(cr, abs=1e-6) and c["rating"]["player"]["rd"] == \
        pytest.approx(crd, abs=1e-6)
    assert vol == pytest.approx(_vol(zr, zrd, zsig))


def _vol(zr, zrd, zsig):
    """The puzzle's volatility after Ann's win and Bob's loss against it."""
    return glicko2_by_hand(zr, zrd, zsig, 1500, 350, 1.0)[2]


async def test_guest_attempts_store_nothing_and_return_the_records(env):
    api, clocks, seeds = env
    pid, cid = pool_and_carom(seeds)
    c = Client(api)
    before = await snapshot(api.db)
    for i in (pid, cid):
        p = seeds[i - 1]
        r = (await c.call("POST", f"/api/puzzles/{i}/attempt", body_of(p))).decoded()
        assert r["solved"] is True and r["attempt"] == 1 and r["rating"] is None
        assert r["ruling"]["text"] and r["ruling"]["foul"] is None
        rec = r["stroke"]
        assert {int(k): tuple(v) for k, v in rec["sim"]["initial"].items()} == decode(p["code"]).layout()
        assert "f" not in rec["log"] and rec["log"]["table"] == decode(p["code"]).table
        assert rec["stroke"] == p["solution"]["stroke"] and rec["call"] == p["solution"]["call"]
        assert r["solution"] == {"stroke": p["solution"]["stroke"], "call": p["solution"]["call"], "record": rec}
        if i == cid:
            assert len(rec["diamonds"]) >= 3 and {d["rail"] for d in rec["diamonds"]} <= {"long", "short"}
        else:
            assert "diamonds" not in rec
        miss = body_of(p)
        miss["stroke"] = dict(miss["stroke"], V0=0.05)
        m = (await c.call("POST", f"/api/puzzles/{i}/attempt", miss)).decoded()
        assert m["solved"] is False and m["attempt"] == 1 and m["solution"]["record"] == rec
    assert await snapshot(api.db) == before


# ----- mining in the background -----------------------------------------------------------------------

async def test_finished_games_are_mined_in_the_background(db):
    out = await record_game(db, *server_record("three_cushion", "mine", 1), export)
    stored = await queries.game_record(db, out.game_id)
    rec = json.loads(decompress(stored.data, stored.format))
    want = mine_record(rec)
    assert want
    assert Miner(db, enabled=False).submit(out.game_id) is None
    miner = Miner(db, enabled=True)
    await miner.submit(out.game_id)
    async with db.read() as conn:
        rows = (await conn.execute(select(puzzles.c.code, puzzles.c.solution, puzzles.c.source_game_id,
                                          puzzles.c.source_stroke, puzzles.c.source_key).order_by(puzzles.c.id))).all()
    assert [tuple(r) for r in rows] == [(m.code, m.solution(), out.game_id, m.stroke_index, "game") for m in want]
    assert miner.mined == len(want)
    await miner.submit(out.game_id)  # mined again: nothing new
    assert await store.count(db) == len(want)
    api_view = await store.get(db, 1)
    assert api_view.source_game_id == out.game_id


def test_cli_seed_and_mine(tmp_path, capsys):
    """``billar puzzles seed`` adds the seed set once; ``billar puzzles mine`` mines the newest finished games."""
    import asyncio

    from server.cli import main as billar
    from server.db import Database, upgrade

    url = f"sqlite+aiosqlite:///{tmp_path / 'p.db'}"
    assert billar(["puzzles", "seed", "--url", url]) == 0
    assert "16 seed puzzles added (16 in all)" in capsys.readouterr().out
    assert billar(["puzzles", "seed", "--url", url]) == 0
    assert "0 seed puzzles added (16 in all)" in capsys.readouterr().out

    async def add_game():
        db = Database(url)
        try:
            await upgrade(url)
            await record_game(db, *server_record("straight_pool", "cli", 1), export)
            await record_game(db, *server_record("three_cushion", "cli2", 1), export)
        finally:
            await db.close()

    asyncio.run(add_game())
    assert billar(["puzzles", "mine", "--url", url, "--limit", "5"]) == 0
    assert "4 puzzles mined (20 in all)" in capsys.readouterr().out  # 3 of the carom game, 1 of the 14.1 game
    assert billar(["puzzles", "mine", "--url", url, "--limit", "0"]) == 2


async def test_two_first_attempts_at_once_rate_once(env, dbf):
    """The same player's two attempts sent at once (two engines, as two processes): numbered 1 and 2, one rated."""
    api, clocks, seeds = env
    me = await login(api, "Ann")
    other = PlayersApi(dbf.engine(), api.accounts, clock=lambda: clocks.now)
    twin = Client(other, client="10.9.9.9")
    twin.cookie = me.cookie
    body = body_of(seeds[0])
    a, b = await asyncio.gather(me.call("POST", "/api/puzzles/1/attempt", body),
                                twin.call("POST", "/api/puzzles/1/attempt", body))
    got = sorted((x.decoded()["attempt"], x.decoded()["rating"] is None) for x in (a, b))
    assert got == [(1, False), (2, True)]
    v = (await me.call("GET", "/api/puzzles/1")).decoded()
    assert (v["plays"], v["wins"], v["me"]["attempts"]) == (1, 1, 2)
