/**
 * The first contact of the cue ball along the aim line: straight-line geometry only (the ghost
 * ball), no physics beyond it. The cue ball's centre moves along c + s d (d a unit vector, s >= 0
 * in metres) until it touches another ball (centre distance 2R), a cushion nose or pocket
 * facing (distance R from the line, within the segment), a jaw (distance R + jaw radius from
 * its centre), or its centre enters a pocket circle.
 */

import type { Preset, Vec2 } from "../protocol/messages";

export interface Contact {
  kind: "ball" | "cushion" | "pocket" | "none";
  /** distance travelled by the cue ball's centre (m) */
  s: number;
  /** the cue ball's centre at contact: the ghost ball (m) */
  at: Vec2;
  ball?: number;
  cushion?: string;
  pocket?: string;
  /** for a ball contact: unit direction the object ball is driven (the line of centres) */
  objectDir?: Vec2;
}

/** Smallest s >= 0 with |c + s d - q| = rho, approaching (null if none). */
function hitCircle(c: Vec2, d: Vec2, q: Vec2, rho: number): number | null {
  const wx = c[0] - q[0];
  const wy = c[1] - q[1];
  const b = wx * d[0] + wy * d[1];
  const cc = wx * wx + wy * wy - rho * rho;
  if (cc <= 0) return b < 0 ? 0 : null; // already touching or inside: a contact only when moving closer
  const disc = b * b - cc;
  if (disc < 0 || b >= 0) return null;
  const s = -b - Math.sqrt(disc);
  return s >= 0 ? s : null;
}

export function firstContact(cue: Vec2, phiDeg: number, R: number, others: Map<number, Vec2>, p: Preset): Contact {
  const phi = (phiDeg * Math.PI) / 180;
  const d: Vec2 = [Math.cos(phi), Math.sin(phi)];
  let best: Contact = { kind: "none", s: Infinity, at: cue };
  const take = (s: number | null, c: Omit<Contact, "s" | "at">) => {
    if (s !== null && s < best.s) best = { ...c, s, at: [cue[0] + s * d[0], cue[1] + s * d[1]] };
  };
  for (const [id, q] of others) take(hitCircle(cue, d, q, 2 * R), { kind: "ball", ball: id });
  for (const c of p.cushions) {
    const n = c.normal;
    const nd = n[0] * d[0] + n[1] * d[1];
    if (nd >= 0) continue; // moving away from (or along) the playing side
    const dist = n[0] * (cue[0] - c.p1[0]) + n[1] * (cue[1] - c.p1[1]);
    const s = Math.max(0, (R - dist) / nd);
    if (dist < -R) continue; // behind the cushion
    const x = cue[0] + s * d[0];
    const y = cue[1] + s * d[1];
    const ex = c.p2[0] - c.p1[0];
    const ey = c.p2[1] - c.p1[1];
    const u = ((x - c.p1[0]) * ex + (y - c.p1[1]) * ey) / (ex * ex + ey * ey);
    if (u >= 0 && u <= 1) take(s, { kind: "cushion", cushion: c.name });
  }
  for (const j of p.jaws) take(hitCircle(cue, d, j.centre, R + j.radius), { kind: "cushion", cushion: j.name });
  for (const pk of p.pockets) take(hitCircle(cue, d, pk.centre, pk.radius), { kind: "pocket", pocket: pk.name });
  if (best.kind === "ball" && best.ball !== undefined) {
    const q = others.get(best.ball)!;
    const lx = q[0] - best.at[0];
    const ly = q[1] - best.at[1];
    const n = Math.hypot(lx, ly) || 1;
    best.objectDir = [lx / n, ly / n];
  }
  if (best.kind === "none") {
    const far = 2 * (p.length + p.width);
    best = { kind: "none", s: far, at: [cue[0] + far * d[0], cue[1] + far * d[1]] };
  }
  return best;
}

/** Aim angle (degrees, CCW from +x) from `from` toward `to`. */
export function aimAngle(from: Vec2, to: Vec2): number {
  return (Math.atan2(to[1] - from[1], to[0] - from[0]) * 180) / Math.PI;
}

/** Normalise degrees into (-180, 180]. */
export function normDeg(a: number): number {
  let x = a % 360;
  if (x <= -180) x += 360;
  if (x > 180) x -= 360;
  return x;
}

export interface InHandRegion {
  region: string;
  x_max?: number;
}

/**
 * Where a ball in hand may be placed: on the bed (centre at least R inside every cushion nose),
 * behind `x_max` for the kitchen, and not overlapping another ball. Returns the clamped point, or
 * null when it would overlap a ball.
 */
export function placeInHand(want: Vec2, R: number, p: Preset, region: InHandRegion, others: Map<number, Vec2>): Vec2 | null {
  const xmax = Math.min(p.length - R, region.region === "kitchen" && region.x_max !== undefined ? region.x_max : Infinity);
  const x = Math.min(Math.max(want[0], R), xmax);
  const y = Math.min(Math.max(want[1], R), p.width - R);
  for (const q of others.values()) {
    if (Math.hypot(q[0] - x, q[1] - y) < 2 * R + 1e-6) return null;
  }
  return [x, y];
}
