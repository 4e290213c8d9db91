# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Closed-form motion of a ball between events, and the times of its state transitions.

Motion states (Leckie & Greenspan 2005; Kiefl, "pooltool theory", 2020; Han 2005):

sliding (slip u = v + R k x w != 0, unit slip u0^ constant while sliding)
    r(t) = r0 + v0 t - 1/2 mu_s g t^2 u0^ ;  v(t) = v0 - mu_s g t u0^
    w_xy(t) = w0_xy + (5 mu_s g / 2R) t (k x u0^)
    ends at t_slide = 2 |u0| / (7 mu_s g)
rolling (u = 0)
    r(t) = r0 + v0 t - 1/2 mu_r g t^2 v0^ ;  v(t) = v0 - mu_r g t v0^ ; w_xy = (k x v) / R
    ends at t_roll = |v0| / (mu_r g)
spinning (v = 0, w_xy = 0): only w_z decays
all states: w_z(t) = w0_z - sgn(w0_z) (5 mu_sp g / 2R) t, clamped at 0;
    spinning ends at t_spin = 2 R |w0_z| / (5 mu_sp g)

Units: m, s, rad. This is the single implementation: the simulator's event loop cimports it,
and :func:`evolve_state` exposes it to Python (referees, tests, the CLI).
"""

from libc.math cimport sqrt, fabs, INFINITY

cdef double SLIP_EPS = 1e-12    # |u| (m/s) below which a ball counts as not slipping
cdef double SPEED_EPS = 1e-12   # |v| (m/s) below which a ball counts as not translating
cdef double SPIN_EPS = 1e-12    # |w_z| (rad/s) below which a ball counts as not spinning


cdef inline double _spin_decel(const Cloth* c) noexcept nogil:
    return 5.0 * c.mu_sp * c.g / (2.0 * c.R)


cdef inline double _decay_wz(double wz, double dt, double decel) noexcept nogil:
    if wz > 0.0:
        wz -= decel * dt
        return wz if wz > 0.0 else 0.0
    elif wz < 0.0:
        wz += decel * dt
        return wz if wz < 0.0 else 0.0
    return 0.0


cdef void acceleration(const BallS* b, const Cloth* c, double* ax, double* ay) noexcept nogil:
    """Constant acceleration of the centre in the current state: r(t) = r0 + v0 t + a t^2 / 2."""
    cdef double ux, uy, n
    if b.s == SLIDING:
        ux = b.vx - c.R * b.wy
        uy = b.vy + c.R * b.wx
        n = sqrt(ux * ux + uy * uy)
        if n > 0.0:
            ax[0] = -c.mu_s * c.g * ux / n
            ay[0] = -c.mu_s * c.g * uy / n
            return
    elif b.s == ROLLING:
        n = sqrt(b.vx * b.vx + b.vy * b.vy)
        if n > 0.0:
            ax[0] = -c.mu_r * c.g * b.vx / n
            ay[0] = -c.mu_r * c.g * b.vy / n
            return
    ax[0] = 0.0
    ay[0] = 0.0


cdef void evolve(BallS* b, double dt, const Cloth* c) noexcept nogil:
    """Advance ``b`` by ``dt`` seconds in its current state (dt must not pass its transition)."""
    cdef double ux, uy, n, ex, ey, k
    if dt <= 0.0 or b.s == STATIONARY or b.s == POCKETED:
        return
    if b.s == SLIDING:
        ux = b.vx - c.R * b.wy
        uy = b.vy + c.R * b.wx
        n = sqrt(ux * ux + uy * uy)
        if n > 0.0:
            ex = ux / n
            ey = uy / n
            k = c.mu_s * c.g
            b.rx += b.vx * dt - 0.5 * k * dt * dt * ex
            b.ry += b.vy * dt - 0.5 * k * dt * dt * ey
            b.vx -= k * dt * ex
            b.vy -= k * dt * ey
            k = 5.0 * c.mu_s * c.g / (2.0 * c.R) * dt
            b.wx += -k * ey
            b.wy += k * ex
        else:
            b.rx += b.vx * dt
            b.ry += b.vy * dt
    elif b.s == ROLLING:
        n = sqrt(b.vx * b.vx + b.vy * b.vy)
        if n > 0.0:
            ex = b.vx / n
            ey = b.vy / n
            k = c.mu_r * c.g
            b.rx += b.vx * dt - 0.5 * k * dt * dt * ex
            b.ry += b.vy * dt - 0.5 * k * dt * dt * ey
            b.vx -= k * dt * ex
            b.vy -= k * dt * ey
            b.wx = -b.vy / c.R
            b.wy = b.vx / c.R
    b.wz = _decay_wz(b.wz, dt, _spin_decel(c))


cdef double transition_time(const BallS* b, const Cloth* c) noexcept nogil:
    """Time until ``b`` leaves its current state (INFINITY when at rest or pocketed)."""
    cdef double ux, uy
    if b.s == SLIDING:
        ux = b.vx - c.R * b.wy
        uy = b.vy + c.R * b.wx
        return 2.0 * sqrt(ux * ux + uy * uy) / (7.0 * c.mu_s * c.g)
    if b.s == ROLLING:
        return sqrt(b.vx * b.vx + b.vy * b.vy) / (c.mu_r * c.g)
    if b.s == SPINNING:
        return fabs(b.wz) / _spin_decel(c)
    return INFINITY


cdef int state_after_transition(const BallS* b, const Cloth* c) noexcept nogil:
    """State entered at the end of the current one (assumes ``b`` was evolved to that instant)."""
    if b.s == SLIDING:
        if b.vx * b.vx + b.vy * b.vy > SPEED_EPS * SPEED_EPS:
            return ROLLING
        return SPINNING if fabs(b.wz) > SPIN_EPS else STATIONARY
    if b.s == ROLLING:
        return SPINNING if fabs(b.wz) > SPIN_EPS else STATIONARY
    return STATIONARY


cdef int classify(BallS* b, const Cloth* c) noexcept nogil:
    """Set ``b.s`` from its velocities (after a collision or the strike) and return it.

    Pocketed balls stay pocketed. A ball with slip is sliding; without slip it rolls if it
    translates, spins if only w_z is left, else is stationary (w_xy is then zeroed exactly).
    """
    cdef double ux, uy
    if b.s == POCKETED:
        return POCKETED
    ux = b.vx - c.R * b.wy
    uy = b.vy + c.R * b.wx
    if ux * ux + uy * uy > SLIP_EPS * SLIP_EPS:
        b.s = SLIDING
    elif b.vx * b.vx + b.vy * b.vy > SPEED_EPS * SPEED_EPS:
        b.s = ROLLING
        b.wx = -b.vy / c.R
        b.wy = b.vx / c.R
    else:
        b.vx = 0.0
        b.vy = 0.0
        b.wx = 0.0
        b.wy = 0.0
        if fabs(b.wz) > SPIN_EPS:
            b.s = SPINNING
        else:
            b.wz = 0.0
            b.s = STATIONARY
    return b.s


cdef int enter_next_state(BallS* b, const Cloth* c) noexcept nogil:
    """Move ``b`` (evolved to the end of its state) into the next state and return it.

    The state is :func:`state_after_transition`; entering rolling sets w_xy = (k x v) / R
    exactly, entering spinning or rest zeroes v and w_xy (and w_z at rest). The simulator and
    :func:`evolve_state` both use this, so a replay from the event log takes the same steps.
    """
    b.s = state_after_transition(b, c)
    if b.s == ROLLING:
        b.wx = -b.vy / c.R
        b.wy = b.vx / c.R
    elif b.s != SLIDING:
        b.vx = 0.0
        b.vy = 0.0
        b.wx = 0.0
        b.wy = 0.0
        if b.s == STATIONARY:
            b.wz = 0.0
    return b.s


STATE_NAMES = ("stationary", "spinning", "sliding", "rolling", "pocketed")
STATE_CODES = {name: i for i, name in enumerate(STATE_NAMES)}


cdef Cloth _cloth(double R, double mu_s, double mu_r, double mu_sp, double g):
    cdef Cloth c
    c.R = R
    c.mu_s = mu_s
    c.mu_r = mu_r
    c.mu_sp = mu_sp
    c.g = g
    return c


cdef BallS ball_from(int s, tuple r, tuple v, tuple w):
    """A ball in state code ``s`` at ``r`` (x, y) m with velocity ``v`` (vx, vy) m/s and spin ``w``
    (wx, wy, wz) rad/s, for the Python wrappers (here, han_2005.resolve, mathavan_2010.resolve).
    ValueError if a tuple has the wrong length."""
    cdef BallS b
    b.s = s
    b.rx, b.ry = r
    b.vx, b.vy = v
    b.wx, b.wy, b.wz = w
    return b


def evolve_state(int s, tuple r, tuple v, tuple w, double dt, double R, double mu_s, double mu_r, double mu_sp, double g):
    """Motion of one ball after ``dt`` s in state code ``s`` (see :data:`STATE_NAMES`).

    ``r`` (x, y) m, ``v`` (vx, vy) m/s, ``w`` (wx, wy, wz) rad/s. The state is followed through
    its transitions (sliding -> rolling -> spinning -> stationary) when ``dt`` passes them, so any
    ``dt >= 0`` is valid. Returns ``(s, r, v, w)`` with the same shapes.
    """
    cdef Cloth c = _cloth(R, mu_s, mu_r, mu_sp, g)
    cdef BallS b = ball_from(s, r, v, w)
    cdef double tt
    if dt < 0.0:
        raise ValueError("dt: must be >= 0")
    while dt > 0.0 and b.s != STATIONARY and b.s != POCKETED:
        tt = transition_time(&b, &c)
        if tt > dt:
            evolve(&b, dt, &c)
            break
        evolve(&b, tt, &c)
        dt -= tt
        enter_next_state(&b, &c)
    return b.s, (b.rx, b.ry), (b.vx, b.vy), (b.wx, b.wy, b.wz)


def state_transition_time(int s, tuple r, tuple v, tuple w, double R, double mu_s, double mu_r, double mu_sp, double g):
    """Seconds until a ball in state ``s`` with (r, v, w) changes state (``inf`` if never)."""
    cdef Cloth c = _cloth(R, mu_s, mu_r, mu_sp, g)
    cdef BallS b = ball_from(s, r, v, w)
    return transition_time(&b, &c)


def state_acceleration(int s, tuple v, tuple w, double R, double mu_s, double mu_r, double mu_sp, double g):
    """Constant centre acceleration (ax, ay) in m/s^2 of a ball in state ``s``: r(t) = r0 + v0 t + a t^2/2."""
    cdef Cloth c = _cloth(R, mu_s, mu_r, mu_sp, g)
    cdef BallS b = ball_from(s, (0.0, 0.0), v, w)
    cdef double ax, ay
    acceleration(&b, &c, &ax, &ay)
    return ax, ay
