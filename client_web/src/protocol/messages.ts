/**
 * The billar wire protocol as the browser speaks it (docs/protocol.md; the Python reference is
 * protocol/inbound.py and protocol/outbound.py). Client -> server messages are built by the
 * functions below; server -> client messages are typed as the interfaces below.
 */

export const PROTOCOL_VERSION = 1;
export const CLIENT_NAME = "billar-web/0.1";

/** Limits (protocol/limits.py). */
export const LIMITS = {
  MAX_NAME_CHARS: 32,
  MAX_CHAT_CHARS: 280,
  V0_MAX: 10.0, // m/s, V0 in (0, V0_MAX]
  TIP_OFFSET_MAX: 0.5, // sqrt(a^2 + b^2) in ball radii (miscue limit)
  THETA_DEG_MAX: 70.0,
  PHI_DEG_MIN: -360.0,
  PHI_DEG_MAX: 360.0,
} as const;

/** WebSocket close codes (protocol/errors.py CloseCode). */
export const CloseCode = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  PROTOCOL_ERROR: 1002,
  MESSAGE_TOO_BIG: 1009,
  INTERNAL_ERROR: 1011,
  SERVICE_RESTART: 1012,
  UNSUPPORTED_VERSION: 4000,
  HELLO_TIMEOUT: 4001,
  REPLACED: 4002,
  RATE_LIMITED: 4003,
  BACKPRESSURE: 4004,
  IDLE: 4005,
} as const;

export type Vec2 = [number, number];

// ----- client -> server --------------------------------------------------------------------

export interface Stroke {
  /** aim, degrees counter-clockwise from +x (the table's long axis) */
  phi_deg: number;
  /** cue speed, m/s, in (0, 10] */
  V0: number;
  /** side offset of the tip (+ right english), ball radii */
  a: number;
  /** vertical offset (+ follow), ball radii; sqrt(a^2 + b^2) <= 0.5 */
  b: number;
  /** cue elevation, degrees in [0, 70] */
  theta_deg: number;
}

export type Call = null | { safety: true } | { ball: number; pocket: string };

export const out = {
  hello: (name?: string) => ({ type: "hello", protocol: PROTOCOL_VERSION, name: name || undefined, client: CLIENT_NAME }),
  ping: (t?: number) => ({ type: "ping", t }),
  lobbySubscribe: () => ({ type: "lobby_subscribe" }),
  lobbyUnsubscribe: () => ({ type: "lobby_unsubscribe" }),
  quickPlay: (discipline: string, config: Record<string, unknown> = {}) => ({ type: "quick_play", discipline, config }),
  quickPlayCancel: () => ({ type: "quick_play_cancel" }),
  /** `computer`: a computer opponent of that level (1..5) takes the other seat; null: none (omitted). */
  createTable: (discipline: string, config: Record<string, unknown>, isPrivate: boolean, seat: number | null = 0, computer: number | null = null) => ({
    type: "create_table",
    discipline,
    config,
    private: isPrivate,
    seat,
    computer: computer ?? undefined,
  }),
  join: (table: string, seat?: number) => ({ type: "join", table, seat }),
  watch: (table: string, v?: number) => ({ type: "watch", table, v }),
  leave: (table: string, token?: string) => ({ type: "leave", table, token }),
  resume: (table: string, token: string, v?: number) => ({ type: "resume", table, token, v }),
  shot: (table: string, token: string, seq: number, stroke: Stroke, call?: Call, cueBall?: Vec2) => ({
    type: "shot",
    table,
    token,
    seq,
    stroke,
    call: call ?? undefined,
    cue_ball: cueBall,
  }),
  decision: (table: string, token: string, seq: number, name: string, arg: unknown = null) => ({ type: "decision", table, token, seq, name, arg }),
  resign: (table: string, token: string) => ({ type: "resign", table, token }),
  claim: (table: string, token: string) => ({ type: "claim", table, token }),
  rematchOffer: (table: string, token: string) => ({ type: "rematch_offer", table, token }),
  rematchAccept: (table: string, token: string) => ({ type: "rematch_accept", table, token }),
  chat: (table: string, text: string) => ({ type: "chat", table, text }),
};

// ----- server -> client --------------------------------------------------------------------

export interface Welcome {
  type: "welcome";
  protocol: number;
  session: string;
  player: string;
  name: string;
  ts: number;
  limits: Record<string, unknown>;
}

export interface ErrorMsg {
  type: "error";
  code: string;
  message: string;
  field?: string;
  ref?: string;
  table?: string;
  seq?: number;
  rule?: string;
  v?: number;
}

export interface LobbyEntry {
  table: string;
  discipline: string;
  seats: (string | null)[];
  scores: number[];
  status: "waiting" | "playing" | "paused" | "over";
  spectators: number;
  v: number;
  ts: number;
}

export interface SeatEntry {
  seat: number;
  player: string;
  name: string;
  connected: boolean;
  grace_until: number | null;
}

export interface ShootOptions {
  cue_ball: number | null;
  in_hand: null | { region: string; x_max?: number };
  call: "required" | "optional" | "none";
  balls: number[];
  pockets: string[];
  lag: boolean;
  lag_balls?: Record<string, number | Vec2>;
}

export interface DecisionOption {
  name: string;
  args: unknown[];
}

export interface Legal {
  player: number | null;
  phase: string;
  shoot: ShootOptions | null;
  decisions: DecisionOption[];
}

/** The position every stream message ends with (protocol/outbound.py game_state). */
export interface GameState {
  phase: string;
  to_act: number | null;
  layout: Record<string, Vec2>;
  scoreboard: Record<string, any>;
  legal: Legal | null;
  over: boolean;
  result: Record<string, any> | null;
  zones?: ZoneShape[];
}

export interface ZoneShape {
  name: string;
  kind: string;
  vertices: Vec2[];
  caroms: number;
}

export interface Clock {
  seat: number;
  limit_s: number;
  deadline: number;
}

export interface ChatLine {
  seat: number | null;
  name: string;
  text: string;
  ts: number;
}

export interface Ruling {
  player: number | null;
  points: number[];
  scores: number[];
  foul: string | null;
  fouls: string[];
  penalty: number;
  fouls_in_row: number[];
  next_player: number | null;
  cue_ball_in_hand: string | null;
  options: string[];
  game_over: boolean;
  winner: number | null;
  text: string;
  [extra: string]: unknown;
}

export interface PlayedShot {
  seat: number;
  seq: number;
  stroke: Stroke;
  call: Call;
  cue_ball: Vec2 | null;
}

export interface Preset {
  name: string;
  kind: "pool" | "carom";
  length: number;
  width: number;
  cushion_height: number;
  ball: { radius: number; mass: number };
  cloth: { mu_s: number; mu_r: number; mu_sp: number; e_b: number; e_c: number; f_c: number; g: number };
  cushions: { id: number; name: string; p1: Vec2; p2: Vec2; normal: Vec2 }[];
  jaws: { id: number; name: string; centre: Vec2; radius: number }[];
  pockets: { id: number; name: string; centre: Vec2; radius: number; corner: Vec2 }[];
  diamonds: Vec2[];
  spots: Record<string, Vec2>;
  head_string_x: number;
}

export interface TableSnapshot {
  type: "table_snapshot";
  table: string;
  v: number;
  ts: number;
  game: number;
  discipline: string;
  config: Record<string, any>;
  preset: Preset;
  private: boolean;
  seats: (SeatEntry | null)[];
  spectators: number;
  state: GameState;
  clock: Clock | null;
  chat: ChatLine[];
  rematch: boolean[];
}

export interface StrokeMsg {
  type: "stroke";
  table: string;
  v: number;
  ts: number;
  game: number;
  shots: PlayedShot[];
  log: any;
  ruling: Ruling;
  state: GameState;
  clock: Clock | null;
}

export interface RulingMsg {
  type: "ruling";
  table: string;
  v: number;
  ts: number;
  game: number;
  cause: "decision" | "timeout" | "resign" | "claim" | "abandon" | string;
  seat: number | null;
  seq: number | null;
  decision: { name: string; arg: unknown } | null;
  ruling: Ruling;
  state: GameState;
  clock: Clock | null;
}

export interface SeatsMsg {
  type: "seats";
  table: string;
  v: number;
  ts: number;
  seats: (SeatEntry | null)[];
  /** the shot clock after the change (it stops while the player to act is away); absent from older servers */
  clock?: Clock | null;
}

export interface ChatMsg {
  type: "chat";
  table: string;
  v: number;
  ts: number;
  seat: number | null;
  name: string;
  text: string;
}

export interface RematchMsg {
  type: "rematch";
  table: string;
  v: number;
  ts: number;
  offers: boolean[];
}

export type StreamMsg = TableSnapshot | StrokeMsg | RulingMsg | SeatsMsg | ChatMsg | RematchMsg;

export type ServerMsg =
  | Welcome
  | ErrorMsg
  | { type: "pong"; t: number | null; ts: number }
  | { type: "lobby"; tables: LobbyEntry[]; online: number }
  | { type: "lobby_update"; table: LobbyEntry }
  | { type: "lobby_remove"; table: string }
  | { type: "quick_play_waiting"; discipline: string }
  | { type: "seated"; table: string; seat: number; token: string }
  | { type: "left"; table: string }
  | { type: "spectators"; table: string; count: number }
  | { type: "shutdown"; reason: string; retry_ms: number }
  | StreamMsg;

export const STREAM_TYPES = new Set(["table_snapshot", "stroke", "ruling", "seats", "chat", "rematch"]);

export const OUTBOUND_TYPES = new Set([
  "welcome",
  "error",
  "pong",
  "lobby",
  "lobby_update",
  "lobby_remove",
  "quick_play_waiting",
  "seated",
  "left",
  "table_snapshot",
  "stroke",
  "ruling",
  "seats",
  "spectators",
  "chat",
  "rematch",
  "shutdown",
]);

export const INBOUND_TYPES = [
  "hello",
  "ping",
  "lobby_subscribe",
  "lobby_unsubscribe",
  "quick_play",
  "quick_play_cancel",
  "create_table",
  "join",
  "watch",
  "leave",
  "resume",
  "shot",
  "decision",
  "resign",
  "claim",
  "rematch_offer",
  "rematch_accept",
  "chat",
] as const;
