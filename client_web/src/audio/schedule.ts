/**
 * Which sounds a stroke makes, when, and how loud: read from its event log. Pure (no Web Audio
 * here), so a log gives the same schedule everywhere.
 *
 * - `cue`: the strike (the tip on the cue ball); loudness by the cue ball's speed after it.
 * - `click`: a ball-ball collision; by the closing speed along the line of centres just before it.
 * - `cushion`: a ball on a cushion nose; by the ball's speed into the cushion just before it (its
 *   velocity along the impulse the cushion gave it).
 * - `rattle`: the same on a pocket jaw or facing (the ball knocks in the mouth of the pocket).
 * - `pocket`: a ball dropping into a pocket; by its speed as it drops, at least that of 0.5 m/s
 *   (a ball that creeps over the edge still falls and is heard).
 *
 * gain = min(1, (speed / reference) ^ 0.8), the reference being a hard stroke of its kind;
 * contacts slower than 2 cm/s (frozen balls, resting touches) make no sound.
 */

import { Ball, evolveState } from "../physics/motion";
import type { ShotLog } from "../physics/shotlog";

export type SoundKind = "cue" | "click" | "cushion" | "rattle" | "pocket";

export interface Sound {
  /** seconds since the strike */
  t: number;
  kind: SoundKind;
  /** 0..1 */
  gain: number;
  /** the impact speed it is scaled by (m/s) */
  speed: number;
  /** the balls involved */
  balls: number[];
}

/** Speeds (m/s) that give full loudness. */
export const REFERENCE_SPEED: Record<SoundKind, number> = { cue: 8, click: 4, cushion: 3, rattle: 2, pocket: 2.5 };
/** Contacts slower than this (m/s) are silent. */
export const SILENT_BELOW = 0.02;
/** The loudness of a drop is never below that of a ball falling in at this speed (m/s). */
export const POCKET_FLOOR = 0.5;

export function gainFor(kind: SoundKind, speed: number): number {
  return Math.min(1, Math.pow(Math.max(0, speed) / REFERENCE_SPEED[kind], 0.8));
}

const isJaw = (name: string | null) => !!name && (name.includes(".jaw") || name.includes(".facing"));

/** The sounds of `log`, in time order. */
export function soundSchedule(log: ShotLog): Sound[] {
  const out: Sound[] = [];
  const push = (t: number, kind: SoundKind, speed: number, balls: number[]) => {
    if (!(speed >= SILENT_BELOW)) return;
    out.push({ t, kind, gain: gainFor(kind, speed), speed, balls });
  };
  // each ball's state after the events so far, in the log's order: several contacts at one
  // instant (a ball driven into a row of frozen balls) pass the impulse along in that order
  const last = new Map<number, { t: number; b: Ball }>();
  for (const [id, b] of log.initial) last.set(id, { t: 0, b });
  const before = (id: number, t: number): Ball => {
    const s = last.get(id);
    if (!s) return log.ballAt(id, t);
    return t > s.t ? evolveState(s.b, t - s.t, log.cloth) : s.b;
  };
  for (const e of log.events) {
    if (e.kind === "strike") {
      for (const id of e.balls) {
        const b = e.states.get(id) ?? log.ballAt(id, e.t);
        push(e.t, "cue", Math.hypot(b.vx, b.vy), [id]);
      }
    } else if (e.kind === "ball_ball" && e.balls.length >= 2) {
      const [i, j] = e.balls;
      const a = before(i, e.t);
      const b = before(j, e.t);
      const dx = b.rx - a.rx;
      const dy = b.ry - a.ry;
      const d = Math.hypot(dx, dy) || 1;
      const closing = ((a.vx - b.vx) * dx + (a.vy - b.vy) * dy) / d;
      push(e.t, "click", Math.abs(closing), [i, j]);
    } else if (e.kind === "ball_cushion" && e.balls.length) {
      const id = e.balls[0];
      const pre = before(id, e.t);
      const after = e.states.get(id) ?? log.ballAt(id, e.t);
      const jx = after.vx - pre.vx;
      const jy = after.vy - pre.vy;
      const jn = Math.hypot(jx, jy);
      const into = jn > 0 ? Math.abs((pre.vx * jx + pre.vy * jy) / jn) : 0;
      push(e.t, isJaw(e.cushion) ? "rattle" : "cushion", into, [id]);
    } else if (e.kind === "ball_pocket" && e.balls.length) {
      const id = e.balls[0];
      const b = before(id, e.t);
      push(e.t, "pocket", Math.max(POCKET_FLOOR, Math.hypot(b.vx, b.vy)), [id]);
    }
    for (const [id, b] of e.states) last.set(id, { t: e.t, b });
  }
  return out;
}
