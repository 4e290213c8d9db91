"""The closed set of server -> client messages: one builder per type, each returning the wire map.

Messages that change what everybody at a table sees (``table_snapshot`` when broadcast at a
rematch, ``stroke``, ``ruling``, ``seats``, ``chat``, ``rematch``) carry the table's version ``v``
(consecutive integers per table) and the server timestamp ``ts`` (Unix time, s). They form the
table's *stream*: encoded once, sent as the same bytes to players and spectators, kept in a
short history for gap replay, and publishable through Redis as they are.

Private replies (``welcome``, ``error``, ``pong``, ``seated``, ``left``, ``quick_play_waiting``)
and the unversioned ``spectators`` count are outside the stream. Field meanings and units are in
docs/protocol.md.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

OUTBOUND_TYPES = frozenset(
    {
        "welcome",
        "error",
        "pong",
        "lobby",
        "lobby_update",
        "lobby_remove",
        "quick_play_waiting",
        "seated",
        "left",
        "table_snapshot",
        "stroke",
        "ruling",
        "seats",
        "spectators",
        "chat",
        "rematch",
        "shutdown",
    }
)

STREAM_TYPES = frozenset({"table_snapshot", "stroke", "ruling", "seats", "chat", "rematch"})
"""Types that carry ``v`` and belong to a table's versioned stream."""


def welcome(protocol: int, session: str, player: str, name: str, ts: float, limits: Mapping[str, Any]) -> Dict[str, Any]:
    return {"type": "welcome", "protocol": protocol, "session": session, "player": player, "name": name, "ts": ts,
            "limits": dict(limits)}


def error(code: str, message: str, field: Optional[str] = None, ref: Optional[str] = None, *, table: Optional[str] = None,
          seq: Optional[int] = None, rule: Optional[str] = None, v: Optional[int] = None) -> Dict[str, Any]:
    """``rule``: the referee's IllegalAction code; ``v``: for a duplicate sequence, the version its first copy produced."""
    out: Dict[str, Any] = {"type": "error", "code": code, "message": message}
    for k, val in (("field", field), ("ref", ref), ("table", table), ("seq", seq), ("rule", rule), ("v", v)):
        if val is not None:
            out[k] = val
    return out


def pong(t: Optional[float], ts: float) -> Dict[str, Any]:
    return {"type": "pong", "t": t, "ts": ts}


def lobby(tables: Sequence[Mapping[str, Any]], online: int) -> Dict[str, Any]:
    return {"type": "lobby", "tables": list(tables), "online": online}


def lobby_update(entry: Mapping[str, Any]) -> Dict[str, Any]:
    return {"type": "lobby_update", "table": dict(entry)}


def lobby_remove(table: str) -> Dict[str, Any]:
    return {"type": "lobby_remove", "table": table}


def quick_play_waiting(discipline: str) -> Dict[str, Any]:
    return {"type": "quick_play_waiting", "discipline": discipline}


def seated(table: str, seat: int, token: str) -> Dict[str, Any]:
    """Private: the seat and its resume token (keep it secret; send it with every seat action)."""
    return {"type": "seated", "table": table, "seat": seat, "token": token}


def left(table: str) -> Dict[str, Any]:
    return {"type": "left", "table": table}


def game_state(phase: str, to_act: Optional[int], layout: Mapping[int, Sequence[float]], scoreboard: Mapping[str, Any],
               legal: Optional[Mapping[str, Any]], over: bool, result: Optional[Mapping[str, Any]],
               zones: Optional[Sequence[Mapping[str, Any]]] = None) -> Dict[str, Any]:
    """The position every stream message ends with: who acts next and what they may do.

    ``layout``: ball id (as a string key, like the ruling's maps) -> [x, y] m of every ball on the bed.
    ``zones``: the restricted zones of the carom game in progress (balkline, straight-rail corner
    zones: ``[{"name", "kind", "vertices": [[x, y], ...], "caroms"}]``, rules/zones.py), present
    only when the discipline has some, so clients draw its chalk lines.
    """
    out = {"phase": phase, "to_act": to_act, "layout": {str(k): [float(p[0]), float(p[1])] for k, p in layout.items()},
           "scoreboard": scoreboard, "legal": legal, "over": over, "result": result}
    if zones:
        out["zones"] = [dict(z) for z in zones]
    return out


def table_snapshot(table: str, v: int, ts: float, *, game: int, discipline: str, config: Mapping[str, Any],
                   preset: Mapping[str, Any], private: bool, seats: Sequence[Any], spectators: int,
                   state: Mapping[str, Any], clock: Optional[Mapping[str, Any]], chat: Sequence[Mapping[str, Any]],
                   rematch: Sequence[bool]) -> Dict[str, Any]:
    return {"type": "table_snapshot", "table": table, "v": v, "ts": ts, "game": game, "discipline": discipline,
            "config": dict(config), "preset": dict(preset), "private": private, "seats": list(seats),
            "spectators": spectators, "state": dict(state), "clock": clock, "chat": list(chat), "rematch": list(rematch)}


def stroke(table: str, v: int, ts: float, *, game: int, shots: Sequence[Mapping[str, Any]], log: Mapping[str, Any],
           ruling: Mapping[str, Any], state: Mapping[str, Any], clock: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """The ONE broadcast of a stroke: the shot(s) played (two for a lag), the event log, the ruling, the new position."""
    return {"type": "stroke", "table": table, "v": v, "ts": ts, "game": game, "shots": list(shots), "log": dict(log),
            "ruling": dict(ruling), "state": dict(state), "clock": clock}


def ruling(table: str, v: int, ts: float, *, game: int, cause: str, seat: Optional[int], seq: Optional[int],
           decision: Optional[Mapping[str, Any]], ruling: Mapping[str, Any], state: Mapping[str, Any],
           clock: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """A ruling without a stroke: ``cause`` is ``decision``, ``timeout``, ``resign``, ``claim`` or ``abandon``."""
    return {"type": "ruling", "table": table, "v": v, "ts": ts, "game": game, "cause": cause, "seat": seat, "seq": seq,
            "decision": decision, "ruling": dict(ruling), "state": dict(state), "clock": clock}


def seats(table: str, v: int, ts: float, seats: Sequence[Any], clock: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Who sits where and who is connected; ``clock`` is the shot clock as it stands after the
    change (a player to act who drops stops it, one who comes back resumes it), null without one."""
    return {"type": "seats", "table": table, "v": v, "ts": ts, "seats": list(seats),
            "clock": dict(clock) if clock is not None else None}


def spectators(table: str, count: int) -> Dict[str, Any]:
    return {"type": "spectators", "table": table, "count": count}


def chat(table: str, v: int, ts: float, *, seat: Optional[int], name: str, text: str) -> Dict[str, Any]:
    return {"type": "chat", "table": table, "v": v, "ts": ts, "seat": seat, "name": name, "text": text}


def rematch(table: str, v: int, ts: float, offers: Sequence[bool]) -> Dict[str, Any]:
    return {"type": "rematch", "table": table, "v": v, "ts": ts, "offers": list(offers)}


def shutdown(reason: str, retry_ms: int) -> Dict[str, Any]:
    return {"type": "shutdown", "reason": reason, "retry_ms": retry_ms}


def seat_entry(seat: int, player: str, name: str, connected: bool, grace_until: Optional[float]) -> Dict[str, Any]:
    return {"seat": seat, "player": player, "name": name, "connected": connected, "grace_until": grace_until}


def lobby_entry(table: str, discipline: str, seats: List[Optional[str]], scores: Sequence[Any], status: str,
                spectators: int, v: int, ts: float) -> Dict[str, Any]:
    """A lobby line: ``status`` is ``waiting`` (a free seat), ``playing`` or ``over``."""
    return {"table": table, "discipline": discipline, "seats": list(seats), "scores": list(scores), "status": status,
            "spectators": spectators, "v": v, "ts": ts}
