"""The event log of a shot, and queries on the trajectories it defines.

A shot is an ordered list of :class:`Event`. Each event gives the time ``t`` (s since the
strike), its ``kind``, the ball ids involved, the cushion or pocket name when there is one,
and the post-event motion state of every ball it changed. Between two events a ball's motion
is the closed form of :mod:`physics.evolve`, so the log alone replays the shot exactly.

Event kinds: ``strike``, ``ball_ball``, ``ball_cushion`` (straight cushions and pocket jaws;
the cushion name says which), ``ball_pocket``, ``slide_to_roll``, ``slide_to_spin``,
``slide_to_rest``, ``roll_to_spin``, ``roll_to_rest``, ``spin_to_rest``, ``event_cap`` (the
hard cap on events was reached: every ball was stopped where it was), and ``off_table`` (never
produced by the 2D engine; referees accept it in records).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from physics import evolve as _ev
from physics.table import Table, Vec2

STATE_NAMES: Tuple[str, ...] = tuple(_ev.STATE_NAMES)
STATE_CODES: Dict[str, int] = dict(_ev.STATE_CODES)

TRANSITION_KINDS = frozenset(
    {"slide_to_roll", "slide_to_spin", "slide_to_rest", "roll_to_spin", "roll_to_rest", "spin_to_rest"}
)
COLLISION_KINDS = frozenset({"ball_ball", "ball_cushion", "ball_pocket"})
EVENT_KINDS = frozenset({"strike", "event_cap", "off_table"}) | TRANSITION_KINDS | COLLISION_KINDS


@dataclass(frozen=True)
class BallState:
    """Motion state of one ball: ``state`` name, ``r`` (x, y) m, ``v`` (vx, vy) m/s, ``w`` (wx, wy, wz) rad/s."""

    state: str
    r: Vec2
    v: Vec2 = (0.0, 0.0)
    w: Tuple[float, float, float] = (0.0, 0.0, 0.0)

    def to_json(self) -> dict:
        return {"state": self.state, "r": list(self.r), "v": list(self.v), "w": list(self.w)}

    @classmethod
    def from_json(cls, d: Mapping) -> "BallState":
        return cls(str(d["state"]), tuple(d["r"]), tuple(d.get("v", (0.0, 0.0))), tuple(d.get("w", (0.0, 0.0, 0.0))))

    @classmethod
    def at_rest(cls, r: Vec2) -> "BallState":
        return cls("stationary", (float(r[0]), float(r[1])))


@dataclass(frozen=True)
class Event:
    """One event of the log (see the module docstring for ``kind``).

    ``balls``: ids involved (ball_ball: the two balls, lower id first is not implied: the
    first is the one listed by the engine as the mover); ``cushion``/``pocket``: names from the
    table preset or ``None``; ``states``: post-event :class:`BallState` per changed ball id.
    """

    t: float
    kind: str
    balls: Tuple[int, ...]
    cushion: Optional[str] = None
    pocket: Optional[str] = None
    states: Mapping[int, BallState] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "t": self.t,
            "kind": self.kind,
            "balls": list(self.balls),
            "cushion": self.cushion,
            "pocket": self.pocket,
            "states": {str(k): s.to_json() for k, s in self.states.items()},
        }

    @classmethod
    def from_json(cls, d: Mapping) -> "Event":
        return cls(
            float(d["t"]),
            str(d["kind"]),
            tuple(int(b) for b in d.get("balls", ())),
            d.get("cushion"),
            d.get("pocket"),
            {int(k): BallState.from_json(v) for k, v in (d.get("states") or {}).items()},
        )


_FIXED = frozenset({"stationary", "spinning", "pocketed"})  # motion states whose centre does not move


class SimResult:
    """The result of :func:`physics.simulate`: ``initial`` layout, ordered ``events``, ``final`` layout.

    ``initial`` and ``final`` map ball id -> :class:`BallState` (``initial`` at rest before the
    strike; ``final`` at rest or pocketed). ``table`` is the :class:`~physics.table.Table`.
    ``capped`` is True when the hard event cap stopped the shot.

    A log can also be written by hand (tests, replays): build it with the constructor; the
    trajectory queries only need each ball's state at the events that changed it.
    """

    __slots__ = ("table", "initial", "events", "final", "capped", "_segments")

    def __init__(
        self,
        table: Table,
        initial: Mapping[int, BallState],
        events: Sequence[Event],
        final: Optional[Mapping[int, BallState]] = None,
        capped: bool = False,
    ):
        self.table = table
        self.initial = dict(initial)
        self.events = list(events)
        self.capped = capped
        self._segments: Dict[int, List[Tuple[float, BallState]]] = {}
        if final is None:
            final = self.state_at(math.inf)
        self.final = dict(final)

    # ----- trajectories --------------------------------------------------------------------
    def _segs(self, ball: int) -> List[Tuple[float, BallState]]:
        """(t_start, state) for every change of ``ball``, the initial layout first."""
        segs = self._segments.get(ball)
        if segs is None:
            if ball not in self.initial:
                raise ValueError(f"ball: unknown ball id {ball!r}")
            segs = [(0.0, self.initial[ball])]
            for e in self.events:
                s = e.states.get(ball)
                if s is not None:
                    segs.append((e.t, s))
            self._segments[ball] = segs
        return segs

    def _evolve(self, s: BallState, dt: float) -> BallState:
        c = self.table.cloth
        code, r, v, w = _ev.evolve_state(
            STATE_CODES[s.state], tuple(s.r), tuple(s.v), tuple(s.w), dt, self.table.R, c.mu_s, c.mu_r, c.mu_sp, c.g
        )
        return BallState(STATE_NAMES[code], r, v, w)

    def ball_state_at(self, ball: int, t: float) -> BallState:
        """State of ``ball`` at time ``t`` (s); after its last event it evolves to rest."""
        segs = self._segs(ball)
        t0, s = segs[0]
        for ts, st in segs:
            if ts <= t:
                t0, s = ts, st
            else:
                break
        if s.state in ("stationary", "pocketed") or t <= t0:
            return s
        return self._evolve(s, t - t0)

    def state_at(self, t: float) -> Dict[int, BallState]:
        """Every ball's :class:`BallState` at time ``t`` (s since the strike)."""
        return {b: self.ball_state_at(b, t) for b in self.initial}

    def phases(self, ball: int, t0: float = 0.0, t1: float = math.inf) -> Iterable[Tuple[float, float, BallState]]:
        """Constant-acceleration pieces ``(ta, tb, state at ta)`` of ``ball``'s path within [t0, t1]."""
        segs = self._segs(ball)
        c = self.table.cloth
        for i, (ts, st) in enumerate(segs):
            te = segs[i + 1][0] if i + 1 < len(segs) else math.inf
            a, b = max(ts, t0), min(te, t1)
            if a > b:
                continue
            s = self._evolve(st, a - ts) if a > ts else st
            t = a
            while True:
                if s.state in ("stationary", "pocketed", "spinning"):
                    yield (t, b, s)
                    break
                tt = _ev.state_transition_time(
                    STATE_CODES[s.state], tuple(s.r), tuple(s.v), tuple(s.w), self.table.R, c.mu_s, c.mu_r, c.mu_sp, c.g
                )
                end = min(b, t + tt)
                yield (t, end, s)
                if end >= b:
                    break
                s = self._evolve(s, tt)
                t = end

    def max_projection(self, ball: int, n: Vec2, t0: float = 0.0, t1: float = math.inf) -> float:
        """Exact maximum over t in [t0, t1] of n . r(t) for ``ball`` (m if ``n`` is a unit vector).

        Used for "crossed the head string" and "left a zone" tests. Returns -inf if the ball
        has no path in the interval (pocketed balls keep their pocket position).
        """
        c = self.table.cloth
        best = -math.inf
        for ta, tb, s in self.phases(ball, t0, t1):
            p0 = n[0] * s.r[0] + n[1] * s.r[1]
            best = max(best, p0)
            if s.state not in ("sliding", "rolling"):
                continue
            ax, ay = _ev.state_acceleration(STATE_CODES[s.state], tuple(s.v), tuple(s.w), self.table.R, c.mu_s, c.mu_r, c.mu_sp, c.g)
            pv = n[0] * s.v[0] + n[1] * s.v[1]
            pa = n[0] * ax + n[1] * ay
            dt = tb - ta
            if math.isfinite(dt):
                best = max(best, p0 + pv * dt + 0.5 * pa * dt * dt)
            if pa < 0.0:
                tau = -pv / pa
                if 0.0 < tau < dt:
                    best = max(best, p0 + pv * tau + 0.5 * pa * tau * tau)
        return best

    def max_pair_distance(self, a: int, b: int, t0: float, t1: float, samples: int = 64,
                          stop_above: Optional[float] = None) -> float:
        """Largest centre distance (m) between balls ``a`` and ``b`` over [t0, t1].

        Evaluated at every event time of either ball in the interval and ``samples`` points
        in between each (the distance is smooth between events). With ``stop_above`` (m) the
        search ends at the first distance above it and returns that distance (enough for a
        caller that only asks "did they ever get farther apart than this?").
        """
        times = {t0, t1}
        for seg_ball in (a, b):
            for ts, _ in self._segs(seg_ball):
                if t0 < ts < t1:
                    times.add(ts)
        ts_sorted = sorted(times)
        best = 0.0
        for i in range(len(ts_sorted) - 1):
            lo, hi = ts_sorted[i], ts_sorted[i + 1]
            # a ball at rest or spinning in place keeps its centre until its next event: when both
            # do over [lo, hi] the distance is constant there and one evaluation is exact
            n = 0 if (self.ball_state_at(a, lo).state in _FIXED and self.ball_state_at(b, lo).state in _FIXED) else samples
            for k in range(n + 1):
                t = lo + (hi - lo) * k / samples
                ra, rb = self.ball_state_at(a, t).r, self.ball_state_at(b, t).r
                best = max(best, math.hypot(ra[0] - rb[0], ra[1] - rb[1]))
                if stop_above is not None and best > stop_above:
                    return best
        return best

    # ----- serialisation -------------------------------------------------------------------
    def to_json(self) -> dict:
        """The CLI's JSON shape: ``{"events": [...], "final": {id: {"r", "state"}}}`` plus ``initial``."""
        return {
            "table": self.table.name,
            "initial": {str(k): list(s.r) for k, s in sorted(self.initial.items())},
            "events": [e.to_json() for e in self.events],
            "final": {str(k): {"r": list(s.r), "state": s.state} for k, s in sorted(self.final.items())},
            "capped": self.capped,
        }

    @classmethod
    def from_json(cls, d: Mapping, table: Optional[Table] = None) -> "SimResult":
        from physics.table import get_table

        tbl = table if table is not None else get_table(d["table"])
        initial = {int(k): BallState.at_rest(v) for k, v in d["initial"].items()}
        events = [Event.from_json(e) for e in d["events"]]
        final = None
        if "final" in d:
            final = {int(k): BallState(v["state"], tuple(v["r"])) for k, v in d["final"].items()}
        return cls(tbl, initial, events, final, bool(d.get("capped", False)))
