# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""When does the next collision of a ball (or a pair of balls) happen? (Event detection.)

Between events every centre moves on r(t) = c + b t + a t^2 with c = r0, b = v0 and
a = half the constant acceleration of its motion state (physics.evolve), so:

ball-ball (Leckie & Greenspan 2005; pooltool ``ball_ball_collision_coeffs``), with
C, B, A the differences of c, b, a of the two balls and D = R1 + R2:
    |C + B t + A t^2|^2 - D^2 = 0,
    a quartic with coefficients (A.A, 2 A.B, B.B + 2 A.C, 2 B.C, C.C - D^2);
ball-jaw and ball-pocket: the same with one ball and the circle's centre, D = r + R for a
    jaw (contact) and D = r_pocket for a pocket (the centre enters the pocket circle);
ball-straight cushion (pooltool ``ball_linear_cushion_collision_time``): the signed gap
    n.(r(t) - p1) - R is a quadratic; the contact point must lie on the segment.

Every time is the *first entry* of :func:`physics.roots.first_entry`: the first instant the
gap closes to zero while closing. A pair already touching (or overlapping by rounding) and
closing collides now; touching and opening never does (de-penetration rule, pooltool #217).
``T`` is the window (s) in which the motion formulas hold: no root beyond it is looked for.
"""

from libc.math cimport sqrt, fabs, INFINITY
from physics.roots cimport first_entry


cdef double circle_entry(double Cx, double Cy, double Bx, double By, double Ax, double Ay,
                         double D, double T) noexcept nogil:
    """First time in [0, T] at which |C + B t + A t^2| falls to D while falling (INFINITY if none)."""
    cdef double c[5]
    c[4] = Ax * Ax + Ay * Ay
    c[3] = 2.0 * (Ax * Bx + Ay * By)
    c[2] = Bx * Bx + By * By + 2.0 * (Ax * Cx + Ay * Cy)
    c[1] = 2.0 * (Bx * Cx + By * Cy)
    c[0] = Cx * Cx + Cy * Cy - D * D
    return first_entry(c, 4, T)


cdef double line_entry(const BallS* b, double ax, double ay, const Line* L, double R, double T) noexcept nogil:
    """First contact of ball ``b`` (acceleration ax, ay) with the straight cushion ``L`` within T s.

    The gap n.(r(t) - p1) - R is a quadratic in t; motion parallel to the cushion makes it a
    constant, which has no root (pooltool PR #201). The contact point must project onto the
    segment (the pocket jaws continue the nose beyond its ends).
    """
    cdef double c[3]
    cdef double t, x, y, s
    c[0] = L.nx * (b.rx - L.x1) + L.ny * (b.ry - L.y1) - R
    c[1] = L.nx * b.vx + L.ny * b.vy
    c[2] = 0.5 * (L.nx * ax + L.ny * ay)
    t = first_entry(c, 2, T)
    if t == INFINITY:
        return t
    x = b.rx + (b.vx + 0.5 * ax * t) * t
    y = b.ry + (b.vy + 0.5 * ay * t) * t
    s = (x - L.x1) * L.ux + (y - L.y1) * L.uy
    if s < 0.0 or s > L.length:
        return INFINITY
    return t
