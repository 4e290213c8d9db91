/**
 * The diamond readout (src/game/diamonds.ts) gives the same numbers as the Python (rules/carom/diamonds.py) on
 * every carom golden vector, and hand-computed values on a constructed log.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expect, test } from "vitest";
import { ShotLog, clothOf } from "../src/physics/shotlog";
import { cushionDiamonds, diamondLabel, readoutText, round1 } from "../src/game/diamonds";
import { ROOT, reference } from "./reference";

const GOLDEN = resolve(ROOT, "tests", "golden");
const presets = reference("presets");
const python: Record<string, unknown[]> = reference("diamonds");
const files = readdirSync(GOLDEN).filter((f) => f.startsWith("carom_") && f.endsWith(".json")).sort();

test("every carom golden vector has a Python readout, and most read some cushions", () => {
  expect(Object.keys(python).sort()).toEqual(files);
  expect(files.filter((f) => python[f].length > 0).length).toBeGreaterThanOrEqual(5);
});

test.each(files)("%s: the TypeScript readout equals the Python one", (file) => {
  const g = JSON.parse(readFileSync(resolve(GOLDEN, file), "utf8"));
  const preset = presets[g.result.table];
  const log = ShotLog.fromSimJson(g.result, clothOf(preset));
  expect(cushionDiamonds(preset, log)).toEqual(python[file]);
});

test("the umbrella vector reads as computed by hand from its logged contacts", () => {
  // carom_umbrella: the white (struck) meets Lf at x = 1.266906 m (8 x / 2.84 = 3.569), then R at x = 1.941194 m (5.468)
  const g = JSON.parse(readFileSync(resolve(GOLDEN, "carom_umbrella.json"), "utf8"));
  const preset = presets.carom;
  const r = cushionDiamonds(preset, ShotLog.fromSimJson(g.result, clothOf(preset)));
  expect(r.slice(0, 2)).toEqual([
    { n: 1, cushion: "Lf", rail: "long", diamond: 3.6 },
    { n: 2, cushion: "R", rail: "long", diamond: 5.5 },
  ]);
  expect(diamondLabel(r[0])).toBe("1 · 3.6");
  expect(readoutText(r.slice(0, 2))).toBe("1 Lf 3.6, 2 R 5.5");
});

test("a constructed log: a long rail at 3 diamonds, a short rail at its middle, jaws read nothing", () => {
  const preset = presets.carom;
  const L = preset.length, W = preset.width, R = preset.ball.radius;
  const st = (x: number, y: number) => new Map([[0, { s: 1, rx: x, ry: y, vx: 0, vy: 0, wx: 0, wy: 0, wz: 0 }]]);
  const events = [
    { t: 0, kind: "strike", balls: [0], where: null, cushion: null, pocket: null, states: st(1, 1) },
    { t: 1, kind: "ball_cushion", balls: [0], where: null, cushion: "Lf", pocket: null, states: st((3 * L) / 8, W - R) },
    { t: 2, kind: "ball_cushion", balls: [0], where: null, cushion: "T", pocket: null, states: st(L - R, W / 2) },
    { t: 3, kind: "ball_cushion", balls: [1], where: null, cushion: "R", pocket: null, states: new Map() },
    { t: 4, kind: "ball_cushion", balls: [0], where: null, cushion: "R", pocket: null, states: st(0.25 * L / 8 + 0.0001, R) },
  ];
  expect(cushionDiamonds(preset, { events })).toEqual([
    { n: 1, cushion: "Lf", rail: "long", diamond: 3 },
    { n: 2, cushion: "T", rail: "short", diamond: 2 },
    { n: 3, cushion: "R", rail: "long", diamond: 0.3 },
  ]);
  expect(round1(0.25)).toBe(0.3);
  expect(round1(-0.25)).toBe(-0.3);
});

test("the trails label the carom cue ball's numbered contacts with their diamonds; the history says them", async () => {
  const { buildTrails } = await import("../src/game/trails");
  const { describeEntry, entryFromSnapshot, entryFromRecord } = await import("../src/game/history");
  const g = JSON.parse(readFileSync(resolve(GOLDEN, "carom_umbrella.json"), "utf8"));
  const preset = presets.carom;
  const log = ShotLog.fromSimJson(g.result, clothOf(preset));
  const cue = buildTrails(log, { numberCushions: true, rails: preset }).find((t) => t.cue)!;
  expect(cue.cushions.map((c) => [c.n, c.diamond])).toEqual(python["carom_umbrella.json"].map((d: any) => [d.n, d.diamond]));
  // without the rails (or on a pool table) no readout
  expect(buildTrails(log, { numberCushions: true }).find((t) => t.cue)!.cushions.every((c) => c.diamond === null)).toBe(true);
  // a snapshot entry with the server's field, and a record entry read from its log, say the same words
  const fromSnap = entryFromSnapshot({ i: 0, v: 3, kind: "stroke", seat: 0, call: null, decision: null, ruling: { text: "No carom" }, diamonds: python["carom_umbrella.json"] })!;
  const fromRec = entryFromRecord({ player: 0, sim: g.result, ruling: { text: "No carom" } as any }, 0, clothOf(preset), preset);
  const words = describeEntry(fromSnap, "three_cushion", ["Ann", "Bob"]).diamonds;
  expect(words).toBe("Diamonds: 1 Lf 3.6, 2 R 5.5, " + (python["carom_umbrella.json"] as any[]).slice(2).map((d) => `${d.n} ${d.cushion} ${d.diamond.toFixed(1)}`).join(", "));
  expect(describeEntry(fromRec, "three_cushion", ["Ann", "Bob"]).diamonds).toBe(words);
  // a malformed field is ignored; a pool entry shows none
  expect(entryFromSnapshot({ kind: "stroke", diamonds: [{ n: "x" }] })!.diamonds).toBeNull();
  expect(describeEntry(fromSnap, "straight_pool", ["Ann", "Bob"]).diamonds).toBeNull();
});
