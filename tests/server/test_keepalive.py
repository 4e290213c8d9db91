"""The keepalive sweep (server/http/keepalive.py): pings only for silent connections, a close for an unanswered one."""

from __future__ import annotations

import asyncio
import math

import pytest
from websockets.protocol import CLOSED, OPEN

from harness import metrics, open_client, wait_for
from protocol import inbound as I
from server.http.keepalive import CLOSE, PING, Keepalive
from server.metrics import Counter


class FakeProtocol:
    def __init__(self):
        self.state = OPEN
        self.pings = []

    def send_ping(self, data: bytes) -> None:
        if self.state is not OPEN:
            raise RuntimeError("not open")
        self.pings.append(data)


class FakeConn:
    def __init__(self, heard_at: float = 0.0):
        self.protocol = FakeProtocol()
        self.heard_at = heard_at
        self.ping_sent_at = None
        self.writes = 0
        self.closes = []

    def send_data(self) -> None:
        self.writes += 1

    async def close(self, code: int, reason: str) -> None:
        self.closes.append((int(code), reason))
        self.protocol.state = CLOSED


async def test_a_silent_connection_is_pinged_once_and_closed_when_the_ping_goes_unanswered():
    counter = Counter("k", "k", ["outcome"])
    k = Keepalive(20.0, 10.0, lambda: [], counter)
    c = FakeConn(heard_at=100.0)
    assert k.check(c, 119.9) == ""  # silent for less than the interval
    assert k.check(c, 120.0) == PING
    assert c.ping_sent_at == 120.0 and len(c.protocol.pings) == 1 and len(c.protocol.pings[0]) == 4 and c.writes == 1
    assert k.check(c, 125.0) == ""  # waiting for the answer: no second ping
    assert len(c.protocol.pings) == 1
    assert k.check(c, 130.0) == CLOSE  # timeout_s after the ping, nothing heard
    await k.closing.wait(1.0)
    assert c.closes == [(1011, "keepalive ping timeout")]
    assert counter.get("ping") == 1 and counter.get("timeout") == 1
    assert k.check(c, 200.0) == ""  # closed: left alone


async def test_an_answer_or_any_frame_after_the_ping_keeps_the_connection():
    k = Keepalive(20.0, 10.0, lambda: [])
    c = FakeConn(heard_at=0.0)
    assert k.check(c, 20.0) == PING
    c.heard_at = 20.4  # the pong (or any frame) arrived
    assert k.check(c, 35.0) == ""  # answered; silent for 14.6 s since: not yet pinged again
    assert c.ping_sent_at is None and c.closes == []
    assert k.check(c, 40.4) == PING  # silent for the interval again
    assert len(c.protocol.pings) == 2


async def test_a_connection_that_talks_is_never_pinged():
    k = Keepalive(20.0, 20.0, lambda: [])
    c = FakeConn(heard_at=0.0)
    for t in range(1, 200):
        c.heard_at = t - 0.5  # a frame every second
        assert k.check(c, float(t)) == ""
    assert c.protocol.pings == [] and c.writes == 0


async def test_no_timeout_pings_but_never_closes_and_bad_settings_are_refused():
    k = Keepalive(1.0, None, lambda: [])
    assert k.timeout_s == math.inf and k.tick_s == 0.25
    c = FakeConn(heard_at=0.0)
    assert k.check(c, 1.0) == PING
    assert k.check(c, 1e9) == ""
    assert Keepalive(20.0, 20.0, lambda: []).tick_s == 5.0
    for bad in ((0.0, 1.0), (-1.0, 1.0), (math.nan, 1.0), (1.0, 0.0), (1.0, math.nan)):
        with pytest.raises(ValueError):
            Keepalive(bad[0], bad[1], lambda: [])


async def test_a_rotation_looks_at_every_connection_once_in_even_slices(monkeypatch):
    """The pings of a rotation are spread over it (all at once stalled the loop at 19,600 connections)."""
    conns = [FakeConn(heard_at=-15.0 if i % 2 else 9.5) for i in range(2503)]
    k = Keepalive(20.0, 20.0, lambda: conns, clock=lambda: 10.0)
    assert k.tick_s == 5.0
    per_slice = []
    sleeps = []
    real_sleep = asyncio.sleep

    async def fake_sleep(dt):
        sleeps.append(dt)
        per_slice.append(sum(len(c.protocol.pings) for c in conns))
        await real_sleep(0)

    monkeypatch.setattr("server.http.keepalive.asyncio.sleep", fake_sleep)
    await k.sweep()
    per_slice.append(sum(len(c.protocol.pings) for c in conns))
    assert len(sleeps) == 50 and all(dt == 0.1 for dt in sleeps)  # 50 slices of 0.1 s: one rotation of 5 s
    pings = [b - a for a, b in zip(per_slice, per_slice[1:])]
    assert sum(pings) == 1251 and max(pings) <= 26  # ceil(2503 / 50) = 51 connections a slice, half of them silent
    assert all(len(c.protocol.pings) == (1 if c.heard_at == -15.0 else 0) for c in conns)


def _server_conn(srv, client):
    """The server's connection object of ``client`` (matched by the client's local address)."""
    here = client.ws.local_address
    return next(c for c in srv.ws_server.connections if c.remote_address == here)


async def test_the_server_pings_the_silent_spectator_not_the_talking_player_and_closes_the_half_open(make_server):
    srv = await make_server(ping_interval_s=0.3, ping_timeout_s=0.3, close_timeout_s=0.5)
    talker = await open_client(srv, "talker")
    quiet = await open_client(srv, "quiet")
    sent = {}
    for name, c in (("talker", talker), ("quiet", quiet)):
        conn = _server_conn(srv, c)
        sent[name] = []
        orig = conn.protocol.send_ping
        conn.protocol.send_ping = (lambda orig, out: lambda data: (out.append(data), orig(data))[1])(orig, sent[name])
    loop = asyncio.get_running_loop()
    end = loop.time() + 1.5
    while loop.time() < end:
        await talker.send(I.Ping(t=1.0))
        await talker.expect("pong")
        await asyncio.sleep(0.05)
    assert sent["talker"] == []
    assert 2 <= len(sent["quiet"]) <= 5, sent  # every 0.3 s of silence (+ up to a tick of 0.075 s)
    assert metrics(srv)["billar_connections"] == 2  # the quiet one answered every ping
    assert metrics(srv)['billar_keepalive_total{outcome="ping"}'] == len(sent["quiet"])
    quiet.ws.transport.pause_reading()  # half-open: its pongs never come back
    await wait_for(lambda: metrics(srv)["billar_connections"] == 1, timeout=3.0)
    assert metrics(srv)['billar_keepalive_total{outcome="timeout"}'] == 1
    await talker.send(I.Ping(t=2.0))
    assert (await talker.expect("pong"))["t"] == 2.0
