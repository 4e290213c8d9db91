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
  /** `rated`: only logged-in players, paired by rating (false is omitted). */
  quickPlay: (discipline: string, config: Record<string, unknown> = {}, rated = false) => ({ type: "quick_play", discipline, config, rated: rated || undefined }),
  quickPlayCancel: () => ({ type: "quick_play_cancel" }),
  /** `computer`: a computer opponent of that level (1..5) takes the other seat; null: none (omitted).
   * `rated`: the games count for ratings (both players logged in; false is omitted). */
  createTable: (discipline: string, config: Record<string, unknown>, isPrivate: boolean, seat: number | null = 0, computer: number | null = null, rated = false) => ({
    type: "create_table",
    discipline,
    config,
    private: isPrivate,
    seat,
    computer: computer ?? undefined,
    rated: rated || undefined,
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
  /** Change this connection's display name now (validated as in hello); refused with
   * `game_in_progress` while seated in a game that has started and is not over. */
  rename: (name: string) => ({ type: "rename", name }),
  /** A practice table (create_table with `practice`): from a drill, a position code, or the opening (`{}`);
   * `coach`: a second player may take seat 1 and also place balls and shoot. */
  createPractice: (discipline: string, practice: { drill?: string; position?: string; coach?: boolean }, isPrivate = false) => ({
    type: "create_table",
    discipline,
    config: {},
    private: isPrivate,
    seat: 0,
    practice,
  }),
  /** Practice: the whole layout (ball id -> [x, y] m); a pool object ball left out is taken off. */
  placeBalls: (table: string, token: string, seq: number, balls: Record<string, Vec2>) => ({ type: "place_balls", table, token, seq, balls }),
  undo: (table: string, token: string, seq: number) => ({ type: "undo", table, token, seq }),
  redo: (table: string, token: string, seq: number) => ({ type: "redo", table, token, seq }),
  /** `to`: "rack" (the opening) or "start" (the table's drill or position). */
  reset: (table: string, token: string, seq: number, to: "rack" | "start" = "rack") => ({ type: "reset", table, token, seq, to }),
  /** Practice: the stroke as set, simulated by the server and not played (answered with `preview`). */
  preview: (table: string, token: string, stroke: Stroke, call?: Call, cueBall?: Vec2) => ({
    type: "preview",
    table,
    token,
    stroke,
    call: call ?? undefined,
    cue_ball: cueBall,
  }),
  /** The live aim of the player to act, relayed to the others at the table (at most 10 a second);
   * `cueBall` the ball in hand's placement, else null. */
  aim: (table: string, token: string, s: Stroke, cueBall: Vec2 | null) => ({
    type: "aim",
    table,
    token,
    phi_deg: s.phi_deg,
    a: s.a,
    b: s.b,
    theta_deg: s.theta_deg,
    V0: s.V0,
    cue_ball: cueBall,
  }),
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
  /** the logged-in account of the session cookie, null (or absent) for a guest */
  account?: { id: unknown; name: string } | null;
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
  /** the table's games count for ratings (absent from older servers) */
  rated?: boolean;
  /** the seated players' ratings in the discipline (null: a guest) */
  ratings?: (number | null)[];
  /** whether each of those ratings is provisional (shown "1500?"; null with no rating); absent from older servers */
  provisional?: (boolean | null)[];
  /** the current run of the player at the table (servers with the TV) */
  run?: number;
  /** the table's game number, +1 per rematch (servers with the TV) */
  game?: number;
  /** a practice table (absent elsewhere) */
  practice?: boolean;
}

export interface SeatEntry {
  seat: number;
  player: string;
  name: string;
  connected: boolean;
  grace_until: number | null;
  /** the player's rating in the table's discipline when seated (null: a guest) */
  rating?: number | null;
  /** that rating is provisional (RD at least 110: shown "1500?"); null with no rating, absent from older servers */
  provisional?: boolean | null;
}

/** One player's rating change of a rated game (`game_rated`, `table_snapshot.rated_result`). */
export interface RatingChange {
  seat: number;
  name: string;
  before: number;
  after: number;
  rd_after: number;
  /** the new rating is provisional (shown "1500?"); absent from older servers */
  provisional?: boolean;
}

/** A rated game's rating changes, once the database has recorded the game (not versioned). */
/** Your next tournament game is ready at `table`, your seat `seat` kept for you (docs/protocol.md). */
export interface TournamentGameMsg {
  type: "tournament_game";
  tournament: number;
  pairing: string;
  table: string;
  seat: number;
  opponent: string | null;
}

export interface GameRatedMsg {
  type: "game_rated";
  table: string;
  game: number;
  ratings: RatingChange[];
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
  /** the games count for ratings; the last game's rating changes (absent from older servers) */
  rated?: boolean;
  rated_result?: RatingChange[] | null;
  /** the strokes and rulings of the game so far, oldest first (issue 14; absent from older
   * servers): {"i", "v", "kind", "seat", "call", "decision", "ruling"} (game/history.ts) */
  history?: unknown[];
  /** a practice table's entry (absent at game tables) */
  practice?: PracticeInfo;
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
  /** at a practice table: its entry after the stroke */
  practice?: PracticeInfo;
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

/** The reply to `rename`: the name now in use. */
export interface RenamedMsg {
  type: "renamed";
  name: string;
}

/** The shooter's aim as they move it (not versioned; not part of the stream). */
export interface AimMsg {
  type: "aim";
  table: string;
  seat: number;
  phi_deg: number;
  a: number;
  b: number;
  theta_deg: number;
  V0: number;
  cue_ball: Vec2 | null;
}

/** What a practice table is (the practice entry of docs/protocol.md). */
export interface PracticeInfo {
  kind: "drill" | "position" | "opening" | string;
  drill: { id: string; name: string; goal?: string; [k: string]: unknown } | null;
  start: string | null;
  /** the code of the position now (null: none) */
  code: string | null;
  coach: boolean;
  undo: number;
  redo: number;
}

/** A practice table's position changed without a stroke (place, undo, redo, reset). */
export interface PositionMsg {
  type: "position";
  table: string;
  v: number;
  ts: number;
  game: number;
  cause: "place" | "undo" | "redo" | "reset" | string;
  seat: number | null;
  seq: number | null;
  state: GameState;
  practice: PracticeInfo;
}

/** Private: a stroke simulated from the position of version `v` and not played. */
export interface PreviewMsg {
  type: "preview";
  table: string;
  v: number;
  log: any;
  ruling: Ruling;
}

export type StreamMsg = TableSnapshot | StrokeMsg | RulingMsg | SeatsMsg | ChatMsg | RematchMsg | PositionMsg;

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
  | RenamedMsg
  | AimMsg
  | GameRatedMsg
  | PreviewMsg
  | TournamentGameMsg
  | StreamMsg;

export const STREAM_TYPES = new Set(["table_snapshot", "stroke", "ruling", "seats", "chat", "rematch", "position"]);

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
  "position",
  "preview",
]);

/**
 * Message types of issue 14 whose server side is not in protocol/ yet (wire shapes agreed:
 * `rename` -> `renamed`, `aim` both ways). The client speaks them when the server does and
 * carries on without them when it answers `unknown_type` (see Capabilities in net/connection.ts).
 */
export const PENDING_INBOUND_TYPES = ["aim", "rename"] as const;
export const PENDING_OUTBOUND_TYPES = ["aim", "renamed", "game_rated", "tournament_game"] as const;

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
  "place_balls",
  "undo",
  "redo",
  "reset",
  "preview",
] as const;
