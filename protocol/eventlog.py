"""The event log of a stroke on the wire: msgpack arrays, exact (clients replay it bit for bit).

Two formats; the key ``"f"`` says which (absent: format 1). :func:`encode_log` writes format 2,
:func:`decode_log` reads both and gives back the JSON shape of ``physics.events.SimResult.to_json()``
with every float bit-identical to the sender's. docs/protocol.md section 6 is the full reference.

**Format 1**, the full log (stored records and table streams written before format 2 hold it)::

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

**Format 2**, the compact log: the same content without the numbers the receiver computes to the
same bits itself (:mod:`protocol.motion`)::

    {"f": 2, "table": preset name,
     "motion": [R, mu_s, mu_r, mu_sp, g, gap],      # constants of the reference motion (m, -, -, m, m/s^2, m)
     "initial": [id, x, y, ...],                    # as format 1
     "ev": [[kind, balls, t, where, states], ...],  # trailing elements may be left out
     "fin": [id, state, x, y, ...],                 # only balls whose final state is not their last one
     "capped": true,                                # only when capped
     "flags": [name, ...]}                          # only when there are flags

    balls   an id (one ball) or [id, ...]
    t       float s; an integer stands for that float (0: the strike); nil or left out: the
            transition time, t = t_last + transition_time(last) of the event's one ball
    where   as format 1 (nil or left out: none)
    states  [id, state, mask, value, ...] per changed ball, in the engine's order: field k of
            (x, y, vx, vy, wx, wy, wz) follows as the next value when bit k of ``mask`` is set and
            is the ball's reference value otherwise; a value that is an integer stands for that
            float (the encoder writes +0.0 as 0). Left out: every ball of ``balls`` changed to
            exactly its reference state.

The reference state of a ball at an event at time t is its last state (at rest at its initial
position at t = 0 before its first event) moved by :func:`protocol.motion.evolve` for
``t - t_last``; then, for a state transition, put in its next state
(:func:`protocol.motion.enter_next_state`); for a ball_pocket event, pocketed with no velocity
or spin; for a ball_ball event of two balls, both pushed apart to ``2 R + gap``
(:func:`protocol.motion.contact_positions`). A final entry absent from
``fin`` is the ball's last state (code and position). The encoder leaves a number out only when
this computation gives its exact bits, and writes format 1 for a log format 2 cannot carry
(a ball changed that the initial layout lacks, non-positive motion constants).

This module knows the shapes, not the physics package (protocol imports only stdlib and
msgpack): ``encode_log`` reads any object with the attributes of a ``SimResult``.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Dict, List, Mapping, Optional, Tuple

from protocol.motion import CONTACT_GAP, POCKETED, contact_positions, enter_next_state, evolve, transition_time

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

STATE_WIDTH = 9  # numbers per ball state in format 1 ``states``

LOG_FORMAT = 2
"""The format :func:`encode_log` writes."""
LOG_FORMATS = (1, 2)
"""The formats :func:`decode_log` reads."""

_TRANSITIONS = frozenset(
    EVENT_KIND_CODES[k] for k in ("slide_to_roll", "slide_to_spin", "slide_to_rest", "roll_to_spin", "roll_to_rest", "spin_to_rest")
)
_BALL_BALL = EVENT_KIND_CODES["ball_ball"]
_BALL_CUSHION = EVENT_KIND_CODES["ball_cushion"]
_BALL_POCKET = EVENT_KIND_CODES["ball_pocket"]
_FIELDS = 7  # x, y, vx, vy, wx, wy, wz: the numbers of a state after its code
_copysign = math.copysign
_pack_state = struct.Struct("<B7d").pack  # a state's code and float64 bits, to compare states exactly
_isfinite = math.isfinite


def preset_ids(table_json: Mapping[str, Any]) -> Tuple[Dict[str, int], Dict[str, int]]:
    """(cushion name -> id, pocket name -> id) from a preset's ``Table.to_json()`` map (cushions and jaws share ids)."""
    cushions = {c["name"]: int(c["id"]) for c in list(table_json.get("cushions", ())) + list(table_json.get("jaws", ()))}
    pockets = {p["name"]: int(p["id"]) for p in table_json.get("pockets", ())}
    return cushions, pockets


def encode_log(sim: Any, cushion_ids: Mapping[str, int], pocket_ids: Mapping[str, int], fmt: int = LOG_FORMAT) -> Dict[str, Any]:
    """The wire map of a stroke's event log (see the module docstring), in format ``fmt`` (1 or 2).

    ``sim``: a ``physics.events.SimResult`` (``table.name``, ``table.R``, ``table.cloth``,
    ``initial``, ``events``, ``final``, ``capped``, ``flags``). ``cushion_ids`` / ``pocket_ids``:
    from :func:`preset_ids`. Format 2 falls back to format 1 for a log it cannot carry exactly.
    Raises ``KeyError`` for a cushion, pocket, kind or state name the tables do not know (a
    contract break), ``ValueError`` for an unknown ``fmt``.
    """
    if fmt == 2:
        out = _encode_compact(sim, cushion_ids, pocket_ids)
        if out is not None:
            return out
    elif fmt != 1:
        raise ValueError(f"fmt: unknown event log format {fmt!r}; expected one of {list(LOG_FORMATS)}")
    return _encode_full(sim, cushion_ids, pocket_ids)


def decode_log(log: Mapping[str, Any], cushion_names: Mapping[int, str], pocket_names: Mapping[int, str]) -> Dict[str, Any]:
    """The ``SimResult.to_json()`` shape of a wire log of any format (names from the preset's id maps, inverted).

    Raises ``ValueError`` on a malformed log (unknown format, wrong lengths or types, unknown
    codes or ids, numbers that are not finite).
    """
    try:
        f = log.get("f", 1)
    except AttributeError:
        raise ValueError("log: an event log is a map") from None
    if f == 1 and type(f) is int:
        return _decode_full(log, cushion_names, pocket_names)
    if f == 2 and type(f) is int:
        return _decode_compact(log, cushion_names, pocket_names)
    raise ValueError(f"log.f: unknown event log format {f!r}; expected one of {list(LOG_FORMATS)}")


def _where(e: Any, cushion_ids: Mapping[str, int], pocket_ids: Mapping[str, int]) -> Optional[int]:
    if e.cushion is not None:
        return cushion_ids[e.cushion]
    if e.pocket is not None:
        return pocket_ids[e.pocket]
    return None


def _flags(sim: Any) -> Optional[List[str]]:
    flags = getattr(sim, "flags", ())
    return [str(f) for f in flags] if flags else None


def _out_flags(log: Mapping[str, Any], out: Dict[str, Any]) -> None:
    flags = log.get("flags")
    if flags:
        if not isinstance(flags, (list, tuple)) or not all(isinstance(f, str) for f in flags):
            raise ValueError("flags: must be a list of stroke flag names")
        out["flags"] = list(flags)


# ----- format 1 ---------------------------------------------------------------------------------

def _encode_full(sim: Any, cushion_ids: Mapping[str, int], pocket_ids: Mapping[str, int]) -> Dict[str, Any]:
    initial: List[Any] = []
    for b in sorted(sim.initial):
        r = sim.initial[b].r
        initial += (b, float(r[0]), float(r[1]))
    events: List[Any] = []
    for e in sim.events:
        states: List[Any] = []
        for b in sorted(e.states):
            s = e.states[b]
            states += (b, STATE_CODES[s.state], float(s.r[0]), float(s.r[1]), float(s.v[0]), float(s.v[1]),
                       float(s.w[0]), float(s.w[1]), float(s.w[2]))
        events.append([float(e.t), EVENT_KIND_CODES[e.kind], list(e.balls), _where(e, cushion_ids, pocket_ids), states])
    final: List[Any] = []
    for b in sorted(sim.final):
        s = sim.final[b]
        final += (b, STATE_CODES[s.state], float(s.r[0]), float(s.r[1]))
    out = {"table": sim.table.name, "initial": initial, "events": events, "final": final, "capped": bool(sim.capped)}
    flags = _flags(sim)
    if flags:
        out["flags"] = flags
    return out


def _decode_full(log: Mapping[str, Any], cushion_names: Mapping[int, str], pocket_names: Mapping[int, str]) -> Dict[str, Any]:
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
        _out_flags(log, out)
        return out
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"log: malformed event log ({exc!r})") from exc


# ----- format 2 ---------------------------------------------------------------------------------

def _same(a: float, b: float) -> bool:
    """True when the floats have the same bits (+0.0 and -0.0 differ; NaN is never the same)."""
    return a == b and (a != 0.0 or _copysign(1.0, a) == _copysign(1.0, b))


def _wire_number(x: float) -> Any:
    """``x`` as it is written: +0.0 as the integer 0 (one byte), any other float as float64."""
    return 0 if x == 0.0 and _copysign(1.0, x) > 0.0 else x


def _reference(kind: int, b: int, t: float, last: Mapping[int, Any], c: Tuple[float, ...]) -> Tuple:
    """Reference state at an event of kind ``kind`` at time ``t`` of its ball ``b``, contacts aside
    (module docstring). KeyError: a ball without a last state."""
    tq, q = last[b]
    p = evolve(q, t - tq, c)
    if kind in _TRANSITIONS:
        return enter_next_state(p, c)
    if kind == _BALL_POCKET:
        return (POCKETED, p[1], p[2], 0.0, 0.0, 0.0, 0.0, 0.0)
    return p


def _references(kind: int, balls: Tuple[int, ...], ids: Any, t: float, last: Mapping[int, Any], c: Tuple[float, ...],
                gap: float) -> Dict[int, Tuple]:
    """Reference state of every ball in ``balls`` (the event's) and ``ids`` (others it changed). KeyError: an unknown ball."""
    ref = {b: _reference(kind, b, t, last, c) for b in balls}
    if kind == _BALL_BALL and len(ref) == 2:
        ref[balls[0]], ref[balls[1]] = contact_positions(ref[balls[0]], ref[balls[1]], c[0], gap)
    for b in ids:
        if b not in ref:
            tq, q = last[b]
            ref[b] = evolve(q, t - tq, c)
    return ref


def _transition_time(kind: int, balls: Tuple[int, ...], last: Mapping[int, Any], c: Tuple[float, ...]) -> Optional[float]:
    """The time a transition event of one ball happens by its reference motion, else None."""
    if kind in _TRANSITIONS and len(balls) == 1:
        tq, q = last[balls[0]]
        return tq + transition_time(q, c)
    return None


def _state_entry(b: int, a: Tuple, p: Tuple) -> List[Any]:
    """``[b, code, mask, values...]`` of actual state ``a`` against reference ``p``; [] when ``a`` is ``p`` exactly."""
    if a == p and _pack_state(*a) == _pack_state(*p):  # == alone takes -0.0 for +0.0
        return []
    mask = 0
    out = [b, a[0], 0]
    bit = 1
    for x, y in zip(a[1:], p[1:]):
        if x != y:
            mask |= bit
            out.append(x if x else _wire_number(x))
        elif x == 0.0 and _copysign(1.0, x) != _copysign(1.0, y):
            mask |= bit
            out.append(_wire_number(x))
        bit <<= 1
    out[2] = mask
    return out


def _encode_compact(sim: Any, cushion_ids: Mapping[str, int], pocket_ids: Mapping[str, int]) -> Optional[Dict[str, Any]]:
    """Format 2 of ``sim``, or None when it cannot carry the log exactly."""
    table = sim.table
    cloth = table.cloth
    c = (float(table.R), float(cloth.mu_s), float(cloth.mu_r), float(cloth.mu_sp), float(cloth.g))
    gap = CONTACT_GAP
    if not all(_isfinite(x) and x > 0.0 for x in c):
        return None
    initial: List[Any] = []
    last: Dict[int, Tuple[float, Tuple]] = {}
    for b in sorted(sim.initial):
        r = sim.initial[b].r
        x, y = float(r[0]), float(r[1])
        initial += (b, x, y)
        last[b] = (0.0, (0, x, y, 0.0, 0.0, 0.0, 0.0, 0.0))
    events: List[Any] = []
    codes = STATE_CODES
    kinds = EVENT_KIND_CODES
    try:
        for e in sim.events:
            kind = kinds[e.kind]
            balls = tuple(e.balls)
            states = e.states
            t = float(e.t)
            t_out: Any = _wire_number(t)
            t_ref = _transition_time(kind, balls, last, c)
            if t_ref is not None and _same(t_ref, t):
                t_out = None
            if len(balls) == 1 and len(states) == 1 and balls[0] in states:
                # one ball (transitions, cushions, pockets, a single strike): no map of references
                b = balls[0]
                p = _reference(kind, b, t, last, c)
                s = states[b]
                a = (codes[s.state], *s.r, *s.v, *s.w)
                last[b] = (t, a)
                flat = _state_entry(b, a, p)
            else:
                ref = _references(kind, balls, states, t, last, c, gap)
                flat = []
                derived = tuple(states) == balls  # may the states be left out (each its reference)?
                for b, s in states.items():
                    a = (codes[s.state], *s.r, *s.v, *s.w)
                    last[b] = (t, a)
                    entry = _state_entry(b, a, ref[b])
                    if entry:
                        derived = False
                        flat += entry
                    else:
                        flat += (b, a[0], 0)
                if derived:
                    flat = []
            where = _where(e, cushion_ids, pocket_ids)
            if flat:
                events.append([kind, balls[0] if len(balls) == 1 else list(balls), t_out, where, flat])
            elif where is not None:
                events.append([kind, balls[0] if len(balls) == 1 else list(balls), t_out, where])
            elif t_out is not None:
                events.append([kind, balls[0] if len(balls) == 1 else list(balls), t_out])
            else:
                events.append([kind, balls[0] if len(balls) == 1 else list(balls)])
    except (ArithmeticError, KeyError) as exc:
        if isinstance(exc, KeyError) and not isinstance(exc.args[0] if exc.args else None, int):
            raise  # an unknown kind, state, cushion or pocket name: a contract break, as in format 1
        return None  # a ball the initial layout lacks, or motion constants the arithmetic cannot take
    if set(sim.final) != set(last):
        return None
    fin: List[Any] = []
    for b in sorted(sim.final):
        s = sim.final[b]
        code = STATE_CODES[s.state]
        x, y = float(s.r[0]), float(s.r[1])
        q = last[b][1]
        if not (code == q[0] and _same(x, q[1]) and _same(y, q[2])):
            fin += (b, code, x, y)
    out: Dict[str, Any] = {"f": 2, "table": table.name, "motion": [*c, gap], "initial": initial, "ev": events}
    if fin:
        out["fin"] = fin
    if sim.capped:
        out["capped"] = True
    flags = _flags(sim)
    if flags:
        out["flags"] = flags
    return out


def _num(x: Any, what: str) -> float:
    """A wire number as float64 (an integer stands for its float); ValueError for anything else."""
    tx = type(x)
    if tx is float:
        return x
    if tx is int:
        return float(x)
    raise ValueError(f"log: {what} must be a number, got {tx.__name__}")


def _ball_id(x: Any, what: str) -> int:
    if type(x) is not int:
        raise ValueError(f"log: {what} must be a ball id (integer), got {type(x).__name__}")
    return x


def _list(x: Any, what: str) -> Any:
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"log: {what} must be a list")
    return x


def _decode_compact(log: Mapping[str, Any], cushion_names: Mapping[int, str], pocket_names: Mapping[int, str]) -> Dict[str, Any]:
    try:
        table = log["table"]
        if not isinstance(table, str):
            raise ValueError("log: table must be a preset name")
        motion = _list(log["motion"], "motion")
        if len(motion) != 6:
            raise ValueError("log: motion must be [R, mu_s, mu_r, mu_sp, g, gap]")
        m = [_num(x, "motion") for x in motion]
        if not all(_isfinite(x) and x > 0.0 for x in m):
            raise ValueError("log: motion constants must be finite and positive")
        c = tuple(m[:5])
        gap = m[5]
        ini = _list(log["initial"], "initial")
        if len(ini) % 3:
            raise ValueError("log: initial length must be a multiple of 3")
        initial: Dict[str, List[float]] = {}
        last: Dict[int, Tuple[float, Tuple]] = {}
        for i in range(0, len(ini), 3):
            b = _ball_id(ini[i], "initial ball id")
            x, y = _num(ini[i + 1], "initial x"), _num(ini[i + 2], "initial y")
            if b in last or not (_isfinite(x) and _isfinite(y)):
                raise ValueError(f"log: initial ball {b} is listed twice or not at a finite position")
            initial[str(b)] = [x, y]
            last[b] = (0.0, (0, x, y, 0.0, 0.0, 0.0, 0.0, 0.0))
        events = [_decode_event(ev, last, c, gap, cushion_names, pocket_names) for ev in _list(log["ev"], "ev")]
        fin = _list(log.get("fin", ()), "fin")
        if len(fin) % 4:
            raise ValueError("log: fin length must be a multiple of 4")
        ends = {b: (q[0], q[1], q[2]) for b, (_t, q) in last.items()}
        for i in range(0, len(fin), 4):
            b = _ball_id(fin[i], "fin ball id")
            if b not in ends:
                raise ValueError(f"log: fin ball {b} is not in the initial layout")
            code = fin[i + 1]
            if type(code) is not int or not 0 <= code < len(STATE_NAMES):
                raise ValueError(f"log: fin state code {code!r} unknown")
            x, y = _num(fin[i + 2], "fin x"), _num(fin[i + 3], "fin y")
            if not (_isfinite(x) and _isfinite(y)):
                raise ValueError(f"log: fin ball {b} is not at a finite position")
            ends[b] = (code, x, y)
        final = {str(b): {"r": [x, y], "state": STATE_NAMES[code]} for b, (code, x, y) in sorted(ends.items())}
        capped = log.get("capped", False)
        if type(capped) is not bool:
            raise ValueError("log: capped must be a boolean")
        out = {"table": table, "initial": initial, "events": events, "final": final, "capped": capped}
        _out_flags(log, out)
        return out
    except ValueError:
        raise
    except (KeyError, IndexError, TypeError, ArithmeticError) as exc:
        raise ValueError(f"log: malformed event log ({exc!r})") from None


def _decode_event(ev: Any, last: Dict[int, Tuple[float, Tuple]], c: Tuple[float, ...], gap: float,
                  cushion_names: Mapping[int, str], pocket_names: Mapping[int, str]) -> Dict[str, Any]:
    """One format-2 event as ``Event.to_json()``; updates ``last`` (ball -> (t, state tuple))."""
    ev = _list(ev, "an event")
    n = len(ev)
    if not 2 <= n <= 5:
        raise ValueError("log: an event is [kind, balls, t, where, states] (trailing ones may be left out)")
    kind = ev[0]
    if type(kind) is not int or not 0 <= kind < len(EVENT_KINDS):
        raise ValueError(f"log: unknown event kind {kind!r}")
    bl = ev[1]
    balls = (bl,) if type(bl) is int else tuple(_ball_id(b, "event ball id") for b in _list(bl, "event balls"))
    for b in balls:
        if b not in last:
            raise ValueError(f"log: event ball {b} is not in the initial layout")
    t_in = ev[2] if n > 2 else None
    if t_in is None:
        t = _transition_time(kind, balls, last, c)
        if t is None:
            raise ValueError("log: only a state transition of one ball may leave its time out")
    else:
        t = _num(t_in, "event time")
    if not _isfinite(t):
        raise ValueError("log: event time must be finite")
    where = ev[3] if n > 3 else None
    flat = _list(ev[4], "event states") if n > 4 else None
    ids: List[int] = []
    if flat is not None:
        i = 0
        while i < len(flat):
            b = _ball_id(flat[i], "state ball id")
            if b not in last or b in ids:
                raise ValueError(f"log: state ball {b} is not in the initial layout or is listed twice")
            ids.append(b)
            mask = flat[i + 2]
            if type(mask) is not int or not 0 <= mask < 1 << _FIELDS:
                raise ValueError(f"log: state mask {mask!r} out of range")
            i += 3 + bin(mask).count("1")
        if i != len(flat):
            raise ValueError("log: event states end inside a state")
    ref = _references(kind, balls, ids, t, last, c, gap)
    states: Dict[str, Any] = {}
    if flat is None:
        for b in balls:
            p = ref[b]
            states[str(b)] = _state_json(p)
            last[b] = (t, p)
    else:
        i = 0
        for b in ids:
            code, mask = flat[i + 1], flat[i + 2]
            if type(code) is not int or not 0 <= code < len(STATE_NAMES):
                raise ValueError(f"log: unknown state code {code!r}")
            vals = list(ref[b])
            vals[0] = code
            i += 3
            for k in range(1, 8):
                if mask & (1 << (k - 1)):
                    vals[k] = _num(flat[i], "state value")
                    i += 1
            p = tuple(vals)
            states[str(b)] = _state_json(p)
            last[b] = (t, p)
    kind_name = EVENT_KINDS[kind]
    return {
        "t": t,
        "kind": kind_name,
        "balls": list(balls),
        "cushion": cushion_names[where] if kind == _BALL_CUSHION else None,
        "pocket": pocket_names[where] if kind == _BALL_POCKET else None,
        "states": states,
    }


def _state_json(p: Tuple) -> Dict[str, Any]:
    if not _isfinite(p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7]):
        raise ValueError("log: a ball state must be finite")
    return {"state": STATE_NAMES[p[0]], "r": [p[1], p[2]], "v": [p[3], p[4]], "w": [p[5], p[6], p[7]]}
