"""The TV's pure choice (server/tv/choice.py): scores, the 17 % hysteresis, an ended game replaced, the rematch preferred."""

from hypothesis import given, settings
from hypothesis import strategies as st

from server.tv.choice import MARGIN, Candidate, Featured, choose, score

LINGER, REMATCH = 6.0, 60.0


def game(table, players=("ann", "bob"), ratings=(1500, 1500), scores=(10, 10), run=0, status="playing", g=1,
         discipline="straight_pool", spectators=0):
    return Candidate(table, discipline, players, ratings, scores, run, status, g, spectators)


def pick(current, cands, now=100.0):
    return choose(current, cands, now, linger_s=LINGER, rematch_s=REMATCH)


def test_score_formula_values():
    # level game, no run, both 1500: 1500 * (0.55 + 0.30) = 1275
    assert abs(score(game("t")) - 1500 * 0.85) < 1e-9
    # a run at the 14.1 cap (15) adds the full 0.15
    assert abs(score(game("t", run=15)) - 1500 * 1.0) < 1e-9
    # 0:3 halves the closeness: 1 / (1 + 3 / (3 + 0.75)) = 0.5555...
    assert abs(score(game("t", scores=(0, 3))) - 1500 * (0.55 + 0.30 / (1 + 3 / 3.75))) < 1e-9
    # guests count 1500; a paused game half; a game not on nothing
    assert score(game("t", ratings=(None, None))) == score(game("t"))
    assert abs(score(game("t", status="paused")) - score(game("t")) / 2) < 1e-9
    assert score(game("t", status="over")) == 0 and score(game("t", status="waiting")) == 0
    assert score(game("t", players=("ann", None))) == 0


def test_a_higher_rated_close_game_wins():
    strong_close = game("a", ("x", "y"), (2100, 2050), (40, 41))
    weak_close = game("b", ("p", "q"), (1400, 1450), (40, 41))
    strong_lopsided = game("c", ("m", "n"), (2100, 2050), (5, 60))
    f = pick(None, [weak_close, strong_lopsided, strong_close])
    assert f.table == "a" and f.ended_at is None and f.players == ("x", "y")


@settings(max_examples=200, deadline=None)
@given(r=st.integers(800, 2600), dr=st.integers(1, 800), a=st.integers(0, 150), gap=st.integers(0, 150),
       run=st.integers(0, 40))
def test_rating_and_closeness_order_property(r, dr, a, gap, run):
    """Same shape, higher ratings: higher score. Same ratings, a smaller gap: at least as high."""
    base = game("a", ratings=(r, r), scores=(a, a + gap), run=run)
    assert score(game("b", ratings=(r + dr, r + dr), scores=(a, a + gap), run=run)) > score(base)
    assert score(game("c", ratings=(r, r), scores=(a, a + max(0, gap - 1)), run=run)) >= score(base)


@settings(max_examples=300, deadline=None)
@given(cur_r=st.integers(1000, 2400), other_r=st.integers(1000, 2800), cur_run=st.integers(0, 20),
       other_run=st.integers(0, 20))
def test_hysteresis_property(cur_r, other_r, cur_run, other_run):
    """The featured game on is replaced exactly when a candidate scores more than 17 % higher."""
    cur = game("cur", ("ann", "bob"), (cur_r, cur_r), run=cur_run)
    other = game("oth", ("cy", "dan"), (other_r, other_r), run=other_run)
    featured = Featured("cur", score(cur), 50.0, 1, ("ann", "bob"))
    f = pick(featured, [cur, other])
    if score(other) > score(cur) * (1 + MARGIN):
        assert f.table == "oth" and f.since == 100.0
    else:
        assert f.table == "cur" and f.since == 50.0 and f.score == score(cur)


def test_hysteresis_examples():
    cur = game("cur", ratings=(1500, 1500))
    featured = Featured("cur", score(cur), 50.0, 1, ("ann", "bob"))
    a_bit_better = game("b", ("cy", "dan"), (1700, 1700))  # 13 % higher: kept
    assert pick(featured, [cur, a_bit_better]).table == "cur"
    much_better = game("m", ("cy", "dan"), (1800, 1800))  # 20 % higher: switched
    assert pick(featured, [cur, much_better]).table == "m"


def test_the_featured_game_that_ended_is_replaced_after_the_linger():
    over = game("cur", status="over")
    other = game("b", ("cy", "dan"), (1400, 1400))  # lower rated: would never have beaten it
    featured = Featured("cur", 1000.0, 10.0, 1, ("ann", "bob"))
    f1 = pick(featured, [over, other], now=100.0)
    assert f1.table == "cur" and f1.ended_at == 100.0  # the result is seen for a while
    f2 = pick(f1, [over, other], now=100.0 + LINGER)
    assert f2.table == "b" and f2.ended_at is None and f2.since == 100.0 + LINGER
    # its table closed: the same
    assert pick(f1, [other], now=100.0 + LINGER).table == "b"
    # nothing else live: the ended table stays while it exists; gone: nothing featured
    assert pick(f1, [over], now=500.0).table == "cur"
    assert pick(f1, [], now=500.0).table is None


def test_a_rematch_of_the_game_that_just_ended_is_preferred():
    featured = Featured("cur", 1000.0, 10.0, 1, ("ann", "bob"), ended_at=100.0)
    better = game("b", ("cy", "dan"), (2400, 2400))  # far better than any rematch
    # the same table's next game (game 2)
    same_table = game("cur", ("bob", "ann"), (1500, 1500), (0, 0), g=2)
    f = pick(featured, [better, same_table], now=101.0)
    assert f.table == "cur" and f.game == 2 and f.ended_at is None
    # the same two players at another table
    elsewhere = game("r", ("bob", "ann"), (1500, 1500), (0, 0))
    assert pick(featured, [better, elsewhere, game("cur", status="over")], now=101.0).table == "r"
    # a rematch that starts before the chooser saw the end (a new game number at the featured table)
    live_cur = Featured("cur", 1000.0, 10.0, 1, ("ann", "bob"))
    f = pick(live_cur, [better, same_table], now=101.0)
    assert f.table == "cur" and f.game == 2
    # too late for a rematch: the best game
    assert pick(featured, [better, elsewhere], now=100.0 + REMATCH + 1).table == "b"
    # only one of the two players: not a rematch
    other_pair = game("o", ("ann", "eve"), (1500, 1500))
    assert pick(featured, [better, other_pair], now=100.0 + LINGER).table == "b"


def test_nothing_live_nothing_featured_and_round_trip():
    assert pick(None, [game("w", ("ann", None), status="waiting")]).table is None
    f = Featured("t", 12.5, 3.0, 2, ("ann", "bob"), 7.0)
    assert Featured.from_dict(f.to_dict()) == f


def test_candidate_from_a_lobby_entry():
    e = {"table": "t1", "discipline": "three_cushion", "seats": ["ann", "bob"], "scores": [3, 4], "status": "playing",
         "spectators": 2, "v": 9, "ts": 1.0, "rated": True, "ratings": [1600, None], "run": 2, "game": 3}
    c = Candidate.from_entry(e)
    assert c == Candidate("t1", "three_cushion", ("ann", "bob"), (1600, None), (3, 4), 2, "playing", 3, 2)
    del e["run"], e["game"]  # an older server's entry
    assert Candidate.from_entry(e).run == 0 and Candidate.from_entry(e).game == 1


def test_a_practice_table_is_never_featured_nor_live():
    """A student and a coach at a practice table fill both seats and play strokes: not a game to watch on TV."""
    e = {"table": "p1", "discipline": "straight_pool", "seats": ["ann", "coach"], "scores": [0, 0], "status": "playing",
         "spectators": 5, "v": 3, "ts": 1.0, "rated": False, "ratings": [None, None], "run": 0, "game": 1,
         "practice": True}
    c = Candidate.from_entry(e)
    assert c.practice and not c.live and score(c) == 0
    assert pick(None, [c]).table is None
    assert pick(None, [c, game("g")]).table == "g"
    assert Candidate.from_entry({**e, "practice": "yes"}).practice is False  # only a true bool marks it


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1000, 2200), st.integers(0, 30), st.integers(0, 30), st.integers(0, 6),
                          st.integers(0, 3), st.sampled_from(["playing", "paused", "over", "waiting"])),
                max_size=25))
def test_best_is_the_first_of_the_ranking(rows):
    """``best`` (one pass, what a tick uses) is ``ranked(...)[0]`` (the sorted ranking the live-games API shows)."""
    from server.tv.choice import best, ranked

    cands = [game(f"t{i:02d}", ratings=(r, r), scores=(a, b), run=run, spectators=sp, status=status)
             for i, (r, a, b, run, sp, status) in enumerate(rows)]
    order = ranked(cands)
    top = best(cands)
    assert (top is None) == (not order)
    if order:
        assert top is order[0][1] and order[0][0] == score(top) == top.tv_score
        assert [s for s, _ in order] == sorted((s for s, _ in order), reverse=True)


async def test_the_chooser_decodes_only_the_lobby_entries_that_changed():
    """TvChannels._candidates: an entry whose bytes are unchanged keeps its candidate (not decoded or scored
    again), a changed one is read anew, a table gone is forgotten, an unreadable entry is left out."""
    import msgpack

    from server.tv.channel import TvChannels

    def entry(table, scores):
        return msgpack.packb({"table": table, "discipline": "three_cushion", "seats": ["ann", "bob"],
                              "scores": scores, "status": "playing"})

    class Store:
        raw = []

        async def lobby_raw(self, offset=0, limit=None):
            return list(self.raw), len(self.raw)

    store = Store()
    tv = TvChannels(settings=None, store=store)
    store.raw = [("a", entry("a", [1, 0])), ("b", entry("b", [2, 2])), ("bad", b"\xc1"), ("c", b"\x93\x01\x02\x03")]
    first = await tv._candidates()
    assert [c.table for c in first] == ["a", "b"] and first[0].scores == (1, 0)
    store.raw = [("a", entry("a", [1, 0])), ("b", entry("b", [3, 2]))]
    second = await tv._candidates()
    assert second[0] is first[0]  # unchanged bytes: the same candidate, its score kept
    assert second[1] is not first[1] and second[1].scores == (3, 2)
    assert set(tv._seen) == {"a", "b"}  # the unreadable entries and the tables gone are forgotten
