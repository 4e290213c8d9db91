"""A hostile-input fuzzer for a running ``billar serve``: random and mutated WebSocket frames, raw-socket abuse.

:class:`FrameMaker` makes the frames of one connection from a seeded ``random.Random``: messages of every
client type with hostile values (wrong types, huge integers, 1e308, NaN and infinities, empty and over-long
strings, control and invisible characters, lists and maps where scalars belong), unknown types and fields,
missing fields, invalid msgpack (random bytes, truncated or trailing bytes, extension types, non-string keys,
invalid UTF-8, deep nesting), text frames, frames over the size limit, and valid messages aimed at the
live tables with guessed tokens (join, watch, resume, shot, decision, resign, claim, leave, rematch).
:func:`run` drives many connections at once, in modes chosen by the same generator: paced
(under the rate limit, replies read), floods (the rate limit closes them), raw sockets (2,000 pings then a
reset, a half-sent frame, an unmasked frame, a frame claiming 2^63 bytes, a fragmented message with control
frames between its parts, a bad close code, handshake garbage), half-open connections (a partial HTTP
request left hanging) and slow readers (lobby and tables watched, nothing read) held to the end.

The content of every frame depends only on the seed (each connection has its own generator, seeded with
``(seed, worker, connection number)``); timing does not. Nothing here looks inside the server: a valid
``chat`` is never aimed at a live table (a spectator's chat would be a legitimate change of the table).
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import socket
import string
import struct
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, WebSocketException

import protocol

TOKEN_CHARS = string.ascii_letters + string.digits + "-_"

HOSTILE_NUMBERS: Tuple[Any, ...] = (
    0, -1, 1, 2, 15, 16, 255, 256, 2**31 - 1, 2**31, 2**53, 2**53 + 1, 2**63 - 1, 2**64 - 1, -2**63,
    0.0, -0.0, 0.5, -0.5, 1e-308, 5e-324, 1e308, -1e308, 1.7976931348623157e308, float("nan"), float("inf"),
    float("-inf"), 10.000001, 360.0000001, 70.0000001, 0.50000001, 3.999999999, 4.0000001, 1e6, 1e6 + 1,
)
HOSTILE_STRINGS: Tuple[str, ...] = (
    "", " ", "\t", "\x00", "a\x00b", "\u202e", "\u200b", "\u200d", "\ufeff", "\ud7ff", "\U0001f600",
    "\U0001f468\u200d\U0001f469", "\u0301" * 40, "Computer (level 5)", "ann", "../../etc/passwd", "%00", "null",
    "0", "-1", "true", "x" * 33, "y" * 65, "z" * 281, "T" * 7000, "三" * 100, "__proto__", "constructor",
    "straight_pool", "three_cushion", "14_1", "libre", "balkline_47_2", "HR", "FL", "SAFETY", "ACCEPT",
)
INBOUND_TYPES = ("hello", "ping", "lobby_subscribe", "lobby_unsubscribe", "quick_play", "quick_play_cancel",
                 "create_table", "join", "watch", "leave", "resume", "shot", "decision", "resign", "claim",
                 "rematch_offer", "rematch_accept", "chat")
SEAT_TYPES = ("resign", "claim", "rematch_offer", "rematch_accept")
DISCIPLINES = ("straight_pool", "14_1", "libre", "balkline_47_2", "balkline_47_1", "balkline_71_2", "one_cushion",
               "three_cushion", "pentathlon", "triathlon")
CONFIG_KEYS = ("distance", "target_points", "breaker", "shot_clock", "inning_limit", "sets", "lag_mode", "stalemate",
               "table", "equalizing_inning", "extensions", "timeouts", "limit_s", "warn_s", "x", "a.b", "Zz", "")


@dataclass
class Targets:
    """What frames aim at: the live tables (never chatted to) and tables the fuzzer's own connections made."""

    live: List[str]
    own: List[str] = field(default_factory=list)


class FrameMaker:
    """The frames of one connection, from ``rng``. :meth:`frame` returns ("binary", bytes) or ("text", str)."""

    def __init__(self, rng: random.Random, targets: Targets):
        self.rng, self.targets = rng, targets

    # ----- values ------------------------------------------------------------------------------
    def token(self) -> str:
        r = self.rng
        return "".join(r.choice(TOKEN_CHARS) for _ in range(r.choice((16, 24, 32, 64))))

    def table_id(self, chat: bool = False) -> Any:
        r = self.rng
        k = r.random()
        if k < 0.45 and not chat and self.targets.live:
            return r.choice(self.targets.live)
        if k < 0.65 and self.targets.own:
            return r.choice(self.targets.own)
        if k < 0.85:
            return "".join(r.choice(TOKEN_CHARS) for _ in range(r.randint(1, 32)))
        return self.hostile()

    def number(self) -> Any:
        r = self.rng
        k = r.random()
        if k < 0.5:
            return r.choice(HOSTILE_NUMBERS)
        if k < 0.8:
            return r.uniform(-400, 400)
        return r.randint(-2**63, 2**64 - 1)

    def hostile(self, depth: int = 0) -> Any:
        """Any value: scalars of every kind, and (shallow) lists and maps of them."""
        r = self.rng
        k = r.random()
        if k < 0.35:
            return self.number()
        if k < 0.65:
            return r.choice(HOSTILE_STRINGS)
        if k < 0.72:
            return r.choice((None, True, False))
        if k < 0.78:
            return bytes(r.getrandbits(8) for _ in range(r.randint(0, 40)))
        if k < 0.88 and depth < 3:
            return [self.hostile(depth + 1) for _ in range(r.randint(0, 5))]
        if depth < 3:
            return {r.choice(CONFIG_KEYS + INBOUND_TYPES): self.hostile(depth + 1) for _ in range(r.randint(0, 5))}
        return None

    def maybe(self, good: Callable[[], Any]) -> Any:
        """Mostly a plausible value, sometimes a hostile one."""
        return good() if self.rng.random() < 0.7 else self.hostile()

    def stroke(self) -> Any:
        r = self.rng
        if r.random() < 0.1:
            return self.hostile()
        st = {"phi_deg": self.maybe(lambda: r.uniform(-360, 360)), "V0": self.maybe(lambda: r.uniform(0.01, 10)),
              "a": self.maybe(lambda: r.uniform(-0.35, 0.35)), "b": self.maybe(lambda: r.uniform(-0.35, 0.35)),
              "theta_deg": self.maybe(lambda: r.uniform(0, 70))}
        if r.random() < 0.15:
            st.pop(r.choice(list(st)))
        if r.random() < 0.1:
            st[r.choice(("spin", "V1", "phi"))] = self.hostile()
        return st

    def config(self) -> Any:
        r = self.rng
        if r.random() < 0.15:
            return self.hostile()
        return {r.choice(CONFIG_KEYS): self.maybe(lambda: r.choice((1, 2, 3, 5, 0, None, "x", {"limit_s": 2})))
                for _ in range(r.randint(0, 4))}

    # ----- messages ----------------------------------------------------------------------------
    def message(self) -> Dict[str, Any]:
        """A map with a client ``type`` and fields, plausible or hostile."""
        r = self.rng
        t = r.choice(INBOUND_TYPES)
        m: Dict[str, Any] = {"type": t}
        if t == "hello":
            m.update(protocol=self.maybe(lambda: r.choice((1, 1, 0, 2))), name=self.maybe(lambda: r.choice(HOSTILE_STRINGS)))
            if r.random() < 0.3:
                m["client"] = self.hostile()
        elif t == "ping":
            if r.random() < 0.8:
                m["t"] = self.number()
        elif t == "lobby_subscribe":
            if r.random() < 0.3:
                m["offset"] = self.maybe(lambda: r.randint(0, 200))
            if r.random() < 0.3:
                m["limit"] = self.maybe(lambda: r.randint(1, 100))
        elif t in ("quick_play", "create_table"):
            m.update(discipline=self.maybe(lambda: r.choice(DISCIPLINES)), config=self.config())
            if t == "create_table":
                for k, good in (("private", lambda: r.choice((True, False))), ("seat", lambda: r.choice((0, 1, None))),
                                ("computer", lambda: r.choice((None, 1, 5, 6))), ("creation_id", self.token)):
                    if r.random() < 0.4:
                        m[k] = self.maybe(good)
        elif t in ("join", "watch"):
            m["table"] = self.table_id()
            if r.random() < 0.5:
                m["seat" if t == "join" else "v"] = self.maybe(lambda: r.randint(0, 10))
        elif t == "leave":
            m["table"] = self.table_id()
            if r.random() < 0.5:
                m["token"] = self.maybe(self.token)
        elif t == "resume":
            m.update(table=self.table_id(), token=self.maybe(self.token))
            if r.random() < 0.6:
                m["v"] = self.maybe(lambda: r.choice((0, 1, 3, 5, 100, 2**53)))
        elif t == "shot":
            m.update(table=self.table_id(), token=self.maybe(self.token), seq=self.maybe(lambda: r.randint(0, 50)),
                     stroke=self.stroke())
            if r.random() < 0.4:
                m["call"] = self.maybe(lambda: r.choice(({"safety": True}, {"ball": r.randint(1, 15), "pocket": "HR"})))
            if r.random() < 0.3:
                m["cue_ball"] = self.maybe(lambda: [r.uniform(0, 4), r.uniform(0, 4)])
        elif t == "decision":
            m.update(table=self.table_id(), token=self.maybe(self.token), seq=self.maybe(lambda: r.randint(0, 50)),
                     name=self.maybe(lambda: r.choice(("ACCEPT", "REBREAK", "STARTING_SPOT", "x"))))
            if r.random() < 0.5:
                m["arg"] = self.hostile()
        elif t in SEAT_TYPES:
            m.update(table=self.table_id(), token=self.maybe(self.token))
        elif t == "chat":
            m.update(table=self.table_id(chat=True), text=self.maybe(lambda: r.choice(HOSTILE_STRINGS)))
        k = r.random()
        if k < 0.08:  # an unknown field
            m[r.choice(("extra", "Type", "seq", "__proto__", ""))] = self.hostile()
        elif k < 0.14 and len(m) > 1:  # a missing field
            m.pop(r.choice([f for f in m if f != "type"]))
        elif k < 0.2:  # an unknown or malformed type
            m["type"] = r.choice(("", "hello ", "HELLO", "shoot", "lobby", "error", None, 1, ["shot"], b"shot"))
        elif k < 0.23:
            del m["type"]
        return m

    def aimed(self) -> Dict[str, Any]:
        """A well-formed seat action or join aimed at a live table, with a guessed token."""
        r = self.rng
        tid = r.choice(self.targets.live) if self.targets.live else "nosuch"
        t = r.choice(("join", "watch", "resume", "shot", "decision", "resign", "claim", "leave", "rematch_offer"))
        m: Dict[str, Any] = {"type": t, "table": tid}
        if t in ("resume", "shot", "decision", "resign", "claim", "rematch_offer") or (t == "leave" and r.random() < 0.5):
            m["token"] = self.token()
        if t in ("shot", "decision"):
            m["seq"] = r.randint(0, 12)
        if t == "shot":
            m["stroke"] = {"phi_deg": r.uniform(-360, 360), "V0": r.uniform(0.1, 9), "a": 0.0, "b": 0.0, "theta_deg": 0.0}
        if t == "decision":
            m["name"] = "STARTING_SPOT"
            m["arg"] = r.choice(("left", "right"))
        if t == "watch" and r.random() < 0.5:
            m["v"] = r.choice((0, 2, 4, 5, 6, 1000))
        return m

    def encode(self, m: Any) -> bytes:
        try:
            return msgpack.packb(m, use_bin_type=self.rng.random() < 0.9)
        except (OverflowError, ValueError, TypeError):
            return msgpack.packb({"type": "ping"})

    def mutate(self, data: bytes) -> bytes:
        r = self.rng
        b = bytearray(data)
        for _ in range(r.randint(1, 4)):
            op = r.random()
            if op < 0.4 and b:
                b[r.randrange(len(b))] = r.getrandbits(8)
            elif op < 0.6:
                b.insert(r.randint(0, len(b)), r.getrandbits(8))
            elif op < 0.8 and b:
                del b[r.randrange(len(b))]
            elif b:
                i = r.randrange(len(b))
                b[i:i] = b[i:i + r.randint(1, 16)] * r.randint(1, 3)
        return bytes(b)

    def broken_msgpack(self) -> bytes:
        r = self.rng
        k = r.randrange(8)
        valid = self.encode(self.message())
        if k == 0:
            return bytes(r.getrandbits(8) for _ in range(r.randint(0, 64)))
        if k == 1:
            return valid[:r.randint(0, max(0, len(valid) - 1))]
        if k == 2:
            return valid + bytes(r.getrandbits(8) for _ in range(r.randint(1, 8)))
        if k == 3:
            return msgpack.packb({"type": "ping", "t": msgpack.ExtType(r.randint(0, 127), b"\x00" * r.randint(0, 9))})
        if k == 4:  # map keys that are not strings
            return msgpack.packb(r.choice(({1: "shot", None: 2}, {b"type": "hello"}, {"type": "ping", 3.5: 1},
                                           {(1, 2): "x"})), use_bin_type=True)
        if k == 5:  # a str header with invalid UTF-8 inside
            bad = bytes([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80])
            return b"\x82\xa4type\xa4chat\xa4text" + bytes([0xa0 | len(bad)]) + bad
        if k == 6:  # deep nesting: arrays or maps, a few hundred to thousands deep
            depth = r.choice((33, 100, 512, 2000, 6000))
            return (b"\x91" if r.random() < 0.5 else b"\x81\xa1k") * depth + b"\xc0"
        return b"\xdf\xff\xff\xff\xff"  # a map header claiming 2^32-1 entries

    def frame(self) -> Tuple[str, Any]:
        r = self.rng
        k = r.random()
        if k < 0.35:
            return "binary", self.encode(self.message())
        if k < 0.55:
            return "binary", self.encode(self.aimed())
        if k < 0.7:
            return "binary", self.mutate(self.encode(r.choice((self.message, self.aimed))()))
        if k < 0.85:
            return "binary", self.broken_msgpack()
        if k < 0.93:
            return "text", r.choice(('{"type":"hello","protocol":1}', "", "hello", "\x00", "{" * 100, "é" * 50))
        if k < 0.935:  # over the frame limit (the server closes with 1009)
            return "binary", self.encode({"type": "chat", "table": "t", "text": "x" * r.randint(8200, 20000)})
        return "binary", b""


# ----- raw sockets -------------------------------------------------------------------------------
def client_frame(opcode: int, payload: bytes, fin: bool = True, masked: bool = True) -> bytes:
    """One client frame (RFC 6455 section 5.2); ``masked=False`` breaks the protocol on purpose."""
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    mbit = 0x80 if masked else 0
    if n < 126:
        head += bytes([mbit | n])
    elif n < 65536:
        head += bytes([mbit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([mbit | 127]) + struct.pack("!Q", n)
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


HANDSHAKE = (b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def raw_abuse(port: int, rng: random.Random, held: List[socket.socket]) -> int:
    """One raw-socket abuse (blocking; run in a thread). Returns the frames it counts for."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    kind = rng.choice((0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 6, 7, 7))  # 0: 2,000 frames at once, rarer
    try:
        if kind == 6:  # handshake garbage, or a request cut in the middle and left hanging
            if rng.random() < 0.5:
                s.sendall(rng.choice((b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n", b"\x16\x03\x01\x02\x00",
                                      b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n", b"\r\n" * 50, b"POST /ws HTTP/1.0\r\n\r\n")))
                s.settimeout(2)
                try:
                    s.recv(4096)
                except OSError:
                    pass
            else:
                s.sendall(HANDSHAKE[:rng.randint(5, len(HANDSHAKE) - 5)])
                held.append(s)
                s = None
            return 1
        s.sendall(HANDSHAKE)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                return 1
            data += chunk
        hello = msgpack.packb({"type": "hello", "protocol": 1, "name": "raw"})
        if kind == 0:  # 2,000 pings in one write, then a reset
            s.sendall(b"".join(client_frame(0x9, b"p%d" % i) for i in range(2000)))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return 2000
        if kind == 1:  # half a frame, left hanging
            f = client_frame(0x2, hello)
            s.sendall(f[:rng.randint(1, len(f) - 1)])
            held.append(s)
            s = None
            return 1
        if kind == 2:  # an unmasked client frame (protocol violation)
            s.sendall(client_frame(0x2, hello, masked=False))
        elif kind == 3:  # a frame claiming 2^63 - 1 bytes
            s.sendall(bytes([0x82, 0xff]) + struct.pack("!Q", 2**63 - 1) + os.urandom(4) + b"xx")
        elif kind == 4:  # a fragmented message with control frames between its fragments
            s.sendall(client_frame(0x2, hello[:3], fin=False) + client_frame(0x9, b"x") + client_frame(0x0, hello[3:6], fin=False)
                      + client_frame(0xA, b"") + client_frame(0x0, hello[6:]))
            s.sendall(client_frame(0x1, b"\xff\xfe"))  # a text frame with invalid UTF-8
        elif kind == 5:  # a close frame with a reserved code, then more frames
            s.sendall(client_frame(0x8, struct.pack("!H", rng.choice((0, 999, 1005, 1006, 2999, 5000))) + b"bye")
                      + client_frame(0x2, hello))
        else:  # reserved opcodes and bits
            s.sendall(bytes([0x80 | rng.choice((0x3, 0x7, 0xB, 0xF)), 0x80]) + os.urandom(4)
                      + bytes([0xF2, 0x80]) + os.urandom(4))
        s.settimeout(1)
        try:
            while s.recv(65536):
                pass
        except OSError:
            pass
        return 1
    finally:
        if s is not None:
            s.close()


# ----- the driver --------------------------------------------------------------------------------
@dataclass
class Report:
    """What a run did: frames sent, connections opened, close codes and error codes the server answered."""

    seed: int
    frames: int = 0
    connections: int = 0
    closes: Dict[Any, int] = field(default_factory=dict)
    errors: Dict[str, int] = field(default_factory=dict)
    open_failures: int = 0

    def count_close(self, code: Any) -> None:
        self.closes[code] = self.closes.get(code, 0) + 1

    def summary(self) -> str:
        top = sorted(self.errors.items(), key=lambda kv: -kv[1])[:12]
        return (f"fuzz seed {self.seed}: {self.frames} frames over {self.connections} connections "
                f"({self.open_failures} refused); closes {dict(sorted(self.closes.items(), key=str))}; errors {dict(top)}")


async def _drain(ws, report: Report, targets: Targets) -> None:
    try:
        async for data in ws:
            if isinstance(data, str):
                report.errors["<text reply>"] = report.errors.get("<text reply>", 0) + 1
                continue
            msg = protocol.decode_server(data)
            t = msg["type"]
            if t == "error":
                report.errors[msg["code"]] = report.errors.get(msg["code"], 0) + 1
            elif t == "table_snapshot" and msg["table"] not in targets.live and msg["table"] not in targets.own:
                targets.own.append(msg["table"])
                del targets.own[:-50]
    except ConnectionClosed:
        pass


async def _ws_session(port: int, rng: random.Random, targets: Targets, report: Report, budget: int, mode: str,
                      slow: List[Any]) -> int:
    """One WebSocket connection of ``mode`` (paced, flood, slow); returns the frames sent."""
    kw = dict(compression=None, max_size=None, open_timeout=10, ping_interval=None, close_timeout=2)
    try:
        ws = await connect(f"ws://127.0.0.1:{port}/ws", **kw)
    except (OSError, WebSocketException, asyncio.TimeoutError):
        report.open_failures += 1
        await asyncio.sleep(0.2)
        return 0
    report.connections += 1
    maker = FrameMaker(rng, targets)
    sent = 0
    if mode == "slow":  # reads nothing: its replies pile up until backpressure closes it (or the run ends)
        for m in ({"type": "hello", "protocol": 1, "name": "slow"}, {"type": "lobby_subscribe"}):
            await ws.send(msgpack.packb(m))
        for tid in targets.live + targets.own[:3]:
            await ws.send(msgpack.packb({"type": "watch", "table": tid}))
            sent += 1
        slow.append(ws)
        return sent + 2
    drain = asyncio.ensure_future(_drain(ws, report, targets))
    try:
        if rng.random() < 0.85:
            await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "name": rng.choice(("fz", "ann", "bob", "Zoë"))}))
            sent += 1
        n = min(budget, rng.randint(5, 60) if mode == "paced" else rng.randint(60, 300))
        for _ in range(n):
            kind, payload = maker.frame()
            await ws.send(payload if kind == "binary" else str(payload))
            sent += 1
            if mode == "paced":
                await asyncio.sleep(rng.uniform(0.02, 0.07))
        if mode == "paced":
            await asyncio.sleep(0.1)
        if rng.random() < 0.2:  # leave abruptly: a reset
            sock = ws.transport.get_extra_info("socket")
            if sock is not None:
                try:
                    socket.socket(fileno=os.dup(sock.fileno())).setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                except OSError:
                    pass
            ws.transport.abort()
        else:
            await ws.close()
    except ConnectionClosed:
        pass
    finally:
        await asyncio.wait([drain], timeout=3)
        drain.cancel()
        code = ws.close_code if ws.close_code is not None else "none"
        report.count_close(code)
    return sent


async def run(port: int, seed: int, frames: int, targets: Targets, workers: int = 10,
              progress: Optional[Callable[[Report], None]] = None) -> Report:
    """Send ``frames`` hostile frames to the server on ``port`` from ``workers`` concurrent connections.

    Slow readers and half-open sockets are held until the end, then closed. Returns a :class:`Report`."""
    report = Report(seed)
    slow: List[Any] = []
    held: List[socket.socket] = []
    left = [frames]

    async def worker(w: int) -> None:
        k = 0
        while left[0] > 0:
            rng = random.Random(f"{seed}:{w}:{k}")
            k += 1
            pick = rng.random()
            if pick < 0.62:
                mode = "paced"
            elif pick < 0.8:
                mode = "flood"
            elif pick < 0.94:
                mode = "raw"
            elif pick < 0.97 and len(slow) < 8:
                mode = "slow"
            elif len(held) < 16:
                mode = "half-open"
            else:
                mode = "paced"
            if mode in ("raw", "half-open"):
                try:
                    n = await asyncio.to_thread(raw_abuse, port, rng, held) if mode == "raw" else \
                        await asyncio.to_thread(_half_open, port, rng, held)
                except OSError:
                    report.open_failures += 1
                    n = 1
            else:
                n = await _ws_session(port, rng, targets, report, left[0], mode, slow)
            left[0] -= n
            report.frames += n
            if progress is not None:
                progress(report)

    try:
        await asyncio.gather(*(worker(w) for w in range(workers)))
    finally:
        for ws in slow:
            try:
                ws.transport.abort()
            except Exception:
                pass
        for s in held:
            try:
                s.close()
            except OSError:
                pass
    return report


def _half_open(port: int, rng: random.Random, held: List[socket.socket]) -> int:
    """A TCP connection with part of an HTTP request (or nothing at all), left open until the end of the run."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if rng.random() < 0.7:
        s.sendall(HANDSHAKE[:rng.randint(1, 40)])
    held.append(s)
    return 1


def seed_from_env(default: Optional[int] = None) -> int:
    """``BILLAR_FUZZ_SEED`` when set, else ``default``, else a fresh random seed (printed by the caller)."""
    v = os.environ.get("BILLAR_FUZZ_SEED")
    if v:
        return int(v)
    return default if default is not None else random.SystemRandom().randrange(2**31)


__all__ = ["FrameMaker", "Report", "Targets", "run", "seed_from_env", "client_frame", "raw_abuse"]
