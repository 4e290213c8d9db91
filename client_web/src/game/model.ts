/**
 * What a client knows about one table: the table's versioned stream (docs/protocol.md) applied in
 * order. A snapshot replaces everything; every other stream message must carry the next version,
 * or the model reports a gap so the client asks the server to catch it up (watch / resume with v).
 */

import { ShotLog, clothOf, presetNames, PresetNames } from "../physics/shotlog";
import { GameHistory, entryFromRuling, entryFromStroke } from "./history";
import { PROVISIONAL_RD } from "../players/model";
import type { Cloth } from "../physics/motion";
import type {
  ChatLine,
  Clock,
  GameState,
  PlayedShot,
  PracticeInfo,
  Preset,
  RatingChange,
  Ruling,
  SeatEntry,
  StreamMsg,
  TableSnapshot,
} from "../protocol/messages";

export interface PlayedStroke {
  v: number;
  log: ShotLog;
  shots: PlayedShot[];
  ruling: Ruling;
  /** the position after the stroke (spotting and re-racks applied) */
  state: GameState;
  /** true for a lag (both players' strokes in one log) */
  lag: boolean;
  /** the event log as it came on the wire (protocol/eventlog.py) */
  raw: any;
}

export type ApplyResult =
  | { kind: "ignored" }
  | { kind: "gap"; have: number; got: number }
  | { kind: "snapshot" }
  | { kind: "stroke"; stroke: PlayedStroke }
  | { kind: "ruling" }
  | { kind: "seats" }
  | { kind: "chat"; line: ChatLine }
  | { kind: "rematch" }
  | { kind: "position" };

export class TableModel {
  v = -1;
  /** version of the last message that carried a position (snapshot, stroke, ruling) */
  stateV = -1;
  game = 0;
  discipline = "";
  config: Record<string, any> = {};
  preset!: Preset;
  cloth!: Cloth;
  names!: PresetNames;
  isPrivate = false;
  seats: (SeatEntry | null)[] = [null, null];
  /** the names of the current game's players, kept when a seat is given up (a player who left a game is still
   * its player: the history, the rulings and the summary name them) */
  private gameNames: (string | null)[] = [null, null];
  spectators = 0;
  state!: GameState;
  clock: Clock | null = null;
  chat: ChatLine[] = [];
  rematch: boolean[] = [false, false];
  lastStroke: PlayedStroke | null = null;
  /** a practice table's steps taken back by undo, the latest last (a placement's is null): redo gives the last back */
  private undone: (PlayedStroke | null)[] = [];
  lastRuling: Ruling | null = null;
  /** the table's games count for ratings */
  rated = false;
  /** a rated game's rating changes, once the server has recorded the game (`game_rated`) */
  ratedResult: { game: number; ratings: RatingChange[] } | null = null;
  /** a practice table's entry (null at a game table) */
  practice: PracticeInfo | null = null;
  /** the strokes and rulings of the current game, oldest first */
  readonly history = new GameHistory();

  constructor(readonly id: string) {}

  get loaded(): boolean {
    return this.v >= 0;
  }

  apply(m: StreamMsg): ApplyResult {
    if (m.type === "table_snapshot") {
      if (this.loaded && m.v < this.v) return { kind: "ignored" };
      this.load(m);
      return { kind: "snapshot" };
    }
    if (!this.loaded || m.v <= this.v) return { kind: "ignored" };
    if (m.v !== this.v + 1) return { kind: "gap", have: this.v, got: m.v };
    this.v = m.v;
    switch (m.type) {
      case "stroke": {
        const wasLag = m.shots.length > 1 || this.state?.phase === "lag";
        const stroke: PlayedStroke = {
          v: m.v,
          log: ShotLog.fromWire(m.log, this.cloth, this.names),
          shots: m.shots,
          ruling: m.ruling,
          state: m.state,
          lag: wasLag,
          raw: m.log,
        };
        this.game = m.game;
        this.state = m.state;
        this.stateV = m.v;
        this.clock = m.clock;
        this.lastStroke = stroke;
        this.undone = [];
        this.lastRuling = m.ruling;
        this.rematch = [false, false];
        if (m.practice) this.practice = m.practice;
        if (m.game !== this.history.game) this.history.load(m.game, undefined, wasLag);
        this.history.append(entryFromStroke(m, stroke.log, wasLag, this.history.nextIndex(), this.preset));
        return { kind: "stroke", stroke };
      }
      case "ruling":
        this.game = m.game;
        this.state = m.state;
        this.stateV = m.v;
        this.clock = m.clock;
        this.lastRuling = m.ruling;
        if (m.game !== this.history.game) this.history.load(m.game, undefined);
        this.history.append(entryFromRuling(m, this.history.nextIndex()));
        return { kind: "ruling" };
      case "seats":
        this.seats = m.seats;
        this.noteNames(false);
        if (m.clock !== undefined) this.clock = m.clock;
        return { kind: "seats" };
      case "chat": {
        const line = { seat: m.seat, name: m.name, text: m.text, ts: m.ts };
        this.chat.push(line);
        if (this.chat.length > 200) this.chat.shift();
        return { kind: "chat", line };
      }
      case "rematch":
        this.rematch = m.offers;
        return { kind: "rematch" };
      case "position":
        // a practice table's placement, undo, redo or reset: a new position without a stroke
        this.state = m.state;
        this.stateV = m.v;
        this.practice = m.practice;
        // undo keeps the stroke it took back, redo brings it back (Retry after Undo, Redo plays it again; QA)
        if (m.cause === "undo") this.undone.push(this.lastStroke);
        else if (m.cause !== "redo") this.undone = [];
        this.lastStroke = m.cause === "redo" ? this.undone.pop() ?? null : null;
        this.lastRuling = null;
        return { kind: "position" };
    }
    return { kind: "ignored" };
  }

  private load(m: TableSnapshot): void {
    this.undone = [];
    const newGame = m.game !== this.game;
    this.v = m.v;
    this.stateV = m.v;
    this.game = m.game;
    this.discipline = m.discipline;
    this.config = m.config;
    this.preset = m.preset;
    this.cloth = clothOf(m.preset);
    this.names = presetNames(m.preset);
    this.isPrivate = m.private;
    this.seats = m.seats;
    this.spectators = m.spectators;
    this.state = m.state;
    this.clock = m.clock;
    this.chat = [...m.chat];
    this.rematch = m.rematch;
    this.rated = m.rated === true;
    this.practice = m.practice ?? null;
    this.ratedResult = Array.isArray(m.rated_result) && m.rated_result.length ? { game: m.game, ratings: m.rated_result } : newGame ? null : this.ratedResult;
    if (newGame) {
      this.lastStroke = null;
      this.lastRuling = null;
    }
    // without a history from the server, a snapshot of the lag is still the start of the game
    this.history.load(m.game, m.history, m.state.phase === "lag");
    // a snapshot with a history shows the last ruling of the game too (a reload, a late spectator)
    if (!this.lastRuling && this.history.entries.length) this.lastRuling = this.history.entries[this.history.entries.length - 1].ruling;
    this.noteNames(newGame);
  }

  /** Keep the seated players' names as the current game's (a new game starts from the seats alone). */
  private noteNames(newGame: boolean): void {
    this.gameNames = [0, 1].map((s) => {
      const n = this.seats[s]?.name;
      return typeof n === "string" && n ? n : newGame ? null : this.gameNames[s] ?? null;
    });
  }

  /** The name of seat `s`'s player in the current game: the seated player's, else the one who left it, else
   * the name in the game's rating changes, else "Player 1" / "Player 2". */
  playerName(s: number): string {
    const n = this.seats[s]?.name || this.gameNames[s] || this.ratingChangeOf(s)?.name;
    return typeof n === "string" && n ? n : `Player ${s + 1}`;
  }

  /** Both players' names (see `playerName`), for the words of rulings and history entries. */
  playerNames(): string[] {
    return [this.playerName(0), this.playerName(1)];
  }

  /** A `game_rated` message (not versioned): kept when it names this table's current game. */
  applyRated(game: number, ratings: RatingChange[]): boolean {
    if (!Array.isArray(ratings) || game !== this.game) return false;
    this.ratedResult = { game, ratings };
    // the scoreboard shows the new ratings, as the server's seats now do (QA: it kept the old ones)
    for (const r of ratings) {
      const seat = this.seats[r?.seat];
      if (seat && seat.name === r.name && typeof r.after === "number")
        this.seats[r.seat] = { ...seat, rating: r.after,
                               provisional: typeof r.provisional === "boolean" ? r.provisional : r.rd_after >= PROVISIONAL_RD };
    }
    return true;
  }

  /** A rated table's game that ended by a forfeit before both players had played a stroke: recorded, not rated
   * (the server marks that ruling `aborted`). */
  aborted(): boolean {
    const last = this.history.entries[this.history.entries.length - 1];
    return !!this.state?.over && last?.ruling?.aborted === true;
  }

  /** The rating change of seat `s` in the current game, if the server has told it. */
  ratingChangeOf(s: number): RatingChange | null {
    if (!this.ratedResult || this.ratedResult.game !== this.game) return null;
    return this.ratedResult.ratings.find((r) => r.seat === s) ?? null;
  }

  /** Ball id -> [x, y] of the current position. */
  layout(): Map<number, [number, number]> {
    const out = new Map<number, [number, number]>();
    for (const [k, p] of Object.entries(this.state?.layout ?? {})) out.set(Number(k), [p[0], p[1]]);
    return out;
  }
}
