# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Ball-cushion collision after Han 2005, with the published corrections.

Source: I. Han, "Dynamics in carom and three cushion billiards", Journal of Mechanical Science
and Technology 19(4), 2005, DOI 10.1007/BF02919180; corrections as in pooltool (Kiefl's
reading of theta, and PR #247: the stick/slip test compares with mu times the normal impulse).

One instantaneous impulse at the cushion contact point, which sits at the nose height h above
the bed, i.e. at angle theta above the ball's equator with sin(theta) = h / R - 1. Local frame:
x along the outward cushion normal (the ball comes in with v_x > 0), z up, y = z x x.
Per unit mass, with s the slip that the impulse must cancel and c the normal approach speed:
    s_x = v_x sin(theta) + R w_y,  s_y = -v_y - R w_z cos(theta) + R w_x sin(theta),
    c = v_x cos(theta);  normal impulse P_zE = (1 + e) c;
    stick if (2/7)|s| <= mu P_zE: P_xE = (2/7) s_x, P_yE = (2/7) s_y,
    else slide: (P_xE, P_yE) = mu P_zE s / |s|;
    P_X = -P_xE sin(theta) - P_zE cos(theta), P_Y = P_yE, P_Z = P_xE cos(theta) - P_zE sin(theta);
    dv = (P_X, P_Y) (the vertical P_Z is dropped: no jumps),
    dw = (5 / 2R) (-P_Y sin(theta), P_X sin(theta) - P_Z cos(theta), P_Y cos(theta)).
The ball-table contact takes no impulse in this model (Mathavan 2010 adds it).
"""

from libc.math cimport sqrt

from physics.evolve cimport SLIDING, ball_from


cdef void han_2005(BallS* b, double ox, double oy, double R, double h, double e, double mu) noexcept nogil:
    """Resolve ball ``b`` against a cushion whose outward unit normal (ball to cushion) is (ox, oy).

    ``R`` ball radius (m), ``h`` nose height above the bed (m), ``e`` restitution, ``mu``
    ball-cushion friction. Does nothing if the ball is not moving into the cushion.
    """
    cdef double yx = -oy
    cdef double yy = ox
    cdef double vx = b.vx * ox + b.vy * oy
    cdef double vy = b.vx * yx + b.vy * yy
    cdef double wx = b.wx * ox + b.wy * oy
    cdef double wy = b.wx * yx + b.wy * yy
    cdef double wz = b.wz
    cdef double sn, cs, sx, sy, ss, PzE, PxE, PyE, PX, PY, PZ, k
    if vx <= 0.0:
        return
    sn = h / R - 1.0
    cs = sqrt(1.0 - sn * sn)
    sx = vx * sn + R * wy
    sy = -vy - R * wz * cs + R * wx * sn
    PzE = (1.0 + e) * vx * cs
    ss = sqrt(sx * sx + sy * sy)
    if 2.0 * ss / 7.0 <= mu * PzE:
        PxE = 2.0 * sx / 7.0
        PyE = 2.0 * sy / 7.0
    else:
        PxE = mu * PzE * sx / ss
        PyE = mu * PzE * sy / ss
    PX = -PxE * sn - PzE * cs
    PY = PyE
    PZ = PxE * cs - PzE * sn
    vx += PX
    vy += PY
    k = 2.5 / R
    wx += -k * PY * sn
    wy += k * (PX * sn - PZ * cs)
    wz += k * PY * cs
    b.vx = vx * ox + vy * yx
    b.vy = vx * oy + vy * yy
    b.wx = wx * ox + wy * yx
    b.wy = wx * oy + wy * yy
    b.wz = wz


def resolve(v, w, normal, double R, double h, double e, double mu):
    """Python access (tests, validation): post-impact ``(v, w)`` of a ball hitting a cushion.

    ``v`` (vx, vy) m/s, ``w`` (wx, wy, wz) rad/s, ``normal`` the unit normal from the ball
    toward the cushion; R, h in m; e restitution; mu ball-cushion friction.
    """
    cdef BallS b = ball_from(SLIDING, (0.0, 0.0), tuple(v), tuple(w))
    han_2005(&b, normal[0], normal[1], R, h, e, mu)
    return (b.vx, b.vy), (b.wx, b.wy, b.wz)
