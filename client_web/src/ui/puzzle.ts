/**
 * The puzzle page (`#/puzzle`: the puzzle of the day, `#/puzzle/<id>`): the position on the table,
 * the goal, the puzzle's rating and how often it was solved; the stroke set exactly as at a practice
 * table (drag to aim, fine aim, tip, elevation, power, pull back from the cue ball to play; at 14.1 a
 * ball and a pocket called by clicking them). "Play" posts the attempt (puzzles/model.ts builds the
 * body); the server's stroke is animated with its trails, then Solved / Missed with the referee's
 * ruling, the attempt number and, for an account's first attempt, the rating change. Then: try again
 * (the same position, the stroke as it was), show the solution (animated with its trails, its
 * stroke in numbers), practise the position (`#/practice/<code>`), the next puzzle.
 *
 * Plain HTTP (api.ts), no socket. Errors (no puzzle, too many attempts, the network) are said on
 * the page, which stays usable.
 */

import { api } from "../api";
import { disciplineLabel } from "../game/names";
import { Playback } from "../game/playback";
import { Trail, buildTrails } from "../game/trails";
import { POCKETED } from "../physics/motion";
import { cueBallSpeed, cueOf } from "../physics/cue";
import type { ShotLog } from "../physics/shotlog";
import { ratingText } from "../players/model";
import {
  AttemptResult,
  POSITION_CODE,
  Puzzle,
  attemptBody,
  guestRecord,
  noteGuestAttempt,
  parseAttempt,
  parsePuzzle,
  playsText,
  puzzleErrorText,
  puzzleRatingLine,
  ratingLine,
  recordLog,
  resultError,
  standingText,
  strokeWords,
  verdictText,
} from "../puzzles/model";
import { tableBox } from "../view/render";
import { Board, BallView } from "./board";
import { StrokeControls } from "./controls";
import { h, kids } from "./dom";
import { speedAt } from "./power";

/** A phone held upright: the table at the full width, the loupe on (as at a game table). */
const PORTRAIT_PHONE = window.matchMedia("(max-width: 900px) and (orientation: portrait)");

type Phase = "loading" | "error" | "aiming" | "sending" | "playing" | "result";

export class PuzzlePage {
  readonly el: HTMLElement;
  private board: Board;
  private controls: StrokeControls;
  private playback: Playback<string>;
  private puzzle: Puzzle | null = null;
  private phase: Phase = "loading";
  /** the last attempt's answer (its solution stays available for "Show solution") */
  private result: AttemptResult | null = null;
  /** what is drawn: the position, or a stroke's log at its end (trails on) */
  private shownLog: ShotLog | null = null;
  private trails = new WeakMap<ShotLog, Trail[]>();
  private pull = 0;
  private controlsKey = "";
  private frame = 0;
  private destroyed = false;
  private headEl: HTMLElement;
  private goalEl: HTMLElement;
  private factsEl: HTMLElement;
  private statusEl: HTMLElement;
  private resultEl: HTMLElement;
  private actionsEl: HTMLElement;
  private errorEl: HTMLElement;
  private wrap: HTMLElement;
  private boardEl: HTMLElement;
  private sideEl: HTMLElement;
  private playBtn: HTMLButtonElement;
  private hudPlay: HTMLButtonElement;
  private hudGoal: HTMLElement;
  private keyHandler: (e: KeyboardEvent) => void;
  private fitHandler: () => void;

  constructor(
    /** the puzzle's id; null: the puzzle of the day */
    private readonly id: number | null,
    /** a malformed id from the link (the page says so, nothing is fetched) */
    bad: string | null = null,
  ) {
    this.wrap = h("div", { class: "canvas-wrap" });
    this.board = new Board(this.wrap, {
      onAim: (phi) => this.controls.set({ phi }),
      onPlace() {},
      onPullChange: (p) => {
        this.pull = p;
        this.controls.previewPower(p > 0 ? speedAt(p) : null);
        this.sync();
      },
      onPullRelease: (p) => {
        this.pull = 0;
        this.controls.previewPower(null);
        if (p > 0.03) {
          this.controls.set({ speed: speedAt(p) });
          void this.play();
        }
        this.sync();
      },
      onCallBall: (b) => {
        this.controls.call = { ball: b, pocket: this.controls.call.pocket, safety: false };
        this.sync();
      },
      onCallPocket: (p) => {
        this.controls.call = { ball: this.controls.call.ball, pocket: p, safety: false };
        this.sync();
      },
    });
    this.playback = new Playback<string>(() => this.clipEnded());
    this.controls = new StrokeControls(
      () => this.sync(),
      () => void this.play(),
      () => this.sync(),
    );
    // one Play button, under the table (and beside it on a phone held sideways)
    this.controls.shootBtn.style.display = "none"; // (the style sheet displays it: `hidden` alone would not)
    // a puzzle asks for a pot or a carom: no safety to declare
    (this.controls.safetyIn.closest("label") as HTMLElement).hidden = true;
    this.playBtn = h("button", { type: "button", id: "puzzle-play", class: "primary shoot", onclick: () => void this.play() }, "Play") as HTMLButtonElement;
    this.hudPlay = h("button", { type: "button", id: "puzzle-hud-play", class: "primary", onclick: () => void this.play() }, "Play") as HTMLButtonElement;
    // a phone held sideways: the goal (then the verdict) in the margin left of the table, Play in the right one
    this.hudGoal = h("div", { class: "hud-seat puzzle-hud-goal", "data-testid": "puzzle-hud-goal" });
    this.wrap.append(h("div", { class: "hud hud-score" }, this.hudGoal), h("div", { class: "hud hud-act" }, this.hudPlay));
    this.headEl = h("h2", { class: "puzzle-title", "data-testid": "puzzle-title" }, "Puzzle");
    this.goalEl = h("p", { class: "puzzle-goal", "data-testid": "puzzle-goal" });
    this.factsEl = h("div", { class: "puzzle-facts", "data-testid": "puzzle-facts" });
    this.statusEl = h("div", { class: "status-line", "data-testid": "puzzle-status", role: "status" }, bad ? "" : "Loading the puzzle...");
    this.resultEl = h("div", { class: "puzzle-result", "data-testid": "puzzle-result", "aria-live": "polite", hidden: true });
    this.actionsEl = h("div", { class: "puzzle-actions buttons" });
    this.errorEl = h("section", { class: "card puzzle-error", "data-testid": "puzzle-error", role: "alert", hidden: true });
    this.boardEl = h(
      "div",
      { class: "board" },
      h("div", { class: "puzzle-head" }, this.headEl, this.goalEl),
      this.wrap,
      h("div", { class: "puzzle-bar" }, this.playBtn, this.statusEl),
      this.resultEl,
      this.actionsEl,
    );
    this.sideEl = h(
      "aside",
      { class: "side" },
      h("section", { class: "card controls-card", "aria-label": "Stroke" }, h("h3", {}, "Your stroke"), this.controls.el),
      h("section", { class: "card puzzle-info" }, h("h3", {}, "This puzzle"), this.factsEl),
    );
    this.el = h("section", { class: "table-view puzzle-view", "data-testid": "puzzle-view" }, this.errorEl, this.boardEl, this.sideEl);
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keyHandler);
    this.fitHandler = () => this.fitPortrait();
    window.addEventListener("resize", this.fitHandler);
    window.addEventListener("orientationchange", this.fitHandler);
    if (PORTRAIT_PHONE.matches) this.board.zoom = true;
    if (bad !== null) this.fail(`This puzzle link is not valid ("${bad}" is not a puzzle number).`);
    else void this.load();
    this.sync();
  }

  destroy(): void {
    this.destroyed = true;
    cancelAnimationFrame(this.frame);
    document.removeEventListener("keydown", this.keyHandler);
    window.removeEventListener("resize", this.fitHandler);
    window.removeEventListener("orientationchange", this.fitHandler);
    this.board.destroy();
  }

  // ----- loading -----------------------------------------------------------------------------
  private async load(): Promise<void> {
    this.phase = "loading";
    this.errorEl.hidden = true;
    const r = await api<unknown>("GET", this.id === null ? "/api/puzzles/daily" : `/api/puzzles/${this.id}`);
    if (this.destroyed) return;
    const p = r.ok ? parsePuzzle(r.data) : null;
    if (!p) {
      this.fail(resultError(r, this.id === null), !r.ok && r.code !== "no_puzzle" && r.code !== "bad_id" && r.status !== 404);
      return;
    }
    this.puzzle = p;
    this.board.preset = p.table;
    this.controls.setTable(p.table.ball.mass, p.table.kind);
    // the cue speed for the default ball speed on this table (setTable leaves it when the balls are the default's)
    this.controls.set({ speed: this.controls.state.speed });
    this.controls.call = { ball: null, pocket: null, safety: false };
    document.title = `billar \u2014 puzzle ${p.id}`;
    this.headEl.textContent = `${this.id === null ? "Puzzle of the day" : "Puzzle"} #${p.id} \u00b7 ${disciplineLabel(p.discipline)}`;
    this.goalEl.textContent = p.goal_text;
    this.hudGoal.textContent = p.goal_text;
    this.say("");
    this.phase = "aiming";
    this.showPosition();
    this.renderFacts();
    this.fitPortrait();
  }

  /** Logged in or out: the player's standing on this puzzle (`me`) is asked for again; the stroke set stays. */
  async accountChanged(): Promise<void> {
    const p = this.puzzle;
    if (!p) return;
    const r = await api<unknown>("GET", `/api/puzzles/${p.id}`);
    const q = r.ok ? parsePuzzle(r.data) : null;
    if (this.destroyed || !q || q.id !== p.id || this.puzzle !== p) return;
    p.me = q.me;
    p.rating = q.rating;
    p.rd = q.rd;
    p.plays = q.plays;
    p.wins = q.wins;
    this.renderFacts();
  }

  /** Say what went wrong instead of the table; `retry`: offer to load again (the network, the server). */
  private fail(text: string, retry = false): void {
    this.phase = "error";
    this.boardEl.hidden = true;
    this.sideEl.hidden = true;
    this.errorEl.hidden = false;
    this.errorEl.replaceChildren(
      ...kids(
        h("p", { "data-testid": "puzzle-error-text" }, text),
        h(
          "p",
          { class: "buttons" },
          ...kids(
            retry ? h("button", { type: "button", id: "puzzle-retry-load", onclick: () => {
              this.boardEl.hidden = false;
              this.sideEl.hidden = false;
              void this.load();
            } }, "Try again") : null,
            this.id !== null ? h("a", { href: "#/puzzle", class: "button" }, "Puzzle of the day") : null,
            h("a", { href: "#/", class: "button" }, "Back to the lobby"),
          ),
        ),
      ),
    );
    this.statusEl.textContent = "";
  }

  // ----- the stroke --------------------------------------------------------------------------
  private get canPlay(): boolean {
    return this.phase === "aiming" && this.puzzle !== null;
  }

  /** Post the attempt, then animate the stroke the server played. */
  async play(): Promise<void> {
    const p = this.puzzle;
    if (!p || !this.canPlay) return;
    const built = attemptBody(p.goal, this.controls.state, this.controls.call);
    if ("error" in built) {
      this.say(built.error, true);
      return;
    }
    this.phase = "sending";
    this.say("Playing the stroke...");
    this.sync();
    const r = await api<unknown>("POST", `/api/puzzles/${p.id}/attempt`, built.body);
    if (this.destroyed) return;
    const res = r.ok ? parseAttempt(r.data) : null;
    if (!res) {
      // nothing was played: the stroke stays set, to be sent again
      this.phase = "aiming";
      this.say(r.ok ? "The server's answer was not understood." : puzzleErrorText(r), true);
      this.sync();
      return;
    }
    // a guest's attempts are counted here (the server keeps nothing for a guest): the number shown is this browser's
    if (p.me) p.me = { ...p.me, attempts: Math.max(p.me.attempts, res.attempt), solved: p.me.solved || res.solved, rating: res.rating?.player.after ?? p.me.rating };
    else res.attempt = noteGuestAttempt(p.id, res.solved).attempts;
    this.result = res;
    if (res.rating) {
      // a rated attempt is one more play of the puzzle, as the server counts it (QA: "Not played yet" stayed)
      p.rating = res.rating.puzzle.after;
      p.plays += 1;
      p.wins += res.solved ? 1 : 0;
    }
    this.phase = "playing";
    this.resultEl.hidden = true;
    this.say("");
    this.showTable();
    if (!this.animate(recordLog(res.stroke, p.table))) this.clipEnded();
  }

  /** Animate `log` from its start; false when there is none (the result is shown at once). */
  private animate(log: ShotLog | null): boolean {
    if (!log) return false;
    this.playback.clear();
    this.shownLog = log;
    this.playback.replay({ log, lag: false, key: "puzzle" }, "end");
    cancelAnimationFrame(this.frame);
    const step = () => {
      this.sync();
      if (this.playback.animating) this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
    this.sync();
    return true;
  }

  private clipEnded(): void {
    if (this.phase === "playing") {
      this.phase = "result";
      this.renderResult(false);
    } else if (this.phase === "result") this.renderResult(true);
    this.sync();
  }

  /** Back to the puzzle's position, the last stroke still set. */
  tryAgain(): void {
    if (!this.puzzle || this.playback.animating) return;
    this.playback.clear();
    this.phase = "aiming";
    this.resultEl.hidden = true;
    this.hudGoal.textContent = this.puzzle.goal_text;
    this.showPosition();
    this.say("");
  }

  /** Animate the solution with its trails and show its stroke. */
  showSolution(): void {
    const p = this.puzzle;
    const res = this.result;
    if (!p || !res || this.playback.animating) return;
    this.phase = "result";
    this.showTable();
    this.animate(recordLog(res.solution.record, p.table));
    this.renderResult(true);
  }

  /** Scroll the table into view when part of it is off the screen (a phone, the stroke set in the controls below). */
  private showTable(): void {
    const r = this.wrap.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) this.wrap.scrollIntoView({ block: r.height > window.innerHeight ? "start" : "nearest" });
  }

  private skip(): void {
    this.playback.skip();
    this.sync();
  }

  // ----- drawing -----------------------------------------------------------------------------
  private showPosition(): void {
    const p = this.puzzle;
    if (!p) return;
    this.shownLog = null;
    this.board.balls = [...p.balls].map(([id, [x, y]]) => ({ id, x, y }));
    this.sync();
  }

  private trailsOf(log: ShotLog): Trail[] {
    let t = this.trails.get(log);
    if (!t) {
      t = buildTrails(log, { numberCushions: this.puzzle?.table.kind === "carom", rails: this.puzzle?.table });
      this.trails.set(log, t);
    }
    return t;
  }

  /** The board, the buttons and the call after any change; one redraw. */
  private sync(): void {
    const p = this.puzzle;
    const aiming = this.canPlay;
    this.el.dataset.phase = this.phase;
    this.el.dataset.animating = String(this.playback.animating);
    this.playBtn.disabled = !aiming;
    this.hudPlay.hidden = !aiming;
    if (!p) {
      this.controls.setEnabled(false);
      this.board.invalidate();
      return;
    }
    const fr = this.playback.frame();
    if (fr) {
      this.board.balls = [...fr.balls].map(([id, b]) => ({ id, x: b.rx, y: b.ry, pocketed: b.s === POCKETED }));
      this.board.trails = this.trailsOf(fr.clip.log);
      this.board.trailTime = fr.t;
    } else if (this.shownLog) {
      const end = this.shownLog.at(this.shownLog.duration());
      this.board.balls = [...end].filter(([, b]) => b.s !== POCKETED).map(([id, b]): BallView => ({ id, x: b.rx, y: b.ry }));
      this.board.trails = this.trailsOf(this.shownLog);
      this.board.trailTime = Infinity;
    } else this.board.trails = null;
    const cue = p.balls.get(p.cue_ball)!;
    this.board.aim = aiming ? { cue, cueId: p.cue_ball, phi: this.controls.state.phi, pull: this.pull } : null;
    this.board.canAim = aiming;
    this.board.canCall = aiming && p.goal === "pot";
    this.board.callBall = aiming ? this.controls.call.ball : null;
    this.board.callPocket = aiming ? this.controls.call.pocket : null;
    // the controls change only with the phase or the call (not on every animation frame)
    const ckey = [aiming, this.controls.call.ball, this.controls.call.pocket].join("|");
    if (ckey !== this.controlsKey) {
      this.controlsKey = ckey;
      this.controls.setEnabled(aiming);
      const balls = [...p.balls.keys()].filter((b) => b !== p.cue_ball).sort((a, b) => a - b);
      this.controls.setCallOptions(p.goal === "pot" ? "required" : "none", balls, p.table.pockets.map((q) => q.name), p.table.kind, false);
    }
    this.renderActions();
    // a phone held sideways: Play in the margin beside the table, as wide as that margin
    this.wrap.style.setProperty("--hud-w", `${Math.max(44, Math.floor(this.board.sideMargin() - 6))}px`);
    this.board.invalidate();
  }

  private say(text: string, error = false): void {
    this.statusEl.textContent = text;
    this.statusEl.classList.toggle("error", error);
  }

  private renderFacts(): void {
    const p = this.puzzle;
    if (!p) return;
    const standing = p.me ?? guestRecord(p.id);
    this.factsEl.replaceChildren(
      ...kids(
        h("div", { class: "fact" }, h("span", { class: "k" }, "Rating "), h("span", { class: "v", "data-testid": "puzzle-rating" }, ratingText(p.rating, p.rd))),
        h("div", { class: "fact", "data-testid": "puzzle-plays" }, playsText(p)),
        h("div", { class: "fact", "data-testid": "puzzle-me" }, standingText(standing), p.me ? ` \u00b7 your puzzle rating ${ratingText(p.me.rating, p.me.rd)}` : " (kept in this browser; log in to be rated)"),
        p.source.game ? h("div", { class: "fact hint" }, `From a game${p.source.stroke !== null ? `, stroke ${p.source.stroke + 1}` : ""}.`) : null,
      ),
    );
  }

  private renderResult(solution: boolean): void {
    const res = this.result;
    if (!res) return;
    this.resultEl.hidden = false;
    this.hudGoal.replaceChildren(h("b", {}, res.solved ? "Solved" : "Missed"), h("span", {}, this.puzzle?.goal_text ?? ""));
    this.resultEl.className = `puzzle-result ${res.solved ? "solved" : "missed"}`;
    this.resultEl.replaceChildren(
      ...kids(
        h("div", { class: "verdict", "data-testid": "puzzle-verdict" }, verdictText(res)),
        res.ruling.text ? h("div", { class: "ruling", "data-testid": "puzzle-ruling" }, res.ruling.text) : null,
        ratingLine(res) ? h("div", { class: "rating-change", "data-testid": "puzzle-rating-change" }, ratingLine(res)!) : null,
        puzzleRatingLine(res) ? h("div", { class: "hint" }, puzzleRatingLine(res)!) : null,
        solution ? h("div", { class: "solution", "data-testid": "puzzle-solution" }, `Solution: ${strokeWords(res.solution.stroke, res.solution.call, this.ballSpeed(res.solution.stroke))}`) : null,
      ),
    );
    this.renderFacts();
  }

  /** The cue ball's speed (m/s, what the power box shows) that `stroke`'s cue speed gives on this puzzle's table. */
  private ballSpeed(stroke: { V0: number; a: number; b: number; theta_deg: number }): number | null {
    const t = this.puzzle?.table;
    if (!t) return null;
    return cueBallSpeed(stroke.V0, stroke.a, stroke.b, stroke.theta_deg, t.ball.mass, cueOf(t.kind).mass);
  }

  private renderActions(): void {
    const p = this.puzzle;
    if (!p) {
      this.actionsEl.replaceChildren();
      return;
    }
    const anim = this.playback.animating;
    const done = this.phase === "result";
    const btn = (id: string, label: string, on: boolean, fn: () => void) => h("button", { type: "button", id, disabled: !on, onclick: fn }, label);
    const key = [this.phase, anim, !!this.result].join("|");
    if (this.actionsEl.dataset.key === key) return;
    this.actionsEl.dataset.key = key;
    this.actionsEl.replaceChildren(
      ...kids(
        anim ? btn("puzzle-skip", "Skip", true, () => this.skip()) : null,
        done ? btn("puzzle-again", "Try again", !anim, () => this.tryAgain()) : null,
        this.result ? btn("puzzle-solution-btn", "Show solution", !anim && this.phase !== "sending", () => this.showSolution()) : null,
        POSITION_CODE.test(p.position) ? h("a", { href: `#/practice/${p.position}`, id: "puzzle-practice", class: "button" }, "Practise this position") : null,
        this.id !== null ? h("a", { href: "#/puzzle", id: "puzzle-daily", class: "button" }, "Puzzle of the day") : null,
        p.next !== null ? h("a", { href: `#/puzzle/${p.next}`, id: "puzzle-next", class: "button" }, "Next puzzle") : null,
      ),
    );
  }

  // ----- keys and layout ---------------------------------------------------------------------
  private onKey(e: KeyboardEvent): void {
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) {
      if (!(e.key === "Enter" && t.tagName === "INPUT" && (t as HTMLInputElement).type === "number" && this.controls.el.contains(t))) return;
    }
    if (!this.el.isConnected || !this.canPlay) return;
    if (this.controls.strokeKey(e, () => void this.play())) e.preventDefault();
  }

  /** A phone held upright: the table at the full width and as tall as the room under the goal leaves, Play still in view. */
  private fitPortrait(): void {
    const w = this.wrap;
    if (!PORTRAIT_PHONE.matches || !w.isConnected || !this.puzzle) {
      w.style.height = "";
      return;
    }
    const top = w.getBoundingClientRect().top + window.scrollY;
    const room = window.innerHeight - top - 64; // the Play bar under it
    const [x0, y0, x1, y1] = tableBox(this.puzzle.table);
    const need = (w.clientWidth - 12) * ((x1 - x0) / (y1 - y0)) + 12;
    w.style.height = `${Math.round(Math.max(240, Math.min(need, room)))}px`;
  }

  /** For tests: what the page shows. */
  debug(): Record<string, unknown> {
    return {
      phase: this.phase,
      id: this.puzzle?.id ?? null,
      stroke: { ...this.controls.state },
      call: { ...this.controls.call },
      animating: this.playback.animating,
      balls: this.board.balls,
      trails: this.board.trails?.length ?? 0,
      aim: this.board.aim ? { ...this.board.aim } : null,
    };
  }

  /** CSS-pixel position (relative to the page) of a table point (m). */
  pointOnScreen(x: number, y: number): { x: number; y: number } {
    return this.board.pointOnPage(x, y);
  }
}
