/**
 * Shot puzzles, the pure parts (/work/prompts/contract.md, `GET /api/puzzles/daily`,
 * `GET /api/puzzles/<id>`, `POST /api/puzzles/<id>/attempt`): the server's answers read and checked
 * like any network input, the attempt's request body built from the stroke controls, the words of
 * a result (Solved / Missed, the rating change), the errors in words, and a guest's attempts kept in
 * this browser (localStorage, per puzzle: attempts and solved), shown the way `me` is for an account.
 */

import type { ApiResult } from "../api";
import { apiErrorText } from "../api";
import { ShotLog, clothOf, presetNames } from "../physics/shotlog";
import type { Preset, Ruling, Vec2 } from "../protocol/messages";
import { LIMITS } from "../protocol/messages";
import { ratingChangeText } from "../players/model";

/** The stroke of an attempt, as POSTed (the WebSocket stroke's fields and limits). */
export interface PuzzleStroke {
  phi_deg: number;
  a: number;
  b: number;
  theta_deg: number;
  V0: number;
}

export interface PuzzleCall {
  ball: number;
  pocket: string;
}

/** A logged-in player's standing on a puzzle (null for a guest). */
export interface PuzzleMe {
  attempts: number;
  solved: boolean;
  rating: number;
  rd: number;
}

/** GET /api/puzzles/daily and /api/puzzles/<id>: PuzzleView of the contract. */
export interface Puzzle {
  id: number;
  discipline: string;
  goal: "pot" | "carom";
  goal_text: string;
  position: string;
  table: Preset;
  balls: Map<number, Vec2>;
  cue_ball: number;
  rating: number;
  rd: number;
  plays: number;
  wins: number;
  source: { game: string | null; stroke: number | null };
  me: PuzzleMe | null;
  /** the next puzzle's id (after the last, the first); null when there is no other */
  next: number | null;
}

/** A stroke as a replay keeps it: the simulation (`sim`, SimResult JSON) and/or the wire log (`log`). */
export interface StrokeRecord {
  sim?: unknown;
  log?: unknown;
  diamonds?: unknown;
  [k: string]: unknown;
}

export interface AttemptResult {
  solved: boolean;
  ruling: Ruling;
  stroke: StrokeRecord;
  solution: { stroke: PuzzleStroke; call: PuzzleCall | null; record: StrokeRecord };
  attempt: number;
  rating: null | { player: { before: number; after: number; rd: number }; puzzle: { before: number; after: number } };
}

const fin = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
const isInt = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x);
const obj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === "object" && !Array.isArray(x);

/** The position's code may open `#/practice/<code>` only when it looks like one (base64url, at most 128). */
export const POSITION_CODE = /^[A-Za-z0-9_-]{1,128}$/;

function strokeOf(x: unknown): PuzzleStroke | null {
  if (!obj(x)) return null;
  const { phi_deg, a, b, theta_deg, V0 } = x;
  if (!fin(phi_deg) || !fin(a) || !fin(b) || !fin(theta_deg) || !fin(V0)) return null;
  return { phi_deg, a, b, theta_deg, V0 };
}

function callOf(x: unknown): PuzzleCall | null {
  if (!obj(x) || !isInt(x.ball) || typeof x.pocket !== "string") return null;
  return { ball: x.ball, pocket: x.pocket };
}

function presetOf(x: unknown): Preset | null {
  if (!obj(x)) return null;
  const p = x as unknown as Preset;
  if ((p.kind !== "pool" && p.kind !== "carom") || !fin(p.length) || !fin(p.width) || !obj(p.ball) || !fin(p.ball.radius) || !obj(p.cloth)) return null;
  if (!Array.isArray(p.cushions) || !Array.isArray(p.pockets)) return null;
  return p;
}

/** A PuzzleView read from the server's JSON, or null when it is not one (the page says so). */
export function parsePuzzle(x: unknown): Puzzle | null {
  if (!obj(x)) return null;
  const table = presetOf(x.table);
  if (!table || !isInt(x.id) || x.id <= 0 || typeof x.discipline !== "string" || (x.goal !== "pot" && x.goal !== "carom")) return null;
  if (typeof x.goal_text !== "string" || typeof x.position !== "string" || !isInt(x.cue_ball) || !obj(x.balls)) return null;
  const balls = new Map<number, Vec2>();
  for (const [k, v] of Object.entries(x.balls)) {
    if (!/^\d{1,2}$/.test(k) || !Array.isArray(v) || v.length !== 2 || !fin(v[0]) || !fin(v[1])) return null;
    balls.set(Number(k), [v[0], v[1]]);
  }
  if (!balls.has(x.cue_ball)) return null;
  const src = obj(x.source) ? x.source : {};
  let me: PuzzleMe | null = null;
  if (obj(x.me)) {
    const m = x.me;
    if (!isInt(m.attempts) || typeof m.solved !== "boolean" || !fin(m.rating) || !fin(m.rd)) return null;
    me = { attempts: m.attempts, solved: m.solved, rating: m.rating, rd: m.rd };
  }
  return {
    id: x.id,
    discipline: x.discipline,
    goal: x.goal,
    goal_text: x.goal_text,
    position: x.position,
    table,
    balls,
    cue_ball: x.cue_ball,
    rating: fin(x.rating) ? x.rating : 1500,
    rd: fin(x.rd) ? x.rd : 350,
    plays: isInt(x.plays) ? x.plays : 0,
    wins: isInt(x.wins) ? x.wins : 0,
    source: { game: typeof src.game === "string" ? src.game : null, stroke: isInt(src.stroke) ? src.stroke : null },
    me,
    next: isInt(x.next) && x.next > 0 ? x.next : null,
  };
}

/** An attempt's answer read from the server's JSON, or null when it is not one. */
export function parseAttempt(x: unknown): AttemptResult | null {
  if (!obj(x) || typeof x.solved !== "boolean" || !obj(x.ruling) || !obj(x.stroke) || !obj(x.solution) || !isInt(x.attempt)) return null;
  const sol = x.solution;
  const stroke = strokeOf(sol.stroke);
  if (!stroke || !obj(sol.record)) return null;
  let rating: AttemptResult["rating"] = null;
  if (obj(x.rating)) {
    const p = x.rating.player;
    const q = x.rating.puzzle;
    if (obj(p) && obj(q) && fin(p.before) && fin(p.after) && fin(q.before) && fin(q.after)) {
      rating = { player: { before: p.before, after: p.after, rd: fin(p.rd) ? p.rd : 0 }, puzzle: { before: q.before, after: q.after } };
    }
  }
  const ruling = { ...(x.ruling as object), text: typeof x.ruling.text === "string" ? x.ruling.text : "" } as Ruling;
  return { solved: x.solved, ruling, stroke: x.stroke as StrokeRecord, solution: { stroke, call: callOf(sol.call), record: sol.record as StrokeRecord }, attempt: x.attempt, rating };
}

/** The controls' values (StrokeControls.state): aim phi, cue speed V0, tip a/b, elevation theta. */
export interface ControlValues {
  phi: number;
  V0: number;
  a: number;
  b: number;
  theta: number;
}

/**
 * The body of `POST /api/puzzles/<id>/attempt` for the stroke set in the controls: `{"stroke":
 * {...}, "call": {...}}` at a 14.1 ("pot") puzzle, `{"stroke": {...}}` at a carom one; or `{error}`
 * in words when it cannot be sent (no call at a 14.1 puzzle, a value outside the protocol's limits).
 */
export function attemptBody(goal: "pot" | "carom", s: ControlValues, call: { ball: number | null; pocket: string | null }): { body: { stroke: PuzzleStroke; call?: PuzzleCall } } | { error: string } {
  const stroke: PuzzleStroke = { phi_deg: s.phi, a: s.a, b: s.b, theta_deg: s.theta, V0: s.V0 };
  if (!Object.values(stroke).every(fin)) return { error: "The stroke has a value that is not a number." };
  if (stroke.phi_deg < LIMITS.PHI_DEG_MIN || stroke.phi_deg > LIMITS.PHI_DEG_MAX) return { error: "The aim must be within -360 to 360 degrees." };
  if (!(stroke.V0 > 0 && stroke.V0 <= LIMITS.V0_MAX)) return { error: `The cue speed must be more than 0 and at most ${LIMITS.V0_MAX} m/s.` };
  if (Math.hypot(stroke.a, stroke.b) > LIMITS.TIP_OFFSET_MAX + 1e-12) return { error: "The tip is outside the miscue circle." };
  if (stroke.theta_deg < 0 || stroke.theta_deg > LIMITS.THETA_DEG_MAX) return { error: `The elevation must be within 0 to ${LIMITS.THETA_DEG_MAX} degrees.` };
  if (goal === "carom") return { body: { stroke } };
  if (call.ball === null || !call.pocket) return { error: "Call a ball and a pocket first: click a ball, then a pocket." };
  return { body: { stroke, call: { ball: call.ball, pocket: call.pocket } } };
}

/** "Solved" or "Missed", and "(attempt 3)". */
export function verdictText(r: Pick<AttemptResult, "solved" | "attempt">): string {
  return `${r.solved ? "Solved" : "Missed"} (attempt ${r.attempt})`;
}

/** The rating change of a logged-in player's first attempt, "Your puzzle rating: 1500 → 1523 (+23)"; null when none. */
export function ratingLine(r: Pick<AttemptResult, "rating">): string | null {
  if (!r.rating) return null;
  return `Your puzzle rating: ${ratingChangeText(r.rating.player.before, r.rating.player.after)}`;
}

/** The puzzle's own rating after an attempt moved it, "Puzzle rating: 1600 → 1584 (-16)"; null when none. */
export function puzzleRatingLine(r: Pick<AttemptResult, "rating">): string | null {
  if (!r.rating) return null;
  return `Puzzle rating: ${ratingChangeText(r.rating.puzzle.before, r.rating.puzzle.after)}`;
}

/** What to tell the player about a failed puzzle request (404 no_puzzle, 429, the network, a refused field). */
export function puzzleErrorText(r: { status: number; code: string; message: string }, daily = false): string {
  if (r.code === "no_puzzle" || (r.status === 404 && !r.code)) return daily ? "There is no puzzle of the day yet: no puzzle has been made from the games played so far." : "There is no such puzzle.";
  if (r.code === "bad_id") return "This puzzle link is not valid.";
  if (r.status === 429 || r.code === "too_many_attempts") return "Too many attempts from here: wait a minute and try again.";
  if (r.code === "bad_field" || r.code === "bad_json") return `The server refused the attempt${r.message ? `: ${r.message}` : "."}`;
  return apiErrorText(r);
}

/** The error words of an ApiResult that failed, or of one whose data was not what the contract says. */
export function resultError<T>(r: ApiResult<T>, daily = false): string {
  return r.ok ? "The server's answer was not understood." : puzzleErrorText(r, daily);
}

// ----- a guest's attempts, in this browser ---------------------------------------------------------

/** localStorage key of a guest's attempts: {"<puzzle id>": {"attempts": n, "solved": bool}}. */
export const GUEST_KEY = "billar.puzzles";
/** At most this many puzzles are remembered (the oldest entries go first). */
export const GUEST_MAX = 500;

export interface GuestRecord {
  attempts: number;
  solved: boolean;
}

type StorageLike = Pick<Storage, "getItem" | "setItem">;

function readGuest(store: StorageLike): Record<string, GuestRecord> {
  let raw: unknown;
  try {
    raw = JSON.parse(store.getItem(GUEST_KEY) ?? "{}");
  } catch {
    return {};
  }
  if (!obj(raw)) return {};
  const out: Record<string, GuestRecord> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (/^\d{1,15}$/.test(k) && obj(v) && isInt(v.attempts) && v.attempts >= 0 && typeof v.solved === "boolean") out[k] = { attempts: v.attempts, solved: v.solved };
  }
  return out;
}

/** A guest's record of puzzle `id` in this browser (none yet: 0 attempts, not solved). */
export function guestRecord(id: number, store: StorageLike = localStorage): GuestRecord {
  return readGuest(store)[String(id)] ?? { attempts: 0, solved: false };
}

/** Count one attempt of puzzle `id` (solved stays true once it was); returns the new record. */
export function noteGuestAttempt(id: number, solved: boolean, store: StorageLike = localStorage): GuestRecord {
  const all = readGuest(store);
  const key = String(id);
  const prev = all[key] ?? { attempts: 0, solved: false };
  delete all[key]; // re-inserted last: the most recent at the end
  const rec = { attempts: prev.attempts + 1, solved: prev.solved || solved };
  all[key] = rec;
  const keys = Object.keys(all);
  // (integer-like keys keep ascending order in a JS object, so trim by the smallest ids)
  for (const k of keys.slice(0, Math.max(0, keys.length - GUEST_MAX))) delete all[k];
  try {
    store.setItem(GUEST_KEY, JSON.stringify(all));
  } catch {
    // storage full or refused: the count is shown for this page only
  }
  return rec;
}

/** "Your attempts: 2, solved" / "Your attempts: 0" (an account's `me`, or a guest's record). */
export function standingText(r: { attempts: number; solved: boolean } | null): string {
  if (!r) return "";
  return `Your attempts: ${r.attempts}${r.attempts ? (r.solved ? ", solved" : ", not solved yet") : ""}`;
}

/** "Played 40 times, solved 12 (30%)". */
export function playsText(p: Pick<Puzzle, "plays" | "wins">): string {
  if (!p.plays) return "Not played yet";
  return `Played ${p.plays} time${p.plays === 1 ? "" : "s"}, solved ${p.wins} (${Math.round((100 * p.wins) / p.plays)}%)`;
}

// ----- the stroke of an answer, as an animation ----------------------------------------------------

/** The event log of a stroke record (its wire `log`, else its `sim`), or null when it has neither or they are malformed. */
export function recordLog(rec: StrokeRecord | null | undefined, preset: Preset): ShotLog | null {
  if (!rec) return null;
  const cloth = clothOf(preset);
  try {
    if (obj(rec.log)) return ShotLog.fromWire(rec.log, cloth, presetNames(preset));
  } catch {
    // fall back to the simulation's JSON
  }
  try {
    if (obj(rec.sim)) return ShotLog.fromSimJson(rec.sim, cloth);
  } catch {
    return null;
  }
  return null;
}

/** "aim 12.35°, power 2.10 m/s (cue speed 1.02 m/s), tip a 0.10 b -0.20, elevation 0.0°": the solution's stroke in
 * words, with the values the controls take (the power box is the cue ball's speed: `speed`, from the cue speed V0 by
 * physics/cue.ts; left out when not known). */
export function strokeWords(s: PuzzleStroke, call: PuzzleCall | null = null, speed: number | null = null): string {
  const power = speed !== null && Number.isFinite(speed) ? `power ${speed.toFixed(2)} m/s (cue speed ${s.V0.toFixed(2)} m/s)` : `cue speed ${s.V0.toFixed(2)} m/s`;
  const parts = [`aim ${s.phi_deg.toFixed(2)}\u00b0`, power, `tip a ${s.a.toFixed(2)} b ${s.b.toFixed(2)}`, `elevation ${s.theta_deg.toFixed(1)}\u00b0`];
  if (call) parts.unshift(`ball ${call.ball} in ${call.pocket}`);
  return parts.join(", ");
}
