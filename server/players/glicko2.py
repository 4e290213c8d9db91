"""Glicko-2 ratings, after Mark E. Glickman, "Example of the Glicko-2 system" (glicko.net, 2012; revised 2022).

Pure functions over :class:`Rating` (rating ``r`` and rating deviation ``RD`` in the familiar
Glicko scale, volatility ``sigma``). The paper's steps are named where they happen:

1. new players start at r 1500, RD 350, sigma 0.06 (:data:`NEW_PLAYER`); tau, the system
   constant, bounds how fast the volatility moves (the paper suggests 0.3-1.2; ours 0.75);
2. convert to the Glicko-2 scale: mu = (r - 1500) / 173.7178, phi = RD / 173.7178;
3. v, the estimated variance of the rating from the game outcomes, with g(phi) and E(mu, mu_j, phi_j);
4. Delta, the estimated improvement;
5. the new volatility sigma' by the Illinois variant of regula falsi on f(x) (epsilon 1e-6);
6. the pre-period deviation phi* = sqrt(phi^2 + sigma'^2);
7. phi' = 1 / sqrt(1 / phi*^2 + 1 / v) and mu' = mu + phi'^2 * sum g(phi_j) (s_j - E);
8. back to the Glicko scale.

A player who plays no game in a period only goes through step 6 (:func:`inactive`).

How billar uses it (as lichess does, whose parameters these are): the rating period is one game
(:func:`rate_game` updates both players from their ratings before the game); a draw scores 0.5;
the RD is kept within [:data:`RD_MIN`, :data:`RD_MAX`]; and between games the RD grows back with
inactivity, step 6 applied for the elapsed fraction of rating periods,
phi = sqrt(phi^2 + sigma^2 * t) with t = days * :data:`RATING_PERIODS_PER_DAY` (lichess's 0.21436
periods a day, chosen there so that a typical RD goes from 60 to 110 in a year): :func:`decay`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence, Tuple

#: the Glicko-2 scale factor 400 / ln(10) (paper, step 2)
SCALE = 173.7178
#: rating of the scale's origin (paper, step 2)
BASE_RATING = 1500.0
#: system constant tau (lichess's value)
TAU = 0.75
#: convergence tolerance of the volatility iteration (paper, step 5)
EPSILON = 0.000001
#: RD bounds: never more certain than 45, never less than a new player's 350
RD_MIN = 45.0
RD_MAX = 350.0
#: rating periods per day of inactivity (lichess: a typical RD goes from 60 to 110 in one year)
RATING_PERIODS_PER_DAY = 0.21436
#: the volatility iteration gives up past this many steps (it converges in well under 100)
MAX_ITERATIONS = 1000


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating: ``rating`` r and ``rd`` (rating points), ``volatility`` sigma (Glicko-2 scale)."""

    rating: float = BASE_RATING
    rd: float = RD_MAX
    volatility: float = 0.06


#: what a new player starts with (paper, step 1; lichess's values)
NEW_PLAYER = Rating(1500.0, 350.0, 0.06)


def g(phi: float) -> float:
    """Paper, step 3: g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2), phi on the Glicko-2 scale."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected(mu: float, mu_j: float, phi_j: float) -> float:
    """Paper, step 3: E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j) (mu - mu_j))), the expected score against j."""
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Paper, step 5: sigma' = exp(A / 2) where f(A) = 0, by the Illinois algorithm.

    Raises ``ArithmeticError`` if the iteration does not converge in :data:`MAX_ITERATIONS`.
    """
    a = math.log(sigma * sigma)
    d2, p2 = delta * delta, phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (d2 - p2 - v - ex) / (2.0 * (p2 + v + ex) ** 2) - (x - a) / (tau * tau)

    A = a
    if d2 > p2 + v:
        B = math.log(d2 - p2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    fA, fB = f(A), f(B)
    for _ in range(MAX_ITERATIONS):
        if abs(B - A) <= EPSILON:
            return math.exp(A / 2.0)
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB <= 0:
            A, fA = B, fB
        else:
            fA = fA / 2.0
        B, fB = C, fC
    raise ArithmeticError("glicko2: the volatility iteration did not converge")


def update(player: Rating, results: Iterable[Tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The paper's steps 2-8: ``player`` after one rating period of ``results`` ((opponent, score), score 1 / 0.5 / 0).

    Opponents' ratings are their ratings before the period. No results: only step 6
    (:func:`inactive`). Raises ``ValueError`` for a score outside [0, 1]. The result is not clamped:
    :func:`rate_game` applies billar's RD bounds.
    """
    results = list(results)
    if not results:
        return inactive(player, 1.0)
    mu = (player.rating - BASE_RATING) / SCALE
    phi = player.rd / SCALE
    inv_v = 0.0
    gain = 0.0
    for opp, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score: must be in [0, 1], got {score!r}")
        mu_j = (opp.rating - BASE_RATING) / SCALE
        phi_j = opp.rd / SCALE
        gj = g(phi_j)
        e = expected(mu, mu_j, phi_j)
        inv_v += gj * gj * e * (1.0 - e)
        gain += gj * (score - e)
    v = 1.0 / inv_v                                              # step 3
    delta = v * gain                                             # step 4
    sigma = _new_volatility(player.volatility, phi, v, delta, tau)  # step 5
    phi_star = math.sqrt(phi * phi + sigma * sigma)              # step 6
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)  # step 7
    mu_new = mu + phi_new * phi_new * gain
    return Rating(SCALE * mu_new + BASE_RATING, SCALE * phi_new, sigma)  # step 8


def inactive(player: Rating, periods: float) -> Rating:
    """Step 6 alone over ``periods`` rating periods (a fraction allowed): phi = sqrt(phi^2 + sigma^2 t).

    Rating and volatility unchanged; not clamped. Raises ``ValueError`` for negative ``periods``.
    """
    if periods < 0 or not math.isfinite(periods):
        raise ValueError(f"periods: must be finite and >= 0, got {periods!r}")
    phi = player.rd / SCALE
    phi = math.sqrt(phi * phi + player.volatility * player.volatility * periods)
    return Rating(player.rating, phi * SCALE, player.volatility)


def clamp_rd(rd: float) -> float:
    """``rd`` within [:data:`RD_MIN`, :data:`RD_MAX`]."""
    return min(RD_MAX, max(RD_MIN, rd))


def decay(player: Rating, days: float) -> Rating:
    """The rating as it stands ``days`` after its last rated game: the RD grown by inactivity, clamped.

    ``days`` below 0 (clocks of two processes) count as 0.
    """
    grown = inactive(player, max(0.0, days) * RATING_PERIODS_PER_DAY)
    return Rating(grown.rating, clamp_rd(grown.rd), grown.volatility)


def days_until_rd(player: Rating, rd_limit: float) -> float:
    """Days of inactivity after which the RD of ``player`` reaches ``rd_limit`` (0 if it is there already).

    The inverse of :func:`decay`: (phi_limit^2 - phi^2) / (sigma^2 * periods per day).
    """
    if player.rd >= rd_limit:
        return 0.0
    p, q = player.rd / SCALE, rd_limit / SCALE
    return (q * q - p * p) / (player.volatility * player.volatility * RATING_PERIODS_PER_DAY)


def rate_game(a: Rating, b: Rating, score_a: float, days_a: float = 0.0, days_b: float = 0.0,
              tau: float = TAU) -> Tuple[Rating, Rating]:
    """Both players' ratings after one game (a rating period of one game), lichess's way.

    ``a``, ``b``: the ratings stored after each one's last rated game, ``days_a``/``days_b`` the days
    since then (the RD grows back first: :func:`decay`); ``score_a``: 1 a win of a, 0.5 a draw, 0
    a loss (b scores 1 - score_a). Each is updated against the other's rating before the game;
    new RDs are clamped to [45, 350]. Raises ``ValueError`` for a score outside [0, 1].
    """
    a0, b0 = decay(a, days_a), decay(b, days_b)
    a1 = update(a0, [(b0, score_a)], tau)
    b1 = update(b0, [(a0, 1.0 - score_a)], tau)
    return (Rating(a1.rating, clamp_rd(a1.rd), a1.volatility), Rating(b1.rating, clamp_rd(b1.rd), b1.volatility))
