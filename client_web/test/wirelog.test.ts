/**
 * The TypeScript wire-log decoder against the Python reference: for every golden vector and every
 * shot of the wire bench (client_web/test/reference.py `logs`), the format-2 and the format-1 log
 * decode to the numbers of SimResult.to_json() bit for bit (Object.is: -0 is not 0), and so do the
 * stored logs of tests/protocol/data. A malformed log throws.
 */
import { describe, expect, test } from "vitest";
import { decode } from "@msgpack/msgpack";
import { STATE_NAMES } from "../src/physics/motion";
import { ShotLog, clothOf } from "../src/physics/shotlog";
import { PresetNames, WireLog, decodeWireLog, presetNames } from "../src/physics/wirelog";
import { hexToBytes, reference } from "./reference";

const ref = reference("logs");
const presets = reference("presets");
const namesOf = new Map<string, PresetNames>(Object.entries(presets).map(([k, p]: [string, any]) => [k, presetNames(p)]));

/** Every difference between the decoded log and the reference SimResult.to_json() map (empty: identical). */
function differences(w: WireLog, sim: any): string[] {
  const out: string[] = [];
  const same = (what: string, got: unknown, want: unknown) => {
    if (!Object.is(got, want)) out.push(`${what}: ${String(got)} (want ${String(want)})`);
  };
  same("table", w.table, sim.table);
  same("capped", w.capped, sim.capped);
  same("flags", JSON.stringify(w.flags), JSON.stringify(sim.flags ?? []));
  same("initial ids", JSON.stringify([...w.initial.keys()]), JSON.stringify(Object.keys(sim.initial).map(Number)));
  for (const [k, r] of Object.entries(sim.initial as Record<string, number[]>)) {
    const b = w.initial.get(Number(k));
    same(`initial ${k} x`, b?.rx, r[0]);
    same(`initial ${k} y`, b?.ry, r[1]);
  }
  same("events", w.events.length, sim.events.length);
  sim.events.forEach((e: any, i: number) => {
    const d = w.events[i];
    if (!d) return;
    const at = `events[${i}]`;
    same(`${at}.t`, d.t, e.t);
    same(`${at}.kind`, d.kind, e.kind);
    same(`${at}.balls`, JSON.stringify(d.balls), JSON.stringify(e.balls));
    same(`${at}.cushion`, d.cushion, e.cushion);
    same(`${at}.pocket`, d.pocket, e.pocket);
    // (a JSON object lists integer keys in numeric order: the engine's order of the states is
    // checked on the Python side, tests/protocol/test_eventlog.py)
    const ids = Object.keys(e.states).map(Number);
    same(`${at}.states`, JSON.stringify([...d.states.keys()].sort((a, b) => a - b)), JSON.stringify(ids.sort((a, b) => a - b)));
    for (const id of ids) {
      const s = e.states[id];
      const b = d.states.get(id);
      if (!b) continue;
      same(`${at}.states.${id}.state`, STATE_NAMES[b.s], s.state);
      const want = [...s.r, ...s.v, ...s.w];
      [b.rx, b.ry, b.vx, b.vy, b.wx, b.wy, b.wz].forEach((x, k) => same(`${at}.states.${id}[${k}]`, x, want[k]));
    }
  });
  same("final ids", JSON.stringify([...w.final.keys()].sort((a, b) => a - b)), JSON.stringify(Object.keys(sim.final).map(Number).sort((a, b) => a - b)));
  for (const [k, f] of Object.entries(sim.final as Record<string, { r: number[]; state: string }>)) {
    const b = w.final.get(Number(k));
    same(`final ${k} state`, b === undefined ? undefined : STATE_NAMES[b.s], f.state);
    same(`final ${k} x`, b?.rx, f.r[0]);
    same(`final ${k} y`, b?.ry, f.r[1]);
  }
  return out;
}

test("the cases cover every golden vector and every workload shot, in both formats", () => {
  expect(ref.cases.filter((c: any) => !c.name.includes("#")).length).toBeGreaterThanOrEqual(30);
  expect(ref.cases.filter((c: any) => c.name.startsWith("14.1 break")).length).toBe(1);
  expect(ref.cases.filter((c: any) => c.name.startsWith("random three-cushion")).length).toBe(50);
  for (const c of ref.cases) {
    expect((decode(hexToBytes(c.f2)) as any).f).toBe(2);
    expect((decode(hexToBytes(c.f1)) as any).f).toBeUndefined();
  }
});

const logCases: [string, any][] = ref.cases.map((c: any) => [c.name, c]);
describe.each(logCases)("%s", (_name: string, c: any) => {
  const names = namesOf.get(c.sim.table)!;
  test("format 2 decodes to the engine's float64 values bit for bit", () => {
    const w = decodeWireLog(decode(hexToBytes(c.f2)), names);
    expect(w.format).toBe(2);
    expect(differences(w, c.sim)).toEqual([]);
  });
  test("format 1 too", () => {
    const w = decodeWireLog(decode(hexToBytes(c.f1)), names);
    expect(w.format).toBe(1);
    expect(differences(w, c.sim)).toEqual([]);
  });
});

const storedCases: [string, any][] = ref.stored.map((s: any) => [s.name, s]);
describe.each(storedCases)("stored log %s", (_name: string, s: any) => {
  test("decodes to its golden vector bit for bit", () => {
    const w = decodeWireLog(decode(hexToBytes(s.hex)), namesOf.get(s.sim.table)!);
    expect(differences(w, s.sim)).toEqual([]);
  });
});

test("a replay from a format-2 log shows the states of the server at every event", () => {
  const c = ref.cases.find((x: any) => x.name.startsWith("14.1 break"));
  const preset = presets[c.sim.table];
  const log = ShotLog.fromWire(decode(hexToBytes(c.f2)), clothOf(preset), presetNames(preset));
  expect(log.events.length).toBe(c.sim.events.length);
  // at the last event of each ball the replay shows exactly the logged state
  const lastOf = new Map<number, any>();
  for (const e of c.sim.events) for (const [id, s] of Object.entries(e.states)) lastOf.set(Number(id), [e.t, s]);
  for (const [id, [t, s]] of lastOf) {
    const b = log.ballAt(id, t);
    expect([b.rx, b.ry, b.vx, b.vy]).toEqual([...s.r, ...s.v]);
  }
});

describe("malformed logs throw", () => {
  const good = () => ({ f: 2, table: "carom", motion: [0.03075, 0.2, 0.01, 0.0127, 9.81, 1e-6], initial: [0, 0.7, 0.5, 1, 1.5, 0.5], ev: [[0, 0, 0, null, [0, 2, 12, 1.0, 0.0]]] });
  test("the base log is fine", () => {
    expect(decodeWireLog(good()).events[0].states.get(0)!.vx).toBe(1.0);
  });
  const cases: [string, (l: any) => void][] = [
    ["unknown format", (l) => (l.f = 3)],
    ["five motion constants", (l) => l.motion.pop()],
    ["a zero radius", (l) => (l.motion[0] = 0)],
    ["initial not in triples", (l) => l.initial.pop()],
    ["a ball twice", (l) => l.initial.push(0, 1.0, 1.0)],
    ["unknown kind", (l) => (l.ev[0][0] = 12)],
    ["a ball the layout lacks", (l) => (l.ev[0][1] = 5)],
    ["a strike without time", (l) => (l.ev[0] = [0, 0])],
    ["a transition of a ball at rest", (l) => l.ev.push([4, 1])],
    ["a mask announcing more values than given", (l) => l.ev[0][4].pop()],
    ["a mask out of range", (l) => (l.ev[0][4][2] = 128)],
    ["an unknown state", (l) => (l.ev[0][4][1] = 9)],
    ["a string value", (l) => (l.ev[0][4][3] = "1")],
    ["an infinite state", (l) => (l.ev[0][4][3] = Infinity)],
    ["an event with six elements", (l) => l.ev[0].push(1)],
    ["fin not in quadruples", (l) => (l.fin = [0, 0, 1.0])],
    ["a non-boolean capped", (l) => (l.capped = 1)],
  ];
  test.each(cases)("%s", (_n: string, damage: (l: any) => void) => {
    const l = good();
    damage(l);
    expect(() => decodeWireLog(l)).toThrow(/log/);
  });
});
