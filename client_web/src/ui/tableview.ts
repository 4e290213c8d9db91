/**
 * The table screen: scoreboard, canvas, stroke controls, call, decisions, chat, spectators,
 * playback (replay last shot, skip), sharing. Players and spectators see the same stream; only a
 * seated player gets controls, and only when the referee lets that seat act.
 */

import { aimAngle, placeInHand } from "../aim/contact";
import { api } from "../api";
import { Sound, soundSchedule } from "../audio/schedule";
import type { SoundBoard } from "../audio/sound";
import { DrillRecord, guestRecords, noteGuestStroke, recordText, withStroke } from "../game/drillrecord";
import { HistoryEntry, RecordCache, describeEntry, warningOf, warningText } from "../game/history";
import { Clip, Playback, Shown } from "../game/playback";
import { TableModel } from "../game/model";
import { DISCIPLINES, decisionLabel, disciplineLabel } from "../game/names";
import { SeatRecord, forgetSeat, loadSeat, nextSeq, saveSeat } from "../game/seats";
import { Trail, buildTrails } from "../game/trails";
import { POCKETED } from "../physics/motion";
import { ShotLog } from "../physics/shotlog";
import type { AimMsg, Call, DecisionOption, ErrorMsg, GameState, PreviewMsg, ServerMsg, ShootOptions, StreamMsg, Vec2 } from "../protocol/messages";
import { LIMITS, STREAM_TYPES, out } from "../protocol/messages";
import { Board, BallView } from "./board";
import { StrokeControls } from "./controls";
import { positionOf, speedAt } from "./power";
import { bringIntoView, h, kids, toast } from "./dom";
import { HistoryList } from "./historylist";
import { pref, setPref } from "./prefs";
import { ReplayBar } from "./replaybar";
import { Scoreboard, normalizeScoreboard, practiceSeats, rulingText } from "./scoreboard";
import { tableBox } from "../view/render";
import { MatchSummary } from "./summary";
import { ratingChangeText, seatRatingText } from "../players/model";

export interface AppLink {
  send(msg: object): boolean;
  /** send a message of a newer type (aim) unless the server refused the type */
  sendNewer(type: string, msg: object): boolean;
  readonly connected: boolean;
  /** why the connection stopped for good (another window resumed the seat, another protocol), else null */
  readonly stoppedWhy: string | null;
  /** server time minus local time (s) */
  readonly clockOffset: number;
  readonly playerName: string;
  /** whether this connection is a logged-in player's (the welcome named an account) */
  readonly loggedIn: boolean;
  readonly sound: SoundBoard;
  /** the opponent a tournament's director named for our seat at ``table`` (its ``tournament_game``), else null */
  tournamentOpponent(table: string): string | null;
}

/** A phone held upright: the table runs down the screen at its full width, with the loupe on. */
const PORTRAIT_PHONE = window.matchMedia("(max-width: 900px) and (orientation: portrait)");

/** Smallest interval (ms) between two aim messages: at most 10 a second (issue 14). */
export const AIM_INTERVAL_MS = 100;

/** Trails, sounds of a log, built once. */
const trailCache = new WeakMap<ShotLog, Trail[]>();
const soundCache = new WeakMap<ShotLog, Sound[]>();

/** Smallest interval (ms) between two previews a live preview sends (the server allows 2 a second, burst 6). */
export const LIVE_PREVIEW_MS = 600;

/** Seconds a pocketed ball takes to disappear into its pocket in the animation. */
const SINK_S = 0.25;

/** Cue-ball speed (m/s) of a pull-back by ``p`` (0..1) of a full pull: the power slider's travel. */
export function pullSpeed(p: number): number {
  return speedAt(p);
}

export class TableView {
  readonly el: HTMLElement;
  readonly model: TableModel;
  private board: Board;
  private controls: StrokeControls;
  private scoreboard = new Scoreboard();
  readonly playback: Playback;
  shown: Shown | null = null;
  seat: SeatRecord | null;
  private pending: { seq: number; kind: string } | null = null;
  /** the game this page has sent a resignation for (its Resign is gone until the answer or a new snapshot; QA: a
   * second quick click was told "the game is over") */
  private resignSent: number | null = null;
  private placement: Vec2 | null = null;
  private pull = 0;
  private lagSent = false;
  private statusEl: HTMLElement;
  private rulingEl: HTMLElement;
  private warningEl: HTMLElement;
  private optionsEl: HTMLElement;
  private seatActionsEl: HTMLElement;
  private infoEl: HTMLElement;
  private chatList: HTMLElement;
  private chatInput: HTMLInputElement;
  /** a player's switch: show the spectators' chat lines (hidden from players unless switched on) */
  private spectatorChatIn: HTMLInputElement;
  private spectatorChatEl: HTMLElement;
  private controlsCard: HTMLElement;
  /** shown instead of the table when the server says it has no such table (an expired link) */
  private missingEl: HTMLElement;
  private boardEl: HTMLElement;
  private sideEl: HTMLElement;
  /** the game the side panel was last shown for: a new game (a rematch) brings the panel back to its top, where
   * the stroke controls are, and the page to the table (QA: both stayed scrolled down at the rematch button) */
  private sideGame: number | null = null;
  private missing = false;
  private dialog: HTMLDialogElement;
  private dialogKey = "";
  private replayBtn: HTMLButtonElement;
  private replayBar: ReplayBar;
  private historyList: HistoryList;
  /** under the history: a rated game's rating changes */
  private ratedEl: HTMLElement;
  private summary: MatchSummary;
  private hudScore: HTMLElement;
  private hudShoot: HTMLButtonElement;
  private trailsIn: HTMLInputElement;
  private aidIn: HTMLInputElement;
  private soundIn: HTMLInputElement;
  private zoomIn: HTMLInputElement;
  private clockTimer: ReturnType<typeof setInterval>;
  private keyHandler: (e: KeyboardEvent) => void;
  private fitHandler: () => void;
  private canvasWrap: HTMLElement;
  attached = false;
  private catchingUp = false;
  /** the last live stroke's clip: its trails stay until the next stroke starts */
  private lastClip: Clip | null = null;
  private records = new RecordCache();
  private soundKey = "";
  /** the aim last sent, the time it went, and a send waiting for the interval */
  private aimSent: { key: string; at: number } = { key: "", at: 0 };
  private aimTimer: ReturnType<typeof setTimeout> | null = null;
  /** the shooter's aim as the server relayed it (for spectators and the opponent) */
  private remoteAim: { seat: number; phi: number; cueBall: Vec2 | null; v: number } | null = null;
  /** a practice table: its panel (undo, redo, reset, preview, share) */
  private practiceCard: HTMLElement;
  private practiceEl: HTMLElement;
  /** a practice table: the ball being dragged and where it is drawn (null: dragged off the bed, to be taken off) */
  private arranging: { id: number; at: Vec2 | null } | null = null;
  /** a practice table: the paths of the last preview, for the position of version `v` */
  private previewTrails: { trails: Trail[]; v: number } | null = null;
  /** a practice table: the stroke to set up again once the undo of a retry has brought its position back */
  /** my record at the practice table's drill (server or browser: game/drillrecord.ts) and the drill it is of */
  private drillRecord: DrillRecord | null = null;
  private drillRecordOf: string | null = null;
  /** the cue stroke of the position link this practice table was opened from, set at its first snapshot */
  startCue: { phi_deg: number; V0: number; a: number; b: number; theta_deg: number } | null = null;
  private retry: { stroke: { phi_deg: number; V0: number; a: number; b: number; theta_deg: number }; call: Call; cueBall: Vec2 | null } | null = null;
  /** a practice table: previews follow the aim (at most one every LIVE_PREVIEW_MS) */
  private livePreview = false;
  private previewTimer: ReturnType<typeof setTimeout> | null = null;
  private previewSentAt = 0;
  private previewKey = "";

  constructor(
    readonly id: string,
    private readonly app: AppLink,
  ) {
    this.model = new TableModel(id);
    this.seat = loadSeat(id);
    this.playback = new Playback((s) => this.onShown(s));
    this.controls = new StrokeControls(
      () => this.onAimChange(),
      () => this.shoot(),
      () => this.onCallChange(),
    );
    const canvasWrap = h("div", { class: "canvas-wrap" });
    this.canvasWrap = canvasWrap;
    this.board = new Board(canvasWrap, {
      onAim: (phi) => this.controls.set({ phi }),
      onPlace: (w) => this.place(w),
      onPullChange: (p) => {
        this.pull = p;
        this.controls.previewPower(p > 0 ? pullSpeed(p) : null);
        this.redrawAim();
      },
      onPullRelease: (p) => {
        this.pull = 0;
        this.controls.previewPower(null);
        if (p > 0.03) {
          this.controls.set({ speed: pullSpeed(p) });
          this.shoot();
        }
        this.redrawAim();
      },
      onCallBall: (b) => {
        this.controls.call = { ...this.controls.call, ball: b, safety: false };
        this.onCallChange();
      },
      onCallPocket: (p) => {
        this.controls.call = { ...this.controls.call, pocket: p, safety: false };
        this.onCallChange();
      },
      onArrange: (id, w, done) => this.arrange(id, w, done),
    });
    this.board.aimAid = pref("aimAid");
    this.summary = new MatchSummary();
    this.statusEl = h("div", { class: "status-line", "data-testid": "turn-status", role: "status" });
    // over the top of the table, so that nothing moves when it comes and goes
    this.warningEl = h("div", { class: "warning-banner", "data-testid": "warning", role: "alert", hidden: true });
    canvasWrap.append(this.warningEl, this.summary.el);
    this.hudScore = h("div", { class: "hud hud-score", "aria-hidden": "true" });
    this.hudShoot = h("button", { type: "button", id: "hud-shoot", class: "primary", onclick: () => this.shoot() }, "Shoot") as HTMLButtonElement;
    canvasWrap.append(this.hudScore, h("div", { class: "hud hud-act" }, this.hudShoot));
    this.rulingEl = h("div", { class: "ruling", "data-testid": "ruling", "aria-live": "polite" });
    this.replayBtn = h("button", { id: "replay-btn", type: "button", onclick: () => this.replayLast() }, "Replay last shot") as HTMLButtonElement;
    this.replayBar = new ReplayBar(this.playback, {
      start: (at, paused) => this.startIdleClip(at, paused),
      idleDuration: () => (this.lastClip ? this.lastClip.log.duration() : null),
      changed: () => this.afterPlaybackChange(),
    });
    const toggle = (id: string, label: string, on: boolean, set: (v: boolean) => void) => {
      const input = h("input", { type: "checkbox", id, checked: on }) as HTMLInputElement;
      input.addEventListener("change", () => set(input.checked));
      return { input, el: h("label", { class: "check toggle" }, input, ` ${label}`) };
    };
    const trails = toggle("trails-toggle", "Trails", pref("trails"), (v) => {
      setPref("trails", v);
      this.syncBoard();
    });
    const aid = toggle("aid-toggle", "Aim aid", pref("aimAid"), (v) => {
      setPref("aimAid", v);
      this.board.aimAid = v;
      this.board.invalidate();
    });
    const sound = toggle("sound-toggle", "Sound", !this.app.sound.muted, (v) => (this.app.sound.muted = !v));
    const zoom = toggle("zoom-toggle", "Zoom", false, (v) => {
      this.board.zoom = v;
      this.board.invalidate();
    });
    this.trailsIn = trails.input;
    this.aidIn = aid.input;
    this.soundIn = sound.input;
    this.zoomIn = zoom.input;
    this.app.sound.onChange(() => (this.soundIn.checked = !this.app.sound.muted));
    this.historyList = new HistoryList((e) => this.playEntry(e));
    this.ratedEl = h("div", { class: "rated-result", "data-testid": "history-ratings", hidden: true });
    this.optionsEl = h("div", { class: "options" });
    this.seatActionsEl = h("div", { class: "seat-actions" });
    this.infoEl = h("div", { class: "info" });
    this.chatList = h("ul", { class: "chat-list", "aria-live": "polite", "data-testid": "chat" });
    this.chatInput = h("input", { id: "chat-input", type: "text", maxlength: LIMITS.MAX_CHAT_CHARS, placeholder: "Say something", "aria-label": "Chat message", autocomplete: "off" }) as HTMLInputElement;
    const chatForm = h("form", { class: "chat-form" }, this.chatInput, h("button", { type: "submit" }, "Send"));
    this.spectatorChatIn = h("input", { type: "checkbox", id: "spectator-chat-toggle", checked: pref("spectatorChat") }) as HTMLInputElement;
    this.spectatorChatIn.addEventListener("change", () => {
      setPref("spectatorChat", this.spectatorChatIn.checked);
      this.renderChat();
    });
    this.spectatorChatEl = h("label", { class: "check spectator-chat", title: "The spectators' chat is for spectators; a player sees it only when this is on" }, this.spectatorChatIn, " Show the spectators' chat");
    chatForm.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = this.chatInput.value.trim();
      if (!text) return;
      if (this.app.send(out.chat(this.id, text))) this.chatInput.value = "";
    });
    this.controlsCard = h("section", { class: "card controls-card", "aria-label": "Stroke" }, h("h3", {}, "Your stroke"), this.controls.el);
    this.practiceEl = h("div", { class: "practice-panel" });
    this.practiceCard = h("section", { class: "card practice-card", "aria-label": "Practice", "data-testid": "practice-panel", hidden: true }, h("h3", {}, "Practice"), this.practiceEl);
    this.dialog = h("dialog", { class: "decision-dialog", "data-testid": "decision-dialog" }) as HTMLDialogElement;
    this.dialog.addEventListener("cancel", (e) => e.preventDefault());
    this.boardEl = h(
      "div",
      { class: "board" },
      this.scoreboard.el,
      this.statusEl,
      canvasWrap,
      h("div", { class: "playback" }, this.replayBtn, this.replayBar.el, h("div", { class: "view-toggles" }, trails.el, aid.el, sound.el, zoom.el)),
      this.rulingEl,
    );
    this.sideEl = h(
      "aside",
      { class: "side" },
      // the stroke first: above it the practice panel pushed Shoot below the fold of a 768 px desktop (QA)
      this.controlsCard,
      this.practiceCard,
      h("section", { class: "card history-card" }, h("h3", {}, "Strokes"), this.historyList.el, this.ratedEl),
      h("section", { class: "card options-card" }, h("h3", {}, "Options"), this.optionsEl, this.seatActionsEl),
      h("section", { class: "card" }, h("h3", {}, "Table"), this.infoEl),
      h("section", { class: "card chat-card" }, h("h3", {}, "Chat"), this.spectatorChatEl, this.chatList, chatForm),
    );
    this.missingEl = h(
      "section",
      { class: "card missing-table", "data-testid": "missing-table", role: "alert", hidden: true },
      h("p", {}, "This table does not exist or has ended."),
      h("p", {}, h("a", { href: "#/", id: "missing-table-lobby" }, "Back to the lobby")),
    );
    this.el = h("section", { class: "table-view", "data-table-id": id }, this.missingEl, this.boardEl, this.sideEl, this.controls.dock, this.dialog);
    this.clockTimer = setInterval(() => this.tickClock(), 250);
    this.fitHandler = () => this.fitPortrait();
    window.addEventListener("resize", this.fitHandler);
    window.addEventListener("orientationchange", this.fitHandler);
    if (PORTRAIT_PHONE.matches) {
      this.board.zoom = true;
      this.zoomIn.checked = true;
    }
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keyHandler);
    this.refresh();
  }

  /** Leave the screen. A seat whose game has not started or is over is given up (the table
   * does not stay "playing" with nobody at it); `forfeit` gives it up in a game in progress. */
  destroy(forfeit = false): void {
    clearInterval(this.clockTimer);
    window.removeEventListener("resize", this.fitHandler);
    window.removeEventListener("orientationchange", this.fitHandler);
    if (this.aimTimer) clearTimeout(this.aimTimer);
    document.removeEventListener("keydown", this.keyHandler);
    this.board.destroy();
    this.app.sound.stop();
    if (!this.app.connected) return;
    if (this.seat === null) this.app.send(out.leave(this.id));
    else if (!this.gameStarted || forfeit) {
      this.app.send(out.leave(this.id, this.seat.token));
      forgetSeat(this.id);
    }
  }

  /**
   * On a phone held upright the table takes the full width and the height left on the screen
   * below what is above it (the whole table visible without scrolling; the view turns it to run
   * down the screen). Elsewhere the style sheet sizes it.
   */
  private fitPortrait(): void {
    const w = this.canvasWrap;
    if (!PORTRAIT_PHONE.matches || !w.isConnected) {
      w.style.height = "";
      return;
    }
    const top = w.getBoundingClientRect().top + window.scrollY;
    // a player's table leaves room under it for two lines of turn words and the shot dock's band (4rem, as the style
    // sheet keeps for it), so the dock lies over neither (QA: it covered the lag's words); keyed to the seat, not to
    // the dock, so the table keeps its size from turn to turn
    let below = 8;
    if (this.mySeat !== null) {
      const st = getComputedStyle(this.statusEl);
      const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
      below = (parseFloat(st.minHeight) || 2 * parseFloat(st.lineHeight) || 34) + 0.3 * rem + 4 * rem;
    }
    const room = window.innerHeight - top - below;
    // the height the table needs at the full width (its long side over its short side, rails included)
    let aspect = 1.9;
    if (this.model.loaded) {
      const [x0, y0, x1, y1] = tableBox(this.model.preset);
      aspect = (x1 - x0) / (y1 - y0);
    }
    const need = (w.clientWidth - 12) * aspect + 12;
    w.style.height = `${Math.round(Math.max(280, Math.min(need, room)))}px`;
  }

  /** Both seats taken and the game under way and not over: leaving it forfeits it. */
  get gameStarted(): boolean {
    const m = this.model;
    if (!m.loaded || m.practice || m.state.over || m.seats.some((s) => s === null)) return false; // nothing at stake at practice
    return m.history.entries.length > 0 || m.lastStroke !== null || m.state.phase !== "lag";
  }

  /** Called after every (re)connection: resume the seat with its token, or watch. */
  attach(): void {
    this.attached = true;
    this.catchingUp = false;
    const v = this.model.loaded ? this.model.v : undefined;
    if (this.seat) this.app.send(out.resume(this.id, this.seat.token, v));
    else this.app.send(out.watch(this.id, v));
    if (this.pending) {
      // a stroke or decision sent just before the connection dropped is answered once by its seq
      this.pending = null;
    }
    this.refresh();
  }

  /** Seated at this table in a game that is not over (the server refuses a rename then). */
  get inGame(): boolean {
    return this.mySeat !== null && this.model.loaded && !this.model.state.over;
  }

  get mySeat(): number | null {
    return this.seat?.seat ?? null;
  }

  // ----- messages ----------------------------------------------------------------------------
  handle(m: ServerMsg): void {
    if (m.type === "seated") {
      if (m.table !== this.id) return;
      const prev = this.seat;
      this.seat = { seat: m.seat, token: m.token, seq: prev && prev.token === m.token ? prev.seq : 0 };
      saveSeat(this.id, this.seat);
      this.renderChat();
      this.refresh();
      return;
    }
    if (m.type === "left") {
      if (m.table !== this.id) return;
      const hadSeat = this.seat !== null;
      forgetSeat(this.id);
      this.seat = null;
      // gave up the seat but still on this screen: keep watching the table
      if (hadSeat && this.el.isConnected) this.app.send(out.watch(this.id, this.model.loaded ? this.model.v : undefined));
      this.renderChat();
      this.refresh();
      return;
    }
    if (m.type === "spectators") {
      if (m.table !== this.id) return;
      this.model.spectators = m.count;
      this.renderInfo();
      return;
    }
    if (m.type === "aim") {
      this.onRemoteAim(m);
      return;
    }
    if (m.type === "game_rated") {
      if (m.table === this.id && this.model.applyRated(m.game, m.ratings)) this.refresh();
      return;
    }
    if (m.type === "error") {
      this.onError(m);
      return;
    }
    if (m.type === "preview") {
      this.onPreview(m);
      return;
    }
    if (STREAM_TYPES.has(m.type)) this.onStream(m as StreamMsg);
  }

  /** The shooter's aim, relayed by the server: checked like any network input, then drawn faint. */
  private onRemoteAim(m: AimMsg): void {
    if (m.table !== this.id || m.seat === this.mySeat) return;
    const fin = (x: unknown) => typeof x === "number" && Number.isFinite(x);
    if (!(m.seat === 0 || m.seat === 1) || !fin(m.phi_deg)) return;
    const cb = Array.isArray(m.cue_ball) && m.cue_ball.length === 2 && fin(m.cue_ball[0]) && fin(m.cue_ball[1]) ? ([m.cue_ball[0], m.cue_ball[1]] as Vec2) : null;
    this.remoteAim = { seat: m.seat, phi: m.phi_deg, cueBall: cb, v: this.model.stateV };
    this.syncBoard();
  }

  private onStream(m: StreamMsg): void {
    if (m.table !== this.id) return;
    const r = this.model.apply(m);
    switch (r.kind) {
      case "gap":
        if (!this.catchingUp) {
          this.catchingUp = true;
          if (this.seat) this.app.send(out.resume(this.id, this.seat.token, r.have));
          else this.app.send(out.watch(this.id, r.have));
        }
        return;
      case "ignored":
        return;
      case "snapshot":
        this.catchingUp = false;
        this.resignSent = null;
        this.playback.clear();
        this.lagSent = false;
        this.remoteAim = null;
        if (!this.model.lastStroke) this.lastClip = null;
        this.onShown({ state: this.model.state, ruling: this.model.lastRuling, v: this.model.v });
        this.renderChat();
        if (this.sideGame !== null && this.sideGame !== this.model.game) {
          this.sideEl.scrollTop = 0;
          if (window.scrollY > 0) window.scrollTo(0, 0); // a phone scrolled to the summary: the new game's table (QA)
        }
        this.sideGame = this.model.game;
        if (this.startCue && this.model.practice) {
          // a position link's cue stroke: the controls start with it (once, at the table's first snapshot)
          const c = this.startCue;
          this.startCue = null;
          this.controls.set({ phi: c.phi_deg, a: c.a, b: c.b, theta: c.theta_deg, V0: c.V0 });
        }
        break;
      case "stroke":
        this.catchingUp = false;
        this.remoteAim = null;
        if (m.type === "stroke") this.countDrillStroke(m.ruling, m.shots);
        if (this.pending && r.stroke.shots.some((s) => s.seat === this.mySeat && s.seq === this.pending!.seq)) this.pending = null;
        if (r.stroke.lag) this.lagSent = false;
        this.playback.push({ kind: "stroke", stroke: r.stroke, v: r.stroke.v });
        // the sounds start with the clip's clock, before the page is rendered (which can take a
        // while on a slow device and would make the first sounds late and bunched together)
        this.syncSound();
        this.lastClip = this.playback.clip?.log === r.stroke.log ? this.playback.clip : { log: r.stroke.log, lag: r.stroke.lag, key: `v${r.stroke.v}` };
        break;
      case "ruling": {
        this.catchingUp = false;
        this.remoteAim = null;
        if (m.type === "ruling" && this.pending && m.seat === this.mySeat && m.seq === this.pending.seq) this.pending = null;
        this.playback.push({ kind: "state", state: this.model.state, ruling: this.model.lastRuling, v: this.model.v });
        break;
      }
      case "chat":
        this.appendChat(r.line.name, r.line.text, r.line.seat);
        break;
      case "seats":
      case "rematch":
        break;
      case "position":
        // a practice table's new position (placement, undo, redo, reset): no stroke to play back
        this.catchingUp = false;
        this.remoteAim = null;
        if (this.pending && m.type === "position" && m.seat === this.mySeat && m.seq === this.pending.seq) this.pending = null;
        this.playback.clear();
        this.lastClip = null;
        this.onShown({ state: this.model.state, ruling: null, v: this.model.v });
        if (this.retry && m.type === "position" && m.cause === "undo" && m.seat === this.mySeat) this.applyRetry();
        break;
    }
    this.refresh();
  }

  private onError(m: ErrorMsg): void {
    if (m.table !== undefined && m.table !== this.id) return;
    if (m.ref === "aim") return; // a dropped aim update is not the player's business
    if (m.ref === "place_balls" && this.arranging) {
      this.arranging = null; // refused: the ball goes back where the server has it
      this.syncBoard();
    }
    if (this.pending && (m.seq === this.pending.seq || m.ref === this.pending.kind)) {
      const kind = this.pending.kind;
      this.pending = null;
      if (m.code === "duplicate_sequence") return; // already played: its stream message will (or did) arrive
      // a refused lag stroke was not played: the player may lag again (the page said it waited for the opponent)
      if (kind === "shot" && m.rule !== "lag_pending") this.lagSent = false;
    }
    if (m.rule === "lag_pending") {
      // our lag stroke reached the server before a reconnect: wait for the opponent's
      this.lagSent = true;
      this.refresh();
      return;
    }
    if (m.code === "bad_token" && m.ref === "resume") {
      // the seat is gone (the table was reset or the token is stale): watch instead
      forgetSeat(this.id);
      this.seat = null;
      this.app.send(out.watch(this.id));
    }
    if (m.code === "no_such_table" && (!this.model.loaded || m.ref === "watch" || m.ref === "join" || m.ref === "resume")) {
      // the link's table is not there (ended, expired, mistyped): say so instead of loading forever
      this.showMissing();
      return;
    }
    toast(m.message || m.code, "error");
    this.refresh();
  }

  private onShown(s: Shown): void {
    const prevState = this.shown?.state;
    this.shown = s;
    const shoot = s.state.legal?.shoot;
    // a new position: forget the call and any placement
    if (prevState !== s.state) {
      this.controls.call = { ball: null, pocket: null, safety: false };
      this.placement = null;
      this.arranging = null;
      this.previewTrails = null;
      if (shoot?.in_hand) this.placement = this.defaultPlacement(shoot);
    }
    this.refresh();
  }

  // ----- derived views ---------------------------------------------------------------------
  private get state(): GameState | null {
    return this.shown?.state ?? null;
  }

  private shootOptions(): ShootOptions | null {
    return this.state?.legal?.shoot ?? null;
  }

  /** True when this client may play a stroke now. */
  canShoot(): boolean {
    const st = this.state;
    const shoot = this.shootOptions();
    if (!st || !shoot || st.over || this.mySeat === null || !this.app.connected) return false;
    if (this.playback.busy || this.pending) return false;
    if (this.model.practice) return true; // the shooter and the coach both shoot at a practice table
    if (this.model.seats.some((s) => s === null)) return false;
    if (shoot.lag) return !this.lagSent;
    return st.legal?.player === this.mySeat;
  }

  private myDecisions(): DecisionOption[] {
    const st = this.state;
    if (!st?.legal || st.over || this.mySeat === null || this.pending || this.playback.animating) return [];
    if (st.legal.player !== this.mySeat && !this.model.practice) return [];
    if (this.playback.busy) return [];
    return st.legal.decisions ?? [];
  }

  /** The ball the player strikes and where it is (in hand: the placement). */
  private cueBall(): { id: number | null; at: Vec2 } | null {
    const st = this.state;
    const shoot = this.shootOptions();
    if (!st || !shoot) return null;
    if (shoot.lag) {
      const seat = this.mySeat ?? 0;
      const lb = shoot.lag_balls?.[String(seat)];
      if (Array.isArray(lb)) return { id: seat, at: [lb[0], lb[1]] };
      if (typeof lb === "number") {
        const p = st.layout[String(lb)];
        if (p) return { id: lb, at: [p[0], p[1]] };
      }
      return null;
    }
    if (shoot.in_hand && this.placement) return { id: shoot.cue_ball, at: this.placement };
    if (shoot.cue_ball === null) return null;
    const p = st.layout[String(shoot.cue_ball)];
    return p ? { id: shoot.cue_ball, at: [p[0], p[1]] } : null;
  }

  /** Where the shooter's cue ball is as the others see it: the relayed placement when in hand. */
  private remoteCue(): { id: number | null; at: Vec2; phi: number } | null {
    const ra = this.remoteAim;
    const st = this.state;
    const shoot = this.shootOptions();
    if (!ra || !st || !shoot || shoot.lag || st.over || ra.v !== this.model.stateV || this.playback.busy) return null;
    if (st.legal?.player !== ra.seat && !this.model.practice) return null; // (practice: the coach's aim too)
    if (shoot.in_hand) return ra.cueBall ? { id: shoot.cue_ball, at: ra.cueBall, phi: ra.phi } : null;
    if (shoot.cue_ball === null) return null;
    const p = st.layout[String(shoot.cue_ball)];
    return p ? { id: shoot.cue_ball, at: [p[0], p[1]], phi: ra.phi } : null;
  }

  private displayBalls(): BallView[] {
    const fr = this.playback.frame();
    if (fr) {
      const out: BallView[] = [];
      for (const [id, b] of fr.balls) {
        if (b.s !== POCKETED) {
          out.push({ id, x: b.rx, y: b.ry });
          continue;
        }
        // a pocketed ball sinks into its pocket during SINK_S seconds of the shot
        const since = fr.t - (fr.clip.log.pocketedAt(id) ?? -Infinity);
        out.push({ id, x: b.rx, y: b.ry, pocketed: true, sink: since < SINK_S ? Math.max(0.01, since / SINK_S) : undefined });
      }
      return out;
    }
    const st = this.state;
    if (!st) return [];
    const balls: BallView[] = Object.entries(st.layout).map(([k, p]) => ({ id: Number(k), x: p[0], y: p[1] }));
    const shoot = st.legal?.shoot;
    if (shoot?.lag && shoot.lag_balls) {
      for (const [seat, lb] of Object.entries(shoot.lag_balls)) {
        if (Array.isArray(lb) && !balls.some((b) => Math.abs(b.x - lb[0]) < 1e-9 && Math.abs(b.y - lb[1]) < 1e-9)) balls.push({ id: Number(seat), x: lb[0], y: lb[1] });
      }
    }
    const mine = shoot?.in_hand && shoot.cue_ball !== null && this.mySeat !== null && (st.legal?.player === this.mySeat || !!this.model.practice) && this.placement;
    const theirs = !mine ? this.remoteCue() : null;
    const at = mine ? this.placement : theirs && shoot?.in_hand ? theirs.at : null;
    if (at && shoot && shoot.cue_ball !== null) {
      const cb = shoot.cue_ball;
      const i = balls.findIndex((b) => b.id === cb);
      if (i >= 0) balls.splice(i, 1);
      balls.push({ id: cb, x: at[0], y: at[1] });
    }
    const ar = this.arranging;
    if (ar) {
      // a practice table: the dragged ball where it is dropped (taken off when dragged off the bed)
      const i = balls.findIndex((b) => b.id === ar.id);
      if (i >= 0) balls.splice(i, 1);
      if (ar.at) balls.push({ id: ar.id, x: ar.at[0], y: ar.at[1] });
    }
    return balls;
  }

  /** The entry of the history that brought the position shown (a stroke or ruling), if any. */
  private shownEntry(): HistoryEntry | null {
    const v = this.shown?.v;
    if (v === undefined) return null;
    const es = this.model.history.entries;
    for (let k = es.length - 1; k >= 0; k--) if (es[k].v === v) return es[k];
    return null;
  }

  /** The ruling shown, in words, with the seated players' names for the seats it names. */
  private rulingWords(): string {
    const names = this.model.playerNames();
    const e = this.shownEntry();
    if (e && e.kind === "decision") {
      // a decision in our words ("Ann chooses to break", not "A chooses A to break")
      const w = describeEntry(e, this.model.discipline, names);
      return w.what;
    }
    return rulingText(this.shown?.ruling ?? null, this.model.discipline, names);
  }

  /** The warning of the ruling shown (14.1: two successive fouls), in words, or "". */
  private warningWords(): string {
    const r = this.shown?.ruling ?? null;
    const w = warningOf(r, this.model.discipline);
    if (!w || !r) return "";
    const seat = r.player;
    const name = seat === null || seat === undefined ? "The player" : this.model.playerName(seat);
    return warningText(w, name);
  }

  private othersThan(id: number | null): Map<number, Vec2> {
    const m = new Map<number, Vec2>();
    for (const [k, p] of Object.entries(this.state?.layout ?? {})) if (Number(k) !== id) m.set(Number(k), [p[0], p[1]]);
    return m;
  }

  private defaultPlacement(shoot: ShootOptions): Vec2 | null {
    const p = this.model.preset;
    if (!p || !shoot.in_hand) return null;
    const R = p.ball.radius;
    const others = this.othersThan(shoot.cue_ball);
    const cur = shoot.cue_ball !== null ? this.state?.layout[String(shoot.cue_ball)] : undefined;
    const start: Vec2 = cur ? [cur[0], cur[1]] : shoot.in_hand.region === "kitchen" ? [p.head_string_x * 0.75, p.width / 2] : [p.head_string_x, p.width / 2];
    for (let k = 0; k < 200; k++) {
      const ang = k * 2.39996;
      const rad = k === 0 ? 0 : 2.2 * R * Math.sqrt(k);
      const q = placeInHand([start[0] + rad * Math.cos(ang), start[1] + rad * Math.sin(ang)], R, p, shoot.in_hand, others);
      if (q) return q;
    }
    return null;
  }

  private place(w: Vec2): void {
    const shoot = this.shootOptions();
    const p = this.model.preset;
    if (!shoot?.in_hand || !p) return;
    const q = placeInHand(w, p.ball.radius, p, shoot.in_hand, this.othersThan(shoot.cue_ball));
    if (q) {
      this.placement = q;
      // the ball, the aim line and the stick move with the drag (not at the next refresh)
      this.syncBoard();
      this.sendAim();
    }
  }

  /** The aim line, ghost ball and cue stick follow the controls at once (aim angle, pull-back). */
  private redrawAim(): void {
    const a = this.board.aim;
    if (a) this.board.aim = { ...a, phi: this.controls.state.phi, pull: this.pull };
    this.board.invalidate();
  }

  private onAimChange(): void {
    if (this.previewTrails) {
      this.previewTrails = null;
      this.syncBoard();
    }
    this.schedulePreview();
    this.redrawAim();
    this.sendAim();
  }

  /**
   * Tell the others where the player to act aims (`aim`, at most one message per
   * AIM_INTERVAL_MS; the last change always goes out). Not during a lag (both play at once).
   */
  private sendAim(): void {
    if (!this.seat || !this.canShoot() || this.shootOptions()?.lag) return;
    const wait = this.aimSent.at + AIM_INTERVAL_MS - performance.now();
    if (wait > 0) {
      if (!this.aimTimer) this.aimTimer = setTimeout(() => {
        this.aimTimer = null;
        this.sendAim();
      }, wait);
      return;
    }
    const s = this.controls.state;
    const cue = this.shootOptions()?.in_hand ? this.placement : null;
    const stroke = { phi_deg: s.phi, V0: s.V0, a: s.a, b: s.b, theta_deg: s.theta };
    const key = JSON.stringify([stroke, cue, this.model.stateV]);
    if (key === this.aimSent.key) return;
    if (this.app.sendNewer("aim", out.aim(this.id, this.seat.token, stroke, cue))) this.aimSent = { key, at: performance.now() };
  }

  // ----- actions -----------------------------------------------------------------------------
  private currentCall(): Call | undefined {
    const shoot = this.shootOptions();
    if (!shoot || shoot.call === "none") return undefined;
    const c = this.controls.call;
    if (c.safety) return { safety: true };
    if (c.ball !== null && c.pocket) return { ball: c.ball, pocket: c.pocket };
    return undefined;
  }

  shoot(): void {
    if (!this.canShoot() || !this.seat) return;
    const shoot = this.shootOptions()!;
    const call = this.currentCall();
    if (shoot.call === "required" && !call) {
      toast("Call a ball and a pocket, or declare safety.", "error");
      return;
    }
    let cueBall: Vec2 | undefined;
    if (shoot.in_hand) {
      if (!this.placement) {
        toast("Place the cue ball first.", "error");
        return;
      }
      cueBall = this.placement;
    }
    const s = this.controls.state;
    const stroke = { phi_deg: s.phi, V0: s.V0, a: s.a, b: s.b, theta_deg: s.theta };
    const seq = nextSeq(this.id, this.seat);
    if (!this.app.send(out.shot(this.id, this.seat.token, seq, stroke, call ?? null, cueBall))) {
      toast("Not connected: the stroke was not sent.", "error");
      return;
    }
    this.pending = { seq, kind: "shot" };
    if (shoot.lag) this.lagSent = true;
    bringIntoView(this.canvasWrap); // shot from the panel below the table (a phone): the stroke is seen
    this.refresh();
  }

  decide(name: string, arg: unknown): void {
    if (!this.seat) return;
    const seq = nextSeq(this.id, this.seat);
    if (this.app.send(out.decision(this.id, this.seat.token, seq, name, arg ?? null))) {
      this.pending = { seq, kind: "decision" };
      this.refresh();
    }
  }

  // ----- playback: the last shot, history entries, trails, sound -------------------------------------
  private replayLast(): void {
    if (!this.lastClip || !this.shown || this.playback.animating) return;
    this.startIdleClip(0, false);
    this.afterPlaybackChange();
  }

  /** Replay the last live stroke from `at` s (the replay controls when nothing plays). */
  private startIdleClip(at: number, paused: boolean): boolean {
    if (!this.lastClip || !this.shown) return false;
    const ok = this.playback.replay(this.lastClip, this.shown, { at, paused });
    if (ok) this.historyList.select(null);
    return ok;
  }

  /** Replay history entry `e` with its trails (its log from the match record when it came without one). */
  private async playEntry(e: HistoryEntry): Promise<void> {
    if (!this.shown || !this.model.loaded) return;
    if (this.playback.playing || this.playback.busy && !this.playback.replaying) {
      toast("Wait for the stroke being played to end.");
      return;
    }
    let log: ShotLog | null;
    try {
      log = await this.records.logOf(this.id, this.model.history.game, e, this.model.cloth);
    } catch (err) {
      toast(`The record of this game could not be read (${String(err)}).`, "error");
      return;
    }
    if (!log) {
      toast(e.kind === "stroke" || e.kind === "lag" ? "This stroke's log is not available." : "Nothing was played here: a ruling without a stroke.");
      return;
    }
    if (!this.shown || !this.el.isConnected) return;
    if (this.playback.replaying) this.playback.skip();
    if (this.playback.replay({ log, lag: e.kind === "lag", key: `h${e.i ?? e.v}` }, this.shown)) {
      this.historyList.select(e);
      bringIntoView(this.canvasWrap); // picked from the list below the table (a phone)
    }
    this.afterPlaybackChange();
  }

  /** After the replay controls (or a new clip) changed the playback: sound, controls, drawing. */
  private afterPlaybackChange(): void {
    this.syncSound(true);
    this.refresh();
    if (!this.playback.animating) this.historyList.select(null);
  }

  private trailsOf(log: ShotLog): Trail[] {
    let t = trailCache.get(log);
    if (!t) {
      t = buildTrails(log, { numberCushions: this.model.preset.kind === "carom", rails: this.model.preset });
      trailCache.set(log, t);
    }
    return t;
  }

  /** Schedule the sounds of the clip playing from where it is; stop them when it pauses or ends. */
  private syncSound(force = false): void {
    const c = this.playback.clip;
    const key = c && !this.playback.paused ? `${c.key}|${this.playback.speed}` : "";
    if (!force && key === this.soundKey) return;
    this.soundKey = key;
    if (!c || !key) {
      this.app.sound.stop();
      return;
    }
    let sched = soundCache.get(c.log);
    if (!sched) {
      sched = soundSchedule(c.log);
      soundCache.set(c.log, sched);
    }
    this.app.sound.play(sched, this.playback.time, this.playback.speed);
  }

  private onCallChange(): void {
    this.refresh();
    this.schedulePreview();
  }

  private onKey(e: KeyboardEvent): void {
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT") && t !== document.body) {
      // Enter in a number box of the stroke applies it and shoots; elsewhere (chat) it is the box's
      if (!(e.key === "Enter" && t.tagName === "INPUT" && (t as HTMLInputElement).type === "number" && this.controls.el.contains(t))) return;
    }
    if (!this.el.isConnected || this.dialog.open) return;
    // Enter shoots when a stroke can be played, whatever button has the focus
    if (e.key === "Enter" && !this.canShoot()) return;
    if (this.controls.strokeKey(e, () => this.shoot())) e.preventDefault();
  }

  // ----- practice tables ---------------------------------------------------------------------
  /** The whole layout as the server has it, ball `id` moved to `at` (or taken off: null). */
  private layoutWith(id: number, at: Vec2 | null): Record<string, Vec2> {
    const out: Record<string, Vec2> = {};
    for (const [k, p] of Object.entries(this.state?.layout ?? {})) if (Number(k) !== id) out[k] = [p[0], p[1]];
    if (at) out[String(id)] = at;
    return out;
  }

  /** A ball dragged at a practice table: drawn where the placement test lets it go (off the other balls and out of
   * the pockets, as the server checks it); on release the whole layout goes to the server (`place_balls`). A pool
   * object ball dragged off the bed is taken off. */
  private arrange(id: number, w: Vec2, done: boolean): void {
    const p = this.model.preset;
    if (!this.model.practice || !p || !this.state || !this.seat) return;
    const R = p.ball.radius;
    const off = w[0] < -R || w[1] < -R || w[0] > p.length + R || w[1] > p.width + R;
    if (off && p.kind === "pool" && id !== 0) this.arranging = { id, at: null };
    else {
      const q = placeInHand(w, R, p, { region: "table" }, this.othersThan(id));
      if (q) this.arranging = { id, at: q };
    }
    this.previewTrails = null;
    this.syncBoard();
    if (done && this.arranging) this.sendPractice(out.placeBalls(this.id, this.seat.token, nextSeq(this.id, this.seat), this.layoutWith(id, this.arranging.at)));
  }

  /** Send a practice edit (its seq is the seat's next): refused while another is on its way. */
  private sendPractice(msg: { seq: number; type: string }): void {
    if (!this.app.send(msg)) {
      toast("Not connected: nothing was sent.", "error");
      this.arranging = null;
      this.syncBoard();
      return;
    }
    this.pending = { seq: msg.seq, kind: msg.type };
    this.refresh();
  }

  /** The server simulates the stroke as set now, without playing it: its paths are drawn (`preview`). */
  previewStroke(): void {
    if (!this.seat || !this.canShoot()) return;
    const shoot = this.shootOptions()!;
    const s = this.controls.state;
    const stroke = { phi_deg: s.phi, V0: s.V0, a: s.a, b: s.b, theta_deg: s.theta };
    this.previewKey = this.strokeKey();
    this.app.send(out.preview(this.id, this.seat.token, stroke, this.currentCall() ?? null, shoot.in_hand && this.placement ? this.placement : undefined));
  }

  /** The stroke as set now, from the position now (a preview answers one of these). */
  private strokeKey(): string {
    return JSON.stringify([this.controls.state, this.currentCall() ?? null, this.shootOptions()?.in_hand ? this.placement : null, this.model.v]);
  }

  private onPreview(m: PreviewMsg): void {
    if (m.table !== this.id || !this.model.loaded || m.v !== this.model.v) return; // a position that has changed since
    if (this.previewKey !== this.strokeKey()) return; // the aim has moved since it was asked for: the next one comes
    let log: ShotLog;
    try {
      log = ShotLog.fromWire(m.log, this.model.cloth, this.model.names);
    } catch {
      return;
    }
    this.previewTrails = { trails: buildTrails(log, { numberCushions: this.model.preset.kind === "carom", rails: this.model.preset }), v: m.v };
    this.el.dataset.preview = String(m.v);
    const words = m.ruling?.text ? `Preview: ${m.ruling.text}` : "Preview";
    this.rulingEl.textContent = words;
    this.syncBoard();
  }

  /** Live preview: a preview of the stroke as set, at most one every LIVE_PREVIEW_MS, the last change always. */
  private schedulePreview(): void {
    if (!this.livePreview || !this.model.practice || this.previewTimer) return;
    const wait = Math.max(0, this.previewSentAt + LIVE_PREVIEW_MS - performance.now());
    this.previewTimer = setTimeout(() => {
      this.previewTimer = null;
      if (!this.livePreview || !this.el.isConnected || !this.canShoot()) return;
      const shoot = this.shootOptions();
      if (shoot?.call === "required" && !this.currentCall()) return; // the referee would refuse it
      if (this.strokeKey() === this.previewKey && this.previewTrails) return; // drawn already
      this.previewSentAt = performance.now();
      this.previewStroke();
    }, wait);
  }

  /** Retry the last stroke: back to its position (undo) with its cue, call and placement set again. */
  private retryLast(): void {
    const ls = this.model.lastStroke;
    if (!ls || !this.seat || !ls.shots.length) return;
    const sh = ls.shots[0];
    this.retry = { stroke: sh.stroke, call: sh.call ?? null, cueBall: sh.cue_ball ? [sh.cue_ball[0], sh.cue_ball[1]] : null };
    this.sendPractice(out.undo(this.id, this.seat.token, nextSeq(this.id, this.seat)));
  }

  private applyRetry(): void {
    const r = this.retry!;
    this.retry = null;
    const s = r.stroke;
    this.controls.set({ phi: s.phi_deg, a: s.a, b: s.b, theta: s.theta_deg, V0: s.V0 });
    const c = r.call;
    if (c && "safety" in c) this.controls.call = { ball: null, pocket: null, safety: true };
    else if (c && "ball" in c) this.controls.call = { ball: c.ball, pocket: c.pocket, safety: false };
    if (r.cueBall && this.shootOptions()?.in_hand) this.placement = r.cueBall;
    this.refresh();
  }

  /** My record at drill `id`, once per drill: the server's for a logged-in player, this browser's for a guest. */
  private loadDrillRecord(id: string): void {
    if (this.drillRecordOf === id) return;
    this.drillRecordOf = id;
    this.drillRecord = null;
    if (!this.app.loggedIn) {
      this.drillRecord = guestRecords(localStorage)[id] ?? null;
      return;
    }
    void api<{ drills: Record<string, DrillRecord> }>("GET", "/api/account/drills").then((r) => {
      if (this.drillRecordOf !== id || !r.ok) return;
      const got = r.data?.drills?.[id];
      // strokes counted here meanwhile are in the server's figure already, or on their way: keep the larger
      if (got && (!this.drillRecord || got.attempts >= this.drillRecord.attempts)) this.drillRecord = { attempts: got.attempts, successes: got.successes };
      this.refresh();
    });
  }

  /** A stroke of mine at this drill's table: one more in my record (a guest's is saved in this browser). */
  private countDrillStroke(ruling: unknown, shots: { seat: number }[]): void {
    const d = (ruling as { drill?: { id?: unknown; achieved?: unknown } } | null)?.drill;
    if (!d || typeof d.id !== "string" || d.id !== this.drillRecordOf || this.mySeat === null || shots[0]?.seat !== this.mySeat) return;
    this.drillRecord = this.app.loggedIn ? withStroke(this.drillRecord, d.achieved === true) : noteGuestStroke(localStorage, d.id, d.achieved === true);
  }

  /** The link that opens a practice table at the position now (`#/practice/<code>`), or null. */
  practiceLink(): string | null {
    const code = this.model.practice?.code;
    return code ? `${location.origin}${location.pathname}#/practice/${code}` : null;
  }

  /** A free spot for an added object ball: near the foot spot, off the others. */
  private addBall(): void {
    const p = this.model.preset;
    const st = this.state;
    if (!p || !st || !this.seat || p.kind !== "pool") return;
    const on = new Set(Object.keys(st.layout).map(Number));
    const id = [...Array(15).keys()].map((k) => k + 1).find((k) => !on.has(k));
    if (id === undefined) return;
    const foot = p.spots?.foot ?? [p.length * 0.75, p.width / 2];
    for (let k = 0; k < 300; k++) {
      const ang = k * 2.39996;
      const rad = k === 0 ? 0 : 2.2 * p.ball.radius * Math.sqrt(k);
      const q = placeInHand([foot[0] + rad * Math.cos(ang), foot[1] + rad * Math.sin(ang)], p.ball.radius, p, { region: "table" }, this.othersThan(id));
      if (q) {
        this.sendPractice(out.placeBalls(this.id, this.seat.token, nextSeq(this.id, this.seat), this.layoutWith(id, q)));
        return;
      }
    }
  }

  private renderPractice(): void {
    const pr = this.model.practice;
    this.practiceCard.hidden = !pr;
    if (!pr) return;
    const seated = this.seat !== null && this.mySeat !== null;
    const busy = !seated || !!this.pending || this.playback.busy || !this.app.connected;
    const edit = (type: "undo" | "redo" | "rack" | "start") => {
      if (!this.seat) return;
      const seq = nextSeq(this.id, this.seat);
      const tok = this.seat.token;
      this.sendPractice(type === "undo" ? out.undo(this.id, tok, seq) : type === "redo" ? out.redo(this.id, tok, seq) : out.reset(this.id, tok, seq, type));
    };
    const btn = (id: string, label: string, disabled: boolean, run: () => void, title = "") =>
      h("button", { type: "button", id, class: "small", disabled, title, onclick: run }, label);
    const link = this.practiceLink();
    const linkIn = h("input", { id: "practice-link", type: "text", readonly: true, value: link ?? "", "aria-label": "Link to this position", placeholder: "(no code for this position)" }) as HTMLInputElement;
    const goal = pr.drill ? h("p", { class: "practice-goal", "data-testid": "practice-goal" }, h("b", {}, String(pr.drill.name)), ": ", String(pr.drill.goal ?? "")) : null;
    if (pr.drill && seated) this.loadDrillRecord(String(pr.drill.id));
    const record = pr.drill && seated ? h("p", { class: "hint practice-record", "data-testid": "practice-record" }, recordText(this.drillRecord, !this.app.loggedIn)) : null;
    const liveIn = h("input", { type: "checkbox", id: "practice-live", checked: this.livePreview }) as HTMLInputElement;
    liveIn.addEventListener("change", () => {
      this.livePreview = liveIn.checked;
      if (this.livePreview) this.schedulePreview();
    });
    const live = h("label", { class: "check" }, liveIn, " Live preview (the paths follow the aim)");
    const key = JSON.stringify([pr, seated, busy, link, this.model.preset.kind, !!this.model.lastStroke, this.drillRecord]);
    if (this.practiceEl.dataset.key === key) return; // unchanged: keep the focus and the selection
    this.practiceEl.dataset.key = key;
    this.practiceEl.replaceChildren(...kids(
      goal ?? h("p", { class: "hint" }, pr.kind === "opening" ? "The opening position." : "A shared position."),
      record,
      seated
        ? h(
            "div",
            { class: "buttons practice-buttons" },
            btn("practice-undo", `Undo (${pr.undo})`, busy || pr.undo === 0, () => edit("undo"), "Back to the position before the last change"),
            btn("practice-redo", `Redo (${pr.redo})`, busy || pr.redo === 0, () => edit("redo")),
            btn("practice-retry", "Retry", busy || pr.undo === 0 || !this.model.lastStroke, () => this.retryLast(), "Back to the last stroke's position with its cue set again: shoot it as it was or adjusted"),
            btn("practice-preview", "Preview", busy || !this.canShoot(), () => this.previewStroke(), "Draw the paths of this stroke without playing it"),
            btn("practice-rack", this.model.preset.kind === "pool" ? "Rack" : "Break position", busy, () => edit("rack")),
            pr.start ? btn("practice-start", "Start position", busy, () => edit("start")) : null,
            this.model.preset.kind === "pool" ? btn("practice-add", "Add a ball", busy, () => this.addBall(), "Drag a ball off the table to take it off") : null,
          )
        : null,
      seated ? h("p", { class: "hint" }, this.model.preset.kind === "pool" ? "Drag any ball to place it; drag an object ball off the table to take it off." : "Drag any ball to place it.") : null,
      seated ? live : null,
      h(
        "div",
        { class: "practice-share" },
        linkIn,
        btn("practice-share", "Copy link", !link, () => {
          linkIn.select();
          void navigator.clipboard?.writeText(link ?? "").then(
            () => toast("Link copied: it opens a practice table at this position."),
            () => toast("Select the link and copy it."),
          );
        }),
      ),
    ));
  }

  /** The table is not on the server: a message and a way back instead of the board and its controls. */
  private showMissing(): void {
    this.missing = true;
    this.el.classList.add("missing");
    this.el.dataset.missing = "true";
    this.missingEl.hidden = false;
    this.boardEl.hidden = true;
    this.sideEl.hidden = true;
    if (this.dialog.open) this.dialog.close();
  }

  // ----- rendering ---------------------------------------------------------------------------
  refresh(): void {
    if (this.missing) return;
    const st = this.state;
    const m = this.model;
    this.el.dataset.v = String(this.shown?.v ?? -1);
    this.el.dataset.animating = String(this.playback.animating);
    this.el.dataset.busy = String(this.playback.busy);
    this.el.dataset.mySeat = this.mySeat === null ? "" : String(this.mySeat);
    this.el.dataset.phase = st?.phase ?? "";
    this.el.dataset.toAct = st?.to_act === null || st?.to_act === undefined ? "" : String(st.to_act);
    this.el.dataset.canShoot = String(this.canShoot());
    this.el.classList.toggle("spectating", this.mySeat === null);
    if (!m.loaded || !st) {
      this.statusEl.textContent = this.attached ? "Loading the table..." : "Connecting...";
      this.controlsCard.hidden = true;
      return;
    }
    this.board.preset = m.preset;
    this.controls.setTable(m.preset.ball.mass, m.preset.kind);
    this.board.zones = st.zones ?? null;
    const shoot = st.legal?.shoot ?? null;
    const can = this.canShoot();
    // (at a practice table the shooter and the coach both shoot: both call)
    const mine = this.mySeat !== null && (st.legal?.player === this.mySeat || !!shoot?.lag || !!m.practice);
    this.board.kitchenXMax = shoot?.in_hand?.region === "kitchen" && !this.playback.animating ? shoot.in_hand.x_max ?? m.preset.head_string_x : null;
    this.board.canAim = can;
    this.board.canPlace = can && !!shoot?.in_hand;
    this.board.canCall = can && !!shoot && shoot.call !== "none";
    this.board.canArrange = !!m.practice && this.mySeat !== null && !this.playback.busy && !this.pending;
    this.board.callBall = can ? this.controls.call.ball : null;
    this.board.callPocket = can ? this.controls.call.pocket : null;

    // controls
    this.controlsCard.hidden = this.mySeat === null;
    this.controls.setEnabled(can);
    this.controls.setCallOptions(shoot && mine ? shoot.call : "none", shoot?.balls ?? [], shoot?.pockets ?? [], m.preset.kind);
    this.replayBtn.disabled = !this.lastClip || this.playback.animating;

    const opponent = this.app.tournamentOpponent(this.id);
    const empty = m.practice ? (m.practice.coach ? "Coach (seat open)" : "Practice: no opponent") : opponent ? `Kept for ${opponent}` : undefined;
    const seen = m.practice ? practiceSeats(st) : st;
    this.scoreboard.render(m.discipline, seen, m.seats, this.mySeat, m.clock, this.clockLeft(), empty, !!m.practice);
    const words = this.rulingWords();
    this.rulingEl.textContent = words;
    this.rulingEl.title = words;
    this.rulingEl.classList.toggle("foul", !!this.shown?.ruling?.foul);
    const warn = this.warningWords();
    this.warningEl.textContent = warn;
    this.warningEl.hidden = !warn;
    this.statusText();
    this.renderOptions();
    this.renderPractice();
    this.renderInfo();
    this.renderHistory();
    // the summary comes with the position that ends the game (QA: a spectator catching up saw "Game over" over
    // strokes still being played back)
    const behind = !this.shown?.state?.over;
    this.summary.render(m, `${this.id}/${m.game}`, { rematch: this.rematchAction(), replayHref: `#/replay/${this.id}/${m.game}`, ratings: this.ratingWords(), behind });
    this.renderRated();
    this.syncBoard();
    this.replayBar.update();
    this.syncSound();
    this.fitPortrait();
    this.renderHud(seen, can);
    if (this.livePreview && can) this.schedulePreview();
    if (this.playback.animating) this.animate();
  }

  /** The corners beside the table on a landscape phone: both scores, and Shoot when it is ours. */
  private renderHud(st: GameState, can: boolean): void {
    const m = this.model;
    const b = normalizeScoreboard(st.scoreboard ?? {});
    this.hudScore.replaceChildren(
      ...[0, 1].map((s) =>
        h(
          "div",
          { class: `hud-seat${st.to_act === s && !st.over ? " to-act" : ""}` },
          h("span", {}, m.seats[s]?.name || `Player ${s + 1}`),
          ...kids(seatRatingText(m.seats[s]) !== null ? h("span", { class: "hud-rating", "data-testid": `hud-rating-${s}` }, seatRatingText(m.seats[s])!) : null),
          h("b", {}, String(b.seats[s].score)),
        ),
      ),
    );
    this.hudShoot.hidden = !can;
    // as wide as the margin the table leaves beside it
    const margin = this.board.sideMargin();
    this.canvasWrap.style.setProperty("--hud-w", `${Math.max(44, Math.floor(margin - 6))}px`);
  }

  /** What the board draws that follows input at once: the balls (a ball in hand where it was
   * dragged), the aim from the cue ball, the trails of the stroke shown; then one redraw. */
  private syncBoard(): void {
    const cue = this.canShoot() ? this.cueBall() : null;
    this.board.aim = cue ? { cue: cue.at, cueId: cue.id, phi: this.controls.state.phi, pull: this.pull } : null;
    const rc = cue ? null : this.remoteCue();
    this.board.remoteAim = rc ? { cue: rc.at, cueId: rc.id, phi: rc.phi } : null;
    const fr = this.playback.frame();
    const clip = fr?.clip ?? this.lastClip;
    const showTrails = this.trailsIn.checked && clip !== null && this.model.loaded;
    this.board.trails = showTrails ? this.trailsOf(clip!.log) : null;
    this.board.trailTime = fr ? fr.t : Infinity;
    if (!fr && this.previewTrails && this.previewTrails.v === this.model.v) this.board.trails = this.previewTrails.trails;
    const st = this.state;
    const pool = this.model.loaded && this.model.preset.kind === "pool";
    // the 14.1 lag's two white balls: the second drawn spotted, while they are on the table
    this.board.lagBalls = pool && (fr ? fr.clip.lag : !!st?.legal?.shoot?.lag) ? [0, 1] : null;
    this.board.lagTrails = !!clip?.lag;
    this.board.balls = this.displayBalls();
    this.board.invalidate();
  }

  private animating = false;
  private animate(): void {
    if (this.animating) return;
    this.animating = true;
    const step = () => {
      if (!this.el.isConnected) {
        this.animating = false;
        return;
      }
      this.syncBoard();
      this.board.draw();
      this.replayBar.update();
      this.syncSound();
      if (this.playback.animating) requestAnimationFrame(step);
      else {
        this.animating = false;
        this.refresh();
      }
    };
    requestAnimationFrame(step);
  }

  private statusText(): void {
    this.statusEl.textContent = this.statusWords();
  }

  private statusWords(): string {
    const st = this.state!;
    const m = this.model;
    const name = (s: number | null) => (s === null ? "" : m.playerName(s));
    if (st.over) {
      const r = st.result ?? {};
      const w = typeof r.winner === "number" ? r.winner : null;
      const sc = Array.isArray(r.scores) ? ` (${r.scores.join(" : ")})` : "";
      return w === null ? `Game over: a draw${sc}.` : `Game over: ${name(w)} wins${sc}.`;
    }
    if (this.app.stoppedWhy && this.mySeat !== null) return `${this.app.stoppedWhy} Reload the page to play here.`; // (QA: "Your turn." stayed)
    if (m.practice) return this.practiceWords();
    if (m.seats.some((s) => s === null)) {
      // a tournament's table keeps the other seat for the paired player (QA: "Share the link!" there)
      const opponent = this.app.tournamentOpponent(this.id);
      if (this.mySeat !== null && opponent) return `Tournament game: waiting for ${opponent} to take the seat kept for them.`;
      return this.mySeat !== null ? "Waiting for an opponent to take the other seat. Share the link!" : "Waiting for players.";
    }
    if (this.playback.replaying) return "Replay: the table goes back to the position when it ends.";
    if (this.playback.animating) return "";
    if (this.pending) return "Waiting for the referee...";
    const shoot = st.legal?.shoot;
    if (shoot?.lag) return this.lagWords();
    const p = st.legal?.player ?? st.to_act;
    if (p === null || p === undefined) return "";
    if (p === this.mySeat) {
      if (!shoot) return "Your decision.";
      if (shoot.in_hand) return `Your turn: cue ball in hand${shoot.in_hand.region === "kitchen" ? " behind the head string (kitchen)" : ""}. Drag it to place it.`;
      return "Your turn.";
    }
    return `${name(p)} to ${shoot ? "shoot" : "decide"}.`;
  }

  /** The status line at a practice table: nothing is at stake, the shooter (or the coach) plays on. */
  private practiceWords(): string {
    const st = this.state!;
    if (this.playback.replaying) return "Replay: the table goes back to the position when it ends.";
    if (this.playback.animating) return "";
    if (this.pending) return "Waiting for the referee...";
    if (this.mySeat === null) return "Watching a practice table.";
    const shoot = st.legal?.shoot;
    if (!shoot) return "Practice: a decision of the referee is on offer (Options).";
    if (shoot.in_hand) return `Practice: cue ball in hand${shoot.in_hand.region === "kitchen" ? " behind the head string" : ""}; drag any ball to place it.`;
    return "Practice: drag any ball to place it, preview or shoot; undo to retry.";
  }

  /** The lag in the discipline's own words: 14.1 lags to the foot cushion and back, nearer the
   * head cushion (WPA 3.1); carom to the far short cushion and back, nearer the short cushion it started from. */
  private lagWords(): string {
    // short enough for two lines on an upright phone, where the shot dock lies under them (QA: the third line
    // was under the Shoot bar); "Lag for the break" is on the game line above the table already
    const pool = this.model.preset.kind === "pool";
    const rule = pool ? "to the foot cushion and back; nearer the head cushion wins" : "to the far short cushion and back; nearer the cushion it left wins";
    if (this.mySeat === null) return `Lag: both players send their ball ${rule}.`;
    if (this.lagSent) return "Lag played; waiting for the opponent's.";
    const ball = pool ? (this.mySeat === 0 ? "the plain white" : "the spotted white") : this.mySeat === 0 ? "the white" : "the yellow";
    return `Lag: send your ball (${ball}) ${rule}.`;
  }

  private clockLeft(): number | null {
    const c = this.model.clock;
    if (!c) return null;
    return c.deadline - (Date.now() / 1000 + this.app.clockOffset);
  }

  private tickClock(): void {
    if (this.model.clock && this.state) this.scoreboard.render(this.model.discipline, this.state, this.model.seats, this.mySeat, this.model.clock, this.clockLeft(), undefined, !!this.model.practice);
  }

  /** The rematch button's label and action for a seated player after the game, or null. */
  private rematchAction(): { label: string; disabled: boolean; run: () => void } | null {
    const st = this.state;
    const m = this.model;
    const tok = this.seat?.token;
    if (!tok || this.mySeat === null || !st?.over || m.seats.some((s) => s === null)) return null;
    // the offer names who makes it (QA: "Accept the rematch" alone did not say that the opponent had offered one)
    const by = m.seats[1 - this.mySeat]?.name;
    if (m.rematch[1 - this.mySeat])
      return { label: by ? `Accept ${by}'s rematch` : "Accept the rematch", disabled: false, run: () => this.app.send(out.rematchAccept(this.id, tok)) };
    if (m.rematch[this.mySeat]) return { label: "Rematch offered", disabled: true, run: () => {} };
    return { label: "Offer a rematch", disabled: false, run: () => this.app.send(out.rematchOffer(this.id, tok)) };
  }

  /** Each seat's rating change in words (null: a casual table; "" per seat while the server records the game). */
  private ratingWords(): [string, string] | null {
    const m = this.model;
    if (!m.rated) return null;
    if (m.aborted()) return ["not rated (aborted)", "not rated (aborted)"];
    return [0, 1].map((s) => {
      const r = m.ratingChangeOf(s);
      return r ? ratingChangeText(r.before, r.after) : "";
    }) as [string, string];
  }

  /** Under the history, once the game is over: "Ratings: Ann 1500 → 1662 (+162), Bob ...". */
  private renderRated(): void {
    const m = this.model;
    const over = m.loaded && m.state.over && m.rated;
    this.ratedEl.hidden = !over;
    if (!over) return;
    const words = this.ratingWords() ?? ["", ""];
    const name = (s: number) => m.playerName(s);
    const text = m.aborted() ? "Not rated: the game was aborted before both players had played a stroke." : words.every((w) => w === "") ? "Rated game: the new ratings come once the game is recorded..." : `Ratings: ${[0, 1].filter((s) => words[s]).map((s) => `${name(s)} ${words[s]}`).join(", ")}`;
    if (this.ratedEl.textContent !== text) this.ratedEl.textContent = text;
  }

  /** The history beside the table: the entries up to the position shown (a stroke being animated
   * is listed when its animation ends, so the list never spoils it). */
  private renderHistory(): void {
    const m = this.model;
    const shownV = this.shown?.v ?? -1;
    const entries = m.history.entries.filter((e) => e.v < 0 || e.v <= shownV);
    this.historyList.render(entries, m.discipline, m.playerNames(), m.history.complete);
  }

  private renderOptions(): void {
    // a practice table has nobody to offer a stalemate to (QA: it was offered)
    const decisions = this.myDecisions().filter((d) => !(this.model.practice && d.name === "OFFER_STALEMATE"));
    const shoot = this.shootOptions();
    const btn = (d: DecisionOption, arg: unknown) =>
      h(
        "button",
        { type: "button", class: "decision", "data-decision": d.name, "data-arg": JSON.stringify(arg ?? null), onclick: () => this.decide(d.name, arg) },
        decisionLabel(d.name, arg, this.mySeat),
      );
    const buttons = (ds: DecisionOption[]) => ds.flatMap((d) => (d.args && d.args.length ? d.args.map((a) => btn(d, a)) : [btn(d, null)]));
    // a decision with no stroke on offer blocks the game: a dialog; otherwise options beside the controls
    const blocking = decisions.length > 0 && !shoot;
    const st = this.state!;
    const m = this.model;
    const tok = this.seat?.token;
    // resigning is open to a seated player whenever the game runs, a pending decision included:
    // the modal dialog makes the page behind it inert, so it carries its own Resign (CI found a
    // player who could not resign while the dialog waited)
    const resign = tok && this.mySeat !== null && !st.over && m.seats.every((s) => s !== null) && this.resignSent !== m.game
      ? () => {
          if (this.resignSent === m.game || !confirm("Resign this game?")) return;
          this.resignSent = m.game;
          this.app.send(out.resign(this.id, tok));
          this.refresh();
        }
      : null;
    const key = blocking ? JSON.stringify([this.shown?.v, decisions, resign !== null]) : "";
    if (blocking) {
      if (this.dialogKey !== key) {
        this.dialogKey = key;
        const r = this.rulingWords();
        this.dialog.replaceChildren(
          ...kids(
            h("h3", {}, "Your decision"),
            r ? h("p", { class: "ruling" }, r) : null,
            h("div", { class: "decisions" }, ...buttons(decisions)),
            resign ? h("button", { type: "button", class: "danger dialog-resign", "data-testid": "dialog-resign", onclick: resign }, "Resign") : null,
          ),
        );
        if (!this.dialog.open) {
          try {
            this.dialog.showModal();
          } catch {
            this.dialog.setAttribute("open", "");
          }
        }
      }
    } else if (this.dialog.open || this.dialogKey) {
      this.dialogKey = "";
      this.dialog.close();
    }
    this.optionsEl.replaceChildren(...(blocking ? [] : buttons(decisions)));
    if (!decisions.length || blocking) this.optionsEl.append(h("div", { class: "hint" }, blocking ? "A decision is waiting in the dialog." : "No options on offer."));

    // seat actions: resign, leave, rematch, claim, take a seat
    const acts: HTMLElement[] = [];
    if (tok && this.mySeat !== null) {
      if (resign) acts.push(h("button", { type: "button", id: "resign-btn", class: "danger", onclick: resign }, "Resign"));
      const opp = m.seats[1 - this.mySeat];
      const now = Date.now() / 1000 + this.app.clockOffset;
      if (!st.over && opp && !opp.connected && opp.grace_until !== null && opp.grace_until < now)
        acts.push(h("button", { type: "button", id: "claim-btn", onclick: () => this.app.send(out.claim(this.id, tok)) }, "Claim the game"));
      const re = this.rematchAction();
      if (re) acts.push(h("button", { type: "button", id: "rematch-btn", class: re.label.startsWith("Accept") ? "primary" : "", disabled: re.disabled, onclick: re.run }, re.label));
      acts.push(
        h(
          "button",
          {
            type: "button",
            id: "leave-seat-btn",
            onclick: () => {
              if (!st.over && !confirm("Leave your seat? A game in progress is forfeited.")) return;
              this.app.send(out.leave(this.id, tok));
            },
          },
          "Leave seat",
        ),
      );
    } else if (m.seats.some((s) => s === null)) {
      acts.push(h("button", { type: "button", id: "take-seat-btn", class: "primary", onclick: () => this.app.send(out.join(this.id)) }, "Take the free seat"));
    }
    this.seatActionsEl.replaceChildren(...acts);
    // a spectator with nothing to do here (both seats taken) does not see an empty card
    (this.optionsEl.parentElement as HTMLElement).hidden = this.mySeat === null && acts.length === 0;
  }

  private renderInfo(): void {
    const m = this.model;
    if (!m.loaded) return;
    const link = `${location.origin}${location.pathname}#/table/${this.id}`;
    const copy = (text: string) => () => {
      navigator.clipboard?.writeText(text).then(
        () => toast("Link copied."),
        () => toast(text),
      );
    };
    const cfg = m.config ?? {};
    const facts: string[] = [disciplineLabel(m.discipline)];
    // a practice table plays to nothing: no target or distance there
    if (cfg.target_points && !m.practice) facts.push(`to ${Array.isArray(cfg.target_points) ? cfg.target_points.join("/") : cfg.target_points} points`);
    if (cfg.distance && !cfg.disciplines && !m.practice) facts.push(`distance ${cfg.distance}`);
    if (cfg.inning_limit) facts.push(`${cfg.inning_limit} innings`);
    if (cfg.sets) facts.push(`best of ${2 * cfg.sets.sets_to_win - 1} sets to ${cfg.sets.set_distance}`);
    if (cfg.shot_clock) facts.push(`shot clock ${cfg.shot_clock.limit_s} s`);
    facts.push(m.preset.name);
    if (m.isPrivate) facts.push("private");
    const replay = this.state?.over ? `${location.origin}${location.pathname}#/replay/${this.id}/${m.game}` : null;
    this.infoEl.replaceChildren(
      ...kids(
      h("div", { class: "facts" }, facts.join(" \u00b7 ")),
      h("div", { class: "spectators" }, "Spectators: ", h("strong", { "data-testid": "spectators" }, String(m.spectators))),
      h("div", { class: "share" }, h("input", { type: "text", readonly: true, value: link, "aria-label": "Link to this table", id: "share-link" }), h("button", { type: "button", onclick: copy(link) }, "Copy")),
      replay ? h("div", { class: "share" }, h("a", { href: replay, id: "replay-link" }, "Replay of this game"), h("button", { type: "button", onclick: copy(replay) }, "Copy")) : null,
      ),
    );
  }

  /** A spectator's line is shown to spectators; to a player only with the switch on (players' lines to all). */
  get spectatorChatShown(): boolean {
    return this.mySeat === null || this.spectatorChatIn.checked;
  }

  private renderChat(): void {
    this.spectatorChatEl.hidden = this.mySeat === null; // the switch is a player's
    this.chatList.replaceChildren();
    for (const c of this.model.chat) this.appendChat(c.name, c.text, c.seat);
  }

  private appendChat(name: string, text: string, seat: number | null): void {
    if (seat === null && !this.spectatorChatShown) return;
    this.chatList.append(h("li", {}, h("span", { class: `who ${seat === null ? "spectator" : `seat-${seat}`}` }, name || "guest"), " ", text));
    while (this.chatList.children.length > 200) this.chatList.firstChild?.remove();
    this.chatList.scrollTop = this.chatList.scrollHeight;
  }

  // ----- test and debugging hooks ----------------------------------------------------------------
  /** CSS-pixel position (relative to the page) of ball `id` as drawn now, or null. */
  ballOnScreen(id: number): { x: number; y: number; r: number } | null {
    return this.board.ballOnPage(id);
  }

  /** CSS-pixel position (relative to the page) of a table point (m). */
  pointOnScreen(x: number, y: number): { x: number; y: number } {
    return this.board.pointOnPage(x, y);
  }

  /** The aim angle pointing from the cue ball at a table point (for tests of the drag-to-aim path). */
  aimAt(x: number, y: number): number | null {
    const c = this.cueBall();
    return c ? aimAngle(c.at, [x, y]) : null;
  }

  /** The cue-ball speed (m/s) of a pull-back by `p` (0..1 of a full pull). */
  speedOfPull(p: number): number {
    return pullSpeed(p);
  }

  /** The pull-back (0..1 of a full pull) that gives the cue ball `speed` m/s (for tests of the pull-back). */
  pullFor(speed: number): number {
    return positionOf(speed);
  }

  /** Where the cue ball in hand is placed now (m), or null. */
  get placementNow(): Vec2 | null {
    return this.placement;
  }

  /** Everything a test needs to know about this view, as plain data. */
  debug(): Record<string, unknown> {
    const ls = this.model.lastStroke;
    return {
      v: this.shown?.v ?? -1,
      modelV: this.model.v,
      stateV: this.model.stateV,
      busy: this.playback.busy,
      mySeat: this.mySeat,
      canShoot: this.canShoot(),
      pending: this.pending !== null,
      state: this.shown?.state ?? null,
      seats: this.model.seats,
      spectators: this.model.spectators,
      preset: this.model.loaded ? this.model.preset.name : null,
      discipline: this.model.discipline,
      config: this.model.config,
      game: this.model.game,
      placement: this.placement,
      stroke: { ...this.controls.state },
      call: { ...this.controls.call },
      dialogOpen: this.dialog.open,
      lastStroke: ls ? { v: ls.v, shots: ls.shots, log: ls.raw, ruling: ls.ruling, lag: ls.lag } : null,
      lastRuling: this.model.lastRuling,
      history: this.model.history.entries.map((e) => ({ i: e.i, v: e.v, kind: e.kind, seat: e.seat, call: e.call, decision: e.decision, ruling: e.ruling })),
      historyComplete: this.model.history.complete,
      rated: this.model.rated,
      ratedResult: this.model.ratedResult,
      playback: { animating: this.playback.animating, replaying: this.playback.replaying, paused: this.playback.paused, t: this.playback.time, duration: this.playback.duration, speed: this.playback.speed, clip: this.playback.clip?.key ?? null },
      trails: this.board.trails ? this.board.trails.map((t) => ({ ball: t.ball, cue: t.cue, cushions: t.cushions.map((c) => c.n), points: t.points.length })) : null,
      remoteAim: this.board.remoteAim,
      practice: this.model.practice,
      arranging: this.arranging,
      sound: { ready: this.app.sound.ready, muted: this.app.sound.muted, played: this.app.sound.played.length },
    };
  }

  static disciplines = DISCIPLINES;
}
