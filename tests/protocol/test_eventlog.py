"""The compact event-log arrays: exact float64 round trip of real simulations, codes that match the physics."""

import struct

import msgpack
import pytest

import protocol
from physics import Shot, SimResult, get_table, simulate
from physics import evolve
from physics.events import EVENT_KINDS
from protocol.eventlog import EVENT_KINDS as WIRE_KINDS, STATE_NAMES, STATE_WIDTH


def rack_break():
    t = get_table("pool-9ft")
    balls = {0: t.head_spot}
    for i, p in enumerate(t.rack_sites()):
        balls[i + 1] = p
    return t, simulate(t, balls, Shot(cue_ball=0, phi_deg=0.4, V0=8.0, a=0.1, b=0.2, theta_deg=0.0))


def three_cushion():
    t = get_table("carom")
    balls = {0: (0.71, 0.5275), 1: (0.71, 0.71), 2: (2.13, 0.71)}
    return t, simulate(t, balls, Shot(cue_ball=0, phi_deg=33.0, V0=4.0, a=0.3, b=0.1, theta_deg=2.0))


def test_codes_match_the_physics():
    assert set(WIRE_KINDS) == set(EVENT_KINDS)
    assert STATE_NAMES == tuple(evolve.STATE_NAMES)


def double_hit():
    """The cue ball 1 mm behind an object ball, shot straight: the follow-through flags the stroke."""
    t = get_table("pool-9ft")
    balls = {0: (1.0, 0.6), 1: (1.0 + 2 * t.R + 0.001, 0.6)}
    return t, simulate(t, balls, Shot(cue_ball=0, phi_deg=0.0, V0=2.0))


@pytest.mark.parametrize("make", [rack_break, three_cushion, double_hit], ids=["14.1-break", "three-cushion", "double-hit"])
def test_exact_round_trip(make):
    table, sim = make()
    assert len(sim.events) > 10 or sim.flags
    cushions, pockets = protocol.preset_ids(table.to_json())
    wire = protocol.encode_log(sim, cushions, pockets)
    data = msgpack.packb(wire)
    back = msgpack.unpackb(data)
    j = protocol.decode_log(back, {v: k for k, v in cushions.items()}, {v: k for k, v in pockets.items()})
    assert j == sim.to_json()  # every float identical, not just close
    again = SimResult.from_json(j)
    assert again.to_json() == sim.to_json()
    assert again.flags == sim.flags and ("flags" in wire) == bool(sim.flags)
    # positions along the replayed log equal the original's at every event time
    for e in sim.events[:: max(1, len(sim.events) // 10)]:
        for b in sim.initial:
            assert again.ball_state_at(b, e.t).r == sim.ball_state_at(b, e.t).r


def test_floats_travel_as_float64():
    table, sim = rack_break()
    cushions, pockets = protocol.preset_ids(table.to_json())
    wire = protocol.encode_log(sim, cushions, pockets)
    ev = next(e for e in wire["events"] if e[4])
    packed = msgpack.packb(ev[0])
    assert packed[0] == 0xCB and struct.unpack(">d", packed[1:])[0] == sim.events[wire["events"].index(ev)].t
    assert b"\xca" not in b"".join(msgpack.packb(x) for x in wire["initial"] if isinstance(x, float))
    # 9 numbers per changed ball; kind and where are small ints
    for t, kind, balls, where, states in wire["events"]:
        assert len(states) % STATE_WIDTH == 0
        assert WIRE_KINDS[kind] in EVENT_KINDS
        if WIRE_KINDS[kind] == "ball_cushion":
            assert where in cushions.values()
        elif WIRE_KINDS[kind] == "ball_pocket":
            assert where in pockets.values()
        else:
            assert where is None


def test_compactness_against_json_shape():
    table, sim = rack_break()
    cushions, pockets = protocol.preset_ids(table.to_json())
    compact = msgpack.packb(protocol.encode_log(sim, cushions, pockets))
    verbose = msgpack.packb(sim.to_json())
    assert len(compact) < 0.7 * len(verbose)


@pytest.mark.parametrize(
    "log",
    [
        {"table": "carom", "initial": [0, 1.0], "events": [], "final": []},
        {"table": "carom", "initial": [], "events": [[0.0, 99, [0], None, []]], "final": []},
        {"table": "carom", "initial": [], "events": [[0.0, 0, [0], None, [0, 1, 2]]], "final": []},
        {"table": "carom", "initial": [], "events": [[0.0, 2, [0], 12345, []]], "final": []},
        {"table": "carom", "initial": [], "events": [], "final": [0, 9, 1.0, 1.0]},
        {"initial": [], "events": [], "final": []},
        {"table": "carom", "initial": [], "events": [], "final": [], "flags": "double_hit"},
        {"table": "carom", "initial": [], "events": [], "final": [], "flags": [1]},
    ],
)
def test_malformed_logs_raise_value_error(log):
    table = get_table("carom")
    cushions, pockets = protocol.preset_ids(table.to_json())
    with pytest.raises(ValueError):
        protocol.decode_log(log, {v: k for k, v in cushions.items()}, {v: k for k, v in pockets.items()})
