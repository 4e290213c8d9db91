/**
 * The event log of one stroke and the trajectories it defines (the port of physics/events.py
 * `SimResult.ball_state_at`): a ball's state at time t is its state at the last event that
 * changed it (or its initial rest position), evolved by the closed-form motion for the time since.
 *
 * Two input shapes are read:
 * - the wire log of protocol/eventlog.py: {"table", "initial": [id, x, y, ...], "events": [[t, kind,
 *   balls, where, [id, state, x, y, vx, vy, wx, wy, wz, ...]], ...], "final": [id, state, x, y, ...],
 *   "capped"} with kind and state as integer codes;
 * - the JSON of physics.events.SimResult.to_json(): {"table", "initial": {id: [x, y]}, "events":
 *   [{"t", "kind", "balls", "cushion", "pocket", "states": {id: {"state", "r", "v", "w"}}}], "final": {...}}.
 */

import { Ball, Cloth, POCKETED, STATIONARY, copyBall, enterNextState, evolve, evolveState, stateCode, transitionTime, STATE_NAMES } from "./motion";

/** Event kinds, index = wire code (protocol/eventlog.py EVENT_KINDS). */
export const EVENT_KINDS = [
  "strike",
  "ball_ball",
  "ball_cushion",
  "ball_pocket",
  "slide_to_roll",
  "slide_to_spin",
  "slide_to_rest",
  "roll_to_spin",
  "roll_to_rest",
  "spin_to_rest",
  "event_cap",
  "off_table",
] as const;

export const STATE_WIDTH = 9; // numbers per ball state in a wire event

export interface ShotEvent {
  t: number;
  kind: string;
  balls: number[];
  /** cushion or pocket id of the preset (wire logs), else null */
  where: number | null;
  cushion: string | null;
  pocket: string | null;
  states: Map<number, Ball>;
}

interface Segment {
  t: number;
  b: Ball;
}

function atRest(x: number, y: number): Ball {
  return { s: STATIONARY, rx: x, ry: y, vx: 0, vy: 0, wx: 0, wy: 0, wz: 0 };
}

function num(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`log: ${what} is not a finite number`);
  return v;
}

/** Names for ids, from the preset (Table.to_json()): cushions and jaws share one id space. */
export interface PresetNames {
  cushions: Map<number, string>;
  pockets: Map<number, string>;
}

export function presetNames(preset: { cushions?: { id: number; name: string }[]; jaws?: { id: number; name: string }[]; pockets?: { id: number; name: string }[] }): PresetNames {
  const cushions = new Map<number, string>();
  for (const c of [...(preset.cushions ?? []), ...(preset.jaws ?? [])]) cushions.set(c.id, c.name);
  const pockets = new Map<number, string>();
  for (const p of preset.pockets ?? []) pockets.set(p.id, p.name);
  return { cushions, pockets };
}

export class ShotLog {
  readonly table: string;
  readonly initial: Map<number, Ball>;
  readonly events: ShotEvent[];
  readonly capped: boolean;
  private readonly cloth: Cloth;
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

  /** A wire log (protocol/eventlog.py). `names` resolves cushion/pocket ids; throws on a malformed log. */
  static fromWire(log: any, cloth: Cloth, names?: PresetNames): ShotLog {
    if (!log || !Array.isArray(log.initial) || !Array.isArray(log.events)) throw new Error("log: not an event log");
    const ini: unknown[] = log.initial;
    if (ini.length % 3) throw new Error("log: initial length must be a multiple of 3");
    const initial = new Map<number, Ball>();
    for (let i = 0; i < ini.length; i += 3) initial.set(num(ini[i], "ball id"), atRest(num(ini[i + 1], "x"), num(ini[i + 2], "y")));
    const events: ShotEvent[] = [];
    for (const ev of log.events as unknown[]) {
      if (!Array.isArray(ev) || ev.length !== 5) throw new Error("log: an event is [t, kind, balls, where, states]");
      const [t, kindCode, balls, where, st] = ev;
      const kind = EVENT_KINDS[num(kindCode, "kind")];
      if (kind === undefined) throw new Error(`log: unknown event kind ${kindCode}`);
      if (!Array.isArray(st) || st.length % STATE_WIDTH) throw new Error("log: states length must be a multiple of 9");
      const states = new Map<number, Ball>();
      for (let i = 0; i < st.length; i += STATE_WIDTH) {
        const s = num(st[i + 1], "state");
        if (!(s >= 0 && s < STATE_NAMES.length)) throw new Error(`log: unknown state code ${s}`);
        states.set(num(st[i], "ball id"), {
          s,
          rx: num(st[i + 2], "x"),
          ry: num(st[i + 3], "y"),
          vx: num(st[i + 4], "vx"),
          vy: num(st[i + 5], "vy"),
          wx: num(st[i + 6], "wx"),
          wy: num(st[i + 7], "wy"),
          wz: num(st[i + 8], "wz"),
        });
      }
      const w = where === null || where === undefined ? null : num(where, "where");
      events.push({
        t: num(t, "t"),
        kind,
        balls: Array.isArray(balls) ? balls.map((b: unknown) => num(b, "ball id")) : [],
        where: w,
        cushion: kind === "ball_cushion" && w !== null ? names?.cushions.get(w) ?? null : null,
        pocket: kind === "ball_pocket" && w !== null ? names?.pockets.get(w) ?? null : null,
        states,
      });
    }
    return new ShotLog(String(log.table ?? ""), initial, events, cloth, Boolean(log.capped));
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
