"""Inbound validation: every message type round-trips, every kind of bad field is refused naming the field."""

import math

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocol
from protocol import inbound as I
from protocol import limits as L
from protocol.errors import ErrorCode, ProtocolError

TOKEN = "T" * 32
STROKE = {"phi_deg": 12.5, "V0": 2.0, "a": 0.1, "b": -0.2, "theta_deg": 5.0}

# one valid example of every inbound type
EXAMPLES = [
    I.Hello(protocol=1, name="Ann", client="tests"),
    I.Ping(t=123.5),
    I.LobbySubscribe(),
    I.LobbyUnsubscribe(),
    I.QuickPlay(discipline="three_cushion", config={"distance": 2}),
    I.QuickPlayCancel(),
    I.CreateTable(discipline="straight_pool", config={"target_points": 5, "shot_clock": {"limit_s": 30, "extensions": 1}},
                  private=True, seat=1),
    I.Join(table="abc_DEF-1", seat=0),
    I.Watch(table="abc", v=7),
    I.Leave(table="abc", token=TOKEN),
    I.Resume(table="abc", token=TOKEN, v=3),
    I.Shot(table="abc", token=TOKEN, seq=4, stroke=STROKE, call={"ball": 3, "pocket": "FR"}, cue_ball=(0.3, 0.6)),
    I.Decision(table="abc", token=TOKEN, seq=5, name="CHOOSE_BREAKER", arg=1),
    I.Resign(table="abc", token=TOKEN),
    I.Claim(table="abc", token=TOKEN),
    I.RematchOffer(table="abc", token=TOKEN),
    I.RematchAccept(table="abc", token=TOKEN),
    I.Chat(table="abc", text="nice shot"),
    I.Rename(name="Ann B."),
    I.Aim(table="abc", token=TOKEN, phi_deg=12.5, a=0.1, b=-0.2, theta_deg=5.0, V0=2.5, cue_ball=(0.3, 0.6)),
    I.CreateTable(discipline="straight_pool", practice={"drill": "pool-9ft-stop-1", "coach": True}),
    I.PlaceBalls(table="abc", token=TOKEN, seq=6, balls={"0": (0.3, 0.6), "15": (1.5, 0.7)}),
    I.Undo(table="abc", token=TOKEN, seq=7),
    I.Redo(table="abc", token=TOKEN, seq=8),
    I.Reset(table="abc", token=TOKEN, seq=9, to="start"),
    I.Preview(table="abc", token=TOKEN, stroke=STROKE, call={"safety": True}, cue_ball=(0.3, 0.6)),
]


def test_examples_cover_every_inbound_type():
    assert sorted({type(m).TYPE for m in EXAMPLES}) == sorted(I.INBOUND)


@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda m: m.TYPE)
def test_round_trip(msg):
    data = protocol.encode_client(msg)
    assert protocol.decode_client(data) == msg
    assert msgpack.unpackb(data)["type"] == msg.TYPE


def place(**changes):
    return dict({"type": "place_balls", "table": "abc", "token": TOKEN, "seq": 1, "balls": {"0": [0.5, 0.5]}}, **changes)


def shot(**stroke_changes):
    s = dict(STROKE, **stroke_changes)
    return {"type": "shot", "table": "abc", "token": TOKEN, "seq": 1, "stroke": s}


def refused(obj_or_bytes, code, field):
    data = obj_or_bytes if isinstance(obj_or_bytes, (bytes, str)) else msgpack.packb(obj_or_bytes)
    with pytest.raises(ProtocolError) as ei:
        protocol.decode_client(data)
    assert ei.value.code == code
    assert ei.value.field == field
    return ei.value


@pytest.mark.parametrize(
    "obj,code,field",
    [
        (shot(V0=float("nan")), ErrorCode.BAD_FIELD, "stroke.V0"),
        (shot(V0=float("inf")), ErrorCode.BAD_FIELD, "stroke.V0"),
        (shot(V0=1e308), ErrorCode.BAD_FIELD, "stroke.V0"),
        (shot(V0=0.0), ErrorCode.BAD_FIELD, "stroke.V0"),
        (shot(V0=-1.0), ErrorCode.BAD_FIELD, "stroke.V0"),
        (shot(V0=10.000001), ErrorCode.BAD_FIELD, "stroke.V0"),
        (shot(V0="fast"), ErrorCode.BAD_FIELD, "stroke.V0"),
        (shot(V0=True), ErrorCode.BAD_FIELD, "stroke.V0"),
        (shot(V0=2**64 - 1), ErrorCode.BAD_FIELD, "stroke.V0"),
        (shot(phi_deg=float("-inf")), ErrorCode.BAD_FIELD, "stroke.phi_deg"),
        (shot(phi_deg=361.0), ErrorCode.BAD_FIELD, "stroke.phi_deg"),
        (shot(theta_deg=70.5), ErrorCode.BAD_FIELD, "stroke.theta_deg"),
        (shot(theta_deg=-0.1), ErrorCode.BAD_FIELD, "stroke.theta_deg"),
        (shot(a=0.4, b=0.4), ErrorCode.BAD_FIELD, "stroke.a"),
        (shot(b=0.51), ErrorCode.BAD_FIELD, "stroke.b"),
        (shot(a=[0.1]), ErrorCode.BAD_FIELD, "stroke.a"),
        (dict(shot(), stroke={"phi_deg": 1, "V0": 1, "a": 0, "b": 0}), ErrorCode.MISSING_FIELD, "stroke.theta_deg"),
        (dict(shot(), stroke=dict(STROKE, spin=3)), ErrorCode.UNKNOWN_FIELD, "stroke.spin"),
        (dict(shot(), stroke=[1, 2, 3, 4, 5]), ErrorCode.BAD_FIELD, "stroke"),
        (dict(shot(), seq=-1), ErrorCode.BAD_FIELD, "seq"),
        (dict(shot(), seq=2**60), ErrorCode.BAD_FIELD, "seq"),
        (dict(shot(), seq=1.0), ErrorCode.BAD_FIELD, "seq"),
        (dict(shot(), table="x" * 33), ErrorCode.BAD_FIELD, "table"),
        (dict(shot(), table="../etc"), ErrorCode.BAD_FIELD, "table"),
        (dict(shot(), table=""), ErrorCode.BAD_FIELD, "table"),
        (dict(shot(), token="short"), ErrorCode.BAD_FIELD, "token"),
        (dict(shot(), token=None), ErrorCode.BAD_FIELD, "token"),
        (dict(shot(), cue_ball=[0.5, float("nan")]), ErrorCode.BAD_FIELD, "cue_ball[1]"),
        (dict(shot(), cue_ball=[0.5, 99.0]), ErrorCode.BAD_FIELD, "cue_ball[1]"),
        (dict(shot(), cue_ball=[0.5]), ErrorCode.BAD_FIELD, "cue_ball"),
        (dict(shot(), call={"ball": 16, "pocket": "FR"}), ErrorCode.BAD_FIELD, "call.ball"),
        (dict(shot(), call={"ball": 3, "pocket": "XYZ"}), ErrorCode.BAD_FIELD, "call.pocket"),
        (dict(shot(), call={"safety": False}), ErrorCode.BAD_FIELD, "call.safety"),
        (dict(shot(), call={"ball": 3}), ErrorCode.MISSING_FIELD, "call.pocket"),
        (dict(shot(), call="FR"), ErrorCode.BAD_FIELD, "call"),
        (dict(shot(), extra=1), ErrorCode.UNKNOWN_FIELD, "extra"),
        ({k: v for k, v in shot().items() if k != "stroke"}, ErrorCode.MISSING_FIELD, "stroke"),
        ({"type": "hello", "protocol": 1, "name": "x" * 33}, ErrorCode.BAD_FIELD, "name"),
        ({"type": "hello", "protocol": 1, "name": "a\x00b"}, ErrorCode.BAD_FIELD, "name"),
        ({"type": "hello", "protocol": 1, "name": "\u202e\u200bevil"}, ErrorCode.BAD_FIELD, "name"),  # bidi override
        ({"type": "hello", "protocol": 1, "name": "Ann\u2066"}, ErrorCode.BAD_FIELD, "name"),
        ({"type": "hello", "protocol": 1, "name": "A\x85nn"}, ErrorCode.BAD_FIELD, "name"),  # C1 control
        ({"type": "chat", "table": "abc", "text": "gg\ufeff"}, ErrorCode.BAD_FIELD, "text"),
        ({"type": "hello", "protocol": 1, "name": "Ana\u2800"}, ErrorCode.BAD_FIELD, "name"),  # Braille blank
        ({"type": "hello", "protocol": 1, "name": "\u115fAna"}, ErrorCode.BAD_FIELD, "name"),  # Hangul filler
        ({"type": "hello", "protocol": 1, "name": "\u200d\u200d"}, ErrorCode.BAD_FIELD, "name"),  # nothing visible
        ({"type": "hello", "protocol": 1, "name": "A" + "\u0301" * 31}, ErrorCode.BAD_FIELD, "name"),  # a tower of accents
        ({"type": "chat", "table": "abc", "text": "gg" + "\u0489\u0336\u0301\u0302\u0303"}, ErrorCode.BAD_FIELD, "text"),
        ({"type": "hello", "protocol": "1"}, ErrorCode.BAD_FIELD, "protocol"),
        ({"type": "chat", "table": "abc", "text": "y" * (L.MAX_CHAT_CHARS + 1)}, ErrorCode.BAD_FIELD, "text"),
        ({"type": "chat", "table": "abc", "text": "   "}, ErrorCode.BAD_FIELD, "text"),
        ({"type": "create_table", "discipline": "Three Cushion"}, ErrorCode.BAD_FIELD, "discipline"),
        ({"type": "create_table", "discipline": "libre", "config": {f"k{i}": i for i in range(25)}},
         ErrorCode.BAD_FIELD, "config"),
        ({"type": "create_table", "discipline": "libre", "config": {"a": {"b": {"c": 1}}}}, ErrorCode.BAD_FIELD, "config.a.b"),
        ({"type": "create_table", "discipline": "libre", "config": {"Bad-Key": 1}}, ErrorCode.BAD_FIELD, "config.Bad-Key"),
        ({"type": "create_table", "discipline": "libre", "config": {"distance": 1e300}}, ErrorCode.BAD_FIELD, "config.distance"),
        ({"type": "create_table", "discipline": "libre", "config": {"distance": float("nan")}}, ErrorCode.BAD_FIELD,
         "config.distance"),
        ({"type": "create_table", "discipline": "libre", "config": {"s": "z" * 33}}, ErrorCode.BAD_FIELD, "config.s"),
        ({"type": "create_table", "discipline": "libre", "config": {"l": list(range(9))}}, ErrorCode.BAD_FIELD, "config.l"),
        ({"type": "create_table", "discipline": "libre", "seat": 2}, ErrorCode.BAD_FIELD, "seat"),
        ({"type": "decision", "table": "abc", "token": TOKEN, "seq": 1, "name": "X", "arg": {"a": 1}}, ErrorCode.BAD_FIELD, "arg"),
        ({"type": "decision", "table": "abc", "token": TOKEN, "seq": 1, "name": "no spaces"}, ErrorCode.BAD_FIELD, "name"),
        ({"type": "watch", "table": "abc", "v": -3}, ErrorCode.BAD_FIELD, "v"),
        (place(balls={"0": [0.5, float("nan")]}), ErrorCode.BAD_FIELD, "balls.0[1]"),
        (place(balls={"0": [float("inf"), 0.5]}), ErrorCode.BAD_FIELD, "balls.0[0]"),
        (place(balls={"0": [0.5, 4.5]}), ErrorCode.BAD_FIELD, "balls.0[1]"),
        (place(balls={"0": [0.5, -0.1]}), ErrorCode.BAD_FIELD, "balls.0[1]"),
        (place(balls={"0": [0.5, True]}), ErrorCode.BAD_FIELD, "balls.0[1]"),
        (place(balls={"0": "0.5,0.5"}), ErrorCode.BAD_FIELD, "balls.0"),
        (place(balls={"0": [0.5]}), ErrorCode.BAD_FIELD, "balls.0"),
        (place(balls={"16": [0.5, 0.5]}), ErrorCode.BAD_FIELD, "balls.16"),
        (place(balls={"-1": [0.5, 0.5]}), ErrorCode.BAD_FIELD, "balls.-1"),
        (place(balls={"007": [0.5, 0.5]}), ErrorCode.BAD_FIELD, "balls.007"),
        (place(balls={"x" * 40: [0.5, 0.5]}), ErrorCode.BAD_FIELD, "balls.<key>"),
        (place(balls={str(i): [0.1 * i, 0.5] for i in range(16)} | {"x": [1, 1]}), ErrorCode.BAD_FIELD, "balls"),
        (place(balls=[[0.5, 0.5]]), ErrorCode.BAD_FIELD, "balls"),
        (place(balls=None), ErrorCode.BAD_FIELD, "balls"),
        ({k: v for k, v in place().items() if k != "seq"}, ErrorCode.MISSING_FIELD, "seq"),
        (dict(place(), extra=1), ErrorCode.UNKNOWN_FIELD, "extra"),
        ({"type": "undo", "table": "abc", "token": TOKEN}, ErrorCode.MISSING_FIELD, "seq"),
        ({"type": "redo", "table": "abc", "token": TOKEN, "seq": "1"}, ErrorCode.BAD_FIELD, "seq"),
        ({"type": "reset", "table": "abc", "token": TOKEN, "seq": 1, "to": "break"}, ErrorCode.BAD_FIELD, "to"),
        ({"type": "preview", "table": "abc", "token": TOKEN, "stroke": dict(STROKE, V0=float("nan"))},
         ErrorCode.BAD_FIELD, "stroke.V0"),
        ({"type": "preview", "table": "abc", "token": TOKEN, "stroke": STROKE, "seq": 1}, ErrorCode.UNKNOWN_FIELD, "seq"),
        ({"type": "preview", "table": "abc", "token": TOKEN}, ErrorCode.MISSING_FIELD, "stroke"),
        ({"type": "create_table", "discipline": "libre", "practice": {"drill": "Bad Id"}}, ErrorCode.BAD_FIELD,
         "practice.drill"),
        ({"type": "create_table", "discipline": "libre", "practice": {"position": "x" * 129}}, ErrorCode.BAD_FIELD,
         "practice.position"),
        ({"type": "create_table", "discipline": "libre", "practice": {"coach": 1}}, ErrorCode.BAD_FIELD, "practice.coach"),
        ({"type": "create_table", "discipline": "libre", "practice": {"level": 1}}, ErrorCode.UNKNOWN_FIELD,
         "practice.level"),
        ({"type": "create_table", "discipline": "libre", "practice": "drill"}, ErrorCode.BAD_FIELD, "practice"),
        ({"type": "no_such_type"}, ErrorCode.UNKNOWN_TYPE, "type"),
        ({"type": "x" * 5000}, ErrorCode.UNKNOWN_TYPE, "type"),
        ({"type": 7}, ErrorCode.BAD_FIELD, "type"),
        ({"kind": "hello"}, ErrorCode.MISSING_FIELD, "type"),
        ({}, ErrorCode.MISSING_FIELD, "type"),
    ],
)
def test_bad_fields_are_named(obj, code, field):
    exc = refused(obj, code, field)
    assert str(exc).startswith(field.split("[")[0]) or code in (ErrorCode.NOT_A_MAP,)


@pytest.mark.parametrize(
    "data,code,field",
    [
        (b"\xc1", ErrorCode.NOT_MSGPACK, "frame"),  # never-used msgpack byte
        (b"\x92\x01", ErrorCode.NOT_MSGPACK, "frame"),  # truncated array
        (msgpack.packb({"type": "ping"}) + b"\x00", ErrorCode.NOT_MSGPACK, "frame"),  # trailing bytes
        (b"\xa3\xff\xfe\xfd", ErrorCode.NOT_MSGPACK, "frame"),  # invalid UTF-8 string
        (msgpack.packb(msgpack.ExtType(5, b"abc")), ErrorCode.NOT_MSGPACK, "frame"),  # ext types refused
        (msgpack.packb({1: "x"}), ErrorCode.NOT_MSGPACK, "frame"),  # non-string map key
        ("{\"type\": \"hello\"}", ErrorCode.NOT_BINARY, "frame"),  # text frame
        (b"\x91" * 3000 + b"\xc0", ErrorCode.NOT_MSGPACK, "frame"),  # 3000-deep nesting
        (msgpack.packb({"type": "chat", "table": "a", "text": "x" * 9000}), ErrorCode.BAD_FIELD, "frame"),  # > 8 KiB
        (msgpack.packb([1, 2, 3]), ErrorCode.NOT_A_MAP, None),
        (msgpack.packb(None), ErrorCode.NOT_A_MAP, None),
    ],
)
def test_bad_frames(data, code, field):
    refused(data, code, field)


def test_number_normalisation():
    m = protocol.decode_client(msgpack.packb(shot(V0=3, phi_deg=-90)))
    assert m.stroke["V0"] == 3.0 and isinstance(m.stroke["V0"], float)
    assert m.stroke["phi_deg"] == -90.0
    # the miscue limit is inclusive
    m = protocol.decode_client(msgpack.packb(shot(a=0.3, b=0.4)))
    assert math.hypot(m.stroke["a"], m.stroke["b"]) == 0.5


def test_practice_is_an_added_field_left_out_at_its_default():
    """``create_table.practice`` came after the first release: a game table's message is what an older peer reads."""
    assert "practice" not in I.CreateTable(discipline="libre").to_wire()
    assert I.CreateTable(discipline="libre", practice={}).to_wire()["practice"] == {}
    m = protocol.decode_client(msgpack.packb({"type": "reset", "table": "abc", "token": TOKEN, "seq": 1}))
    assert m.to == "rack"


def test_defaults_filled():
    m = protocol.decode_client(msgpack.packb({"type": "create_table", "discipline": "libre"}))
    assert m == I.CreateTable(discipline="libre", config={}, private=False, seat=0)
    m = protocol.decode_client(msgpack.packb({"type": "create_table", "discipline": "libre", "seat": None}))
    assert m.seat is None


def test_stroke_limits_agree_with_physics():
    """The protocol refuses exactly what physics.simulate refuses at the edges of each range."""
    from physics import Shot, simulate

    balls = {0: (0.5, 0.5), 1: (1.5, 0.6)}

    def physics_ok(**kw):
        try:
            simulate("pool-9ft", balls, Shot(cue_ball=0, **dict(STROKE, **kw)))
            return True
        except ValueError:
            return False

    def protocol_ok(**kw):
        try:
            protocol.decode_client(msgpack.packb(shot(**kw)))
            return True
        except ProtocolError:
            return False

    cases = [dict(V0=10.0), dict(V0=10.0 + 1e-9), dict(V0=1e-6), dict(theta_deg=70.0), dict(theta_deg=70.0 + 1e-9),
             dict(theta_deg=0.0), dict(a=0.3, b=0.4), dict(a=0.3, b=0.4 + 1e-9), dict(a=-0.5, b=0.0)]
    for kw in cases:
        assert protocol_ok(**kw) == physics_ok(**kw), kw


scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**64) + 1, 2**64 - 1), st.floats(allow_nan=True),
                    st.text(max_size=40), st.binary(max_size=20))
values = st.recursive(scalars, lambda ch: st.lists(ch, max_size=5) | st.dictionaries(st.text(max_size=12), ch, max_size=6),
                      max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(I.INBOUND)), st.dictionaries(st.sampled_from(
    ["table", "token", "seq", "stroke", "call", "cue_ball", "name", "arg", "v", "seat", "config", "discipline", "text",
     "protocol", "t", "private", "client", "balls", "to", "practice", "zzz"]), values, max_size=6))
def test_fuzz_messages_never_crash(type_name, fields):
    try:
        data = msgpack.packb(dict(fields, type=type_name))
    except (OverflowError, ValueError):
        return
    try:
        msg = protocol.decode_client(data)
    except ProtocolError as exc:
        assert exc.code in protocol.ERROR_CODES
        return
    assert isinstance(msg, I.Inbound) and msg.TYPE == type_name


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_bytes_never_crash(data):
    try:
        protocol.decode_client(data)
    except ProtocolError as exc:
        assert exc.code in protocol.ERROR_CODES


def test_names_and_chat_keep_accents_emoji_and_joiners():
    """What the invisible-character and stacked-mark rules must not refuse: accents (Vietnamese's two on a letter,
    pointed Hebrew's three), emoji, emoji joined by ZWJ, no-break spaces."""
    england = "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F"  # a subdivision flag: tag characters
    for name in ("José Raúl", "Nguye\u0302\u0303n", "\u05e9\u05c1\u05b8\u0591\u05dd", "Ann \U0001F3B1", "\U0001F468\u200d\U0001F469\u200d\U0001F467", "A\u00a0B", "Jo " + england):
        msg = protocol.decode_client(msgpack.packb({"type": "hello", "protocol": 1, "name": name}))
        assert msg.name == name
    chat = protocol.decode_client(msgpack.packb({"type": "chat", "table": "abc", "text": "buena \u200c tacada"}))
    assert chat.text == "buena \u200c tacada"
