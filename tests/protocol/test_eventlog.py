"""The wire event log: both formats give back SimResult.to_json() bit for bit; format 2 leaves out only
what the receiver recomputes exactly; stored logs of either format still decode; bad logs are refused."""

import glob
import gzip
import json
import math
import os
import random
import struct

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import protocol
from bench.workloads import WORKLOADS, random_layout
from physics import Shot, SimResult, get_table, simulate
from physics import evolve
from physics.events import BallState, Event
from physics.events import EVENT_KINDS
from protocol import motion
from protocol.eventlog import EVENT_KINDS as WIRE_KINDS, STATE_NAMES, STATE_WIDTH

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def assert_bits(want, got, path="log", ordered=True):
    """``got`` is ``want``: same types, same dict keys (in the same order when ``ordered``), floats with the same bits."""
    assert type(got) is type(want), f"{path}: {type(got).__name__} {got!r}, want {type(want).__name__} {want!r}"
    if isinstance(want, float):
        assert struct.pack("<d", got) == struct.pack("<d", want), f"{path}: {got!r}, want {want!r}"
    elif isinstance(want, dict):
        assert (list(got) if ordered else sorted(got)) == (list(want) if ordered else sorted(want)), f"{path}: keys {list(got)}, want {list(want)}"
        for k in want:
            assert_bits(want[k], got[k], f"{path}.{k}", ordered)
    elif isinstance(want, list):
        assert len(got) == len(want), f"{path}: length {len(got)}, want {len(want)}"
        for i, (w, g) in enumerate(zip(want, got)):
            assert_bits(w, g, f"{path}[{i}]", ordered)
    else:
        assert got == want, f"{path}: {got!r}, want {want!r}"


def names_of(table):
    cushions, pockets = protocol.preset_ids(table.to_json())
    return (cushions, pockets), ({v: k for k, v in cushions.items()}, {v: k for k, v in pockets.items()})


def wire_round_trip(sim, fmt=protocol.eventlog.LOG_FORMAT):
    """(wire map, decoded map) of ``sim`` through msgpack bytes, as a receiver gets it."""
    ids, names = names_of(sim.table)
    wire = protocol.encode_log(sim, *ids, fmt=fmt)
    back = msgpack.unpackb(msgpack.packb(wire))
    return wire, protocol.decode_log(back, *names)


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


def double_hit():
    """The cue ball 1 mm behind an object ball, shot straight: the follow-through flags the stroke."""
    t = get_table("pool-9ft")
    balls = {0: (1.0, 0.6), 1: (1.0 + 2 * t.R + 0.001, 0.6)}
    return t, simulate(t, balls, Shot(cue_ball=0, phi_deg=0.0, V0=2.0))


def test_codes_match_the_physics():
    assert set(WIRE_KINDS) == set(EVENT_KINDS)
    assert STATE_NAMES == tuple(evolve.STATE_NAMES)
    assert (motion.STATIONARY, motion.SPINNING, motion.SLIDING, motion.ROLLING, motion.POCKETED) == tuple(
        evolve.STATE_CODES[n] for n in ("stationary", "spinning", "sliding", "rolling", "pocketed"))
    from physics import engine

    assert motion.CONTACT_GAP == engine.SPACER  # else format 2 still decodes exactly, but compresses less


@pytest.mark.parametrize("fmt", [1, 2])
@pytest.mark.parametrize("make", [rack_break, three_cushion, double_hit], ids=["14.1-break", "three-cushion", "double-hit"])
def test_exact_round_trip(make, fmt):
    table, sim = make()
    assert len(sim.events) > 10 or sim.flags
    wire, j = wire_round_trip(sim, fmt)
    assert wire.get("f", 1) == fmt
    assert_bits(sim.to_json(), j, ordered=fmt == 2)  # format 1 lists the states of an event by ball id
    again = SimResult.from_json(j)
    assert again.to_json() == sim.to_json()
    assert again.flags == sim.flags and ("flags" in wire) == bool(sim.flags)
    # positions along the replayed log equal the original's at every event time
    for e in sim.events[:: max(1, len(sim.events) // 10)]:
        for b in sim.initial:
            assert again.ball_state_at(b, e.t).r == sim.ball_state_at(b, e.t).r


def test_encode_log_writes_format_2():
    table, sim = three_cushion()
    ids, _ = names_of(table)
    wire = protocol.encode_log(sim, *ids)
    assert wire["f"] == 2 and "events" not in wire and "final" not in wire  # a format-1 reader fails loudly
    assert wire["motion"] == [table.R, table.cloth.mu_s, table.cloth.mu_r, table.cloth.mu_sp, table.cloth.g, motion.CONTACT_GAP]
    assert "capped" not in wire and "flags" not in wire
    with pytest.raises(ValueError):
        protocol.encode_log(sim, *ids, fmt=3)


def test_format_2_leaves_out_what_the_motion_gives():
    """A transition is its kind and ball alone: time and state follow from the ball's last state."""
    table, sim = three_cushion()
    wire, _ = wire_round_trip(sim)
    transitions = [i for i, e in enumerate(sim.events) if e.kind in ("slide_to_roll", "roll_to_rest", "roll_to_spin", "spin_to_rest")]
    assert len(transitions) >= 4
    for i in transitions:
        e = sim.events[i]
        assert wire["ev"][i] == [WIRE_KINDS.index(e.kind), e.balls[0]]
    strike = wire["ev"][0]
    assert strike[:3] == [0, 0, 0]  # the strike at t = 0 written as the integer 0
    b, code, mask = strike[4][:3]
    assert (b, code) == (0, STATE_NAMES.index("sliding")) and not mask & 0b11  # the cue ball leaves from where it was
    # every ball ends where its last event left it: no final entries
    assert "fin" not in wire


def test_floats_travel_as_float64():
    table, sim = rack_break()
    ids, _ = names_of(table)
    wire = protocol.encode_log(sim, *ids, fmt=1)
    ev = next(e for e in wire["events"] if e[4])
    packed = msgpack.packb(ev[0])
    assert packed[0] == 0xCB and struct.unpack(">d", packed[1:])[0] == sim.events[wire["events"].index(ev)].t
    assert b"\xca" not in b"".join(msgpack.packb(x) for x in wire["initial"] if isinstance(x, float))
    # 9 numbers per changed ball; kind and where are small ints
    for t, kind, balls, where, states in wire["events"]:
        assert len(states) % STATE_WIDTH == 0
        assert WIRE_KINDS[kind] in EVENT_KINDS
        if WIRE_KINDS[kind] == "ball_cushion":
            assert where in ids[0].values()
        elif WIRE_KINDS[kind] == "ball_pocket":
            assert where in ids[1].values()
        else:
            assert where is None
    # format 2: every float it writes is a float64, every integer a small msgpack integer
    compact = protocol.encode_log(sim, *ids)

    def leaves(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                yield from leaves(y)
        elif isinstance(x, dict):
            for y in x.values():
                yield from leaves(y)
        else:
            yield x

    floats = [x for x in leaves(compact) if isinstance(x, float)]
    assert len(floats) > 100 and all(msgpack.packb(x)[0] == 0xCB for x in floats)


def test_compactness():
    table, sim = rack_break()
    ids, _ = names_of(table)
    full = msgpack.packb(protocol.encode_log(sim, *ids, fmt=1))
    compact = msgpack.packb(protocol.encode_log(sim, *ids))
    verbose = msgpack.packb(sim.to_json())
    assert len(full) < 0.7 * len(verbose)
    assert len(compact) < 0.75 * len(full)


@pytest.mark.parametrize("workload", list(WORKLOADS))
def test_bench_workloads_round_trip(workload):
    """Every shot of the wire bench decodes exactly; the break and the median shots meet issue 13's budget."""
    sizes = []
    for name, balls, kw in WORKLOADS[workload]():
        sim = simulate(get_table(name), balls, Shot(**kw))
        wire, j = wire_round_trip(sim)
        assert wire["f"] == 2
        assert_bits(sim.to_json(), j)
        sizes.append(len(msgpack.packb(wire)))
    sizes.sort()
    assert sizes[len(sizes) // 2] <= (6000 if len(sizes) == 1 else 1000)


def _golden():
    return sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.json")))


@pytest.mark.parametrize("path", _golden(), ids=lambda p: os.path.basename(p)[:-5])
def test_golden_vectors_round_trip(path):
    with open(path) as f:
        result = json.load(f)["result"]
    sim = SimResult.from_json(result)
    for fmt in (1, 2):
        wire, j = wire_round_trip(sim, fmt)
        assert wire.get("f", 1) == fmt
        assert_bits(result, j, ordered=fmt == 2)


def test_recorded_games_round_trip():
    """Every stroke of the recorded games (lags with two strikes at t = 0, fouls, re-racks)."""
    n = 0
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "rules", "data", "*.json.gz"))):
        with gzip.open(path, "rt") as f:
            rec = json.load(f)
        for s in rec["strokes"]:
            if "sim" not in s:
                continue
            sim = SimResult.from_json(s["sim"])
            _wire, j = wire_round_trip(sim)
            assert_bits(sim.to_json(), j)
            n += 1
    assert n > 100


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(HERE, "data", "*.msgpack"))), ids=os.path.basename)
def test_stored_logs_still_decode(path):
    """Logs stored in either format (tests/protocol/data/make_logs.py) decode to their golden vector exactly."""
    name, fmt = os.path.basename(path).split(".")[:2]
    with open(path, "rb") as f:
        log = msgpack.unpackb(f.read())
    assert log.get("f", 1) == int(fmt[1:])
    with open(os.path.join(ROOT, "tests", "golden", name + ".json")) as f:
        result = json.load(f)["result"]
    _, names = names_of(get_table(result["table"]))
    assert_bits(result, protocol.decode_log(log, *names), ordered=fmt == "f2")


POOL = get_table("pool-9ft")
CAROM = get_table("carom")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    carom=st.booleans(),
    n_balls=st.integers(2, 16),
    seed=st.integers(0, 2**32 - 1),
    phi=st.floats(0.0, 360.0),
    V0=st.floats(0.2, 10.0),
    off=st.floats(0.0, 0.5),
    ang=st.floats(0.0, 2 * math.pi),
    theta=st.sampled_from([0.0, 0.0, 5.0, 30.0, 70.0]),
    cushion_model=st.sampled_from([None, "han_2005", "mathavan_2010"]),
    ball_model=st.sampled_from(["frictional_inelastic", "frictional_inelastic", "frictionless_elastic"]),
)
def test_random_shots_round_trip_exactly(carom, n_balls, seed, phi, V0, off, ang, theta, cushion_model, ball_model):
    table = CAROM if carom else POOL
    balls = random_layout(table, 3 if carom else n_balls, random.Random(seed))
    shot = Shot(cue_ball=0, phi_deg=phi, V0=V0, a=off * math.cos(ang), b=off * math.sin(ang), theta_deg=theta)
    sim = simulate(table, balls, shot, cushion_model=cushion_model, ball_model=ball_model, max_events=400)
    wire, j = wire_round_trip(sim)
    assert wire["f"] == 2
    assert_bits(sim.to_json(), j)
    assert ("capped" in wire) == sim.capped


# ----- the reference motion is the physics' closed form, operation for operation ------------------

_finite = st.floats(-20.0, 20.0, allow_nan=False)


@settings(max_examples=400, deadline=None)
@given(
    s=st.sampled_from([motion.SLIDING, motion.ROLLING, motion.SPINNING, motion.STATIONARY]),
    r=st.tuples(st.floats(0.0, 3.0), st.floats(0.0, 1.5)),
    v=st.tuples(_finite, _finite),
    w=st.tuples(_finite, _finite, _finite),
    frac=st.floats(0.0, 1.0),
    table=st.sampled_from([POOL, CAROM]),
)
def test_reference_motion_is_the_physics_bit_for_bit(s, r, v, w, frac, table):
    c = table.cloth
    cl = (table.R, c.mu_s, c.mu_r, c.mu_sp, c.g)
    args = (table.R, c.mu_s, c.mu_r, c.mu_sp, c.g)
    if s == motion.ROLLING:
        w = (-v[1] / table.R, v[0] / table.R, w[2])
    elif s != motion.SLIDING:
        v, w = (0.0, 0.0), (0.0, 0.0, w[2] if s == motion.SPINNING else 0.0)
    b = (s, *r, *v, *w)
    tt = motion.transition_time(b, cl)
    assert_bits(evolve.state_transition_time(s, r, v, w, *args), tt)
    if not (0.0 < tt < math.inf):
        return  # at rest, or no motion left in the state (evolve_state then does nothing at all)
    # within the state: evolve_state is one evolve
    dt = tt * frac * 0.999
    code, r1, v1, w1 = evolve.evolve_state(s, r, v, w, dt, *args)
    assert_bits([code, *r1, *v1, *w1], list(motion.evolve(b, dt, cl)))
    # to its end: evolve, then the next state
    code, r1, v1, w1 = evolve.evolve_state(s, r, v, w, tt, *args)
    assert_bits([code, *r1, *v1, *w1], list(motion.enter_next_state(motion.evolve(b, tt, cl), cl)))


def test_contact_positions_are_symmetric_and_spaced():
    R = POOL.R
    a = (motion.SLIDING, 1.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0)
    b = (motion.STATIONARY, 1.0 + 2 * R - 3e-7, 0.5 + 1e-4, 0.0, 0.0, 0.0, 0.0, 0.0)
    a1, b1 = motion.contact_positions(a, b, R, motion.CONTACT_GAP)
    b2, a2 = motion.contact_positions(b, a, R, motion.CONTACT_GAP)
    assert (a1, b1) == (a2, b2) and a1[3:] == a[3:] and b1[3:] == b[3:]
    assert math.hypot(b1[1] - a1[1], b1[2] - a1[2]) == pytest.approx(2 * R + motion.CONTACT_GAP, abs=1e-15)
    far = (motion.STATIONARY, 1.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0)
    assert motion.contact_positions(a, far, R, motion.CONTACT_GAP) == (a, far)


# ----- what format 2 cannot carry is written in format 1 --------------------------------------------

def test_a_log_format_2_cannot_carry_falls_back_to_format_1():
    # a ball that the initial layout lacks (a hand-written log)
    init = {0: BallState.at_rest((1.0, 0.5))}
    ev = [Event(0.0, "strike", (0,), states={0: BallState("sliding", (1.0, 0.5), (1.0, 0.0)),
                                             7: BallState("stationary", (2.0, 0.5))})]
    sim = SimResult(POOL, init, ev, final={0: BallState.at_rest((1.2, 0.5))})
    ids, names = names_of(POOL)
    wire = protocol.encode_log(sim, *ids)
    assert "f" not in wire and wire["events"][0][4][:2] == [0, STATE_NAMES.index("sliding")]
    assert_bits(sim.to_json(), protocol.decode_log(msgpack.unpackb(msgpack.packb(wire)), *names), ordered=False)


# ----- malformed logs --------------------------------------------------------------------------------

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
        [],
        {"f": 3, "table": "carom", "initial": [], "events": [], "final": []},
        {"f": True, "table": "carom", "initial": [], "events": [], "final": []},
    ],
)
def test_malformed_logs_raise_value_error(log):
    _, names = names_of(CAROM)
    with pytest.raises(ValueError):
        protocol.decode_log(log, *names)


M = [0.0615 / 2, 0.2, 0.01, 0.0127, 9.81, 1e-6]
INI = [0, 0.7, 0.5, 1, 1.5, 0.5]


@pytest.mark.parametrize(
    "changes",
    [
        {"motion": M[:5]},  # six constants
        {"motion": [0.0] + M[1:]},  # positive
        {"motion": [math.inf] + M[1:]},
        {"motion": ["x"] + M[1:]},
        {"initial": INI[:-1]},  # [id, x, y] triples
        {"initial": INI + [0, 1.0, 1.0]},  # a ball twice
        {"initial": [0, math.nan, 0.5]},
        {"initial": [True, 0.7, 0.5]},  # an id is an integer
        {"ev": [[0]]},  # [kind, balls, ...]
        {"ev": [[0, 0, 0, None, [0, 2, 12, 1.0, 0.0], 9]]},  # at most five
        {"ev": [[12, 0, 0.0]]},  # unknown kind
        {"ev": [[0, 5, 0.0]]},  # a ball the layout lacks
        {"ev": [[0, 0, None]]},  # only a transition may leave its time out
        {"ev": [[0, 0, 0.0], [4, 1]]},  # ... and only when it is due: ball 1 is at rest (inf)
        {"ev": [[0, 0, "0"]]},
        {"ev": [[0, 0, 0, None, [0, 2, 12, 1.0]]]},  # mask 12 announces two values
        {"ev": [[0, 0, 0, None, [0, 2, 128]]]},  # seven fields
        {"ev": [[0, 0, 0, None, [0, 7, 12, 1.0, 0.0]]]},  # unknown state code
        {"ev": [[0, 0, 0, None, [0, 2, 12, 1.0, None]]]},
        {"ev": [[0, 0, 0, None, [0, 2, 12, 1e308, 1e308]]]},  # fine alone, but x + v overflows: not finite
        {"ev": [[0, 0, 0, None, [0, 2, 12, 1.0, 0.0, 0, 2, 12, 1.0, 0.0]]]},  # a ball twice
        {"ev": [[2, 0, 0.5, 999, [0, 2, 12, 1.0, 0.0]]]},  # unknown cushion
        {"ev": [[3, 0, 0.5]]},  # a pocket event names its pocket
        {"ev": {}},
        {"fin": [0, 0, 1.0]},
        {"fin": [5, 0, 1.0, 1.0]},
        {"fin": [0, 9, 1.0, 1.0]},
        {"fin": [0, 0, math.inf, 1.0]},
        {"capped": 1},
        {"table": 7},
    ],
)
def test_malformed_compact_logs_raise_value_error(changes):
    _, names = names_of(CAROM)
    log = {"f": 2, "table": "carom", "motion": M, "initial": INI, "ev": [[0, 0, 0, None, [0, 2, 12, 1.0, 0.0]]]}
    assert protocol.decode_log(log, *names)["events"][0]["states"]["0"]["v"] == [1.0, 0.0]  # the base log is fine
    log.update(changes)
    with pytest.raises(ValueError):
        protocol.decode_log(log, *names)


_JUNK = st.one_of(st.none(), st.booleans(), st.integers(-2, 300), st.integers(-2**70, 2**70), st.floats(),
                  st.text(max_size=3), st.lists(st.integers(-1, 20), max_size=4), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2))
_BASE = None


def _base_log():
    global _BASE
    if _BASE is None:
        _table, sim = three_cushion()
        ids, _ = names_of(CAROM)
        _BASE = msgpack.packb(protocol.encode_log(sim, *ids))
    return msgpack.unpackb(_BASE)


@settings(max_examples=500, deadline=None)
@given(data=st.data())
def test_any_damaged_compact_log_decodes_or_raises_value_error(data):
    """Hostile input: replace, drop or add anything anywhere; the decoder answers a map or ValueError."""
    _, names = names_of(CAROM)
    log = _base_log()
    for _ in range(data.draw(st.integers(1, 3))):
        node = log
        while True:
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            if not keys:
                break
            k = data.draw(st.sampled_from(keys))
            child = node[k]
            if isinstance(child, (list, dict)) and child and data.draw(st.booleans()):
                node = child
                continue
            action = data.draw(st.sampled_from(["replace", "drop", "add"]))
            if action == "replace":
                node[k] = data.draw(_JUNK)
            elif action == "drop":
                del node[k]
            elif isinstance(node, list):
                node.insert(k, data.draw(_JUNK))
            break
    try:
        out = protocol.decode_log(log, *names)
    except ValueError:
        return
    assert isinstance(out, dict) and isinstance(out["events"], list)


# ----- the compiled encoder is the plain-Python one, byte for byte ----------------------------------

def _plain_python_eventlog():
    """protocol/eventlog.py and protocol/motion.py loaded from their sources (the interpreter's semantics), whatever
    the build compiled: the reference the compiled modules (setup.py, protocol/motion.pxd's C doubles) must match."""
    import importlib.util
    import sys

    def load(name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    plain_motion = load("plain_motion", os.path.join(ROOT, "protocol", "motion.py"))
    saved = sys.modules["protocol.motion"]
    sys.modules["protocol.motion"] = plain_motion  # the plain eventlog imports the plain motion
    try:
        plain = load("plain_eventlog", os.path.join(ROOT, "protocol", "eventlog.py"))
    finally:
        sys.modules["protocol.motion"] = saved
    assert plain.evolve is plain_motion.evolve
    return plain


def test_the_compiled_encoder_writes_the_bytes_of_the_plain_python_one():
    compiled = protocol.eventlog
    if not (compiled.__file__.endswith(".so") and motion.__file__.endswith(".so")):
        pytest.skip("protocol/eventlog.py and motion.py are not compiled in this environment (make build compiles them)")
    plain = _plain_python_eventlog()
    rng = random.Random(20261207)
    n = 0
    for table, balls, count in ((CAROM, 3, 250), (POOL, 9, 120)):
        ids, _ = names_of(table)
        for _ in range(count):
            layout = random_layout(table, balls, rng)
            off, ang = rng.uniform(0.0, 0.5), rng.uniform(0.0, 2 * math.pi)
            shot = Shot(cue_ball=0, phi_deg=rng.uniform(0.0, 360.0), V0=rng.uniform(0.3, 7.0), a=off * math.cos(ang),
                        b=off * math.sin(ang), theta_deg=rng.choice([0.0, 0.0, 5.0, 30.0]))
            sim = simulate(table, layout, shot)
            got, want = msgpack.packb(compiled.encode_log(sim, *ids)), msgpack.packb(plain.encode_log(sim, *ids))
            assert got == want, (table.name, shot)
            n += 1
    assert n == 370
