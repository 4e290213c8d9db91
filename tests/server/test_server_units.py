"""Small pieces of the server without a network: lag cue balls, seat tokens, token bucket, metrics text, write
merging, settings."""

import pytest

from server.config import from_env
from server.metrics import Metrics, parse_text
from server.ratelimit import TokenBucket
from server.store import TableWrite
from server.table.play import lag_cue_ball
from server.table.seats import Seat, seat_with_token, token_hash


def test_lag_cue_ball_from_either_form_of_lag_balls():
    layout = {0: (0.6, 0.3175), 1: (0.6, 0.9525), 2: (2.13, 0.71)}
    assert lag_cue_ball(1, {"0": 0, "1": 1}, layout) == 1  # carom: seat -> ball id
    assert lag_cue_ball(0, {"0": [0.6, 0.3175], "1": [0.6, 0.9525]}, layout) == 0  # 14.1: seat -> start position
    assert lag_cue_ball(1, {"0": [0.6, 0.9525], "1": [0.6, 0.3175]}, layout) == 0
    assert lag_cue_ball(1, {}, layout) == 1


def test_a_seat_token_opens_its_seat_only_while_the_seat_keeps_its_hash():
    class T:
        seats = [Seat("p0", "Ann", token_hash("a" * 24)), Seat("p1", "Bob", token_hash("b" * 24))]

    assert [seat_with_token(T, "a" * 24), seat_with_token(T, "b" * 24), seat_with_token(T, "c" * 24)] == [0, 1, None]
    assert T.seats[1].proved == (T.seats[1].token_hash, b"b" * 24)
    assert seat_with_token(T, "b" * 24) == 1  # remembered: the same answer without hashing
    T.seats[1].token_hash = token_hash("d" * 24)  # the seat's token changed (a computer seat given a new one)
    assert seat_with_token(T, "b" * 24) is None and seat_with_token(T, "d" * 24) == 1
    assert seat_with_token(T, "a" * 23) is None and seat_with_token(T, "a" * 24) == 0


def test_token_bucket_refills_over_time():
    now = [0.0]
    b = TokenBucket(per_s=2.0, burst=3.0, clock=lambda: now[0])
    assert [b.take() for _ in range(4)] == [True, True, True, False]
    now[0] = 0.5  # one credit back
    assert b.take() and not b.take()
    now[0] = 100.0  # never more than the burst
    assert [b.take() for _ in range(4)] == [True, True, True, False]


def test_metrics_text_and_histogram_buckets():
    m = Metrics()
    m.strokes.inc()
    m.protocol_errors.inc(1.0, "bad_field")
    m.protocol_errors.inc(2.0, "bad_field")
    m.shot_latency.observe(0.0003, "simulate")
    m.shot_latency.observe(0.02, "simulate")
    s = parse_text(m.render())
    assert s["billar_strokes_total"] == 1
    assert s['billar_protocol_errors_total{code="bad_field"}'] == 3
    assert s['billar_shot_latency_seconds_bucket{stage="simulate",le="0.00025"}'] == 0
    assert s['billar_shot_latency_seconds_bucket{stage="simulate",le="0.0005"}'] == 1
    assert s['billar_shot_latency_seconds_bucket{stage="simulate",le="+Inf"}'] == 2
    assert s['billar_shot_latency_seconds_count{stage="simulate"}'] == 2
    assert s['billar_shot_latency_seconds_sum{stage="simulate"}'] == pytest.approx(0.0203)


def test_table_writes_merge_while_redis_is_down():
    w = TableWrite("t", state=b"s1", records=[(1, 0, b"r0")], stream=[(1, b"m1")], lobby=b"l1", publish_lobby=b"p1")
    w.merge(TableWrite("t", state=b"s2", records=[(1, 1, b"r1")], stream=[(2, b"m2"), (3, b"m3")], lobby=b"l2"),
            history_len=2)
    assert w.state == b"s2" and w.records == [(1, 0, b"r0"), (1, 1, b"r1")]
    assert w.stream == [(2, b"m2"), (3, b"m3")] and w.lobby == b"l2" and w.publish_lobby == b"p1"
    w.merge(TableWrite("t", closed=True, lobby_gone=True), history_len=2)
    assert w.closed and w.state is None and w.lobby_gone and w.lobby is None


def test_settings_from_environment_and_overrides():
    s = from_env({"BILLAR_PORT": "9000", "REDIS_URL": "redis://h:1/2", "BILLAR_GRACE_S": "5",
                  "BILLAR_ORIGINS": "https://a.example, https://b.example"}, host="0.0.0.0")
    assert (s.port, s.redis_url, s.grace_s, s.host) == (9000, "redis://h:1/2", 5.0, "0.0.0.0")
    assert s.origins == ("https://a.example", "https://b.example")
    assert from_env({}).redis_url is None and from_env({}).data_dir == "var"
    with pytest.raises(ValueError, match="BILLAR_PORT"):
        from_env({"BILLAR_PORT": "eighty"})
    with pytest.raises(ValueError, match="port"):
        from_env({}, port=70000)
    assert from_env({}).gc_full_growth == 0.25 and from_env({"BILLAR_GC_FULL_GROWTH": "0"}).gc_full_growth == 0.0
    for bad in ("-1", "nan"):
        with pytest.raises(ValueError, match="gc_full_growth|BILLAR_GC_FULL_GROWTH"):
            from_env({"BILLAR_GC_FULL_GROWTH": bad})
