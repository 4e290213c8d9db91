# Cue strike (C level). See cue_strike.pyx.

from physics.evolve cimport BallS

cdef void strike(BallS* b, double V0, double cph, double sph, double theta, double a, double bb,
                 double m, double R, double M, double m_end) noexcept nogil
cdef void direction_deg(double phi_deg, double* c, double* s) noexcept nogil
