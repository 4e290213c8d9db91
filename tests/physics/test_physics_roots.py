"""The root finder behind every event time (physics/roots.pyx)."""

import math

import pytest

from physics.roots import py_first_entry as first_entry
from physics.roots import py_sign_change_roots as roots


def expand(rs, lead=1.0):
    """Ascending coefficients of lead * prod (t - r)."""
    c = [lead]
    for r in rs:
        nxt = [0.0] * (len(c) + 1)
        for k, ck in enumerate(c):
            nxt[k + 1] += ck
            nxt[k] -= r * ck
        c = nxt
    return c


@pytest.mark.parametrize(
    "rs, rel",
    # the last pair of roots 1e-4 apart is ill-conditioned: error ~ eps * |p| / |p'| ~ 1e-10
    [((0.5, 1.5, 2.5, 3.5), 1e-13), ((0.1, 0.2, 7.0, 9.0), 1e-13), ((1e-3, 2.0, 2.0001, 5.0), 1e-9)],
)
def test_quartic_with_four_real_roots_finds_each(rs, rel):
    got = roots(expand(rs), 0.0, 10.0)
    assert len(got) == 4
    for g, r in zip(got, rs):
        assert g == pytest.approx(r, rel=rel, abs=1e-15)


def test_quartic_roots_outside_the_interval_are_not_reported():
    assert roots(expand((-2.0, -1.0, 3.0, 4.0)), 0.0, 3.5) == [pytest.approx(3.0, rel=1e-13)]


def test_double_root_is_no_sign_change():
    # (t - 1)^2 (t - 3)(t - 4): only 3 and 4 change sign
    got = roots(expand((1.0, 1.0, 3.0, 4.0)), 0.0, 10.0)
    assert got == [pytest.approx(3.0, rel=1e-12), pytest.approx(4.0, rel=1e-12)]


def test_first_entry_of_approaching_pair():
    # gap polynomial positive, falling through zero at t = 2 (then rising again at t = 3)
    c = expand((2.0, 3.0))  # (t-2)(t-3): positive before 2, negative between
    assert first_entry(c, 10.0) == pytest.approx(2.0, rel=1e-14)


def test_first_entry_touching_and_closing_is_now():
    assert first_entry([0.0, -1.0, 1.0], 5.0) == 0.0
    assert first_entry([-1e-18, -1.0, 1.0], 5.0) == 0.0


def test_first_entry_touching_and_opening_is_never_now():
    # p(0) = 0, p'(0) > 0 and p stays positive: no event
    assert first_entry([0.0, 1.0, 1.0], 5.0) == math.inf
    # slightly overlapping by rounding and opening: no event
    assert first_entry([-1e-18, 1.0, 0.0], 5.0) == math.inf


def test_first_entry_overlap_turning_to_close_collides_when_it_turns():
    # p = -1e-12 + t - t^2: opens until t = 0.5 while still "overlapping" ... then closes
    c = [-1e-12, 1e-9, -1.0]
    t = first_entry(c, 1.0)
    assert t == pytest.approx(0.5e-9, rel=1e-6)


def test_degenerate_quartic_dispatches_to_lower_degree():
    # pooltool PR #354: quartic.solve(0, 0, 1, -2, 0.5) gave four zero roots
    assert first_entry([0.5, -2.0, 1.0, 0.0, 0.0], 10.0) == pytest.approx(1.0 - math.sqrt(0.5), rel=1e-14)
    # identical motion: constant polynomial, never an event, positive or touching
    assert first_entry([0.25, 0.0, 0.0, 0.0, 0.0], 10.0) == math.inf
    assert first_entry([0.0, 0.0, 0.0, 0.0, 0.0], 10.0) == math.inf
    # linear
    assert first_entry([1.0, -4.0], 10.0) == 0.25


def test_grazing_tangent_root_reported_at_touch():
    # (t - 1)^2: touches zero at t = 1 without crossing: the event is at the touch, closing speed 0
    t = first_entry(expand((1.0, 1.0)), 5.0)
    assert t == pytest.approx(1.0, abs=1e-7)


def test_root_beyond_the_window_is_ignored():
    assert first_entry(expand((2.0, 3.0)), 1.999) == math.inf
