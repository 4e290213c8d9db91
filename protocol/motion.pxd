# Cython declarations for protocol/motion.py (an augmenting .pxd: the .py stays plain Python). Typed locals
# are C doubles: the same IEEE operations in the same order as the interpreter's floats (no contraction,
# setup.py), so the same bits; division by zero still raises ZeroDivisionError (cdivision off).
import cython

@cython.locals(rx=cython.double, ry=cython.double, vx=cython.double, vy=cython.double, wx=cython.double,
               wy=cython.double, wz=cython.double, R=cython.double, mu_s=cython.double, mu_r=cython.double,
               mu_sp=cython.double, g=cython.double, ux=cython.double, uy=cython.double, n=cython.double,
               ex=cython.double, ey=cython.double, k=cython.double)
cpdef tuple evolve(tuple b, double dt, tuple c)

cdef double _decay_wz(double wz, double dt, double decel)
