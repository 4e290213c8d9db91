"""Glicko-2 against Glickman's worked example ("Example of the Glicko-2 system", glicko.net), and billar's rules around it."""

import math

import pytest

from server.players import glicko2 as G
from server.players.glicko2 import Rating


# The paper's example: a 1500 / RD 200 / sigma 0.06 player, tau 0.5, plays three games in one period.
PLAYER = Rating(1500, 200, 0.06)
OPPONENTS = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]


def test_paper_intermediate_figures():
    # step 2: mu_j, phi_j (4 places); step 3: g(phi_j) (4 places) and E (3 places), as printed
    mus = [(o.rating - 1500) / G.SCALE for o, _ in OPPONENTS]
    phis = [o.rd / G.SCALE for o, _ in OPPONENTS]
    assert [round(m, 4) for m in mus] == [-0.5756, 0.2878, 1.1513]
    assert [round(p, 4) for p in phis] == [0.1727, 0.5756, 1.7269]
    gs = [round(G.g(p), 4) for p in phis]
    es = [round(G.expected(0.0, m, p), 3) for m, p in zip(mus, phis)]
    assert gs == [0.9955, 0.9531, 0.7242] and es == [0.639, 0.432, 0.303]
    # the paper goes on from those printed values: v = 1.7785 (step 3), Delta = -0.4834 (step 4)
    v_paper = 1.0 / sum(g * g * e * (1 - e) for g, e in zip(gs, es))
    delta_paper = v_paper * sum(g * (s - e) for g, e, (_, s) in zip(gs, es, OPPONENTS))
    assert round(v_paper, 4) == 1.7785 and round(delta_paper, 4) == -0.4834
    # unrounded, ours differ from those only by the paper's rounding of E
    v = 1.0 / sum(G.g(p) ** 2 * G.expected(0.0, m, p) * (1 - G.expected(0.0, m, p)) for m, p in zip(mus, phis))
    delta = v * sum(G.g(p) * (s - G.expected(0.0, m, p)) for (o, s), m, p in zip(OPPONENTS, mus, phis))
    assert round(v, 4) == 1.7790 and round(delta, 4) == -0.4839
    assert abs(v - 1.7785) < 0.001 and abs(delta - (-0.4834)) < 0.001
    # step 5: sigma' = 0.05999; step 6: phi* = 1.152862
    sigma = G._new_volatility(0.06, 200 / G.SCALE, v, delta, 0.5)
    assert abs(sigma - 0.05999) < 0.00001
    # the paper's phi* comes from its rounded phi = 1.1513 and sigma' = 0.05999; ours unrounded within 1e-5
    assert round(math.sqrt(1.1513 ** 2 + 0.05999 ** 2), 6) == 1.152862
    assert abs(math.sqrt((200 / G.SCALE) ** 2 + sigma ** 2) - 1.152862) < 0.00001


def test_paper_example_result():
    r = G.update(PLAYER, OPPONENTS, tau=0.5)
    mu, phi = (r.rating - 1500) / G.SCALE, r.rd / G.SCALE
    # step 7 as printed: phi' = 0.8722, mu' = -0.2069; step 8: RD' = 151.52, sigma' = 0.05999
    assert round(phi, 4) == 0.8722 and round(mu, 4) == -0.2069
    assert round(r.rd, 2) == 151.52
    assert abs(r.volatility - 0.05999) < 0.00001 and round(r.volatility, 6) == 0.059996
    # the paper's r' = 1464.06 is 173.7178 * (-0.2069) + 1500 from the rounded mu'; unrounded it is 1464.0507
    assert round(173.7178 * round(mu, 4) + 1500, 2) == 1464.06
    assert abs(r.rating - 1464.06) < 0.01 and round(r.rating, 4) == 1464.0507


def test_no_games_is_step_6_only():
    r = G.update(PLAYER, [])
    assert r.rating == 1500 and r.volatility == 0.06
    assert r.rd == pytest.approx(G.SCALE * math.sqrt((200 / G.SCALE) ** 2 + 0.06 ** 2))


def test_one_game_between_new_players_lichess_defaults():
    a, b = G.rate_game(G.NEW_PLAYER, G.NEW_PLAYER, 1.0)
    assert G.NEW_PLAYER == Rating(1500.0, 350.0, 0.06) and G.TAU == 0.75
    # symmetric: the winner gains what the loser loses; both RDs shrink from 350 (clamped at the top)
    assert a.rating - 1500 == pytest.approx(1500 - b.rating, abs=1e-9)
    assert a.rd == pytest.approx(b.rd) and a.rd < 350
    assert a.rating == pytest.approx(1662.31, abs=0.01) and a.rd == pytest.approx(290.32, abs=0.01)
    d1, d2 = G.rate_game(G.NEW_PLAYER, G.NEW_PLAYER, 0.5)
    assert d1.rating == pytest.approx(1500.0) and d2.rating == pytest.approx(1500.0)


def test_rd_bounds_and_inactivity():
    # never below 45, never above 350
    assert G.decay(Rating(1500, 20, 0.06), 0).rd == 45.0
    a, b = G.rate_game(Rating(1800, 45, 0.001), Rating(1800, 45, 0.001), 0.5)
    assert a.rd == b.rd == 45.0
    assert G.decay(Rating(1500, 60, 0.06), 10_000).rd == 350.0
    # lichess's constant: 0.21436 rating periods a day, so RD 60 -> about 110 in a year at sigma 0.06
    year = G.decay(Rating(1500, 60, 0.06), 365)
    assert year.rd == pytest.approx(G.SCALE * math.sqrt((60 / G.SCALE) ** 2 + 0.06 ** 2 * 365 * 0.21436))
    assert 105 < year.rd < 115
    # days_until_rd is the inverse of decay
    days = G.days_until_rd(Rating(1500, 60, 0.06), 100.0)
    assert G.decay(Rating(1500, 60, 0.06), days).rd == pytest.approx(100.0)
    assert G.days_until_rd(Rating(1500, 120, 0.06), 100.0) == 0.0


def test_bad_scores_refused():
    with pytest.raises(ValueError, match="score"):
        G.update(PLAYER, [(Rating(), 1.5)])
    with pytest.raises(ValueError, match="periods"):
        G.inactive(PLAYER, -1)
