/**
 * The table screen: scoreboard, canvas, stroke controls, call, decisions, chat, spectators,
 * playback (replay last shot, skip), sharing. Players and spectators see the same stream; only a
 * seated player gets controls, and only when the referee lets that seat act.
 */

import { aimAngle, placeInHand } from "../aim/contact";
import { Playback, Shown } from "../game/playback";
import { TableModel } from "../game/model";
import { DISCIPLINES, decisionLabel, disciplineLabel } from "../game/names";
import { SeatRecord, forgetSeat, loadSeat, nextSeq, saveSeat } from "../game/seats";
import { POCKETED } from "../physics/motion";
import type { Call, DecisionOption, ErrorMsg, GameState, ServerMsg, ShootOptions, StreamMsg, Vec2 } from "../protocol/messages";
import { LIMITS, STREAM_TYPES, out } from "../protocol/messages";
import { Board, BallView } from "./board";
import { StrokeControls, V0_MIN } from "./controls";
import { h, kids, toast } from "./dom";
import { Scoreboard, rulingText } from "./scoreboard";

export interface AppLink {
  send(msg: object): boolean;
  readonly connected: boolean;
  /** server time minus local time (s) */
  readonly clockOffset: number;
  readonly playerName: string;
}

/** Seconds a pocketed ball takes to disappear into its pocket in the animation. */
const SINK_S = 0.25;

/** Cue speed (m/s) for a full pull-back. */
const PULL_V0_MAX = 8.0;

/** Cue speed (m/s) of a pull-back by ``p`` (0..1) of a full pull. */
function pullSpeed(p: number): number {
  return Math.max(V0_MIN, p * PULL_V0_MAX);
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
  private placement: Vec2 | null = null;
  private pull = 0;
  private lagSent = false;
  private statusEl: HTMLElement;
  private rulingEl: HTMLElement;
  private optionsEl: HTMLElement;
  private seatActionsEl: HTMLElement;
  private infoEl: HTMLElement;
  private chatList: HTMLElement;
  private chatInput: HTMLInputElement;
  private controlsCard: HTMLElement;
  private dialog: HTMLDialogElement;
  private dialogKey = "";
  private replayBtn: HTMLButtonElement;
  private skipBtn: HTMLButtonElement;
  private clockTimer: ReturnType<typeof setInterval>;
  private keyHandler: (e: KeyboardEvent) => void;
  attached = false;
  private catchingUp = false;

  constructor(
    readonly id: string,
    private readonly app: AppLink,
  ) {
    this.model = new TableModel(id);
    this.seat = loadSeat(id);
    this.playback = new Playback((s) => this.onShown(s));
    this.controls = new StrokeControls(
      () => this.redrawAim(),
      () => this.shoot(),
      () => this.onCallChange(),
    );
    const canvasWrap = h("div", { class: "canvas-wrap" });
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
          this.controls.set({ V0: pullSpeed(p) });
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
    });
    this.statusEl = h("div", { class: "status-line", "data-testid": "turn-status", role: "status" });
    this.rulingEl = h("div", { class: "ruling", "data-testid": "ruling", "aria-live": "polite" });
    this.replayBtn = h("button", { id: "replay-btn", type: "button", onclick: () => this.replayLast() }, "Replay last shot") as HTMLButtonElement;
    this.skipBtn = h("button", { id: "skip-btn", type: "button", onclick: () => this.playback.skip() }, "Skip") as HTMLButtonElement;
    const speedSel = h(
      "select",
      { id: "speed", "aria-label": "Animation speed" },
      ...[1, 2, 4].map((s) => h("option", { value: s }, `${s}\u00d7`)),
    ) as HTMLSelectElement;
    speedSel.addEventListener("change", () => (this.playback.speed = Number(speedSel.value)));
    this.optionsEl = h("div", { class: "options" });
    this.seatActionsEl = h("div", { class: "seat-actions" });
    this.infoEl = h("div", { class: "info" });
    this.chatList = h("ul", { class: "chat-list", "aria-live": "polite", "data-testid": "chat" });
    this.chatInput = h("input", { id: "chat-input", type: "text", maxlength: LIMITS.MAX_CHAT_CHARS, placeholder: "Say something", "aria-label": "Chat message", autocomplete: "off" }) as HTMLInputElement;
    const chatForm = h("form", { class: "chat-form" }, this.chatInput, h("button", { type: "submit" }, "Send"));
    chatForm.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = this.chatInput.value.trim();
      if (!text) return;
      if (this.app.send(out.chat(this.id, text))) this.chatInput.value = "";
    });
    this.controlsCard = h("section", { class: "card controls-card", "aria-label": "Stroke" }, h("h3", {}, "Your stroke"), this.controls.el);
    this.dialog = h("dialog", { class: "decision-dialog", "data-testid": "decision-dialog" }) as HTMLDialogElement;
    this.dialog.addEventListener("cancel", (e) => e.preventDefault());
    this.el = h(
      "section",
      { class: "table-view", "data-table-id": id },
      h(
        "div",
        { class: "board" },
        this.scoreboard.el,
        this.statusEl,
        canvasWrap,
        h("div", { class: "playback" }, this.replayBtn, this.skipBtn, speedSel, this.rulingEl),
      ),
      h(
        "aside",
        { class: "side" },
        this.controlsCard,
        h("section", { class: "card options-card" }, h("h3", {}, "Options"), this.optionsEl, this.seatActionsEl),
        h("section", { class: "card" }, h("h3", {}, "Table"), this.infoEl),
        h("section", { class: "card chat-card" }, h("h3", {}, "Chat"), this.chatList, chatForm),
      ),
      this.dialog,
    );
    this.clockTimer = setInterval(() => this.tickClock(), 250);
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keyHandler);
    this.refresh();
  }

  destroy(): void {
    clearInterval(this.clockTimer);
    document.removeEventListener("keydown", this.keyHandler);
    this.board.destroy();
    if (this.app.connected && this.seat === null) this.app.send(out.leave(this.id));
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
      this.refresh();
      return;
    }
    if (m.type === "spectators") {
      if (m.table !== this.id) return;
      this.model.spectators = m.count;
      this.renderInfo();
      return;
    }
    if (m.type === "error") {
      this.onError(m);
      return;
    }
    if (STREAM_TYPES.has(m.type)) this.onStream(m as StreamMsg);
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
        this.playback.clear();
        this.lagSent = false;
        this.onShown({ state: this.model.state, ruling: this.model.lastRuling, v: this.model.v });
        this.renderChat();
        break;
      case "stroke":
        this.catchingUp = false;
        if (this.pending && r.stroke.shots.some((s) => s.seat === this.mySeat && s.seq === this.pending!.seq)) this.pending = null;
        if (r.stroke.lag) this.lagSent = false;
        this.playback.push({ kind: "stroke", stroke: r.stroke, v: r.stroke.v });
        break;
      case "ruling": {
        this.catchingUp = false;
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
    }
    this.refresh();
  }

  private onError(m: ErrorMsg): void {
    if (m.table !== undefined && m.table !== this.id) return;
    if (this.pending && (m.seq === this.pending.seq || m.ref === this.pending.kind)) {
      this.pending = null;
      if (m.code === "duplicate_sequence") return; // already played: its stream message will (or did) arrive
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
    if (m.code === "no_such_table") {
      this.statusEl.textContent = "This table does not exist (any more).";
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
    if (this.model.seats.some((s) => s === null)) return false;
    if (shoot.lag) return !this.lagSent;
    return st.legal?.player === this.mySeat;
  }

  private myDecisions(): DecisionOption[] {
    const st = this.state;
    if (!st?.legal || st.over || this.mySeat === null || this.pending || this.playback.animating) return [];
    if (st.legal.player !== this.mySeat) return [];
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
        const since = fr.t - (fr.stroke.log.pocketedAt(id) ?? -Infinity);
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
    if (shoot?.in_hand && shoot.cue_ball !== null && this.mySeat !== null && st.legal?.player === this.mySeat && this.placement) {
      const cb = shoot.cue_ball;
      const i = balls.findIndex((b) => b.id === cb);
      if (i >= 0) balls.splice(i, 1);
      balls.push({ id: cb, x: this.placement[0], y: this.placement[1] });
    }
    return balls;
  }

  /** The ruling shown, in words, with the seated players' names for the seats it names. */
  private rulingWords(): string {
    return rulingText(this.shown?.ruling ?? null, this.model.discipline, this.model.seats.map((s) => s?.name));
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
      this.board.invalidate();
    }
  }

  /** The aim line, ghost ball and cue stick follow the controls at once (aim angle, pull-back). */
  private redrawAim(): void {
    const a = this.board.aim;
    if (a) this.board.aim = { ...a, phi: this.controls.state.phi, pull: this.pull };
    this.board.invalidate();
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

  private replayLast(): void {
    const s = this.model.lastStroke;
    if (!s || !this.shown || this.playback.animating) return;
    this.playback.replay(s, this.shown);
    this.refresh();
  }

  private onCallChange(): void {
    this.refresh();
  }

  private onKey(e: KeyboardEvent): void {
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT") && t !== document.body) return;
    if (!this.el.isConnected || this.dialog.open) return;
    const fine = e.shiftKey ? 1 : e.altKey || e.ctrlKey ? 0.01 : 0.1;
    switch (e.key) {
      case "ArrowLeft":
        this.controls.nudge(fine);
        break;
      case "ArrowRight":
        this.controls.nudge(-fine);
        break;
      case "ArrowUp":
        this.controls.set({ V0: this.controls.state.V0 + (e.shiftKey ? 1 : 0.1) });
        break;
      case "ArrowDown":
        this.controls.set({ V0: this.controls.state.V0 - (e.shiftKey ? 1 : 0.1) });
        break;
      case "Enter":
        if (t && t.tagName === "BUTTON") return;
        this.shoot();
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  // ----- rendering ---------------------------------------------------------------------------
  refresh(): void {
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
    this.board.zones = st.zones ?? null;
    const shoot = st.legal?.shoot ?? null;
    const can = this.canShoot();
    const mine = this.mySeat !== null && (st.legal?.player === this.mySeat || !!shoot?.lag);
    this.board.kitchenXMax = shoot?.in_hand?.region === "kitchen" && !this.playback.animating ? shoot.in_hand.x_max ?? m.preset.head_string_x : null;
    this.board.canAim = can;
    this.board.canPlace = can && !!shoot?.in_hand;
    this.board.canCall = can && !!shoot && shoot.call !== "none";
    this.board.allWhite = m.preset.kind === "pool" && (this.playback.playing?.lag ?? !!shoot?.lag);
    const cue = can ? this.cueBall() : null;
    this.board.aim = cue ? { cue: cue.at, cueId: cue.id, phi: this.controls.state.phi, pull: this.pull } : null;
    this.board.callBall = can ? this.controls.call.ball : null;
    this.board.callPocket = can ? this.controls.call.pocket : null;

    // controls
    this.controlsCard.hidden = this.mySeat === null;
    this.controls.setEnabled(can);
    this.controls.setCallOptions(shoot && mine ? shoot.call : "none", shoot?.balls ?? [], shoot?.pockets ?? [], m.preset.kind);
    this.replayBtn.disabled = !m.lastStroke || this.playback.animating;
    this.skipBtn.disabled = !this.playback.animating;

    this.scoreboard.render(m.discipline, st, m.seats, this.mySeat, m.clock, this.clockLeft());
    this.rulingEl.textContent = this.rulingWords();
    this.statusEl.textContent = this.statusText();
    this.renderOptions();
    this.renderInfo();
    this.board.balls = this.displayBalls();
    this.board.invalidate();
    if (this.playback.animating) this.animate();
  }

  private animating = false;
  private animate(): void {
    if (this.animating) return;
    this.animating = true;
    const step = () => {
      this.board.balls = this.displayBalls();
      this.board.draw();
      if (this.playback.animating) requestAnimationFrame(step);
      else {
        this.animating = false;
        this.refresh();
      }
    };
    requestAnimationFrame(step);
  }

  private statusText(): string {
    const st = this.state!;
    const m = this.model;
    const name = (s: number | null) => (s === null ? "" : m.seats[s]?.name || `Player ${s + 1}`);
    if (st.over) {
      const r = st.result ?? {};
      const w = typeof r.winner === "number" ? r.winner : null;
      const sc = Array.isArray(r.scores) ? ` (${r.scores.join(" : ")})` : "";
      return w === null ? `Game over: a draw${sc}.` : `Game over: ${name(w)} wins${sc}.`;
    }
    if (m.seats.some((s) => s === null)) return this.mySeat !== null ? "Waiting for an opponent to take the other seat. Share the link!" : "Waiting for players.";
    if (this.playback.animating) return "";
    if (this.pending) return "Waiting for the referee...";
    const shoot = st.legal?.shoot;
    if (shoot?.lag) return this.mySeat === null ? "Lag for the break: both players shoot." : this.lagSent ? "Lag played; waiting for the opponent's." : "Lag for the break: send your ball to the foot cushion and back, closest to the head cushion wins.";
    const p = st.legal?.player ?? st.to_act;
    if (p === null || p === undefined) return "";
    if (p === this.mySeat) {
      if (!shoot) return "Your decision.";
      if (shoot.in_hand) return `Your turn: cue ball in hand${shoot.in_hand.region === "kitchen" ? " behind the head string (kitchen)" : ""}. Drag it to place it.`;
      return "Your turn.";
    }
    return `${name(p)} to ${shoot ? "shoot" : "decide"}.`;
  }

  private clockLeft(): number | null {
    const c = this.model.clock;
    if (!c) return null;
    return c.deadline - (Date.now() / 1000 + this.app.clockOffset);
  }

  private tickClock(): void {
    if (this.model.clock && this.state) this.scoreboard.render(this.model.discipline, this.state, this.model.seats, this.mySeat, this.model.clock, this.clockLeft());
  }

  private renderOptions(): void {
    const decisions = this.myDecisions();
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
    const key = blocking ? JSON.stringify([this.shown?.v, decisions]) : "";
    if (blocking) {
      if (this.dialogKey !== key) {
        this.dialogKey = key;
        const r = this.rulingWords();
        this.dialog.replaceChildren(
          ...kids(h("h3", {}, "Your decision"), r ? h("p", { class: "ruling" }, r) : null, h("div", { class: "decisions" }, ...buttons(decisions))),
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
    const st = this.state!;
    const m = this.model;
    const acts: HTMLElement[] = [];
    const tok = this.seat?.token;
    if (tok && this.mySeat !== null) {
      if (!st.over && m.seats.every((s) => s !== null)) acts.push(h("button", { type: "button", id: "resign-btn", class: "danger", onclick: () => confirm("Resign this game?") && this.app.send(out.resign(this.id, tok)) }, "Resign"));
      const opp = m.seats[1 - this.mySeat];
      const now = Date.now() / 1000 + this.app.clockOffset;
      if (!st.over && opp && !opp.connected && opp.grace_until !== null && opp.grace_until < now)
        acts.push(h("button", { type: "button", id: "claim-btn", onclick: () => this.app.send(out.claim(this.id, tok)) }, "Claim the game"));
      if (st.over && m.seats.every((s) => s !== null)) {
        const offeredByOpp = m.rematch[1 - this.mySeat];
        const offeredByMe = m.rematch[this.mySeat];
        if (offeredByOpp) acts.push(h("button", { type: "button", id: "rematch-btn", class: "primary", onclick: () => this.app.send(out.rematchAccept(this.id, tok)) }, "Accept the rematch"));
        else acts.push(h("button", { type: "button", id: "rematch-btn", disabled: offeredByMe, onclick: () => this.app.send(out.rematchOffer(this.id, tok)) }, offeredByMe ? "Rematch offered" : "Offer a rematch"));
      }
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
    if (cfg.target_points) facts.push(`to ${Array.isArray(cfg.target_points) ? cfg.target_points.join("/") : cfg.target_points} points`);
    if (cfg.distance && !cfg.disciplines) facts.push(`distance ${cfg.distance}`);
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

  private renderChat(): void {
    this.chatList.replaceChildren();
    for (const c of this.model.chat) this.appendChat(c.name, c.text, c.seat);
  }

  private appendChat(name: string, text: string, seat: number | null): void {
    this.chatList.append(h("li", {}, h("span", { class: `who ${seat === null ? "spectator" : `seat-${seat}`}` }, name || "guest"), " ", text));
    while (this.chatList.children.length > 200) this.chatList.firstChild?.remove();
    this.chatList.scrollTop = this.chatList.scrollHeight;
  }

  // ----- test and debugging hooks ----------------------------------------------------------------
  /** CSS-pixel position (relative to the page) of ball `id` as drawn now, or null. */
  ballOnScreen(id: number): { x: number; y: number; r: number } | null {
    const b = this.board.balls.find((q) => q.id === id && !q.pocketed);
    if (!b) return null;
    const rect = this.board.canvas.getBoundingClientRect();
    const [sx, sy] = this.board.screenOf(b.x, b.y);
    return { x: rect.left + sx, y: rect.top + sy, r: this.board.R * this.board.vp.scale };
  }

  /** CSS-pixel position (relative to the page) of a table point (m). */
  pointOnScreen(x: number, y: number): { x: number; y: number } {
    const rect = this.board.canvas.getBoundingClientRect();
    const [sx, sy] = this.board.screenOf(x, y);
    return { x: rect.left + sx, y: rect.top + sy };
  }

  /** The aim angle pointing from the cue ball at a table point (for tests of the drag-to-aim path). */
  aimAt(x: number, y: number): number | null {
    const c = this.cueBall();
    return c ? aimAngle(c.at, [x, y]) : null;
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
    };
  }

  static disciplines = DISCIPLINES;
}
