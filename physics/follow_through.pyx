# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The cue stick after the strike: its follow-through, and the stroke flags it gives.

The strike itself is instantaneous (physics/cue_strike.pyx). Afterwards the stick goes on along
its own axis: right after the impact its speed is, by conservation of momentum along the axis,
    vc = V0 - (m / M) v,    v = 2 V0 / (1 + m/M + (5/2)(a^2 + b^2))   (the cue ball's speed)
(cue mass M, ball mass m; about 0.54 V0 on a centre hit with a pool ball), and it slows down
uniformly to rest over its follow-through D, measured along the axis, in proportion to the
stroke: D = FOLLOW_THROUGH v / REFERENCE_SPEED (one inch for a medium stroke; the stick then
comes to rest 0.104 s after a centre hit, sooner after an off-centre one):
    lam(t) = vc t - vc^2 t^2 / (4 D)  for t <= 2 D / vc,  then D.
Like the balls, the tip is followed on the bed plane (the simulator drops vertical motion): it
starts at the horizontal position of its contact point Q with the cue ball and moves along the
cue's horizontal direction by lam(t) cos(theta), so an elevated cue reaches less far along the
bed. It touches the cue ball when it lies within the ball's cross-section at the contact's
height h above the centre, the circle of radius sqrt(R^2 - h^2) about the ball's centre, with
h = R (b cos(theta) + sqrt(1 - a^2 - b^2) sin(theta)); at the strike the tip is on that circle.

The tip's first contact lasts while it stays within that circle (an instant on a level stroke;
longer on a steep one, where the tip presses the ball into the bed). A second contact during the
follow-through is a double hit (WPA World Standardized Rules 6.7 "Double Hit / Frozen Balls";
carom "retaca", rules-carom K-F5). When it comes within ``TIP_CONTACT_TIME`` of the strike the
tip never really left the ball: it stayed on it while driving it into a ball close in front, a
push (WPA 6.8, prolonged contact; 6.7 also counts the tip still on the cue ball when it reaches
an object ball as a foul); both flags are given. When the cue ball's first ball contact is with
a ball it touched at the start and comes no later than the second tip contact, no flag is given:
stroking into a frozen ball is legal in pool (WPA 6.7), and carom judges playing into a touching
ball from the log (rules-carom K-F6).

What comes out (tests/physics/test_physics_stroke_flags.py): a straight shot with the cue ball a
few millimetres from the object ball is a double hit (and a push from about 2 m/s on a 1 mm
gap); a gap longer than the follow-through is not (5.6 cm at V0 = 2 m/s), nor a cut of more
than about 30 degrees on a 1 mm gap (the cue ball leaves along the tangent line faster than the
stick follows); an elevated cue reaches less far along the bed, so a gap a level stroke would
close stays open; a cue ball shot straight into a cushion a few centimetres away comes back
into the tip.
A slow massé with draw (V0 of 0.1-0.2 m/s at 60-70 degrees) can curve back into the tip too.

Values and sources:
- ``FOLLOW_THROUGH`` = 25.4 mm (one inch, about a chalk's width) at ``REFERENCE_SPEED`` =
  1.4 m/s, the middle of the cue ball speeds of a "medium" shot, 0.89-1.9 m/s (D. Alciatore,
  billiards.colostate.edu FAQ "typical speeds"): the shortest follow-through a careful player
  keeps. Leagues call a straight shot through balls "less than a chalk width apart" a double
  hit (e.g. the league sheet "Double hits", paperzz.com/doc/7229700); D. Lutz (Gainesville
  Billiard News 4, May 2005): within half an inch even top players cannot avoid the second hit,
  as the follow-through would have to stop within the gap. Coaches ask for four inches and more
  of follow-through on an ordinary stroke (more on power strokes), so the flags report the double
  hits a careful stroke cannot avoid, not those a careless one makes.
- ``TIP_CONTACT_TIME`` = 1 ms: the tip-ball contact of a normal stroke lasts one to two
  milliseconds (high-speed video of the "Jacksonville project", Billiards Digest, April 1999;
  R. Shepard, rec.sport.billiard, 2003: "about 0.001 seconds").
- The cue mass and the strike: physics/table.py CueSpec, physics/cue_strike.pyx (Alciatore
  TP A-30).
Not modelled: the stick touching any other ball (``cue_touch``), the tip at rest after the
follow-through, the tip's size (a point here), the stick stopped by the bed on a steep stroke.
"""

from libc.math cimport sqrt, cos, sin, INFINITY, M_PI

from physics.evolve cimport acceleration, evolve, STATIONARY, POCKETED
from physics.roots cimport first_entry

cdef double _FOLLOW_THROUGH = 0.0254    # m, follow-through of the tip along the cue at the reference speed
cdef double _REFERENCE_SPEED = 1.4      # m/s, cue ball speed of a "medium" stroke
cdef double _TIP_CONTACT_TIME = 1.0e-3  # s, duration of a normal tip-ball contact
FOLLOW_THROUGH = _FOLLOW_THROUGH
REFERENCE_SPEED = _REFERENCE_SPEED
TIP_CONTACT_TIME = _TIP_CONTACT_TIME


cdef void tip_after_strike(Tip* tip, double x0, double y0, double V0, double cph, double sph, double theta,
                           double a, double b, double m, double R, double M) noexcept nogil:
    """The tip right after the strike of the ball at (x0, y0) (m) at cue speed V0 (m/s), aim
    (cph, sph) = (cos phi, sin phi), elevation theta (rad), tip offsets a, b (fractions of R);
    ball mass m (kg) and radius R (m), cue mass M (kg)."""
    cdef double cth = cos(theta)
    cdef double sth = sin(theta)
    cdef double s = sqrt(1.0 - a * a - b * b)
    cdef double v = 2.0 * V0 / (1.0 + m / M + 2.5 * (a * a + b * b))
    cdef double h = R * (b * cth + s * sth)         # height of the contact point above the centre
    cdef double fwd = R * (b * sth - s * cth)       # its horizontal offset along the cue (behind: < 0)
    cdef double side = R * a                        # and to the shooter's right, e_r = (sph, -cph)
    cdef double reach = _FOLLOW_THROUGH * v / _REFERENCE_SPEED
    tip.ux = cph
    tip.uy = sph
    tip.c = cth
    tip.qx = x0 + fwd * cph + side * sph
    tip.qy = y0 + fwd * sph - side * cph
    tip.vc = V0 - (m / M) * v
    tip.rho2 = R * R - h * h
    if not (tip.vc > 0.0 and reach > 0.0):   # a ball heavier than the cue: the stick stops dead
        tip.vc = 0.0
        tip.k = 0.0
        tip.t_end = 0.0
        return
    tip.k = tip.vc * tip.vc / (4.0 * reach)
    tip.t_end = 2.0 * reach / tip.vc


cdef double tip_crossing(const Tip* tip, const BallS* st, const Cloth* cl, double t0, double t1, bint leaving) noexcept nogil:
    """First time in [t0, t1] (s, within the follow-through) at which the tip enters the cue
    ball's cross-section (``leaving``: leaves it), the ball being in state ``st`` at t0 and in no
    other state until t1; INFINITY if it does not. On [t0, t1] the squared distance from the
    tip to the ball's centre minus rho^2 is a quartic in time (both move with constant
    accelerations): its first entry below zero (``physics.roots.first_entry``), of its negative
    when leaving."""
    cdef double ax, ay, lam0, lam1, dx0, dy0, dx1, dy1, dx2, dy2, sg
    cdef double p[5]
    cdef int i
    if not (t1 > t0):
        return INFINITY
    acceleration(st, cl, &ax, &ay)
    lam0 = tip.vc * t0 - tip.k * t0 * t0
    lam1 = tip.vc - 2.0 * tip.k * t0
    # ball centre minus tip: d0 + d1 tau + d2 tau^2, tau = t - t0
    dx0 = st.rx - tip.qx - tip.c * lam0 * tip.ux
    dy0 = st.ry - tip.qy - tip.c * lam0 * tip.uy
    dx1 = st.vx - tip.c * lam1 * tip.ux
    dy1 = st.vy - tip.c * lam1 * tip.uy
    dx2 = 0.5 * ax + tip.c * tip.k * tip.ux
    dy2 = 0.5 * ay + tip.c * tip.k * tip.uy
    sg = -1.0 if leaving else 1.0
    p[0] = sg * (dx0 * dx0 + dy0 * dy0 - tip.rho2)
    p[1] = sg * 2.0 * (dx0 * dx1 + dy0 * dy1)
    p[2] = sg * (dx1 * dx1 + dy1 * dy1 + 2.0 * (dx0 * dx2 + dy0 * dy2))
    p[3] = sg * 2.0 * (dx1 * dx2 + dy1 * dy2)
    p[4] = sg * (dx2 * dx2 + dy2 * dy2)
    return t0 + first_entry(p, 4, t1 - t0)


cdef int stroke_flags(const Tip* tip, const double* ts, const BallS* states, int n, const Cloth* cl,
                      double t_frozen) noexcept nogil:
    """The flag mask of one strike: FLAG_DOUBLE_HIT | FLAG_PUSH, bits 0 and 1 for the names
    physics.events.STROKE_FLAGS[0] and [1].

    ``ts[j]``, ``states[j]`` (j < n, ascending times, ``ts[0]`` = 0 the strike): the cue ball's
    state from each of its events on, up to the follow-through's end; ``t_frozen``: time of the
    cue ball's first ball contact when that ball touched it at the start (INFINITY otherwise).
    The tip is on the ball at the strike; that first contact lasts while the tip stays within
    the ball's cross-section (an instant on a level stroke). A later entry is the second contact.
    """
    cdef BallS st
    cdef double t, t1, x
    cdef bint on_ball = True
    cdef int j
    for j in range(n):
        st = states[j]
        t = ts[j]
        t1 = ts[j + 1] if j + 1 < n else tip.t_end
        if t1 > tip.t_end:
            t1 = tip.t_end
        while t < t1 and st.s != POCKETED:
            x = tip_crossing(tip, &st, cl, t, t1, on_ball)
            if x == INFINITY:
                break
            if not on_ball:
                if t_frozen <= x:
                    return 0
                return FLAG_DOUBLE_HIT | (FLAG_PUSH if x < _TIP_CONTACT_TIME else 0)
            on_ball = False
            evolve(&st, x - t, cl)
            t = x
        if st.s == POCKETED:
            break
    return 0


def tip_motion(table, shot):
    """The stick after the strike of ``shot`` (physics.simulate.Shot) on ``table`` (a
    physics.table.Table), for tests and docs: ``(cue_speed, reach, t_end)``, the cue's speed
    along its axis right after the strike (m/s), its follow-through along the axis (m) and the
    time it comes to rest (s). The cue ball stands at the origin (positions do not matter)."""
    cdef Tip tip
    cdef double cph, sph, ph = shot.phi_deg * (M_PI / 180.0)
    cph = cos(ph)
    sph = sin(ph)
    tip_after_strike(&tip, 0.0, 0.0, shot.V0, cph, sph, shot.theta_deg * (M_PI / 180.0), shot.a, shot.b,
                     table.ball.mass, table.ball.radius, table.cue.mass)
    return tip.vc, tip.vc * tip.t_end / 2.0, tip.t_end
