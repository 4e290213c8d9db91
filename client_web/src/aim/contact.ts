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

/** Tolerances of the server's placement test: `Table.on_bed` (physics/table.py, 1e-9 m),
 * `OVERLAP_TOL` (physics/simulate.py, 1 um) and `_EPS_TOUCH` (rules/spotting.py, 1e-9 m). */
const ON_BED_TOL = 1e-9;
const OVERLAP_TOL = 1e-6;
const EPS_TOUCH = 1e-9;
/** Clearance the client keeps beyond each limit when it moves a dragged ball (m): invisible, and
 * it keeps the placed point clear of the server's strict inequalities after rounding. */
const MARGIN = 1e-6;

/** Why the server would refuse a ball in hand at `c`, or null when it accepts it. */
export type PlacementProblem = "off_bed" | "pocket" | "jaw" | "cushion" | "kitchen" | "ball";

/**
 * The server's test of a ball-in-hand position, ported from rules/straight_pool.py
 * `_check_placement`: `Table.on_bed` (physics/table.py: the centre at least R inside the cushion
 * noses' rectangle, tolerance 1e-9 m), then `on_playing_surface` (physics/simulate.py, i.e.
 * `_surface_problem` in physics/engine.pyx with tol = 1e-6 m: the centre outside every pocket
 * circle, the ball overlapping no jaw or straight cushion segment by more than tol; its pocket
 * mouth test never matters here because on_bed already keeps the centre inside the rectangle),
 * then the kitchen limit `x <= x_max` (rules/spotting.py `behind_head_string`; the server sends
 * `kitchen_x_max` as `in_hand.x_max`), then `overlaps_any` (rules/spotting.py: centres closer
 * than 2R - 1e-9 m). `c` and the ball centres in metres, `R` the ball radius (m).
 */
export function placementProblem(c: Vec2, R: number, p: Preset, region: InHandRegion, others: Map<number, Vec2>): PlacementProblem | null {
  const [x, y] = c;
  if (!(Number.isFinite(x) && Number.isFinite(y))) return "off_bed";
  if (!(R - ON_BED_TOL <= x && x <= p.length - R + ON_BED_TOL && R - ON_BED_TOL <= y && y <= p.width - R + ON_BED_TOL)) return "off_bed";
  for (const pk of p.pockets) {
    const dx = x - pk.centre[0];
    const dy = y - pk.centre[1];
    if (dx * dx + dy * dy < pk.radius * pk.radius) return "pocket";
  }
  for (const j of p.jaws) {
    const dx = x - j.centre[0];
    const dy = y - j.centre[1];
    const d = j.radius + R - OVERLAP_TOL;
    if (dx * dx + dy * dy < d * d) return "jaw";
  }
  for (const s of p.cushions) {
    const len = Math.hypot(s.p2[0] - s.p1[0], s.p2[1] - s.p1[1]);
    const u = ((x - s.p1[0]) * (s.p2[0] - s.p1[0]) + (y - s.p1[1]) * (s.p2[1] - s.p1[1])) / len;
    if (u < 0 || u > len) continue;
    if (s.normal[0] * (x - s.p1[0]) + s.normal[1] * (y - s.p1[1]) - R < -OVERLAP_TOL) return "cushion";
  }
  if (region.region === "kitchen" && region.x_max !== undefined && !(x <= region.x_max)) return "kitchen";
  for (const q of others.values()) {
    if (Math.hypot(q[0] - x, q[1] - y) < 2 * R - EPS_TOUCH) return "ball";
  }
  return null;
}

/**
 * Where a dragged ball in hand goes: the nearest point to `want` (m) that the server accepts
 * (see `placementProblem`). The point is clamped into the bed (centre at least R inside every
 * cushion nose) and behind `x_max` for the kitchen, then pushed out of any pocket circle, jaw or
 * cushion facing it would enter (a corner of the bed, (R, R), lies inside the corner pocket's
 * circle: it goes out along the circle's radius), a few rounds until nothing moves it. Returns
 * null when the result would still be refused, e.g. when it overlaps another ball (the caller
 * keeps the previous placement).
 */
export function placeInHand(want: Vec2, R: number, p: Preset, region: InHandRegion, others: Map<number, Vec2>): Vec2 | null {
  const xmax = Math.min(p.length - R, region.region === "kitchen" && region.x_max !== undefined ? region.x_max : Infinity);
  const clampX = (v: number) => Math.min(Math.max(v, R), xmax);
  const clampY = (v: number) => Math.min(Math.max(v, R), p.width - R);
  let x = clampX(want[0]);
  let y = clampY(want[1]);
  // Out of a circle of radius rho around q, along its radius (the nearest point outside it), to
  // rho + margin from q.
  const outOf = (q: Vec2, rho: number, margin: number): boolean => {
    const dx = x - q[0];
    const dy = y - q[1];
    const d = Math.hypot(dx, dy);
    if (d >= rho) return false;
    const k = (rho + margin) / (d || 1);
    x = clampX(q[0] + (d ? dx : 1) * k);
    y = clampY(q[1] + (d ? dy : 1) * k);
    return true;
  };
  for (let round = 0; round < 8; round++) {
    let moved = false;
    // The server refuses a centre strictly inside a pocket circle, a ball overlapping a jaw or a
    // cushion by more than OVERLAP_TOL: leave a margin at the pocket, touch jaws and cushions.
    for (const pk of p.pockets) moved = outOf(pk.centre, pk.radius, MARGIN) || moved;
    for (const j of p.jaws) moved = outOf(j.centre, j.radius + R, 0) || moved;
    for (const s of p.cushions) {
      const ex = s.p2[0] - s.p1[0];
      const ey = s.p2[1] - s.p1[1];
      const u = ((x - s.p1[0]) * ex + (y - s.p1[1]) * ey) / (ex * ex + ey * ey);
      if (u < 0 || u > 1) continue;
      const gap = s.normal[0] * (x - s.p1[0]) + s.normal[1] * (y - s.p1[1]) - R;
      if (gap >= 0) continue;
      x = clampX(x - gap * s.normal[0]);
      y = clampY(y - gap * s.normal[1]);
      moved = true;
    }
    if (!moved) break;
  }
  for (const q of others.values()) {
    if (Math.hypot(q[0] - x, q[1] - y) < 2 * R + MARGIN) return null;
  }
  return placementProblem([x, y], R, p, region, others) === null ? [x, y] : null;
}

/** A straight path of a ball's centre for the aim aid (m). */
export interface AidLine {
  from: Vec2;
  to: Vec2;
  /** what ends it: the first cushion (or ball, or pocket) in the way */
  end: Contact["kind"];
}

/**
 * The aim aid beyond the first contact, for a cue ball aimed at `phiDeg` that meets a ball (the
 * contact `c` of `firstContact`): the object ball's direction (the line of centres) and the cue
 * ball's tangent line after the contact for a stun shot (the 90-degree rule: no spin, equal
 * masses, no throw), each up to the first cushion, ball or pocket in its way. Straight-line
 * geometry only: follow, draw, throw and squirt bend the real paths. `others` are the other balls
 * on the table (the object ball among them, the cue ball not). Null unless `c` is a ball contact.
 */
export function aimAid(c: Contact, phiDeg: number, R: number, others: Map<number, Vec2>, p: Preset): { object: AidLine; tangent: AidLine | null } | null {
  if (c.kind !== "ball" || c.ball === undefined || !c.objectDir) return null;
  const q = others.get(c.ball);
  if (!q) return null;
  const rest = new Map(others);
  rest.delete(c.ball);
  const n = c.objectDir;
  const deg = (v: Vec2) => (Math.atan2(v[1], v[0]) * 180) / Math.PI;
  const ob = firstContact(q, deg(n), R, rest, p);
  const object: AidLine = { from: q, to: ob.at, end: ob.kind };
  const phi = (phiDeg * Math.PI) / 180;
  const d: Vec2 = [Math.cos(phi), Math.sin(phi)];
  const dn = d[0] * n[0] + d[1] * n[1];
  const t: Vec2 = [d[0] - dn * n[0], d[1] - dn * n[1]];
  const tl = Math.hypot(t[0], t[1]);
  if (tl < 1e-6) return { object, tangent: null }; // a full hit: the cue ball stops (stun)
  const cb = firstContact(c.at, deg([t[0] / tl, t[1] / tl]), R, rest, p);
  return { object, tangent: { from: c.at, to: cb.at, end: cb.kind } };
}
