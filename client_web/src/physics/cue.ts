/**
 * The cue strike: the cue ball's velocity and spin right after the tip leaves it. A TypeScript
 * port of physics/cue_strike.pyx (same formulas, same operation order), so the client can say
 * what speed a stroke gives the cue ball before it is sent.
 *
 * Instantaneous point impact along the cue's axis, frictionless tip, elastic (Leckie & Greenspan
 * 2005, eqs. 1-3; Alciatore, "Technical Proof A-30"):
 *
 *   ball speed  v = 2 V0 / (1 + m/M + (5/2)(a^2 + b^2))      (m ball mass, M cue mass)
 *   velocity    v d with d the cue's direction; its vertical part is dropped (no jump), so the
 *               speed on the bed is v cos(theta)
 *   spin        w = (5 v / 2R) (a e_u - b e_r)
 *   squirt      the velocity turns away from the english side by alpha,
 *               tan(alpha) = (5/2) a sqrt(1 - a^2) / (1 + m/m_end + (5/2)(1 - a^2))
 *               (Alciatore, "Technical Proof A-31"; m_end the shaft's end mass)
 *
 * Units: m/s, rad/s, kg, m; `phi_deg`, `theta_deg` in degrees.
 */

/** A cue stick: `mass` and the shaft's `end_mass` (kg), physics/table.py `CueSpec`. */
export interface Cue {
  mass: number;
  end_mass: number;
}

/**
 * The cue of each kind of table preset (physics/table.py: pooltool 0.6.0's cue, end mass a
 * thirtieth of the ball's after Alciatore TP A-31). The preset map the server sends has no cue.
 */
export const CUES: Record<"pool" | "carom", Cue> = {
  pool: { mass: 0.567, end_mass: 0.17 / 30.0 },
  carom: { mass: 0.567, end_mass: 0.21 / 30.0 },
};

/** The cue used on a table of `kind` ("pool" or "carom"). */
export function cueOf(kind: string): Cue {
  return kind === "carom" ? CUES.carom : CUES.pool;
}

/** Strike inputs: aim `phi_deg`, cue speed `V0` (m/s), tip offsets `a`, `b` (ball radii), elevation `theta_deg`. */
export interface StrokeInput {
  phi_deg: number;
  V0: number;
  a: number;
  b: number;
  theta_deg: number;
}

/** The ball right after the strike: velocity on the bed (m/s) and angular velocity (rad/s). */
export interface Struck {
  vx: number;
  vy: number;
  wx: number;
  wy: number;
  wz: number;
}

/** cos and sin of an angle in degrees, exact at multiples of 90 (cue_strike.pyx `direction_deg`). */
export function directionDeg(phiDeg: number): [number, number] {
  let p = phiDeg % 360.0;
  if (p < 0.0) p += 360.0;
  if (p === 0.0) return [1.0, 0.0];
  if (p === 90.0) return [0.0, 1.0];
  if (p === 180.0) return [-1.0, 0.0];
  if (p === 270.0) return [0.0, -1.0];
  return [Math.cos(p * (Math.PI / 180.0)), Math.sin(p * (Math.PI / 180.0))];
}

/** The divisor of the ball speed: 1 + m/M + (5/2)(a^2 + b^2). */
function massTerm(a: number, b: number, ballMass: number, cueMass: number): number {
  return 1.0 + ballMass / cueMass + 2.5 * (a * a + b * b);
}

/**
 * Velocity and spin of a ball of mass `ballMass` (kg) and radius `R` (m) struck with `s` by
 * `cue` (the port of cue_strike.pyx `strike`).
 */
export function strike(s: StrokeInput, ballMass: number, R: number, cue: Cue): Struck {
  const [cph, sph] = directionDeg(s.phi_deg);
  const theta = s.theta_deg * (Math.PI / 180.0);
  const a = s.a;
  const bb = s.b;
  const cth = Math.cos(theta);
  const sth = Math.sin(theta);
  const v = (2.0 * s.V0) / massTerm(a, bb, ballMass, cue.mass);
  const k = (2.5 * v) / R;
  const alpha = Math.atan((2.5 * a * Math.sqrt(1.0 - a * a)) / (1.0 + ballMass / cue.end_mass + 2.5 * (1.0 - a * a)));
  const ca = Math.cos(alpha);
  const sa = Math.sin(alpha);
  const vx = v * cth * cph;
  const vy = v * cth * sph;
  return {
    vx: ca * vx - sa * vy,
    vy: sa * vx + ca * vy,
    wx: k * (a * cph * sth - bb * sph),
    wy: k * (a * sph * sth + bb * cph),
    wz: k * a * cth,
  };
}

/** Speed on the bed (m/s) the cue ball leaves with: v cos(theta) (squirt turns it, not its size). */
export function cueBallSpeed(V0: number, a: number, b: number, thetaDeg: number, ballMass: number, cueMass: number): number {
  return ((2.0 * V0) / massTerm(a, b, ballMass, cueMass)) * Math.cos(thetaDeg * (Math.PI / 180.0));
}

/** The cue speed V0 (m/s) that gives the cue ball `speed` m/s on the bed: the inverse of `cueBallSpeed`. */
export function cueSpeedFor(speed: number, a: number, b: number, thetaDeg: number, ballMass: number, cueMass: number): number {
  return (speed * massTerm(a, b, ballMass, cueMass)) / (2.0 * Math.cos(thetaDeg * (Math.PI / 180.0)));
}
