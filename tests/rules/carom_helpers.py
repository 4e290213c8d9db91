"""Carom strokes written the way the rule cases write them ("W>RD; W|T; W>Y"), as event logs.

Built on :func:`tests.rules.logs.stroke_log` (balls at rest between events, at the positions
given at their events). Notation, steps separated by ``;``:

- ``W>RD``: ball W contacts ball RD; W is put touching RD on the side it came from;
- ``W|T``: W touches cushion T (B, T, R, Lf); W is put against the cushion nose;
- ``W~Lf``: W moves 0.30 m away from cushion Lf (no event: a ``move`` step);
- ``RD^``: RD leaves the table;
- ``@t`` after a step gives its time in seconds (``W|T@0.80``), otherwise 0.1 s steps.

Ball names W (0), Y (1), RD (2). Raw ``stroke_log`` tuples may be mixed in. At the end every
ball that moved comes to rest 0.1 m away from its last contact and at least 5 cm from every
cushion (so it touches nothing), unless ``final`` says where.
"""

from __future__ import annotations

import math
import re
from typing import Dict, Mapping, Optional, Sequence, Tuple, Union

from physics.table import get_table
from logs import rest_layout, stroke_log

NAMES = {"W": 0, "Y": 1, "RD": 2}
TABLE = get_table("carom")
R = TABLE.R
L, W_ = TABLE.length, TABLE.width
SPOTS = {
    "top": TABLE.top_spot,
    "cen": TABLE.centre_spot,
    "bot": TABLE.bottom_spot,
    "stL": TABLE.starting_spots["left"],
    "stR": TABLE.starting_spots["right"],
}
BREAK_LAYOUT = {2: SPOTS["top"], 1: SPOTS["bot"], 0: SPOTS["stR"]}

_STEP = re.compile(r"^(W|Y|RD)([>|~^])(W|Y|RD|B|T|R|Lf)?(?:@([0-9.]+))?$")


def _cushion_point(p, c):
    if c == "B":
        return (R, p[1])
    if c == "T":
        return (L - R, p[1])
    if c == "R":
        return (p[0], R)
    if c == "Lf":
        return (p[0], W_ - R)
    raise ValueError(c)


_INWARD = {"B": (1.0, 0.0), "T": (-1.0, 0.0), "R": (0.0, 1.0), "Lf": (0.0, -1.0)}


def carom_log(layout: Mapping[int, Tuple[float, float]], script: Union[str, Sequence], final: Optional[Mapping] = None,
              cue: Optional[int] = None, dt: float = 0.1):
    """A :class:`SimResult` for ``script`` played from ``layout`` (ball id -> (x, y)).

    ``cue`` is the struck ball (default: the mover of the first step).
    """
    if isinstance(script, str):
        script = [script]
    items = []
    for item in script:
        if isinstance(item, str):
            items.extend(s.strip() for s in item.split(";") if s.strip())
        else:
            items.append(item)
    script = items
    pos: Dict[int, Tuple[float, float]] = {int(b): (float(p[0]), float(p[1])) for b, p in layout.items()}
    steps = []
    last_contact: Dict[int, tuple] = {}
    moved = set()
    t = 0.0
    first_mover = None
    for item in script:
        if not isinstance(item, str):
            steps.append(item)
            extra = item[-1] if isinstance(item[-1], dict) else {}
            if "t" in extra:
                t = float(extra["t"])
            else:
                t += dt
            for b, p in extra.items():
                if b != "t":
                    pos[int(b)] = tuple(p)
                    moved.add(int(b))
            if first_mover is None and item[0] in ("ball_ball", "ball_cushion"):
                first_mover = item[1]
            continue
        m = _STEP.match(item.replace(" ", ""))
        if not m:
            raise ValueError(f"bad step {item!r}")
        a = NAMES[m.group(1)]
        op, target, tt = m.group(2), m.group(3), m.group(4)
        t = float(tt) if tt else t + dt
        if first_mover is None:
            first_mover = a
        moved.add(a)
        if op == ">":
            b = NAMES[target]
            pa, pb = pos[a], pos[b]
            dx, dy = pa[0] - pb[0], pa[1] - pb[1]
            n = math.hypot(dx, dy)
            ux, uy = (dx / n, dy / n) if n > 1e-12 else (-1.0, 0.0)
            pos[a] = (pb[0] + 2 * R * ux, pb[1] + 2 * R * uy)
            steps.append(("ball_ball", a, b, {a: pos[a], "t": t}))
            last_contact[a] = ("ball", b)
        elif op == "|":
            pos[a] = _cushion_point(pos[a], target)
            steps.append(("ball_cushion", a, target, {a: pos[a], "t": t}))
            last_contact[a] = ("cushion", target)
        elif op == "~":
            n = _INWARD[target]
            pos[a] = (pos[a][0] + 0.30 * n[0], pos[a][1] + 0.30 * n[1])
            steps.append(("move", {a: pos[a], "t": t}))
        elif op == "^":
            steps.append(("off_table", a, {"t": t}))
            pos.pop(a)
            moved.discard(a)
    cue = first_mover if cue is None else cue
    steps.insert(0, ("strike", cue if cue is not None else 0, {"t": 0.0}))
    rest = {}
    if final is not None:
        rest = {int(b): p for b, p in final.items()}
    else:
        for b in sorted(moved):
            if b not in pos:
                continue
            p = pos[b]
            lc = last_contact.get(b)
            if lc is None:
                continue
            if lc[0] == "ball" and lc[1] in pos:
                q = pos[lc[1]]
                dx, dy = p[0] - q[0], p[1] - q[1]
                n = math.hypot(dx, dy)
                rest[b] = (q[0] + (2 * R + 0.1) * dx / n, q[1] + (2 * R + 0.1) * dy / n)
            elif lc[0] == "cushion":
                n = _INWARD[lc[1]]
                rest[b] = (p[0] + 0.1 * n[0], p[1] + 0.1 * n[1])
            if b in rest:  # clear of every cushion too (a corner leaves a ball against the other cushion)
                m = R + 0.05
                rest[b] = (min(max(rest[b][0], m), L - m), min(max(rest[b][1], m), W_ - m))
    return stroke_log(TABLE, layout, steps, final=rest or None, dt=dt)


def play(game, script, final=None, player=None):
    """Apply ``script`` as the next stroke of ``game`` (from its layout); returns the ruling."""
    seat = game.to_act if player is None else player
    cue = game.cue_ball(seat)
    sim = carom_log(game.layout(), script, final=final, cue=cue)
    return game.apply_shot(seat, None, sim)


__all__ = ["NAMES", "TABLE", "R", "SPOTS", "BREAK_LAYOUT", "carom_log", "play", "rest_layout"]
