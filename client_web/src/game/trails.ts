/**
 * Ball trails of one stroke, built from its event log: the path of every ball that moved, sampled
 * from the same closed-form motion as the animation (ShotLog), the cushion contacts on it, and, for
 * the cue ball of a carom stroke, those contacts numbered 1, 2, 3... in order (a three-cushion
 * player sees the count) with where they were in diamonds (./diamonds.ts: "1 · 3.5"). A path is cut at a pocket (its last point the pocket's centre).
 */

import { POCKETED, ROLLING, SLIDING, STATIONARY } from "../physics/motion";
import type { ShotLog } from "../physics/shotlog";
import { RailGeometry, diamondAt, round1 } from "./diamonds";

export interface TrailPoint {
  t: number;
  x: number;
  y: number;
}

export interface CushionMark extends TrailPoint {
  /** the cushion (or jaw) name, when the log names it */
  cushion: string | null;
  /** 1, 2, 3... for the cushion contacts of a carom cue ball; null otherwise */
  n: number | null;
  /** the numbered contact in diamond units (./diamonds.ts, one decimal), when the options give the rails; else null */
  diamond: number | null;
}

export interface Trail {
  ball: number;
  /** the struck ball (both balls of a lag) */
  cue: boolean;
  points: TrailPoint[];
  cushions: CushionMark[];
  /** time (s) the ball was pocketed, or null */
  pocketed: number | null;
}

export interface TrailOptions {
  /** number the cue ball's cushion contacts (carom) */
  numberCushions: boolean;
  /** sampling step between events (s) */
  dt?: number;
  /** the table's rails: the numbered contacts get their diamond readout (a label "1 · 3.5") */
  rails?: RailGeometry;
}

/** Default sampling step: 1/120 s (a ball at 5 m/s draws a point every 4 cm; curves stay smooth). */
export const TRAIL_DT = 1 / 120;

/** The trails of the balls that moved in `log`, by ball id (ascending). */
export function buildTrails(log: ShotLog, opt: TrailOptions): Trail[] {
  const dt = opt.dt ?? TRAIL_DT;
  const cues = new Set<number>();
  for (const e of log.events) if (e.kind === "strike") for (const b of e.balls) cues.add(b);
  const out: Trail[] = [];
  for (const id of log.balls()) {
    const line = log.timeline(id);
    if (!line.some((s) => s.b.s !== STATIONARY)) continue; // never moved
    const pocketed = log.pocketedAt(id);
    const end = pocketed ?? log.restTime(id);
    const points: TrailPoint[] = [];
    const add = (t: number) => {
      const b = log.ballAt(id, t);
      points.push({ t, x: b.rx, y: b.ry });
    };
    for (let k = 0; k < line.length; k++) {
      const t0 = line[k].t;
      if (t0 > end) break;
      if (line[k].b.s === POCKETED) break;
      const t1 = Math.min(end, k + 1 < line.length ? line[k + 1].t : end);
      add(t0);
      // a ball at rest or spinning on the spot stays put until its next event
      const moving = line[k].b.s === SLIDING || line[k].b.s === ROLLING;
      if (moving) for (let t = t0 + dt; t < t1 - 1e-12; t += dt) add(t);
    }
    if (pocketed !== null) {
      const p = log.ballAt(id, pocketed);
      points.push({ t: pocketed, x: p.rx, y: p.ry });
    } else add(end);
    const cushions: CushionMark[] = [];
    let n = 0;
    for (const e of log.events) {
      if (e.kind !== "ball_cushion" || !e.balls.includes(id)) continue;
      const s = e.states.get(id);
      if (!s) continue;
      const numbered = opt.numberCushions && cues.has(id);
      const d = numbered && opt.rails && e.cushion !== null ? diamondAt(opt.rails, e.cushion, s.rx, s.ry) : null;
      cushions.push({ t: e.t, x: s.rx, y: s.ry, cushion: e.cushion, n: numbered ? ++n : null, diamond: d ? round1(d[1]) : null });
    }
    out.push({ ball: id, cue: cues.has(id), points, cushions, pocketed });
  }
  return out;
}

/** The points of `trail` up to time `t` (s), ending at the ball's position then when given. */
export function trailUpTo(trail: Trail, t: number, at?: { x: number; y: number }): TrailPoint[] {
  const pts: TrailPoint[] = [];
  for (const p of trail.points) {
    if (p.t > t) break;
    pts.push(p);
  }
  if (at && pts.length && (trail.pocketed === null || t < trail.pocketed)) pts.push({ t, x: at.x, y: at.y });
  return pts;
}
