/**
 * The event log of one stroke and the trajectories it defines (the port of physics/events.py
 * `SimResult.ball_state_at`): a ball's state at time t is its state at the last event that
 * changed it (or its initial rest position), evolved by the closed-form motion for the time since.
 *
 * Two input shapes are read:
 * - the wire log of protocol/eventlog.py, either format (./wirelog.ts reads it);
 * - the JSON of physics.events.SimResult.to_json(): {"table", "initial": {id: [x, y]}, "events":
 *   [{"t", "kind", "balls", "cushion", "pocket", "states": {id: {"state", "r", "v", "w"}}}], "final": {...}}.
 */

import { Ball, Cloth, POCKETED, STATIONARY, copyBall, enterNextState, evolve, evolveState, stateCode, transitionTime } from "./motion";
import { ShotEvent, PresetNames, atRest, decodeWireLog } from "./wirelog";

export { EVENT_KINDS, STATE_WIDTH, presetNames } from "./wirelog";
export type { ShotEvent, PresetNames } from "./wirelog";

interface Segment {
  t: number;
  b: Ball;
}

function num(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`log: ${what} is not a finite number`);
  return v;
}

export class ShotLog {
  readonly table: string;
  readonly initial: Map<number, Ball>;
  readonly events: ShotEvent[];
  readonly capped: boolean;
  readonly cloth: Cloth;
  private readonly segs = new Map<number, Segment[]>();

  constructor(table: string, initial: Map<number, Ball>, events: ShotEvent[], cloth: Cloth, capped = false) {
    this.table = table;
    this.initial = initial;
    this.events = events;
    this.cloth = cloth;
    this.capped = capped;
    for (const [id, b] of initial) this.segs.set(id, [{ t: 0.0, b }]);
    for (const e of events) {
      for (const [id, b] of e.states) {
        let s = this.segs.get(id);
        if (!s) {
          s = [{ t: 0.0, b: atRest(b.rx, b.ry) }];
          this.segs.set(id, s);
        }
        s.push({ t: e.t, b });
      }
    }
  }

  /**
   * A wire log (protocol/eventlog.py, format 1 or 2). `names` resolves cushion/pocket ids; throws on a
   * malformed log. A format-2 log carries the cloth the server simulated with: it drives the replay.
   */
  static fromWire(log: any, cloth: Cloth, names?: PresetNames): ShotLog {
    const w = decodeWireLog(log, names);
    return new ShotLog(w.table, w.initial, w.events, w.cloth ?? cloth, w.capped);
  }

  /** The JSON of physics.events.SimResult.to_json() (golden files, match records). */
  static fromSimJson(d: any, cloth: Cloth): ShotLog {
    const initial = new Map<number, Ball>();
    for (const [k, r] of Object.entries(d.initial as Record<string, [number, number]>)) initial.set(Number(k), atRest(num(r[0], "x"), num(r[1], "y")));
    const events: ShotEvent[] = (d.events as any[]).map((e) => {
      const states = new Map<number, Ball>();
      for (const [k, s] of Object.entries((e.states ?? {}) as Record<string, any>)) {
        const v = s.v ?? [0, 0];
        const w = s.w ?? [0, 0, 0];
        states.set(Number(k), { s: stateCode(s.state), rx: s.r[0], ry: s.r[1], vx: v[0], vy: v[1], wx: w[0], wy: w[1], wz: w[2] });
      }
      return { t: num(e.t, "t"), kind: String(e.kind), balls: (e.balls ?? []).map(Number), where: null, cushion: e.cushion ?? null, pocket: e.pocket ?? null, states };
    });
    return new ShotLog(String(d.table ?? ""), initial, events, cloth, Boolean(d.capped));
  }

  /** Ball ids of the log (every ball of the initial layout, plus any an event introduces). */
  balls(): number[] {
    return [...this.segs.keys()].sort((a, b) => a - b);
  }

  /** State of `ball` at time `t` (s since the strike); after its last event it evolves to rest. */
  ballAt(ball: number, t: number): Ball {
    const segs = this.segs.get(ball);
    if (!segs) throw new Error(`ball: unknown ball id ${ball}`);
    let t0 = segs[0].t;
    let s = segs[0].b;
    for (const seg of segs) {
      if (seg.t <= t) {
        t0 = seg.t;
        s = seg.b;
      } else break;
    }
    if (s.s === STATIONARY || s.s === POCKETED || t <= t0) return s;
    return evolveState(s, t - t0, this.cloth);
  }

  /** The states that start each piece of `ball`'s motion, in time order (t = 0 for the initial rest). */
  timeline(ball: number): readonly { t: number; b: Ball }[] {
    return this.segs.get(ball) ?? [];
  }

  /** Time (s) at which `ball` comes to rest (or is pocketed, or stops being logged). */
  restTime(ball: number): number {
    const segs = this.segs.get(ball);
    if (!segs) return 0;
    const last = segs[segs.length - 1];
    return last.t + timeToRest(last.b, this.cloth);
  }

  /** State of `ball` just before time `t`: the motion that an event at `t` ends (its pre-impact state). */
  ballBefore(ball: number, t: number): Ball {
    const segs = this.segs.get(ball);
    if (!segs) throw new Error(`ball: unknown ball id ${ball}`);
    let s = segs[0];
    for (const seg of segs) {
      if (seg.t < t) s = seg;
      else break;
    }
    if (s.b.s === STATIONARY || s.b.s === POCKETED || t <= s.t) return s.b;
    return evolveState(s.b, t - s.t, this.cloth);
  }

  /** Time (s) at which `ball` was pocketed, or null. */
  pocketedAt(ball: number): number | null {
    for (const seg of this.segs.get(ball) ?? []) if (seg.b.s === POCKETED) return seg.t;
    return null;
  }

  /** Every ball's state at time `t`. */
  at(t: number): Map<number, Ball> {
    const out = new Map<number, Ball>();
    for (const id of this.segs.keys()) out.set(id, this.ballAt(id, t));
    return out;
  }

  /** Time (s) when the last ball comes to rest: the end of the animation. */
  duration(): number {
    let end = 0.0;
    for (const segs of this.segs.values()) {
      const last = segs[segs.length - 1];
      end = Math.max(end, last.t + timeToRest(last.b, this.cloth));
    }
    for (const e of this.events) end = Math.max(end, e.t);
    return end;
  }
}

/** Seconds until a ball in state `b0` is at rest (through its remaining transitions); 0 if at rest. */
export function timeToRest(b0: Ball, c: Cloth): number {
  const b = copyBall(b0);
  let total = 0.0;
  for (let i = 0; i < 8 && b.s !== STATIONARY && b.s !== POCKETED; i++) {
    const tt = transitionTime(b, c);
    if (!Number.isFinite(tt)) break;
    evolve(b, tt, c);
    total += tt;
    enterNextState(b, c);
  }
  return total;
}

/** The cloth of a preset map (Table.to_json(): ball.radius and cloth). */
export function clothOf(preset: { ball: { radius: number }; cloth: { mu_s: number; mu_r: number; mu_sp: number; g: number } }): Cloth {
  return { R: preset.ball.radius, mu_s: preset.cloth.mu_s, mu_r: preset.cloth.mu_r, mu_sp: preset.cloth.mu_sp, g: preset.cloth.g };
}
