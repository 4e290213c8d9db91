"""Shared helpers of the physics tests: energies, states just before an event, layouts."""

from __future__ import annotations

import math
from typing import Dict, List, Tuple

from physics import evolve as ev
from physics.events import STATE_CODES, STATE_NAMES, BallState, SimResult
from physics.table import Table


def kinetic_energy(table: Table, s: BallState) -> float:
    """Translational plus rotational kinetic energy (J) of one ball: m v^2 / 2 + I w^2 / 2, I = 2 m R^2 / 5."""
    m, R = table.ball.mass, table.R
    v2 = s.v[0] ** 2 + s.v[1] ** 2
    w2 = s.w[0] ** 2 + s.w[1] ** 2 + s.w[2] ** 2
    return 0.5 * m * v2 + 0.5 * (0.4 * m * R * R) * w2


def evolve(table: Table, s: BallState, dt: float) -> BallState:
    c = table.cloth
    code, r, v, w = ev.evolve_state(STATE_CODES[s.state], tuple(s.r), tuple(s.v), tuple(s.w), dt, table.R, c.mu_s, c.mu_r, c.mu_sp, c.g)
    return BallState(STATE_NAMES[code], r, v, w)


def states_before(res: SimResult) -> List[Dict[int, BallState]]:
    """For each event, the state of each ball it changed just before it (after any earlier event at the same t)."""
    last = {b: (0.0, s) for b, s in res.initial.items()}
    out = []
    for e in res.events:
        pre = {}
        for b in e.states:
            t0, s = last[b]
            pre[b] = evolve(res.table, s, e.t - t0) if s.state not in ("stationary", "pocketed") else s
        out.append(pre)
        for b, s in e.states.items():
            last[b] = (e.t, s)
    return out


def speed(s: BallState) -> float:
    return math.hypot(s.v[0], s.v[1])


def heading_deg(v: Tuple[float, float]) -> float:
    return math.degrees(math.atan2(v[1], v[0]))


def rack_layout(table: Table, cue=None) -> Dict[int, Tuple[float, float]]:
    """14.1 rack: balls 1..15 on table.rack_sites() in order, cue ball on the head spot (or ``cue``)."""
    balls = {0: cue if cue is not None else table.head_spot}
    for k, p in enumerate(table.rack_sites()):
        balls[k + 1] = p
    return balls


def first(res: SimResult, kind: str, ball=None):
    for e in res.events:
        if e.kind == kind and (ball is None or ball in e.balls):
            return e
    raise AssertionError(f"no {kind} event" + (f" of ball {ball}" if ball is not None else ""))


def min_gap_at_events(res: SimResult) -> float:
    """Smallest ball-ball gap (m; negative = overlap) over every ball on the bed at every event time."""
    R = res.table.R
    worst = math.inf
    times = sorted({e.t for e in res.events})
    for t in times:
        st = [s for s in res.state_at(t).values() if s.state != "pocketed"]
        for i in range(len(st)):
            for j in range(i + 1, len(st)):
                worst = min(worst, math.dist(st[i].r, st[j].r) - 2 * R)
    return worst
