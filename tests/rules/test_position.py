"""Position codes (rules/position.py): round trips over valid positions, sizes, and every bad input refused with its reason."""

from __future__ import annotations

import base64
import math
import zlib

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rules.position as P
import rules.spotting as spotting
from physics.table import TABLES
from rules.base import IllegalAction
from rules.position import (MAX_CODE_CHARS, QUANTUM_M, TOUCH_GAP_M, Cue, Position, PositionError, decode, encode, from_json,
                            validate)
from rules.straight_pool import StraightPool

POOL = TABLES["pool-9ft"]
CAROM = TABLES["carom"]
R = POOL.R


def reason(fn, *args) -> str:
    with pytest.raises(PositionError) as ei:
        fn(*args)
    assert isinstance(ei.value, ValueError) and str(ei.value)
    return ei.value.reason


def rack_position(table="pool-9ft", cue=None) -> Position:
    t = TABLES[table]
    s = (2 * t.R + 2e-4) / 2
    fx, fy = t.foot_spot
    balls = {0: t.head_spot}
    b = 1
    for row in range(5):
        for k in range(row + 1):
            balls[b] = (fx + row * math.sqrt(3) * s, fy + (2 * k - row) * s)
            b += 1
    return Position.make(table, "straight_pool", balls, cue)


# ----- round trips ----------------------------------------------------------------------------

@st.composite
def positions(draw):
    table = draw(st.sampled_from(P.PRESETS))
    t = TABLES[table]
    if t.kind == "pool":
        discipline = "straight_pool"
        ids = draw(st.lists(st.integers(0, 15), min_size=1, max_size=16, unique=True))
    else:
        discipline = draw(st.sampled_from([d for d in P.DISCIPLINES if d != "straight_pool"]))
        ids = [0, 1, 2]
    balls = {}
    m = 3 * QUANTUM_M  # off the cushions and each other by more than the rounding
    for b in ids:
        x = draw(st.floats(t.R + m, t.length - t.R - m))
        y = draw(st.floats(t.R + m, t.width - t.R - m))
        assume(all(math.dist((x, y), q) >= 2 * t.R + m for q in balls.values()))
        assume(spotting.surface_fault(t, (x, y)) is None)
        balls[b] = (x, y)
    cue = None
    cues = [b for b in ids if b in ((0,) if t.kind == "pool" else (0, 1))]
    if cues and draw(st.booleans()):
        r = draw(st.floats(0, 0.49))
        ang = draw(st.floats(0, 2 * math.pi))
        cue = Cue(draw(st.sampled_from(cues)), draw(st.floats(-720, 720)), r * math.cos(ang), r * math.sin(ang),
                  draw(st.floats(0, 70)), draw(st.floats(0.01, 10)))
    return Position.make(table, discipline, balls, cue)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(positions())
def test_round_trip_over_valid_positions(p):
    code = encode(p)
    assert len(code) <= 96 and set(code) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    back = decode(code)
    assert back == p.quantized()
    assert encode(back) == code
    assert back.table == p.table and back.discipline == p.discipline
    for (b, x, y), (b2, x2, y2) in zip(p.balls, back.balls):
        assert b == b2 and abs(x - x2) <= QUANTUM_M / 2 + 1e-12 and abs(y - y2) <= QUANTUM_M / 2 + 1e-12
    if p.cue is not None:
        c, c2 = p.cue, back.cue
        assert c2.cue_ball == c.cue_ball
        assert abs(((c.phi_deg - c2.phi_deg) + 180) % 360 - 180) <= 0.005 + 1e-9
        assert abs(c.a - c2.a) <= 5e-4 + 1e-12 and abs(c.b - c2.b) <= 5e-4 + 1e-12
        assert abs(c.theta_deg - c2.theta_deg) <= 0.05 + 1e-9 and abs(c.V0 - c2.V0) <= 5e-4 + 1e-12
    # the JSON shape goes through the same position
    assert from_json(back.to_json()) == back


def test_a_rack_and_the_cue_ball_are_well_under_100_characters():
    code = encode(rack_position())
    assert len(code) == 86
    with_cue = encode(rack_position(cue=Cue(0, 0.0, 0.1, -0.2, 5.0, 8.0)))
    assert len(with_cue) == 96
    three = encode(Position.make("carom", "three_cushion", {0: (0.5, 0.5), 1: (1.0, 1.0), 2: (2.0, 0.7)}))
    assert len(three) <= 24


def test_frozen_balls_and_balls_frozen_to_a_cushion_survive_the_grid():
    p = Position.make("carom", "three_cushion", {0: (CAROM.R, CAROM.R), 1: (CAROM.length - CAROM.R, 0.7),
                                                 2: (1.0, CAROM.width - CAROM.R)})
    back = decode(encode(p))
    assert back.layout()[0] == (CAROM.R, CAROM.R)  # exactly frozen to the bottom and right cushions
    for b, (x, y) in back.layout().items():
        assert CAROM.on_bed((x, y)) and abs(x - p.layout()[b][0]) < QUANTUM_M and abs(y - p.layout()[b][1]) < QUANTUM_M


# ----- bad positions --------------------------------------------------------------------------

def test_bad_positions_are_refused_with_their_reason():
    ok = {0: (0.5, 0.5), 1: (1.0, 0.6)}
    assert reason(encode, Position.make("pool-10ft", "straight_pool", ok)) == "unknown_table"
    assert reason(encode, Position.make("pool-9ft", "snooker", ok)) == "unknown_discipline"
    assert reason(encode, Position.make("carom", "straight_pool", {0: (0.5, 0.5), 1: (1, 1), 2: (2, 1)})) == "wrong_table"
    assert reason(encode, Position.make("pool-9ft", "three_cushion", ok)) == "wrong_table"
    assert reason(encode, Position.make("pool-9ft", "straight_pool", {16: (0.5, 0.5)})) == "bad_ball"
    assert reason(encode, Position.make("carom", "libre", {0: (0.5, 0.5), 1: (1, 1), 3: (2, 1)})) == "bad_ball"
    assert reason(encode, Position("pool-9ft", "straight_pool", ((1, 0.5, 0.5), (1, 1.0, 0.6)))) == "duplicate_ball"
    assert reason(encode, Position.make("pool-9ft", "straight_pool", {0: (math.nan, 0.5)})) == "not_finite"
    assert reason(encode, Position.make("pool-9ft", "straight_pool", {0: (0.5, math.inf)})) == "not_finite"
    assert reason(encode, Position.make("pool-9ft", "straight_pool", {0: (0.5, 1.3)})) == "off_bed"
    assert reason(encode, Position.make("pool-9ft", "straight_pool", {0: (R - 1e-4, 0.5)})) == "off_bed"
    assert reason(encode, Position.make("pool-9ft", "straight_pool", {0: (0.5, 0.5), 1: (0.5 + 2 * R - 1e-4, 0.5)})) == "overlap"
    assert reason(encode, Position.make("carom", "three_cushion", {0: (0.5, 0.5), 2: (1, 1)})) == "missing_ball"
    assert reason(encode, Position.make("pool-9ft", "straight_pool", {})) == "missing_ball"
    # in a pocket's mouth: in the corner's circle on the bed, hanging in the side pocket, inside a corner pocket
    assert reason(encode, Position.make("pool-9ft", "straight_pool", {0: (R, R)})) == "pocket"
    assert reason(encode, Position.make("pool-9ft", "straight_pool", {0: (POOL.length / 2, R - 0.01)})) == "pocket"
    assert reason(encode, Position.make("pool-9ft", "straight_pool", {0: POOL.pocket_by_name("FL").centre})) == "pocket"
    touching = Position.make("pool-9ft", "straight_pool", {0: (0.5, 0.5), 1: (0.5 + 2 * R, 0.5)})
    assert validate(touching) is touching


def test_balls_rounding_makes_overlap_are_moved_apart_to_the_touch_gap():
    """Touching balls whose rounded centres overlap (here by 0.08 mm) come out 0.2 mm apart on the line of
    their centres, each moved half the way; the round trip then holds."""
    p = Position.make("pool-9ft", "straight_pool", {0: (0.50004, 0.5), 1: (0.50004 + 2 * R, 0.5), 2: (1.5, 0.9)})
    q = decode(encode(p))
    assert q == p.quantized()
    (_, x0, y0), (_, x1, y1), (_, x2, y2) = q.balls
    assert y0 == y1 == pytest.approx(0.5, abs=0.5e-4)
    assert 2 * R + TOUCH_GAP_M - 1e-12 <= x1 - x0 <= 2 * R + TOUCH_GAP_M + 2e-4
    assert abs((x0 + x1) / 2 - (0.50004 + R)) <= 1e-4  # both moved, neither far
    assert (x2, y2) == pytest.approx((1.5, 0.9), abs=0.5e-4)  # a ball apart from the others is only rounded


def test_every_position_of_a_broken_rack_has_a_code():
    """The positions of real play: the 14.1 rack (frozen balls) and what a break leaves. Before the grid moved
    rounded overlaps apart, 57 of 80 such positions had no code. A ball resting in a pocket's jaws still has none."""
    from physics import Shot, simulate
    from rules.registry import new_game

    coded = jaws = 0
    for seed in range(20):
        g = new_game("straight_pool", {"breaker": 0, "target_points": 5}, seed)
        layout = g.prepare_shot(0, None, (0.3, 0.6))
        sim = simulate(g.table, layout, Shot(cue_ball=0, phi_deg=0.0, V0=(2.0, 6.0)[seed % 2]))
        after = {b: tuple(s.r[:2]) for b, s in sim.final.items() if s.state != "pocketed"}
        for balls in (layout, after):
            p = Position.make(g.table.name, "straight_pool", balls)
            try:
                q = decode(encode(p))
            except PositionError as exc:
                assert exc.reason == "pocket", exc
                jaws += 1
                continue
            coded += 1
            assert [b for b, _, _ in q.balls] == sorted(balls)
            moved = max(math.dist((x, y), balls[b]) for b, x, y in q.balls)
            assert moved < 0.6e-3  # the grid's rounding and the touch gap, spread through a rack: under a millimetre
    assert coded >= 38 and coded + jaws == 40


def test_bad_cue_strokes_are_refused():
    balls = {0: (0.5, 0.5), 1: (1.0, 0.6)}
    for cue in (Cue(1, 0.0), Cue(0, 0.0, 0.4, 0.4), Cue(0, 0.0, theta_deg=71.0), Cue(0, 0.0, V0=0.0),
                Cue(0, 0.0, V0=10.5), Cue(0, math.nan)):
        assert reason(encode, Position.make("pool-9ft", "straight_pool", balls, cue)) in ("bad_cue", "not_finite")
    carom = {0: (0.5, 0.5), 1: (1.0, 1.0), 2: (2.0, 1.0)}
    assert reason(encode, Position.make("carom", "three_cushion", carom, Cue(2, 0.0))) == "bad_cue"  # the red
    assert encode(Position.make("carom", "three_cushion", carom, Cue(1, 0.0)))  # the yellow may be struck


def _raw(code: str) -> bytes:
    return base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))


def _code(body: bytes) -> str:
    raw = body + (zlib.crc32(body) & 0xFFFF).to_bytes(2, "big")
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def test_bad_codes_are_refused_with_their_reason():
    good = encode(rack_position())
    body = _raw(good)[:-2]
    assert reason(decode, "A" * (MAX_CODE_CHARS + 1)) == "too_long"
    assert reason(decode, "") == "malformed"
    assert reason(decode, good[:-1] + "!") == "malformed"
    assert reason(decode, good + "=") == "malformed"  # no padding
    assert reason(decode, good[:5]) == "malformed"  # 5 characters: not base64 at all
    assert reason(decode, 42) == "malformed"
    # stray bits in the last character (a non-canonical spelling of the same bytes)
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".index(good[-1])
    if len(good) % 4:
        assert reason(decode, good[:-1] + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last | 1]) in (
            "malformed", "bad_checksum")
    # one character changed: the checksum says so
    flipped = good[:10] + ("B" if good[10] != "B" else "C") + good[11:]
    assert reason(decode, flipped) == "bad_checksum"
    assert reason(decode, _code(bytes([2]) + body[1:])) == "bad_version"
    assert reason(decode, _code(body[:1] + bytes([body[1] | 0x80]) + body[2:])) == "malformed"
    assert reason(decode, _code(body[:1] + bytes([(body[1] & 7) | (12 << 3)]) + body[2:])) == "unknown_discipline"
    assert reason(decode, _code(body + b"\x00")) == "malformed"  # trailing byte
    assert reason(decode, _code(body[:-1])) == "malformed"  # a byte short
    # a ball beyond the bed: x index at its 15-bit maximum
    one = _raw(encode(Position.make("pool-9ft", "straight_pool", {3: (0.5, 0.5)})))[:-2]
    assert reason(decode, _code(one[:-1] + bytes([one[-1] | 1]))) == "malformed"  # stray padding bits (29 of 32 used)
    bits = int.from_bytes(one[4:], "big") | (0x7FFF << (len(one[4:]) * 8 - 15))
    assert reason(decode, _code(one[:4] + bits.to_bytes(len(one[4:]), "big"))) == "off_bed"
    # two balls on one spot (a code a buggy encoder could write): overlap
    two = _raw(encode(Position.make("pool-9ft", "straight_pool", {3: (0.5, 0.5), 4: (0.9, 0.5)})))[:-2]
    n = int.from_bytes(two[4:], "big")
    size = len(two[4:]) * 8
    first = n >> (size - 29)
    n = (first << (size - 29)) | (first << (size - 58)) | (n & ((1 << (size - 58)) - 1))
    assert reason(decode, _code(two[:4] + n.to_bytes(len(two[4:]), "big"))) == "overlap"
    # a carom code missing a ball
    c = _raw(encode(Position.make("carom", "three_cushion", {0: (0.5, 0.5), 1: (1.0, 1.0), 2: (2.0, 1.0)})))[:-2]
    mask = int.from_bytes(c[2:4], "big") & ~4  # no red
    stream = int.from_bytes(c[4:], "big")
    first_two = stream >> (len(c[4:]) * 8 - 58)  # the white's and the yellow's 29 bits each
    assert reason(decode, _code(c[:2] + mask.to_bytes(2, "big") + (first_two << 6).to_bytes(8, "big"))) == "missing_ball"


def test_json_is_read_strictly():
    base = {"table": "carom", "discipline": "three_cushion",
            "balls": [{"id": 0, "x": 0.5, "y": 0.5}, {"id": 1, "x": 1.0, "y": 1.0}, {"id": 2, "x": 2.0, "y": 1.0}]}
    assert from_json(base).layout() == {0: (0.5, 0.5), 1: (1.0, 1.0), 2: (2.0, 1.0)}
    bad = [
        ("bad_field", dict(base, extra=1)),
        ("bad_field", {k: v for k, v in base.items() if k != "balls"}),
        ("bad_field", dict(base, table=3)),
        ("bad_field", dict(base, balls={"0": [0.5, 0.5]})),
        ("bad_field", dict(base, balls=[{"id": True, "x": 0.5, "y": 0.5}] + base["balls"][1:])),
        ("bad_field", dict(base, balls=[{"id": 0, "x": "0.5", "y": 0.5}] + base["balls"][1:])),
        ("bad_field", dict(base, balls=[{"id": 0, "x": 0.5, "y": 0.5, "z": 0}] + base["balls"][1:])),
        ("bad_field", dict(base, cue=[0, 1])),
        ("bad_field", dict(base, cue={"cue_ball": 0})),
        ("duplicate_ball", dict(base, balls=base["balls"] + [{"id": 0, "x": 2.5, "y": 0.3}])),
        ("bad_ball", dict(base, balls=base["balls"] * 6)),
        ("unknown_table", dict(base, table="snooker")),
    ]
    for want, d in bad:
        assert reason(from_json, d) == want, d
    assert reason(from_json, []) == "bad_field"


# ----- the same placement test as the server's ball in hand -----------------------------------

def test_the_placement_test_is_the_ball_in_hand_one():
    """rules/position.py calls the very functions StraightPool._check_placement calls, and refuses a ball exactly
    where the referee refuses a cue ball in hand (points swept across the head pockets' mouths, in the kitchen)."""
    assert P.surface_fault is spotting.surface_fault and P.overlaps_any is spotting.overlaps_any
    g = StraightPool({"breaker": 0}, 1)
    s = g.to_state()
    s.update(phase="play", to_act=0, in_hand="kitchen", pending=None, shooter=None)
    s["balls"] = {"5": [2.0, 0.6]}
    g = StraightPool.from_state(s)
    checked = refused = 0
    for i in range(-6, 30):
        for j in range(-6, 30):
            for cy in (0.0, POOL.width):
                x = i * 0.004
                y = abs(cy - j * 0.004)
                try:
                    g.prepare_shot(0, {"safety": True}, (x, y))
                    ok = True
                except IllegalAction as exc:
                    assert exc.code == "bad_placement"
                    ok = False
                try:
                    validate(Position.make("pool-9ft", "straight_pool", {0: (x, y), 5: (2.0, 0.6)}))
                    mine = True
                except PositionError as exc:
                    assert exc.reason in ("off_bed", "pocket")
                    mine = False
                assert ok == mine, (x, y)
                checked += 1
                refused += not ok
    assert checked > 2000 and 0 < refused < checked
