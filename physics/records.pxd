# The records of the event log, BallState and Event (C level). See records.pyx.

cdef class BallState:
    cdef readonly object state
    cdef object _r, _v, _w      # the tuples; None until first asked for when the numbers are packed
    cdef double rx, ry, vx, vy, wx, wy, wz
    cdef bint packed            # built by the engine: the numbers are the doubles above


cdef BallState packed_state(str state, double rx, double ry, double vx, double vy,
                            double wx, double wy, double wz)


cdef class Event:
    cdef readonly object t, kind, balls, cushion, pocket
    cdef object _states          # the dict of states; None until first asked for when packed (n > 0)
    cdef object _k0, _s0, _k1, _s1   # packed: the ids and states of the (at most two) balls changed
    cdef int _n                  # number of packed entries
    cdef dict _states_dict(self)
    cdef tuple _fields(self)


cdef Event packed_event(double t, str kind, tuple balls, object cushion, object pocket)
