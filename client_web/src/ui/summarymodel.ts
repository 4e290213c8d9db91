/**
 * The figures of the end-of-match summary (pure): from the final game state's scoreboard (points,
 * innings, high run, average) and the game's history (strokes played and fouls per player).
 */

import type { HistoryEntry } from "../game/history";
import type { GameState, SeatEntry } from "../protocol/messages";
import { normalizeScoreboard } from "./scoreboard";

/** What the summary reads of a table. */
export interface GameModelView {
  state: GameState;
  seats: (SeatEntry | null)[];
  history: { entries: HistoryEntry[]; complete: boolean };
  /** the name of seat `s`'s player in this game (also after they left the table) */
  playerName(s: number): string;
  /** a rated game forfeited before both players had played: recorded, not rated */
  aborted?(): boolean;
}

/** How a forfeit ended the game (the result's reason "forfeit: <why>", rules/), said of the loser. */
const FORFEIT = "forfeit: ";
const FORFEITS: Record<string, string> = { resigned: "resigned", left: "left the table", abandoned: "did not come back in time" };

export interface PlayerSummary {
  name: string;
  score: number;
  innings: number | null;
  highRun: number | null;
  average: number | null;
  strokes: number;
  fouls: number;
}

export interface Summary {
  winner: number | null;
  headline: string;
  players: [PlayerSummary, PlayerSummary];
}

export function summaryOf(m: GameModelView): Summary {
  const st = m.state;
  const b = normalizeScoreboard(st.scoreboard ?? {});
  const r = st.result ?? {};
  const scores: number[] = Array.isArray(r.scores) ? r.scores : [b.seats[0].score, b.seats[1].score];
  const winner = typeof r.winner === "number" ? r.winner : null;
  const name = (s: number) => m.playerName(s);
  const players = [0, 1].map((s) => {
    const mine = m.history.entries.filter((e) => e.seat === s);
    return {
      name: name(s),
      score: scores[s] ?? b.seats[s].score,
      innings: b.seats[s].innings,
      highRun: b.seats[s].highRun,
      average: b.seats[s].average,
      strokes: mine.filter((e) => e.kind === "stroke").length,
      fouls: mine.filter((e) => e.kind !== "decision" && !!e.ruling && (!!e.ruling.foul || (typeof e.ruling.penalty === "number" && e.ruling.penalty > 0))).length,
    };
  }) as [PlayerSummary, PlayerSummary];
  const sc = `${scores[0]} : ${scores[1]}`;
  // a forfeit says so (QA: "Ann wins, 0 : 0." after a resignation read like a game played out)
  const why = typeof r.reason === "string" && r.reason.startsWith(FORFEIT) ? FORFEITS[r.reason.slice(FORFEIT.length)] : undefined;
  const how = winner === null || !why ? "" : ` (${name(1 - winner)} ${why}${m.aborted?.() ? "; aborted before both had played" : ""})`;
  const headline = winner === null ? `A draw, ${sc}.` : `${name(winner)} wins, ${sc}${how}.`;
  return { winner, headline, players };
}
