"""Backpressure: a spectator that does not read is dropped without slowing the table; a player that
falls behind is resynchronised by snapshot."""

import asyncio
import socket
import time

from websockets.asyncio.client import connect as ws_connect

import protocol
from harness import Client, metrics, open_client, table_with_two, wait_for
from protocol import inbound as I

POOL = {"breaker": 0, "target_points": 5}
LIMITS = dict(outbound_limit_bytes=64 * 1024, socket_sndbuf_bytes=4096, chat_per_s=1000.0, chat_burst=1000.0,
              rate_per_s=1000.0, rate_burst=1000.0)


async def slow_client(srv, name: str) -> Client:
    """A client whose socket has a tiny receive buffer (no autotuning), so not reading backs up the server."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", srv.port))
    ws = await ws_connect(f"ws://127.0.0.1:{srv.port}/ws", sock=sock, compression=None, max_size=None, max_queue=1)
    c = Client(ws, name)
    await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=name))
    await c.expect("welcome")
    return c


async def test_a_spectator_that_does_not_read_is_dropped_and_never_slows_the_players(make_server):
    srv = await make_server(**LIMITS)
    a, b, tid, ta, tb = await table_with_two(srv, config=POOL)
    lazy = await slow_client(srv, "lazy")
    await lazy.send(I.Watch(table=tid))
    await lazy.expect("table_snapshot")
    lazy.ws.transport.pause_reading()  # stops reading: its buffers fill up
    text = "x" * 250
    n = 500

    got_a, got = [], []

    async def read_chats(c, out):  # a player reads all the time, as a real client does
        while len(out) < n:
            m = await c.expect("chat")
            out.append(int(m["text"][:3]))

    readers = [asyncio.create_task(read_chats(c, out)) for c, out in ((a, got_a), (b, got))]
    t0 = time.perf_counter()
    for i in range(n):
        await a.send(I.Chat(table=tid, text=f"{i:03d}{text}"))
        if i % 50 == 49:  # a polite sender: never more than ~100 lines ahead of its own echo
            await wait_for(lambda: len(got_a) >= i - 50)
    await asyncio.gather(*readers)
    elapsed = time.perf_counter() - t0
    assert got_a == got
    assert got == list(range(n))  # every line, in order, to the player who reads
    assert elapsed < 10.0
    m = metrics(srv)
    assert m["billar_dropped_connections_total"] == 1
    assert m["billar_dropped_messages_total"] >= 1
    assert m["billar_spectators"] == 0  # the table no longer waits for, or counts, the dropped spectator
    # the table still plays
    await a.send(I.Shot(table=tid, token=ta, seq=1, stroke={"phi_deg": 0.0, "V0": 2.0, "a": 0.0, "b": 0.0,
                                                            "theta_deg": 0.0}, cue_ball=(0.3, 0.6)))
    await b.expect("stroke", v=3 + n)


async def test_a_player_that_falls_behind_is_resynced_by_snapshot(make_server):
    srv = await make_server(**LIMITS)
    a = await open_client(srv, "ann")
    await a.send(I.CreateTable(discipline="straight_pool", config=POOL))
    sa = await a.expect("seated")
    tid = sa["table"]
    await a.expect("table_snapshot")
    await a.expect("seats")
    b = await slow_client(srv, "bob")
    await b.send(I.Join(table=tid))
    await b.expect("seated", seat=1)
    await b.expect("table_snapshot")
    await b.expect("seats", v=2)
    await a.expect("seats", v=2)
    b.ws.transport.pause_reading()
    n = 500
    for i in range(n):
        await a.send(I.Chat(table=tid, text=f"{i:03d}" + "y" * 250))
        await a.expect("chat", v=3 + i)
    assert srv.metrics.dropped.get() >= 1
    assert metrics(srv)["billar_players_connected"] == 2  # a player is never dropped for being slow
    b.ws.transport.resume_reading()
    # b reads what was sent before it fell behind, then a snapshot at the current version
    last = None
    while True:
        m = await b.recv()
        if m["type"] == "table_snapshot":
            last = m
            break
        assert m["type"] == "chat"
    assert last["v"] == 2 + n
    assert [c["text"][:3] for c in last["chat"]][-1] == f"{n - 1:03d}"
    await wait_for(lambda: metrics(srv)["billar_resyncs_total"] == 1)
    # and the stream flows again
    await a.send(I.Chat(table=tid, text="after"))
    await b.expect("chat", v=3 + n, text="after")
