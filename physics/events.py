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

import bisect
import math
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from physics import evolve as _ev
from physics import roots as _roots
from physics.records import BallState, Event  # compiled (physics/records.pyx); part of this module's API
from physics.table import Table, Vec2

STATE_NAMES: Tuple[str, ...] = tuple(_ev.STATE_NAMES)
STATE_CODES: Dict[str, int] = dict(_ev.STATE_CODES)

TRANSITION_KINDS = frozenset(
    {"slide_to_roll", "slide_to_spin", "slide_to_rest", "roll_to_spin", "roll_to_rest", "spin_to_rest"}
)
COLLISION_KINDS = frozenset({"ball_ball", "ball_cushion", "ball_pocket"})
EVENT_KINDS = frozenset({"strike", "event_cap", "off_table"}) | TRANSITION_KINDS | COLLISION_KINDS
#: stroke flags the cue stick's follow-through gives (physics/follow_through.pyx), in this order
STROKE_FLAGS: Tuple[str, ...] = ("double_hit", "push")


_FIXED = frozenset({"stationary", "spinning", "pocketed"})  # motion states whose centre does not move


class SimResult:
    """The result of :func:`physics.simulate`: ``initial`` layout, ordered ``events``, ``final`` layout.

    ``initial`` and ``final`` map ball id -> :class:`BallState` (``initial`` at rest before the
    strike; ``final`` at rest or pocketed). ``table`` is the :class:`~physics.table.Table`.
    ``capped`` is True when the hard event cap stopped the shot. ``flags`` is a tuple of the
    stroke flags of :data:`STROKE_FLAGS` the cue stick's follow-through gave, in that order:
    ``double_hit`` (the tip touched the cue ball a second time), ``push`` (it stayed on the cue
    ball while driving it into a ball close in front); see physics/follow_through.pyx. Empty for
    a clean stroke and for logs written before flags existed.

    A log can also be written by hand (tests, replays): build it with the constructor; the
    trajectory queries only need each ball's state at the events that changed it.
    """

    __slots__ = ("table", "initial", "events", "final", "capped", "flags", "_segments", "_seg_times", "_pair_memo",
                 "_apart")

    def __init__(
        self,
        table: Table,
        initial: Mapping[int, BallState],
        events: Sequence[Event],
        final: Optional[Mapping[int, BallState]] = None,
        capped: bool = False,
        flags: Sequence[str] = (),
    ):
        self.table = table
        self.initial = dict(initial)
        self.events = list(events)
        self.capped = capped
        self.flags = tuple(flags)
        # memos of the queries, made on first use (most logs are only read through)
        self._segments: Optional[Dict[int, List[Tuple[float, BallState]]]] = None
        self._seg_times: Optional[Dict[int, List[float]]] = None
        self._pair_memo: Optional[Dict[Tuple[int, int, int], Dict[Tuple[float, float], float]]] = None
        self._apart: Optional[Dict[Tuple[int, int, float], Tuple[float, float, bool]]] = None
        if final is None:
            final = self.state_at(math.inf)
        self.final = dict(final)

    # ----- trajectories --------------------------------------------------------------------
    def _segs(self, ball: int) -> List[Tuple[float, BallState]]:
        """(t_start, state) for every change of ``ball``, the initial layout first."""
        if self._segments is None:
            self._segments = {}
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
        if self._seg_times is None:
            self._seg_times = {}
        times = self._seg_times.get(ball)
        if times is None or len(times) != len(segs):
            times = self._seg_times[ball] = [ts for ts, _ in segs]
        i = bisect.bisect_right(times, t) - 1  # the last change at or before t (the initial state if none)
        t0, s = segs[i if i > 0 else 0]
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
        # the maximum over each piece [lo, hi] is kept: the referee asks again for the same pair at
        # each of its contacts, over [0, t] with t growing, and the pieces before are the same
        if self._pair_memo is None:
            self._pair_memo = {}
        memo = self._pair_memo.setdefault((a, b, samples), {})
        for i in range(len(ts_sorted) - 1):
            lo, hi = ts_sorted[i], ts_sorted[i + 1]
            known = memo.get((lo, hi))
            if known is not None:
                best = max(best, known)
                if stop_above is not None and best > stop_above:
                    return best
                continue
            # a ball at rest or spinning in place keeps its centre until its next event: when both
            # do over [lo, hi] the distance is constant there and one evaluation is exact
            n = 0 if (self.ball_state_at(a, lo).state in _FIXED and self.ball_state_at(b, lo).state in _FIXED) else samples
            piece = 0.0
            for k in range(n + 1):
                t = lo + (hi - lo) * k / samples
                ra, rb = self.ball_state_at(a, t).r, self.ball_state_at(b, t).r
                piece = max(piece, math.hypot(ra[0] - rb[0], ra[1] - rb[1]))
                if stop_above is not None and max(best, piece) > stop_above:
                    return max(best, piece)
            memo[(lo, hi)] = piece
            best = max(best, piece)
        return best

    def _moving_pieces(self, ball: int, t0: float, t1: float) -> List[Tuple[float, float, Vec2, Vec2, Vec2]]:
        """:meth:`phases` of ``ball`` as ``(ta, tb, r, v, acc)``: r(t) = r + v (t - ta) + acc (t - ta)^2 / 2 on [ta, tb]."""
        c = self.table.cloth
        out = []
        for ta, tb, st in self.phases(ball, t0, t1):
            if st.state in ("sliding", "rolling"):
                acc = _ev.state_acceleration(STATE_CODES[st.state], tuple(st.v), tuple(st.w), self.table.R, c.mu_s, c.mu_r,
                                             c.mu_sp, c.g)
                out.append((ta, tb, tuple(st.r), tuple(st.v), tuple(acc)))
            else:  # stationary, spinning in place or pocketed: the centre does not move
                out.append((ta, tb, tuple(st.r), (0.0, 0.0), (0.0, 0.0)))
        return out

    def pair_apart(self, a: int, b: int, t0: float, t1: float, distance: float) -> bool:
        """True when the centres of balls ``a`` and ``b`` are farther apart than ``distance`` (m) at some
        time in [t0, t1] (s, ``t1`` finite), computed exactly.

        On every interval where both balls keep one constant-acceleration phase (:meth:`phases`)
        the squared centre distance is a quartic in time, so its maximum lies at an end of the
        interval or where its derivative, a cubic, changes sign (``physics.roots``); an interval whose
        crude bound |d0| + |dv| T + |da| T^2 / 2 stays within ``distance`` is passed over. Answers
        for the same pair and distance are remembered, so asking again with a later ``t1`` (as the
        referee does at each contact of a frozen pair) only examines the new time.
        Raises ``ValueError`` for an infinite ``t1``.
        """
        if not math.isfinite(t1):
            raise ValueError("t1: must be finite")
        key = (a, b, distance)
        if self._apart is None:
            self._apart = {}
        done = self._apart.get(key)
        if done is not None and done[0] <= t0:
            if done[2]:
                return done[1] <= t1  # known apart at done[1]
            if t1 <= done[1]:
                return False
            t_from = done[1]
        else:
            t_from = t0
        pa, pb = self._moving_pieces(a, t_from, t1), self._moving_pieces(b, t_from, t1)
        cuts = sorted({t_from, t1} | {p[0] for p in pa + pb if t_from < p[0] < t1} | {p[1] for p in pa + pb if t_from < p[1] < t1})
        d2 = distance * distance
        ia = ib = 0
        for k in range(max(1, len(cuts) - 1)):
            lo = cuts[k]
            hi = cuts[k + 1] if k + 1 < len(cuts) else lo
            while ia + 1 < len(pa) and pa[ia + 1][0] <= lo:
                ia += 1
            while ib + 1 < len(pb) and pb[ib + 1][0] <= lo:
                ib += 1
            d0, dv, da = _relative(pa[ia], pb[ib], lo)
            span = hi - lo
            bound = math.hypot(*d0) + math.hypot(*dv) * span + 0.5 * math.hypot(*da) * span * span
            if bound <= distance:
                continue
            taus = [0.0, span]
            c3 = 0.5 * (da[0] * da[0] + da[1] * da[1])
            c2 = 1.5 * (dv[0] * da[0] + dv[1] * da[1])
            c1 = dv[0] * dv[0] + dv[1] * dv[1] + d0[0] * da[0] + d0[1] * da[1]
            c0 = d0[0] * dv[0] + d0[1] * dv[1]
            if span > 0.0 and (c3 or c2 or c1):
                # extrema of the squared distance: sign changes of its derivative (a cubic)
                taus.extend(_roots.py_sign_change_roots((c0, c1, c2, c3), 0.0, span))
            for tau in sorted(taus):
                x = d0[0] + dv[0] * tau + 0.5 * da[0] * tau * tau
                y = d0[1] + dv[1] * tau + 0.5 * da[1] * tau * tau
                if x * x + y * y > d2:
                    self._apart[key] = (t0 if done is None else done[0], lo + tau, True)
                    return True
        self._apart[key] = (t0 if done is None else done[0], t1, False)
        return False

    # ----- serialisation -------------------------------------------------------------------
    def to_json(self) -> dict:
        """The CLI's JSON shape: ``{"table", "initial", "events": [...], "final": {id: {"r", "state"}},
        "capped"}``, plus ``"flags": [...]`` when the stroke has flags (a clean stroke's map is
        the one logs had before flags existed)."""
        out = {
            "table": self.table.name,
            "initial": {str(k): list(s.r) for k, s in sorted(self.initial.items())},
            "events": [e.to_json() for e in self.events],
            "final": {str(k): {"r": list(s.r), "state": s.state} for k, s in sorted(self.final.items())},
            "capped": self.capped,
        }
        if self.flags:
            out["flags"] = list(self.flags)
        return out

    @classmethod
    def from_json(cls, d: Mapping, table: Optional[Table] = None) -> "SimResult":
        """Rebuild a log from :meth:`to_json` output (a stored record: untrusted input).

        Raises ``ValueError`` naming the part at fault for anything malformed: wrong types,
        unknown event kinds or motion states, non-finite or decreasing times, non-finite
        numbers, ball ids absent from the initial layout, ``flags`` not a list of distinct
        names of :data:`STROKE_FLAGS` (absent: none, as in logs written before flags existed).
        """
        from physics.table import get_table

        try:
            tbl = table if table is not None else get_table(d["table"])
            initial = {int(k): BallState.at_rest(v) for k, v in d["initial"].items()}
            events = [Event.from_json(e) for e in d["events"]]
            final = None
            if "final" in d:
                final = {int(k): BallState(v["state"], tuple(v["r"])) for k, v in d["final"].items()}
        except ValueError:
            raise
        except (TypeError, KeyError, IndexError, AttributeError) as exc:
            raise ValueError(f"sim: malformed event log ({type(exc).__name__}: {exc})") from None
        _check_log(initial, events, final)
        return cls(tbl, initial, events, final, bool(d.get("capped", False)), _check_flags(d.get("flags", ())))


def _check_flags(flags) -> Tuple[str, ...]:
    """Stroke flags of a stored log, in :data:`STROKE_FLAGS` order; ``ValueError`` naming ``sim.flags``."""
    if not isinstance(flags, (list, tuple)):
        raise ValueError(f"sim.flags: expected a list of stroke flags, got {type(flags).__name__}")
    for f in flags:
        if not isinstance(f, str) or f not in STROKE_FLAGS:
            raise ValueError(f"sim.flags: unknown stroke flag {f!r}; expected any of {list(STROKE_FLAGS)}")
    if len(set(flags)) != len(flags):
        raise ValueError("sim.flags: a flag is listed twice")
    return tuple(f for f in STROKE_FLAGS if f in flags)


def _finite(values) -> bool:
    return all(isinstance(x, (int, float)) and math.isfinite(x) for x in values)


def _check_log(initial: Mapping[int, BallState], events: Sequence[Event], final: Optional[Mapping[int, BallState]]) -> None:
    """Validate a rebuilt log (see :meth:`SimResult.from_json`); ``ValueError`` naming the field."""
    for b, s in initial.items():
        if len(s.r) != 2 or not _finite(s.r):
            raise ValueError(f"sim.initial.{b}: position must be two finite numbers")
    t_prev = 0.0
    for i, e in enumerate(events):
        where = f"sim.events[{i}]"
        if e.kind not in EVENT_KINDS:
            raise ValueError(f"{where}.kind: unknown event kind {e.kind!r}")
        if not math.isfinite(e.t) or e.t < t_prev:
            raise ValueError(f"{where}.t: must be finite and not before the previous event, got {e.t!r}")
        t_prev = e.t
        for b in tuple(e.balls) + tuple(e.states):
            if b not in initial:
                raise ValueError(f"{where}.balls: ball {b} is not in the initial layout")
        if e.kind == "ball_ball" and len(e.balls) != 2:
            raise ValueError(f"{where}.balls: a ball_ball event names two balls")
        if e.kind not in ("ball_ball", "strike", "event_cap") and len(e.balls) != 1:
            raise ValueError(f"{where}.balls: a {e.kind} event names one ball")
        for b, s in e.states.items():
            if s.state not in STATE_CODES:
                raise ValueError(f"{where}.states.{b}.state: unknown motion state {s.state!r}")
            if len(s.r) != 2 or len(s.v) != 2 or len(s.w) != 3 or not _finite(s.r + s.v + s.w):
                raise ValueError(f"{where}.states.{b}: r, v, w must be 2, 2 and 3 finite numbers")
    for b, s in (final or {}).items():
        if b not in initial:
            raise ValueError(f"sim.final.{b}: ball {b} is not in the initial layout")
        if s.state not in STATE_CODES or len(s.r) != 2 or not _finite(s.r):
            raise ValueError(f"sim.final.{b}: bad state or position")


def _at(piece: Tuple[float, float, Vec2, Vec2, Vec2], t: float) -> Tuple[Vec2, Vec2, Vec2]:
    ta, _, r, v, acc = piece
    dt = t - ta
    return ((r[0] + v[0] * dt + 0.5 * acc[0] * dt * dt, r[1] + v[1] * dt + 0.5 * acc[1] * dt * dt),
            (v[0] + acc[0] * dt, v[1] + acc[1] * dt), acc)


def _relative(pa, pb, t: float) -> Tuple[Vec2, Vec2, Vec2]:
    """Position, velocity and acceleration of ball a relative to ball b at time ``t`` (their pieces at t)."""
    ra, va, aa = _at(pa, t)
    rb, vb, ab = _at(pb, t)
    return (ra[0] - rb[0], ra[1] - rb[1]), (va[0] - vb[0], va[1] - vb[1]), (aa[0] - ab[0], aa[1] - ab[1])
