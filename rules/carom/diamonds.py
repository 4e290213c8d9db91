"""Diamond readout: where the cue ball met each cushion, in the diamond units players count in.

A carom table carries sight marks (diamonds) every L/8 on the long rails and every W/4 on the short
ones (``physics.table._diamonds``; rules-carom K1), so a rail is 8 diamonds long and an end rail 4.
Three-cushion players read a stroke by the diamond numbers of its cushion contacts (the "diamond
systems": D. Alciatore, *The Illustrated Principles of Pool and Billiards*, TP 7.2 "Corner-5
three-rail diamond system formulas", billiards.colostate.edu; R. Byrne, *Byrne's Standard Book of
Pool and Billiards*, the corner-five system; the corner counts 0, the first diamond 1).

**Convention used here** (one table frame, DESIGN.md; the corners count 0):

- a long rail (``R`` at y = 0, ``Lf`` at y = W): ``8 x / L``, 0 at the bottom rail (``B``, the end
  the break is played from) to 8 at the top rail (``T``);
- a short rail (``B`` at x = 0, ``T`` at x = L): ``4 y / W``, 0 at the right long rail (``R``) to 4
  at the left one (``Lf``);
- rounded to one decimal (half away from zero on the float of the contact).

The contact point is the ball's centre at the impact projected onto the cushion's nose line (the
point of the cushion the ball touched), not a system's aiming number through the diamonds on the
frame. Only straight cushions are read (a pool table's pocket jaws and facings give none); every
``ball_cushion`` event of the cue ball counts, in log order, numbered 1, 2, 3... as the client's
trails number them (client_web/src/game/trails.ts). The TypeScript twin is
client_web/src/game/diamonds.ts; client_web/test/diamonds.test.ts checks both give the same numbers
on the golden logs.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from physics.events import BallState, Event
from physics.table import Table

LONG_DIAMONDS = 8  # diamonds along a long rail
SHORT_DIAMONDS = 4  # diamonds along a short rail


def round1(v: float) -> float:
    """``v`` rounded to one decimal, half away from zero (the same rule as the TypeScript twin)."""
    s = -1.0 if v < 0 else 1.0
    return s * math.floor(abs(v) * 10.0 + 0.5) / 10.0


def diamond_at(table: Table, cushion: str, r: Tuple[float, float]) -> Optional[Tuple[str, float]]:
    """``(rail, diamond)`` of a ball centred at ``r`` (m) touching straight cushion ``cushion`` (its name):
    rail ``"long"`` or ``"short"``, diamond unrounded (module docstring); None for a jaw, a facing or an
    unknown name."""
    for c in table.cushions:
        if c.name != cushion:
            continue
        nx, ny = c.normal
        if abs(ny) > 0.99:  # a long rail (normal across the table)
            return "long", LONG_DIAMONDS * r[0] / table.length
        if abs(nx) > 0.99:
            return "short", SHORT_DIAMONDS * r[1] / table.width
        return None  # a pocket facing
    return None


def _fields(e: Any) -> Tuple[str, List[int], Optional[str], Any]:
    if type(e) is Event:  # the engine's log (the check against typing's Mapping costs microseconds each)
        return e.kind, e.balls, e.cushion, e.states
    if isinstance(e, Mapping):
        return e["kind"], list(e.get("balls") or ()), e.get("cushion"), e.get("states") or {}
    return e.kind, list(e.balls), e.cushion, e.states


def _centre(states: Any, ball: int) -> Optional[Tuple[float, float]]:
    s = states.get(ball)
    if s is None and (type(states) is dict or isinstance(states, Mapping)):
        s = states.get(str(ball))
    if s is None:
        return None
    r = s.r if type(s) is BallState else (s["r"] if isinstance(s, Mapping) else s.r)
    return (float(r[0]), float(r[1]))


def stroke_cue_ball(events: Iterable[Any]) -> Optional[int]:
    """The struck ball of a stroke's log (its first ``strike`` event), or None."""
    for e in events:
        kind, balls, _, _ = _fields(e)
        if kind == "strike" and balls:
            return int(balls[0])
    return None


def cushion_diamonds(table: Table, events: Iterable[Any], ball: Optional[int] = None) -> List[Dict[str, Any]]:
    """The diamond readout of ``ball`` (default: the stroke's cue ball) over an event log.

    ``events``: the log, either ``physics.events.Event`` objects (``SimResult.events``) or their JSON
    (``SimResult.to_json()["events"]``: golden vectors, match records). Returns, for each of the ball's
    ``ball_cushion`` events on a straight cushion in order, ``{"n": 1, 2, ..., "cushion": name, "rail":
    "long" | "short", "diamond": number with one decimal}``. Pure; never raises on a log without the
    ball (an empty list).
    """
    events = list(events)
    if ball is None:
        ball = stroke_cue_ball(events)
        if ball is None:
            return []
    out: List[Dict[str, Any]] = []
    n = 0
    for e in events:
        kind, balls, cushion, states = _fields(e)
        if kind != "ball_cushion" or ball not in balls:
            continue
        r = _centre(states, ball)
        if r is None:
            continue
        n += 1
        d = diamond_at(table, cushion, r) if cushion is not None else None
        if d is None:
            continue
        out.append({"n": n, "cushion": cushion, "rail": d[0], "diamond": round1(d[1])})
    return out


def readout_text(readout: Iterable[Mapping[str, Any]]) -> str:
    """The readout in words, as the stroke history shows it: ``"1 Lf 1.8, 2 R 2.3, 3 Lf 5.1"``."""
    return ", ".join(f"{d['n']} {d['cushion']} {d['diamond']:.1f}" for d in readout)
