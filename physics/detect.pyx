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

cdef double TOUCH = 1.0e-9     # m, gap up to which two bodies count as touching
cdef double V_EPS = 1.0e-9     # m/s, closing speed below which a touching pair is not closing
cdef double SLACK = 0.5e-6     # m, overlap a touching, non-closing pair may reach before it collides


cdef double circle_contact(double Cx, double Cy, double Bx, double By, double Ax, double Ay,
                           double D, double T) noexcept nogil:
    """First contact of a ball with another ball (D = 2R) or a jaw (D = r + R): circle_entry, but
    a pair already touching that is not closing by its velocity (a graze, or two balls pressed
    together only by their accelerations) collides when its overlap would reach SLACK. A
    contact that the resolution cannot act on (no closing speed) is thus never reported, and
    pressing contacts become small bounces with a real closing speed instead of a stall.
    """
    cdef double C2 = Cx * Cx + Cy * Cy
    if C2 - D * D <= 2.0 * D * TOUCH and Bx * Cx + By * Cy >= -D * V_EPS:
        D -= SLACK
    return circle_entry(Cx, Cy, Bx, By, Ax, Ay, D, T)


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
    segment (the pocket jaws continue the nose beyond its ends). A ball touching the cushion
    and not moving into it meets it when pressed SLACK deep (see circle_contact).
    """
    cdef double c[3]
    cdef double t, x, y, s
    c[0] = L.nx * (b.rx - L.x1) + L.ny * (b.ry - L.y1) - R
    c[1] = L.nx * b.vx + L.ny * b.vy
    c[2] = 0.5 * (L.nx * ax + L.ny * ay)
    if c[0] <= TOUCH and c[1] >= -V_EPS:
        c[0] += SLACK  # touching, not moving into it: contact when pressed SLACK deep (circle_contact)
    t = first_entry(c, 2, T)
    if t == INFINITY:
        return t
    x = b.rx + (b.vx + 0.5 * ax * t) * t
    y = b.ry + (b.vy + 0.5 * ay * t) * t
    s = (x - L.x1) * L.ux + (y - L.y1) * L.uy
    if s < 0.0 or s > L.length:
        return INFINITY
    return t
