# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The cue strike: ball velocity and spin right after the tip leaves the cue ball.

Instantaneous point impact along the cue's axis (Leckie & Greenspan 2005, eqs. 1-3; Alciatore,
"Technical Proof A-30"), frictionless tip, elastic cue-ball collision.

Frame: cue direction d = (cos(theta) cos(phi), cos(theta) sin(phi), -sin(theta)) (aim ``phi``
counter-clockwise from +x, elevation ``theta`` above the bed); e_r = (sin(phi), -cos(phi), 0) is
the shooter's right, e_u = e_r x d = (cos(phi) sin(theta), sin(phi) sin(theta), cos(theta)) the
cue's "up". The tip meets the ball at Q = R (a e_r + b e_u - sqrt(1 - a^2 - b^2) d): ``a`` (side,
+ = right english) and ``b`` (+ = follow) are the contact offsets, as fractions of R, in the
plane perpendicular to the cue. Since Q x d = R (a e_u - b e_r):
    ball speed  v = 2 V0 / (1 + m/M + (5/2)(a^2 + b^2))     (cue mass M, ball mass m)
    velocity    v d, of which the vertical part is dropped (no jump; pooltool 0.6.0 does so too)
    spin        w = (5 v / 2R) (a e_u - b e_r)
so b = 2/5 gives natural roll on a level cue, and an elevated cue gives w_xy with a part along
the shot: the sliding ball curves (masse).
Squirt (Alciatore, "Technical Proof A-31"): the velocity is turned away from the english side
(right english squirts left) by alpha, tan(alpha) = (5/2) a sqrt(1 - a^2) /
(1 + m / m_end + (5/2)(1 - a^2)), with m_end the end mass of the shaft.
"""

from libc.math cimport sqrt, sin, cos, atan, fmod, M_PI


cdef void direction_deg(double phi_deg, double* c, double* s) noexcept nogil:
    """cos and sin of an angle in degrees, exact at multiples of 90 degrees (a shot "along the
    rail" must not carry a 1e-16 m/s component into it)."""
    cdef double p = fmod(phi_deg, 360.0)
    if p < 0.0:
        p += 360.0
    if p == 0.0:
        c[0] = 1.0
        s[0] = 0.0
    elif p == 90.0:
        c[0] = 0.0
        s[0] = 1.0
    elif p == 180.0:
        c[0] = -1.0
        s[0] = 0.0
    elif p == 270.0:
        c[0] = 0.0
        s[0] = -1.0
    else:
        c[0] = cos(p * (M_PI / 180.0))
        s[0] = sin(p * (M_PI / 180.0))


cdef void strike(BallS* b, double V0, double cph, double sph, double theta, double a, double bb,
                 double m, double R, double M, double m_end) noexcept nogil:
    """Set ``b``'s velocity and spin for a strike along (cph, sph) = (cos phi, sin phi) at cue
    speed V0 m/s and elevation theta (rad); keeps r."""
    cdef double cth = cos(theta)
    cdef double sth = sin(theta)
    cdef double v = 2.0 * V0 / (1.0 + m / M + 2.5 * (a * a + bb * bb))
    cdef double k = 2.5 * v / R
    cdef double alpha = atan(2.5 * a * sqrt(1.0 - a * a) / (1.0 + m / m_end + 2.5 * (1.0 - a * a)))
    cdef double ca = cos(alpha)
    cdef double sa = sin(alpha)
    cdef double vx = v * cth * cph
    cdef double vy = v * cth * sph
    b.vx = ca * vx - sa * vy
    b.vy = sa * vx + ca * vy
    # w = k (a e_u - b e_r)
    b.wx = k * (a * cph * sth - bb * sph)
    b.wy = k * (a * sph * sth + bb * cph)
    b.wz = k * a * cth
