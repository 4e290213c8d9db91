/**
 * The scoreboard: both players with score (negative allowed), target or distance, innings,
 * current run, high run, average, successive fouls; the inning, rack and balls left (14.1);
 * sets, zone state (entran / dentro) and match table (carom); the shot clock; the last ruling.
 * Reads the two scoreboard shapes of rules/README.md (14.1 per-player boards, carom arrays).
 */

import type { Clock, GameState, Ruling, SeatEntry } from "../protocol/messages";
import { disciplineLabel, namedRuling, PHASES } from "../game/names";
import { seatRatingText } from "../players/model";
import { fmt, h, kids } from "./dom";

export interface SeatLine {
  score: number;
  target: number | null;
  innings: number | null;
  run: number | null;
  highRun: number | null;
  average: number | null;
  foulsInRow: number | null;
}

export interface Board {
  seats: [SeatLine, SeatLine];
  shooter: number | null;
  facts: [string, string][];
}

const n = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The two scoreboard shapes in one: per seat lines and labelled facts. */
export function normalizeScoreboard(sb: Record<string, any>): Board {
  const facts: [string, string][] = [];
  if (Array.isArray(sb.players)) {
    // 14.1: per-player boards
    const seats = [0, 1].map((s) => {
      const p = sb.players[s] ?? {};
      return {
        score: n(p.score) ?? n(sb.scores?.[s]) ?? 0,
        target: n(p.target),
        innings: n(p.innings),
        run: n(p.run),
        highRun: n(p.high_run),
        average: n(p.average),
        foulsInRow: n(p.fouls_in_row) ?? n(sb.fouls_in_row?.[s]),
      };
    }) as [SeatLine, SeatLine];
    if (n(sb.rack) !== null) facts.push(["Rack", String(sb.rack)]);
    if (n(sb.balls_on_table) !== null) facts.push(["Balls on table", String(sb.balls_on_table)]);
    return { seats, shooter: n(sb.shooter), facts };
  }
  // carom: arrays per seat
  const striker = n(sb.striker);
  const seats = [0, 1].map((s) => ({
    score: n(sb.scores?.[s]) ?? 0,
    target: n(sb.distance),
    innings: n(sb.innings?.[s]),
    run: striker === s ? n(sb.run) : 0,
    highRun: n(sb.high_run?.[s]),
    average: n(sb.average?.[s]),
    foulsInRow: n(sb.fouls_in_row?.[s]),
  })) as [SeatLine, SeatLine];
  if (sb.game_discipline) facts.push(["Game", disciplineLabel(sb.game_discipline)]);
  if (n(sb.distance) !== null) facts.push(["Distance", String(sb.distance)]);
  if (n(sb.inning) !== null) facts.push(["Inning", String(sb.inning)]);
  if (sb.sets) facts.push(["Sets", `${sb.sets.won?.[0] ?? 0} : ${sb.sets.won?.[1] ?? 0} (set ${Number(sb.sets.set ?? 0) + 1}, best of ${2 * sb.sets.sets_to_win - 1})`]);
  const zones = sb.zones && typeof sb.zones === "object" ? Object.entries(sb.zones as Record<string, string>) : [];
  if (zones.length) facts.push(["Zones", zones.map(([z, st]) => `${z}: ${st === "in" ? "entran" : st === "inside" ? "dentro" : st}`).join(", ")]);
  if (Array.isArray(sb.announce) && sb.announce.length) facts.push(["Referee", sb.announce.join(", ")]);
  if (sb.equalizing) facts.push(["Equalizing inning", "yes"]);
  const m = sb.match;
  if (m && Array.isArray(m.match_points) && Array.isArray(m.order)) {
    // pentathlon / triathlon: game k of n and the match points so far
    facts.push(["Match", `game ${Number(m.index ?? 0) + 1} of ${m.order.length}, points ${m.match_points[0]} : ${m.match_points[1]}`]);
  }
  return { seats, shooter: striker, facts };
}

/**
 * A practice table's state as its seats show it. The player shoots from seat 0 (a coach may also shoot from seat
 * 1), but the referee's ``to_act`` is the seat whose cue ball is struck: at a carom position played with the
 * yellow that is the referee's seat 1 (QA: the marker stood on "Practice: no opponent" and the player's box
 * showed the white). Here the player's seat acts and carries the striker's ball; other states pass unchanged.
 */
export function practiceSeats(st: GameState): GameState {
  if (st.to_act === null || st.to_act === undefined || st.to_act === 0) return st;
  const sb = st.scoreboard ?? {};
  const white = sb.white_seat;
  const scoreboard = white === 0 || white === 1 ? { ...sb, white_seat: white === st.to_act ? 0 : 1 } : sb;
  return { ...st, to_act: 0, scoreboard };
}

/** The board of a practice table: no target or distance (points to reach mean nothing where nothing is scored). */
export function withoutTarget(b: Board): Board {
  return {
    ...b,
    seats: b.seats.map((l) => ({ ...l, target: null })) as [SeatLine, SeatLine],
    facts: b.facts.filter(([k]) => k !== "Distance"),
  };
}

export class Scoreboard {
  readonly el: HTMLElement;
  private seatEls: HTMLElement[];
  private mid: HTMLElement;

  constructor() {
    this.seatEls = [0, 1].map((s) => h("div", { class: `seat seat-${s}`, "data-seat": s }));
    this.mid = h("div", { class: "mid" });
    this.el = h("div", { class: "scoreboard" }, this.seatEls[0], this.mid, this.seatEls[1]);
  }

  /** ``emptySeat``: what a free seat is called ("Open seat"; at a practice table the coach's seat).
   * ``practice``: nothing is played to a target there, so the target ("of 100") and the distance are not shown. */
  render(discipline: string, state: GameState, seats: (SeatEntry | null)[], mySeat: number | null, clock: Clock | null, clockLeft: number | null, emptySeat = "Open seat", practice = false): void {
    const b = practice ? withoutTarget(normalizeScoreboard(state.scoreboard ?? {})) : normalizeScoreboard(state.scoreboard ?? {});
    const toAct = state.to_act;
    for (const s of [0, 1]) {
      const line = b.seats[s];
      const seat = seats[s];
      const stat = (label: string, v: string, key: string) => h("div", { class: "stat" }, h("span", { class: "k" }, label), h("span", { class: "v", "data-testid": `${key}-${s}` }, v));
      const name = seat ? seat.name || `Player ${s + 1}` : emptySeat;
      const conn = seat ? (seat.connected ? "online" : "away") : "empty";
      const fouls = line.foulsInRow ?? 0;
      const rating = seatRatingText(seat);
      this.seatEls[s].className = `seat seat-${s}${toAct === s && !state.over ? " to-act" : ""}${mySeat === s ? " mine" : ""}`;
      this.seatEls[s].replaceChildren(
        ...kids(
        h(
          "div",
          { class: "who" },
          h("span", { class: `dot ${conn}`, title: conn }),
          h("span", { class: "name", "data-testid": `name-${s}` }, name),
          mySeat === s ? h("span", { class: "you", "data-testid": `you-${s}` }, "(you)") : null,
          rating !== null
            ? h("span", { class: "seat-rating", "data-testid": `seat-rating-${s}`, title: seat?.provisional ? "Rating (provisional: too few games to be sure)" : "Rating" }, rating)
            : null,
          state.scoreboard?.white_seat !== undefined && state.scoreboard?.white_seat !== null
            ? h("span", { class: `cue-chip ${state.scoreboard.white_seat === s ? "white" : "yellow"}`, title: "cue ball" })
            : null,
        ),
        h("div", { class: "score", "data-testid": `score-${s}` }, String(line.score)),
        h("div", { class: "target" }, line.target !== null ? `of ${line.target}` : ""),
        h(
          "div",
          { class: "stats" },
          stat("Run", fmt(line.run), "run"),
          stat("High run", fmt(line.highRun), "high-run"),
          stat("Innings", fmt(line.innings), "innings"),
          stat("Average", fmt(line.average, 3), "average"),
          h("div", { class: `stat fouls${fouls >= 2 ? " warn" : ""}` }, h("span", { class: "k" }, "Fouls in a row"), h("span", { class: "v", "data-testid": `fouls-${s}` }, fmt(line.foulsInRow))),
        ),
        seat && !seat.connected && seat.grace_until ? h("div", { class: "away-note" }, "disconnected: seat held") : null,
        ),
      );
    }
    const phase = PHASES[state.phase] ?? state.phase;
    const clockEl =
      clock && clockLeft !== null
        ? h("div", { class: `clock${clockLeft < 10 ? " low" : ""}`, "data-testid": "shot-clock" }, `${Math.max(0, clockLeft).toFixed(0)} s`)
        : null;
    this.mid.replaceChildren(
      ...kids(h("div", { class: "disc" }, disciplineLabel(discipline))),
      h("div", { class: "phase", "data-testid": "phase" }, phase),
      ...kids(clockEl),
      ...b.facts.map(([k, v]) => h("div", { class: "fact" }, h("span", { class: "k" }, k), " ", h("span", { class: "v" }, v))),
    );
  }
}

/**
 * The ruling in words, e.g. "Foul: no rail after contact, -1", with the players' names where it
 * names a seat (`namedRuling`; `names[seat]`, none given: the referee's words).
 */
export function rulingText(r: Ruling | null, discipline = "", names: readonly (string | null | undefined)[] = []): string {
  if (!r) return "";
  if (r.text) return namedRuling(r.text, discipline, names);
  if (r.foul) return `Foul: ${r.foul.replace(/_/g, " ")}${r.penalty ? `, -${r.penalty}` : ""}`;
  return "";
}
