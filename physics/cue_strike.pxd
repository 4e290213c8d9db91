# Cue strike (C level). See cue_strike.pyx.

from physics.evolve cimport BallS

cdef void strike(BallS* b, double V0, double phi, double theta, double a, double bb,
                 double m, double R, double M, double m_end) noexcept nogil
