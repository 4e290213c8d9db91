"""Match records: the stored strokes of a game turned into the record format of ``rules/replay.py``.

Stored per action (msgpack, ``P record:<table>:<game>`` hash, index -> entry): a stroke
``{"player", "seq", "call", "cue_ball_position", "stroke", "log", "ts"}`` (``log`` is the wire event
log of :mod:`protocol.eventlog`), a lag ``{"lag": true, "strokes", "log"}``, a decision
``{"player", "seq", "decision": {"name", "arg"}}``, a time-out ``{"player", "timeout": true}`` or a
forfeit ``{"player", "forfeit": reason}``; each also keeps ``ruling`` (the ruling given) and ``ts``.

Exported (``GET /records/<table>.json``; ``seed`` is null while the game can still go on)::

    {"discipline", "config", "seed", "table", "game", "players", "result", "preset",
     "strokes": [{"player", "call", "cue_ball_position", "decision", "sim": SimResult.to_json()}, ...]}

with lags, time-outs and forfeits as entries carrying ``"lag": true`` (and ``sim``),
``"timeout": true`` or ``"forfeit": reason``. A carom record with restricted zones (balkline,
straight rail) also has ``"zones"``: the zone shapes at the start (rules/zones.py
``ZoneSet.to_json``), and a stroke whose zones differ from those (the later disciplines of a
pentathlon or triathlon) carries its own ``"zones"``, so that a replay draws the chalk lines.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any, Dict, List, Mapping, Optional, Tuple

import protocol
from physics.table import get_table
from rules.multi import MultiGame
from rules.registry import new_game
from rules.replay import apply_entry
from server.store import RedisUnavailable

log = logging.getLogger("billar.records")


@lru_cache(maxsize=None)
def _names(table_name: str) -> Tuple[Dict[int, str], Dict[int, str]]:
    cushions, pockets = protocol.preset_ids(get_table(table_name).to_json())
    return {v: k for k, v in cushions.items()}, {v: k for k, v in pockets.items()}


def sim_json(log: Mapping[str, Any]) -> Dict[str, Any]:
    """The ``SimResult.to_json()`` map of a stored wire log (exact floats)."""
    return protocol.decode_log(log, *_names(log["table"]))


def export(meta: Mapping[str, Any], entries: List[Mapping[str, Any]]) -> Dict[str, Any]:
    strokes = []
    for e in entries:
        out: Dict[str, Any] = {
            "player": e.get("player"),
            "call": e.get("call"),
            "cue_ball_position": e.get("cue_ball_position"),
            "decision": e.get("decision"),
        }
        if "stroke" in e:
            out["stroke"] = e["stroke"]
        if e.get("lag"):
            out["lag"] = True
            out["strokes"] = e.get("strokes")
        if e.get("timeout"):
            out["timeout"] = True
        if e.get("forfeit"):
            out["forfeit"] = e["forfeit"]
        if e.get("practice"):  # a practice table's stroke: positions placed between strokes are not in the record
            out["practice"] = True
        if "log" in e:
            out["sim"] = sim_json(e["log"])
        if "ruling" in e:
            out["ruling"] = e["ruling"]  # the ruling given at the time: the replay reports any difference
        strokes.append(out)
    preset = next((get_table(e["log"]["table"]).to_json() for e in entries if "log" in e), None)
    rec = {
        "preset": preset,  # the table geometry (Table.to_json()) for clients that draw the replay
        "discipline": meta["discipline"],
        "config": meta["config"],
        "seed": meta["seed"],  # withheld below while the game can still go on
        "table": meta["table"],
        "game": meta["game"],
        "players": meta.get("players"),
        "result": meta.get("result"),
        "strokes": strokes,
    }
    _add_zones(rec)
    if not (meta.get("over") or meta.get("closed")):  # the seed would tell what is still to come (racks, spots)
        rec["seed"] = None
    return rec


async def fetch(store: Any, table: str, game: Optional[int]) -> Tuple[int, Any]:
    """(HTTP status, JSON body) of the record of game ``game`` (None: the latest) at ``table``; the latest game is
    found by key (``P record:<id>:last``), never by scanning. Errors have the API's shape, ``{"error": {"code",
    "message"}}``: 404 ``no_record``, 503 ``unavailable``."""
    try:
        if game is None:
            game = await store.last_game(table)
        rec = None if game is None else await store.record(table, game)
    except RedisUnavailable:
        return 503, {"error": {"code": "unavailable", "message": "storage unreachable"}}
    if rec is None:
        return 404, {"error": {"code": "no_record",
                               "message": f"no record for table {table!r}" + (f" game {game}" if game else "")}}
    meta, entries = rec
    return 200, export(meta, entries)


def _add_zones(rec: Dict[str, Any]) -> None:
    """Put the carom zone shapes on ``rec`` (see the module docstring); nothing for games without zones.

    A match whose discipline changes (pentathlon, triathlon) is walked through its referee to
    know each stroke's zones; a record the referee cannot follow keeps the zones it has so far.
    """
    game = new_game(rec["discipline"], rec["config"] or {}, seed=rec["seed"])
    if not hasattr(game, "table_zones"):
        return
    first = game.table_zones()
    if first:
        rec["zones"] = first
    if not isinstance(game, MultiGame):  # one discipline: the zones never change
        return
    try:
        for entry in rec["strokes"]:
            zones = game.table_zones()
            if zones != first:
                entry["zones"] = zones
            apply_entry(game, entry)
    except Exception:  # a stored record the referee no longer follows: export it as it is
        log.warning("record zones: the referee could not follow the record", extra={"table": rec["table"]},
                    exc_info=True)
