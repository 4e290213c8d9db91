# Closed-form ball motion between events (C level). See evolve.pyx for the formulas and sources.

cdef enum:
    STATIONARY = 0
    SPINNING = 1
    SLIDING = 2
    ROLLING = 3
    POCKETED = 4

cdef struct BallS:
    double rx, ry
    double vx, vy
    double wx, wy, wz
    int s

cdef struct Cloth:
    double R
    double mu_s
    double mu_r
    double mu_sp
    double g

cdef void evolve(BallS* b, double dt, const Cloth* c) noexcept nogil
cdef double transition_time(const BallS* b, const Cloth* c) noexcept nogil
cdef int state_after_transition(const BallS* b, const Cloth* c) noexcept nogil
cdef void acceleration(const BallS* b, const Cloth* c, double* ax, double* ay) noexcept nogil
cdef int classify(BallS* b, const Cloth* c) noexcept nogil
cdef int enter_next_state(BallS* b, const Cloth* c) noexcept nogil
cdef BallS ball_from(int s, tuple r, tuple v, tuple w)

