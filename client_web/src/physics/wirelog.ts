/**
 * The wire event log of a stroke (protocol/eventlog.py, docs/protocol.md section 6) read into ball
 * states, in either format; every number comes out as the float64 the server's engine produced.
 *
 * - Format 1 (no "f" key): {"table", "initial": [id, x, y, ...], "events": [[t, kind, balls, where,
 *   [id, state, x, y, vx, vy, wx, wy, wz, ...]], ...], "final": [id, state, x, y, ...], "capped", "flags"?}.
 * - Format 2 ("f": 2): {"f", "table", "motion": [R, mu_s, mu_r, mu_sp, g, gap], "initial", "ev":
 *   [[kind, balls, t?, where?, states?], ...], "fin"?, "capped"?, "flags"?}: what is left out is the
 *   reference the receiver computes, exactly as protocol/motion.py does: a ball's last state moved by
 *   the closed-form motion of ./motion.ts since its last event; then, for a state transition, its next
 *   state; for a ball_pocket event, pocketed with no velocity or spin; for a ball_ball event of two
 *   balls, both pushed apart to 2R + gap. A transition event without a time happens at
 *   t_last + transitionTime(last). States: [id, state, mask, values...], bit k of mask set when field k
 *   of (x, y, vx, vy, wx, wy, wz) is among the values, else the reference's.
 *
 * Bit-exactness: the reference uses only + - * / and sqrt, in the same order as the Python decoder and
 * the C engine, and IEEE 754 rounds each of those correctly, so the three agree to the bit
 * (client_web/test/wirelog.test.ts checks it over every golden vector and benchmark shot).
 */

import { Ball, Cloth, POCKETED, STATE_NAMES, STATIONARY, copyBall, enterNextState, evolve, transitionTime } from "./motion";

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

export const STATE_WIDTH = 9; // numbers per ball state in a format-1 event
const FIELDS = 7; // x, y, vx, vy, wx, wy, wz after the state code (format 2 masks)
const TRANSITIONS = new Set(["slide_to_roll", "slide_to_spin", "slide_to_rest", "roll_to_spin", "roll_to_rest", "spin_to_rest"]);

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

/** A decoded wire log: the content of physics.events.SimResult.to_json(), with states as Balls. */
export interface WireLog {
  format: 1 | 2;
  table: string;
  /** balls at rest before the strike, in the log's order (by id) */
  initial: Map<number, Ball>;
  events: ShotEvent[];
  /** every ball after the stroke: state code and position */
  final: Map<number, { s: number; rx: number; ry: number }>;
  capped: boolean;
  flags: string[];
  /** format 2: the constants the reference motion used (the server's cloth); null for format 1 */
  cloth: Cloth | null;
}

export function atRest(x: number, y: number): Ball {
  return { s: STATIONARY, rx: x, ry: y, vx: 0, vy: 0, wx: 0, wy: 0, wz: 0 };
}

function num(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`log: ${what} is not a finite number`);
  return v;
}

function int(v: unknown, what: string, below?: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || (below !== undefined && !(v >= 0 && v < below))) throw new Error(`log: ${what} ${JSON.stringify(v)} is not valid`);
  return v;
}

function list(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`log: ${what} must be a list`);
  return v;
}

function flagsOf(log: any): string[] {
  const f = log.flags;
  if (f === undefined || f === null) return [];
  if (!Array.isArray(f) || !f.every((x) => typeof x === "string")) throw new Error("log: flags must be a list of stroke flag names");
  return [...f];
}

function names(kind: string, w: number | null, n?: PresetNames): { cushion: string | null; pocket: string | null } {
  return {
    cushion: kind === "ball_cushion" && w !== null ? n?.cushions.get(w) ?? null : null,
    pocket: kind === "ball_pocket" && w !== null ? n?.pockets.get(w) ?? null : null,
  };
}

/** Read a wire log of either format; throws Error on a malformed one. `n` resolves cushion and pocket ids. */
export function decodeWireLog(log: any, n?: PresetNames): WireLog {
  if (!log || typeof log !== "object" || Array.isArray(log)) throw new Error("log: not an event log");
  const f = log.f ?? 1;
  if (f === 1) return decodeFull(log, n);
  if (f === 2) return decodeCompact(log, n);
  throw new Error(`log: unknown event log format ${JSON.stringify(f)}`);
}

function readInitial(ini: unknown[]): Map<number, Ball> {
  if (ini.length % 3) throw new Error("log: initial length must be a multiple of 3");
  const initial = new Map<number, Ball>();
  for (let i = 0; i < ini.length; i += 3) {
    const id = int(ini[i], "ball id");
    if (initial.has(id)) throw new Error(`log: initial ball ${id} is listed twice`);
    initial.set(id, atRest(num(ini[i + 1], "x"), num(ini[i + 2], "y")));
  }
  return initial;
}

function decodeFull(log: any, n?: PresetNames): WireLog {
  if (!Array.isArray(log.initial) || !Array.isArray(log.events)) throw new Error("log: not an event log");
  const initial = readInitial(log.initial);
  const events: ShotEvent[] = [];
  for (const ev of log.events as unknown[]) {
    if (!Array.isArray(ev) || ev.length !== 5) throw new Error("log: an event is [t, kind, balls, where, states]");
    const [t, kindCode, balls, where, st] = ev;
    const kind = EVENT_KINDS[num(kindCode, "kind")];
    if (kind === undefined) throw new Error(`log: unknown event kind ${kindCode}`);
    if (!Array.isArray(st) || st.length % STATE_WIDTH) throw new Error("log: states length must be a multiple of 9");
    const states = new Map<number, Ball>();
    for (let i = 0; i < st.length; i += STATE_WIDTH) {
      states.set(num(st[i], "ball id"), {
        s: int(st[i + 1], "state", STATE_NAMES.length),
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
    events.push({ t: num(t, "t"), kind, balls: Array.isArray(balls) ? balls.map((b: unknown) => num(b, "ball id")) : [], where: w, ...names(kind, w, n), states });
  }
  const final = new Map<number, { s: number; rx: number; ry: number }>();
  const fin: unknown[] = Array.isArray(log.final) ? log.final : [];
  if (fin.length % 4) throw new Error("log: final length must be a multiple of 4");
  for (let i = 0; i < fin.length; i += 4) final.set(int(fin[i], "ball id"), { s: int(fin[i + 1], "state", STATE_NAMES.length), rx: num(fin[i + 2], "x"), ry: num(fin[i + 3], "y") });
  return { format: 1, table: String(log.table ?? ""), initial, events, final, capped: Boolean(log.capped), flags: flagsOf(log), cloth: null };
}

/** protocol/motion.py contact_positions: the two balls pushed apart along their line of centres, half each, to 2R + gap. */
export function contactPositions(a: Ball, b: Ball, R: number, gap: number): void {
  const dx = b.rx - a.rx;
  const dy = b.ry - a.ry;
  const d = Math.sqrt(dx * dx + dy * dy);
  const push = 2.0 * R + gap - d;
  if (!(push > 0.0 && d > 0.0)) return;
  const nx = dx / d;
  const ny = dy / d;
  const da = 0.5 * push;
  const db = push - da;
  a.rx -= da * nx;
  a.ry -= da * ny;
  b.rx += db * nx;
  b.ry += db * ny;
}

interface Last {
  t: number;
  b: Ball;
}

/** Reference state of the event's ball `id` at time t (protocol/eventlog.py _reference). */
function reference(kind: string, last: Last, t: number, c: Cloth): Ball {
  const p = copyBall(last.b);
  evolve(p, t - last.t, c);
  if (TRANSITIONS.has(kind)) enterNextState(p, c);
  else if (kind === "ball_pocket") {
    p.s = POCKETED;
    p.vx = 0.0;
    p.vy = 0.0;
    p.wx = 0.0;
    p.wy = 0.0;
    p.wz = 0.0;
  }
  return p;
}

const FIELD_KEYS = ["rx", "ry", "vx", "vy", "wx", "wy", "wz"] as const;

function decodeCompact(log: any, n?: PresetNames): WireLog {
  const m = list(log.motion, "motion");
  if (m.length !== 6) throw new Error("log: motion must be [R, mu_s, mu_r, mu_sp, g, gap]");
  const k = m.map((x) => num(x, "motion constant"));
  if (!k.every((x) => x > 0)) throw new Error("log: motion constants must be positive");
  const c: Cloth = { R: k[0], mu_s: k[1], mu_r: k[2], mu_sp: k[3], g: k[4] };
  const gap = k[5];
  if (typeof log.table !== "string") throw new Error("log: table must be a preset name");
  const initial = readInitial(list(log.initial, "initial"));
  const last = new Map<number, Last>();
  for (const [id, b] of initial) last.set(id, { t: 0.0, b });
  const lastOf = (id: number): Last => {
    const l = last.get(id);
    if (!l) throw new Error(`log: ball ${id} is not in the initial layout`);
    return l;
  };
  const events: ShotEvent[] = [];
  for (const raw of list(log.ev, "ev")) {
    const ev = list(raw, "an event");
    if (ev.length < 2 || ev.length > 5) throw new Error("log: an event is [kind, balls, t, where, states] (trailing ones may be left out)");
    const kind = EVENT_KINDS[int(ev[0], "event kind", EVENT_KINDS.length)];
    const balls = typeof ev[1] === "number" ? [int(ev[1], "ball id")] : list(ev[1], "event balls").map((b) => int(b, "ball id"));
    for (const b of balls) lastOf(b);
    let t: number;
    if (ev[2] === undefined || ev[2] === null) {
      if (!TRANSITIONS.has(kind) || balls.length !== 1) throw new Error("log: only a state transition of one ball may leave its time out");
      const l = lastOf(balls[0]);
      t = l.t + transitionTime(l.b, c);
    } else t = num(ev[2], "event time");
    if (!Number.isFinite(t)) throw new Error("log: event time must be finite");
    const w = ev[3] === undefined || ev[3] === null ? null : int(ev[3], "where");
    // references: the event's balls first (a contact moves both), then any other ball it lists
    const ref = new Map<number, Ball>();
    for (const b of balls) if (!ref.has(b)) ref.set(b, reference(kind, lastOf(b), t, c));
    if (kind === "ball_ball" && ref.size === 2) contactPositions(ref.get(balls[0])!, ref.get(balls[1])!, c.R, gap);
    const states = new Map<number, Ball>();
    if (ev.length < 5) {
      for (const b of balls) states.set(b, ref.get(b)!);
    } else {
      const flat = list(ev[4], "event states");
      let i = 0;
      while (i < flat.length) {
        const id = int(flat[i], "state ball id");
        if (states.has(id)) throw new Error(`log: state ball ${id} is listed twice`);
        let p = ref.get(id);
        if (!p) {
          const l = lastOf(id);
          p = copyBall(l.b);
          evolve(p, t - l.t, c);
        } else p = copyBall(p);
        p.s = int(flat[i + 1], "state code", STATE_NAMES.length);
        const mask = int(flat[i + 2], "state mask", 1 << FIELDS);
        i += 3;
        for (let f = 0; f < FIELDS; f++) {
          if (mask & (1 << f)) {
            if (i >= flat.length) throw new Error("log: event states end inside a state");
            p[FIELD_KEYS[f]] = num(flat[i], "state value");
            i++;
          }
        }
        states.set(id, p);
      }
    }
    for (const [id, b] of states) {
      if (!Number.isFinite(b.rx + b.ry + b.vx + b.vy + b.wx + b.wy + b.wz)) throw new Error("log: a ball state must be finite");
      last.set(id, { t, b });
    }
    events.push({ t, kind, balls, where: w, ...names(kind, w, n), states });
  }
  const final = new Map<number, { s: number; rx: number; ry: number }>();
  for (const [id, l] of last) final.set(id, { s: l.b.s, rx: l.b.rx, ry: l.b.ry });
  const fin = list(log.fin ?? [], "fin");
  if (fin.length % 4) throw new Error("log: fin length must be a multiple of 4");
  for (let i = 0; i < fin.length; i += 4) {
    const id = int(fin[i], "fin ball id");
    lastOf(id);
    final.set(id, { s: int(fin[i + 1], "fin state", STATE_NAMES.length), rx: num(fin[i + 2], "x"), ry: num(fin[i + 3], "y") });
  }
  if (log.capped !== undefined && typeof log.capped !== "boolean") throw new Error("log: capped must be a boolean");
  return { format: 2, table: log.table, initial, events, final, capped: log.capped === true, flags: flagsOf(log), cloth: c };
}
