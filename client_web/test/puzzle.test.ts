/** Shot puzzles in the client: routes, reading the server's answers, the attempt's body from the controls,
 * the words of a result, a guest's counts in localStorage, errors in words, the practice scoreboard's target. */
import { expect, test } from "vitest";
import { parseRoute } from "../src/route";
import {
  GUEST_KEY,
  attemptBody,
  guestRecord,
  noteGuestAttempt,
  parseAttempt,
  parsePuzzle,
  playsText,
  puzzleErrorText,
  puzzleRatingLine,
  ratingLine,
  recordLog,
  standingText,
  strokeWords,
  verdictText,
} from "../src/puzzles/model";
import { normalizeScoreboard, withoutTarget } from "../src/ui/scoreboard";
import type { Preset } from "../src/protocol/messages";

class MemStore {
  data = new Map<string, string>();
  getItem(k: string): string | null {
    return this.data.get(k) ?? null;
  }
  setItem(k: string, v: string): void {
    this.data.set(k, v);
  }
}

const PRESET = {
  name: "pool-9ft",
  kind: "pool",
  length: 2.54,
  width: 1.27,
  cushion_height: 0.036,
  ball: { radius: 0.028575, mass: 0.17 },
  cloth: { mu_s: 0.2, mu_r: 0.01, mu_sp: 0.044, e_b: 0.95, e_c: 0.85, f_c: 0.2, g: 9.81 },
  cushions: [],
  jaws: [],
  pockets: [{ id: 0, name: "FR", centre: [2.54, 0], radius: 0.06, corner: [2.54, 0] }],
  diamonds: [],
  spots: {},
  head_string_x: 0.635,
} as unknown as Preset;

function view(over: Record<string, unknown> = {}) {
  return {
    id: 7,
    discipline: "straight_pool",
    goal: "pot",
    goal_text: "Find the pot: call a ball and a pocket and make it",
    position: "AQAB-code_1",
    table: PRESET,
    balls: { "0": [0.5, 0.6], "1": [1.5, 0.4] },
    cue_ball: 0,
    rating: 1623.4,
    rd: 80,
    plays: 40,
    wins: 12,
    source: { game: "g-1", stroke: 3 },
    me: null,
    ...over,
  };
}

test("routes: #/puzzle is the daily puzzle, #/puzzle/<n> one puzzle, anything else a bad link", () => {
  expect(parseRoute("#/puzzle")).toEqual({ view: "puzzle", id: null });
  expect(parseRoute("#/puzzle/")).toEqual({ view: "puzzle", id: null });
  expect(parseRoute("#/puzzle/42")).toEqual({ view: "puzzle", id: 42 });
  expect(parseRoute("#/puzzle/0")).toEqual({ view: "puzzle", id: null, bad: "0" });
  expect(parseRoute("#/puzzle/-3")).toEqual({ view: "puzzle", id: null, bad: "-3" });
  expect(parseRoute("#/puzzle/abc")).toEqual({ view: "puzzle", id: null, bad: "abc" });
  expect(parseRoute("#/puzzle/1e3")).toEqual({ view: "puzzle", id: null, bad: "1e3" });
  expect(parseRoute("#/puzzle/1234567890123456")).toEqual({ view: "puzzle", id: null, bad: "1234567890123456" });
  expect(parseRoute("#/puzzles")).toEqual({ view: "lobby" });
});

test("a PuzzleView is read with its balls; anything not matching the contract is refused", () => {
  const p = parsePuzzle(view())!;
  expect(p.id).toBe(7);
  expect(p.goal).toBe("pot");
  expect([...p.balls]).toEqual([
    [0, [0.5, 0.6]],
    [1, [1.5, 0.4]],
  ]);
  expect(p.me).toBeNull();
  expect(p.source).toEqual({ game: "g-1", stroke: 3 });
  expect(p.next).toBeNull(); // an older server's view: no "Next puzzle" link
  expect(parsePuzzle(view({ next: 1 }))!.next).toBe(1);
  expect(parsePuzzle(view({ next: "8" }))!.next).toBeNull();
  expect(parsePuzzle(view({ me: { attempts: 2, solved: true, rating: 1510, rd: 60 } }))!.me).toEqual({ attempts: 2, solved: true, rating: 1510, rd: 60 });
  expect(parsePuzzle(view({ id: "7" }))).toBeNull();
  expect(parsePuzzle(view({ id: 0 }))).toBeNull();
  expect(parsePuzzle(view({ goal: "safety" }))).toBeNull();
  expect(parsePuzzle(view({ balls: { "0": [0.5, Number.NaN] } }))).toBeNull();
  expect(parsePuzzle(view({ balls: { x: [0.5, 0.5] } }))).toBeNull();
  expect(parsePuzzle(view({ cue_ball: 3 }))).toBeNull(); // the cue ball is not on the table
  expect(parsePuzzle(view({ table: { kind: "snooker" } }))).toBeNull();
  expect(parsePuzzle(view({ me: { attempts: "2" } }))).toBeNull();
  expect(parsePuzzle(null)).toBeNull();
  expect(parsePuzzle([1, 2])).toBeNull();
});

test("the attempt's body: the controls' stroke under the contract's names, the call at 14.1 only", () => {
  const s = { phi: 12.5, V0: 3.25, a: 0.1, b: -0.2, theta: 5 };
  expect(attemptBody("pot", s, { ball: 1, pocket: "FR" })).toEqual({
    body: { stroke: { phi_deg: 12.5, a: 0.1, b: -0.2, theta_deg: 5, V0: 3.25 }, call: { ball: 1, pocket: "FR" } },
  });
  expect(attemptBody("carom", s, { ball: 1, pocket: "FR" })).toEqual({ body: { stroke: { phi_deg: 12.5, a: 0.1, b: -0.2, theta_deg: 5, V0: 3.25 } } });
  expect(attemptBody("pot", s, { ball: null, pocket: "FR" })).toEqual({ error: "Call a ball and a pocket first: click a ball, then a pocket." });
  expect(attemptBody("pot", s, { ball: 1, pocket: null })).toHaveProperty("error");
  expect(attemptBody("carom", { ...s, V0: 0 }, { ball: null, pocket: null })).toHaveProperty("error");
  expect(attemptBody("carom", { ...s, V0: 10.5 }, { ball: null, pocket: null })).toHaveProperty("error");
  expect(attemptBody("carom", { ...s, phi: Number.NaN }, { ball: null, pocket: null })).toEqual({ error: "The stroke has a value that is not a number." });
  expect(attemptBody("carom", { ...s, a: 0.4, b: 0.4 }, { ball: null, pocket: null })).toEqual({ error: "The tip is outside the miscue circle." });
  expect(attemptBody("carom", { ...s, theta: 71 }, { ball: null, pocket: null })).toHaveProperty("error");
  expect(attemptBody("carom", { ...s, phi: 400 }, { ball: null, pocket: null })).toHaveProperty("error");
});

const ANSWER = {
  solved: true,
  ruling: { text: "Ball 1 in the foot right pocket: 1 point", foul: null },
  stroke: { log: { table: "pool-9ft" } },
  solution: { stroke: { phi_deg: -11.3, a: 0, b: 0.1, theta_deg: 0, V0: 2.5 }, call: { ball: 1, pocket: "FR" }, record: { log: {} } },
  attempt: 1,
  rating: { player: { before: 1500, after: 1523.2, rd: 200 }, puzzle: { before: 1623.4, after: 1600.2 } },
};

test("an attempt's answer: Solved / Missed with the attempt number, the rating change like the game summary", () => {
  const r = parseAttempt(ANSWER)!;
  expect(verdictText(r)).toBe("Solved (attempt 1)");
  expect(r.ruling.text).toBe("Ball 1 in the foot right pocket: 1 point");
  expect(ratingLine(r)).toBe("Your puzzle rating: 1500 \u2192 1523 (+23)");
  expect(puzzleRatingLine(r)).toBe("Puzzle rating: 1623 \u2192 1600 (-23)");
  expect(r.solution.call).toEqual({ ball: 1, pocket: "FR" });
  const miss = parseAttempt({ ...ANSWER, solved: false, attempt: 3, rating: null })!;
  expect(verdictText(miss)).toBe("Missed (attempt 3)");
  expect(ratingLine(miss)).toBeNull();
  expect(puzzleRatingLine(miss)).toBeNull();
  expect(parseAttempt({ ...ANSWER, solution: { ...ANSWER.solution, call: null } })!.solution.call).toBeNull();
  expect(parseAttempt({ ...ANSWER, solved: "yes" })).toBeNull();
  expect(parseAttempt({ ...ANSWER, attempt: 1.5 })).toBeNull();
  expect(parseAttempt({ ...ANSWER, solution: { ...ANSWER.solution, stroke: { phi_deg: 1 } } })).toBeNull();
  expect(parseAttempt({ ...ANSWER, ruling: { text: 5 } })!.ruling.text).toBe(""); // a ruling without words: none shown
  expect(strokeWords(r.solution.stroke, r.solution.call)).toBe("ball 1 in FR, aim -11.30\u00b0, cue speed 2.50 m/s, tip a 0.00 b 0.10, elevation 0.0\u00b0");
  // with the cue ball's speed the power box takes (QA: the cue speed alone could not be typed back in)
  expect(strokeWords(r.solution.stroke, r.solution.call, 2.0412)).toBe(
    "ball 1 in FR, aim -11.30\u00b0, power 2.04 m/s (cue speed 2.50 m/s), tip a 0.00 b 0.10, elevation 0.0\u00b0",
  );
});

test("a guest's attempts are counted per puzzle in localStorage; solved stays solved", () => {
  const st = new MemStore();
  expect(guestRecord(7, st)).toEqual({ attempts: 0, solved: false });
  expect(noteGuestAttempt(7, false, st)).toEqual({ attempts: 1, solved: false });
  expect(noteGuestAttempt(7, true, st)).toEqual({ attempts: 2, solved: true });
  expect(noteGuestAttempt(7, false, st)).toEqual({ attempts: 3, solved: true });
  expect(noteGuestAttempt(9, false, st)).toEqual({ attempts: 1, solved: false });
  expect(guestRecord(7, st)).toEqual({ attempts: 3, solved: true });
  expect(JSON.parse(st.getItem(GUEST_KEY)!)).toEqual({ "7": { attempts: 3, solved: true }, "9": { attempts: 1, solved: false } });
  expect(standingText(guestRecord(7, st))).toBe("Your attempts: 3, solved");
  expect(standingText(guestRecord(9, st))).toBe("Your attempts: 1, not solved yet");
  expect(standingText(guestRecord(1, st))).toBe("Your attempts: 0");
  // a damaged entry is not trusted: read as nothing, and replaced at the next attempt
  st.setItem(GUEST_KEY, "{not json");
  expect(guestRecord(7, st)).toEqual({ attempts: 0, solved: false });
  st.setItem(GUEST_KEY, JSON.stringify({ "7": { attempts: -4, solved: true }, "8": { attempts: 2, solved: "no" } }));
  expect(guestRecord(7, st)).toEqual({ attempts: 0, solved: false });
  expect(noteGuestAttempt(8, true, st)).toEqual({ attempts: 1, solved: true });
});

test("plays in words", () => {
  expect(playsText({ plays: 0, wins: 0 })).toBe("Not played yet");
  expect(playsText({ plays: 1, wins: 1 })).toBe("Played 1 time, solved 1 (100%)");
  expect(playsText({ plays: 40, wins: 12 })).toBe("Played 40 times, solved 12 (30%)");
});

test("errors in words: no puzzle, a bad link, too many attempts, the network, a refused field", () => {
  expect(puzzleErrorText({ status: 404, code: "no_puzzle", message: "" }, true)).toBe("There is no puzzle of the day yet: no puzzle has been made from the games played so far.");
  expect(puzzleErrorText({ status: 404, code: "no_puzzle", message: "" })).toBe("There is no such puzzle.");
  expect(puzzleErrorText({ status: 400, code: "bad_id", message: "id" })).toBe("This puzzle link is not valid.");
  expect(puzzleErrorText({ status: 429, code: "too_many_attempts", message: "" })).toBe("Too many attempts from here: wait a minute and try again.");
  expect(puzzleErrorText({ status: 0, code: "network", message: "" })).toBe("Could not reach the server. Check the connection and try again.");
  expect(puzzleErrorText({ status: 400, code: "bad_field", message: "stroke.V0: out of range" })).toBe("The server refused the attempt: stroke.V0: out of range");
  expect(puzzleErrorText({ status: 500, code: "", message: "" })).toBe("The server answered 500.");
});

test("a stroke record's log: the wire log read with the preset's names, else the simulation's JSON, else none", () => {
  const sim = {
    table: "pool-9ft",
    initial: { "0": [0.5, 0.6] },
    events: [{ t: 0, kind: "strike", balls: [0], states: { "0": { state: "sliding", r: [0.5, 0.6], v: [1, 0], w: [0, 0, 0] } } }],
    final: {},
  };
  const log = recordLog({ sim }, PRESET)!;
  expect(log.events[0].kind).toBe("strike");
  expect(log.at(0).get(0)!.rx).toBe(0.5);
  expect(recordLog({ log: { nonsense: true }, sim }, PRESET)!.events.length).toBe(1); // a bad wire log: the sim
  expect(recordLog({ log: "x" }, PRESET)).toBeNull();
  expect(recordLog(null, PRESET)).toBeNull();
});

test("a practice table's scoreboard has no target or distance; a game's keeps them", () => {
  const carom = normalizeScoreboard({ scores: [3, 1], distance: 40, innings: [2, 2], striker: 0, run: 1 });
  expect(carom.seats[0].target).toBe(40);
  expect(carom.facts).toContainEqual(["Distance", "40"]);
  const p = withoutTarget(carom);
  expect(p.seats.map((s) => s.target)).toEqual([null, null]);
  expect(p.facts.find(([k]) => k === "Distance")).toBeUndefined();
  expect(p.seats[0].score).toBe(3);
  const pool = withoutTarget(normalizeScoreboard({ players: [{ score: 5, target: 100 }, { score: 0, target: 100 }], rack: 1 }));
  expect(pool.seats.map((s) => s.target)).toEqual([null, null]);
  expect(pool.facts).toEqual([["Rack", "1"]]);
});
