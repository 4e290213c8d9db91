# Ball-cushion resolution after Han 2005 (C level). See han_2005.pyx.

from physics.evolve cimport BallS

cdef void han_2005(BallS* b, double ox, double oy, double R, double h, double e, double mu) noexcept nogil
