/**
 * What a client knows about one table: the table's versioned stream (docs/protocol.md) applied in
 * order. A snapshot replaces everything; every other stream message must carry the next version,
 * or the model reports a gap so the client asks the server to catch it up (watch / resume with v).
 */

import { ShotLog, clothOf, presetNames, PresetNames } from "../physics/shotlog";
import type { Cloth } from "../physics/motion";
import type {
  ChatLine,
  Clock,
  GameState,
  PlayedShot,
  Preset,
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
  | { kind: "rematch" };

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
  spectators = 0;
  state!: GameState;
  clock: Clock | null = null;
  chat: ChatLine[] = [];
  rematch: boolean[] = [false, false];
  lastStroke: PlayedStroke | null = null;
  lastRuling: Ruling | null = null;

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
        this.lastRuling = m.ruling;
        this.rematch = [false, false];
        return { kind: "stroke", stroke };
      }
      case "ruling":
        this.game = m.game;
        this.state = m.state;
        this.stateV = m.v;
        this.clock = m.clock;
        this.lastRuling = m.ruling;
        return { kind: "ruling" };
      case "seats":
        this.seats = m.seats;
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
    }
    return { kind: "ignored" };
  }

  private load(m: TableSnapshot): void {
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
    if (newGame) {
      this.lastStroke = null;
      this.lastRuling = null;
    }
  }

  /** Ball id -> [x, y] of the current position. */
  layout(): Map<number, [number, number]> {
    const out = new Map<number, [number, number]>();
    for (const [k, p] of Object.entries(this.state?.layout ?? {})) out.set(Number(k), [p[0], p[1]]);
    return out;
  }
}
