/**
 * The client's own logic: aiming geometry (first contact, ghost ball), ball-in-hand placement,
 * the miscue limit, the table stream (versions, gaps), the playback order, the scoreboard shapes,
 * the create-table configuration and the shareable links.
 */
import { describe, expect, test } from "vitest";
import { aimAid, firstContact, normDeg, placeInHand, placementProblem } from "../src/aim/contact";
import { TableModel } from "../src/game/model";
import { Playback } from "../src/game/playback";
import { decodeMessage } from "../src/protocol/codec";
import type { Preset, Vec2 } from "../src/protocol/messages";
import { parseRoute } from "../src/route";
import { clampTip } from "../src/ui/controls";
import { configFromForm } from "../src/ui/lobby";
import { replayZones } from "../src/ui/replay";
import { normalizeScoreboard, practiceSeats, rulingText } from "../src/ui/scoreboard";
import { pocketMouths } from "../src/view/render";
import { Viewport } from "../src/view/viewport";
import { hexToBytes, reference } from "./reference";

const presets: Record<string, Preset> = reference("presets");
const pool = presets["pool-9ft"];
const carom = presets["carom"];
const R = pool.ball.radius;

describe("first contact along the aim line", () => {
  test("a straight shot meets the object ball one diameter short of its centre", () => {
    const c = firstContact([1.0, 0.6], 0, R, new Map([[3, [1.5, 0.6] as Vec2]]), pool);
    expect(c.kind).toBe("ball");
    expect(c.ball).toBe(3);
    expect(c.s).toBeCloseTo(0.5 - 2 * R, 12);
    expect(c.at[0]).toBeCloseTo(1.5 - 2 * R, 12);
    expect(c.objectDir![0]).toBeCloseTo(1, 12);
  });

  test("a cut: the ghost ball touches the object ball and the line of centres gives its direction", () => {
    const ob: Vec2 = [1.5, 0.62];
    const c = firstContact([1.0, 0.6], 0, R, new Map([[5, ob]]), pool);
    expect(c.kind).toBe("ball");
    expect(Math.hypot(c.at[0] - ob[0], c.at[1] - ob[1])).toBeCloseTo(2 * R, 12);
    expect(c.at[1]).toBe(0.6);
    const d = c.objectDir!;
    expect(d[0] * (ob[1] - c.at[1]) - d[1] * (ob[0] - c.at[0])).toBeCloseTo(0, 12);
  });

  test("a ball beside the line is missed; the cushion is next (carom table, no pockets)", () => {
    const c = firstContact([1.0, 0.5], 90, carom.ball.radius, new Map([[2, [1.2, 0.9] as Vec2]]), carom);
    expect(c.kind).toBe("cushion");
    expect(c.cushion).toBe("Lf");
    expect(c.at[1]).toBeCloseTo(carom.width - carom.ball.radius, 12);
  });

  test("toward a corner pocket the pocket or a jaw comes first, never a cushion past it", () => {
    const c = firstContact([0.5, 0.5], 225, R, new Map(), pool);
    expect(["pocket", "cushion"]).toContain(c.kind);
    if (c.kind === "cushion") expect(c.cushion!.startsWith("HR.")).toBe(true);
    else expect(c.pocket).toBe("HR");
  });

  test("aim aid: the object ball along the line of centres and the cue ball's stun tangent, each to the first cushion", () => {
    // a cut on a carom table (no pockets): cue ball at (1, 0.5) aimed at +x, red at (1.6, 0.53)
    const Rc = carom.ball.radius;
    const others = new Map<number, Vec2>([[2, [1.6, 0.53]]]);
    const c = firstContact([1.0, 0.5], 0, Rc, others, carom);
    const aid = aimAid(c, 0, Rc, others, carom)!;
    const n = c.objectDir!;
    expect(aid.object.from).toEqual([1.6, 0.53]);
    const o = aid.object.to;
    // along n from the object ball, stopped one radius short of a cushion nose
    expect((o[0] - 1.6) * n[1] - (o[1] - 0.53) * n[0]).toBeCloseTo(0, 12);
    expect(aid.object.end).toBe("cushion");
    expect(Math.min(Math.abs(o[0] - (carom.length - Rc)), Math.abs(o[1] - Rc), Math.abs(o[1] - (carom.width - Rc)))).toBeLessThan(1e-12);
    // the tangent starts at the ghost ball, at right angles to the line of centres, on the far side of the cut
    const t = aid.tangent!;
    expect(t.from).toEqual(c.at);
    expect((t.to[0] - t.from[0]) * n[0] + (t.to[1] - t.from[1]) * n[1]).toBeCloseTo(0, 12);
    expect(t.to[1]).toBeLessThan(c.at[1]); // the ball was hit on its lower half: the cue ball leaves downward
    expect(t.to[1]).toBeCloseTo(Rc, 12); // to the bottom cushion
    // a full hit: no tangent (the cue ball stops); no ball hit: no aid at all
    expect(aimAid(firstContact([1.0, 0.53], 0, Rc, others, carom), 0, Rc, others, carom)!.tangent).toBeNull();
    expect(aimAid(firstContact([1.0, 0.5], 90, Rc, others, carom), 90, Rc, others, carom)).toBeNull();
  });

  test("normDeg keeps angles in (-180, 180]", () => {
    expect(normDeg(190)).toBe(-170);
    expect(normDeg(-180)).toBe(180);
    expect(normDeg(725)).toBe(5);
  });
});

describe("ball in hand", () => {
  const kitchen = { region: "kitchen", x_max: pool.head_string_x - 1e-6 };
  test("the kitchen limits x; the bed limits both coordinates", () => {
    expect(placeInHand([1.5, 0.6], R, pool, kitchen, new Map())).toEqual([kitchen.x_max, 0.6]);
    expect(placeInHand([0.3, -1], R, pool, kitchen, new Map())).toEqual([0.3, R]);
    expect(placeInHand([-1, 0.6], R, pool, kitchen, new Map())).toEqual([R, 0.6]);
    expect(placeInHand([1.5, 0.6], R, pool, { region: "table" }, new Map())).toEqual([1.5, 0.6]);
  });
  test("never on another ball", () => {
    expect(placeInHand([0.3, 0.6], R, pool, kitchen, new Map([[4, [0.3 + 1.5 * R, 0.6] as Vec2]]))).toBeNull();
    expect(placeInHand([0.3, 0.6], R, pool, kitchen, new Map([[4, [0.3 + 2.1 * R, 0.6] as Vec2]]))).toEqual([0.3, 0.6]);
  });

  // The server's verdict (rules/straight_pool.py _check_placement, through test/reference.py) on
  // the points the client places a ball at when it is dragged into each corner and pocket.
  const xMax: Record<string, number> = reference("kitchen");
  const sizes: [string, Preset][] = [["9ft", presets["pool-9ft"]], ["8ft", presets["pool-8ft"]], ["7ft", presets["pool-7ft"]]];
  const dragTargets = (p: Preset): Vec2[] => [
    [-1, -1], [-1, p.width + 1], [p.length + 1, -1], [p.length + 1, p.width + 1], // far beyond each corner
    [0, 0], [0, p.width], [p.length, 0], [p.length, p.width], // onto the corners
    [R, R], [R, p.width - R], // the bed's own corners
    ...p.pockets.map((pk) => pk.centre), // onto every pocket
    ...p.jaws.map((j) => j.centre), // onto every jaw
  ];

  test("dragged into a corner of the kitchen, the ball leaves the corner pocket's circle along its radius", () => {
    const hr = pool.pockets.find((pk) => pk.name === "HR")!;
    const q = placeInHand([-1, -1], R, pool, { region: "kitchen", x_max: xMax["9ft"] }, new Map())!;
    // (R, R) lies inside HR's circle (centre (-2.0 mm, -2.0 mm), radius 60 mm): the ball goes out
    // along the diagonal to 60 mm + 1 um from the centre.
    expect(Math.hypot(R - hr.centre[0], R - hr.centre[1])).toBeLessThan(hr.radius);
    expect(q[0]).toBeCloseTo(hr.centre[0] + (hr.radius + 1e-6) / Math.SQRT2, 12);
    expect(q[1]).toBeCloseTo(q[0], 12);
    expect(q[0]).toBeCloseTo(0.040412, 6);
    expect(placementProblem([R, R], R, pool, kitchen, new Map())).toBe("pocket");
    expect(placementProblem(q, R, pool, kitchen, new Map())).toBeNull();
  });

  test("every drag into a corner or a pocket ends where the server accepts the cue ball (kitchen and whole bed, 7-9 ft)", () => {
    const asked: { table: string; at: Vec2 }[] = [];
    const whole: { table: string; at: Vec2 }[] = [];
    for (const [size, p] of sizes) {
      const region = { region: "kitchen", x_max: xMax[size] };
      for (const w of dragTargets(p)) {
        const q = placeInHand(w, R, p, region, new Map());
        expect(q, `${size} kitchen drag to ${w}`).not.toBeNull();
        expect(placementProblem(q!, R, p, region, new Map())).toBeNull();
        expect(q![0]).toBeLessThanOrEqual(xMax[size]);
        asked.push({ table: size, at: q! });
        const t = placeInHand(w, R, p, { region: "table" }, new Map());
        expect(t, `${size} drag to ${w}`).not.toBeNull();
        expect(placementProblem(t!, R, p, { region: "table" }, new Map())).toBeNull();
        whole.push({ table: size, at: t! });
      }
    }
    const verdicts = reference("placement", JSON.stringify(asked));
    verdicts.forEach((v: any, i: number) => expect(v, JSON.stringify(asked[i])).toEqual({ surface: true, ok: true }));
    // A ball in hand on the whole bed (no kitchen): the surface test the server applies.
    const surf = reference("placement", JSON.stringify(whole));
    surf.forEach((v: any, i: number) => expect(v.surface, JSON.stringify(whole[i])).toBe(true));
    // Each placed point is the nearest accepted one: no more than a ball radius from the bed
    // corner or pocket it was dragged to, clamped into the bed.
    const q = placeInHand([pool.length, 0], R, pool, { region: "table" }, new Map())!;
    expect(Math.hypot(q[0] - (pool.length - R), q[1] - R)).toBeLessThan(R);
  });

  test("the ported predicate gives the server's verdict on a grid over the head corners and the kitchen limit", () => {
    const pts: { table: string; at: Vec2 }[] = [];
    for (const [size, p] of sizes) {
      for (let i = 0; i <= 12; i++) {
        for (let j = 0; j <= 12; j++) {
          const x = -0.01 + i * 0.008;
          pts.push({ table: size, at: [x, -0.01 + j * 0.008] });
          pts.push({ table: size, at: [x, p.width + 0.01 - j * 0.008] });
          pts.push({ table: size, at: [xMax[size] - 0.048 + i * 0.008, -0.01 + j * 0.008] });
        }
      }
      pts.push({ table: size, at: [xMax[size], p.width / 2] }, { table: size, at: [xMax[size] + 1e-9, p.width / 2] });
    }
    const verdicts = reference("placement", JSON.stringify(pts));
    let refused = 0;
    const kinds = new Set<string>();
    pts.forEach(({ table, at }, i) => {
      const p = sizes.find(([s]) => s === table)![1];
      const mine = placementProblem(at, R, p, { region: "kitchen", x_max: xMax[table] }, new Map());
      expect(mine === null, `${table} ${at}: client ${mine}, server ${verdicts[i].message}`).toBe(verdicts[i].ok);
      if (mine) {
        refused++;
        kinds.add(mine);
      }
    });
    expect(refused).toBeGreaterThan(100);
    expect([...kinds].sort()).toEqual(["kitchen", "off_bed", "pocket"]);
  });
});

describe("replay: the carom zone lines of the live table", () => {
  const zones = reference("zones");
  const sim = { events: [] };
  test("the record's zones are drawn at every stroke (balkline 47/2: 9 balk spaces and 8 anchors)", () => {
    const rec = { zones: zones.balkline_47_2, strokes: [{ player: 0, sim }, { player: 1, sim }] };
    expect(zones.balkline_47_2).toHaveLength(17);
    expect(replayZones(rec, 0)).toBe(zones.balkline_47_2);
    expect(replayZones(rec, 1)).toBe(zones.balkline_47_2);
    expect(replayZones(rec, 2)).toBe(zones.balkline_47_2); // after the last stroke
  });
  test("a stroke's own zones win (a pentathlon record changes discipline); none for pool or three-cushion", () => {
    const rec = { zones: zones.libre, strokes: [{ player: 0, zones: zones.libre }, { player: 1, zones: zones.balkline_47_2 }, { player: 0, zones: zones.three_cushion }] };
    expect(replayZones(rec, 0)!.map((z) => z.kind)).toEqual(["corner", "corner", "corner", "corner"]);
    expect(replayZones(rec, 1)).toBe(zones.balkline_47_2);
    expect(zones.three_cushion).toEqual([]);
    expect(replayZones(rec, 2)).toBeNull();
    expect(replayZones({ strokes: [{ player: 0 }] }, 0)).toBeNull();
    expect(replayZones({}, 0)).toBeNull();
  });
});

describe("ruling texts name the players, not the seats", () => {
  const texts: Record<string, string[]> = reference("rulings");
  const names = ["Ann", "Bob"];
  test("14.1: the referee's A and B (rules/straight_pool.py SEAT_NAMES) become the names in those seats", () => {
    const w = (t: string) => rulingText({ text: t } as any, "straight_pool", names);
    expect(w("Breaking foul, -2: B chooses")).toBe("Breaking foul, -2: Bob chooses");
    expect(w("Scored 1 (12 in HR); B continues")).toBe("Scored 1 (12 in HR); Bob continues");
    expect(w("Foul: cue ball pocketed, -1; A has ball in hand behind the head string")).toBe(
      "Foul: cue ball pocketed, -1; Ann has ball in hand behind the head string",
    );
    expect(w("Scored 1 (14 in HR): B wins 20 to 14")).toBe("Scored 1 (14 in HR): Bob wins 20 to 14");
    // templates of rules/straight_pool.py that the recorded game does not reach
    expect(w("A's lag is bad (hit the side rail); B wins the lag and chooses who breaks")).toBe(
      "Ann's lag is bad (hit the side rail); Bob wins the lag and chooses who breaks",
    );
    expect(w("A chooses B to break")).toBe("Ann chooses Bob to break");
    expect(w("B has all fifteen re-racked: A breaks again")).toBe("Bob has all fifteen re-racked: Ann breaks again");
    expect(w("Third successive foul (cue ball pocketed), -16: all fifteen re-racked, A breaks")).toBe(
      "Third successive foul (cue ball pocketed), -16: all fifteen re-racked, Ann breaks",
    );
    expect(w("A forfeits (resign): B wins")).toBe("Ann forfeits (resign): Bob wins");
    // ball numbers and pocket names are left alone; an empty seat keeps the referee's word
    expect(w("Miss: 11 not in SR; B to shoot")).toBe("Miss: 11 not in SR; Bob to shoot");
    expect(rulingText({ text: "Safety; B to shoot" } as any, "straight_pool", ["Ann", null])).toBe("Safety; B to shoot");
  });
  test("carom: 'seat 0' / 'Seat 1' (rules/carom.py, rules/multi.py) become the names", () => {
    const w = (t: string, d = "three_cushion") => rulingText({ text: t } as any, d, names);
    expect(w("Lag won by seat 0, nearer the bottom cushion; seat 0 chooses who breaks")).toBe(
      "Lag won by Ann, nearer the bottom cushion; Ann chooses who breaks",
    );
    expect(w("Lag won by seat 1 (seat 0: did not reach the top cushion); seat 1 chooses who breaks")).toBe(
      "Lag won by Bob (Ann: did not reach the top cushion); Bob chooses who breaks",
    );
    expect(w("Seat 1 breaks and plays the white")).toBe("Bob breaks and plays the white");
    expect(w("Carom, 1 point (run 2); Game over: seat 1 wins 9-10")).toBe("Carom, 1 point (run 2); Game over: Bob wins 9-10");
    expect(
      w("Carom, 1 point (run 3); Game 5 (three_cushion) over: draw 3-3; match over: seat 1 wins (2-8 in match points)", "pentathlon"),
    ).toBe("Carom, 1 point (run 3); Game 5 (three_cushion) over: draw 3-3; match over: Bob wins (2-8 in match points)");
    // a carom text has no A/B seat words (cushion B is not a seat)
    expect(w("B breaks")).toBe("B breaks");
  });
  test("no seat word is left in any ruling of the recorded games, and nothing else changes", () => {
    expect(texts.straight_pool.length).toBeGreaterThan(20);
    for (const [d, list] of Object.entries(texts)) {
      for (const t of list) {
        const n = rulingText({ text: t } as any, d, names);
        expect(n, t).not.toMatch(/(^|[\s(;:,])[AB](\s|'s)|\b[Ss]eat [01]\b/);
        // the text with the names put back as the referee's words is the referee's text
        const back = d === "straight_pool" ? n.replace(/Ann/g, "A").replace(/Bob/g, "B") : n.replace(/Ann/g, "seat 0").replace(/Bob/g, "seat 1");
        expect(back.toLowerCase()).toBe(t.toLowerCase());
      }
    }
    expect(rulingText({ text: "Lag won by seat 0 (seat 1: nearer)" } as any, "three_cushion")).toBe("Lag won by seat 0 (seat 1: nearer)");
  });
});

test("the tip offset stays inside the miscue circle of 0.5 ball radii", () => {
  expect(clampTip(0.3, 0.2)).toEqual([0.3, 0.2]);
  const [a, b] = clampTip(0.6, 0.8);
  expect(Math.hypot(a, b)).toBeCloseTo(0.5, 12);
  expect(a / b).toBeCloseTo(0.75, 12);
});

describe("table stream", () => {
  const ref = reference("samples");
  const msg = (type: string) => decodeMessage(hexToBytes(ref.outbound.find((m: any) => m.type === type).hex)) as any;

  test("a snapshot, then consecutive versions; a gap is reported, old versions ignored", () => {
    const m = new TableModel("t1");
    expect(m.apply(msg("stroke")).kind).toBe("ignored"); // nothing before the first snapshot
    expect(m.apply(msg("table_snapshot")).kind).toBe("snapshot");
    expect(m.v).toBe(5);
    expect(m.layout().get(1)).toEqual(msg("table_snapshot").state.layout["1"]);
    const st = m.apply(msg("stroke"));
    expect(st.kind).toBe("stroke");
    expect(m.v).toBe(6);
    expect(m.lastStroke!.log.events.length).toBeGreaterThan(3);
    expect(m.apply(msg("stroke")).kind).toBe("ignored"); // replayed twice: once only
    expect(m.apply(msg("seats")).kind).toEqual("gap"); // v 8 after 6
    expect(m.apply(msg("ruling")).kind).toBe("ruling");
    expect(m.apply(msg("seats")).kind).toBe("seats");
    expect(m.seats[1]!.connected).toBe(false);
    expect(m.apply(msg("chat")).kind).toBe("chat");
    expect(m.chat.at(-1)!.text).toBe("n\u00edce sh\u00f8t \u2764");
    expect(m.apply(msg("rematch")).kind).toBe("rematch");
    expect(m.rematch).toEqual([true, false]);
    expect(m.stateV).toBe(7);
  });

  test("a player who gives the seat up is still named as the game's player; a new game starts from the seats", () => {
    const m = new TableModel("t1");
    const seat = (i: number, name: string) => ({ seat: i, player: `p${i}`, name, connected: true, grace_until: null });
    const snap = { ...msg("table_snapshot"), seats: [seat(0, "Ann"), seat(1, "Bob")] };
    m.apply(snap);
    const names = ["Ann", "Bob"];
    expect(m.playerNames()).toEqual(names);
    // seat 1 is given up (a forfeit by leaving): the seat is open, the game's player keeps the name
    m.apply({ ...snap, seats: [snap.seats[0], null], v: snap.v + 1, type: "seats", clock: snap.clock } as any);
    expect(m.seats[1]).toBeNull();
    expect(m.playerName(1)).toBe(names[1]);
    // the next game at the table (a snapshot of game + 1) names only who sits
    m.apply({ ...snap, game: snap.game + 1, seats: [snap.seats[0], null], v: snap.v + 2 });
    expect(m.playerName(0)).toBe(names[0]);
    expect(m.playerName(1)).toBe("Player 2");
  });

  test("a rated game forfeited before both had played is aborted: from the live ruling and from a snapshot's history", () => {
    const snap = msg("table_snapshot");
    const ruling = msg("ruling");
    const over = { ...ruling, v: snap.v + 1, cause: "resign", state: { ...snap.state, over: true },
                   ruling: { ...ruling.ruling, game_over: true, aborted: true } };
    const live = new TableModel("t1");
    live.apply({ ...snap, rated: true });
    expect(live.aborted()).toBe(false);
    live.apply(over);
    expect(live.aborted()).toBe(true);
    // a late spectator's snapshot: the game is over and its last history entry is the aborted forfeit
    const late = new TableModel("t1");
    const entry = { i: 0, v: snap.v + 1, kind: "forfeit", seat: 1, call: null, decision: null, ruling: over.ruling };
    late.apply({ ...snap, v: snap.v + 1, rated: true, state: over.state, history: [entry] });
    expect(late.aborted()).toBe(true);
    // a forfeit that is not marked (both had played) is rated as usual
    const rated = new TableModel("t1");
    rated.apply({ ...snap, v: snap.v + 1, rated: true, state: over.state,
                  history: [{ ...entry, ruling: { ...over.ruling, aborted: undefined } }] });
    expect(rated.aborted()).toBe(false);
  });

  test("a rated game's new ratings reach the scoreboard's seats, not a seat somebody else has taken", () => {
    const seat = (i: number, name: string) => ({ seat: i, player: `p${i}`, name, connected: true, grace_until: null,
                                                rating: 1500, provisional: true });
    const snap = { ...msg("table_snapshot"), rated: true, seats: [seat(0, "Ann"), seat(1, "Bob")] };
    const m = new TableModel("t1");
    m.apply(snap);
    const ratings = [{ seat: 0, name: "Ann", before: 1500, after: 1662, rd_after: 290, provisional: true },
                     { seat: 1, name: "Cid", before: 1500, after: 1338, rd_after: 290, provisional: false }];
    expect(m.applyRated(snap.game, ratings)).toBe(true);
    expect([m.seats[0]!.rating, m.seats[0]!.provisional]).toEqual([1662, true]);
    expect([m.seats[1]!.rating, m.seats[1]!.provisional]).toEqual([1500, true]); // Bob sits there, not Cid
    expect(m.ratingChangeOf(0)!.after).toBe(1662);
    // another game's ratings change nothing
    expect(m.applyRated(snap.game + 1, [{ ...ratings[0], after: 1700 }])).toBe(false);
    expect(m.seats[0]!.rating).toBe(1662);
  });

  test("a practice table's position message (undo): the new position and practice entry, no stroke kept", () => {
    const m = new TableModel("t1");
    m.apply(msg("table_snapshot"));
    expect(m.practice).toBeNull(); // a game table
    for (const t of ["stroke", "ruling", "seats", "chat", "rematch"]) m.apply(msg(t));
    const p = msg("position");
    expect(p.v).toBe(11);
    expect(m.apply(p).kind).toBe("position");
    expect(m.v).toBe(11);
    expect(m.stateV).toBe(11);
    expect(m.state).toEqual(p.state);
    expect(m.practice).toEqual(p.practice);
    expect(m.practice!.undo).toBe(2);
    expect(m.lastStroke).toBeNull();
  });

  test("undo keeps the stroke it took back and redo brings it back (Retry after Undo, Redo; QA); a new step forgets it", () => {
    const m = new TableModel("t1");
    m.apply(msg("table_snapshot"));
    for (const t of ["stroke", "ruling", "seats", "chat", "rematch"]) m.apply(msg(t));
    const played = m.lastStroke;
    expect(played).not.toBeNull();
    const p = msg("position");
    m.apply({ ...p, cause: "undo" });
    expect(m.lastStroke).toBeNull();
    m.apply({ ...p, v: p.v + 1, cause: "redo" });
    expect(m.lastStroke).toBe(played);
    m.apply({ ...p, v: p.v + 2, cause: "undo" });
    m.apply({ ...p, v: p.v + 3, cause: "place" }); // a placement after the undo: the redo branch is gone
    m.apply({ ...p, v: p.v + 4, cause: "redo" });
    expect(m.lastStroke).toBeNull();
  });

  test("playback holds the position after a stroke until its animation ends; skip jumps there", () => {
    const m = new TableModel("t1");
    m.apply(msg("table_snapshot"));
    const r = m.apply(msg("stroke"));
    if (r.kind !== "stroke") throw new Error("no stroke");
    let now = 0;
    const shown: number[] = [];
    const pb = new Playback((s) => shown.push(s.v), () => now);
    pb.push({ kind: "stroke", stroke: r.stroke, v: 6 });
    pb.push({ kind: "state", state: m.state, ruling: null, v: 7 });
    expect(pb.busy).toBe(true);
    const dur = r.stroke.log.duration();
    now = (dur / 2) * 1000;
    const f = pb.frame()!;
    expect(f.t).toBeCloseTo(dur / 2, 9);
    expect(f.balls.get(0)!.rx).toBe(r.stroke.log.ballAt(0, f.t).rx);
    expect(shown).toEqual([]);
    now = dur * 1000 + 1;
    expect(pb.frame()).toBeNull();
    expect(shown).toEqual([6, 7]);
    pb.push({ kind: "stroke", stroke: r.stroke, v: 8 });
    pb.skip();
    expect(shown).toEqual([6, 7, 8]);
    expect(pb.busy).toBe(false);
  });
});

describe("scoreboards", () => {
  test("14.1 per-player boards", () => {
    const b = normalizeScoreboard({ scores: [-2, 5], shooter: 1, rack: 2, balls_on_table: 9, players: [{ score: -2, target: 3, innings: 4, run: 0, high_run: 1, average: 0.25, fouls_in_row: 2 }, { score: 5, target: 3, innings: 3, run: 2, high_run: 3, average: 1.667, fouls_in_row: 0 }] });
    expect(b.seats[0]).toEqual({ score: -2, target: 3, innings: 4, run: 0, highRun: 1, average: 0.25, foulsInRow: 2 });
    expect(b.shooter).toBe(1);
    expect(b.facts).toEqual([["Rack", "2"], ["Balls on table", "9"]]);
  });
  test("carom arrays, zone states in the referee's words, sets", () => {
    const b = normalizeScoreboard({ striker: 0, distance: 50, scores: [7, 3], innings: [4, 4], inning: 4, run: 2, high_run: [3, 2], average: [1.75, 0.75], fouls_in_row: [0, 0], zones: { A: "in", B: "inside" }, announce: ["entran"], sets: { sets_to_win: 2, won: [1, 0], set: 1 } });
    expect(b.seats[0].run).toBe(2);
    expect(b.seats[1].run).toBe(0);
    expect(b.seats[1].average).toBe(0.75);
    expect(b.facts).toContainEqual(["Zones", "A: entran, B: dentro"]);
    expect(b.facts).toContainEqual(["Sets", "1 : 0 (set 2, best of 3)"]);
  });
  test("pentathlon: the game in progress and the match points", () => {
    const b = normalizeScoreboard({ striker: 1, distance: 60, scores: [0, 3], innings: [2, 2], run: 3, game_discipline: "one_cushion", match: { order: ["libre", "balkline_47_1", "one_cushion", "balkline_71_2", "three_cushion"], index: 2, match_points: [2, 2] } });
    expect(b.seats[1].run).toBe(3);
    expect(b.facts).toContainEqual(["Game", "One-cushion"]);
    expect(b.facts).toContainEqual(["Match", "game 3 of 5, points 2 : 2"]);
  });
});

test("the create-table form gives the rules' configuration keys", () => {
  expect(configFromForm("straight_pool", { target: "3", table: "8ft", shot_clock: "" })).toEqual({ target_points: 3, table: "8ft" });
  expect(configFromForm("three_cushion", { target: "15", innings: "40", sets: "", shot_clock: "30" })).toEqual({
    distance: 15,
    inning_limit: 40,
    shot_clock: { limit_s: 30, warn_s: 20, timeouts: 1 },
  });
  expect(configFromForm("one_cushion", { target: "10", innings: "", sets: "2" })).toEqual({ distance: 10, sets: { sets_to_win: 2, set_distance: 10 } });
});

test("shareable links", () => {
  expect(parseRoute("")).toEqual({ view: "lobby" });
  expect(parseRoute("#/table/abc_D-9")).toEqual({ view: "table", id: "abc_D-9" });
  expect(parseRoute("#/replay/abc/3")).toEqual({ view: "replay", id: "abc", game: 3 });
  expect(parseRoute("#/replay/abc")).toEqual({ view: "replay", id: "abc", game: null });
  expect(parseRoute("#/practice/AQMABXyz_-")).toEqual({ view: "practice", code: "AQMABXyz_-", drill: null });
  expect(parseRoute("#/practice/drill/pool-9ft-stop-1")).toEqual({ view: "practice", code: null, drill: "pool-9ft-stop-1" });
  expect(parseRoute("#/practice/drill/Bad%20Id")).toEqual({ view: "lobby" });
  expect(parseRoute("#/practice/a%2Fb")).toEqual({ view: "lobby" });
  expect(parseRoute("#/practice")).toEqual({ view: "lobby" });
});

test("viewport: world and screen round-trip, landscape and portrait", () => {
  const vp = new Viewport();
  vp.fit([-0.1, -0.1, 2.64, 1.37], 1000, 600);
  expect(vp.portrait).toBe(false);
  const [sx, sy] = vp.toScreen(1.2, 0.3);
  const [x, y] = vp.toWorld(sx, sy);
  expect(x).toBeCloseTo(1.2, 12);
  expect(y).toBeCloseTo(0.3, 12);
  vp.fit([-0.1, -0.1, 2.64, 1.37], 400, 900);
  expect(vp.portrait).toBe(true);
  const [px, py] = vp.toScreen(0, 0);
  const [qx, qy] = vp.toScreen(2.54, 0);
  expect(qy).toBeLessThan(py); // the foot end is up
  expect(qx).toBeCloseTo(px, 9);
  const w = vp.toWorld(...vp.toScreen(2.0, 1.0));
  expect(w[0]).toBeCloseTo(2.0, 12);
  expect(w[1]).toBeCloseTo(1.0, 12);
});

test("every pocket of a pool preset has a mouth polygon from its jaws and facings", () => {
  const mouths = pocketMouths(pool);
  expect(mouths.map((m) => m.name).sort()).toEqual(["FL", "FR", "HL", "HR", "SL", "SR"]);
  for (const m of mouths) expect(m.polygon.length).toBe(6);
  expect(pocketMouths(carom)).toEqual([]);
});

describe("practiceSeats", () => {
  const base = { phase: "play", layout: {}, legal: null, over: false } as any;
  test("a carom position played with the yellow: the player's seat acts and carries the yellow", () => {
    const st = { ...base, to_act: 1, scoreboard: { white_seat: 0, seats: [] } };
    const seen = practiceSeats(st);
    expect(seen.to_act).toBe(0);
    expect(seen.scoreboard.white_seat).toBe(1);
    expect(st.to_act).toBe(1); // the model's state is not changed
    expect(st.scoreboard.white_seat).toBe(0);
  });
  test("played with the white, or a pool table, or nobody to act: unchanged", () => {
    const white = { ...base, to_act: 0, scoreboard: { white_seat: 0 } };
    expect(practiceSeats(white)).toBe(white);
    const pool = { ...base, to_act: 1, scoreboard: { seats: [] } };
    expect(practiceSeats(pool).to_act).toBe(0);
    expect(practiceSeats(pool).scoreboard).toBe(pool.scoreboard);
    const none = { ...base, to_act: null, scoreboard: { white_seat: 1 } };
    expect(practiceSeats(none)).toBe(none);
  });
});
