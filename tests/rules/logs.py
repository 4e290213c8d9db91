"""Hand-written event logs for referee tests: a consistent :class:`SimResult` from a short script.

The referees read a stroke through its event log (rules/base.py) and through trajectory queries
on the :class:`~physics.events.SimResult` (``max_projection``, ``max_pair_distance``,
``final``). Tests describe a stroke the way the rule cases do ("CB>7; 7|foot; 7 pocketed FL")
and :func:`stroke_log` turns that into a log whose trajectories agree with it.

Model: every ball is at rest between its events and moves to the position given at its next
event (a "teleport" path). Positions at event times are therefore exactly what the script
says, which is all a rule needs (first contact, rails, pockets, the farthest point a ball
reached before a given time, where balls came to rest). Pass a :class:`BallState` instead of a
position to give a ball a real closed-form motion from that event on.

Step forms (``id`` = ball id, ``0`` is the pool cue ball / carom white)::

    ("strike", id)                      the cue strike at t = 0 (optional; added if missing)
    ("ball_ball", a, b)                 a contacts b
    ("ball_cushion", a, "foot")         a touches a cushion (any straight cushion or jaw name)
    ("ball_pocket", a, "FL")            a is pocketed (state ``pocketed`` at the pocket centre)
    ("off_table", a)                    a leaves the table (rests off the bed)
    ("move", {id: (x, y), ...})         balls reach these positions (no collision)

Any step may end with a dict of extra data: ``{id: (x, y) or BallState, ..., "t": seconds}``:
positions of balls at that event (the involved balls keep their last position otherwise) and
the event time (otherwise ``dt`` after the previous event). ``final`` gives the resting
positions of the balls still on the bed (others stay where their last event left them).
"""

from __future__ import annotations

from typing import Dict, Mapping, Optional, Sequence, Tuple, Union

from physics.events import BallState, Event, SimResult
from physics.table import Table, get_table

Pos = Tuple[float, float]
PosOrState = Union[Pos, BallState]

OFF_BED = (-0.25, -0.25)  # where an off-table ball is recorded to rest (outside every table)


def _state(p: PosOrState) -> BallState:
    if isinstance(p, BallState):
        return p
    return BallState.at_rest((float(p[0]), float(p[1])))


def stroke_log(
    table: Union[str, Table],
    layout: Mapping[int, Pos],
    steps: Sequence[tuple],
    final: Optional[Mapping[int, PosOrState]] = None,
    dt: float = 0.05,
) -> SimResult:
    """A :class:`SimResult` for the stroke ``steps`` played from ``layout`` (ball id -> (x, y) m).

    ``table`` is a preset name or a :class:`Table`. Raises ``ValueError`` on an unknown step
    kind, ball id or pocket name.
    """
    tbl = get_table(table) if isinstance(table, str) else table
    pos: Dict[int, Pos] = {int(b): (float(p[0]), float(p[1])) for b, p in layout.items()}
    initial = {b: BallState.at_rest(p) for b, p in pos.items()}
    gone: set = set()
    events = []
    t = 0.0
    script = list(steps)
    if not script or script[0][0] != "strike":
        script.insert(0, ("strike", 0))

    for n, step in enumerate(script):
        kind = step[0]
        extra: Mapping = step[-1] if len(step) > 1 and isinstance(step[-1], dict) else {}
        args = step[1:-1] if extra and isinstance(step[-1], dict) else step[1:]
        if kind == "move":  # ("move", {id: pos}) : the dict is the positions
            args = ()
        if n == 0:
            t = float(extra.get("t", 0.0))
        else:
            t = float(extra.get("t", t + dt))
        states: Dict[int, BallState] = {}
        for b, p in extra.items():
            if b == "t":
                continue
            b = int(b)
            if b not in pos:
                raise ValueError(f"ball: unknown ball id {b!r}")
            states[b] = _state(p)
        for b in args[:2] if kind == "ball_ball" else args[:1]:
            if not isinstance(b, int) or b not in pos:
                raise ValueError(f"ball: unknown ball id {b!r} in step {step!r}")
            if b in gone:
                raise ValueError(f"ball: ball {b} is no longer on the bed at step {step!r}")
        if kind == "strike":
            balls: tuple = (int(args[0]) if args else 0,)
            ev = Event(t, "strike", balls, states={**{balls[0]: _state(pos[balls[0]])}, **states})
        elif kind == "ball_ball":
            a, b = int(args[0]), int(args[1])
            st = {a: _state(pos[a]), b: _state(pos[b])}
            st.update(states)
            ev = Event(t, "ball_ball", (a, b), states=st)
        elif kind == "ball_cushion":
            a, name = int(args[0]), str(args[1])
            if name not in {c.name for c in tbl.cushions} | {j.name for j in tbl.jaws}:
                raise ValueError(f"cushion: unknown cushion {name!r} on table {tbl.name}")
            st = {a: _state(pos[a])}
            st.update(states)
            ev = Event(t, "ball_cushion", (a,), cushion=name, states=st)
        elif kind == "ball_pocket":
            a, name = int(args[0]), str(args[1])
            pk = tbl.pocket_by_name(name)
            st = dict(states)
            st[a] = BallState("pocketed", pk.centre)
            ev = Event(t, "ball_pocket", (a,), pocket=name, states=st)
            gone.add(a)
        elif kind == "off_table":
            a = int(args[0])
            st = dict(states)
            st[a] = BallState.at_rest(OFF_BED)
            ev = Event(t, "off_table", (a,), states=st)
            gone.add(a)
        elif kind == "move":
            if not states:
                raise ValueError(f"move: give positions, got {step!r}")
            ev = Event(t, "slide_to_roll", tuple(sorted(states)), states=states)
        else:
            raise ValueError(f"kind: unknown step kind {kind!r}")
        for b, s in ev.states.items():
            pos[b] = (float(s.r[0]), float(s.r[1]))
        events.append(ev)

    if final:
        t_end = t + dt
        for b, p in sorted(final.items()):
            b = int(b)
            if b not in pos:
                raise ValueError(f"ball: unknown ball id {b!r} in final")
            if b in gone:
                raise ValueError(f"final: ball {b} was pocketed or left the table")
            events.append(Event(t_end, "roll_to_rest", (b,), states={b: _state(p)}))
            pos[b] = tuple(_state(p).r)
    return SimResult(tbl, initial, events)


def rest_layout(sim: SimResult) -> Dict[int, Pos]:
    """Ball id -> (x, y) of the balls resting on the bed at the end of ``sim``."""
    off = {e.balls[0] for e in sim.events if e.kind == "off_table"}
    return {b: tuple(s.r) for b, s in sim.final.items() if s.state != "pocketed" and b not in off}
