# Real roots of small polynomials on an interval (C level). See roots.pyx.

cdef double peval(const double* c, int n, double t) noexcept nogil
cdef int degree(const double* c, int n) noexcept nogil
cdef int sign_change_roots(const double* c, int n, double lo, double hi, double* out) noexcept nogil
cdef double first_entry(const double* c, int n, double T) noexcept nogil
