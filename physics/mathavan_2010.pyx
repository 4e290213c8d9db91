# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Ball-cushion collision after Mathavan, Jackson & Parkin 2010.

Source: S. Mathavan, M. R. Jackson, R. M. Parkin, "A theoretical analysis of billiard ball
dynamics under cushion impacts", Proc. IMechE Part C 224(9):1863-1873, 2010,
DOI 10.1243/09544062JMES1964 (equations 12-19 of the paper as summarised in
shared/spec/physics.md section 2.4).

The impact is integrated over the normal impulse P at the cushion contact I (nose height h,
sin(theta) = h / R - 1), with Coulomb friction at I (mu_w, ball-cushion) and at the table contact
C (mu_s, ball-cloth), whose normal force is P (sin(theta) + F_s cos(theta)) with F_s the friction
at I along s (below). Local frame: y along the outward cushion normal (incoming v_y > 0),
x = y x z along the cushion, z up. Per unit mass and unit normal impulse, with friction forces
(fI_x, fI_s) at I (x along the cushion, s in the tangent plane of I perpendicular to x) and
(fC_x, fC_y) at C, each pointing along its contact's slip:
    dv_x = -(fI_x + fC_x)
    dv_y = -(cos(theta) - fI_s sin(theta) + fC_y)
    dw_x = -(5 / 2R) (fI_s + fC_y)
    dw_y = -(5 / 2R) (fI_x sin(theta) - fC_x)
    dw_z = (5 / 2R) fI_x cos(theta)
    dW = v_y cos(theta)   (work of the normal force at I)
Slip at I: s_I = (v_x + w_y R sin(theta) - w_z R cos(theta), -v_y sin(theta) + w_x R); slip at C:
s_C = (v_x - w_y R, v_y + w_x R). A slipping contact has |f| = mu N along its slip (the paper's
phi and phi' are the slip directions); compression runs until v_y = 0 (work W_c), restitution
until the work released is e^2 W_c.

The slips obey ds/dP = c - K f with f = (fI_x, fI_s, fC_x, fC_y), c = (0, sin cos, 0, -cos) and
the constant symmetric matrix K = [[7/2, 0, a, 0], [0, 5/2 + sin^2, 0, b], [a, 0, 7/2, 0],
[0, b, 0, 7/2]] (a = 1 - (5/2) sin(theta), b = 5/2 - sin(theta)). A slip that reaches zero
sticks if the force that keeps it at zero (from the rows of K; the other contact keeps its
law) is inside its friction cone; otherwise it slips on, in the direction of that force.
A sticking contact slips again when the force it needs leaves the cone.

Integration (ours): third-order Bogacki-Shampine steps (the rate at a step's end is the next
step's first stage, so a step costs three evaluations of the forces), ``steps`` (the simulator:
engine.MATHAVAN_STEPS = 2) per compression of the normal speed and of the same size in the
restitution, between the events of this piecewise-smooth system:
- a slip reaching zero: stepped onto exactly when it approaches along a line; a slip within one
  percent of one step's change of zero is cancelled by the friction impulse at its contact that
  does so, when it can stick there (for a straight approach that is the same impulse);
- a stick ending: the force margin is interpolated, the step redone up to it;
- the end of the compression (v_y = 0) and of the restitution (W at its target): the phase is
  cut into equal steps onto its predicted end, and the last one is closed by a first-order
  correction along the end rate (or redone if it overshot by far).
Where a slip passes near zero its direction turns fast, and where it is small its direction
relaxes fast (at a rate of about 3.5 mu N / |s|): a step is cut so that the linear prediction of
each slip turns by at most 0.3 rad and lasts at most one relaxation time. Against the converged
fixed-step integration (``reference``, 4000 steps) every output, v and w, is within 1 % (at most
0.04 % of |v| and 0.65 % of |w|) over the grid of tests/physics/test_physics_cushions.py (head-on
to 85 degrees, 0.3-5 m/s, stun, rolling, draw and side spin); a typical impact takes 8-9 steps
(about 28 evaluations of the forces, about 1 us).
"""

from libc.math cimport sqrt, fabs, INFINITY

from libc.time cimport clock, CLOCKS_PER_SEC
from libc.stdlib cimport malloc, free

from physics.evolve cimport SLIDING, ball_from

cdef enum:
    SLIP = 0
    STICK = 1

cdef double TURN_TAN = 0.30933624960962325  # tan(0.3): largest turn of a slip's linear prediction in one step
cdef double TURN_SIN2 = 0.08733219254516078  # sin(0.3)^2
cdef double STIFF = 1.0                      # step <= STIFF |s| / (3.5 mu N): the direction's relaxation time
cdef double SNAP = 0.01                      # a slip below SNAP x one base step's change of it is set to zero
cdef double ZERO = 1.0e-6                    # slips below ZERO x the impact's speed scale count as zero
cdef double STRAIGHT = 1.0e-6                # (distance of closest approach / |s|)^2 of a straight approach
cdef int MAX_ITER = 400                      # a guard: after this many steps the limits on the step are dropped


cdef struct Ctx:
    double R, sn, cs, q, mu_w, mu_s, a, b, kII, zeps, zeps2, nmax
    int mode[2]
    int fresh[2]
    double hint[4]


cdef inline void _slips(const Ctx* c, const double* X, double* s) noexcept nogil:
    s[0] = X[0] + (X[3] * c.sn - X[4] * c.cs) * c.R
    s[1] = X[2] * c.R - X[1] * c.sn
    s[2] = X[0] - X[3] * c.R
    s[3] = X[1] + X[2] * c.R


cdef inline void _forces(const Ctx* c, const int* mode, const double* d, double* f, double* marg) noexcept nogil:
    """Friction forces f per unit normal impulse, from the slip directions d (slipping contacts)
    or the stick conditions; marg: mu N - |f| of a sticking contact (1 for a slipping one)."""
    cdef double N, det
    marg[0] = 1.0
    marg[1] = 1.0
    if mode[0] == SLIP:
        f[0] = c.mu_w * d[0]
        f[1] = c.mu_w * d[1]
        N = c.sn + f[1] * c.cs
        if mode[1] == SLIP:
            f[2] = c.mu_s * N * d[2]
            f[3] = c.mu_s * N * d[3]
        else:
            f[2] = -c.a * f[0] * (1.0 / 3.5)
            f[3] = -(c.cs + c.b * f[1]) * (1.0 / 3.5)
            marg[1] = c.mu_s * N - sqrt(f[2] * f[2] + f[3] * f[3])
    elif mode[1] == SLIP:
        f[1] = (c.sn * c.cs - c.mu_s * c.b * d[3] * c.sn) / (c.kII + c.mu_s * c.b * d[3] * c.cs)
        N = c.sn + f[1] * c.cs
        f[2] = c.mu_s * N * d[2]
        f[3] = c.mu_s * N * d[3]
        f[0] = -c.a * f[2] * (1.0 / 3.5)
        marg[0] = c.mu_w - sqrt(f[0] * f[0] + f[1] * f[1])
    else:
        det = c.kII * 3.5 - c.b * c.b
        f[0] = 0.0
        f[2] = 0.0
        f[1] = (3.5 * c.sn * c.cs + c.b * c.cs) / det
        f[3] = -(c.kII * c.cs + c.b * c.sn * c.cs) / det
        N = c.sn + f[1] * c.cs
        marg[0] = c.mu_w - fabs(f[1])
        marg[1] = c.mu_s * N - fabs(f[3])


cdef inline bint _direction(const Ctx* c, int k, double x, double y, const double* base, double* d) noexcept nogil:
    """Friction direction (d[2k], d[2k+1]) of contact k, whose slip is (x, y): the hint while it
    sticks or has just started slipping from zero; within a step (``base`` not NULL) the step
    start's direction when the slip vanished or turned back (the step was cut at its zero), which
    is reported (True); else the slip's unit vector (the hint if the slip is zero)."""
    cdef double n
    cdef bint guarded = False
    if c.mode[k] == STICK:
        x = c.hint[2 * k]
        y = c.hint[2 * k + 1]
    else:
        n = x * x + y * y
        if c.fresh[k] and n <= c.zeps2:
            x = c.hint[2 * k]
            y = c.hint[2 * k + 1]
        elif base != NULL and x * base[2 * k] + y * base[2 * k + 1] <= 0.0:
            guarded = True
            x = base[2 * k]
            y = base[2 * k + 1]
        elif n > 0.0:
            n = 1.0 / sqrt(n)
            x *= n
            y *= n
        else:
            x = c.hint[2 * k]
            y = c.hint[2 * k + 1]
    d[2 * k] = x
    d[2 * k + 1] = y
    return guarded


cdef inline bint _directions(const Ctx* c, const double* s, const double* base, double* d) noexcept nogil:
    """Friction directions d of both contacts from their slips s (see _direction); True if either
    used the step start's."""
    cdef bint guarded = _direction(c, 0, s[0], s[1], base, d)
    if _direction(c, 1, s[2], s[3], base, d):
        guarded = True
    return guarded


cdef inline void _rates(const Ctx* c, const double* X, const double* f, double* k) noexcept nogil:
    k[0] = -(f[0] + f[2])
    k[1] = -(c.cs - f[1] * c.sn + f[3])
    k[2] = -c.q * (f[1] + f[3])
    k[3] = -c.q * (f[0] * c.sn - f[2])
    k[4] = c.q * f[0] * c.cs
    k[5] = X[1] * c.cs


cdef inline void _slip_rates(const Ctx* c, const double* f, double* ds) noexcept nogil:
    """ds/dP = c - K f (see the module docstring)."""
    ds[0] = -3.5 * f[0] - c.a * f[2]
    ds[1] = c.sn * c.cs - c.kII * f[1] - c.b * f[3]
    ds[2] = -c.a * f[0] - 3.5 * f[2]
    ds[3] = -c.cs - c.b * f[1] - 3.5 * f[3]


cdef inline bint _eval(const Ctx* c, const double* X, const double* base, double* k, double* f,
                       double* d, double* marg) noexcept nogil:
    """Rates k = dX/dP at X, with the forces f, directions d and stick margins (as _directions and
    _forces, inlined, the context's fields in locals: the stores to k and f may alias them); True
    if a slip vanished or turned back against ``base`` (not NULL) and the base direction was used."""
    cdef double sn = c.sn, cs = c.cs, R = c.R, q = c.q, x, y, N, f0, f1, f2, f3, m0 = 1.0, m1 = 1.0
    cdef bint guarded
    cdef int mode0 = c.mode[0], mode1 = c.mode[1]
    # directions (_direction of each contact's slip, the slips as in _slips)
    guarded = _direction(c, 0, X[0] + (X[3] * sn - X[4] * cs) * R, X[2] * R - X[1] * sn, base, d)
    if _direction(c, 1, X[0] - X[3] * R, X[1] + X[2] * R, base, d):
        guarded = True
    x = d[2]
    y = d[3]
    # forces (see _forces)
    if mode0 == SLIP:
        f0 = c.mu_w * d[0]
        f1 = c.mu_w * d[1]
        N = c.mu_s * (sn + f1 * cs)
        if mode1 == SLIP:
            f2 = N * x
            f3 = N * y
        else:
            f2 = -c.a * f0 * (1.0 / 3.5)
            f3 = -(cs + c.b * f1) * (1.0 / 3.5)
            m1 = N - sqrt(f2 * f2 + f3 * f3)
    elif mode1 == SLIP:
        f1 = (sn * cs - c.mu_s * c.b * y * sn) / (c.kII + c.mu_s * c.b * y * cs)
        N = c.mu_s * (sn + f1 * cs)
        f2 = N * x
        f3 = N * y
        f0 = -c.a * f2 * (1.0 / 3.5)
        m0 = c.mu_w - sqrt(f0 * f0 + f1 * f1)
    else:
        _forces(c, c.mode, d, f, marg)
        f0 = f[0]
        f1 = f[1]
        f2 = f[2]
        f3 = f[3]
        m0 = marg[0]
        m1 = marg[1]
    f[0] = f0
    f[1] = f1
    f[2] = f2
    f[3] = f3
    marg[0] = m0
    marg[1] = m1
    k[0] = -(f0 + f2)
    k[1] = -(cs - f1 * sn + f3)
    k[2] = -q * (f1 + f3)
    k[3] = -q * (f0 * sn - f2)
    k[4] = q * f0 * cs
    k[5] = X[1] * cs
    return guarded


cdef bint _bs3(const Ctx* c, const double* X, const double* k1, double h, const double* base,
               double* Y, double* kY, double* fY, double* dY, double* mY) noexcept nogil:
    """One Bogacki-Shampine step (third order; its last stage is the rate at the end, reused as
    the next step's first) of size h from X (rate k1 there). Returns True if the end state
    needs a fresh evaluation (a slip vanished there)."""
    cdef double T[6]
    cdef double k2[6]
    cdef double k3[6]
    cdef double f[4]
    cdef double d[4]
    cdef double m[2]
    cdef int i
    for i in range(6):
        T[i] = X[i] + 0.5 * h * k1[i]
    _eval(c, T, base, k2, f, d, m)
    for i in range(6):
        T[i] = X[i] + 0.75 * h * k2[i]
    _eval(c, T, base, k3, f, d, m)
    for i in range(6):
        Y[i] = X[i] + h * (2.0 * k1[i] + 3.0 * k2[i] + 4.0 * k3[i]) / 9.0
    return _eval(c, Y, base, kY, fY, dY, mY)


cdef bint _stick_holds(Ctx* c, const double* X, int k, double* f) noexcept nogil:
    """Can contact k stick (the other keeping its law)? f: the forces it would take."""
    cdef double s[4]
    cdef double d[4]
    cdef double marg[2]
    cdef int mode[2]
    mode[0] = c.mode[0]
    mode[1] = c.mode[1]
    mode[k] = STICK
    _slips(c, X, s)
    _directions(c, s, NULL, d)
    _forces(c, mode, d, f, marg)
    return marg[k] >= 0.0


cdef inline void _start_slip(Ctx* c, int k, const double* f) noexcept nogil:
    """Contact k (slip zero) slips from now on, first along the force f it would need to stick."""
    cdef double n = sqrt(f[2 * k] * f[2 * k] + f[2 * k + 1] * f[2 * k + 1])
    c.mode[k] = SLIP
    if n > 0.0:
        c.hint[2 * k] = f[2 * k] / n
        c.hint[2 * k + 1] = f[2 * k + 1] / n
    c.fresh[k] = 1


cdef void _at_zero(Ctx* c, double* X, int k) noexcept nogil:
    """Contact k's slip is (about) zero: cancel it with the friction impulse at k that does so,
    then stick if the force needed to stay at zero is inside the cone, else slide on along it."""
    cdef double s[4]
    cdef double j[4]
    cdef double dX[6]
    cdef double f[4]
    cdef double n
    _slips(c, X, s)
    j[0] = 0.0
    j[1] = 0.0
    j[2] = 0.0
    j[3] = 0.0
    if k == 0:
        j[0] = s[0] / 3.5
        j[1] = s[1] / c.kII
    else:
        j[2] = s[2] / 3.5
        j[3] = s[3] / 3.5
    _rates(c, X, j, dX)
    X[0] += dX[0]
    X[1] += dX[1] + c.cs   # the friction impulse alone (no normal impulse)
    X[2] += dX[2]
    X[3] += dX[3]
    X[4] += dX[4]
    if _stick_holds(c, X, k, f):
        c.mode[k] = STICK
        c.fresh[k] = 0
        return
    _start_slip(c, k, f)


cdef inline double _remaining(const Ctx* c, const double* X, const double* k, int phase, double target) noexcept nogil:
    """Normal impulse left in the phase, predicted from the rates k at X: v_y linear to zero
    (compression), or W quadratic to ``target`` (restitution). Infinite if not ending."""
    cdef double A, B, C, disc
    if phase == 0:
        return X[1] / -k[1] if k[1] < 0.0 else INFINITY
    A = 0.5 * c.cs * k[1]
    B = c.cs * X[1]
    C = X[5] - target
    if not (B < 0.0):
        return INFINITY
    if C <= 0.0:
        return 0.0
    disc = B * B - 4.0 * A * C
    if disc < 0.0:
        disc = 0.0
    return 2.0 * C / (-B + sqrt(disc))


cdef inline double _restitution_target(double* X, double e) noexcept nogil:
    """At the end of the compression (X[1] = v_y set to exactly 0): the work W the restitution ends
    at: the work of the compression less the e^2 part of it that the restitution releases."""
    X[1] = 0.0
    return X[5] * (1.0 - e * e)


cdef inline int _phase_end(const Ctx* c, double* X, int j, double end, double hs, bint limited, const double* k1,
                           const double* d, double* Y, double* kY, double* fY, double* dY, double* mY) noexcept nogil:
    """The end of a phase, where X[j] falls to ``end`` (the compression: v_y to 0, j = 1; the
    restitution: W to its target, j = 5), after the step of size ``hs`` from X (rate k1, directions
    d) to Y (rates kY). Close to Y (within a quarter step, or the step limits dropped): X = Y
    corrected to the end along the rates at Y, returns 1. Overshot by far: the step is redone up to
    the interpolated end and X set there, returns 2. Otherwise (the end not reached) returns 0."""
    cdef double dl = (Y[j] - end) / -kY[j] if kY[j] < 0.0 else INFINITY
    cdef int i
    if fabs(dl) <= 0.25 * hs or not limited:
        for i in range(6):
            X[i] = Y[i] + dl * kY[i] if dl < INFINITY else Y[i]
        return 1
    if Y[j] <= end:
        _bs3(c, X, k1, hs * (X[j] - end) / (X[j] - Y[j]), d, Y, kY, fY, dY, mY)
        for i in range(6):
            X[i] = Y[i]
        return 2
    return 0


cdef void mathavan_2010(BallS* b, double ox, double oy, double R, double h, double e,
                        double mu_w, double mu_s, int steps) noexcept nogil:
    """Resolve ball ``b`` against a cushion whose outward unit normal (ball to cushion) is (ox, oy).

    ``R`` ball radius (m), ``h`` nose height (m), ``e`` restitution, ``mu_w`` ball-cushion and
    ``mu_s`` ball-cloth friction, ``steps`` base steps of the compression phase (at least 1).
    Does nothing if the ball is not moving into the cushion.
    """
    cdef double xx = oy
    cdef double xy = -ox
    cdef double X[6]
    cdef double Y[6]
    cdef double k1[6]
    cdef double kY[6]
    cdef double s[4]
    cdef double d[4]
    cdef double f[4]
    cdef double fY[4]
    cdef double dY[4]
    cdef double fs[4]
    cdef double ds[4]
    cdef double m1[2]
    cdef double mY[2]
    cdef double stiff[2]
    cdef double hb, inv_hb, hs, target = 0.0, n, x, y, dx, dy, d2, cr, sd, den, lim, fr, scale, w2, prem, zeps2
    cdef int i, k, it, phase = 0, lost, nst, ended
    cdef bint limited, valid = False, last
    cdef Ctx c
    X[0] = b.vx * xx + b.vy * xy
    X[1] = b.vx * ox + b.vy * oy
    X[2] = b.wx * xx + b.wy * xy
    X[3] = b.wx * ox + b.wy * oy
    X[4] = b.wz
    X[5] = 0.0
    if X[1] <= 0.0:
        return
    if steps < 1:
        steps = 1
    c.R = R
    c.sn = h / R - 1.0
    c.cs = sqrt(1.0 - c.sn * c.sn)
    c.q = 2.5 / R
    c.mu_w = mu_w
    c.mu_s = mu_s
    c.a = 1.0 - 2.5 * c.sn
    c.b = 2.5 - c.sn
    c.kII = 2.5 + c.sn * c.sn
    c.nmax = c.sn + mu_w * c.cs
    scale = sqrt(X[0] * X[0] + X[1] * X[1])
    w2 = R * sqrt(X[2] * X[2] + X[3] * X[3] + X[4] * X[4])
    if w2 > scale:
        scale = w2
    c.zeps = ZERO * scale
    c.zeps2 = c.zeps * c.zeps
    zeps2 = c.zeps2
    stiff[0] = STIFF / (3.5 * mu_w)
    stiff[1] = STIFF / (3.5 * mu_s * c.nmax)
    c.mode[0] = SLIP
    c.mode[1] = SLIP
    c.fresh[0] = 0
    c.fresh[1] = 0
    c.hint[0] = 1.0
    c.hint[1] = 0.0
    c.hint[2] = 1.0
    c.hint[3] = 0.0
    hb = X[1] / steps
    inv_hb = steps / X[1]
    for it in range(MAX_ITER + 8 * steps + 16):
        limited = it < MAX_ITER
        # contacts whose slip is zero decide between sticking and slipping on
        _slips(&c, X, s)
        for k in range(2):
            n = s[2 * k] * s[2 * k] + s[2 * k + 1] * s[2 * k + 1]
            if c.mode[k] == SLIP and not c.fresh[k] and n <= zeps2:
                _at_zero(&c, X, k)
                _slips(&c, X, s)
                valid = False
            elif c.fresh[k] and n > zeps2:
                c.fresh[k] = 0
                valid = False
        if valid:   # the rates at X from the last step's end
            for i in range(6):
                k1[i] = kY[i]
            for i in range(4):
                f[i] = fY[i]
                d[i] = dY[i]
            m1[0] = mY[0]
            m1[1] = mY[1]
        else:
            _eval(&c, X, NULL, k1, f, d, m1)
        # a small slip that can stick is cancelled now: the rest of its approach (at most SNAP of
        # one base step) gives the same impulse when it ends straight
        if limited:
            _slip_rates(&c, f, ds)
            for k in range(2):
                if c.mode[k] == SLIP and not c.fresh[k]:
                    n = s[2 * k] * s[2 * k] + s[2 * k + 1] * s[2 * k + 1]
                    if n <= (SNAP * hb) * (SNAP * hb) * (ds[2 * k] * ds[2 * k] + ds[2 * k + 1] * ds[2 * k + 1]) \
                            and _stick_holds(&c, X, k, fs):
                        _at_zero(&c, X, k)
                        _slips(&c, X, s)
                        _eval(&c, X, NULL, k1, f, d, m1)
                        _slip_rates(&c, f, ds)
        hs = hb
        if limited:
            for k in range(2):
                if c.mode[k] != SLIP or c.fresh[k]:
                    continue
                x = s[2 * k]
                y = s[2 * k + 1]
                dx = ds[2 * k]
                dy = ds[2 * k + 1]
                d2 = dx * dx + dy * dy
                n = x * x + y * y     # |s|^2
                if d2 == 0.0 or (n * TURN_SIN2 >= d2 * hb * hb and n * stiff[k] * stiff[k] >= hb * hb):
                    continue          # the slip is large against its change over a base step
                cr = fabs(x * dy - y * dx)
                sd = x * dx + y * dy
                # the step after which the linear prediction s + ds t has turned by TURN
                den = cr - TURN_TAN * sd
                if cr > 0.0 and den > 0.0 and TURN_TAN * n < hs * den:
                    hs = TURN_TAN * n / den
                # the relaxation time of the slip's direction
                lim = stiff[k]
                if lim * lim * n < hs * hs:
                    hs = lim * sqrt(n)
                # a straight approach to zero: step onto it
                if sd < 0.0 and -sd < hs * d2 and cr * cr <= STRAIGHT * n * d2:
                    hs = -sd / d2
        # the phase's end: equal steps onto its predicted end
        prem = _remaining(&c, X, k1, phase, target)
        last = False
        if prem <= hs * (1.0 + 1e-9):
            hs = prem
            last = True
        elif prem < INFINITY:
            nst = <int> (prem * inv_hb - 1e-9) + 1     # base steps left, rounded up
            if prem < hs * nst:
                hs = prem / nst
                last = nst == 1
        valid = not _bs3(&c, X, k1, hs, d, Y, kY, fY, dY, mY)
        if phase == 0 and (last or Y[1] <= 0.0):
            # the end of the compression, v_y = 0; the restitution starts there
            ended = _phase_end(&c, X, 1, 0.0, hs, limited, k1, d, Y, kY, fY, dY, mY)
            if ended:
                if ended == 2:
                    valid = False
                # else the rates at Y stand for those at X (the correction is a small fraction of a step)
                target = _restitution_target(X, e)
                phase = 1
                if e <= 0.0:
                    break
                continue
        elif phase == 1 and (last or Y[5] <= target):
            # the end of the restitution, W at its target
            if _phase_end(&c, X, 5, target, hs, limited, k1, d, Y, kY, fY, dY, mY):
                break
        # a stick that ends inside the step: redo the step up to it, then slip along the force
        lost = -1
        fr = 1.0
        for k in range(2):
            if c.mode[k] == STICK and mY[k] < 0.0:
                x = m1[k] / (m1[k] - mY[k]) if m1[k] > 0.0 else 0.0
                if x < fr:
                    fr = x
                    lost = k
        if lost >= 0:
            if fr > 0.0:
                _bs3(&c, X, k1, fr * hs, d, Y, kY, fY, dY, mY)
                for i in range(6):
                    X[i] = Y[i]
            _stick_holds(&c, X, lost, fs)
            _start_slip(&c, lost, fs)
            valid = False
            continue
        for i in range(6):
            X[i] = Y[i]
    b.vx = X[0] * xx + X[1] * ox
    b.vy = X[0] * xy + X[1] * oy
    b.wx = X[2] * xx + X[3] * ox
    b.wy = X[2] * xy + X[3] * oy
    b.wz = X[4]


# ------------------------------------------------------------------------------------------
# the reference: a fixed-step integration with regularised friction (tests only)

cdef inline void _ref_rate(const double* X, double* k, double R, double sn, double cs,
                           double mu_w, double mu_s, double reg_w, double reg_s) noexcept nogil:
    cdef double xi = X[0] + (X[3] * sn - X[4] * cs) * R
    cdef double yi = X[2] * R - X[1] * sn
    cdef double xc = X[0] - X[3] * R
    cdef double yc = X[1] + X[2] * R
    cdef double si = sqrt(xi * xi + yi * yi)
    cdef double sc = sqrt(xc * xc + yc * yc)
    cdef double fw_c = 0.0, fw_s = 0.0, fs_c = 0.0, fs_s = 0.0, q, nc
    if si > 0.0:
        q = (mu_w / reg_w if si < reg_w else mu_w / si)
        fw_c = q * xi
        fw_s = q * yi
    if sc > 0.0:
        q = (mu_s / reg_s if sc < reg_s else mu_s / sc)
        fs_c = q * xc
        fs_s = q * yc
    nc = sn + fw_s * cs
    q = 2.5 / R
    k[0] = -(fw_c + fs_c * nc)
    k[1] = -(cs - fw_s * sn + fs_s * nc)
    k[2] = -q * (fw_s + fs_s * nc)
    k[3] = -q * (fw_c * sn - fs_c * nc)
    k[4] = q * fw_c * cs
    k[5] = X[1] * cs


cdef void _reference(double* X, double R, double h, double e, double mu_w, double mu_s, int steps) noexcept nogil:
    cdef double Xm[6]
    cdef double k1[6]
    cdef double k2[6]
    cdef double sn, cs, dP, reg_w, reg_s, target = 0.0, frac
    cdef int i, it, phase = 0
    sn = h / R - 1.0
    cs = sqrt(1.0 - sn * sn)
    dP = X[1] / steps
    reg_w = 4.0 * mu_w * dP
    reg_s = 4.0 * mu_s * (sn + mu_w) * dP
    for it in range(8 * steps + 16):
        _ref_rate(X, k1, R, sn, cs, mu_w, mu_s, reg_w, reg_s)
        for i in range(6):
            Xm[i] = X[i] + 0.5 * dP * k1[i]
        _ref_rate(Xm, k2, R, sn, cs, mu_w, mu_s, reg_w, reg_s)
        if phase == 0:
            if X[1] + dP * k2[1] <= 0.0:
                frac = X[1] / (-dP * k2[1])
                for i in range(6):
                    X[i] += frac * dP * k2[i]
                target = _restitution_target(X, e)
                phase = 1
                if e <= 0.0:
                    break
                continue
        else:
            if X[5] + dP * k2[5] <= target:
                frac = (X[5] - target) / (-dP * k2[5])
                for i in range(6):
                    X[i] += frac * dP * k2[i]
                break
        for i in range(6):
            X[i] += dP * k2[i]


def _local(v, w, normal):
    ox, oy = normal
    xx, xy = oy, -ox
    return (v[0] * xx + v[1] * xy, v[0] * ox + v[1] * oy, w[0] * xx + w[1] * xy, w[0] * ox + w[1] * oy, w[2]), (ox, oy, xx, xy)


def resolve(v, w, normal, double R, double h, double e, double mu_w, double mu_s, int steps=2):
    """Python access (tests, validation): post-impact ``(v, w)`` of a ball hitting a cushion.

    ``v`` (vx, vy) m/s, ``w`` (wx, wy, wz) rad/s, ``normal`` the unit normal from the ball
    toward the cushion; R, h in m; e restitution; mu_w ball-cushion and mu_s ball-cloth
    friction; ``steps`` base steps of the compression (the simulator's: engine.MATHAVAN_STEPS).
    """
    cdef BallS b = ball_from(SLIDING, (0.0, 0.0), tuple(v), tuple(w))
    mathavan_2010(&b, normal[0], normal[1], R, h, e, mu_w, mu_s, steps)
    return (b.vx, b.vy), (b.wx, b.wy, b.wz)


def time_resolves(list impacts, int repeats, double R, double h, double e, double mu_w, double mu_s,
                  int steps=2):
    """Benchmarks (bench/physics_speed.py): ``(s, check)``, the process CPU seconds per impact of
    :func:`resolve` on each ``(v, w, normal)`` of ``impacts`` (the arguments of :func:`resolve`),
    all ``repeats`` times over in a C loop (no Python call per impact), and the sum of the
    results' vx (used, so that the compiler keeps the work). MemoryError if the copies cannot be made."""
    cdef int n = len(impacts), i, r
    cdef double check = 0.0
    cdef BallS* b0 = <BallS*> malloc((n + 1) * sizeof(BallS))
    cdef double* nrm = <double*> malloc((2 * n + 1) * sizeof(double))
    cdef BallS b
    cdef double c0, c1
    try:
        if b0 == NULL or nrm == NULL:
            raise MemoryError()
        for i in range(n):
            v, w, normal = impacts[i]
            b0[i] = ball_from(SLIDING, (0.0, 0.0), tuple(v), tuple(w))
            nrm[2 * i] = normal[0]
            nrm[2 * i + 1] = normal[1]
        c0 = clock()
        with nogil:
            for r in range(repeats):
                for i in range(n):
                    b = b0[i]
                    mathavan_2010(&b, nrm[2 * i], nrm[2 * i + 1], R, h, e, mu_w, mu_s, steps)
                    check += b.vx
        c1 = clock()
        return (c1 - c0) / CLOCKS_PER_SEC / max(1, n * repeats), check
    finally:
        free(b0)
        free(nrm)


def reference(v, w, normal, double R, double h, double e, double mu_w, double mu_s, int steps=4000):
    """The converged reference of :func:`resolve` (same arguments and result; tests only).

    A different method: ``steps`` fixed midpoint steps per compression (about e x steps for the
    restitution) with Coulomb friction regularised below 4 mu dP of slip, first order in the step
    (4000 steps: within 0.1 % of the limit on a head-on hit). Slow; never used by the simulator.
    """
    cdef double X[6]
    cdef int i
    loc, (ox, oy, xx, xy) = _local(v, w, normal)
    for i in range(5):
        X[i] = loc[i]
    X[5] = 0.0
    if X[1] > 0.0:
        _reference(X, R, h, e, mu_w, mu_s, steps if steps > 0 else 1)
    return ((X[0] * xx + X[1] * ox, X[0] * xy + X[1] * oy),
            (X[2] * xx + X[3] * ox, X[2] * xy + X[3] * oy, X[4]))
