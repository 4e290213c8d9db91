# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Ball-cushion collision after Mathavan, Jackson & Parkin 2010.

Source: S. Mathavan, M. R. Jackson, R. M. Parkin, "A theoretical analysis of billiard ball
dynamics under cushion impacts", Proc. IMechE Part C 224(9):1863-1873, 2010,
DOI 10.1243/09544062JMES1964 (equations 12-19 of the paper as summarised in
shared/spec/physics.md section 2.4).

The impact is integrated over the normal impulse P at the cushion contact I (nose height h,
sin(theta) = h / R - 1), with friction at I (mu_w, ball-cushion) and at the table contact C
(mu_s, ball-cloth), whose normal force is P (sin(theta) + mu_w sin(phi) cos(theta)). Local frame:
y along the outward cushion normal (incoming v_y > 0), x = y x z along the cushion, z up.
Slip at I: (v_x + w_y R sin(theta) - w_z R cos(theta), -v_y sin(theta) + w_x R), direction phi;
slip at C: (v_x - w_y R, v_y + w_x R), direction phi'. Per unit normal impulse (unit mass):
    dv_x = -[mu_w cos(phi) + mu_s cos(phi') (sin(theta) + mu_w sin(phi) cos(theta))]
    dv_y = -[cos(theta) - mu_w sin(theta) sin(phi) + mu_s sin(phi') (sin(theta) + mu_w sin(phi) cos(theta))]
    dw_x = -(5 / 2R) [mu_w sin(phi) + mu_s sin(phi') (sin(theta) + mu_w sin(phi) cos(theta))]
    dw_y = -(5 / 2R) [mu_w cos(phi) sin(theta) - mu_s cos(phi') (sin(theta) + mu_w sin(phi) cos(theta))]
    dw_z = (5 / 2R) mu_w cos(phi) cos(theta)
    dW = v_y cos(theta)   (work of the normal force at I)
Compression runs until v_y = 0 (work W_c), restitution until the work released is e^2 W_c.

Integration (ours): a fixed number of midpoint (second-order Runge-Kutta) steps per phase
(``steps`` for the compression, about e * steps for the restitution; the simulator uses 8),
each phase ending exactly by interpolating the last step. Where a slip speed falls below what one step of full
friction would remove, the friction there is scaled down in proportion (a regularised Coulomb
law), so the slip settles at zero (rolling contact) instead of chattering.
"""

from libc.math cimport sqrt


cdef inline void _rate(const double* X, double* k, double R, double sn, double cs,
                       double mu_w, double mu_s, double reg_w, double reg_s) noexcept nogil:
    """d(state)/dP for state X = (v_x, v_y, w_x, w_y, w_z, W).

    fw_c, fw_s are mu_w cos(phi), mu_w sin(phi) (regularised), fs_c, fs_s the same at the cloth.
    """
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
    nc = sn + fw_s * cs          # table normal force per unit P
    q = 2.5 / R
    k[0] = -(fw_c + fs_c * nc)
    k[1] = -(cs - fw_s * sn + fs_s * nc)
    k[2] = -q * (fw_s + fs_s * nc)
    k[3] = -q * (fw_c * sn - fs_c * nc)
    k[4] = q * fw_c * cs
    k[5] = X[1] * cs


cdef void mathavan_2010(BallS* b, double ox, double oy, double R, double h, double e,
                        double mu_w, double mu_s, int steps) noexcept nogil:
    """Resolve ball ``b`` against a cushion whose outward unit normal (ball to cushion) is (ox, oy).

    ``R`` ball radius (m), ``h`` nose height (m), ``e`` restitution, ``mu_w`` ball-cushion and
    ``mu_s`` ball-cloth friction, ``steps`` integration steps of the compression phase.
    Does nothing if the ball is not moving into the cushion.
    """
    cdef double xx = oy
    cdef double xy = -ox
    cdef double X[6]
    cdef double Xm[6]
    cdef double k1[6]
    cdef double k2[6]
    cdef double sn, cs, dP, reg_w, reg_s, target, frac
    cdef int i, it, phase = 0
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
    sn = h / R - 1.0
    cs = sqrt(1.0 - sn * sn)
    dP = X[1] / steps
    reg_w = 4.0 * mu_w * dP
    reg_s = 4.0 * mu_s * (sn + mu_w) * dP
    target = 0.0
    for it in range(8 * steps + 16):
        _rate(X, k1, R, sn, cs, mu_w, mu_s, reg_w, reg_s)
        for i in range(6):
            Xm[i] = X[i] + 0.5 * dP * k1[i]
        _rate(Xm, k2, R, sn, cs, mu_w, mu_s, reg_w, reg_s)
        if phase == 0:
            if X[1] + dP * k2[1] <= 0.0:
                frac = X[1] / (-dP * k2[1])
                for i in range(6):
                    X[i] += frac * dP * k2[i]
                X[1] = 0.0
                target = X[5] * (1.0 - e * e)
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
    b.vx = X[0] * xx + X[1] * ox
    b.vy = X[0] * xy + X[1] * oy
    b.wx = X[2] * xx + X[3] * ox
    b.wy = X[2] * xy + X[3] * oy
    b.wz = X[4]


def resolve(v, w, normal, double R, double h, double e, double mu_w, double mu_s, int steps=8):
    """Python access (tests, validation): post-impact ``(v, w)`` of a ball hitting a cushion.

    ``v`` (vx, vy) m/s, ``w`` (wx, wy, wz) rad/s, ``normal`` the unit normal from the ball
    toward the cushion; R, h in m; e restitution; mu_w ball-cushion and mu_s ball-cloth
    friction; ``steps`` compression steps of the integration.
    """
    cdef BallS b
    b.rx = 0.0
    b.ry = 0.0
    b.vx, b.vy = v
    b.wx, b.wy, b.wz = w
    b.s = 2
    mathavan_2010(&b, normal[0], normal[1], R, h, e, mu_w, mu_s, steps)
    return (b.vx, b.vy), (b.wx, b.wy, b.wz)
