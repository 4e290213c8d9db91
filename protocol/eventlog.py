"""The event log of a stroke as compact msgpack arrays of float64 (exact: clients replay it bit for bit).

Wire shape (every number that is a float is packed as msgpack float64, never float32)::

    {"table": preset name,
     "initial": [id, x, y,  id, x, y, ...],                    # balls at rest before the strike, m
     "events": [[t, kind, balls, where, states], ...],          # time order
     "final": [id, state, x, y,  ...],                          # every ball after the stroke
     "capped": bool,                                            # the physics hit its event cap
     "flags": [name, ...]}                                      # only when the stroke has flags

    t       float, s since the strike
    kind    int, index into EVENT_KINDS
    balls   [id, ...] the balls involved (ball_ball: both, the mover first)
    where   cushion id (ball_cushion: straight cushion or jaw), pocket id (ball_pocket) or nil;
            the ids are those of the table preset (Table.to_json: cushions, jaws, pockets)
    states  [id, state, x, y, vx, vy, wx, wy, wz,  ...] the post-event motion state of every
            ball the event changed (state: index into STATE_NAMES; m, m/s, rad/s)
    flags   the stroke flags of the cue's follow-through (``SimResult.flags``: "double_hit",
            "push"); the key is absent for a clean stroke

Between two events a ball moves by the closed-form motion of ``physics.evolve`` from its last
state, so the log replays the stroke exactly. :func:`decode_log` gives back the JSON shape of
``physics.events.SimResult.to_json()``, which ``SimResult.from_json`` reads.

This module knows the shapes, not the physics package (protocol imports only stdlib and
msgpack): ``encode_log`` reads any object with the attributes of a ``SimResult``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Tuple

EVENT_KINDS: Tuple[str, ...] = (
    "strike",
    "ball_ball",
    "ball_cushion",
    "ball_pocket",
    "slide_to_roll",
    "slide_to_spin",
    "slide_to_rest",
    "roll_to_spin",
    "roll_to_rest",
    "spin_to_rest",
    "event_cap",
    "off_table",
)
EVENT_KIND_CODES: Dict[str, int] = {k: i for i, k in enumerate(EVENT_KINDS)}

STATE_NAMES: Tuple[str, ...] = ("stationary", "spinning", "sliding", "rolling", "pocketed")
STATE_CODES: Dict[str, int] = {k: i for i, k in enumerate(STATE_NAMES)}

STATE_WIDTH = 9  # numbers per ball state in ``states``


def preset_ids(table_json: Mapping[str, Any]) -> Tuple[Dict[str, int], Dict[str, int]]:
    """(cushion name -> id, pocket name -> id) from a preset's ``Table.to_json()`` map (cushions and jaws share ids)."""
    cushions = {c["name"]: int(c["id"]) for c in list(table_json.get("cushions", ())) + list(table_json.get("jaws", ()))}
    pockets = {p["name"]: int(p["id"]) for p in table_json.get("pockets", ())}
    return cushions, pockets


def encode_log(sim: Any, cushion_ids: Mapping[str, int], pocket_ids: Mapping[str, int]) -> Dict[str, Any]:
    """The wire map of a stroke's event log (see the module docstring).

    ``sim``: a ``physics.events.SimResult`` (``table.name``, ``initial``, ``events``, ``final``,
    ``capped``). ``cushion_ids`` / ``pocket_ids``: from :func:`preset_ids`. Raises ``KeyError``
    for a cushion, pocket, kind or state name the tables do not know (a contract break).
    """
    initial: List[Any] = []
    for b in sorted(sim.initial):
        r = sim.initial[b].r
        initial += (b, float(r[0]), float(r[1]))
    events: List[Any] = []
    for e in sim.events:
        if e.cushion is not None:
            where = cushion_ids[e.cushion]
        elif e.pocket is not None:
            where = pocket_ids[e.pocket]
        else:
            where = None
        states: List[Any] = []
        for b in sorted(e.states):
            s = e.states[b]
            states += (b, STATE_CODES[s.state], float(s.r[0]), float(s.r[1]), float(s.v[0]), float(s.v[1]),
                       float(s.w[0]), float(s.w[1]), float(s.w[2]))
        events.append([float(e.t), EVENT_KIND_CODES[e.kind], list(e.balls), where, states])
    final: List[Any] = []
    for b in sorted(sim.final):
        s = sim.final[b]
        final += (b, STATE_CODES[s.state], float(s.r[0]), float(s.r[1]))
    out = {"table": sim.table.name, "initial": initial, "events": events, "final": final, "capped": bool(sim.capped)}
    if getattr(sim, "flags", ()):
        out["flags"] = [str(f) for f in sim.flags]
    return out


def decode_log(log: Mapping[str, Any], cushion_names: Mapping[int, str], pocket_names: Mapping[int, str]) -> Dict[str, Any]:
    """The ``SimResult.to_json()`` shape of a wire log (names from the preset's id maps, inverted).

    Raises ``ValueError`` on a malformed log (wrong lengths, unknown codes or ids).
    """
    try:
        ini = log["initial"]
        if len(ini) % 3:
            raise ValueError("initial: length must be a multiple of 3")
        initial = {str(int(ini[i])): [ini[i + 1], ini[i + 2]] for i in range(0, len(ini), 3)}
        events = []
        for ev in log["events"]:
            t, kind_code, balls, where, st = ev
            kind = EVENT_KINDS[kind_code]
            if len(st) % STATE_WIDTH:
                raise ValueError("events: state length must be a multiple of 9")
            states = {}
            for i in range(0, len(st), STATE_WIDTH):
                states[str(int(st[i]))] = {
                    "state": STATE_NAMES[st[i + 1]],
                    "r": [st[i + 2], st[i + 3]],
                    "v": [st[i + 4], st[i + 5]],
                    "w": [st[i + 6], st[i + 7], st[i + 8]],
                }
            events.append(
                {
                    "t": t,
                    "kind": kind,
                    "balls": list(balls),
                    "cushion": cushion_names[where] if kind == "ball_cushion" else None,
                    "pocket": pocket_names[where] if kind == "ball_pocket" else None,
                    "states": states,
                }
            )
        fin = log["final"]
        if len(fin) % 4:
            raise ValueError("final: length must be a multiple of 4")
        final = {str(int(fin[i])): {"r": [fin[i + 2], fin[i + 3]], "state": STATE_NAMES[fin[i + 1]]} for i in range(0, len(fin), 4)}
        out = {"table": log["table"], "initial": initial, "events": events, "final": final,
               "capped": bool(log.get("capped", False))}
        flags = log.get("flags")
        if flags:
            if not isinstance(flags, (list, tuple)) or not all(isinstance(f, str) for f in flags):
                raise ValueError("flags: must be a list of stroke flag names")
            out["flags"] = list(flags)
        return out
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"log: malformed event log ({exc!r})") from exc
