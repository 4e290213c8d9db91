"""The log's records (physics/records.pyx): BallState and Event behave as the frozen dataclasses they
replaced, whether the engine built them (numbers kept as doubles, tuples and dicts made on first
read) or Python did; and the engine's checks give the same answers for a dict layout (read in one
pass) as for any other mapping."""

import copy
import dataclasses
import json
import pickle
import types

import pytest

from physics import BallState, Event, Shot, get_table, simulate
from physics import mathavan_2010

CAROM = get_table("carom")
POOL = get_table("pool-9ft")
LAYOUT = {0: (0.7, 0.4), 1: (1.9, 0.9), 2: (2.3, 0.3)}
SHOT = Shot(0, 20.0, 3.0, a=0.2, b=0.3)


def _plain(state: BallState) -> BallState:
    """The same state built in Python from its fields."""
    return BallState(state.state, tuple(state.r), tuple(state.v), tuple(state.w))


def test_engine_states_equal_python_built_ones_and_keep_their_numbers():
    res = simulate(CAROM, LAYOUT, SHOT)
    moving = [s for e in res.events for s in e.states.values() if s.state in ("sliding", "rolling")]
    assert len(moving) >= 5
    for s in moving:
        p = _plain(s)
        assert s == p and not s != p and hash(s) == hash(p) and repr(s) == repr(p)
        assert s.r is s.r and s.v is s.v and s.w is s.w   # made once, on first read
        assert type(s.r) is tuple and len(s.r) == 2 and len(s.v) == 2 and len(s.w) == 3
        assert all(type(x) is float for x in s.r + s.v + s.w)
    rest = res.final[0]
    assert rest.state == "stationary" and rest.v == (0.0, 0.0) and rest.w == (0.0, 0.0, 0.0)


def test_ball_state_is_frozen_hashable_picklable_and_matchable():
    s = BallState("sliding", (1.0, 2.0), (3.0, 4.0), (5.0, 6.0, 7.0))
    assert repr(s) == "BallState(state='sliding', r=(1.0, 2.0), v=(3.0, 4.0), w=(5.0, 6.0, 7.0))"
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.r = (0.0, 0.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        del s.state
    assert pickle.loads(pickle.dumps(s)) == s and copy.deepcopy(s) == s
    assert {s: 1}[BallState("sliding", (1.0, 2.0), (3.0, 4.0), (5.0, 6.0, 7.0))] == 1
    assert BallState(state="x", r=(1, 2)).v == (0.0, 0.0)
    assert BallState("x", [1, 2]).r == [1, 2]           # what it was given, as the dataclass kept it
    assert BallState("x", (1.0, 2.0)) != BallState("x", (1.0, 2.5))
    match s:
        case BallState(name, r):
            assert (name, r) == ("sliding", (1.0, 2.0))
    assert BallState.at_rest((1, 2)) == BallState("stationary", (1.0, 2.0))
    assert BallState.from_json(s.to_json()) == s


def test_engine_events_equal_python_built_ones_and_make_one_states_dict():
    res = simulate(CAROM, LAYOUT, SHOT)
    kinds = {e.kind for e in res.events}
    assert {"strike", "ball_cushion", "slide_to_roll"} <= kinds
    for e in res.events:
        states = e.states
        assert type(states) is dict and e.states is states
        p = Event(e.t, e.kind, e.balls, e.cushion, e.pocket, {k: _plain(v) for k, v in states.items()})
        assert e == p and repr(e) == repr(p)
        assert pickle.loads(pickle.dumps(e)) == e
        assert json.dumps(e.to_json()) == json.dumps(p.to_json())
    two = [e for e in res.events if e.kind == "ball_ball"]
    assert two and all(list(e.states) == list(e.balls) for e in two)   # the mover first, as logged


def test_event_is_frozen_and_its_default_states_are_its_own():
    a = Event(0.5, "strike", (0,))
    b = Event(t=0.5, kind="strike", balls=(0,))
    assert a.states == {} and a.states is not b.states and a == b
    assert Event(1.0, "spin_to_rest", (1,), states=None).states is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.t = 1.0
    with pytest.raises(TypeError):
        hash(a)  # a dict field, as the frozen dataclass's hash
    e = Event.from_json({"t": 0.25, "kind": "ball_cushion", "balls": [2], "cushion": "T",
                         "states": {"2": {"state": "sliding", "r": [1.0, 2.0], "v": [0.5, 0.0], "w": [0.0, 1.0, 0.0]}}})
    assert e.states[2] == BallState("sliding", (1.0, 2.0), (0.5, 0.0), (0.0, 1.0, 0.0)) and e.cushion == "T"


@pytest.mark.parametrize("balls, message", [
    ({0: (0.7, 0.4), 99: (1.0, 1.0)}, "balls: ball ids are integers 0..15, got 99"),
    ({0: (0.7, 0.4), True: (1.0, 1.0)}, "balls: ball ids are integers 0..15, got True"),
    ({0: (0.7, "x")}, "balls: must be a number, got 'x'"),
    ({0: (0.7,)}, "balls: ball 0 needs a position (x, y), got (0.7,)"),
    ({}, "balls: must be a non-empty mapping of ball id -> (x, y)"),
    ({2: (0.7, 0.4), 1: (0.7, 0.4)}, "balls: balls 1 and 2 overlap"),
    ({3: (0.7, float("nan")), 1: (0.7, 1e9)}, "balls: must be finite (ball 3 y), got nan"),   # positions first
    ({3: (0.7, 0.4), 1: (0.7, 1e9)}, "balls: ball 1 at (0.7, 1000000000.0) is not on the playing surface"),
])
def test_a_dict_layout_and_any_other_mapping_are_checked_alike(balls, message):
    for layout in (balls, types.MappingProxyType(balls)):
        with pytest.raises(ValueError) as err:
            simulate(CAROM, layout, SHOT)
        assert str(err.value).startswith(message)


def test_a_dict_layout_and_any_other_mapping_give_the_same_log():
    balls = {2: (2.3, 0.3), 0: (0.7, 0.4), 1: (1.9, 0.9)}
    a = simulate(CAROM, balls, SHOT)
    b = simulate(CAROM, types.MappingProxyType(balls), SHOT)
    assert json.dumps(a.to_json()) == json.dumps(b.to_json())
    assert list(a.initial) == [0, 1, 2]


def test_timed_impacts_are_the_resolved_ones():
    cloth = POOL.cloth
    args = (POOL.R, POOL.cushion_height, cloth.e_c, cloth.f_c, cloth.mu_s)
    impacts = [((1.5, 2.0), (0.0, 0.0, 10.0), (0.0, 1.0)), ((0.3, 1.0), (-20.0, 5.0, -30.0), (0.6, 0.8)),
               ((2.0, -3.0), (40.0, 10.0, 0.0), (0.0, -1.0))]
    seconds, check = mathavan_2010.time_resolves(impacts, 3, *args)
    assert seconds > 0.0
    one = sum(mathavan_2010.resolve(v, w, n, *args)[0][0] for v, w, n in impacts)
    assert check == pytest.approx(3 * one, rel=1e-12)
