/**
 * Replay of a finished (or running) game from its match record (GET /records/<table>[/<game>].json,
 * the record format of rules/replay.py): every stroke animated from its event log, with the
 * ruling in words and the scores after it; play all, step, or pick a stroke.
 */

import { ShotLog, clothOf } from "../physics/shotlog";
import { POCKETED } from "../physics/motion";
import type { Preset, ZoneShape } from "../protocol/messages";
import { disciplineLabel, namedRuling } from "../game/names";
import { Board, BallView } from "./board";
import { h } from "./dom";

interface RecordStroke {
  player: number | null;
  call?: unknown;
  decision?: { name: string; arg: unknown } | null;
  sim?: any;
  ruling?: { text?: string; scores?: number[] };
  lag?: boolean;
  timeout?: boolean;
  forfeit?: string;
  /** the carom zones in force when the stroke was played (a multi-discipline match changes them) */
  zones?: ZoneShape[] | null;
}

/**
 * The carom zone chalk lines to draw at stroke `i` of a record (rules/zones.py ZoneSet.to_json,
 * the shapes the live table receives in its game state): the stroke's own `zones` when the record
 * keeps them per stroke (pentathlon and triathlon change discipline within one record), else the
 * record's `zones`; null when neither says (a pool game, or a record written without them).
 * Past the last stroke, the last stroke's.
 */
export function replayZones(rec: { zones?: ZoneShape[] | null; strokes?: RecordStroke[] }, i: number): ZoneShape[] | null {
  const strokes = rec.strokes ?? [];
  const s = strokes[Math.min(i, strokes.length - 1)];
  const z = s && Array.isArray(s.zones) ? s.zones : Array.isArray(rec.zones) ? rec.zones : null;
  return z && z.length ? z : null;
}

export class ReplayView {
  readonly el: HTMLElement;
  private board: Board;
  private status: HTMLElement;
  private list: HTMLElement;
  private scores: HTMLElement;
  private strokes: RecordStroke[] = [];
  private logs: (ShotLog | null)[] = [];
  private players: string[] = ["", ""];
  private names: (string | null)[] = [];
  private discipline = "";
  private index = -1;
  private anim: { log: ShotLog; start: number; end: number } | null = null;
  private autoplay = false;
  private preset: Preset | null = null;
  private rec: { zones?: ZoneShape[] | null; strokes?: RecordStroke[] } = {};
  private speed = 1;
  private frame = 0;

  constructor(
    private readonly table: string,
    private readonly game: number | null,
  ) {
    const wrap = h("div", { class: "canvas-wrap" });
    this.board = new Board(wrap, { onAim() {}, onPlace() {}, onPullChange() {}, onPullRelease() {}, onCallBall() {}, onCallPocket() {} });
    this.status = h("div", { class: "status-line", "data-testid": "replay-status" }, "Loading the record...");
    this.scores = h("div", { class: "replay-scores", "data-testid": "replay-scores" });
    this.list = h("ol", { class: "stroke-list" });
    const speedSel = h("select", { "aria-label": "Animation speed" }, ...[1, 2, 4, 8].map((s) => h("option", { value: s }, `${s}\u00d7`))) as HTMLSelectElement;
    speedSel.addEventListener("change", () => (this.speed = Number(speedSel.value)));
    this.el = h(
      "section",
      { class: "table-view replay-view" },
      h(
        "div",
        { class: "board" },
        this.scores,
        this.status,
        wrap,
        h(
          "div",
          { class: "playback" },
          h("button", { type: "button", onclick: () => this.go(this.index - 1) }, "\u2039 Previous"),
          h("button", { type: "button", id: "replay-play", onclick: () => this.playAll() }, "Play all"),
          h("button", { type: "button", onclick: () => this.go(this.index + 1) }, "Next \u203a"),
          h("button", { type: "button", onclick: () => this.skip() }, "Skip"),
          speedSel,
        ),
      ),
      h("aside", { class: "side" }, h("section", { class: "card" }, h("h3", {}, "Strokes"), this.list)),
    );
    void this.load();
  }

  destroy(): void {
    cancelAnimationFrame(this.frame);
    this.board.destroy();
  }

  private async load(): Promise<void> {
    const url = this.game === null ? `/records/${encodeURIComponent(this.table)}.json` : `/records/${encodeURIComponent(this.table)}/${this.game}.json`;
    let rec: any;
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${res.status}`);
      rec = await res.json();
    } catch (e) {
      this.status.textContent = `No record of this game (${String(e)}).`;
      return;
    }
    this.preset = rec.preset ?? null;
    if (!this.preset) {
      this.status.textContent = "The record carries no table preset; cannot draw it.";
      return;
    }
    const cloth = clothOf(this.preset);
    this.names = Array.isArray(rec.players) ? rec.players : [];
    this.discipline = typeof rec.discipline === "string" ? rec.discipline : "";
    this.players = (rec.players ?? []).map((p: string | null, i: number) => p ?? `Player ${i + 1}`);
    this.strokes = rec.strokes ?? [];
    this.logs = this.strokes.map((s) => (s.sim ? ShotLog.fromSimJson(s.sim, cloth) : null));
    this.board.preset = this.preset;
    this.rec = { zones: rec.zones, strokes: this.strokes };
    const res = rec.result;
    this.status.textContent = `${disciplineLabel(rec.discipline)}: ${this.players.join(" vs ")}${res && Array.isArray(res.scores) ? ` \u2014 final ${res.scores.join(" : ")}` : ""}`;
    this.list.replaceChildren(
      ...this.strokes.map((s, i) =>
        h(
          "li",
          { "data-index": i },
          h("button", { type: "button", class: "link", onclick: () => this.go(i) }, `${s.lag ? "Lag" : s.decision ? `Decision ${s.decision.name}` : s.timeout ? "Time-out" : s.forfeit ? `Forfeit (${s.forfeit})` : `${this.players[s.player ?? 0] ?? "?"}`}`),
          s.ruling?.text ? h("span", { class: "r" }, ` ${this.words(s.ruling.text)}`) : null,
        ),
      ),
    );
    this.showBefore(0);
  }

  /** A ruling's text with the record's player names for the seats it names. */
  private words(text: string): string {
    return namedRuling(text, this.discipline, this.names);
  }

  private layoutBefore(i: number): BallView[] {
    for (let k = i; k < this.logs.length; k++) {
      const log = this.logs[k];
      if (log) return [...log.initial].map(([id, b]) => ({ id, x: b.rx, y: b.ry }));
    }
    return this.layoutAfter(this.logs.length - 1);
  }

  private layoutAfter(i: number): BallView[] {
    for (let k = i; k >= 0; k--) {
      const log = this.logs[k];
      if (log) {
        const end = log.at(log.duration());
        return [...end].filter(([, b]) => b.s !== POCKETED).map(([id, b]) => ({ id, x: b.rx, y: b.ry }));
      }
    }
    return [];
  }

  private showBefore(i: number): void {
    this.board.zones = replayZones(this.rec, i);
    this.board.balls = this.layoutBefore(i);
    this.board.allWhite = !!this.strokes[i]?.lag && this.preset?.kind === "pool";
    this.board.invalidate();
  }

  private mark(i: number): void {
    this.list.querySelectorAll("li").forEach((li) => li.classList.toggle("current", Number(li.dataset.index) === i));
    const r = this.strokes[i]?.ruling;
    if (r?.scores) this.scores.textContent = `${this.players[0]} ${r.scores[0]} : ${r.scores[1]} ${this.players[1]}${r.text ? ` \u2014 ${this.words(r.text)}` : ""}`;
  }

  private go(i: number): void {
    if (i < 0 || i >= this.strokes.length) return;
    this.autoplay = false;
    this.play(i);
  }

  private playAll(): void {
    this.autoplay = true;
    this.play(this.index + 1 < this.strokes.length ? this.index + 1 : 0);
  }

  private skip(): void {
    if (this.anim) this.anim.start = -1e12;
  }

  private play(i: number): void {
    this.index = i;
    this.mark(i);
    const log = this.logs[i];
    this.board.zones = replayZones(this.rec, i);
    this.board.allWhite = !!this.strokes[i]?.lag && this.preset?.kind === "pool";
    if (!log) {
      this.showBefore(i + 1);
      if (this.autoplay && i + 1 < this.strokes.length) setTimeout(() => this.play(i + 1), 600);
      return;
    }
    this.anim = { log, start: performance.now(), end: log.duration() };
    cancelAnimationFrame(this.frame);
    const step = () => {
      const a = this.anim!;
      const t = Math.min(a.end, ((performance.now() - a.start) / 1000) * this.speed);
      this.board.balls = [...a.log.at(t)].map(([id, b]) => ({ id, x: b.rx, y: b.ry, pocketed: b.s === POCKETED }));
      this.board.draw();
      if (t < a.end) {
        this.frame = requestAnimationFrame(step);
        return;
      }
      this.anim = null;
      setTimeout(() => {
        if (this.index !== i) return;
        this.showBefore(i + 1);
        if (this.autoplay && i + 1 < this.strokes.length) this.play(i + 1);
      }, 500);
    };
    this.frame = requestAnimationFrame(step);
  }
}
