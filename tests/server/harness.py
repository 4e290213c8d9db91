"""Helpers of the server tests: a scripted protocol client and small waits (fixtures are in conftest.py)."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Optional

import redis
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

import protocol
from protocol import inbound as I
from server.app import Server
from server.metrics import parse_text

STROKE = {"phi_deg": 0.0, "V0": 1.5, "a": 0.0, "b": 0.0, "theta_deg": 0.0}


class Client:
    """A scripted WebSocket client speaking the protocol through :mod:`protocol` (as bots do)."""

    def __init__(self, ws, name: str):
        self.ws, self.name = ws, name
        self.spectator_counts: List[int] = []  # unversioned ``spectators`` messages, kept aside
        self.welcome: Dict[str, Any] = {}
        self.raw: List[bytes] = []  # every binary message received, in order

    @classmethod
    async def open(cls, srv: Server, name: str = "ann", hello: bool = True, **kw) -> "Client":
        ws = await ws_connect(f"ws://127.0.0.1:{srv.port}/ws", compression=None, max_size=None, **kw)
        c = cls(ws, name)
        if hello:
            await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION, name=name))
            c.welcome = await c.expect("welcome")
        return c

    async def send(self, msg: Any) -> None:
        if isinstance(msg, I.Inbound):
            await self.ws.send(protocol.encode_client(msg))
        elif isinstance(msg, dict):
            await self.ws.send(protocol.encode(msg))
        else:
            await self.ws.send(msg)

    async def recv_bytes(self, timeout: float = 15.0) -> bytes:
        while True:
            data = await asyncio.wait_for(self.ws.recv(), timeout)
            msg = protocol.decode_server(data)
            if msg["type"] == "spectators":
                self.spectator_counts.append(msg["count"])
                continue
            self.raw.append(data)
            return data

    async def recv(self, timeout: float = 15.0) -> Dict[str, Any]:
        return protocol.decode_server(await self.recv_bytes(timeout))

    async def expect(self, type_: str, timeout: float = 15.0, **fields) -> Dict[str, Any]:
        msg = await self.recv(timeout)
        assert msg["type"] == type_, f"{self.name}: expected {type_}, got {msg}"
        for k, v in fields.items():
            assert msg.get(k) == v, f"{self.name}: {k}={msg.get(k)!r}, expected {v!r} in {msg}"
        return msg

    async def silent(self, seconds: float = 0.3) -> None:
        """Assert that nothing (but spectator counts) arrives for ``seconds``."""
        try:
            msg = await self.recv(seconds)
        except asyncio.TimeoutError:
            return
        raise AssertionError(f"{self.name}: unexpected {msg}")

    async def closed(self, timeout: float = 15.0) -> int:
        """Wait for the server to close the connection; returns the close code."""
        try:
            while True:
                await asyncio.wait_for(self.ws.recv(), timeout)
        except ConnectionClosed:
            pass
        await self.ws.wait_closed()
        return self.ws.close_code

    async def close(self) -> None:
        await self.ws.close()


async def open_client(srv: Server, name: str = "ann", **kw) -> Client:
    return await Client.open(srv, name, **kw)


async def table_with_two(srv: Server, discipline: str = "straight_pool", config: Optional[dict] = None, **create):
    """Two seated players: returns (a, b, table id, token a, token b), all join traffic consumed."""
    a = await open_client(srv, "ann")
    b = await open_client(srv, "bob")
    await a.send(I.CreateTable(discipline=discipline, config=config or {}, **create))
    sa = await a.expect("seated", seat=0)
    await a.expect("table_snapshot")
    await a.expect("seats", v=1)
    await b.send(I.Join(table=sa["table"]))
    sb = await b.expect("seated", seat=1)
    await b.expect("table_snapshot", v=1)
    await b.expect("seats", v=2)
    await a.expect("seats", v=2)
    return a, b, sa["table"], sa["token"], sb["token"]


def metrics(srv: Server) -> Dict[str, float]:
    return parse_text(srv.render_metrics())


async def wait_for(pred, timeout: float = 15.0, step: float = 0.02):
    """Poll ``pred`` (sync) until true; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(step)


def any_action(state: Dict[str, Any], table: str, token: str, seq: int) -> I.Inbound:
    """A legal action for the player to act in ``state`` (a message's ``state``): a soft safety stroke
    when shooting is allowed, else the first decision on offer with its first argument."""
    legal = state["legal"]
    shoot = legal.get("shoot")
    if shoot:
        call = {"safety": True} if shoot["call"] == "required" else None
        cue = None
        if shoot.get("in_hand"):
            cue = (0.3, 0.6) if shoot["in_hand"]["region"] == "kitchen" else (0.5, 0.5)
        return I.Shot(table=table, token=token, seq=seq, stroke=dict(STROKE, phi_deg=90.0, V0=0.8), call=call, cue_ball=cue)
    d = legal["decisions"][0]
    return I.Decision(table=table, token=token, seq=seq, name=d["name"], arg=d["args"][0] if d["args"] else None)


def delete_prefix(url: str, prefix: str) -> None:
    """Delete every key of the Redis at ``url`` under ``prefix`` (a test's own keys)."""
    r = redis.Redis.from_url(url)
    try:
        keys = list(r.scan_iter(match=prefix + "*", count=500))
        if keys:
            r.delete(*keys)
    finally:
        r.close()


def drop_schema(url: str, schema: str) -> None:
    """Drop PostgreSQL schema ``schema`` (a test's own) of the database at ``url`` (an asyncpg SQLAlchemy URL)."""
    import asyncio

    import asyncpg
    from sqlalchemy.engine import make_url

    u = make_url(url)

    async def run():
        conn = await asyncpg.connect(host=u.host, port=u.port or 5432, user=u.username, password=u.password,
                                     database=u.database)
        try:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        finally:
            await conn.close()

    asyncio.run(run())


async def next_of(client: Client, type_: str, timeout: float = 15.0) -> Dict[str, Any]:
    """The next message of ``type_`` (the ones before it are skipped)."""
    while True:
        m = await client.recv(timeout)
        if m["type"] == type_:
            return m


async def logged_in(port: int, username: str, password: str = "correct horse 1") -> Client:
    """A newly registered player's WebSocket client on the server at ``port``: registered by
    ``POST /api/account/register`` and greeted with the session cookie on the handshake (same origin)."""
    import json

    st, headers, body = await http_request(port, "POST", "/api/account/register",
                                           json.dumps({"username": username, "password": password}).encode(),
                                           {"Content-Type": "application/json"})
    assert st == 201, body
    cookie = headers["set-cookie"][0].split(";")[0]
    ws = await ws_connect(f"ws://127.0.0.1:{port}/ws", compression=None, max_size=None,
                          additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"})
    c = Client(ws, username)
    await c.send(I.Hello(protocol=protocol.PROTOCOL_VERSION))
    c.welcome = await c.expect("welcome")
    assert c.welcome["account"]["name"] == username
    c.cookie = cookie
    return c


async def rated_table(port: int, discipline: str, config: dict, names=("Ann", "Bob")):
    """Two newly registered players at a rated table of the server at ``port``, seats 0 and 1:
    returns (a, b, table id, token a, token b); the join traffic is left unread."""
    a = await logged_in(port, names[0])
    b = await logged_in(port, names[1])
    await a.send(I.CreateTable(discipline=discipline, config=config, rated=True))
    sa = await a.expect("seated", seat=0)
    await b.send(I.Join(table=sa["table"]))
    sb = await b.expect("seated", seat=1)
    return a, b, sa["table"], sa["token"], sb["token"]


SOFT = {"phi_deg": 90.0, "V0": 0.4, "a": 0.0, "b": 0.0, "theta_deg": 0.0}  # no carom: the turn passes


async def game_snapshot(client, game):
    """The first table snapshot of game ``game`` (a rematch's)."""
    while (await next_of(client, "table_snapshot"))["game"] != game:
        pass


async def one_stroke_each(a, b, tid, ta, tb):
    """Seat 0 (a) and then seat 1 (b) each play a soft stroke that scores nothing: the game is under way for both
    (a rated game forfeited before both players have played is aborted, not rated)."""
    await a.send(I.Shot(table=tid, token=ta, seq=1, stroke=SOFT))
    s0 = await next_of(a, "stroke")
    assert s0["ruling"]["next_player"] == 1 and not s0["state"]["over"], s0["ruling"]
    await next_of(b, "stroke")
    await b.send(I.Shot(table=tid, token=tb, seq=1, stroke=SOFT))
    s1 = await next_of(b, "stroke")
    assert s1["ruling"]["next_player"] == 0 and not s1["state"]["over"], s1["ruling"]
    await next_of(a, "stroke")


async def http_request(port: int, method: str, path: str, body: bytes = b"", headers=None):
    """One raw HTTP/1.1 request; returns (status, headers dict (lower-case, Set-Cookie as a list), body bytes)."""
    r, w = await asyncio.open_connection("127.0.0.1", port)
    head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Length: {len(body)}"]
    for k, v in (headers or {}).items():
        head.append(f"{k}: {v}")
    w.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    await w.drain()
    raw = await asyncio.wait_for(r.read(), 10)
    w.close()
    top, _, payload = raw.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs: Dict[str, Any] = {"set-cookie": []}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        k = k.strip().lower()
        if k == "set-cookie":
            hdrs[k].append(v.strip())
        else:
            hdrs[k] = v.strip()
    return status, hdrs, payload
