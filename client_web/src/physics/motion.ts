/**
 * Closed-form motion of one ball between events: a TypeScript port of physics/evolve.pyx.
 *
 * Same formulas, same operation order (so a replay agrees with the server to rounding):
 * Leckie & Greenspan 2005; Kiefl, "pooltool theory" 2020; Han 2005.
 *
 *   sliding  (slip u = v + R k x w != 0, unit slip e constant while sliding)
 *            r(t) = r0 + v0 t - 1/2 mu_s g t^2 e ;  v(t) = v0 - mu_s g t e
 *            w_xy(t) = w0_xy + (5 mu_s g / 2R) t (k x e);   ends at 2|u0| / (7 mu_s g)
 *   rolling  r(t) = r0 + v0 t - 1/2 mu_r g t^2 v0^ ; w_xy = (k x v) / R;  ends at |v0| / (mu_r g)
 *   spinning v = 0, w_xy = 0; only w_z decays
 *   always   w_z(t) = w0_z - sgn(w0_z) (5 mu_sp g / 2R) t, clamped at 0
 *
 * Units: m, s, rad. States are the codes of physics.evolve.STATE_NAMES.
 */

export const STATIONARY = 0;
export const SPINNING = 1;
export const SLIDING = 2;
export const ROLLING = 3;
export const POCKETED = 4;

/** Index = state code, as physics/evolve.pyx STATE_NAMES and protocol/eventlog.py STATE_NAMES. */
export const STATE_NAMES = ["stationary", "spinning", "sliding", "rolling", "pocketed"] as const;
export type StateName = (typeof STATE_NAMES)[number];

export function stateCode(name: string): number {
  const i = (STATE_NAMES as readonly string[]).indexOf(name);
  if (i < 0) throw new Error(`state: unknown motion state ${JSON.stringify(name)}`);
  return i;
}

const SPEED_EPS = 1e-12; // |v| (m/s) below which a ball counts as not translating
const SPIN_EPS = 1e-12; // |w_z| (rad/s) below which a ball counts as not spinning

/** The cloth constants the motion depends on: ball radius R (m), mu_s, mu_r, mu_sp (m), g (m/s^2). */
export interface Cloth {
  R: number;
  mu_s: number;
  mu_r: number;
  mu_sp: number;
  g: number;
}

/** Mutable motion state of one ball: state code s, centre (rx, ry) m, velocity m/s, angular velocity rad/s. */
export interface Ball {
  s: number;
  rx: number;
  ry: number;
  vx: number;
  vy: number;
  wx: number;
  wy: number;
  wz: number;
}

export function copyBall(b: Ball): Ball {
  return { s: b.s, rx: b.rx, ry: b.ry, vx: b.vx, vy: b.vy, wx: b.wx, wy: b.wy, wz: b.wz };
}

function spinDecel(c: Cloth): number {
  return (5.0 * c.mu_sp * c.g) / (2.0 * c.R);
}

function decayWz(wz: number, dt: number, decel: number): number {
  if (wz > 0.0) {
    wz -= decel * dt;
    return wz > 0.0 ? wz : 0.0;
  } else if (wz < 0.0) {
    wz += decel * dt;
    return wz < 0.0 ? wz : 0.0;
  }
  return 0.0;
}

/** Advance `b` in place by `dt` s in its current state (dt must not pass its transition time). */
export function evolve(b: Ball, dt: number, c: Cloth): void {
  if (dt <= 0.0 || b.s === STATIONARY || b.s === POCKETED) return;
  if (b.s === SLIDING) {
    const ux = b.vx - c.R * b.wy;
    const uy = b.vy + c.R * b.wx;
    const n = Math.sqrt(ux * ux + uy * uy);
    if (n > 0.0) {
      const ex = ux / n;
      const ey = uy / n;
      let k = c.mu_s * c.g;
      b.rx += b.vx * dt - 0.5 * k * dt * dt * ex;
      b.ry += b.vy * dt - 0.5 * k * dt * dt * ey;
      b.vx -= k * dt * ex;
      b.vy -= k * dt * ey;
      k = ((5.0 * c.mu_s * c.g) / (2.0 * c.R)) * dt;
      b.wx += -k * ey;
      b.wy += k * ex;
    } else {
      b.rx += b.vx * dt;
      b.ry += b.vy * dt;
    }
  } else if (b.s === ROLLING) {
    const n = Math.sqrt(b.vx * b.vx + b.vy * b.vy);
    if (n > 0.0) {
      const ex = b.vx / n;
      const ey = b.vy / n;
      const k = c.mu_r * c.g;
      b.rx += b.vx * dt - 0.5 * k * dt * dt * ex;
      b.ry += b.vy * dt - 0.5 * k * dt * dt * ey;
      b.vx -= k * dt * ex;
      b.vy -= k * dt * ey;
      b.wx = -b.vy / c.R;
      b.wy = b.vx / c.R;
    }
  }
  b.wz = decayWz(b.wz, dt, spinDecel(c));
}

/** Seconds until `b` leaves its current state (Infinity when at rest or pocketed). */
export function transitionTime(b: Ball, c: Cloth): number {
  if (b.s === SLIDING) {
    const ux = b.vx - c.R * b.wy;
    const uy = b.vy + c.R * b.wx;
    return (2.0 * Math.sqrt(ux * ux + uy * uy)) / (7.0 * c.mu_s * c.g);
  }
  if (b.s === ROLLING) return Math.sqrt(b.vx * b.vx + b.vy * b.vy) / (c.mu_r * c.g);
  if (b.s === SPINNING) return Math.abs(b.wz) / spinDecel(c);
  return Infinity;
}

/** State entered at the end of the current one (`b` evolved to that instant). */
export function stateAfterTransition(b: Ball): number {
  if (b.s === SLIDING) {
    if (b.vx * b.vx + b.vy * b.vy > SPEED_EPS * SPEED_EPS) return ROLLING;
    return Math.abs(b.wz) > SPIN_EPS ? SPINNING : STATIONARY;
  }
  if (b.s === ROLLING) return Math.abs(b.wz) > SPIN_EPS ? SPINNING : STATIONARY;
  return STATIONARY;
}

/** Move `b` (evolved to the end of its state) into the next state, as evolve.pyx enter_next_state. */
export function enterNextState(b: Ball, c: Cloth): number {
  b.s = stateAfterTransition(b);
  if (b.s === ROLLING) {
    b.wx = -b.vy / c.R;
    b.wy = b.vx / c.R;
  } else if (b.s !== SLIDING) {
    b.vx = 0.0;
    b.vy = 0.0;
    b.wx = 0.0;
    b.wy = 0.0;
    if (b.s === STATIONARY) b.wz = 0.0;
  }
  return b.s;
}

/**
 * The ball after `dt` >= 0 s, following its transitions (sliding -> rolling -> spinning -> rest);
 * the port of evolve.pyx `evolve_state`. Returns a new Ball; throws on dt < 0.
 */
export function evolveState(b0: Ball, dt: number, c: Cloth): Ball {
  if (!(dt >= 0.0)) throw new Error("dt: must be >= 0");
  const b = copyBall(b0);
  while (dt > 0.0 && b.s !== STATIONARY && b.s !== POCKETED) {
    const tt = transitionTime(b, c);
    if (tt > dt) {
      evolve(b, dt, c);
      break;
    }
    evolve(b, tt, c);
    dt -= tt;
    enterNextState(b, c);
  }
  return b;
}
