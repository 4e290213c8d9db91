# The cue stick's follow-through after the strike, for the stroke flags (C level). See follow_through.pyx.

from physics.evolve cimport BallS, Cloth

cdef enum:
    FLAG_DOUBLE_HIT = 1
    FLAG_PUSH = 2

cdef struct Tip:
    double qx, qy    # m, the tip's contact point with the cue ball at the strike, on the bed plane
    double ux, uy    # unit horizontal direction of the cue
    double c         # cos(theta): the horizontal part of the tip's travel along the cue
    double vc        # m/s, the cue's speed along its axis right after the strike
    double k         # m/s^2, half its deceleration: travel along the axis lam(t) = vc t - k t^2
    double t_end     # s, the tip comes to rest (lam = the follow-through distance)
    double rho2      # m^2, squared radius of the cue ball's cross-section at the tip's height

cdef void tip_after_strike(Tip* tip, double x0, double y0, double V0, double cph, double sph, double theta,
                           double a, double b, double m, double R, double M) noexcept nogil
cdef double tip_crossing(const Tip* tip, const BallS* st, const Cloth* cl, double t0, double t1, bint leaving) noexcept nogil
cdef int stroke_flags(const Tip* tip, const double* ts, const BallS* states, int n, const Cloth* cl,
                      double t_frozen) noexcept nogil
