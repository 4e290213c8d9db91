/**
 * The pure parts of issue 14's table: ball trails built from event logs, positions at scrubbed
 * times (they must equal the physics golden vectors), stepping by event, the stroke history
 * model, the sound schedule of a log, and the end-of-match summary.
 */
import { readFileSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, test } from "vitest";
import { REFERENCE_SPEED, SILENT_BELOW, gainFor, soundSchedule } from "../src/audio/schedule";
import { GameHistory, RecordCache, describeEntry, entryFromRecord, entryFromSnapshot, warningOf } from "../src/game/history";
import { Playback, SPEEDS, stepTimes } from "../src/game/playback";
import { buildTrails, trailUpTo } from "../src/game/trails";
import { ShotLog, clothOf } from "../src/physics/shotlog";
import type { Ruling } from "../src/protocol/messages";
import { strokePosition } from "../src/ui/replay";
import { summaryOf } from "../src/ui/summarymodel";
import { ROOT, reference } from "./reference";

const presets = reference("presets");
const GOLDEN = resolve(ROOT, "tests", "golden");
const golden = (name: string) => JSON.parse(readFileSync(resolve(GOLDEN, `${name}.json`), "utf8"));
const logOf = (g: any) => ShotLog.fromSimJson(g.result, clothOf(presets[g.result.table]));
const files = readdirSync(GOLDEN)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -5))
  .sort();

/** Distance (m) from point p to the polyline pts. */
function distToPolyline(p: [number, number], pts: { x: number; y: number }[]): number {
  let best = Infinity;
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    const ex = b.x - a.x;
    const ey = b.y - a.y;
    const L = ex * ex + ey * ey;
    const u = L > 0 ? Math.max(0, Math.min(1, ((p[0] - a.x) * ex + (p[1] - a.y) * ey) / L)) : 0;
    best = Math.min(best, Math.hypot(p[0] - (a.x + u * ex), p[1] - (a.y + u * ey)));
  }
  if (pts.length === 1) best = Math.hypot(p[0] - pts[0].x, p[1] - pts[0].y);
  return best;
}

describe("ball trails from the event log", () => {
  test.each(files)("%s: every ball that moved has a trail through the golden samples; cushion contacts are the log's", (name) => {
    const g = golden(name);
    const log = logOf(g);
    const carom = presets[g.result.table].kind === "carom";
    const trails = buildTrails(log, { numberCushions: carom });
    const moved = new Set<number>();
    for (const e of g.result.events) for (const [id, s] of Object.entries(e.states as Record<string, any>)) if (s.state !== "stationary") moved.add(Number(id));
    expect(trails.map((t) => t.ball)).toEqual([...moved].sort((a, b) => a - b));
    const strikes = new Set<number>(g.result.events.filter((e: any) => e.kind === "strike").flatMap((e: any) => e.balls));
    for (const tr of trails) {
      expect(tr.cue).toBe(strikes.has(tr.ball));
      const pocket = g.result.events.find((e: any) => e.kind === "ball_pocket" && e.balls.includes(tr.ball));
      expect(tr.pocketed).toBe(pocket ? pocket.t : null);
      // the path passes through the engine's sampled positions (chords of the curves: within 2 mm)
      let worst = 0;
      for (const s of g.samples) {
        const r = s.r[String(tr.ball)];
        if (!r || (tr.pocketed !== null && s.t > tr.pocketed)) continue;
        worst = Math.max(worst, distToPolyline(r, tr.points));
      }
      expect(worst).toBeLessThan(2e-3);
      // the cushion contacts are the ball_cushion events of that ball, at the logged positions
      const hits = g.result.events.filter((e: any) => e.kind === "ball_cushion" && e.balls.includes(tr.ball));
      expect(tr.cushions.map((c) => c.t)).toEqual(hits.map((e: any) => e.t));
      tr.cushions.forEach((c, k) => {
        expect([c.x, c.y]).toEqual(hits[k].states[String(tr.ball)].r);
        expect(c.cushion).toBe(hits[k].cushion);
        expect(c.n).toBe(carom && tr.cue ? k + 1 : null);
      });
    }
  });

  test("three-cushion: the cue ball's cushion contacts are numbered 1, 2, 3... in order", () => {
    const g = golden("carom_three_cushion_long");
    const trails = buildTrails(logOf(g), { numberCushions: true });
    const cue = trails.find((t) => t.cue)!;
    expect(cue.ball).toBe(0);
    expect(cue.cushions.length).toBeGreaterThanOrEqual(3);
    expect(cue.cushions.map((c) => c.n)).toEqual(cue.cushions.map((_, k) => k + 1));
    for (const t of trails.filter((x) => !x.cue)) expect(t.cushions.every((c) => c.n === null)).toBe(true);
  });

  test("a trail drawn mid-stroke ends at the ball's position then", () => {
    const g = golden("pool_cut_into_corner");
    const log = logOf(g);
    const tr = buildTrails(log, { numberCushions: false }).find((t) => t.cue)!;
    const t = log.duration() / 3;
    const b = log.ballAt(tr.ball, t);
    const pts = trailUpTo(tr, t, { x: b.rx, y: b.ry });
    expect(pts.every((p) => p.t <= t)).toBe(true);
    expect(pts[pts.length - 1]).toEqual({ t, x: b.rx, y: b.ry });
    expect(trailUpTo(tr, Infinity).length).toBe(tr.points.length);
  });

  test("a pocketed ball's trail ends in its pocket", () => {
    const g = golden("pool_straight_into_side");
    const log = logOf(g);
    const pk = g.result.events.find((e: any) => e.kind === "ball_pocket");
    expect(pk).toBeDefined();
    const tr = buildTrails(log, { numberCushions: false }).find((t) => t.ball === pk.balls[0])!;
    const last = tr.points[tr.points.length - 1];
    expect(last.t).toBe(pk.t);
    expect([last.x, last.y]).toEqual(pk.states[String(pk.balls[0])].r);
  });
});

describe("replay controls: scrubbed positions from the closed-form motion", () => {
  test.each(files)("%s: seeking to each golden sample time shows the golden positions (1e-9 m)", (name) => {
    const g = golden(name);
    const log = logOf(g);
    let now = 0;
    const pb = new Playback<number>(() => {}, () => now);
    expect(pb.replay({ log, lag: false, key: name }, 0, { paused: true })).toBe(true);
    let worst = 0;
    let n = 0;
    for (const s of [...g.samples].reverse()) {
      pb.seek(s.t);
      now += 1234; // paused: the clock running does not move it
      const f = pb.frame()!;
      expect(f.t).toBe(Math.min(s.t, log.duration()));
      for (const [id, r] of Object.entries(s.r as Record<string, [number, number]>)) {
        if (s.t > log.duration()) continue;
        const b = f.balls.get(Number(id))!;
        worst = Math.max(worst, Math.abs(b.rx - r[0]), Math.abs(b.ry - r[1]));
        n++;
      }
    }
    expect(n).toBeGreaterThan(0);
    expect(worst).toBeLessThanOrEqual(1e-9);
  });

  test("speeds 0.1x to 4x scale the clip's time; pause holds it; a paused clip at its end does not end", () => {
    expect([...SPEEDS]).toEqual([0.1, 0.25, 0.5, 1, 2, 4]);
    const log = logOf(golden("pool_two_rail_kick"));
    let now = 0;
    const ended: number[] = [];
    const pb = new Playback<number>((i) => ended.push(i), () => now);
    pb.replay({ log, lag: false, key: "k" }, 7);
    pb.speed = 0.25;
    now = 1000;
    expect(pb.time).toBeCloseTo(0.25, 12);
    pb.speed = 4; // from where it is
    now = 1500;
    expect(pb.time).toBeCloseTo(0.25 + 2, 12);
    pb.pause();
    now = 9000;
    expect(pb.time).toBeCloseTo(2.25, 12);
    pb.seek(1e9);
    expect(pb.time).toBe(log.duration());
    expect(pb.frame()).not.toBeNull(); // paused at the end: still there to scrub
    expect(ended).toEqual([]);
    pb.play(); // from the start again
    expect(pb.time).toBe(0);
    now += (log.duration() / 4) * 1000 + 1;
    expect(pb.frame()).toBeNull();
    expect(ended).toEqual([7]);
  });

  test("stepping goes to the next and previous collision, cushion or pocket, and pauses", () => {
    const g = golden("pool_two_rail_kick");
    const log = logOf(g);
    const times = stepTimes(log);
    const want = [...new Set<number>(g.result.events.filter((e: any) => ["strike", "ball_ball", "ball_cushion", "ball_pocket"].includes(e.kind)).map((e: any) => e.t))];
    expect(times).toEqual(want);
    expect(times.length).toBeGreaterThanOrEqual(4);
    let now = 0;
    const pb = new Playback<number>(() => {}, () => now);
    pb.replay({ log, lag: false, key: "k" }, 0);
    pb.step(1); // from 0 (the strike) to the first contact
    expect(pb.paused).toBe(true);
    expect(pb.time).toBe(times[1]);
    pb.step(1);
    expect(pb.time).toBe(times[2]);
    pb.step(-1);
    expect(pb.time).toBe(times[1]);
    pb.seek((times[2] + times[3]) / 2);
    pb.step(-1);
    expect(pb.time).toBe(times[2]);
    pb.seek(log.duration());
    pb.step(1);
    expect(pb.time).toBe(log.duration());
  });

  test("a replay gives way to a live stroke, and is refused while one plays", () => {
    const log = logOf(golden("pool_stop_shot"));
    let now = 0;
    const shown: string[] = [];
    const pb = new Playback<string>((s) => shown.push(s), () => now, (it) => `live ${it.v}`);
    pb.replay({ log, lag: false, key: "old" }, "back");
    pb.pause();
    const stroke = { v: 9, log, shots: [], ruling: {} as Ruling, state: {} as any, lag: false, raw: null };
    pb.push({ kind: "stroke", stroke, v: 9 });
    expect(shown).toEqual(["back"]);
    expect(pb.playing).toBe(stroke);
    expect(pb.replay({ log, lag: false, key: "again" }, "back")).toBe(false);
    pb.skip();
    expect(shown).toEqual(["back", "live 9"]);
  });
});

// ----- the history model -------------------------------------------------------------------------
const record = JSON.parse(gunzipSync(readFileSync(resolve(ROOT, "tests", "rules", "data", "straight_pool_game.json.gz"))).toString("utf8"));
const pool = presets["pool-9ft"];

describe("stroke history", () => {
  const names = ["Ann", "Bob"];
  const entries = record.strokes.map((s: any, i: number) => entryFromRecord(s, i, clothOf(pool)));

  test("a record's strokes become entries: kinds, seats, calls, decisions, logs", () => {
    expect(entries.length).toBe(record.strokes.length);
    expect(entries[0].kind).toBe("lag");
    expect(entries[0].seat).toBeNull();
    expect(entries[0].log).not.toBeNull();
    expect(entries[1]).toMatchObject({ kind: "decision", seat: 1, decision: { name: "CHOOSE_BREAKER", arg: 0 }, log: null });
    const k = record.strokes.findIndex((s: any) => s.call && s.call.ball);
    expect(entries[k]).toMatchObject({ kind: "stroke", seat: record.strokes[k].player, call: record.strokes[k].call });
    expect(entries.map((e: any) => e.i)).toEqual(entries.map((_: any, i: number) => i));
  });

  test("entries in words: who, what, the ruling with names, fouls flagged", () => {
    expect(describeEntry(entries[1], "straight_pool", names).headline).toBe("Bob lets Ann break");
    const brk = describeEntry(entries[2], "straight_pool", names);
    expect(brk.headline).toBe("Ann \u2014 break");
    expect(brk.ruling).toBe("Breaking foul, -2: Bob chooses");
    expect(brk.foul).toBe(true);
    expect(brk.points).toBe(-2);
    expect(brk.scores).toEqual([-2, 0]);
    const k = record.strokes.findIndex((s: any) => s.call && s.call.ball === 12);
    const pot = describeEntry(entries[k], "straight_pool", names);
    expect(pot.headline).toBe("Bob \u2014 ball 12 in the head right pocket");
    expect(pot.ruling).toBe("Scored 1 (12 in HR); Bob continues");
    expect(pot.foul).toBe(false);
    expect(pot.points).toBe(1);
    // every entry of the recorded game reads without a seat letter left
    for (const e of entries) expect(describeEntry(e, "straight_pool", names).headline).not.toMatch(/\b[AB]\b/);
    expect(describeEntry({ ...entries[1], decision: { name: "CHOOSE_BREAKER", arg: 1 } }, "straight_pool", names).headline).toBe("Bob chooses to break");
  });

  test("the two-foul warning: the server's field, else a 14.1 foul leaving two in a row", () => {
    const r = (x: Partial<Ruling>) => ({ player: 0, foul: "no_rail", fouls_in_row: [2, 0], ...x }) as Ruling;
    expect(warningOf(r({}), "straight_pool")).toBe("two_fouls");
    expect(warningOf(r({ fouls_in_row: [1, 0] }), "straight_pool")).toBeNull();
    expect(warningOf(r({ foul: null }), "straight_pool")).toBeNull();
    expect(warningOf(r({}), "three_cushion")).toBeNull();
    expect(warningOf(r({ warning: null }), "straight_pool")).toBeNull(); // the server says: no warning
    expect(warningOf(r({ warning: "two_fouls", fouls_in_row: [0, 0] }), "straight_pool")).toBe("two_fouls");
    const e = { ...entries[2], ruling: r({ warning: "two_fouls" }) };
    const w = describeEntry(e, "straight_pool", names);
    expect(w.warning).toContain("Ann is on two fouls in a row");
    expect(w.foul).toBe(true);
  });

  test("hostile rulings in a history are read as far as they are words, never thrown on", () => {
    const e = entryFromSnapshot({ i: 0, v: 1, kind: "stroke", seat: 0, call: { ball: "x" }, ruling: { text: 42, foul: { a: 1 }, scores: ["1", 2], points: "many" } })!;
    expect(e.call).toBeNull();
    const w = describeEntry(e, "straight_pool", ["Ann", "Bob"]);
    expect(w.ruling).toBe("");
    expect(w.scores).toBeNull();
    expect(w.points).toBeNull();
    expect(entryFromSnapshot({ kind: "stroke", ruling: [1, 2] })!.ruling).toBeNull();
  });

  test("a snapshot's history, then live entries with the next record index; bad entries skipped", () => {
    const h = new GameHistory();
    const snap = record.strokes.slice(0, 3).map((s: any, i: number) => ({
      i,
      v: 10 + i,
      kind: s.lag ? "lag" : s.decision ? "decision" : "stroke",
      seat: s.lag ? null : s.player,
      call: s.call ?? null,
      decision: s.decision ?? null,
      ruling: s.ruling ?? null,
    }));
    h.load(1, [...snap, { kind: "nonsense" }, 42]);
    expect(h.complete).toBe(true);
    expect(h.entries.map((e) => [e.i, e.v, e.kind])).toEqual([[0, 10, "lag"], [1, 11, "decision"], [2, 12, "stroke"]]);
    expect(h.nextIndex()).toBe(3);
    h.append(entryFromSnapshot({ i: 3, v: 13, kind: "decision", seat: 1, decision: { name: "ACCEPT_TABLE", arg: null } })!);
    h.append(entryFromSnapshot({ i: 3, v: 13, kind: "decision", seat: 1 })!); // the same version again: once
    expect(h.entries.length).toBe(4);
    // a server without history: the same game keeps its entries, a new game starts empty
    h.load(1, undefined);
    expect(h.entries.length).toBe(4);
    h.load(2, undefined);
    expect(h.entries).toEqual([]);
    expect(h.complete).toBe(false);
    expect(h.nextIndex()).toBeNull();
    h.load(3, undefined, true); // a snapshot of the lag: the start of the game
    expect(h.complete).toBe(true);
    expect(h.nextIndex()).toBe(0);
  });

  test("the log of an entry without one comes from the match record, fetched once", async () => {
    const urls: string[] = [];
    const cache = new RecordCache(async (u) => {
      urls.push(u);
      return { ok: true, status: 200, json: async () => ({ strokes: record.strokes }) };
    });
    const k = record.strokes.findIndex((s: any) => s.sim && !s.lag);
    const e = entryFromSnapshot({ i: k, v: 5, kind: "stroke", seat: 0 })!;
    const f = entryFromSnapshot({ i: 0, v: 1, kind: "lag", seat: null })!;
    const log = await cache.logOf("t 1", 2, e, clothOf(pool));
    await cache.logOf("t 1", 2, f, clothOf(pool));
    expect(urls).toEqual(["/records/t%201/2.json"]);
    expect(log!.events.length).toBe(record.strokes[k].sim.events.length);
    expect(e.log).toBe(log);
    const d = entryFromSnapshot({ i: 1, v: 2, kind: "decision", seat: 1 })!;
    expect(await cache.logOf("t 1", 2, d, clothOf(pool))).toBeNull();
  });

  test("the end-of-match summary counts each player's strokes and fouls from the history", () => {
    const h = { entries, complete: true };
    const last = record.strokes[record.strokes.length - 1].ruling;
    const state = { phase: "over", to_act: null, layout: {}, scoreboard: { scores: last.scores }, legal: null, over: true, result: { winner: last.winner, scores: last.scores } };
    const s = summaryOf({ state, seats: [{ name: "Ann" }, { name: "Bob" }] as any, history: h, playerName: (i: number) => ["Ann", "Bob"][i] });
    const strokes = [0, 1].map((p) => record.strokes.filter((x: any) => x.player === p && !x.lag && !x.decision && !x.timeout && !x.forfeit).length);
    const fouls = [0, 1].map((p) => record.strokes.filter((x: any) => x.player === p && !x.decision && x.ruling && (x.ruling.foul || x.ruling.penalty > 0)).length);
    expect(s.players.map((p) => p.strokes)).toEqual(strokes);
    expect(s.players.map((p) => p.fouls)).toEqual(fouls);
    expect(fouls[0] + fouls[1]).toBeGreaterThan(0);
    expect(s.players.map((p) => p.score)).toEqual(last.scores);
    expect(s.headline).toBe(`${["Ann", "Bob"][last.winner]} wins, ${last.scores[0]} : ${last.scores[1]}.`);
  });

  test("a forfeit says how the game ended, an aborted one that it was aborted; a game played out does not", () => {
    const h = { entries: [], complete: true };
    const view = (reason: string | undefined, aborted = false) => summaryOf({
      state: { phase: "over", to_act: null, layout: {}, scoreboard: { scores: [3, 1] }, legal: null, over: true,
               result: { winner: 0, scores: [3, 1], reason } } as any,
      seats: [{ name: "Ann" }, { name: "Bob" }] as any, history: h, playerName: (i: number) => ["Ann", "Bob"][i],
      aborted: () => aborted }).headline;
    expect(view("forfeit: resigned")).toBe("Ann wins, 3 : 1 (Bob resigned).");
    expect(view("forfeit: left")).toBe("Ann wins, 3 : 1 (Bob left the table).");
    expect(view("forfeit: abandoned")).toBe("Ann wins, 3 : 1 (Bob did not come back in time).");
    expect(view("forfeit: resigned", true)).toBe("Ann wins, 3 : 1 (Bob resigned; aborted before both had played).");
    expect(view("distance reached")).toBe("Ann wins, 3 : 1.");
    expect(view("forfeit: something new")).toBe("Ann wins, 3 : 1.");
    expect(view(undefined)).toBe("Ann wins, 3 : 1.");
  });
});

// ----- the sound schedule ------------------------------------------------------------------------
describe("sound schedule", () => {
  const kindOf: Record<string, string> = { strike: "cue", ball_ball: "click", ball_pocket: "pocket" };

  test.each(files)("%s: one sound per strike, collision, cushion and pocket, at its time, gain from its speed", (name) => {
    const g = golden(name);
    const log = logOf(g);
    const sched = soundSchedule(log);
    const want = log.events
      .filter((e) => e.kind in kindOf || e.kind === "ball_cushion")
      .map((e) => ({ t: e.t, kind: e.kind === "ball_cushion" ? (e.cushion && /\.(jaw|facing)/.test(e.cushion) ? "rattle" : "cushion") : kindOf[e.kind] }));
    // the schedule is the log's sounds in order; only contacts slower than SILENT_BELOW (frozen
    // balls, resting touches) are left out, never a strike or a pocket
    const wantB = log.events
      .filter((e) => e.kind in kindOf || e.kind === "ball_cushion")
      .map((e) => ({ ...want.shift()!, balls: e.kind === "ball_ball" ? e.balls.slice(0, 2) : e.balls.slice(0, 1), ev: e }));
    let j = 0;
    const silent: typeof wantB = [];
    for (const w of wantB) {
      const s = sched[j];
      if (s && s.t === w.t && s.kind === w.kind && JSON.stringify(s.balls) === JSON.stringify(w.balls)) j++;
      else silent.push(w);
    }
    expect(j).toBe(sched.length);
    for (const w of silent) {
      expect(["click", "cushion", "rattle"]).toContain(w.kind);
      // what was left out was slow: for a collision not at the same instant as another one, the
      // balls closed in at under 2 cm/s just before it (finite differences of the positions)
      const alone = !log.events.some((x) => x !== w.ev && Math.abs(x.t - w.t) < 1e-9 && x.kind === "ball_ball");
      if (w.kind === "click" && alone) {
        const at = (t: number) => w.balls.map((b) => log.ballAt(b, t));
        const [p1, q1] = at(w.t - 2e-6);
        const [p2, q2] = at(w.t - 1e-6);
        const gap = (p: typeof p1, q: typeof q1) => Math.hypot(q.rx - p.rx, q.ry - p.ry);
        expect((gap(p1, q1) - gap(p2, q2)) / 1e-6).toBeLessThan(SILENT_BELOW + 1e-3);
      }
    }
    for (const s of sched) {
      expect(s.speed).toBeGreaterThanOrEqual(SILENT_BELOW);
      expect(s.gain).toBe(gainFor(s.kind, s.speed));
      expect(s.gain).toBeGreaterThan(0);
      expect(s.gain).toBeLessThanOrEqual(1);
    }
    const cue = sched.filter((s) => s.kind === "cue");
    expect(cue.length).toBe(g.result.events.filter((e: any) => e.kind === "strike").length);
    for (const c of cue) {
      const st = g.result.events.find((e: any) => e.kind === "strike" && e.balls[0] === c.balls[0]).states[String(c.balls[0])];
      expect(c.speed).toBe(Math.hypot(st.v[0], st.v[1]));
    }
  });

  test("a straight stun shot: the click's speed is the closing speed the physics conserved", () => {
    const [sim] = reference("simulate", JSON.stringify([{ table: "pool-9ft", balls: { "0": [0.8, 0.635], "5": [1.6, 0.635] }, shot: { cue_ball: 0, phi_deg: 0, V0: 2.0, a: 0, b: 0, theta_deg: 0 } }]));
    const log = ShotLog.fromSimJson(sim, clothOf(pool));
    const first = sim.events.find((e: any) => e.kind === "ball_ball");
    const click = soundSchedule(log).find((s) => s.kind === "click")!;
    expect(click.t).toBe(first.t);
    // equal masses, object ball at rest: momentum gives the closing speed as the sum of the speeds after
    const after = first.states["0"].v[0] + first.states["5"].v[0];
    expect(click.speed).toBeCloseTo(after, 9);
    // and the restitution the cloth says: the speed apart after is e_b times it
    expect((first.states["5"].v[0] - first.states["0"].v[0]) / click.speed).toBeCloseTo(pool.cloth.e_b, 9);
    expect(click.gain).toBeCloseTo(Math.pow(after / REFERENCE_SPEED.click, 0.8), 12);
    // the object ball's thud on the foot cushion: its speed into the cushion, as the positions just before say
    const cush = soundSchedule(log).find((s) => s.kind === "cushion" && s.balls[0] === 5)!;
    const b1 = log.ballAt(5, cush.t - 2e-4);
    const b2 = log.ballAt(5, cush.t - 1e-4);
    expect(cush.speed).toBeCloseTo((b2.rx - b1.rx) / 1e-4, 2);
  });

  test("Newton's cradle: the impulse passes down the frozen row, one click per contact, as loud as the log says", () => {
    const g = golden("pool_newtons_cradle");
    const clicks = soundSchedule(logOf(g)).filter((s) => s.kind === "click");
    const row = g.result.events.filter((e: any) => e.kind === "ball_ball").slice(0, 5);
    expect(clicks.slice(0, 5).map((c) => c.balls)).toEqual(row.map((e: any) => e.balls));
    // each contact closes at the speed the previous one gave the ball (the row is at rest before)
    for (let k = 1; k < 5; k++) expect(clicks[k].speed).toBeCloseTo(row[k - 1].states[String(row[k].balls[0])].v[0], 9);
  });

  test("louder with speed, capped at 1; pocket drops never silent", () => {
    expect(gainFor("click", 4)).toBe(1);
    expect(gainFor("click", 40)).toBe(1);
    expect(gainFor("click", 1)).toBeLessThan(gainFor("click", 2));
    const g = golden("pool_straight_into_side");
    const drop = soundSchedule(logOf(g)).find((s) => s.kind === "pocket")!;
    expect(drop.speed).toBeGreaterThanOrEqual(0.5);
  });
});

describe("practise a recorded stroke's position", () => {
  test("the balls where the stroke found them, in id order, and its cue with the ball its strike event names", () => {
    const g = golden("carom_break");
    const log = logOf(g);
    const stroke = { phi_deg: 12.5, a: 0.1, b: -0.2, theta_deg: 3, V0: 4.25 };
    const p = strokePosition("carom", "three_cushion", log, stroke)!;
    const ids = Object.keys(g.result.initial).map(Number).sort((x, y) => x - y);
    expect(p.table).toBe("carom");
    expect(p.discipline).toBe("three_cushion");
    expect(p.balls.map((b) => b.id)).toEqual(ids);
    for (const b of p.balls) expect([b.x, b.y]).toEqual(g.result.initial[String(b.id)]);
    expect(p.cue).toEqual({ cue_ball: g.result.events[0].balls[0], ...stroke });
  });

  test("no cue when the record's stroke fields are missing or not numbers; nothing without a log", () => {
    const log = logOf(golden("carom_break"));
    expect(strokePosition("carom", "three_cushion", log, undefined)!.cue).toBeNull();
    expect(strokePosition("carom", "three_cushion", log, { phi_deg: "1", a: 0, b: 0, theta_deg: 0, V0: 1 })!.cue).toBeNull();
    expect(strokePosition("carom", "three_cushion", log, { phi_deg: NaN, a: 0, b: 0, theta_deg: 0, V0: 1 })!.cue).toBeNull();
    expect(strokePosition("carom", "three_cushion", null, {})).toBeNull();
    expect(strokePosition("", "three_cushion", log, {})).toBeNull();
  });
});
