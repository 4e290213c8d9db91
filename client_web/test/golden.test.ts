/**
 * The trajectory port reproduces every golden vector of tests/golden/ (written by the physics
 * engine): the sampled positions between events, and, at every event time, the position the
 * log records for each ball the event changed, reached by evolving that ball's previous state.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { ShotLog, clothOf } from "../src/physics/shotlog";
import { evolveState, stateCode } from "../src/physics/motion";
import { ROOT, reference } from "./reference";

const TOL = 1e-9; // m
const GOLDEN = resolve(ROOT, "tests", "golden");
const files = readdirSync(GOLDEN)
  .filter((f) => f.endsWith(".json"))
  .sort();
const presets = reference("presets");

test("there are golden vectors of pool and carom shots", () => {
  expect(files.length).toBeGreaterThanOrEqual(30);
  expect(files.some((f) => f.startsWith("pool_"))).toBe(true);
  expect(files.some((f) => f.startsWith("carom_"))).toBe(true);
});

describe.each(files)("%s", (file) => {
  const g = JSON.parse(readFileSync(resolve(GOLDEN, file), "utf8"));
  const preset = presets[g.result.table];
  const cloth = clothOf(preset);
  const log = ShotLog.fromSimJson(g.result, cloth);

  test("sampled positions between events within 1e-9 m", () => {
    expect(g.samples.length).toBeGreaterThan(10);
    let worst = 0;
    let n = 0;
    for (const s of g.samples) {
      for (const [id, r] of Object.entries(s.r as Record<string, [number, number]>)) {
        const b = log.ballAt(Number(id), s.t);
        worst = Math.max(worst, Math.abs(b.rx - r[0]), Math.abs(b.ry - r[1]));
        n++;
      }
    }
    expect(n).toBeGreaterThan(0);
    expect(worst).toBeLessThanOrEqual(TOL);
  });

  test("positions at the event times within 1e-9 m", () => {
    const last = new Map<number, { t: number; b: ReturnType<typeof log.ballAt> }>();
    for (const [id, b] of log.initial) last.set(id, { t: 0, b });
    let worst = 0; // transitions: the closed form reaches the logged position
    let worstContact = 0; // contacts: the engine sets a 1 um gap after every contact (physics/engine.pyx _SPACER)
    let checked = 0;
    const events: any[] = g.result.events;
    events.forEach((e, i) => {
      for (const [id, s] of Object.entries(e.states as Record<string, any>)) {
        const prev = last.get(Number(id))!;
        // a pocketed ball is moved into its pocket: its centre jumps there by definition
        if (s.state !== "pocketed") {
          const reached = evolveState(prev.b, e.t - prev.t, cloth);
          const err = Math.hypot(reached.rx - s.r[0], reached.ry - s.r[1]);
          if (e.kind === "ball_ball" || e.kind === "ball_cushion") worstContact = Math.max(worstContact, err);
          else worst = Math.max(worst, err);
        }
        const b = { s: stateCode(s.state), rx: s.r[0], ry: s.r[1], vx: s.v[0], vy: s.v[1], wx: s.w[0], wy: s.w[1], wz: s.w[2] };
        // the state shown at time t is that of the ball's last event at t (several events can share a time)
        const laterSameTime = events.slice(i + 1).some((f) => f.t === e.t && id in f.states);
        if (!laterSameTime) {
          const at = log.ballAt(Number(id), e.t);
          expect([at.s, at.rx, at.ry, at.vx, at.vy, at.wz]).toEqual([b.s, b.rx, b.ry, b.vx, b.vy, b.wz]);
        }
        last.set(Number(id), { t: e.t, b });
        checked++;
      }
    });
    expect(checked).toBe(g.result.events.reduce((k: number, e: any) => k + Object.keys(e.states).length, 0));
    expect(worst).toBeLessThanOrEqual(TOL);
    expect(worstContact).toBeLessThanOrEqual(1e-6 + TOL);
  });

  test("final layout within 1e-9 m", () => {
    const end = log.at(log.duration() + 1);
    for (const [id, f] of Object.entries(g.result.final as Record<string, { r: [number, number]; state: string }>)) {
      const b = end.get(Number(id))!;
      expect(b.s).toBe(stateCode(f.state));
      expect(Math.abs(b.rx - f.r[0])).toBeLessThanOrEqual(TOL);
      expect(Math.abs(b.ry - f.r[1])).toBeLessThanOrEqual(TOL);
    }
  });
});
