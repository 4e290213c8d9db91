# Ball-ball collision resolution (C level). See ball_ball.pyx.

from physics.evolve cimport BallS

cdef enum:
    FRICTIONAL_INELASTIC = 0
    FRICTIONLESS_ELASTIC = 1

cdef double throw_friction(double slip) noexcept nogil
cdef void frictional_inelastic(BallS* a, BallS* b, double R, double e) noexcept nogil
cdef void frictionless_elastic(BallS* a, BallS* b) noexcept nogil
cdef bint pressed_contact(BallS* a, BallS* b, double R, double v_sep) noexcept nogil
cdef bint slow_push(BallS* a, BallS* b, double R, double v_push) noexcept nogil
