"""The reference motion of the compact event log: what a receiver computes instead of reading.

The compact log (:mod:`protocol.eventlog`, format 2) leaves out every number the receiver can
compute to the same float64 bits from what it already holds: the time of a state transition,
and the motion state a ball reaches by its closed-form motion since its last event. This module
is that computation in plain Python, so that every user of :mod:`protocol` (server, bots, load
tests) decodes without the compiled physics.

The formulas are those of the closed-form motion between events (Leckie & Greenspan 2005;
Kiefl, "pooltool theory", 2020; Han 2005; see physics/evolve.pyx, whose Python twin this is,
operation for operation):

- sliding (slip ``u = v + R k x w``, unit slip ``e = u / |u|``):
  ``r += v dt - 1/2 mu_s g dt^2 e``, ``v -= mu_s g dt e``, ``w_xy += (5 mu_s g / 2R) dt (k x e)``;
  it ends after ``2 |u| / (7 mu_s g)``;
- rolling: ``r += v dt - 1/2 mu_r g dt^2 v^``, ``v -= mu_r g dt v^``, ``w_xy = (k x v) / R``;
  it ends after ``|v| / (mu_r g)``;
- spinning: only ``w_z`` changes; it ends after ``2 R |w_z| / (5 mu_sp g)``;
- every state: ``w_z`` decays by ``(5 mu_sp g / 2R) dt`` toward 0 and stops there.

Why the values agree bit for bit with the sender's: IEEE 754 double arithmetic rounds each
``+ - * /`` and ``sqrt`` correctly, so the same operations in the same order on the same
inputs give the same bits in C (without fused multiply-add), in Python and in JavaScript
(client_web/src/physics/motion.ts is the third copy, same order). The encoder does not rely on
this alone: it leaves a number out only after computing it here and finding the exact bits it
would send, so the Python decoder is exact by construction whatever the engine does; the tests
check the TypeScript decoder over every golden vector and benchmark workload.

A ball is the tuple ``(s, rx, ry, vx, vy, wx, wy, wz)``: state code (``STATE_NAMES`` of
:mod:`protocol.eventlog`), centre m, velocity m/s, angular velocity rad/s. A cloth is the tuple
``(R, mu_s, mu_r, mu_sp, g)``: ball radius m, sliding, rolling and spinning friction (mu_sp in
m, as physics.table.Cloth), gravity m/s^2.
"""

from __future__ import annotations

import math
from typing import Tuple

Ball = Tuple[int, float, float, float, float, float, float, float]
Cloth = Tuple[float, float, float, float, float]

STATIONARY, SPINNING, SLIDING, ROLLING, POCKETED = 0, 1, 2, 3, 4

SPEED_EPS = 1e-12  # m/s: |v| below which a ball counts as not translating (physics/evolve.pyx)
SPIN_EPS = 1e-12  # rad/s: |w_z| below which a ball counts as not spinning

_sqrt = math.sqrt


def _decay_wz(wz: float, dt: float, decel: float) -> float:
    if wz > 0.0:
        wz -= decel * dt
        return wz if wz > 0.0 else 0.0
    if wz < 0.0:
        wz += decel * dt
        return wz if wz < 0.0 else 0.0
    return 0.0


def evolve(b: Ball, dt: float, c: Cloth) -> Ball:
    """``b`` after ``dt`` s in its current state (``dt`` not past its transition; ``dt <= 0``: ``b``)."""
    s, rx, ry, vx, vy, wx, wy, wz = b
    if dt <= 0.0 or s == STATIONARY or s == POCKETED:
        return b
    R, mu_s, mu_r, mu_sp, g = c
    if s == SLIDING:
        ux = vx - R * wy
        uy = vy + R * wx
        n = _sqrt(ux * ux + uy * uy)
        if n > 0.0:
            ex = ux / n
            ey = uy / n
            k = mu_s * g
            rx += vx * dt - 0.5 * k * dt * dt * ex
            ry += vy * dt - 0.5 * k * dt * dt * ey
            vx -= k * dt * ex
            vy -= k * dt * ey
            k = 5.0 * mu_s * g / (2.0 * R) * dt
            wx += -k * ey
            wy += k * ex
        else:
            rx += vx * dt
            ry += vy * dt
    elif s == ROLLING:
        n = _sqrt(vx * vx + vy * vy)
        if n > 0.0:
            ex = vx / n
            ey = vy / n
            k = mu_r * g
            rx += vx * dt - 0.5 * k * dt * dt * ex
            ry += vy * dt - 0.5 * k * dt * dt * ey
            vx -= k * dt * ex
            vy -= k * dt * ey
            wx = -vy / R
            wy = vx / R
    wz = _decay_wz(wz, dt, 5.0 * mu_sp * g / (2.0 * R))
    return (s, rx, ry, vx, vy, wx, wy, wz)


def transition_time(b: Ball, c: Cloth) -> float:
    """Seconds until ``b`` leaves its current state (``inf`` at rest or pocketed)."""
    s, _rx, _ry, vx, vy, wx, wy, wz = b
    R, mu_s, mu_r, mu_sp, g = c
    if s == SLIDING:
        ux = vx - R * wy
        uy = vy + R * wx
        return 2.0 * _sqrt(ux * ux + uy * uy) / (7.0 * mu_s * g)
    if s == ROLLING:
        return _sqrt(vx * vx + vy * vy) / (mu_r * g)
    if s == SPINNING:
        return abs(wz) / (5.0 * mu_sp * g / (2.0 * R))
    return math.inf


def enter_next_state(b: Ball, c: Cloth) -> Ball:
    """``b`` (evolved to the end of its state) in the state that follows: rolling gets
    ``w_xy = (k x v) / R``; spinning and rest get ``v = w_xy = 0`` (rest also ``w_z = 0``)."""
    s, rx, ry, vx, vy, wx, wy, wz = b
    if s == SLIDING:
        if vx * vx + vy * vy > SPEED_EPS * SPEED_EPS:
            s = ROLLING
        else:
            s = SPINNING if abs(wz) > SPIN_EPS else STATIONARY
    elif s == ROLLING:
        s = SPINNING if abs(wz) > SPIN_EPS else STATIONARY
    else:
        s = STATIONARY
    if s == ROLLING:
        R = c[0]
        return (s, rx, ry, vx, vy, -vy / R, vx / R, wz)
    return (s, rx, ry, 0.0, 0.0, 0.0, 0.0, wz if s == SPINNING else 0.0)


CONTACT_GAP = 1.0e-6
"""m: the gap the sender's engine leaves between two balls after their contact (physics/engine.pyx
``SPACER``, shared/spec/physics.md 2.6). Part of the format-2 definition: a log carries the value
it was written with, in ``motion``."""


def contact_positions(a: Ball, b: Ball, R: float, gap: float) -> Tuple[Ball, Ball]:
    """Balls ``a`` and ``b`` (touching or overlapping at a contact) pushed apart along their line
    of centres, half each, until their centres are ``2 R + gap`` apart; unchanged when they are
    that far apart already or concentric. Symmetric: swapping ``a`` and ``b`` gives the same two
    positions (``push - push / 2`` is exactly ``push / 2``)."""
    dx = b[1] - a[1]
    dy = b[2] - a[2]
    d = _sqrt(dx * dx + dy * dy)
    push = 2.0 * R + gap - d
    if not (push > 0.0 and d > 0.0):
        return a, b
    nx = dx / d
    ny = dy / d
    da = 0.5 * push
    db = push - da
    return ((a[0], a[1] - da * nx, a[2] - da * ny) + a[3:],
            (b[0], b[1] + db * nx, b[2] + db * ny) + b[3:])
