/**
 * The msgpack codec against the Python reference (protocol/): every server -> client message type
 * decodes to the map the server built and survives encode -> decode unchanged; every client ->
 * server message type built by the client's own builders is accepted by the server's validation
 * (protocol.decode_client) and means exactly what the reference message means.
 */
import { describe, expect, test } from "vitest";
import { decodeMessage, encodeMessage } from "../src/protocol/codec";
import { INBOUND_TYPES, OUTBOUND_TYPES, PENDING_INBOUND_TYPES, PENDING_OUTBOUND_TYPES, STREAM_TYPES, out } from "../src/protocol/messages";
import { ShotLog, clothOf, presetNames } from "../src/physics/shotlog";
import { decodeWireLog } from "../src/physics/wirelog";
import { computerFromForm, createTableFromForm } from "../src/ui/lobby";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ROOT, bytesToHex, hexToBytes, reference } from "./reference";

const ref = reference("samples");

/** Message types listed in the tables of docs/protocol.md section `n` (3: client -> server, 4: server -> client). */
function documentedTypes(n: number): string[] {
  const doc = readFileSync(resolve(ROOT, "docs", "protocol.md"), "utf8");
  const start = doc.indexOf(`\n## ${n}.`);
  const end = doc.indexOf(`\n## ${n + 1}.`, start);
  const out = new Set<string>();
  for (const line of doc.slice(start, end).split("\n")) {
    const m = /^\| `([a-z_]+)`( \*\*S\*\*)? \|/.exec(line);
    if (m) out.add(m[1]);
  }
  return [...out].sort();
}

/** The types the client speaks that `have` lists: its own, plus the pending ones `have` already has. */
function known(base: readonly string[], pending: readonly string[], have: readonly string[]): string[] {
  return [...base, ...pending.filter((t) => have.includes(t))].sort();
}

test("docs/protocol.md documents exactly these message types (the pending ones of issue 14 once documented)", () => {
  const inb = documentedTypes(3);
  const outb = documentedTypes(4);
  expect(inb).toEqual(known(INBOUND_TYPES, PENDING_INBOUND_TYPES, inb));
  expect(outb).toEqual(known([...OUTBOUND_TYPES], PENDING_OUTBOUND_TYPES, outb));
});

test("the client knows exactly the reference's message types (and the pending ones of issue 14)", () => {
  expect(ref.outbound_types).toEqual(known([...OUTBOUND_TYPES], PENDING_OUTBOUND_TYPES, ref.outbound_types));
  expect(ref.inbound_types).toEqual(known(INBOUND_TYPES, PENDING_INBOUND_TYPES, ref.inbound_types));
  expect(ref.outbound.map((m: any) => m.type).sort()).toEqual(ref.outbound_types);
  expect(ref.inbound.map((m: any) => m.type).sort()).toEqual(ref.inbound_types);
  for (const t of STREAM_TYPES) expect(ref.outbound_types).toContain(t);
});

const outCases: [string, any][] = ref.outbound.map((m: any) => [m.type, m]);

describe.each(outCases)("server -> client %s", (_type: string, m: any) => {
  test("decodes to the server's map", () => {
    expect(decodeMessage(hexToBytes(m.hex))).toEqual(m.value);
  });
  test("round-trips through encode and decode", () => {
    const once = decodeMessage(hexToBytes(m.hex));
    expect(decodeMessage(encodeMessage(once))).toEqual(once);
  });
});

test("a stroke's event log arrives as exact float64 and replays to its final layout", () => {
  const snap = ref.outbound.find((m: any) => m.type === "table_snapshot");
  const stroke = decodeMessage(hexToBytes(ref.outbound.find((m: any) => m.type === "stroke").hex)) as any;
  const preset = decodeMessage(hexToBytes(snap.hex)).preset as any;
  // (the decode test above already compares every number of the log exactly with the server's float64 values)
  const log = ShotLog.fromWire(stroke.log, clothOf(preset), presetNames(preset));
  expect(stroke.log.f).toBe(2); // the compact format (test/wirelog.test.ts checks it bit for bit)
  expect(log.events.length).toBeGreaterThan(5);
  const fin = decodeWireLog(stroke.log).final;
  expect(fin.size).toBe(log.initial.size);
  const end = log.at(log.duration() + 1);
  for (const [id, f] of fin) {
    const b = end.get(id)!;
    expect(b.s).toBe(f.s);
    expect(Math.abs(b.rx - f.rx)).toBeLessThanOrEqual(1e-9);
    expect(Math.abs(b.ry - f.ry)).toBeLessThanOrEqual(1e-9);
  }
  // cushion and pocket ids resolve to the preset's names
  const cushionEvents = log.events.filter((e) => e.kind === "ball_cushion");
  for (const e of cushionEvents) expect(typeof e.cushion).toBe("string");
});

describe("client -> server", () => {
  const tok = "y".repeat(24);
  const built: Record<string, object> = {
    hello: out.hello("Ann"),
    ping: out.ping(3.25),
    lobby_subscribe: out.lobbySubscribe(),
    lobby_unsubscribe: out.lobbyUnsubscribe(),
    quick_play: out.quickPlay("three_cushion", { distance: 2 }),
    quick_play_cancel: out.quickPlayCancel(),
    create_table: out.createTable("straight_pool", { target_points: 3, shot_clock: { limit_s: 30, extensions: 1 } }, true, 0),
    join: out.join("t1", 1),
    watch: out.watch("t1", 12),
    leave: out.leave("t1", tok),
    resume: out.resume("t1", tok, 14),
    shot: out.shot("t1", tok, 1790000000123, { phi_deg: -12.345678, V0: 2.5, a: 0.1, b: -0.25, theta_deg: 5.0 }, { ball: 7, pocket: "FR" }, [0.5, 0.6]),
    decision: out.decision("t1", tok, 1790000000124, "CHOOSE_BREAKER", 1),
    resign: out.resign("t1", tok),
    claim: out.claim("t1", tok),
    rematch_offer: out.rematchOffer("t1", tok),
    rematch_accept: out.rematchAccept("t1", tok),
    chat: out.chat("t1", "hello \u00e9t\u00e9"),
    rename: out.rename("Ann B."),
    aim: out.aim("t1", tok, { phi_deg: -12.5, V0: 2.5, a: 0.1, b: -0.2, theta_deg: 4.0 }, [0.5, 0.6]),
    place_balls: out.placeBalls("t1", tok, 1790000000125, { "0": [0.5, 0.6], "9": [1.75, 0.625] }),
    undo: out.undo("t1", tok, 1790000000126),
    redo: out.redo("t1", tok, 1790000000127),
    reset: out.reset("t1", tok, 1790000000128, "start"),
    preview: out.preview("t1", tok, { phi_deg: -12.345678, V0: 2.5, a: 0.1, b: -0.25, theta_deg: 5.0 }, null, [0.5, 0.6]),
  };

  test("a builder for every inbound type (the pending ones too)", () => {
    expect(Object.keys(built).sort()).toEqual([...INBOUND_TYPES, ...PENDING_INBOUND_TYPES].sort());
  });

  const frames = ref.inbound_types.map((t: string) => bytesToHex(encodeMessage(built[t])));
  const parsed: any[] = reference("parse", frames.join("\n"));

  const inCases: [string, number][] = ref.inbound_types.map((t: string, i: number) => [t, i]);
  test.each(inCases)("%s is accepted by the server and means the reference message", (t: string, i: number) => {
    const want = ref.inbound.find((m: any) => m.type === t).value;
    expect(parsed[i]).toEqual(want);
    // and the client decodes its own frame back to what it built
    expect(decodeMessage(encodeMessage(built[t]))).toEqual(JSON.parse(JSON.stringify(built[t])));
  });

  test("a practice table's create_table is accepted as sent", () => {
    const msgs = [out.createPractice("straight_pool", { drill: "pool-9ft-stop-1", coach: true }), out.createPractice("three_cushion", { position: "AQMAB" }, true)];
    const got = reference("parse", msgs.map((m) => bytesToHex(encodeMessage(m))).join("\n"));
    expect(got).toEqual(msgs.map((m) => JSON.parse(JSON.stringify(m))));
  });

  test("fields left undefined are omitted, null is sent", () => {
    const m = decodeMessage(encodeMessage(out.watch("t1")));
    expect(m).toEqual({ type: "watch", table: "t1" });
    // a client without state resumes without a version (and gets a snapshot)
    const [r] = reference("parse", bytesToHex(encodeMessage(out.resume("t1", tok))));
    expect(r).toEqual({ type: "resume", table: "t1", token: tok });
    const c = decodeMessage(encodeMessage(out.createTable("libre", {}, false, null))) as any;
    expect(c.seat).toBeNull();
  });

  test("the create-table form's opponent: a computer level is sent and accepted, a human omits it", () => {
    const fields = { discipline: "straight_pool", target: "3", table: "9ft", shot_clock: "", opponent: "3" };
    const vsComputer = createTableFromForm(fields);
    const vsHuman = createTableFromForm({ ...fields, opponent: "", private: "on" });
    const [c, hm] = reference("parse", [vsComputer, vsHuman].map((m) => bytesToHex(encodeMessage(m))).join("\n"));
    expect(c).toEqual({ type: "create_table", discipline: "straight_pool", config: { target_points: 3, table: "9ft" }, private: false, seat: 0, computer: 3 });
    expect(hm).toEqual({ type: "create_table", discipline: "straight_pool", config: { target_points: 3, table: "9ft" }, private: true, seat: 0 });
    for (const lv of [1, 5]) expect(computerFromForm({ opponent: String(lv) })).toBe(lv);
    expect(computerFromForm({ opponent: "" })).toBeNull();
    expect(computerFromForm({ opponent: "6" })).toBeNull();
    // the server refuses a level out of range, naming the field
    const [bad] = reference("parse", bytesToHex(encodeMessage(out.createTable("libre", {}, false, 0, 6))));
    expect(bad).toEqual({ error: "bad_field", field: "computer" });
  });

  test("the server names the field of an invalid stroke", () => {
    const bad = out.shot("t1", tok, 1, { phi_deg: 0, V0: 11, a: 0, b: 0, theta_deg: 0 });
    const tooMuchSpin = out.shot("t1", tok, 1, { phi_deg: 0, V0: 2, a: 0.4, b: 0.4, theta_deg: 0 });
    const [r1, r2] = reference("parse", [bad, tooMuchSpin].map((m) => bytesToHex(encodeMessage(m))).join("\n"));
    expect(r1).toEqual({ error: "bad_field", field: "stroke.V0" });
    expect(r2).toEqual({ error: "bad_field", field: "stroke.a" });
  });
});
