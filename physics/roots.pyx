# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Real roots of polynomials of degree <= 4 on an interval, for event detection.

Every event time of the simulator is the first instant at which a gap polynomial
p(t) = c0 + c1 t + ... + c4 t^4 (squared centre distance minus squared contact distance, or
signed distance to a cushion line) turns from positive to non-positive while decreasing.

Method (root isolation by derivatives, no closed-form quartic): the sign-changing roots of p'
split [0, T] into pieces on which p is monotone; a piece on which p falls through zero holds
exactly one entry root, found by Newton's method kept inside the bracket (bisection when a
Newton step leaves it). p' is handled the same way, down to the quadratic, which has a stable
closed form (Numerical Recipes 5.6). Lower degrees are dispatched when leading coefficients are
exactly zero, so a "quartic" of two balls with equal accelerations is a quadratic here, and a
constant (identical motion, pooltool #263 / PR #354) has no root at all.

All functions are C-level, ``nogil``, allocation-free; coefficient arrays are ascending.
"""

from libc.math cimport sqrt, fabs, copysign, INFINITY

cdef int _MAX_ITER = 100


cdef double peval(const double* c, int n, double t) noexcept nogil:
    """p(t) by Horner's rule; ``c[0..n]`` ascending."""
    cdef double r = c[n]
    cdef int k
    for k in range(n - 1, -1, -1):
        r = r * t + c[k]
    return r


cdef inline double _deval(const double* c, int n, double t) noexcept nogil:
    """p'(t)."""
    cdef double r = 0.0
    cdef int k
    for k in range(n, 0, -1):
        r = r * t + k * c[k]
    return r


cdef int degree(const double* c, int n) noexcept nogil:
    """Degree of p once exactly-zero leading coefficients are dropped (0 for a constant)."""
    while n > 0 and c[n] == 0.0:
        n -= 1
    return n


cdef double _refine(const double* c, int n, double lo, double hi, double flo, double fhi) noexcept nogil:
    """The root of p inside [lo, hi], where p is monotone and p(lo), p(hi) differ in sign."""
    cdef double x, fx, d, xn, tol
    cdef int it, k
    x = lo + (hi - lo) * flo / (flo - fhi)
    if not (x > lo and x < hi):
        x = 0.5 * (lo + hi)
    for it in range(_MAX_ITER):
        # p(x) and p'(x) in one Horner pass
        fx = c[n]
        d = 0.0
        for k in range(n - 1, -1, -1):
            d = d * x + fx
            fx = fx * x + c[k]
        if fx == 0.0:
            return x
        if (fx > 0.0) == (flo > 0.0):
            lo = x
            flo = fx
        else:
            hi = x
        xn = x - fx / d if d != 0.0 else lo - 1.0
        if not (xn > lo and xn < hi):
            xn = 0.5 * (lo + hi)
        tol = 4.0e-16 * fabs(xn) + 1.0e-300
        if fabs(xn - x) <= tol or hi - lo <= tol:
            return xn
        x = xn
    return x


cdef int _quadratic_roots(double a, double b, double c0, double lo, double hi, double* out) noexcept nogil:
    """Sign-changing roots of a t^2 + b t + c0 (a != 0) in (lo, hi), ascending."""
    cdef double disc = b * b - 4.0 * a * c0
    cdef double q, r1, r2, tmp
    cdef int m = 0
    if disc <= 0.0:
        return 0
    q = -0.5 * (b + copysign(sqrt(disc), b))
    if q == 0.0:
        return 0
    r1 = q / a
    r2 = c0 / q
    if r1 > r2:
        tmp = r1
        r1 = r2
        r2 = tmp
    if r1 > lo and r1 < hi:
        out[m] = r1
        m += 1
    if r2 > lo and r2 < hi and r2 != r1:
        out[m] = r2
        m += 1
    return m


cdef inline double _noise(const double* c, int n, double t) noexcept nogil:
    """Bound (about 4 n ulps of the sum of |terms|) on the rounding error of p(t) by Horner."""
    cdef double r = fabs(c[n])
    cdef double at = fabs(t)
    cdef int k
    for k in range(n - 1, -1, -1):
        r = r * at + fabs(c[k])
    return 4.0 * n * 2.2e-16 * r


cdef int sign_change_roots(const double* c, int n, double lo, double hi, double* out) noexcept nogil:
    """Roots of p (degree <= 4) in the open interval (lo, hi) at which p changes sign.

    Writes them ascending into ``out`` (room for 4) and returns their count. Roots of even
    multiplicity (touching zero) are not reported: they never bound a monotone piece. At a
    critical point where |p| is within its rounding error, p counts as zero there: a sign
    change across it is reported at that point, a touch is not.
    """
    cdef double d[4]
    cdef double crit[4]
    cdef int m, k, i, cnt = 0
    cdef double a, b, fa, fb, t
    n = degree(c, n)
    if n == 0 or not (hi > lo):
        return 0
    if n == 1:
        t = -c[0] / c[1]
        if t > lo and t < hi:
            out[0] = t
            return 1
        return 0
    if n == 2:
        return _quadratic_roots(c[2], c[1], c[0], lo, hi, out)
    for k in range(n):
        d[k] = (k + 1) * c[k + 1]
    m = sign_change_roots(d, n - 1, lo, hi, crit)
    a = lo
    fa = peval(c, n, a)
    for i in range(m + 1):
        b = crit[i] if i < m else hi
        fb = peval(c, n, b)
        if i < m and fabs(fb) <= _noise(c, n, b):
            fb = 0.0
        if (fa < 0.0 and fb > 0.0) or (fa > 0.0 and fb < 0.0):
            out[cnt] = _refine(c, n, a, b, fa, fb)
            cnt += 1
        elif fb == 0.0 and fa != 0.0 and i < m:
            # p touches zero at the critical point b: a root there only if p goes on across it
            t = crit[i + 1] if i + 1 < m else hi
            if (peval(c, n, t) > 0.0) != (fa > 0.0):
                out[cnt] = b
                cnt += 1
            fb = fa  # carry the sign across a touch
        a = b
        fa = fb
    return cnt


cdef double first_entry(const double* c, int n, double T) noexcept nogil:
    """Earliest t in [0, T] at which p(t) <= 0 while p is decreasing; INFINITY if none.

    With p a gap function (positive = apart), this is the first contact: either a crossing
    from positive to non-positive, or the start of a closing piece while already in contact
    or overlapping (t = 0 when touching and closing now, the de-penetration rule of
    pooltool #217). Pieces on which p is constant or rising (opening) never give an event,
    which is the closing-speed check at candidate roots. ``T`` must be finite.
    """
    cdef double d[4]
    cdef double crit[4]
    cdef int m, k, i
    cdef double a, b, pa, pb
    n = degree(c, n)
    if n == 0 or not (T > 0.0):
        return INFINITY
    for k in range(n):
        d[k] = (k + 1) * c[k + 1]
    m = sign_change_roots(d, n - 1, 0.0, T, crit)
    a = 0.0
    pa = c[0]
    for i in range(m + 1):
        b = crit[i] if i < m else T
        pb = peval(c, n, b)
        if pb < pa:
            if pa <= 0.0:
                return a
            if pb <= 0.0:
                return _refine(c, n, a, b, pa, pb)
        a = b
        pa = pb
    return INFINITY


def py_first_entry(coeffs, double T):
    """Python access for tests: :func:`first_entry` of ascending ``coeffs`` (length <= 5)."""
    cdef double c[5]
    cdef int n = len(coeffs) - 1
    cdef int k
    if n < 0 or n > 4:
        raise ValueError("coeffs: need 1 to 5 coefficients")
    for k in range(n + 1):
        c[k] = float(coeffs[k])
    return first_entry(c, n, T)


def py_sign_change_roots(coeffs, double lo, double hi):
    """Sign-changing real roots in (lo, hi) of the polynomial with ascending ``coeffs`` (degree <= 4)."""
    cdef double c[5]
    cdef double out[4]
    cdef int n = len(coeffs) - 1
    cdef int k, m
    if n < 0 or n > 4:
        raise ValueError("coeffs: need 1 to 5 coefficients")
    for k in range(n + 1):
        c[k] = float(coeffs[k])
    m = sign_change_roots(c, n, lo, hi, out)
    return [out[k] for k in range(m)]
