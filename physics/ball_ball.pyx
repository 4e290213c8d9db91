# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""What a collision of two equal balls does to their velocities and spins.

Both balls have the same mass and radius R; the line of centres n runs from ``a`` to ``b``.
Velocities are horizontal (no jumps): any vertical part of an impulse is dropped, as pooltool
0.6.0 does.

``frictional_inelastic`` (the default; Alciatore, "Technical Proof A-14: throw", with
speed-dependent friction; same model as pooltool's ``frictional_inelastic``):
  normal: v_an' = ((1 - e) v_an + (1 + e) v_bn) / 2, v_bn' = ((1 + e) v_an + (1 - e) v_bn) / 2,
  so the normal impulse per unit mass is J = (1 + e)/2 * closing speed;
  contact slip: w = (v_at + w_a x R n) - (v_bt + w_b x (-R n)) (3-D, tangential);
  friction: Coulomb, mu(|w|) = 0.009951 + 0.108 exp(-1.088 |w|) (TP A-14 fit), impulse
  P = -min(mu J, |w| / 7) w^ on ``a`` and -P on ``b`` (|w| / 7 stops the slip: gearing);
  dv_a = P, dv_b = -P, dw_a = dw_b = (5 / 2R) n x P.
``frictionless_elastic``: the normal velocity components are exchanged, nothing else changes.

Neither model acts on a pair that is not closing (zero or negative closing speed).

``pressed_contact`` (ours): two balls pressed together by their accelerations (the cloth
friction of each pushes it toward the other) while barely closing would meet again at once after
an impact of their tiny closing speed. In reality a contact force keeps them apart while they rub;
here the pair gets the normal impulse that separates it at a speed v_sep, chosen by the engine so
the gap opens by the spacer against the pressing acceleration, with the throw friction of the
rubbing, and never more than keeps the pair's kinetic energy from rising.

``slow_push`` (ours; the Newton's-cradle safeguard of spec section 2.6): when a ball catches another
with a relative speed below ``v_push``, the contact is a push, not an impact: the balls stay pressed together and the contact forces equalise their
motion. It is resolved at once by giving both balls the mean of their velocities and of their
spins. This conserves linear momentum and the pair's angular momentum about their cloth contact
points (the contact forces are equal, opposite and at the same height), never adds energy (the
mean state has the least kinetic energy with that momentum), and leaves the two balls moving in
lockstep, so they never touch again unless something else hits one of them; cloth friction then
takes both to the same rolling speed, as a real push does. It replaces the cascade of ever
smaller impacts that made pooltool 0.6.0 take thousands of events (PR #257).
"""

from libc.math cimport sqrt, exp

cdef double THROW_A = 0.009951
cdef double THROW_B = 0.108
cdef double THROW_C = 1.088


cdef double throw_friction(double slip) noexcept nogil:
    """Ball-ball friction coefficient at contact slip speed ``slip`` (m/s), Alciatore TP A-14."""
    return THROW_A + THROW_B * exp(-THROW_C * slip)


cdef void _impulse(BallS* a, BallS* b, double R, double nx, double ny, double J) noexcept nogil:
    """Normal impulse J (per unit mass, along n from a to b) with Coulomb throw friction."""
    cdef double van = a.vx * nx + a.vy * ny
    cdef double vbn = b.vx * nx + b.vy * ny
    cdef double wx, wy, wz, ws, mu, P, px, py, pz, k, dx, dy, dz
    # contact slip from the tangential velocities and spins (unchanged by the normal impulse)
    wz = a.wz + b.wz
    wx = (a.vx - van * nx) - (b.vx - vbn * nx) - R * wz * ny
    wy = (a.vy - van * ny) - (b.vy - vbn * ny) + R * wz * nx
    wz = R * ((a.wx + b.wx) * ny - (a.wy + b.wy) * nx)
    a.vx -= J * nx
    a.vy -= J * ny
    b.vx += J * nx
    b.vy += J * ny
    ws = sqrt(wx * wx + wy * wy + wz * wz)
    if ws == 0.0:
        return
    mu = throw_friction(ws)
    P = mu * J
    if P > ws / 7.0:
        P = ws / 7.0
    k = P / ws
    px = -k * wx
    py = -k * wy
    pz = -k * wz
    a.vx += px
    a.vy += py
    b.vx -= px
    b.vy -= py
    # dw = (5 / 2R) n x P, the same for both balls
    k = 2.5 / R
    dx = k * (ny * pz)
    dy = k * (-nx * pz)
    dz = k * (nx * py - ny * px)
    a.wx += dx
    a.wy += dy
    a.wz += dz
    b.wx += dx
    b.wy += dy
    b.wz += dz


cdef void frictional_inelastic(BallS* a, BallS* b, double R, double e) noexcept nogil:
    cdef double dx = b.rx - a.rx
    cdef double dy = b.ry - a.ry
    cdef double d = sqrt(dx * dx + dy * dy)
    cdef double nx, ny, closing
    if d == 0.0:
        return
    nx = dx / d
    ny = dy / d
    closing = (a.vx - b.vx) * nx + (a.vy - b.vy) * ny
    if closing <= 0.0:
        return
    _impulse(a, b, R, nx, ny, 0.5 * (1.0 + e) * closing)


cdef inline double _energy(const BallS* b, double R) noexcept nogil:
    """Kinetic energy per unit mass: v^2 / 2 + (R^2 / 5) w^2."""
    return 0.5 * (b.vx * b.vx + b.vy * b.vy) + 0.2 * R * R * (b.wx * b.wx + b.wy * b.wy + b.wz * b.wz)


cdef bint pressed_contact(BallS* a, BallS* b, double R, double v_sep) noexcept nogil:
    """Part two balls pressed together, separating them at about ``v_sep`` (m/s) along n.

    A normal impulse J = (closing + v_sep) / 2 with the throw friction of ``frictional_inelastic``;
    if that would raise the kinetic energy of the pair (a normal impulse on a pair that is not
    closing adds energy, the friction of its rubbing takes some), ``v_sep`` is halved, up to 30
    times. Returns False, changing nothing, if no separation without an energy gain was found.
    """
    cdef double dx = b.rx - a.rx
    cdef double dy = b.ry - a.ry
    cdef double d = sqrt(dx * dx + dy * dy)
    cdef double nx, ny, closing, e0
    cdef BallS a1, b1
    cdef int k
    if d == 0.0 or not (v_sep > 0.0):
        return False
    nx = dx / d
    ny = dy / d
    closing = (a.vx - b.vx) * nx + (a.vy - b.vy) * ny
    e0 = _energy(a, R) + _energy(b, R)
    for k in range(30):
        a1 = a[0]
        b1 = b[0]
        _impulse(&a1, &b1, R, nx, ny, 0.5 * (closing + v_sep))
        if _energy(&a1, R) + _energy(&b1, R) <= e0:
            a[0] = a1
            b[0] = b1
            return True
        v_sep *= 0.5
    return False


cdef void frictionless_elastic(BallS* a, BallS* b) noexcept nogil:
    cdef double dx = b.rx - a.rx
    cdef double dy = b.ry - a.ry
    cdef double d = sqrt(dx * dx + dy * dy)
    cdef double nx, ny, van, vbn
    if d == 0.0:
        return
    nx = dx / d
    ny = dy / d
    van = a.vx * nx + a.vy * ny
    vbn = b.vx * nx + b.vy * ny
    if van - vbn <= 0.0:
        return
    a.vx += (vbn - van) * nx
    a.vy += (vbn - van) * ny
    b.vx += (van - vbn) * nx
    b.vy += (van - vbn) * ny


cdef bint slow_push(BallS* a, BallS* b, double R, double v_push) noexcept nogil:
    """Resolve a slow contact (relative speed below v_push) as a push; False if it is not slow."""
    if not ((a.vx - b.vx) * (a.vx - b.vx) + (a.vy - b.vy) * (a.vy - b.vy) < v_push * v_push):
        return False
    a.vx = b.vx = 0.5 * (a.vx + b.vx)
    a.vy = b.vy = 0.5 * (a.vy + b.vy)
    a.wx = b.wx = 0.5 * (a.wx + b.wx)
    a.wy = b.wy = 0.5 * (a.wy + b.wy)
    a.wz = b.wz = 0.5 * (a.wz + b.wz)
    return True


def resolve(model, ra, va, wa, rb, vb, wb, double R, double e=0.95, double v_push=0.0):
    """Python access (tests): post-collision ``((va, wa), (vb, wb))`` of two touching balls.

    ``model``: ``frictional_inelastic`` or ``frictionless_elastic``; positions (x, y) m,
    velocities (vx, vy) m/s, spins (wx, wy, wz) rad/s; ``v_push`` > 0 enables
    :func:`slow_push` below that closing speed (the simulator uses physics.engine.PUSH_SPEED).
    """
    cdef BallS a, b
    a.rx, a.ry = ra
    a.vx, a.vy = va
    a.wx, a.wy, a.wz = wa
    b.rx, b.ry = rb
    b.vx, b.vy = vb
    b.wx, b.wy, b.wz = wb
    a.s = 2
    b.s = 2
    if model == "frictional_inelastic":
        if not slow_push(&a, &b, R, v_push):
            frictional_inelastic(&a, &b, R, e)
    elif model == "frictionless_elastic":
        frictionless_elastic(&a, &b)
    else:
        raise ValueError(f"model: unknown ball-ball model {model!r}")
    return ((a.vx, a.vy), (a.wx, a.wy, a.wz)), ((b.vx, b.vy), (b.wx, b.wy, b.wz))
