"""server/tournaments/pairing.py: round robin, bracket, arena pairing and points (examples and properties)."""

import pytest
from hypothesis import given, settings, strategies as st

from server.tournaments.pairing import (arena_pairs, arena_points, bracket_order, bracket_size, first_round,
                                        round_robin, seat_counts)


# ----- round robin -------------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(2, 21))
def test_round_robin_every_pair_once_one_game_a_round_balanced_seats(n):
    players = [100 + i for i in range(n)]
    rounds = round_robin(players)
    assert len(rounds) == (n if n % 2 else n - 1)
    met = []
    byes = []
    for rnd in rounds:
        seen = [p for pair in rnd for p in pair if p is not None]
        assert len(seen) == len(set(seen)) == n  # everyone once a round, at most one game
        games = [g for g in rnd if g[1] is not None]
        assert len(games) == n // 2
        byes += [g[0] for g in rnd if g[1] is None]
        met += [frozenset(g) for g in games]
        assert all(a != b for a, b in games)
    assert len(met) == len(set(met)) == n * (n - 1) // 2  # every pair exactly once
    assert sorted(byes) == (players if n % 2 else [])  # odd: one bye each
    counts = seat_counts([g for rnd in rounds for g in rnd])
    assert all(abs(a - b) <= 1 for a, b in counts.values()), counts


def test_round_robin_examples_and_errors():
    assert round_robin([1, 2]) == [[(1, 2)]]
    assert round_robin([1, 2, 3, 4])[0] == [(1, 4), (2, 3)]
    with pytest.raises(ValueError):
        round_robin([1])
    with pytest.raises(ValueError):
        round_robin([1, 1, 2])


@given(st.lists(st.integers(1, 10**9), min_size=2, max_size=20, unique=True))
def test_round_robin_is_deterministic_for_any_ids(ids):
    assert round_robin(ids) == round_robin(list(ids))


# ----- single elimination ------------------------------------------------------------------------
def test_bracket_order_standard():
    assert bracket_order(2) == [1, 2]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(16)[:4] == [1, 16, 8, 9]
    with pytest.raises(ValueError):
        bracket_order(12)


def _winner_by_seed(a, b):
    return a if b is None or (a is not None and a < b) else b


@pytest.mark.parametrize("n", range(2, 65))
def test_bracket_every_player_once_byes_to_top_seeds_1_and_2_apart(n):
    seeds = list(range(1, n + 1))  # player id = seed
    first = first_round(seeds)
    size = bracket_size(n)
    assert len(first) == size // 2
    line = [p for pair in first for p in pair]
    assert sorted(p for p in line if p is not None) == seeds
    # a pair is never two byes; byes go to seeds 1..size-n exactly
    assert all(a is not None or b is not None for a, b in first)
    byes = sorted(a if b is None else b for a, b in first if a is None or b is None)
    assert byes == list(range(1, size - n + 1))
    # seeds 1 and 2 in opposite halves (they can meet only in the final)
    half = len(line) // 2
    assert 1 in line[:half] and 2 in line[half:]
    # with the stronger seed always winning, the final is 1 v 2 and the semi-finals 1-4
    rnd = line
    while len(rnd) > 2:
        rnd = [_winner_by_seed(rnd[2 * i], rnd[2 * i + 1]) for i in range(len(rnd) // 2)]
        if len(rnd) == 4:
            assert sorted(rnd) == [1, 2, 3, 4]
    assert sorted(rnd) == [1, 2]


# ----- arena ---------------------------------------------------------------------------------------
def _is_rematch(last, a, b):
    return last.get(a) == b or last.get(b) == a


def _best_possible(ws, last):
    """(most pairs without a rematch) by brute force, for small pools."""
    best = 0

    def rec(free, n):
        nonlocal best
        best = max(best, n)
        if len(free) < 2:
            return
        x, rest = free[0], free[1:]
        rec(rest, n)  # x waits
        for y in rest:
            if not _is_rematch(last, x, y):
                rec([r for r in rest if r != y], n + 1)

    rec(list(ws), 0)
    return best


@st.composite
def arena_pool(draw, max_size=9):
    n = draw(st.integers(0, max_size))
    ws = list(range(n))
    others = list(range(100, 103))
    last = {}
    for p in ws:
        if draw(st.booleans()):
            last[p] = draw(st.sampled_from([q for q in ws + others if q != p] or others))
    order = draw(st.permutations(ws))
    rank = {p: i for i, p in enumerate(order)}
    return ws, rank, last


@settings(max_examples=300, deadline=None)
@given(arena_pool(), st.booleans())
def test_arena_pairs_no_self_no_double_no_avoidable_rematch(pool, rematch_ok):
    ws, rank, last = pool
    pairs = arena_pairs(ws, rank, last, rematch_ok=rematch_ok)
    flat = [p for pair in pairs for p in pair]
    assert len(flat) == len(set(flat))  # nobody twice at once
    assert all(a != b for a, b in pairs)  # never with themselves
    assert set(flat) <= set(ws)
    assert all(rank[a] < rank[b] for a, b in pairs)
    clean = [p for p in pairs if not _is_rematch(last, *p)]
    assert len(clean) == _best_possible(ws, last)  # as many rematch-free games as the pool allows
    if not rematch_ok:
        assert clean == pairs  # no rematch when the rest of the arena may free up
    else:
        assert len(pairs) == len(ws) // 2  # everyone is waiting: everyone plays (one may sit out)


def test_arena_pairs_find_a_longer_way_round_the_rematches():
    """Found by the property test above: 4 may only meet 3, 1 neither 4 nor 5. The greedy pass pairs 5-3 and 0-2,
    and no single swap frees 3 for 4; the full pairing takes an alternating path through both pairs."""
    order = [5, 3, 0, 2, 4, 1]
    rank = {p: i for i, p in enumerate(order)}
    last = {0: 4, 1: 4, 2: 4, 4: 5, 5: 1}
    pairs = arena_pairs(order, rank, last)
    assert len(pairs) == 3 and not any(_is_rematch(last, a, b) for a, b in pairs), pairs
    assert (3, 4) in pairs


def test_arena_pairs_close_in_rank_and_avoid_last_opponent():
    rank = {p: p for p in range(6)}
    assert arena_pairs(range(6), rank, {}) == [(0, 1), (2, 3), (4, 5)]
    assert arena_pairs(range(4), rank, {0: 1, 1: 0}) == [(0, 2), (1, 3)]
    assert arena_pairs([0, 1], rank, {0: 1, 1: 0}) == []
    assert arena_pairs([0, 1], rank, {0: 1, 1: 0}, rematch_ok=True) == [(0, 1)]


def test_arena_points_lichess_streaks():
    # W W W D W L W W -> 2 2 4 2 2 0 2 2
    assert arena_points([1, 1, 1, 0.5, 1, 0, 1, 1]) == (16, [2, 2, 4, 2, 2, 0, 2, 2])
    assert arena_points([1, 1, 1, 1, 0]) == (12, [2, 2, 4, 4, 0])
    assert arena_points([]) == (0, [])


@given(st.lists(st.sampled_from([0, 0.5, 1]), max_size=30))
def test_arena_points_bounds(outcomes):
    total, per = arena_points(outcomes)
    assert total == sum(per)
    wins, draws = outcomes.count(1), outcomes.count(0.5)
    assert 2 * wins + draws <= total <= 4 * wins + 2 * draws
    for i, o in enumerate(outcomes):
        doubled = i >= 2 and outcomes[i - 1] == 1 and outcomes[i - 2] == 1
        assert per[i] == {1: 2, 0.5: 1, 0: 0}[o] * (2 if doubled else 1)
