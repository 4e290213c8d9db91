/**
 * The power the controls show is the cue ball's speed: the TypeScript cue strike (src/physics/cue.ts)
 * against physics.simulate's strike events on sampled strokes (test/reference.py `strikes`), and
 * the slider's non-linear travel (src/ui/power.ts).
 */
import { describe, expect, test } from "vitest";
import { cueBallSpeed, cueOf, cueSpeedFor, strike } from "../src/physics/cue";
import { POWER_ANCHORS, bandOf, positionOf, speedAt } from "../src/ui/power";
import { reference } from "./reference";

const ref = reference("strikes");

describe("the cue strike, port of physics/cue_strike.pyx", () => {
  const presets: Record<string, { kind: string }> = reference("presets");
  test("the cue of each table is physics/table.py's CueSpec of that preset", () => {
    expect(Object.keys(ref.cues).sort()).toEqual(Object.keys(presets).sort());
    for (const [name, cue] of Object.entries(ref.cues)) expect(cueOf(presets[name].kind)).toEqual(cue);
  });

  test("velocity and spin equal the strike event of physics.simulate on 80 sampled strokes", () => {
    expect(ref.strokes.length).toBe(80);
    let worstV = 0;
    let worstW = 0;
    for (const s of ref.strokes) {
      const got = strike(s.stroke, s.mass, s.radius, cueOf(s.table === "carom" ? "carom" : "pool"));
      worstV = Math.max(worstV, Math.abs(got.vx - s.v[0]), Math.abs(got.vy - s.v[1]));
      worstW = Math.max(worstW, Math.abs(got.wx - s.w[0]), Math.abs(got.wy - s.w[1]), Math.abs(got.wz - s.w[2]));
    }
    expect(worstV).toBeLessThanOrEqual(1e-12);
    expect(worstW).toBeLessThanOrEqual(1e-9);
  });

  test("cueBallSpeed is the speed on the bed of that velocity, and cueSpeedFor its inverse", () => {
    for (const s of ref.strokes) {
      const st = s.stroke;
      const v = Math.hypot(s.v[0], s.v[1]);
      const M = cueOf(s.table === "carom" ? "carom" : "pool").mass;
      expect(Math.abs(cueBallSpeed(st.V0, st.a, st.b, st.theta_deg, s.mass, M) - v)).toBeLessThanOrEqual(1e-12);
      expect(cueSpeedFor(v, st.a, st.b, st.theta_deg, s.mass, M)).toBeCloseTo(st.V0, 12);
    }
  });

  test("a cue speed of 0.3 m/s sends a pool ball at 0.46 m/s (issue 14), a carom ball at 0.44 m/s", () => {
    expect(cueBallSpeed(0.3, 0, 0, 0, 0.17, 0.567)).toBeCloseTo(0.4616, 4);
    expect(cueBallSpeed(0.3, 0, 0, 0, 0.21, 0.567)).toBeCloseTo((2 * 0.3) / (1 + 0.21 / 0.567), 12);
    // the same ball speed off centre and elevated needs a faster cue
    expect(cueSpeedFor(2, 0.3, -0.3, 20, 0.17, 0.567)).toBeGreaterThan(cueSpeedFor(2, 0, 0, 0, 0.17, 0.567));
  });
});

describe("the power slider's travel", () => {
  test("quarters: soft to 1 m/s, medium to 2.5, firm to 5, break to 15", () => {
    expect(POWER_ANCHORS.map(([, s]) => s)).toEqual([0.1, 1.0, 2.5, 5.0, 15.0]);
    expect(speedAt(0)).toBe(0.1);
    expect(speedAt(0.25)).toBe(1.0);
    expect(speedAt(0.5)).toBe(2.5);
    expect(speedAt(0.75)).toBe(5.0);
    expect(speedAt(1)).toBe(15.0);
    expect(speedAt(0.125)).toBeCloseTo(0.55, 12);
    expect(speedAt(0.875)).toBeCloseTo(10.0, 12);
    expect([0.5, 1.7, 3.2, 8].map(bandOf)).toEqual(["soft", "medium", "firm", "break"]);
  });

  test("position and speed are inverse, monotone, and clamped", () => {
    let last = -1;
    for (let k = 0; k <= 1000; k++) {
      const p = k / 1000;
      const v = speedAt(p);
      expect(v).toBeGreaterThan(last);
      last = v;
      expect(positionOf(v)).toBeCloseTo(p, 12);
    }
    expect(positionOf(100)).toBe(1);
    expect(positionOf(0)).toBe(0);
    expect(speedAt(-1)).toBe(0.1);
  });

  test("a typical pool stroke (2 m/s) sits mid-travel, not in the first quarter", () => {
    expect(positionOf(2.0)).toBeCloseTo(0.25 + (1.0 / 1.5) * 0.25, 12);
  });
});
