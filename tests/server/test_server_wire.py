"""The connection level: handshake, malformed frames while a table plays on, oversized frames, rate limits."""

import asyncio
import math

import msgpack

import protocol
from harness import metrics, open_client, table_with_two, wait_for
from protocol import inbound as I
from protocol.errors import CloseCode

POOL = {"breaker": 0, "target_points": 5}


async def test_hello_is_required_and_versioned(make_server):
    srv = await make_server(hello_timeout_s=0.5)
    c = await open_client(srv, hello=False)
    await c.send(I.LobbySubscribe())
    await c.expect("error", code="hello_required", ref="lobby_subscribe")
    await c.send(I.Ping(t=3.0))
    pong = await c.expect("pong", t=3.0)
    assert pong["ts"] > 0
    await c.send(I.Hello(protocol=99, name="x"))
    await c.expect("error", code="bad_field", field="protocol")
    assert await c.closed() == CloseCode.UNSUPPORTED_VERSION
    late = await open_client(srv, hello=False)
    await late.expect("error", code="hello_required")
    assert await late.closed() == CloseCode.HELLO_TIMEOUT
    ok = await open_client(srv, "ann")
    assert ok.welcome["protocol"] == protocol.PROTOCOL_VERSION and ok.welcome["name"] == "ann"
    assert ok.welcome["limits"]["max_frame_bytes"] == 8192
    await ok.send(I.Hello(protocol=1))
    await ok.expect("error", code="already_greeted")


async def test_malformed_frames_get_errors_while_the_table_plays_on(server):
    a, b, tid, ta, tb = await table_with_two(server, config=POOL)
    good = {"phi_deg": 0.0, "V0": 2.0, "a": 0.0, "b": 0.0, "theta_deg": 0.0}

    def shot(**kw):
        return dict({"type": "shot", "table": tid, "token": ta, "seq": 1, "stroke": good, "cue_ball": [0.3, 0.6]}, **kw)

    cases = [
        (b"\xc1\xc1", "not_msgpack", "frame"),
        ("a text frame", "not_binary", "frame"),
        (msgpack.packb(shot(stroke=dict(good, V0=math.nan))), "bad_field", "stroke.V0"),
        (msgpack.packb(shot(stroke=dict(good, phi_deg=1e308))), "bad_field", "stroke.phi_deg"),
        (msgpack.packb(shot(stroke=dict(good, a="left"))), "bad_field", "stroke.a"),
        (msgpack.packb(shot(seq="1")), "bad_field", "seq"),
        (msgpack.packb(shot(cue_ball=[math.inf, 0.5])), "bad_field", "cue_ball[0]"),
        (msgpack.packb(shot(table="t" * 5000)), "bad_field", "table"),
        (msgpack.packb({"type": "chat", "table": tid, "text": "é" * 2000}), "bad_field", "text"),
        (msgpack.packb({"type": "teleport", "table": tid}), "unknown_type", "type"),
        (msgpack.packb([1, 2, 3]), "not_a_map", None),
        (msgpack.packb({"table": tid}), "missing_field", "type"),  # a map, but no type: not "not a map"
        (msgpack.packb({"type": 7}), "bad_field", "type"),
        (msgpack.packb(shot(extra={"deep": [1, 2]})), "unknown_field", "extra"),
    ]
    for data, code, field in cases:
        await a.send(data)
        err = await a.expect("error", code=code)
        assert err.get("field") == field, (code, err)
    # the table is untouched and plays on with the same connection
    await a.send(I.Shot(table=tid, token=ta, seq=1, stroke=good, cue_ball=(0.3, 0.6)))
    await a.expect("stroke", v=3)
    await b.expect("stroke", v=3)
    m = metrics(server)
    assert m['billar_protocol_errors_total{code="bad_field"}'] >= 7


async def test_oversized_frame_closes_only_that_connection(server):
    a, b, tid, ta, tb = await table_with_two(server, config=POOL)
    big = await open_client(server, "big")
    await big.send(b"\x00" * (8 * 1024 + 1))
    assert await big.closed() == CloseCode.MESSAGE_TOO_BIG
    await a.send(I.Chat(table=tid, text="still fine"))
    await b.expect("chat", v=3)


async def test_a_flood_is_rate_limited_then_closed(make_server):
    srv = await make_server(rate_per_s=5.0, rate_burst=10.0)
    c = await open_client(srv, "flood")
    for _ in range(60):  # pings have credits of their own (100 at once)
        await c.send(I.Ping())
    for _ in range(60):
        await c.expect("pong")
    flood = await open_client(srv, "flood2")
    for _ in range(40):
        await flood.send(I.LobbyUnsubscribe())
    err = await flood.expect("error", code="rate_limited")
    assert "closing" in err["message"]
    assert await flood.closed() == CloseCode.RATE_LIMITED
    assert metrics(srv)["billar_rate_limited_total"] == 1
    # others are unaffected
    await c.send(I.LobbySubscribe())
    await c.expect("lobby")


async def test_a_ping_flood_is_rate_limited_then_closed(make_server):
    """Pings beyond their own budget (burst 100) spend message credits (burst 10 here), then the connection closes."""
    srv = await make_server(rate_per_s=5.0, rate_burst=10.0)
    other = await open_client(srv, "other")
    flood = await open_client(srv, "pinger")
    for _ in range(400):
        await flood.send(I.Ping(t=1.0))
    pongs = 0
    while True:
        m = await flood.recv()
        if m["type"] != "pong":
            break
        pongs += 1
    assert m["type"] == "error" and m["code"] == "rate_limited"
    assert 100 + 9 <= pongs < 130  # ping credits, then the message credits hello left (refills during the burst are small)
    # the server reads on after closing, so the client's close reply ends the connection at once (not after
    # the 5 s close timeout with the reading paused behind the flood)
    t0 = asyncio.get_running_loop().time()
    assert await flood.closed() == CloseCode.RATE_LIMITED
    assert asyncio.get_running_loop().time() - t0 < 2.0
    assert metrics(srv)["billar_rate_limited_total"] == 1
    await other.send(I.Ping(t=2.0))
    assert (await other.expect("pong"))["t"] == 2.0


async def test_idle_half_open_connections_are_closed_by_pings(make_server):
    srv = await make_server(ping_interval_s=0.2, ping_timeout_s=0.2, close_timeout_s=0.5)
    c = await open_client(srv, "quiet")
    # a client that answers pings stays; one that stops reading the socket is closed
    await asyncio.sleep(0.6)
    assert metrics(srv)["billar_connections"] == 1
    c.ws.transport.pause_reading()  # half-open: pongs never come back
    await wait_for(lambda: metrics(srv)["billar_connections"] == 0, timeout=3.0)


async def test_origin_allow_list(make_server):
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    srv = await make_server(origins=("https://billar.example",))
    url = f"ws://127.0.0.1:{srv.port}/ws"
    async with connect(url, origin="https://billar.example", compression=None):
        pass
    async with connect(url, compression=None):  # no Origin header: not a browser, allowed
        pass
    try:
        async with connect(url, origin="https://evil.example", compression=None):
            raise AssertionError("a foreign origin was accepted")
    except InvalidStatus as exc:
        assert exc.response.status_code == 403
