"""Rated games end to end in one server: logged-in players, rated tables and rated quick play, the finished game
written to the database once (ratings, statistics, profile), the rating changes told to the table."""

import asyncio
import json

from harness import http_request as http
from harness import SOFT, game_snapshot, logged_in, next_of, one_stroke_each, open_client, rated_table
from protocol import inbound as I

THREE = {"distance": 1, "breaker": 0}  # three-cushion to one point, seat 0 breaks (no lag)
async def test_a_rated_game_is_recorded_once_and_its_players_see_their_new_ratings(db_server):
    a = await logged_in(db_server.port, "Ann")
    b = await logged_in(db_server.port, "Bob")
    g = await open_client(db_server, "visitor")
    await a.send(I.CreateTable(discipline="three_cushion", config=THREE, rated=True))
    sa = await a.expect("seated", seat=0)
    tid = sa["table"]
    snap = await a.expect("table_snapshot")
    assert snap["rated"] is True and snap["seats"][0]["rating"] == 1500
    await a.expect("seats", v=1)
    await g.send(I.Join(table=tid))
    await g.expect("error", code="login_required")  # a guest may watch a rated table, not play at it
    await b.send(I.Join(table=tid))
    sb = await b.expect("seated", seat=1)
    await b.expect("table_snapshot")
    seats = await b.expect("seats", v=2)
    assert [s["rating"] for s in seats["seats"]] == [1500, 1500]
    await one_stroke_each(a, b, tid, sa["token"], sb["token"])
    await b.send(I.Resign(table=tid, token=sb["token"]))
    r = await next_of(a, "ruling")
    assert r["state"]["over"] and r["state"]["result"]["winner"] == 0
    rated = await next_of(a, "game_rated")
    assert rated["table"] == tid and rated["game"] == 1
    by_seat = {x["seat"]: x for x in rated["ratings"]}
    assert by_seat[0]["name"] == "Ann" and by_seat[0]["before"] == 1500 and by_seat[0]["after"] > 1500
    assert by_seat[1]["after"] < 1500 and by_seat[0]["after"] - 1500 == 1500 - by_seat[1]["after"]  # equal players
    assert by_seat[0]["provisional"] is True and by_seat[0]["rd_after"] >= 110  # a new player's rating stays "?"
    assert (await next_of(b, "game_rated")) == rated
    # the profile shows it (and the finished-games set is empty again)
    st, _, body = await http(db_server.port, "GET", "/api/players/Ann")
    prof = json.loads(body)
    assert st == 200, body
    mine = next(x for x in prof["ratings"] if x["discipline"] == "three_cushion")
    assert abs(mine["rating"] - by_seat[0]["after"]) <= 0.5 and mine["provisional"] is True
    members = await db_server.store.finished_games()
    assert members == []
    # a rejoin snapshot carries the result
    w = await open_client(db_server, "w")
    await w.send(I.Watch(table=tid))
    wsnap = await w.expect("table_snapshot")
    assert wsnap["rated_result"] == rated["ratings"]
    # and its scoreboard the new ratings (QA: the seats kept the ratings the players sat down with), as the lobby does
    assert [(x["name"], x["rating"], x["provisional"]) for x in wsnap["seats"]] == \
        [("Ann", by_seat[0]["after"], True), ("Bob", by_seat[1]["after"], True)]
    await w.send(I.LobbySubscribe())
    row = next(t for t in (await w.expect("lobby"))["tables"] if t["table"] == tid)
    assert row["ratings"] == [by_seat[0]["after"], by_seat[1]["after"]] and row["status"] == "over", row
    assert row["provisional"] == [True, True], row  # shown "1662?", as on the scoreboard
    # recording again (a sweeper, a crash between commit and removal) changes nothing
    out = await db_server.recorder.record(f"{tid}:1")
    assert out is not None and out.recorded is False


async def test_guests_and_the_computer_never_play_rated(db_server):
    g = await open_client(db_server, "visitor")
    await g.send(I.CreateTable(discipline="three_cushion", config=THREE, rated=True))
    await g.expect("error", code="login_required", field="rated")
    await g.send(I.QuickPlay(discipline="three_cushion", config=THREE, rated=True))
    await g.expect("error", code="login_required", field="rated")
    a = await logged_in(db_server.port, "Cid")
    await a.send(I.CreateTable(discipline="three_cushion", config=THREE, rated=True, computer=2))
    await a.expect("error", code="bad_config", field="rated")


async def test_rated_quick_play_pairs_logged_in_players(db_server):
    a = await logged_in(db_server.port, "Dee")
    b = await logged_in(db_server.port, "Eve")
    g = await open_client(db_server, "visitor")
    await g.send(I.QuickPlay(discipline="three_cushion", config=THREE))  # the casual queue is another queue
    await g.expect("quick_play_waiting")
    await a.send(I.QuickPlay(discipline="three_cushion", config=THREE, rated=True))
    await a.expect("quick_play_waiting")
    await b.send(I.QuickPlay(discipline="three_cushion", config=THREE, rated=True))
    sb = await b.expect("seated")
    sa = await next_of(a, "seated")
    assert sa["table"] == sb["table"]
    snap = await next_of(b, "table_snapshot")
    assert snap["rated"] is True


async def test_leaving_a_rated_game_forfeits_it_and_still_counts_with_both_players(db_server):
    """A player who leaves a rated game in progress (Leave with the seat token, or going back to the lobby) loses it:
    the game is recorded rated with both players (the leaver's name and account kept), both ratings move, and the
    player who stayed is told (QA: the leaver vanished from the record and the game went in unrated)."""
    a, b, tid, ta, tb = await rated_table(db_server.port, "three_cushion", THREE)
    # both have played (the game is in progress), then Bob leaves the table
    await one_stroke_each(a, b, tid, ta, tb)
    await b.send(I.Leave(table=tid, token=tb))
    r = await next_of(a, "ruling")
    assert r["state"]["over"] and r["state"]["result"]["winner"] == 0
    rated = await next_of(a, "game_rated")
    by_seat = {x["seat"]: x for x in rated["ratings"]}
    assert by_seat[0]["name"] == "Ann" and by_seat[0]["after"] > 1500
    assert by_seat[1]["name"] == "Bob" and by_seat[1]["after"] < 1500
    for name, result, opponent in (("Ann", "win", "Bob"), ("Bob", "loss", "Ann")):
        st, _, body = await http(db_server.port, "GET", f"/api/players/{name}/games")
        assert st == 200, body
        games = json.loads(body)["games"]
        assert len(games) == 1 and games[0]["result"] == result and games[0]["rated"] is True, games
        assert games[0]["opponent"]["name"] == opponent and games[0]["opponent"]["registered"] is True
    st, _, body = await http(db_server.port, "GET", f"/api/games/{games[0]['id']}")
    assert st == 200 and json.loads(body)["players"] == ["Ann", "Bob"], body


async def test_a_rated_game_forfeited_before_both_players_have_played_is_aborted_and_not_rated(db_server):
    """Resigning straight after the seats fill (QA: +162 / -162 for two new players), or leaving when only the
    breaker has played, aborts the game: the ruling says so, the game is recorded unrated, no rating moves. The
    rematch is rated again, and counts once both have played."""
    a, b, tid, ta, tb = await rated_table(db_server.port, "three_cushion", THREE)
    await b.send(I.Resign(table=tid, token=tb))
    r = await next_of(a, "ruling")
    assert r["state"]["over"] and r["state"]["result"]["winner"] == 0
    assert r["ruling"]["aborted"] is True and r["ruling"]["text"].endswith(
        "aborted before both players had played a stroke: not rated"), r["ruling"]
    # recorded (the finished-games queue drains), unrated, and no rating anywhere
    for _ in range(100):
        if await db_server.store.finished_games() == []:
            break
        await asyncio.sleep(0.05)
    for name, result in (("Ann", "win"), ("Bob", "loss")):
        st, _, body = await http(db_server.port, "GET", f"/api/players/{name}/games")
        games = json.loads(body)["games"]
        assert st == 200 and len(games) == 1 and games[0]["result"] == result, games
        assert games[0]["rated"] is False and games[0]["aborted"] is True, games
        st, _, body = await http(db_server.port, "GET", f"/api/players/{name}")
        prof = json.loads(body)
        # no rating, and nothing in the statistics (no game, no loss, no best game of 0.000; QA)
        assert st == 200 and prof["ratings"] == [] and prof["statistics"] == [], body
    snap = None
    w = await open_client(db_server, "w")
    await w.send(I.Watch(table=tid))
    snap = await w.expect("table_snapshot")
    assert snap["rated"] is True and snap["rated_result"] is None
    assert snap["history"][-1]["kind"] == "forfeit" and snap["history"][-1]["ruling"]["aborted"] is True

    # the rematch: only the breaker plays, then Ann (the breaker) leaves: aborted again
    await a.send(I.RematchOffer(table=tid, token=ta))
    await b.send(I.RematchAccept(table=tid, token=tb))
    await game_snapshot(a, 2)
    await game_snapshot(b, 2)
    await a.send(I.Shot(table=tid, token=ta, seq=1, stroke=SOFT))
    await next_of(b, "stroke")
    await a.send(I.Resign(table=tid, token=ta))
    r = await next_of(b, "ruling")
    assert r["state"]["result"]["winner"] == 1 and r["ruling"]["aborted"] is True
    # a third game in which both play: rated
    await b.send(I.RematchOffer(table=tid, token=tb))
    await a.send(I.RematchAccept(table=tid, token=ta))
    await game_snapshot(a, 3)
    await game_snapshot(b, 3)
    await a.send(I.Shot(table=tid, token=ta, seq=2, stroke=SOFT))
    s0 = await next_of(b, "stroke")
    assert s0["ruling"]["next_player"] == 1, s0["ruling"]
    await b.send(I.Shot(table=tid, token=tb, seq=2, stroke=SOFT))
    await next_of(a, "stroke")
    await b.send(I.Resign(table=tid, token=tb))
    r = await next_of(a, "ruling")
    assert "aborted" not in r["ruling"] and "not rated" not in r["ruling"]["text"]
    rated = await next_of(a, "game_rated")
    assert rated["game"] == 3 and {x["seat"]: x["after"] > 1500 for x in rated["ratings"]} == {0: True, 1: False}
    st, _, body = await http(db_server.port, "GET", "/api/players/Ann")
    prof = json.loads(body)
    assert [(g["rated"], g["aborted"]) for g in prof["recent_games"]] == [(True, False), (False, True), (False, True)]
    assert [(x["discipline"], x["games"], x["wins"]) for x in prof["statistics"]] == [("three_cushion", 1, 1)], prof
