"""The closed set of server -> client messages: one builder per type, each returning the wire map.

Messages that change what everybody at a table sees (``table_snapshot`` when broadcast at a
rematch, ``stroke``, ``ruling``, ``seats``, ``chat``, ``rematch``) carry the table's version ``v``
(consecutive integers per table) and the server timestamp ``ts`` (Unix time, s). They form the
table's *stream*: encoded once, sent as the same bytes to players and spectators, kept in a
short history for gap replay, and publishable through Redis as they are.

Private replies (``welcome``, ``error``, ``pong``, ``seated``, ``left``, ``quick_play_waiting``, ``tournament_game``)
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
        "renamed",
        "aim",
        "game_rated",
        "position",
        "preview",
        "tournament_game",
    }
)

STREAM_TYPES = frozenset({"table_snapshot", "stroke", "ruling", "seats", "chat", "rematch", "position"})
"""Types that carry ``v`` and belong to a table's versioned stream."""


def welcome(protocol: int, session: str, player: str, name: str, ts: float, limits: Mapping[str, Any],
            account: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """The answer to ``hello``; ``account``: ``{"id", "name"}`` of the logged-in player (session cookie), or None."""
    return {"type": "welcome", "protocol": protocol, "session": session, "player": player, "name": name, "ts": ts,
            "limits": dict(limits), "account": dict(account) if account else None}


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


def lobby(tables: Sequence[Mapping[str, Any]], online: int, total: Optional[int] = None) -> Dict[str, Any]:
    """A page of the lobby: ``tables`` (the page asked for, oldest first) of ``total`` public tables."""
    return {"type": "lobby", "tables": list(tables), "online": online, "total": len(tables) if total is None else total}


def lobby_update(entry: Mapping[str, Any]) -> Dict[str, Any]:
    return {"type": "lobby_update", "table": dict(entry)}


def lobby_remove(table: str) -> Dict[str, Any]:
    return {"type": "lobby_remove", "table": table}


def tournament_game(tournament: int, pairing: str, table: str, seat: int, opponent: Optional[str]) -> Dict[str, Any]:
    """Private: your game of tournament ``tournament`` (pairing ``pairing``) is at ``table``, your seat ``seat``
    (kept for you: ``join`` it), against ``opponent`` (the account's name). Sent again every few seconds
    while your seat is empty (server/tournaments/director.py)."""
    return {"type": "tournament_game", "tournament": tournament, "pairing": pairing, "table": table, "seat": seat,
            "opponent": opponent}


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
                   rematch: Sequence[bool], history: Sequence[Mapping[str, Any]] = (), rated: bool = False,
                   rated_result: Optional[Sequence[Mapping[str, Any]]] = None,
                   practice: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """The whole table; ``history``: one :func:`history_entry` per stroke or ruling of the current game, oldest
    first; ``rated``: the table's games count for ratings; ``rated_result``: the last game's :func:`game_rated`
    ``ratings`` once known; ``practice``: a practice table's :func:`practice_view` (an added field: present only
    at practice tables)."""
    out = {"type": "table_snapshot", "table": table, "v": v, "ts": ts, "game": game, "discipline": discipline,
            "config": dict(config), "preset": dict(preset), "private": private, "seats": list(seats),
            "spectators": spectators, "state": dict(state), "clock": clock, "chat": list(chat), "rematch": list(rematch),
            "history": list(history), "rated": rated,
            "rated_result": [dict(r) for r in rated_result] if rated_result is not None else None}
    if practice is not None:
        out["practice"] = dict(practice)
    return out


def practice_view(kind: str, drill: Optional[Mapping[str, Any]], start: Optional[str], code: Optional[str],
                  coach: bool, undo: int, redo: int) -> Dict[str, Any]:
    """What a practice table is: ``kind`` (``drill``, ``position`` or ``opening``), the ``drill`` (the API's drill
    entry, or null), the ``start`` position's code (null at the opening), the ``code`` of the position now (null
    when it has no code: balls closer than the code's grid keeps apart, a ball in a pocket's jaws), whether a ``coach``
    seat is offered, and how many changes can be undone and redone."""
    return {"kind": kind, "drill": dict(drill) if drill is not None else None, "start": start, "code": code,
            "coach": coach, "undo": undo, "redo": redo}


def position(table: str, v: int, ts: float, *, game: int, cause: str, seat: Optional[int], seq: Optional[int],
             state: Mapping[str, Any], practice: Mapping[str, Any]) -> Dict[str, Any]:
    """A practice table's position changed without a stroke: ``cause`` is ``place``, ``undo``, ``redo`` or
    ``reset``; ``state`` the new position (as in ``stroke``), ``practice`` the new :func:`practice_view`."""
    return {"type": "position", "table": table, "v": v, "ts": ts, "game": game, "cause": cause, "seat": seat,
            "seq": seq, "state": dict(state), "practice": dict(practice)}


def preview(table: str, v: int, log: Mapping[str, Any], ruling: Mapping[str, Any]) -> Dict[str, Any]:
    """Private: the stroke a ``preview`` asked for, simulated from the position of version ``v`` and not played:
    its event ``log`` (section 6 of docs/protocol.md) and the ``ruling`` it would get."""
    return {"type": "preview", "table": table, "v": v, "log": dict(log), "ruling": dict(ruling)}


def history_entry(i: int, v: int, kind: str, seat: Optional[int], call: Optional[Mapping[str, Any]],
                  decision: Optional[Mapping[str, Any]], ruling: Mapping[str, Any],
                  diamonds: Optional[Sequence[Mapping[str, Any]]] = None) -> Dict[str, Any]:
    """One stroke or ruling of a game, as the snapshot's ``history`` lists it: ``i`` (its index in the game's
    record: ``/records/<table>/<game>.json`` has its event log), ``v`` (the stream version it had), ``kind``
    (``stroke``, ``lag``, ``decision``, ``timeout``, ``forfeit``), who (``seat``), the ``call`` or the
    ``decision``, and the ``ruling``; for a carom stroke also ``diamonds``, the cue ball's cushion contacts in
    diamond units ([{``n``, ``cushion``, ``rail``, ``diamond``}], rules/carom/diamonds.py; an added field:
    absent from other entries and from servers before it)."""
    out = {"i": i, "v": v, "kind": kind, "seat": seat, "call": call, "decision": decision, "ruling": dict(ruling)}
    if diamonds is not None:
        out["diamonds"] = [dict(d) for d in diamonds]
    return out


def renamed(name: str) -> Dict[str, Any]:
    """This connection's display name is now ``name`` (the answer to ``rename``)."""
    return {"type": "renamed", "name": name}


def aim(table: str, seat: int, phi_deg: float, a: float, b: float, theta_deg: float, V0: float,
        cue_ball: Optional[Sequence[float]]) -> Dict[str, Any]:
    """Where the player to act at ``seat`` aims now (unversioned; relayed to everyone else at the table)."""
    return {"type": "aim", "table": table, "seat": seat, "phi_deg": phi_deg, "a": a, "b": b, "theta_deg": theta_deg,
            "V0": V0, "cue_ball": list(cue_ball) if cue_ball is not None else None}


def stroke(table: str, v: int, ts: float, *, game: int, shots: Sequence[Mapping[str, Any]], log: Mapping[str, Any],
           ruling: Mapping[str, Any], state: Mapping[str, Any], clock: Optional[Mapping[str, Any]],
           practice: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """The ONE broadcast of a stroke: the shot(s) played (two for a lag), the event log, the ruling, the new position;
    at a practice table also the new :func:`practice_view` (an added field, absent elsewhere)."""
    out = {"type": "stroke", "table": table, "v": v, "ts": ts, "game": game, "shots": list(shots), "log": dict(log),
           "ruling": dict(ruling), "state": dict(state), "clock": clock}
    if practice is not None:
        out["practice"] = dict(practice)
    return out


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


def seat_entry(seat: int, player: str, name: str, connected: bool, grace_until: Optional[float],
               rating: Optional[int] = None, provisional: Optional[bool] = None) -> Dict[str, Any]:
    """A seat: ``rating`` is the player's rating in the table's discipline when seated (None: a guest),
    ``provisional`` whether that rating is provisional (RD at least 110: shown "1500?"; None with no rating)."""
    return {"seat": seat, "player": player, "name": name, "connected": connected, "grace_until": grace_until,
            "rating": rating, "provisional": provisional}


def lobby_entry(table: str, discipline: str, seats: List[Optional[str]], scores: Sequence[Any], status: str,
                spectators: int, v: int, ts: float, rated: bool = False,
                ratings: Sequence[Optional[int]] = (None, None), run: int = 0, game: int = 1,
                practice: bool = False, provisional: Sequence[Optional[bool]] = (None, None)) -> Dict[str, Any]:
    """A lobby line: ``status`` is ``waiting`` (a free seat), ``playing``, ``paused`` or ``over``; ``rated`` and the
    seated players' ``ratings`` and whether each is ``provisional`` (shown "1500?"; null with no rating); ``run``: the current run of the player at the table (0 between innings);
    ``game``: the table's game number (1, then +1 per rematch); ``practice``: true at a practice table (an added
    field, absent elsewhere)."""
    out = {"table": table, "discipline": discipline, "seats": list(seats), "scores": list(scores), "status": status,
           "spectators": spectators, "v": v, "ts": ts, "rated": rated, "ratings": list(ratings), "run": run,
           "game": game, "provisional": list(provisional)}
    if practice:
        out["practice"] = True
    return out


def game_rated(table: str, game: int, ratings: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
    """A rated game's rating changes, once the database has them (unversioned): ``ratings`` one
    ``{"seat", "name", "before", "after", "rd_after", "provisional"}`` per seat (ratings
    rounded; provisional: ``rd_after`` at least 110, shown "1500?")."""
    return {"type": "game_rated", "table": table, "game": game, "ratings": [dict(r) for r in ratings]}
