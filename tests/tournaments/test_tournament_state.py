"""server/tournaments/state.py and standings.py: transitions, idempotency, resumption, standings order.

The property tests play whole tournaments with random results, drops and no-shows, checking at
every step that a state saved and loaded (JSON) pairs exactly what the original pairs.
"""

import json

import pytest
from hypothesis import Phase, given, settings, strategies as st

FAST = dict(deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])

from server.tournaments import state as S
from server.tournaments.pairing import rounds_in_bracket
from server.tournaments.standings import sort_key, standings

DISCIPLINES = ["three_cushion", "straight_pool", "libre"]


def entrants(n, ratings=None):
    return [S.Entrant(id=10 + i, name=f"p{i}", rating=(ratings[i] if ratings else 1500.0 + 7 * i)) for i in range(n)]


def resumed(state):
    return S.TournamentState.from_dict(json.loads(json.dumps(state.to_dict())))


def played(winner, a=(30, 25), inn=(20, 20), hr=(5, 4), game=None):
    return S.GameResult(winner=winner, scores=list(a), points=[max(0, x) for x in a], innings=list(inn),
                        high_runs=list(hr), game=game)


results = st.builds(
    lambda w, a, b, ia, ib, ha, hb: (w, (a, b), (ia, ib), (ha, hb)),
    st.sampled_from([0, 1, None]), st.integers(-5, 150), st.integers(-5, 150), st.integers(1, 60),
    st.integers(1, 60), st.integers(0, 40), st.integers(0, 40))


def naive_figures(state):
    """Each player's figures recomputed the plain way from the pairings (an independent check of standings.py)."""
    out = {e.id: dict(mp=0, pf=0, pa=0, pts=0, inn=0, hr=0) for e in state.entrants}
    for p in state.pairings:
        if p.result is None or None in p.players:
            continue
        r = p.result
        for seat in (0, 1):
            f = out[p.players[seat]]
            f["mp"] += 2 if r.winner == seat else (1 if r.winner is None and not r.forfeit else 0)
            if not r.forfeit and not r.reason:
                f["pf"] += r.scores[seat]
                f["pa"] += r.scores[1 - seat]
                f["pts"] += r.points[seat]
                f["inn"] += r.innings[seat]
                f["hr"] = max(f["hr"], r.high_runs[seat])
    return out


def check_standings(state):
    rows = standings(state)
    assert [r.rank for r in rows] == list(range(1, len(state.entrants) + 1))
    assert sorted(r.player for r in rows) == sorted(e.id for e in state.entrants)
    fig = naive_figures(state)
    for r in rows:
        f = fig[r.player]
        assert (r.match_points, r.score_for, r.score_against, r.points, r.innings, r.high_run) == (
            f["mp"], f["pf"], f["pa"], f["pts"], f["inn"], f["hr"])
    # consecutive rows: never a better figure below a worse one, key by key (the documented order)
    for a, b in zip(rows, rows[1:]):
        fa, fb = fig[a.player], fig[b.player]
        if state.discipline == "straight_pool":
            tb = lambda f: (f["pf"] - f["pa"], f["pf"])  # noqa: E731
        else:
            tb = lambda f: (f["pts"] * 1.0 / f["inn"] if f["inn"] else 0.0, f["hr"])  # noqa: E731
        ka, kb = (a.primary, *tb(fa)), (b.primary, *tb(fb))
        assert ka >= kb or abs(ka[1] - kb[1]) < 1e-12 and ka[0] == kb[0]
        if state.format == "round_robin":
            assert a.primary == a.match_points
    keys = [sort_key(r, state.discipline) for r in rows]
    assert all(a < b for a, b in zip(keys, keys[1:])), "standings are not strictly ordered by their keys"
    return rows


def drive(data, fmt, n, discipline, *, drops=True):
    """Play a whole tournament of ``fmt`` with random results; returns the final state."""
    ratings = data.draw(st.lists(st.integers(1000, 2500), min_size=n, max_size=n))
    s = S.start(1, fmt, discipline, True, entrants(n, [float(r) for r in ratings]), now=0.0,
                duration_s=200.0 if fmt == "arena" else None)
    now = 0.0
    for _ in range(400):
        now += 10.0
        again = resumed(s)
        assert [p.__dict__ for p in S.next_pairings(again, now)] == [p.__dict__ for p in S.next_pairings(s, now)]
        before = s.to_dict()
        s2 = S.pair(s, now)
        assert s.to_dict() == before
        # pairing is idempotent: pairing again at once adds nothing (no round paired twice)
        assert S.pair(s2, now) is s2
        ids = [p.id for p in s2.pairings]
        assert len(ids) == len(set(ids))
        busy = [pl for p in s2.pairings if not p.closed for pl in p.players if pl is not None]
        assert len(busy) == len(set(busy)), "a player in two open games"
        s = s2
        opened = s.open_pairings()
        if not opened:
            if S.is_complete(s, now):
                break
            if fmt == "arena":
                now = max(now, s.ends_at)
                continue
            raise AssertionError("stuck: nothing open and not complete")
        for p in opened:
            action = data.draw(st.sampled_from(["result", "result", "result", "no_show", "drop", "wait"]))
            if action == "wait":
                continue
            if action == "drop" and drops:
                seat = data.draw(st.sampled_from([0, 1]))
                s = S.drop(s, p.players[seat])
                assert S.drop(s, p.players[seat]) is s  # idempotent
                continue
            if action == "no_show":
                seats = data.draw(st.sampled_from([[0], [1], [0, 1]]))
                s2 = S.forfeit(s, p.id, seats)
                assert S.forfeit(s2, p.id, seats) is s2
                s = s2
                continue
            w, a, inn, hr = data.draw(results)
            if fmt == "single_elimination" and w is None:
                with pytest.raises(S.InvalidResult):
                    S.record_result(s, p.id, played(None, a, inn, hr))
                w = 0
            r = played(w, a, inn, hr, game=[f"t-{p.id}", 0])
            before = s.to_dict()
            s2 = S.record_result(s, p.id, r)
            assert s.to_dict() == before  # the input state is never modified
            assert s2.version == s.version + 1
            assert S.record_result(s2, p.id, r) is s2  # the same result again changes nothing
            assert resumed(S.record_result(resumed(s2), p.id, r)) == resumed(s2)
            other = played(1 - w if w is not None else 0, a, inn, hr, game=[f"t-{p.id}", 0])
            with pytest.raises(S.ResultConflict):
                S.record_result(s2, p.id, other)
            s = s2
        check_standings(s)
        if fmt == "arena" and now < s.ends_at and data.draw(st.booleans()):
            paused = [e.id for e in s.entrants if not e.active]
            if paused:
                s = S.rejoin(s, paused[0], now)
    else:
        raise AssertionError("the tournament did not end")
    s = S.finish(s, now)
    assert S.finish(s, now) is s
    assert S.pair(s, now) is s
    with pytest.raises(S.UnknownPairing):
        S.record_result(s, "R99-1", played(0))
    return s


@settings(max_examples=40, **FAST)
@given(st.data(), st.integers(2, 14), st.sampled_from(DISCIPLINES))
def test_round_robin_plays_every_scheduled_game_once(data, n, discipline):
    s = drive(data, "round_robin", n, discipline)
    games = [frozenset(p.players) for p in s.pairings if not p.is_bye]
    assert len(games) == len(set(games)) == n * (n - 1) // 2
    rows = check_standings(s)
    assert sum(r.match_points for r in rows) == sum(2 * (r.wins + r.draws / 2) for r in rows) == sum(
        2 for p in s.pairings if not p.is_bye and (p.result.winner is not None or not p.result.forfeit))


@settings(max_examples=40, **FAST)
@given(st.data(), st.integers(2, 40), st.sampled_from(DISCIPLINES))
def test_single_elimination_ends_with_one_champion(data, n, discipline):
    s = drive(data, "single_elimination", n, discipline)
    total = rounds_in_bracket(n)
    final = s.pairing(f"R{total}-1")
    rows = check_standings(s)
    if final.result.winner is not None:
        champ = final.players[final.result.winner]
        assert rows[0].player == champ and rows[0].stage == total + 1
    # nobody plays after losing
    for pl in (e.id for e in s.entrants):
        mine = sorted((p for p in s.pairings if pl in p.players), key=lambda p: p.round)
        for p in mine[:-1]:
            assert p.result.winner is not None and p.players[p.result.winner] == pl


@settings(max_examples=30, **FAST)
@given(st.data(), st.integers(2, 12), st.sampled_from(DISCIPLINES))
def test_arena_runs_to_its_end(data, n, discipline):
    s = drive(data, "arena", n, discipline)
    assert all(p.created_at < s.ends_at for p in s.pairings)
    rows = check_standings(s)
    assert [r.primary for r in rows] == sorted((r.arena_points for r in rows), reverse=True)


def test_round_robin_byes_and_drop_forfeits_later_games():
    s = S.start(1, "round_robin", "three_cushion", False, entrants(3), now=0)
    s = S.pair(s, 1)
    assert [(p.id, p.closed) for p in s.pairings] == [("R1-1", False), ("R1-2", True)]
    assert s.pairings[1].result.reason == "bye"
    assert S.pair(s, 2) is s  # round 2 waits for round 1
    p = s.pairings[0]
    s = S.drop(s, p.players[0])
    assert s.pairing("R1-1").result == S.GameResult(winner=1, forfeit=[0], reason="drop")
    dropped = p.players[0]
    for t in range(3, 6):
        s = S.pair(s, t)
        for q in s.open_pairings():
            assert dropped not in q.players
            s = S.record_result(s, q.id, played(0))
    assert S.is_complete(s, 6)
    mine = [q for q in s.pairings if dropped in q.players and not q.is_bye]
    assert len(mine) == 2 and all(q.result.reason == "drop" and q.result.forfeit == [q.players.index(dropped)]
                                  for q in mine)


def test_elimination_byes_advance_and_2_v_3_starts_at_once():
    s = S.start(1, "single_elimination", "straight_pool", True, entrants(5), now=0)
    s = S.pair(s, 1)
    seed = {e.seed: e.id for e in s.entrants}
    assert [p.players for p in s.pairings[:4]] == [[seed[1], None], [seed[4], seed[5]], [seed[2], None],
                                                   [seed[3], None]]
    assert s.pairing("R2-2").players == [seed[2], seed[3]] and not s.pairing("R2-2").closed
    with pytest.raises(S.UnknownPairing):
        S.record_result(s, "R2-1", played(0))


def test_standings_tie_breaks_carom_and_pool():
    # A beats B, B beats C, C beats A: equal match points; then general average decides (carom)
    for discipline, expect in (("three_cushion", [10, 12, 11]), ("straight_pool", [11, 10, 12])):
        s = S.start(1, "round_robin", discipline, False, entrants(3), now=0)
        figures = {  # (winner id, {id: (score, innings)})
            frozenset({10, 11}): (10, {10: (30, 10), 11: (20, 10)}),   # 10 avg 3.0
            frozenset({11, 12}): (11, {11: (100, 10), 12: (10, 10)}),
            frozenset({10, 12}): (12, {10: (5, 5), 12: (30, 40)}),
        }
        for _ in range(3):
            s = S.pair(s, 0)
            for p in s.open_pairings():
                w, f = figures[frozenset(p.players)]
                a, b = p.players
                s = S.record_result(s, p.id, S.GameResult(
                    winner=p.players.index(w), scores=[f[a][0], f[b][0]], points=[f[a][0], f[b][0]],
                    innings=[f[a][1], f[b][1]], high_runs=[1, 1]))
        rows = check_standings(s)
        assert all(r.match_points == 2 for r in rows)
        # carom: averages 35/15=2.33 (10), 120/20=6 (11), 40/50=0.8 (12) -> 11, 10, 12
        # 14.1: differences 10: +35-50=-15... computed below
        if discipline == "three_cushion":
            assert [r.player for r in rows] == [11, 10, 12]
        else:
            diff = {r.player: r.score_for - r.score_against for r in rows}
            assert [r.player for r in rows] == sorted(diff, key=lambda p: -diff[p])


def test_head_to_head_then_seed():
    s = S.start(1, "round_robin", "straight_pool", False, entrants(2), now=0)
    s = S.pair(s, 0)
    p = s.pairings[0]
    s = S.record_result(s, p.id, S.GameResult(winner=None, scores=[50, 50], points=[50, 50], innings=[9, 9],
                                              high_runs=[20, 30]))
    rows = standings(s)
    assert [r.seed for r in rows] == [1, 2] and rows[0].head_to_head == rows[1].head_to_head == 1


def test_refusals():
    s = S.pair(S.start(1, "round_robin", "libre", False, entrants(4), now=0), 0)
    with pytest.raises(S.InvalidResult):
        S.record_result(s, "R1-1", S.GameResult(winner=2))
    with pytest.raises(S.InvalidResult):
        S.record_result(s, "R1-1", S.GameResult(winner=0, forfeit=[0], reason="no_show"))
    with pytest.raises(S.InvalidResult):
        S.record_result(s, "R1-1", S.GameResult(winner=0, innings=[-1, 0]))
    with pytest.raises(S.TournamentError):
        S.finish(s, 0)
    with pytest.raises(S.TournamentError):
        S.rejoin(s, 10, 0)
    with pytest.raises(S.TournamentError):
        S.start(1, "swiss", "libre", False, entrants(4), now=0)
    with pytest.raises(S.TournamentError):
        S.start(1, "arena", "libre", False, entrants(4), now=0)
    with pytest.raises(ValueError):
        S.TournamentState.from_dict({"state_format": 99})


def test_arena_no_show_pauses_until_rejoin_and_nothing_after_the_end():
    s = S.start(1, "arena", "three_cushion", True, entrants(4), now=0, duration_s=100)
    s = S.pair(s, 1)
    assert len(s.open_pairings()) == 2
    p = s.open_pairings()[0]
    s = S.forfeit(s, p.id, [1])
    absent = p.players[1]
    assert not s.entrant(absent).active
    s = S.pair(s, 2)
    assert absent not in s.playing()
    s = S.rejoin(s, absent, 3)
    assert S.forfeit(s, p.id, [1]) is s  # replaying the forfeit does not pause them again
    assert S.next_pairings(s, 100) == []


def test_result_from_referee():
    from server.tournaments.results import from_referee

    carom = {"winner": 1, "scores": [3, 15], "points": [20, 45], "innings_total": [30, 30], "high_runs": [4, 9],
             "sets": [[15, 12], [2, 15], [3, 15]]}
    r = from_referee("three_cushion", carom, "tbl", 2)
    assert r == S.GameResult(winner=1, scores=[20, 45], points=[20, 45], innings=[30, 30], high_runs=[4, 9],
                             game=["tbl", 2])
    pool = {"winner": 0, "scores": [100, -3], "points": [101, 12], "innings_total": [9, 8], "high_runs": [40, 5]}
    r = from_referee("14.1", pool)
    assert r.scores == [100, -3] and r.points == [101, 12] and r.game is None
    with pytest.raises(S.InvalidResult):
        from_referee("straight_pool", {"winner": 0})


def test_overdue_pairings_are_the_open_ones_past_the_wait():
    s = S.pair(S.start(1, "round_robin", "libre", False, entrants(4), now=0), 100)
    assert S.overdue(s, 150, 60) == []
    assert S.overdue(s, 160, 60) == ["R1-1", "R1-2"]
    s = S.forfeit(s, "R1-1", [0, 1])
    assert S.overdue(s, 160, 60) == ["R1-2"]
    assert s.pairing("R1-1").result.winner is None
