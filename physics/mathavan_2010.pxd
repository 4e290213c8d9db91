# Ball-cushion resolution after Mathavan, Jackson & Parkin 2010 (C level). See mathavan_2010.pyx.

from physics.evolve cimport BallS

cdef void mathavan_2010(BallS* b, double ox, double oy, double R, double h, double e,
                        double mu_w, double mu_s, int steps) noexcept nogil
