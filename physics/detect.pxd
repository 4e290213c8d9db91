# Next-event times for one ball or one pair (C level). See detect.pyx.

from physics.evolve cimport BallS

cdef struct Line:
    double x1, y1, x2, y2   # ends of the cushion nose segment (m)
    double nx, ny           # unit normal into the playing area
    double ux, uy, length   # unit direction p1 -> p2 and length (m)
    double bx0, by0, bx1, by1   # bounding box of the segment (m)

cdef struct Circle:
    double x, y, r          # centre (m) and radius (m)

cdef double circle_entry(double Cx, double Cy, double Bx, double By, double Ax, double Ay,
                         double D, double T) noexcept nogil
cdef double circle_contact(double Cx, double Cy, double Bx, double By, double Ax, double Ay,
                           double D, double T) noexcept nogil
cdef double line_entry(const BallS* b, double ax, double ay, const Line* L, double R, double T) noexcept nogil
