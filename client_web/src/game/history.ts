/**
 * The stroke history of one game: one entry per stroke or ruling, oldest first, from the
 * `history` of a table snapshot (a spectator arriving mid-game, a reload), the live `stroke` and
 * `ruling` messages after it, or the strokes of a match record (the replay page). Each entry says
 * in words who did what and what the referee ruled; fouls and warnings are flagged.
 *
 * A snapshot's history carries no event logs: the log of an older entry comes from the game's
 * match record (`GET /records/<table>/<game>.json`, `strokes[i].sim`), fetched once (RecordCache).
 */

import type { Call, Ruling } from "../protocol/messages";
import { ShotLog } from "../physics/shotlog";
import type { Cloth } from "../physics/motion";
import { DISCIPLINES, POCKET_NAMES, namedRuling } from "./names";
import { DiamondContact, RailGeometry, cushionDiamonds, readoutText } from "./diamonds";

export type EntryKind = "stroke" | "lag" | "decision" | "timeout" | "forfeit";
const KINDS: readonly string[] = ["stroke", "lag", "decision", "timeout", "forfeit"];

export interface HistoryEntry {
  /** index of the entry in the game's match record (null when not known) */
  i: number | null;
  /** stream version of the message that brought it (-1 in a record) */
  v: number;
  kind: EntryKind;
  /** the seat that played or decided (null: a lag, both seats) */
  seat: number | null;
  call: Call | null;
  decision: { name: string; arg: unknown } | null;
  ruling: Ruling | null;
  /** the stroke's event log, when at hand (live strokes, records); else fetched from the record */
  log: ShotLog | null;
  /** carom strokes: the cue ball's cushion contacts in diamonds (the snapshot's `diamonds`, or read from the log) */
  diamonds: DiamondContact[] | null;
}

function diamondsOf(d: unknown): DiamondContact[] | null {
  if (!Array.isArray(d)) return null;
  const out: DiamondContact[] = [];
  for (const x of d) {
    if (!x || typeof x !== "object") return null;
    const o = x as Record<string, unknown>;
    if (!isInt(o.n) || typeof o.cushion !== "string" || (o.rail !== "long" && o.rail !== "short") || typeof o.diamond !== "number" || !Number.isFinite(o.diamond)) return null;
    out.push({ n: o.n, cushion: o.cushion, rail: o.rail, diamond: o.diamond });
  }
  return out;
}

/** The diamond readout of a carom stroke's log (null for pool tables, lags and strokes without a log). */
function readoutOf(kind: EntryKind, log: ShotLog | null, rails?: RailGeometry & { kind?: string }): DiamondContact[] | null {
  if (kind !== "stroke" || !log || !rails || rails.kind !== "carom") return null;
  return cushionDiamonds(rails, log);
}

const isInt = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x);

function callOf(c: unknown): Call | null {
  if (!c || typeof c !== "object") return null;
  const o = c as Record<string, unknown>;
  if (o.safety === true) return { safety: true };
  if (isInt(o.ball) && typeof o.pocket === "string") return { ball: o.ball, pocket: o.pocket };
  return null;
}

function decisionOf(d: unknown): { name: string; arg: unknown } | null {
  if (!d || typeof d !== "object") return null;
  const o = d as Record<string, unknown>;
  return typeof o.name === "string" ? { name: o.name, arg: o.arg ?? null } : null;
}

function rulingOf(r: unknown): Ruling | null {
  return r && typeof r === "object" && !Array.isArray(r) ? (r as Ruling) : null;
}

/**
 * One entry of a snapshot's `history` ({"i", "v", "kind", "seat", "call", "decision", "ruling"}),
 * or null when it is not one (the client shows what it can read and skips the rest).
 */
export function entryFromSnapshot(raw: unknown): HistoryEntry | null {
  if (!raw || typeof raw !== "object") return null;
  const o = raw as Record<string, unknown>;
  if (typeof o.kind !== "string" || !KINDS.includes(o.kind)) return null;
  return {
    i: isInt(o.i) && o.i >= 0 ? o.i : null,
    v: isInt(o.v) ? o.v : -1,
    kind: o.kind as EntryKind,
    seat: isInt(o.seat) ? o.seat : null,
    call: callOf(o.call),
    decision: decisionOf(o.decision),
    ruling: rulingOf(o.ruling),
    log: null,
    diamonds: diamondsOf(o.diamonds),
  };
}

/** The entry of a live `stroke` message (its log already parsed); `lag` when both seats played. */
export function entryFromStroke(m: { v: number; shots: { seat: number; call: Call }[]; ruling: Ruling }, log: ShotLog, lag: boolean, i: number | null, rails?: RailGeometry & { kind?: string }): HistoryEntry {
  const shot = m.shots[0];
  return {
    i,
    v: m.v,
    kind: lag ? "lag" : "stroke",
    seat: lag ? null : shot?.seat ?? null,
    call: lag ? null : callOf(shot?.call),
    decision: null,
    ruling: m.ruling,
    log,
    diamonds: readoutOf(lag ? "lag" : "stroke", log, rails),
  };
}

/** The entry of a live `ruling` message: a decision, a time-out, or a forfeit (resign, claim, abandon). */
export function entryFromRuling(m: { v: number; cause: string; seat: number | null; decision: { name: string; arg: unknown } | null; ruling: Ruling }, i: number | null): HistoryEntry {
  const kind: EntryKind = m.cause === "decision" ? "decision" : m.cause === "timeout" ? "timeout" : "forfeit";
  return { i, v: m.v, kind, seat: m.seat, call: null, decision: decisionOf(m.decision), ruling: m.ruling, log: null, diamonds: null };
}

/** A stroke of a match record (server/records.py export), with its SimResult JSON as the log. */
export interface RecordStroke {
  player?: number | null;
  call?: unknown;
  decision?: { name: string; arg: unknown } | null;
  sim?: any;
  ruling?: Ruling | null;
  lag?: boolean;
  timeout?: boolean;
  forfeit?: string;
  [k: string]: unknown;
}

/** The entry of stroke `i` of a record; `cloth` parses its log. */
export function entryFromRecord(s: RecordStroke, i: number, cloth: Cloth, rails?: RailGeometry & { kind?: string }): HistoryEntry {
  const kind: EntryKind = s.lag ? "lag" : s.decision ? "decision" : s.timeout ? "timeout" : s.forfeit ? "forfeit" : "stroke";
  const log = s.sim ? ShotLog.fromSimJson(s.sim, cloth) : null;
  return {
    i,
    v: -1,
    kind,
    seat: kind === "lag" ? null : isInt(s.player) ? s.player : null,
    call: callOf(s.call),
    decision: decisionOf(s.decision),
    ruling: rulingOf(s.ruling),
    log,
    diamonds: readoutOf(kind, log, rails),
  };
}

/**
 * The warning a ruling gives, or null: the server's `warning` ("two_fouls": 14.1 R16, WPA 4.11,
 * after a second successive foul the next one costs 15 more points). A server that does not send
 * the field yet: a 14.1 standard foul that leaves its player on two fouls in a row.
 */
export function warningOf(r: Ruling | null, discipline: string): "two_fouls" | null {
  if (!r) return null;
  if ("warning" in r) return r.warning === "two_fouls" ? "two_fouls" : null;
  if (discipline !== "straight_pool" || !r.foul || r.player === null || r.player === undefined) return null;
  return Array.isArray(r.fouls_in_row) && r.fouls_in_row[r.player] === 2 ? "two_fouls" : null;
}

/** What the words of a warning say (shown on the table and in the history). */
export function warningText(w: "two_fouls", name: string): string {
  return `Warning: ${name} is on two fouls in a row; a third successive foul costs 15 more points and a re-rack.`;
}

export interface EntryWords {
  /** the entry in one line: "Ann \u2014 ball 3 in the foot right pocket", "Ann chooses to break" */
  headline: string;
  /** who: the player's name, or "Lag" */
  who: string;
  /** what was done: the call, the decision, the time-out... */
  what: string;
  /** the referee's ruling in words, with the players' names */
  ruling: string;
  foul: boolean;
  warning: string | null;
  /** points the entry scored for its player (null when none or not a stroke) */
  points: number | null;
  /** the scores after it, when the ruling says */
  scores: number[] | null;
  /** carom strokes: the cue ball's cushions in diamonds, "Diamonds: 1 Lf 3.6, 2 R 5.5, 3 Lf 1.2" (null: none) */
  diamonds: string | null;
}

function pocketWords(p: string): string {
  return POCKET_NAMES[p] ? `the ${POCKET_NAMES[p]} pocket` : p;
}

/** A decision in words, third person: "Ann chooses to break", "Ann lets Bob break"... */
export function decisionWords(name: string, arg: unknown, seat: number | null, nameOf: (s: number) => string): string {
  const who = seat === null ? "The player" : nameOf(seat);
  switch (name) {
    case "CHOOSE_BREAKER":
      if (typeof arg === "number") return arg === seat ? `${who} chooses to break` : `${who} lets ${nameOf(arg)} break`;
      return `${who} chooses who breaks`;
    case "ACCEPT_TABLE":
      return `${who} accepts the table`;
    case "REQUIRE_REBREAK":
      return `${who} makes the opponent break again`;
    case "RERACK_OFFENDER_BREAKS":
      return `${who} has the balls re-racked; the offender breaks`;
    case "SPOT_REQUEST":
      return `${who} has ball ${String(arg)} spotted`;
    case "OFFER_STALEMATE":
      return `${who} offers a stalemate`;
    case "ACCEPT_STALEMATE":
      return `${who} accepts the stalemate`;
    case "DECLINE_STALEMATE":
      return `${who} declines the stalemate`;
    case "EXTENSION":
      return `${who} takes a time extension`;
    case "STARTING_SPOT":
      return `${who} breaks from the ${String(arg)} spot`;
    case "PLAY_ON":
      return `${who} plays on with the balls touching`;
    case "SET_UP":
      return `${who} has the balls set up again`;
    default: {
      const words = name.toLowerCase().replace(/_/g, " ");
      return arg === null || arg === undefined ? `${who}: ${words}` : `${who}: ${words} (${String(arg)})`;
    }
  }
}

/**
 * An entry in words for a table of `discipline` with the seated players' `names` (a seat with
 * no name is "Player 1" / "Player 2").
 */
export function describeEntry(e: HistoryEntry, discipline: string, names: readonly (string | null | undefined)[]): EntryWords {
  const nameOf = (s: number) => {
    const n = names[s];
    return typeof n === "string" && n.trim() ? n : `Player ${s + 1}`;
  };
  const pool = DISCIPLINES.find((d) => d.id === discipline)?.kind === "pool";
  const r = e.ruling;
  // (a ruling comes from the network: only strings are read as words)
  const rulingWords = typeof r?.text === "string" && r.text ? namedRuling(r.text, discipline, names) : typeof r?.foul === "string" ? `Foul: ${r.foul.replace(/_/g, " ")}` : "";
  let who = e.seat === null ? "" : nameOf(e.seat);
  let what = "";
  switch (e.kind) {
    case "lag":
      who = "Lag";
      what = "both players lag for the break";
      break;
    case "stroke":
      if (pool) {
        const c = e.call;
        what = c && "safety" in c ? "safety" : c && "ball" in c ? `ball ${c.ball} in ${pocketWords(c.pocket)}` : r?.break ? "break" : "no call";
      } else what = r?.break ? "break" : "stroke";
      break;
    case "decision":
      what = e.decision ? decisionWords(e.decision.name, e.decision.arg, e.seat, nameOf) : "decision";
      break;
    case "timeout":
      what = "the shot clock ran out";
      break;
    case "forfeit":
      what = "forfeits the game";
      break;
  }
  const warning = warningOf(r, discipline);
  const p = r && e.seat !== null && Array.isArray(r.points) ? r.points[e.seat] : undefined;
  const headline =
    e.kind === "stroke" ? `${who} \u2014 ${what}` : e.kind === "lag" ? "Lag for the break" : e.kind === "decision" ? what : e.kind === "timeout" ? `${who}: ${what}` : `${who} ${what}`;
  // a choice of breaker says it all in the headline; other decisions keep the referee's detail
  const ruling = e.kind === "decision" && e.decision?.name === "CHOOSE_BREAKER" ? "" : rulingWords;
  return {
    headline,
    who,
    what,
    ruling,
    foul: !!r && (!!r.foul || (typeof r.penalty === "number" && r.penalty > 0)),
    warning: warning && e.seat !== null ? warningText(warning, nameOf(e.seat)) : warning && r?.player != null ? warningText(warning, nameOf(r.player)) : null,
    points: e.kind === "stroke" && typeof p === "number" ? p : null,
    scores: r && Array.isArray(r.scores) && r.scores.every((x) => typeof x === "number") ? r.scores : null,
    diamonds: e.kind === "stroke" && !pool && e.diamonds && e.diamonds.length ? `Diamonds: ${readoutText(e.diamonds)}` : null,
  };
}

/**
 * The entries of the game a table is in. `load` takes a snapshot (its `history` when the server
 * sends one; without it the entries of the same game are kept, a new game starts empty); `append`
 * adds a live entry, its record index following the last known one.
 */
export class GameHistory {
  entries: HistoryEntry[] = [];
  game = -1;
  /** true when the entries start at the game's first one (the server sent the history) */
  complete = false;

  /**
   * A snapshot of game `game` arrived with `history` (undefined: a server without it);
   * `atStart`: its position is the game's first (nothing has been played, e.g. the lag).
   */
  load(game: number, history: unknown, atStart = false): void {
    if (Array.isArray(history)) {
      const live = new Map(this.entries.filter((e) => e.log).map((e) => [e.v, e.log!] as const));
      this.entries = history.map(entryFromSnapshot).filter((e): e is HistoryEntry => e !== null);
      for (const e of this.entries) e.log = live.get(e.v) ?? null; // logs already received live are kept
      this.complete = true;
    } else if (game !== this.game) {
      this.entries = [];
      this.complete = atStart;
    } else if (atStart && !this.entries.length) this.complete = true;
    this.game = game;
  }

  /** The record index the next live entry gets (null when the start of the game is unknown). */
  nextIndex(): number | null {
    if (!this.entries.length) return this.complete ? 0 : null;
    const last = this.entries[this.entries.length - 1].i;
    return last === null ? null : last + 1;
  }

  append(e: HistoryEntry): void {
    if (this.entries.some((x) => x.v === e.v && e.v >= 0)) return;
    this.entries.push(e);
  }
}

/**
 * Match records fetched once per (table, game): the logs of history entries that arrived without
 * one. `fetcher` is the page's fetch (injected for tests).
 */
export class RecordCache {
  private pending = new Map<string, Promise<any>>();

  constructor(private readonly fetcher: (url: string) => Promise<{ ok: boolean; status: number; json(): Promise<any> }> = (u) => fetch(u)) {}

  record(table: string, game: number): Promise<any> {
    const key = `${table}/${game}`;
    let p = this.pending.get(key);
    if (!p) {
      p = this.fetcher(`/records/${encodeURIComponent(table)}/${game}.json`).then((r) => {
        if (!r.ok) throw new Error(`no record (${r.status})`);
        return r.json();
      });
      p.catch(() => this.pending.delete(key)); // a failed fetch is tried again next time
      this.pending.set(key, p);
    }
    return p;
  }

  /** The log of entry `e` (from the record when the entry has none); null when the record has none. */
  async logOf(table: string, game: number, e: HistoryEntry, cloth: Cloth): Promise<ShotLog | null> {
    if (e.log) return e.log;
    if (e.i === null) return null;
    const rec = await this.record(table, game);
    const sim = rec?.strokes?.[e.i]?.sim;
    if (!sim) return null;
    e.log = ShotLog.fromSimJson(sim, cloth);
    return e.log;
  }
}
