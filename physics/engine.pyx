# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The event loop (Leckie & Greenspan 2005; shared/spec/physics.md section 2.2), in C.

Each ball keeps the state it entered at its last event and that event's time ``tref``; its
state at any later time is ``physics.evolve.evolve`` of that state, exactly what a replay of the
event log computes. Per ball the loop caches the time of its next transition, next cushion
contact (straight cushions and jaws) and next pocket entry; per pair the next ball-ball
contact. An event recomputes only the entries of the balls it changed. The earliest cached
time is the next event; exact ties go to transitions, then pockets, then cushions, then
pairs, each in ball order (deterministic; pooltool PR #78 and #257 needed tie rules).

A pair's (or a ball's) contact time is looked for only within the window in which both
balls keep their current motion: until the earliest of their cached transitions, cushion
contacts and pocket entries. Any of those events recomputes every entry of its ball, so no
later contact can be missed. Pairs whose relative path stays clear over the window (a bound
from the chord of the parabola) and cushions outside the ball's bounding box are skipped
without solving anything.

Numerical safeguards (spec section 2.6): after a ball-ball contact the two centres are set
2R + SPACER apart along the line of centres, after a cushion contact the ball is set SPACER off
the cushion (pooltool's "make_kiss"), never into a third ball or a cushion. Touching-and-
closing pairs collide now, touching-and-opening pairs never do (physics.detect). A contact
closing slower than PUSH_SPEED is a push (physics.ball_ball.slow_push) applied to the whole
cluster of balls pressed together: they move in lockstep afterwards, which ends the cascades
of ever smaller impacts of Newton's cradle (pooltool PR #257). A pair pressed together by
the cloth friction parts by the spacer, and by twice the gap of the time before while the press
lasts, up to _PRESS_GAP_MAX (fewer bounces, the same mean contact force); a pressed contact of
the same pair again within _JAM_DT never parted (a slot narrower than the spacer): the jammed
group is pushed as one cluster (physics/README.md, "Jams"). A hard cap on events stops every
ball where it is (``event_cap``).

The loop runs without the GIL and touches no Python object.
"""

from libc.math cimport sqrt, fabs, isfinite, INFINITY, M_PI
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset, memcpy

from physics.evolve cimport (BallS, Cloth, evolve, transition_time, acceleration, classify,
                             enter_next_state, STATIONARY, SPINNING, SLIDING, ROLLING, POCKETED)
from physics.detect cimport Line, Circle, circle_entry, circle_contact, line_entry
from physics.ball_ball cimport frictional_inelastic, frictionless_elastic, pressed_contact, FRICTIONAL_INELASTIC
from physics.han_2005 cimport han_2005
from physics.mathavan_2010 cimport mathavan_2010
from physics.cue_strike cimport strike, direction_deg
from physics.follow_through cimport Tip, tip_after_strike, stroke_flags
from physics.records cimport BallState, Event, packed_state, packed_event

import math

from physics.events import SimResult, STROKE_FLAGS
from physics.evolve import STATE_NAMES
from physics.table import Table, get_table

cdef enum:
    MAXB = 16
    LOG_LOCAL = 64   # events (and ball states) of a shot's log kept on the stack before the heap
    FLAG_SEGS = 64   # cue-ball states within the follow-through examined for the stroke flags
    EV_STRIKE = 0
    EV_BALL_BALL = 1
    EV_BALL_CUSHION = 2
    EV_BALL_POCKET = 3
    EV_SLIDE_TO_ROLL = 4
    EV_SLIDE_TO_SPIN = 5
    EV_SLIDE_TO_REST = 6
    EV_ROLL_TO_SPIN = 7
    EV_ROLL_TO_REST = 8
    EV_SPIN_TO_REST = 9
    EV_CAP = 10

cdef enum:
    HAN_2005 = 0
    MATHAVAN_2010 = 1

EVENT_KIND_NAMES = ("strike", "ball_ball", "ball_cushion", "ball_pocket", "slide_to_roll", "slide_to_spin",
                    "slide_to_rest", "roll_to_spin", "roll_to_rest", "spin_to_rest", "event_cap")
CUSHION_MODELS = {"han_2005": HAN_2005, "mathavan_2010": MATHAVAN_2010}
BALL_MODELS = {"frictional_inelastic": 0, "frictionless_elastic": 1}
cdef dict _CUSHION_CODES = CUSHION_MODELS   # the same dicts, typed: looked up without a method call
cdef dict _BALL_CODES = BALL_MODELS

cdef double _SPACER = 1.0e-6       # m, gap set after every contact (spec 2.6)
cdef double _CLUSTER_GAP = 2.0e-6  # m, gap up to which balls count as pressed together in a push
cdef double _MAX_WINDOW = 1.0e4    # s, bound on any detection window (all states end sooner)
cdef double _JAM_DT = 1.0e-9       # s, a pressed contact repeated this soon never parted: a jam
cdef double _PRESS_GAP_MAX = 1.0e-4  # m, largest gap a sustained press opens (doubling from the spacer)
cdef int MAX_BALL_ID = 15
SPACER = _SPACER
PUSH_SPEED = 0.005                 # m/s, ball-ball closing speed below which a contact is a push
MATHAVAN_STEPS = 2                 # base steps per compression of the Mathavan 2010 integration


cdef struct EvRec:
    double t
    int kind
    int b1
    int b2
    int obj
    int s0
    int ns

cdef struct StRec:
    int ball
    BallS st

cdef struct Log:
    EvRec* ev        # starts in a buffer of the caller's (ev_local): heap only when a shot outgrows it
    int nev
    int cap_ev
    StRec* st
    int nst
    int cap_st
    EvRec* ev_local
    StRec* st_local
    BallS* snap      # optional: every ball's state after each event (tests)
    int want_snap
    int failed

cdef struct Sim:
    int nb
    BallS b[MAXB]
    double tref[MAXB]
    double t_trans[MAXB]
    double t_cush[MAXB]
    int i_cush[MAXB]
    double t_pock[MAXB]
    int i_pock[MAXB]
    double ax[MAXB]
    double ay[MAXB]
    double box[MAXB][4]   # bounding box (x0, x1, y0, y1) of the centre's path up to the ball's horizon, widened by R
    Cloth cl
    double e_b, e_c, f_c, h, v_push
    int ball_model, cushion_model, mathavan_steps
    int nl, nj, npk
    const Line* lines
    const Circle* jaws
    const Circle* pockets
    int max_events
    int log_first, log_second
    Log log
    # the per-pair tables last: _run fills the rows of the balls in play, so a new Sim is zeroed
    # only up to here (_simulate)
    double t_pair[MAXB * MAXB]    # per pair (i < j): time of its next contact
    double t_press[MAXB * MAXB]   # per pair (i < j): time of its last pressed contact (jam detection)
    double t_back[MAXB * MAXB]    # per pair: a pressed contact before this time continues a sustained press
    double g_press[MAXB * MAXB]   # per pair: the gap (m) its last pressed contact opened


# ------------------------------------------------------------------------------------------
# log

cdef void* _grown(void* buf, void* local, int n, int cap, size_t size) noexcept nogil:
    """``buf`` (n records of ``size`` bytes) moved to a heap block of ``cap`` records: realloc'd when it is
    on the heap already, copied out of the caller's stack buffer ``local`` otherwise; NULL when out of memory."""
    cdef void* p = realloc(buf if buf != local else NULL, cap * size)
    if p != NULL and buf == local and n > 0:
        memcpy(p, buf, n * size)
    return p


cdef int _log_event(Sim* s, double t, int kind, int b1, int b2, int obj) noexcept nogil:
    cdef Log* L = &s.log
    cdef int cap
    cdef void* p
    if L.nev == L.cap_ev:
        cap = 2 * L.cap_ev + 64
        p = _grown(L.ev, L.ev_local, L.nev, cap, sizeof(EvRec))
        if p == NULL:
            L.failed = 1
            return -1
        L.ev = <EvRec*> p
        if L.want_snap:
            p = realloc(L.snap, cap * MAXB * sizeof(BallS))
            if p == NULL:
                L.failed = 1
                return -1
            L.snap = <BallS*> p
        L.cap_ev = cap
    L.ev[L.nev].t = t
    L.ev[L.nev].kind = kind
    L.ev[L.nev].b1 = b1
    L.ev[L.nev].b2 = b2
    L.ev[L.nev].obj = obj
    L.ev[L.nev].s0 = L.nst
    L.ev[L.nev].ns = 0
    L.nev += 1
    return 0


cdef int _log_state(Sim* s, int i) noexcept nogil:
    """Append ball i's current state to the last event."""
    cdef Log* L = &s.log
    cdef int cap
    cdef void* p
    if L.nst == L.cap_st:
        cap = 2 * L.cap_st + 64
        p = _grown(L.st, L.st_local, L.nst, cap, sizeof(StRec))
        if p == NULL:
            L.failed = 1
            return -1
        L.st = <StRec*> p
        L.cap_st = cap
    L.st[L.nst].ball = i
    L.st[L.nst].st = s.b[i]
    L.nst += 1
    L.ev[L.nev - 1].ns += 1
    return 0


cdef void _snapshot(Sim* s, double t) noexcept nogil:
    cdef int i
    cdef Log* L = &s.log
    if not L.want_snap or L.failed:
        return
    for i in range(s.nb):
        _at(s, i, t, &L.snap[(L.nev - 1) * MAXB + i])


# ------------------------------------------------------------------------------------------
# state queries

cdef inline bint _moving(const BallS* b) noexcept nogil:
    return b.s == SLIDING or b.s == ROLLING


cdef inline void _at(const Sim* s, int i, double t, BallS* out) noexcept nogil:
    """Ball i's state at time t (t >= its tref, not past its next transition)."""
    out[0] = s.b[i]
    if out.s == SLIDING or out.s == ROLLING or out.s == SPINNING:
        evolve(out, t - s.tref[i], &s.cl)


cdef inline double _horizon(const Sim* s, int i) noexcept nogil:
    """Absolute time until which ball i keeps its current motion (its next own event)."""
    cdef double h = s.t_trans[i]
    if s.t_cush[i] < h:
        h = s.t_cush[i]
    if s.t_pock[i] < h:
        h = s.t_pock[i]
    return h


# ------------------------------------------------------------------------------------------
# detection for one ball / one pair

cdef inline bint _clear(double Cx, double Cy, double Bx, double By, double Ax, double Ay,
                        double W, double D) noexcept nogil:
    """True if |C + B t + A t^2| > D for every t in [0, W] (a sufficient, cheap test).

    The path P(t) = C + B t + A t^2 stays within |A| W^2 / 4 of its chord from P(0) to P(W)
    (P - chord = A t (t - W)), so it cannot come within D of the origin if the chord stays
    farther than D + |A| W^2 / 4 from it.
    """
    cdef double Ex = Cx + (Bx + Ax * W) * W
    cdef double Ey = Cy + (By + Ay * W) * W
    cdef double dx = Ex - Cx
    cdef double dy = Ey - Cy
    cdef double L2 = dx * dx + dy * dy
    cdef double u = 0.0, px, py, lim
    if L2 > 0.0:
        u = -(Cx * dx + Cy * dy) / L2
        if u < 0.0:
            u = 0.0
        elif u > 1.0:
            u = 1.0
    px = Cx + u * dx
    py = Cy + u * dy
    lim = D + 0.25 * sqrt(Ax * Ax + Ay * Ay) * W * W
    return px * px + py * py > lim * lim


cdef void _ball_entries(Sim* s, int i, double t) noexcept nogil:
    """Next transition, cushion contact and pocket entry of ball i (its state was set at t)."""
    cdef const BallS* b = &s.b[i]
    cdef double tt, W, ax, ay, best, x, ex, ey, dev, lo_x, hi_x, lo_y, hi_y, m
    cdef int k, kbest
    cdef double R = s.cl.R
    cdef const Line* L
    cdef const Circle* C
    s.t_cush[i] = INFINITY
    s.i_cush[i] = -1
    s.t_pock[i] = INFINITY
    s.i_pock[i] = -1
    s.box[i][0] = b.rx - R
    s.box[i][1] = b.rx + R
    s.box[i][2] = b.ry - R
    s.box[i][3] = b.ry + R
    if b.s == STATIONARY or b.s == POCKETED:
        s.t_trans[i] = INFINITY
        return
    tt = transition_time(b, &s.cl)
    s.t_trans[i] = t + tt
    if not _moving(b):
        return
    ax = s.ax[i]
    ay = s.ay[i]
    W = tt if tt < _MAX_WINDOW else _MAX_WINDOW
    # bounding box of the path over the window: chord ends widened by the parabola's bulge
    ex = b.rx + (b.vx + ax * W) * W
    ey = b.ry + (b.vy + ay * W) * W
    dev = 0.25 * sqrt(ax * ax + ay * ay) * W * W + R
    lo_x = (b.rx if b.rx < ex else ex) - dev
    hi_x = (b.rx if b.rx > ex else ex) + dev
    lo_y = (b.ry if b.ry < ey else ey) - dev
    hi_y = (b.ry if b.ry > ey else ey) + dev
    best = INFINITY
    kbest = -1
    for k in range(s.nl):
        L = &s.lines[k]
        if L.bx1 < lo_x or L.bx0 > hi_x or L.by1 < lo_y or L.by0 > hi_y:
            continue
        x = line_entry(b, 2.0 * ax, 2.0 * ay, L, R, W)
        if x < best:
            best = x
            kbest = k
    if best < W:
        W = best
    for k in range(s.nj):
        C = &s.jaws[k]
        m = C.r
        if C.x + m < lo_x or C.x - m > hi_x or C.y + m < lo_y or C.y - m > hi_y:
            continue
        if _clear(b.rx - C.x, b.ry - C.y, b.vx, b.vy, ax, ay, W, m + R):
            continue
        x = circle_contact(b.rx - C.x, b.ry - C.y, b.vx, b.vy, ax, ay, m + R, W)
        if x < best:
            best = x
            kbest = s.nl + k
    if kbest >= 0:
        s.t_cush[i] = t + best
        s.i_cush[i] = kbest
        if best < W:
            W = best
    best = INFINITY
    for k in range(s.npk):
        C = &s.pockets[k]
        m = C.r - R
        if C.x + m < lo_x or C.x - m > hi_x or C.y + m < lo_y or C.y - m > hi_y:
            continue
        if _clear(b.rx - C.x, b.ry - C.y, b.vx, b.vy, ax, ay, W, C.r):
            continue
        x = circle_entry(b.rx - C.x, b.ry - C.y, b.vx, b.vy, ax, ay, C.r, W)
        if x < best:
            best = x
            kbest = k
    if best < INFINITY:
        s.t_pock[i] = t + best
        s.i_pock[i] = kbest
        if best < W:
            W = best
    # the path's bounding box up to the horizon (for cheap pair tests)
    ex = b.rx + (b.vx + ax * W) * W
    ey = b.ry + (b.vy + ay * W) * W
    dev = 0.25 * sqrt(ax * ax + ay * ay) * W * W + R
    s.box[i][0] = (b.rx if b.rx < ex else ex) - dev
    s.box[i][1] = (b.rx if b.rx > ex else ex) + dev
    s.box[i][2] = (b.ry if b.ry < ey else ey) - dev
    s.box[i][3] = (b.ry if b.ry > ey else ey) + dev


cdef double _pair_time(Sim* s, int i, int j, double t) noexcept nogil:
    """Absolute time of the next contact of balls i and j, both evolved from their tref to t."""
    cdef const BallS* bi = &s.b[i]
    cdef const BallS* bj = &s.b[j]
    cdef bint mi = _moving(bi)
    cdef bint mj = _moving(bj)
    cdef double W, hi, hj, di, dj, Cx, Cy, Bx, By, Ax, Ay, D, x
    if bi.s == POCKETED or bj.s == POCKETED or not (mi or mj):
        return INFINITY
    if s.box[i][1] < s.box[j][0] or s.box[j][1] < s.box[i][0] or s.box[i][3] < s.box[j][2] or s.box[j][3] < s.box[i][2]:
        return INFINITY
    hi = _horizon(s, i)
    hj = _horizon(s, j)
    W = (hi if hi < hj else hj) - t
    if W > _MAX_WINDOW:
        W = _MAX_WINDOW
    if not (W >= 0.0):
        return INFINITY
    # positions and velocities at t from the motion polynomials r = r0 + v0 dt + a dt^2
    di = t - s.tref[i]
    dj = t - s.tref[j]
    Cx = (bj.rx + (bj.vx + s.ax[j] * dj) * dj) - (bi.rx + (bi.vx + s.ax[i] * di) * di)
    Cy = (bj.ry + (bj.vy + s.ay[j] * dj) * dj) - (bi.ry + (bi.vy + s.ay[i] * di) * di)
    Bx = (bj.vx + 2.0 * s.ax[j] * dj) - (bi.vx + 2.0 * s.ax[i] * di)
    By = (bj.vy + 2.0 * s.ay[j] * dj) - (bi.vy + 2.0 * s.ay[i] * di)
    Ax = s.ax[j] - s.ax[i]
    Ay = s.ay[j] - s.ay[i]
    D = 2.0 * s.cl.R
    if _clear(Cx, Cy, Bx, By, Ax, Ay, W, D):
        return INFINITY
    x = circle_contact(Cx, Cy, Bx, By, Ax, Ay, D, W)
    return t + x


cdef void _recompute(Sim* s, int i, double t) noexcept nogil:
    """Refresh every cached entry of ball i (its state was just set at time t)."""
    cdef int j
    _ball_entries(s, i, t)
    for j in range(s.nb):
        if j < i:
            s.t_pair[j * MAXB + i] = _pair_time(s, j, i, t)
        elif j > i:
            s.t_pair[i * MAXB + j] = _pair_time(s, i, j, t)


# ------------------------------------------------------------------------------------------
# resolution

cdef void _set(Sim* s, int i, double t, const BallS* b) noexcept nogil:
    """Ball i enters state ``b`` at time t; caches half its acceleration (motion polynomial)."""
    cdef double ax = 0.0, ay = 0.0
    s.b[i] = b[0]
    s.tref[i] = t
    if b.s == SLIDING or b.s == ROLLING:
        acceleration(b, &s.cl, &ax, &ay)
    s.ax[i] = 0.5 * ax
    s.ay[i] = 0.5 * ay


cdef double _room(const Sim* s, int x, const BallS* bx, int other, double ux, double uy,
                  double want, double t) noexcept nogil:
    """How far (m, at most ``want``) ball x may be moved along unit (ux, uy) by a spacer push.

    A push never brings x closer than 2R to a third ball, nor closer at all to one it already
    overlaps, nor into a straight cushion, so de-penetration creates no new penetration.
    """
    cdef double room = want, cx, cy, cu, c2, L2, disc, dlt, gap, rate, sp, dt
    cdef int k
    cdef double R = s.cl.R
    L2 = 4.0 * R * R
    for k in range(s.nb):
        if k == x or k == other or s.b[k].s == POCKETED:
            continue
        dt = t - s.tref[k]
        cx = bx.rx - (s.b[k].rx + (s.b[k].vx + s.ax[k] * dt) * dt)
        cy = bx.ry - (s.b[k].ry + (s.b[k].vy + s.ay[k] * dt) * dt)
        cu = cx * ux + cy * uy
        if cu >= 0.0:
            continue
        c2 = cx * cx + cy * cy
        if c2 <= L2:
            return 0.0
        disc = cu * cu - (c2 - L2)
        if disc < 0.0:
            continue
        dlt = -cu - sqrt(disc)
        if dlt < room:
            room = dlt if dlt > 0.0 else 0.0
    for k in range(s.nl):
        rate = s.lines[k].nx * ux + s.lines[k].ny * uy
        if rate >= 0.0:
            continue
        sp = (bx.rx - s.lines[k].x1) * s.lines[k].ux + (bx.ry - s.lines[k].y1) * s.lines[k].uy
        if sp < 0.0 or sp > s.lines[k].length:
            continue
        gap = s.lines[k].nx * (bx.rx - s.lines[k].x1) + s.lines[k].ny * (bx.ry - s.lines[k].y1) - R
        if gap > room * -rate:
            continue
        dlt = (gap if gap > 0.0 else 0.0) / -rate
        if dlt < room:
            room = dlt
    return room


cdef bint _cluster_push(Sim* s, int i, int j, BallS* a, BallS* b, double t, double v_push, bint jam) noexcept nogil:
    """A slow contact of i and j pushes the whole cluster pressed together with them.

    The cluster: i, j and, transitively, every ball touching a member (gap <= CLUSTER_GAP) and
    moving relative to it slower than ``v_push``. All get the mean velocity and spin (the push rule
    of physics.ball_ball.slow_push, extended to the balls the push presses on), so the cluster
    moves in lockstep. Returns False (and does nothing) if i and j do not move slower than
    ``v_push`` relative to each other, unless ``jam``: then i and j are a jammed pair (a pressed
    contact repeated at the same instant, see _resolve_pair) and are pushed together whatever
    their relative speed, with the balls pressed against them as above.
    """
    cdef BallS st[MAXB]
    cdef bint inside[MAXB]
    cdef int queue[MAXB]
    cdef int head = 0, tail = 0, k, m, n
    cdef double dx, dy, d, vx = 0.0, vy = 0.0, wx = 0.0, wy = 0.0, wz = 0.0
    cdef double reach2 = 2.0 * s.cl.R + _CLUSTER_GAP
    # slow means the whole relative velocity, not only its normal part: a fast tangential graze
    # (closing speed about zero) is no push
    dx = a.vx - b.vx
    dy = a.vy - b.vy
    if not jam and not (dx * dx + dy * dy < v_push * v_push):
        return False
    for k in range(s.nb):
        inside[k] = False
    st[i] = a[0]
    st[j] = b[0]
    inside[i] = True
    inside[j] = True
    queue[tail] = i
    tail += 1
    queue[tail] = j
    tail += 1
    while head < tail:
        m = queue[head]
        head += 1
        for k in range(s.nb):
            if inside[k] or s.b[k].s == POCKETED:
                continue
            _at(s, k, t, &st[k])
            dx = st[k].rx - st[m].rx
            dy = st[k].ry - st[m].ry
            d = sqrt(dx * dx + dy * dy)
            if d > reach2 or d == 0.0:
                continue
            dx = st[m].vx - st[k].vx
            dy = st[m].vy - st[k].vy
            if dx * dx + dy * dy < v_push * v_push:
                inside[k] = True
                queue[tail] = k
                tail += 1
    for n in range(tail):
        m = queue[n]
        vx += st[m].vx
        vy += st[m].vy
        wx += st[m].wx
        wy += st[m].wy
        wz += st[m].wz
    vx /= tail
    vy /= tail
    wx /= tail
    wy /= tail
    wz /= tail
    for n in range(tail):
        m = queue[n]
        st[m].vx = vx
        st[m].vy = vy
        st[m].wx = wx
        st[m].wy = wy
        st[m].wz = wz
        if st[m].s != POCKETED:
            st[m].s = SLIDING
        classify(&st[m], &s.cl)
        _set(s, m, t, &st[m])
    a[0] = st[i]
    b[0] = st[j]
    if _log_event(s, t, EV_BALL_BALL, s.log_first, s.log_second, -1) == 0:
        _log_state(s, s.log_first)
        _log_state(s, s.log_second)
        for n in range(tail):
            m = queue[n]
            if m != i and m != j:
                _log_state(s, m)
    for n in range(tail):
        _recompute(s, queue[n], t)
    return True


cdef void _resolve_pair(Sim* s, int i, int j, double t) noexcept nogil:
    cdef BallS a, b
    cdef double dx, dy, d, push, nx, ny, van, vbn, pa, pb, da, db, press, v_sep, closing, gap
    cdef int first, second, k
    _at(s, i, t, &a)
    _at(s, j, t, &b)
    dx = b.rx - a.rx
    dy = b.ry - a.ry
    d = sqrt(dx * dx + dy * dy)
    nx = dx / d if d > 0.0 else 1.0
    ny = dy / d if d > 0.0 else 0.0
    # the "mover" (listed first) is the ball moving more toward the other
    van = a.vx * nx + a.vy * ny
    vbn = -(b.vx * nx + b.vy * ny)
    if vbn > van:
        first = j
        second = i
    else:
        first = i
        second = j
    s.log_first = first
    s.log_second = second
    if s.ball_model == FRICTIONAL_INELASTIC:
        if _cluster_push(s, i, j, &a, &b, t, s.v_push, False):
            return
        # pressing: the cloth friction drives the two together (relative acceleration along n)
        press = 2.0 * ((s.ax[i] - s.ax[j]) * nx + (s.ay[i] - s.ay[j]) * ny)
        k = i * MAXB + j
        # the gap a pressed contact opens: the spacer, doubled at each pressed contact of a
        # sustained press (the pair back within two flights of its last one) up to _PRESS_GAP_MAX
        gap = _SPACER
        if t <= s.t_back[k]:
            gap = 2.0 * s.g_press[k]
            if gap > _PRESS_GAP_MAX:
                gap = _PRESS_GAP_MAX
        v_sep = sqrt(2.0 * press * gap) if press > 0.0 else 0.0
        closing = (a.vx - b.vx) * nx + (a.vy - b.vy) * ny
        if s.e_b * closing < v_sep:
            # a pressed contact; the same pair pressed again at the same instant never parted:
            # its separation sent it into a third ball that sent it straight back (a slot with
            # less play than the spacer). That cycle takes no time and need not end (the rub
            # feeds each separation): the jammed group is one cluster, pushed in lockstep.
            if t - s.t_press[k] <= _JAM_DT:
                _cluster_push(s, i, j, &a, &b, t, s.v_push, True)
                return
            s.t_press[k] = t
            s.g_press[k] = gap
            s.t_back[k] = t + 4.0 * v_sep / press
        if s.e_b * closing >= v_sep or not pressed_contact(&a, &b, s.cl.R, v_sep):
            frictional_inelastic(&a, &b, s.cl.R, s.e_b)
    else:
        frictionless_elastic(&a, &b)
    push = 2.0 * s.cl.R + _SPACER - d
    if push > 0.0 and d > 0.0:
        # half each, or what the neighbours leave room for (the other ball takes the rest)
        pa = _room(s, i, &a, j, -nx, -ny, push, t)
        pb = _room(s, j, &b, i, nx, ny, push, t)
        da = 0.5 * push if 0.5 * push < pa else pa
        db = push - da if push - da < pb else pb
        if da + db < push:
            da = push - db if push - db < pa else pa
        a.rx -= da * nx
        a.ry -= da * ny
        b.rx += db * nx
        b.ry += db * ny
    classify(&a, &s.cl)
    classify(&b, &s.cl)
    _set(s, i, t, &a)
    _set(s, j, t, &b)
    if _log_event(s, t, EV_BALL_BALL, first, second, -1) == 0:
        _log_state(s, first)
        _log_state(s, second)
    _recompute(s, i, t)
    _recompute(s, j, t)


cdef void _resolve_cushion(Sim* s, int i, int k, double t) noexcept nogil:
    cdef BallS b
    cdef double ox, oy, gap, dx, dy, d
    cdef double R = s.cl.R
    cdef const Line* L
    cdef const Circle* C
    _at(s, i, t, &b)
    if k < s.nl:
        L = &s.lines[k]
        ox = -L.nx
        oy = -L.ny
        gap = L.nx * (b.rx - L.x1) + L.ny * (b.ry - L.y1) - R
    else:
        C = &s.jaws[k - s.nl]
        dx = C.x - b.rx
        dy = C.y - b.ry
        d = sqrt(dx * dx + dy * dy)
        ox = dx / d
        oy = dy / d
        gap = d - C.r - R
    if s.cushion_model == MATHAVAN_2010:
        mathavan_2010(&b, ox, oy, R, s.h, s.e_c, s.f_c, s.cl.mu_s, s.mathavan_steps)
    else:
        han_2005(&b, ox, oy, R, s.h, s.e_c, s.f_c)
    if gap < _SPACER:
        gap = _room(s, i, &b, -1, -ox, -oy, _SPACER - gap, t)
        b.rx -= gap * ox
        b.ry -= gap * oy
    classify(&b, &s.cl)
    _set(s, i, t, &b)
    if _log_event(s, t, EV_BALL_CUSHION, i, -1, k) == 0:
        _log_state(s, i)
    _recompute(s, i, t)


cdef void _resolve_pocket(Sim* s, int i, int k, double t) noexcept nogil:
    cdef BallS b
    memset(&b, 0, sizeof(BallS))
    b.rx = s.pockets[k].x
    b.ry = s.pockets[k].y
    b.s = POCKETED
    _set(s, i, t, &b)
    if _log_event(s, t, EV_BALL_POCKET, i, -1, k) == 0:
        _log_state(s, i)
    _recompute(s, i, t)


cdef void _resolve_transition(Sim* s, int i, double t) noexcept nogil:
    cdef BallS b
    cdef int old, new, kind
    _at(s, i, t, &b)
    old = b.s
    new = enter_next_state(&b, &s.cl)
    if old == SLIDING:
        kind = EV_SLIDE_TO_ROLL if new == ROLLING else (EV_SLIDE_TO_SPIN if new == SPINNING else EV_SLIDE_TO_REST)
    elif old == ROLLING:
        kind = EV_ROLL_TO_SPIN if new == SPINNING else EV_ROLL_TO_REST
    else:
        kind = EV_SPIN_TO_REST
    _set(s, i, t, &b)
    if _log_event(s, t, kind, i, -1, -1) == 0:
        _log_state(s, i)
    _recompute(s, i, t)


cdef void _stop_all(Sim* s, double t) noexcept nogil:
    """The event cap: every ball still in motion is stopped where it is at time t."""
    cdef int i
    cdef BallS b
    if _log_event(s, t, EV_CAP, -1, -1, -1) != 0:
        return
    for i in range(s.nb):
        if s.b[i].s == STATIONARY or s.b[i].s == POCKETED:
            continue
        _at(s, i, t, &b)
        b.vx = 0.0
        b.vy = 0.0
        b.wx = 0.0
        b.wy = 0.0
        b.wz = 0.0
        b.s = STATIONARY
        _set(s, i, t, &b)
        _log_state(s, i)


# ------------------------------------------------------------------------------------------
# the loop

cdef int _run(Sim* s) noexcept nogil:
    """Run events to the end (or the cap). Returns 1 if capped, 0 if not, -1 on memory failure."""
    cdef int i, j, kind, bi, bj, obj, n = 0, last_kind = -1, last_i = -1, last_j = -1
    cdef double t, tnow = 0.0, x
    for i in range(s.nb):
        for j in range(s.nb):
            s.t_pair[i * MAXB + j] = INFINITY
            s.t_press[i * MAXB + j] = -INFINITY
            s.t_back[i * MAXB + j] = -INFINITY
            s.g_press[i * MAXB + j] = _SPACER
    for i in range(s.nb):
        _set(s, i, 0.0, &s.b[i])
    for i in range(s.nb):
        _ball_entries(s, i, 0.0)
    for i in range(s.nb):
        for j in range(i + 1, s.nb):
            s.t_pair[i * MAXB + j] = _pair_time(s, i, j, 0.0)
    while not s.log.failed:
        t = INFINITY
        kind = -1
        bi = -1
        bj = -1
        for i in range(s.nb):
            if s.t_trans[i] < t:
                t = s.t_trans[i]
                kind = 0
                bi = i
        for i in range(s.nb):
            if s.t_pock[i] < t:
                t = s.t_pock[i]
                kind = 1
                bi = i
        for i in range(s.nb):
            if s.t_cush[i] < t:
                t = s.t_cush[i]
                kind = 2
                bi = i
        for i in range(s.nb):
            for j in range(i + 1, s.nb):
                x = s.t_pair[i * MAXB + j]
                if x < t:
                    t = x
                    kind = 3
                    bi = i
                    bj = j
        if kind < 0:
            return 0
        if n >= s.max_events:
            _stop_all(s, tnow)
            _snapshot(s, tnow)
            return 1
        if t < tnow:      # never step back in time (a root a hair before "now")
            t = tnow
        if t == tnow and kind == last_kind and bi == last_i and bj == last_j and kind >= 2:
            # the same contact again at the same instant, nothing else in between: the first one
            # changed nothing it could (a tangential touch with no room to set the spacer). Drop
            # it until one of the two moves on (any event of either recomputes the entry).
            if kind == 2:
                s.t_cush[bi] = INFINITY
            else:
                s.t_pair[bi * MAXB + bj] = INFINITY
            continue
        last_kind = kind
        last_i = bi
        last_j = bj
        if kind == 0:
            _resolve_transition(s, bi, t)
        elif kind == 1:
            _resolve_pocket(s, bi, s.i_pock[bi], t)
        elif kind == 2:
            _resolve_cushion(s, bi, s.i_cush[bi], t)
        else:
            _resolve_pair(s, bi, bj, t)
        _snapshot(s, t)
        tnow = t
        n += 1
    return -1


cdef int _flags(const Sim* s, const Strike* strikes, int ns, const double* px, const double* py,
                double m, double M) noexcept nogil:
    """The stroke flags of a finished run (mask of physics.follow_through FLAG_*): for each
    strike, the cue ball's states from the log up to the end of the stick's follow-through."""
    cdef Tip tip
    cdef double ts[FLAG_SEGS]
    cdef BallS sts[FLAG_SEGS]
    cdef double cph, sph, t_frozen, dx, dy, touch = 2.0 * s.cl.R + _CLUSTER_GAP
    cdef int k, e, q, n, i, other, mask = 0
    cdef bint first
    cdef const EvRec* ev
    cdef const Strike* sk
    for k in range(ns):
        sk = &strikes[k]
        i = sk.ball
        direction_deg(sk.phi, &cph, &sph)
        tip_after_strike(&tip, px[i], py[i], sk.V0, cph, sph, sk.theta, sk.a, sk.b, m, s.cl.R, M)
        n = 0
        t_frozen = INFINITY
        first = True
        for e in range(s.log.nev):
            ev = &s.log.ev[e]
            if ev.t > tip.t_end:
                break
            if first and ev.kind == EV_BALL_BALL and (ev.b1 == i or ev.b2 == i):
                first = False
                other = ev.b2 if ev.b1 == i else ev.b1
                dx = px[other] - px[i]
                dy = py[other] - py[i]
                if dx * dx + dy * dy <= touch * touch:
                    t_frozen = ev.t
            for q in range(ev.s0, ev.s0 + ev.ns):
                if s.log.st[q].ball == i:
                    if n == FLAG_SEGS:   # more states than kept: look no further than this one
                        tip.t_end = ev.t
                        break
                    ts[n] = ev.t
                    sts[n] = s.log.st[q].st
                    n += 1
        mask |= stroke_flags(&tip, ts, sts, n, &s.cl, t_frozen)
    return mask


# ------------------------------------------------------------------------------------------
# Python side

cdef class TableGeometry:
    """A table preset in C arrays (built once per :class:`~physics.table.Table`, then cached)."""

    cdef Line* lines
    cdef Circle* jaws
    cdef Circle* pockets
    cdef int nl, nj, npk
    cdef Cloth cl
    cdef double mass, e_b, e_c, f_c, h, cue_mass, cue_end_mass, length, width
    cdef readonly object table
    cdef int _reason_index
    cdef readonly tuple cushion_names
    cdef readonly tuple pocket_names
    cdef readonly tuple pocket_centres
    cdef double mouth[MAXB][16]  # per pocket mouth: four half-planes (point x, y, inward normal x, y)
    cdef int nmouth
    cdef int default_cushion     # code of the table's default cushion model (-1: not a known model)

    def __cinit__(self, table):
        self.lines = NULL
        self.jaws = NULL
        self.pockets = NULL

    def __init__(self, table):
        cdef int k
        cdef double dx, dy, n
        self.table = table
        self.length = table.length
        self.width = table.width
        self.nl = len(table.cushions)
        self.nj = len(table.jaws)
        self.npk = len(table.pockets)
        self.lines = <Line*> malloc((self.nl + 1) * sizeof(Line))
        self.jaws = <Circle*> malloc((self.nj + 1) * sizeof(Circle))
        self.pockets = <Circle*> malloc((self.npk + 1) * sizeof(Circle))
        if self.lines == NULL or self.jaws == NULL or self.pockets == NULL:
            raise MemoryError()
        names = []
        for k, c in enumerate(table.cushions):
            self.lines[k].x1, self.lines[k].y1 = c.p1
            self.lines[k].x2, self.lines[k].y2 = c.p2
            self.lines[k].nx, self.lines[k].ny = c.normal
            dx = c.p2[0] - c.p1[0]
            dy = c.p2[1] - c.p1[1]
            n = sqrt(dx * dx + dy * dy)
            self.lines[k].ux = dx / n
            self.lines[k].uy = dy / n
            self.lines[k].length = n
            self.lines[k].bx0 = min(c.p1[0], c.p2[0])
            self.lines[k].bx1 = max(c.p1[0], c.p2[0])
            self.lines[k].by0 = min(c.p1[1], c.p2[1])
            self.lines[k].by1 = max(c.p1[1], c.p2[1])
            names.append(c.name)
        for k, j in enumerate(table.jaws):
            self.jaws[k].x, self.jaws[k].y = j.centre
            self.jaws[k].r = j.radius
            names.append(j.name)
        for k, p in enumerate(table.pockets):
            self.pockets[k].x, self.pockets[k].y = p.centre
            self.pockets[k].r = p.radius
        self.cushion_names = tuple(names)
        self.pocket_names = tuple(p.name for p in table.pockets)
        self._mouths(table)
        self.pocket_centres = tuple(tuple(p.centre) for p in table.pockets)
        cloth = table.cloth
        self.cl.R = table.ball.radius
        self.cl.mu_s = cloth.mu_s
        self.cl.mu_r = cloth.mu_r
        self.cl.mu_sp = cloth.mu_sp
        self.cl.g = cloth.g
        self.mass = table.ball.mass
        self.e_b = cloth.e_b
        self.e_c = cloth.e_c
        self.f_c = cloth.f_c
        self.h = table.cushion_height
        self.cue_mass = table.cue.mass
        self.cue_end_mass = table.cue.end_mass
        name = table.default_cushion_model
        self.default_cushion = CUSHION_MODELS.get(name, -1) if isinstance(name, str) else -1

    def _mouths(self, table):
        """Each pocket's mouth as four half-planes (a point and the inward normal, x, y, nx, ny):
        the playing side of its two facings' lines, the pocket's side of the line through the two
        jaw tips (where the cushion noses end) and the mouth's side of the line through the
        facings' back ends (which lies inside the pocket circle)."""
        cdef int k = 0, i
        cushions = {c.name: c for c in table.cushions}
        jaws = {j.name: j for j in table.jaws}
        rail_ends = [e for c in table.cushions if "." not in c.name for e in (c.p1, c.p2)]
        for p in table.pockets:
            f0 = cushions.get(f"{p.name}.facing0")
            f1 = cushions.get(f"{p.name}.facing1")
            tips = []
            for j in (jaws.get(f"{p.name}.jaw0"), jaws.get(f"{p.name}.jaw1")):
                if j is not None:
                    # the tip: the end of a cushion nose on the jaw's circle
                    tips += [e for e in rail_ends if abs(math.dist(e, j.centre) - j.radius) <= 1e-9 + 1e-6 * j.radius][:1]
            if f0 is None or f1 is None or len(tips) != 2 or k >= MAXB:
                continue
            back = _half_plane(f0.p2, f1.p2, f0.p1)
            front = _half_plane(tips[0], tips[1], p.centre)
            planes = (f0.p1[0], f0.p1[1], f0.normal[0], f0.normal[1],
                      f1.p1[0], f1.p1[1], f1.normal[0], f1.normal[1]) + front + back
            for i in range(16):
                self.mouth[k][i] = planes[i]
            k += 1
        self.nmouth = k

    def __dealloc__(self):
        free(self.lines)
        free(self.jaws)
        free(self.pockets)


# The log's objects: its events and ball states are compiled types (physics/records.pyx) built
# by their own allocator with their fields set directly, the states holding their numbers as
# doubles (packed_state). The SimResult is a Python class with slots whose __init__ copies its
# containers: it is built by object.__new__ (the type's tp_new slot) and its slots are filled
# directly: each field of a slots class is a member descriptor holding the slot's offset in the
# object, and a new object's slots are empty (NULL), so storing a new reference there is what
# object.__setattr__ ends up doing, without its lookups. This gives an equal object (checked
# below at import against the ordinary constructor, which is used instead if the check fails).
from cpython.object cimport PyTypeObject, PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsLongAndOverflow

cdef extern from "structmember.h":
    ctypedef struct PyMemberDef:
        const char* name
        int type
        Py_ssize_t offset
        int flags
    enum:
        T_OBJECT_EX
        READONLY

cdef extern from "Python.h":
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    PyTypeObject PyMemberDescr_Type

cdef tuple _NO_ARGS = ()


cdef Py_ssize_t _slot_offset(type cls, str name) except -1:
    """Offset in ``cls``'s instances of the slot of field ``name`` (-1 if it is not a plain
    object slot: then the fast path is off)."""
    d = cls.__dict__.get(name)
    cdef PyMemberDef* m
    if d is None or type(d) is not <type> &PyMemberDescr_Type:
        return 0
    m = (<PyMemberDescrObject*> <PyObject*> d).d_member
    if m.type != T_OBJECT_EX or (m.flags & READONLY) or m.offset <= 0:
        return 0
    return m.offset


cdef inline object _new_instance(type cls):
    """object.__new__(cls) through the type's own slot (the classes define no __new__)."""
    return (<PyTypeObject*> cls).tp_new(cls, <PyObject*> _NO_ARGS, NULL)


cdef inline void _put(object o, Py_ssize_t offset, object value) noexcept:
    """Fill the empty slot at ``offset`` of the new object ``o`` with a new reference to ``value``."""
    Py_INCREF(value)
    (<PyObject**> ((<char*> <PyObject*> o) + offset))[0] = <PyObject*> value


cdef object _ball_state(const BallS* b, list names):
    """The log's :class:`~physics.ball_state.BallState` of ``b``: its numbers kept as doubles."""
    cdef BallState o
    if b.s == STATIONARY or b.s == POCKETED:
        # at rest: v and w are exactly zero (classify / the pocket set them so); share the tuples
        o = packed_state(names[b.s], b.rx, b.ry, 0.0, 0.0, 0.0, 0.0, 0.0)
        o._v = _ZERO2
        o._w = _ZERO3
        return o
    return packed_state(names[b.s], b.rx, b.ry, b.vx, b.vy, b.wx, b.wy, b.wz)


cdef tuple _ZERO2 = (0.0, 0.0)
cdef tuple _ZERO3 = (0.0, 0.0, 0.0)
cdef list _STATE_NAMES = list(STATE_NAMES)
cdef tuple _KIND_NAMES = EVENT_KIND_NAMES
# the ``balls`` tuples of events, shared: (id,) and (id1, id2) for every id
cdef list _ONE = [(i,) for i in range(MAX_BALL_ID + 1)]
cdef list _TWO = [[(i, j) for j in range(MAX_BALL_ID + 1)] for i in range(MAX_BALL_ID + 1)]


cdef object _at_rest(double x, double y):
    """A ball at rest at (x, y): what BallState.at_rest gives, built the fast way."""
    cdef BallS b
    memset(&b, 0, sizeof(BallS))
    b.rx = x
    b.ry = y
    b.s = STATIONARY
    return _ball_state(&b, _STATE_NAMES)


cdef type _SIM_RESULT = SimResult
# SimResult's slots: the six the constructor takes, then its four memos (None until used)
cdef tuple _SIM_FIELDS = ("table", "initial", "events", "final", "capped", "flags")
cdef tuple _SIM_MEMOS = ("_segments", "_seg_times", "_pair_memo", "_apart")
cdef Py_ssize_t _OFF_SIM[10]
# the flags tuple of each mask (bit k: STROKE_FLAGS[k]; physics.follow_through FLAG_*)
cdef tuple _FLAG_TUPLES = tuple(tuple(n for k, n in enumerate(STROKE_FLAGS) if mask >> k & 1) for mask in range(4))


cdef object _sim_result(object table, dict initial, list events, dict final, bint capped, int flags):
    """``SimResult(table, initial, events, final, capped, flags)`` for containers nobody else
    holds (the constructor's copies are skipped); ``flags`` a mask of FLAG_NAMES bits."""
    cdef object o
    cdef int i
    if not _FAST_OBJECTS:
        return SimResult(table, initial, events, final, capped, _FLAG_TUPLES[flags])
    o = _new_instance(_SIM_RESULT)
    _put(o, _OFF_SIM[0], table)
    _put(o, _OFF_SIM[1], initial)
    _put(o, _OFF_SIM[2], events)
    _put(o, _OFF_SIM[3], final)
    _put(o, _OFF_SIM[4], True if capped else False)
    _put(o, _OFF_SIM[5], _FLAG_TUPLES[flags])
    for i in range(6, 10):
        _put(o, _OFF_SIM[i], None)   # the query memos, made on first use
    return o


def _fast_objects_work():
    cdef int i
    cdef BallS b
    if SimResult.__new__ is not object.__new__ or set(SimResult.__slots__) != set(_SIM_FIELDS + _SIM_MEMOS):
        return False
    for i, name in enumerate(_SIM_FIELDS + _SIM_MEMOS):
        _OFF_SIM[i] = _slot_offset(SimResult, name)
        if _OFF_SIM[i] == 0:
            return False
    b.rx, b.ry, b.vx, b.vy, b.wx, b.wy, b.wz, b.s = 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, SLIDING
    st = _ball_state(&b, list(STATE_NAMES))
    ev = Event(0.5, "strike", (0,), None, None, {0: st})
    # a SimResult built the fast way answers as the constructor's does
    from physics.table import get_table
    table = get_table("carom")
    start = {0: BallState.at_rest((1.0, 0.7))}
    plain = SimResult(table, dict(start), [ev], {0: st}, False, ("double_hit",))
    fast = _sim_result(table, dict(start), [ev], {0: st}, False, 1)
    for name in _SIM_FIELDS + _SIM_MEMOS:
        if getattr(fast, name) != getattr(plain, name):
            return False
    return fast.state_at(0.6) == plain.state_at(0.6) and fast.to_json() == plain.to_json()


cdef bint _FAST_OBJECTS = False
_FAST_OBJECTS = _fast_objects_work()
FAST_OBJECTS = _FAST_OBJECTS   # tests: the fast path is in use


def _half_plane(a, b, inside):
    """The line through points a and b as (x, y, nx, ny) with the unit normal toward ``inside``."""
    nx, ny = a[1] - b[1], b[0] - a[0]
    if nx * (inside[0] - a[0]) + ny * (inside[1] - a[1]) < 0.0:
        nx, ny = -nx, -ny
    n = math.hypot(nx, ny)
    return (a[0], a[1], nx / n, ny / n)


cdef inline bint _in_mouth(TableGeometry g, int k, double x, double y, double tol) noexcept:
    """True if (x, y) is within ``tol`` of pocket mouth k (inside its four half-planes)."""
    cdef const double* m = g.mouth[k]
    cdef int i
    for i in range(0, 16, 4):
        if (x - m[i]) * m[i + 2] + (y - m[i + 1]) * m[i + 3] < -tol:
            return False
    return True


cdef int _surface_problem(TableGeometry g, double x, double y, double tol) noexcept:
    """0 if a ball at rest with centre (x, y) is on the playing surface, else a reason code.

    The playing surface is where a ball's centre can be: inside the cushion noses' rectangle or
    in a pocket mouth (between the lines of its two facings, in front of the line through their
    back ends), minus every place where the ball would overlap a straight cushion it faces (by
    more than ``tol``) or a jaw, or where its centre is in a pocket circle. Reasons: 1 off the
    surface, 2 in pocket k, 3 on jaw k, 4 into cushion k (k in ``g._reason_index``). Every
    position a shot can end in passes this test (tests/physics: property tests and balls driven
    into every jaw).
    """
    cdef int k
    cdef double R = g.cl.R, dx, dy, d, u, gap
    cdef bint inside
    cdef const Line* L
    for k in range(g.npk):
        dx = x - g.pockets[k].x
        dy = y - g.pockets[k].y
        d = dx * dx + dy * dy
        if d < g.pockets[k].r * g.pockets[k].r:
            g._reason_index = k
            return 2
    inside = -tol <= x <= g.length + tol and -tol <= y <= g.width + tol
    k = 0
    while not inside and k < g.nmouth:
        inside = _in_mouth(g, k, x, y, tol)
        k += 1
    if not inside:
        return 1
    for k in range(g.nj):
        dx = x - g.jaws[k].x
        dy = y - g.jaws[k].y
        d = g.jaws[k].r + R - tol
        if dx * dx + dy * dy < d * d:
            g._reason_index = g.nl + k
            return 3
    for k in range(g.nl):
        L = &g.lines[k]
        u = (x - L.x1) * L.ux + (y - L.y1) * L.uy
        if u < 0.0 or u > L.length:
            continue
        gap = L.nx * (x - L.x1) + L.ny * (y - L.y1) - R
        if gap < -tol:
            g._reason_index = k
            return 4
    return 0


cdef str _layout_problem(TableGeometry g, list ids, const double* px, const double* py, int n, double tol):
    """First problem of a layout of balls at rest, as a message, or None if it is playable.

    Every centre on the playing surface (:func:`_surface_problem`) and at least 2R - tol from
    every other centre.
    """
    cdef int i, k, why
    cdef double R = g.cl.R, x, y, dx, dy, d
    for i in range(n):
        x = px[i]
        y = py[i]
        why = _surface_problem(g, x, y, tol)
        if why == 1:
            return f"ball {ids[i]} at ({x!r}, {y!r}) is not on the playing surface (the bed or a pocket mouth)"
        if why == 2:
            return f"ball {ids[i]} at ({x!r}, {y!r}) is inside pocket {g.pocket_names[g._reason_index]}"
        if why == 3:
            return f"ball {ids[i]} at ({x!r}, {y!r}) overlaps the pocket jaw {g.cushion_names[g._reason_index]}"
        if why == 4:
            return f"ball {ids[i]} at ({x!r}, {y!r}) overlaps the cushion {g.cushion_names[g._reason_index]}"
        for k in range(i):
            dx = x - px[k]
            dy = y - py[k]
            d = 2.0 * R - tol
            if dx * dx + dy * dy < d * d:
                d = sqrt(dx * dx + dy * dy)
                return f"balls {ids[k]} and {ids[i]} overlap (centres {d:.6g} m apart, need {2 * R:.6g})"
    return None


def on_playing_surface(object table, double x, double y):
    """True if a ball at rest with centre (x, y) (m) is on the playing surface of ``table`` (see
    _surface_problem; the API's overlap tolerance)."""
    return _surface_problem(geometry(table), x, y, _TOL) == 0


cdef double _number(str field, object x, str what) except? -1.0:
    """``x`` as a finite double, or ValueError naming ``field``."""
    cdef double v
    if type(x) is float:
        v = PyFloat_AS_DOUBLE(x)
        if isfinite(v):
            return v
    try:
        v = x
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{field}: must be a number, got {x!r}") from None
    if not isfinite(v):
        raise ValueError(f"{field}: must be finite{what}, got {x!r}")
    return v


cdef double _coordinate(object x, object bid, str axis) except? -1.0:
    """A ball coordinate as a finite double (the message is built only on error)."""
    cdef double v
    if type(x) is float:
        v = x
        if isfinite(v):
            return v
    return _number("balls", x, f" (ball {bid} {axis})")


cdef int _position(object bid, object pos, double* x, double* y) except -1:
    """Ball ``bid``'s position ``pos`` (x, y) as two finite doubles, or ValueError naming ``balls``."""
    try:
        px, py = pos
    except (TypeError, ValueError):
        raise ValueError(f"balls: ball {bid} needs a position (x, y), got {pos!r}") from None
    x[0] = _coordinate(px, bid, "x")
    y[0] = _coordinate(py, bid, "y")
    return 0


cdef int _ball_id(str field, object x) except -1:
    """A ball id (an int, not a bool, in 0..MAX_BALL_ID) as a C int, or ValueError naming ``field``."""
    cdef int overflow = 0
    cdef long v
    if type(x) is int:
        v = PyLong_AsLongAndOverflow(x, &overflow)
        if not overflow and 0 <= v <= MAX_BALL_ID:
            return <int> v
    elif not isinstance(x, bool) and isinstance(x, int) and 0 <= x <= MAX_BALL_ID:
        return x
    raise ValueError(f"{field}: ball ids are integers 0..{MAX_BALL_ID}, got {x!r}")


cdef struct Strike:
    int ball               # index of the struck ball (ids in ascending order)
    double V0, phi, theta, a, b   # m/s, deg, rad, fractions of R


cdef int _validate(TableGeometry g, object balls, object shots, type shot_type, double tol, double v0_max,
                   double miscue, double theta_max, list ids, double* px, double* py, Strike* strikes) except -1:
    """Check a layout and its strokes into C arrays; returns the number of strikes.

    ``balls``: mapping ball id -> (x, y) m; ``shots``: a ``shot_type`` (physics.simulate.Shot)
    or a list of them. Appends the ball ids in ascending order to ``ids`` and fills ``px``,
    ``py`` (their centres) and ``strikes``. Raises ValueError starting with the field name:
    ``balls``, ``cue_ball``, ``shot``, ``V0``, ``phi_deg``, ``a``, ``b``, ``theta_deg`` (see
    physics.simulate.simulate).
    """
    cdef int n, i, k, cue, ns = 0
    cdef double V0, phi, a, b, theta
    cdef int index[MAXB]       # ball id (0..MAX_BALL_ID = MAXB - 1) -> index
    cdef bint seen[MAXB]
    cdef PyObject* key_of[MAXB]   # a dict layout's keys and positions by ball id (references held)
    cdef PyObject* pos_of[MAXB]
    for i in range(MAXB):
        index[i] = -1
        seen[i] = False
    if type(balls) is dict:
        # a dict (the usual layout): its items in one pass, the ids put in ascending order by
        # their value (each id at most once), no list and no sort; the same checks in the same order
        n = len(<dict> balls)
        if n == 0:
            raise ValueError("balls: must be a non-empty mapping of ball id -> (x, y)")
        for i in range(MAXB):
            key_of[i] = NULL
            pos_of[i] = NULL
        try:
            for key, pos in (<dict> balls).items():
                k = _ball_id("balls", key)
                Py_INCREF(key)
                Py_INCREF(pos)
                key_of[k] = <PyObject*> key
                pos_of[k] = <PyObject*> pos
            i = 0
            for k in range(MAXB):
                if key_of[k] == NULL:
                    continue
                _position(<object> key_of[k], <object> pos_of[k], &px[i], &py[i])
                ids.append(<object> key_of[k])
                index[k] = i
                i += 1
        finally:
            for k in range(MAXB):
                Py_XDECREF(key_of[k])
                Py_XDECREF(pos_of[k])
    else:
        try:
            keys = list(balls)
        except TypeError:
            raise ValueError("balls: must be a non-empty mapping of ball id -> (x, y)") from None
        n = len(keys)
        if n == 0 or not hasattr(balls, "__getitem__"):
            raise ValueError("balls: must be a non-empty mapping of ball id -> (x, y)")
        for key in keys:
            _ball_id("balls", key)
        if n > MAXB:
            raise ValueError(f"balls: at most {MAXB} balls, got {n}")
        keys.sort()
        for i in range(n):
            bid = keys[i]
            ids.append(bid)
            index[<int> bid] = i
            _position(bid, balls[bid], &px[i], &py[i])
    problem = _layout_problem(g, ids, px, py, n, tol)
    if problem is not None:
        raise ValueError(f"balls: {problem}")
    if isinstance(shots, shot_type):
        shots = (shots,)
    for shot in shots:
        if not isinstance(shot, shot_type):
            raise ValueError(f"shot: must be a Shot, got {shot!r}")
        cue = _ball_id("cue_ball", shot.cue_ball)
        if index[cue] < 0:
            raise ValueError(f"cue_ball: ball {cue} is not on the table")
        if seen[cue]:
            raise ValueError(f"cue_ball: ball {cue} is struck twice")
        seen[cue] = True
        V0 = _number("V0", shot.V0, " and in (0, 10] m/s")
        if not (0.0 < V0 <= v0_max):
            raise ValueError(f"V0: must be finite and in (0, 10] m/s, got {shot.V0!r}")
        phi = _number("phi_deg", shot.phi_deg, "")
        a = _number("a", shot.a, " (fraction of R)")
        b = _number("b", shot.b, " (fraction of R)")
        if sqrt(a * a + b * b) > miscue:
            raise ValueError(f"a: tip offset sqrt(a^2 + b^2) = {sqrt(a * a + b * b):.6g} exceeds the miscue limit {miscue}")
        theta = _number("theta_deg", shot.theta_deg, " and in [0, 70] degrees")
        if not (0.0 <= theta <= theta_max):
            raise ValueError(f"theta_deg: must be finite and in [0, 70] degrees, got {shot.theta_deg!r}")
        strikes[ns].ball = index[cue]
        strikes[ns].V0 = V0
        strikes[ns].phi = phi
        strikes[ns].theta = theta * (M_PI / 180.0)
        strikes[ns].a = a
        strikes[ns].b = b
        ns += 1
    return ns


# ------------------------------------------------------------------------------------------
# the entry points of physics.simulate

# the stroke type and the input limits of the API, set once by physics.simulate (configure)
cdef type _SHOT_TYPE = None
cdef double _TOL = 0.0, _V0_MAX = 0.0, _MISCUE = 0.0, _THETA_MAX = 0.0
cdef long _MAX_EVENTS_LIMIT = 0
cdef dict _GEOMETRY = {}          # id(table) -> TableGeometry (the table object kept in it)
cdef TableGeometry _LAST_GEOMETRY = None   # the geometry of the last geometry() call's Table
cdef type _TABLE = Table


def configure(type shot_type, double tol, double v0_max, double miscue, double theta_max, long max_events_limit):
    """The API's stroke type (physics.simulate.Shot) and its limits: overlap tolerance (m), V0
    ceiling (m/s), miscue limit (fraction of R), steepest elevation (deg), most events. Called by
    physics.simulate at import."""
    global _SHOT_TYPE, _TOL, _V0_MAX, _MISCUE, _THETA_MAX, _MAX_EVENTS_LIMIT
    _SHOT_TYPE = shot_type
    _TOL = tol
    _V0_MAX = v0_max
    _MISCUE = miscue
    _THETA_MAX = theta_max
    _MAX_EVENTS_LIMIT = max_events_limit


cpdef TableGeometry geometry(object table):
    """The :class:`TableGeometry` of ``table`` (a :class:`~physics.table.Table` or a preset name;
    ValueError naming ``table`` for an unknown one), built once per table object."""
    global _LAST_GEOMETRY
    cdef TableGeometry last = _LAST_GEOMETRY   # one object read once: no torn pair across threads
    if last is not None and last.table is table:   # the table of the last call
        return last
    if not isinstance(table, _TABLE):
        table = get_table(table)
    g = _GEOMETRY.get(id(table))
    if g is None or (<TableGeometry> g).table is not table:
        if len(_GEOMETRY) > 64:
            _GEOMETRY.clear()
        g = TableGeometry(table)
        _GEOMETRY[id(table)] = g
    if (<TableGeometry> g).table is table:
        _LAST_GEOMETRY = <TableGeometry> g
    return <TableGeometry> g


cdef int _model_codes(TableGeometry g, object cushion_model, object ball_model, object max_events,
                      int* cm, int* bm) except -1:
    """The engine's codes of the cushion and ball models (``cushion_model`` None: the table's
    default); ValueError naming ``cushion_model``, ``ball_model`` or ``max_events``."""
    cdef object code
    if cushion_model is None:
        if g.default_cushion >= 0:
            code = g.default_cushion
        else:
            cushion_model = g.table.default_cushion_model
            code = None
    else:
        code = _CUSHION_CODES.get(cushion_model) if isinstance(cushion_model, str) else None
    if code is None:
        raise ValueError(f"cushion_model: unknown model {cushion_model!r}; expected one of {list(CUSHION_MODELS)}")
    cm[0] = code
    code = _BALL_CODES.get(ball_model) if isinstance(ball_model, str) else None
    if code is None:
        raise ValueError(f"ball_model: unknown model {ball_model!r}; expected one of {list(BALL_MODELS)}")
    bm[0] = code
    if type(max_events) is not int or not (1 <= max_events <= _MAX_EVENTS_LIMIT):
        raise ValueError(f"max_events: must be an int in [1, {_MAX_EVENTS_LIMIT}], got {max_events!r}")
    return 0


cdef inline int _check_shot(object shot) except -1:
    if not isinstance(shot, _SHOT_TYPE) and not (isinstance(shot, (list, tuple)) and shot):
        raise ValueError(f"shot: must be a Shot or a non-empty sequence of Shots, got {shot!r}")
    return 0


def simulate(object table, object balls, object shot, object cushion_model, object ball_model, object max_events):
    """physics.simulate.simulate (its docstring says what each argument is and what it raises):
    the arguments checked in that order (table, models, max_events, shot, then the layout and the
    strokes), then the shot simulated, in one compiled call."""
    cdef double px[MAXB]
    cdef double py[MAXB]
    cdef Strike strikes[MAXB]
    cdef list ids = []
    cdef int ns, cm, bm
    cdef TableGeometry g = geometry(table)
    _model_codes(g, cushion_model, ball_model, max_events, &cm, &bm)
    _check_shot(shot)
    ns = _validate(g, balls, shot, _SHOT_TYPE, _TOL, _V0_MAX, _MISCUE, _THETA_MAX, ids, px, py, strikes)
    return _simulate(g, ids, px, py, strikes, ns, bm, cm, max_events, False, MATHAVAN_STEPS, PUSH_SPEED, True)


def prepare(object table, object balls, object shot, object cushion_model, object ball_model, object max_events):
    """The checks of :func:`simulate`; returns the positional arguments of :func:`run`:
    ``(geometry, ids, xs, ys, strikes, ball_model, cushion_model, max_events)`` with ``strikes``
    tuples (ball index, V0 m/s, phi deg, theta rad, a, b)."""
    cdef double px[MAXB]
    cdef double py[MAXB]
    cdef Strike strikes[MAXB]
    cdef list ids = []
    cdef int ns, i, cm, bm
    cdef TableGeometry g = geometry(table)
    _model_codes(g, cushion_model, ball_model, max_events, &cm, &bm)
    _check_shot(shot)
    ns = _validate(g, balls, shot, _SHOT_TYPE, _TOL, _V0_MAX, _MISCUE, _THETA_MAX, ids, px, py, strikes)
    return (g, ids, [px[i] for i in range(len(ids))], [py[i] for i in range(len(ids))],
            [(strikes[i].ball, strikes[i].V0, strikes[i].phi, strikes[i].theta, strikes[i].a, strikes[i].b) for i in range(ns)],
            bm, cm, max_events)


def run(TableGeometry g, list ids, list xs, list ys, list shots, int ball_model, int cushion_model,
        int max_events, bint snapshots=False, int mathavan_steps=MATHAVAN_STEPS, double push_speed=PUSH_SPEED,
        bint build=True):
    """Simulate one shot; arguments already validated by :func:`prepare`.

    ``ids``: ball ids in ascending order; ``xs``/``ys``: their centres (m); ``shots``: tuples
    (ball index, V0 m/s, phi deg, theta rad, a, b). Returns a :class:`SimResult`, and with
    ``snapshots`` also a list, per event, of {id: BallState} of every ball right after it.
    With ``build`` false only the number of events is returned (benchmarks of the loop).
    """
    cdef double px[MAXB]
    cdef double py[MAXB]
    cdef Strike strikes[MAXB]
    cdef int i, ns = len(shots)
    if len(ids) > MAXB or ns > MAXB:
        raise ValueError("balls: at most 16 balls")
    for i in range(len(ids)):
        px[i] = xs[i]
        py[i] = ys[i]
    for i in range(ns):
        strikes[i].ball, strikes[i].V0, strikes[i].phi, strikes[i].theta, strikes[i].a, strikes[i].b = shots[i]
    return _simulate(g, ids, px, py, strikes, ns, ball_model, cushion_model, max_events, snapshots, mathavan_steps,
                     push_speed, build)


cdef object _simulate(TableGeometry g, list ids, const double* px, const double* py, const Strike* strikes, int ns,
                      int ball_model, int cushion_model, int max_events, bint snapshots, int mathavan_steps,
                      double push_speed, bint build):
    cdef Sim sim                 # on the stack (11 kB): no allocation per shot
    cdef Sim* s = &sim
    cdef EvRec ev_local[LOG_LOCAL]
    cdef StRec st_local[LOG_LOCAL]
    cdef int i, k, nb = len(ids), rc, e, n, flags = 0
    cdef double cph, sph
    cdef BallS* b
    cdef list names, last, events
    cdef tuple kinds, cushion_names, pocket_names
    cdef dict states
    cdef Event event
    cdef EvRec* ev
    cdef StRec* st
    cdef const Strike* sk
    try:
        memset(s, 0, <size_t> (<char*> s.t_pair - <char*> s))   # the pair tables are set by _run
        s.nb = nb
        s.cl = g.cl
        s.e_b = g.e_b
        s.e_c = g.e_c
        s.f_c = g.f_c
        s.h = g.h
        s.ball_model = ball_model
        s.cushion_model = cushion_model
        s.mathavan_steps = mathavan_steps
        s.v_push = push_speed
        s.nl = g.nl
        s.nj = g.nj
        s.npk = g.npk
        s.lines = g.lines
        s.jaws = g.jaws
        s.pockets = g.pockets
        s.max_events = max_events
        s.log.want_snap = 1 if snapshots else 0
        s.log.ev = s.log.ev_local = ev_local
        s.log.st = s.log.st_local = st_local
        s.log.cap_ev = s.log.cap_st = LOG_LOCAL
        if snapshots:
            s.log.snap = <BallS*> malloc(LOG_LOCAL * MAXB * sizeof(BallS))
            if s.log.snap == NULL:
                raise MemoryError()
        for i in range(nb):
            b = &s.b[i]
            b.rx = px[i]
            b.ry = py[i]
            b.s = STATIONARY
            s.tref[i] = 0.0
        for k in range(ns):
            sk = &strikes[k]
            i = sk.ball
            direction_deg(sk.phi, &cph, &sph)
            strike(&s.b[i], sk.V0, cph, sph, sk.theta, sk.a, sk.b, g.mass, g.cl.R, g.cue_mass, g.cue_end_mass)
            classify(&s.b[i], &s.cl)
            if _log_event(s, 0.0, EV_STRIKE, i, -1, -1) != 0:
                raise MemoryError()
            _log_state(s, i)
            _snapshot(s, 0.0)
        with nogil:
            rc = _run(s)
            if rc >= 0 and not s.log.failed:
                flags = _flags(s, strikes, ns, px, py, g.mass, g.cue_mass)
        if rc < 0 or s.log.failed:
            raise MemoryError()
        if not build:  # benchmarks: the event loop alone
            return s.log.nev
        names = _STATE_NAMES
        kinds = _KIND_NAMES
        cushion_names = g.cushion_names
        pocket_names = g.pocket_names
        # each ball's latest BallState object: the final layout reuses them (they are immutable)
        last = [None] * nb
        for i in range(nb):
            last[i] = _at_rest(px[i], py[i])
        initial = {ids[i]: last[i] for i in range(nb)}
        events = [None] * s.log.nev
        for e in range(s.log.nev):
            ev = &s.log.ev[e]
            if ev.kind == EV_CAP:
                balls = None
            elif ev.b2 >= 0:
                balls = (<list> _TWO[<int> ids[ev.b1]])[<int> ids[ev.b2]]
            else:
                balls = _ONE[<int> ids[ev.b1]]
            event = packed_event(ev.t, kinds[ev.kind], balls,
                                 cushion_names[ev.obj] if ev.kind == EV_BALL_CUSHION else None,
                                 pocket_names[ev.obj] if ev.kind == EV_BALL_POCKET else None)
            if ev.ns <= 2 and ev.kind != EV_CAP:
                # one or two balls changed (nearly every event): their ids and states, the dict
                # made when first read
                event._n = ev.ns
                for k in range(ev.s0, ev.s0 + ev.ns):
                    st = &s.log.st[k]
                    obj = _ball_state(&st.st, names)
                    last[st.ball] = obj
                    if k == ev.s0:
                        event._k0 = ids[st.ball]
                        event._s0 = obj
                    else:
                        event._k1 = ids[st.ball]
                        event._s1 = obj
                if ev.ns == 0:
                    event._n = 0
                    event._states = {}
            else:
                states = {}
                for k in range(ev.s0, ev.s0 + ev.ns):
                    st = &s.log.st[k]
                    obj = _ball_state(&st.st, names)
                    states[ids[st.ball]] = obj
                    last[st.ball] = obj
                event._states = states
                if ev.kind == EV_CAP:
                    event.balls = tuple(states)
            events[e] = event
        final = {ids[i]: last[i] for i in range(nb)}
        result = _sim_result(g.table, initial, events, final, rc == 1, flags)
        if not snapshots:
            return result
        snaps = []
        for e in range(s.log.nev):
            snaps.append({ids[i]: _ball_state(&s.log.snap[e * MAXB + i], names) for i in range(nb)})
        return result, snaps
    finally:
        if s.log.ev != s.log.ev_local:
            free(s.log.ev)
        if s.log.st != s.log.st_local:
            free(s.log.st)
        free(s.log.snap)
