"""The envelopes nodes send each other on ``P node:<node>`` and ``P cluster``: a msgpack list of maps, ``k`` = kind.

=========  ==========================================  ============================================
kind       fields                                       meaning
=========  ==========================================  ============================================
cmd        n node, s session, p player, m name,         a client message ``x`` (its wire map) for
           x message, t table, h hops, a auto,          table ``t``, from connection ``s`` of node
           c account (a logged-in player)
                                                        ``n``; ``a``: sent by the node itself (a
                                                        re-registration after a move), not the client
out        n owner node, s session, e entry             a private reply of table owner ``n`` to
                                                        connection ``s`` (entries below)
moved      s session, x message, t table, h hops        the node does not own ``t``: ask again
gone       n node, s session, t [tables]                connection ``s`` of ``n`` left those tables
resync     n node, s session, t table                   connection ``s`` needs a snapshot of ``t``
adopted    t table, n node                              ``n`` now owns ``t`` (on ``P cluster``)
released   t table                                      ``t``'s lease was released: adopt it
=========  ==========================================  ============================================

Entries of ``out`` (lists, first item the entry kind): ``["p", bytes]`` a private message;
``["seated", table, token, bytes]``; ``["snap", table, v, bytes]`` a snapshot at version v;
``["r", table, v, bytes]`` stream message v replayed to this connection; ``["pos", table, v, role]``
the connection has everything up to v; ``["left", table, bytes]``; ``["close", code, reason]``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import msgpack

Envelope = Dict[str, Any]


def pack(envelopes: List[Envelope]) -> bytes:
    return msgpack.packb(envelopes, use_bin_type=True)


def unpack(data: bytes) -> List[Envelope]:
    """The envelopes of one bus message. Raises ``ValueError`` (msgpack's errors) for a malformed one."""
    out = msgpack.unpackb(data, raw=False)
    if not isinstance(out, list):
        raise ValueError("not a list of envelopes")
    return out


def cmd(node: str, session: str, player: str, name: str, message: Dict[str, Any], table: str, hops: int,
        auto: bool = False, account: Optional[int] = None) -> Envelope:
    env = {"k": "cmd", "n": node, "s": session, "p": player, "m": name, "x": message, "t": table, "h": hops}
    if auto:
        env["a"] = True
    if account is not None:
        env["c"] = account
    return env


def out(node: str, session: str, entry: List[Any]) -> Envelope:
    return {"k": "out", "n": node, "s": session, "e": entry}


def moved(session: str, message: Dict[str, Any], table: str, hops: int, auto: bool = False) -> Envelope:
    env = {"k": "moved", "s": session, "x": message, "t": table, "h": hops}
    if auto:
        env["a"] = True
    return env


def gone(node: str, session: str, tables: List[str]) -> Envelope:
    return {"k": "gone", "n": node, "s": session, "t": list(tables)}


def resync(node: str, session: str, table: str) -> Envelope:
    return {"k": "resync", "n": node, "s": session, "t": table}


def adopted(table: str, node: str) -> Envelope:
    return {"k": "adopted", "t": table, "n": node}


def released(table: str) -> Envelope:
    return {"k": "released", "t": table}


def entry_private(data: bytes) -> List[Any]:
    return ["p", data]


def entry_seated(table: str, token: str, data: bytes) -> List[Any]:
    return ["seated", table, token, data]


def entry_snapshot(table: str, v: int, data: bytes) -> List[Any]:
    return ["snap", table, v, data]


def entry_stream(table: str, v: int, data: bytes) -> List[Any]:
    return ["r", table, v, data]


def entry_position(table: str, v: int, role: Optional[str]) -> List[Any]:
    return ["pos", table, v, role]


def entry_left(table: str, data: bytes) -> List[Any]:
    return ["left", table, data]


def entry_close(code: int, reason: str) -> List[Any]:
    return ["close", code, reason]
