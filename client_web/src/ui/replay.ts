/**
 * Replay of a finished (or running) game from its match record (GET /records/<table>[/<game>].json,
 * the record format of rules/replay.py): every stroke animated from its event log with its trails
 * and sounds, the ruling in words and the scores after it; play all, pick a stroke in the history
 * list, and the replay controls (pause, scrub, step by event, 0.1x-4x) on any stroke.
 */

import { api, apiErrorText } from "../api";
import { soundSchedule } from "../audio/schedule";
import type { SoundBoard } from "../audio/sound";
import { HistoryEntry, RecordStroke, describeEntry, entryFromRecord } from "../game/history";
import { disciplineLabel } from "../game/names";
import { Playback } from "../game/playback";
import { buildTrails } from "../game/trails";
import { clothOf } from "../physics/shotlog";
import { POCKETED } from "../physics/motion";
import type { Preset, ZoneShape } from "../protocol/messages";
import { Board, BallView } from "./board";
import { bringIntoView, h, toast } from "./dom";
import { HistoryList } from "./historylist";
import { pref, setPref } from "./prefs";
import { ReplayBar } from "./replaybar";

/**
 * The carom zone chalk lines to draw at stroke `i` of a record (rules/zones.py ZoneSet.to_json,
 * the shapes the live table receives in its game state): the stroke's own `zones` when the record
 * keeps them per stroke (pentathlon and triathlon change discipline within one record), else the
 * record's `zones`; null when neither says (a pool game, or a record written without them).
 * Past the last stroke, the last stroke's.
 */
export function replayZones(rec: { zones?: ZoneShape[] | null; strokes?: { zones?: ZoneShape[] | null; [k: string]: unknown }[] }, i: number): ZoneShape[] | null {
  const strokes = rec.strokes ?? [];
  const s = strokes[Math.min(i, strokes.length - 1)];
  const z = s && Array.isArray(s.zones) ? s.zones : Array.isArray(rec.zones) ? rec.zones : null;
  return z && z.length ? z : null;
}

/**
 * What there is to say of a game with no stroke (a resign before the lag): the discipline, the
 * players and the final score, e.g. "Three cushion: Ann vs Bob — final 0 : 0". Text only.
 */
export function noStrokeSummary(rec: { discipline?: unknown; players?: unknown; result?: unknown }): string {
  const names = Array.isArray(rec.players) ? rec.players : [];
  const players = [0, 1].map((i) => (typeof names[i] === "string" && names[i] ? names[i] : `Player ${i + 1}`));
  const res = rec.result as { scores?: unknown } | null | undefined;
  const scores = res && Array.isArray(res.scores) ? ` \u2014 final ${res.scores.map(String).join(" : ")}` : "";
  const disc = typeof rec.discipline === "string" ? `${disciplineLabel(rec.discipline)}: ` : "";
  return `${disc}${players.join(" vs ")}${scores}`;
}

/** The position JSON (`POST /api/positions`, rules/position.py `from_json`) of a recorded stroke: the balls where the
 * stroke found them and its cue (the stroke's `stroke` fields and the ball its first event struck); the cue is left
 * out when the record does not say it. Null for an entry that is not a stroke with a log. */
export function strokePosition(
  table: string,
  discipline: string,
  log: { initial: Map<number, { rx: number; ry: number }>; events: { kind: string; balls: number[] }[] } | null,
  stroke: unknown,
): { table: string; discipline: string; balls: { id: number; x: number; y: number }[]; cue: object | null } | null {
  if (!log || !table || !discipline) return null;
  const balls = [...log.initial].sort((p, q) => p[0] - q[0]).map(([id, b]) => ({ id, x: b.rx, y: b.ry }));
  const first = log.events[0];
  const s = stroke && typeof stroke === "object" ? (stroke as Record<string, unknown>) : null;
  const keys = ["phi_deg", "a", "b", "theta_deg", "V0"];
  let cue: object | null = null;
  if (s && first && first.kind === "strike" && first.balls.length >= 1 && keys.every((k) => typeof s[k] === "number" && Number.isFinite(s[k]))) {
    cue = { cue_ball: first.balls[0], ...Object.fromEntries(keys.map((k) => [k, s[k]])) };
  }
  return { table, discipline, balls, cue };
}

/** Matches of several disciplines: their positions are not practised from a replay (the record does not say which
 * discipline a stroke was played in). */
const MULTI = new Set(["pentathlon", "triathlon"]);

/** Pause (ms) between two strokes when playing them all. */
const GAP_MS = 500;

export class ReplayView {
  readonly el: HTMLElement;
  private board: Board;
  private status: HTMLElement;
  private scores: HTMLElement;
  private history: HistoryList;
  private bar: ReplayBar;
  private strokes: (RecordStroke & { zones?: ZoneShape[] | null })[] = [];
  private entries: HistoryEntry[] = [];
  private names: (string | null)[] = [];
  private discipline = "";
  /** the entry shown (its position after it when not playing) */
  private index = -1;
  private autoplay = false;
  private preset: Preset | null = null;
  private rec: { zones?: ZoneShape[] | null; strokes?: { zones?: ZoneShape[] | null }[] } = {};
  private playback: Playback<number>;
  private frame = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private trailsIn: HTMLInputElement;
  private practiseBtn!: HTMLButtonElement;
  private wrap!: HTMLElement;
  private playbackEl!: HTMLElement;
  private sideEl!: HTMLElement;
  private soundKey = "";

  constructor(
    private readonly table: string,
    private readonly game: number | null,
    private readonly sound: SoundBoard,
    /** where the record comes from instead (`/api/games/<id>`: the database's copy, kept for good) */
    private readonly url: string | null = null,
  ) {
    const wrap = h("div", { class: "canvas-wrap" });
    this.board = new Board(wrap, { onAim() {}, onPlace() {}, onPullChange() {}, onPullRelease() {}, onCallBall() {}, onCallPocket() {} });
    this.playback = new Playback<number>((i) => this.ended(i));
    this.status = h("div", { class: "status-line", "data-testid": "replay-status" }, "Loading the record...");
    this.scores = h("div", { class: "replay-scores", "data-testid": "replay-scores" });
    this.history = new HistoryList((e) => this.go(this.entries.indexOf(e)));
    this.bar = new ReplayBar(
      this.playback,
      {
        start: (at, paused) => this.startClip(this.index, at, paused),
        idleDuration: () => this.entries[this.index]?.log?.duration() ?? null,
        changed: () => this.changed(),
      },
      { skip: "replay-skip" },
    );
    this.trailsIn = h("input", { type: "checkbox", id: "trails-toggle", checked: pref("trails") }) as HTMLInputElement;
    this.trailsIn.addEventListener("change", () => {
      setPref("trails", this.trailsIn.checked);
      this.draw();
    });
    const soundIn = h("input", { type: "checkbox", id: "sound-toggle", checked: !this.sound.muted }) as HTMLInputElement;
    soundIn.addEventListener("change", () => (this.sound.muted = !soundIn.checked));
    this.wrap = wrap;
    this.el = h(
      "section",
      { class: "table-view replay-view" },
      h(
        "div",
        { class: "board" },
        this.scores,
        this.status,
        wrap,
        (this.playbackEl = h(
          "div",
          { class: "playback" },
          h("button", { type: "button", onclick: () => this.go(this.index - 1) }, "\u2039 Previous"),
          h("button", { type: "button", id: "replay-play", onclick: () => this.playAll() }, "Play all"),
          h("button", { type: "button", onclick: () => this.go(this.index + 1) }, "Next \u203a"),
          this.bar.el,
          (this.practiseBtn = h(
            "button",
            { type: "button", id: "replay-practise", title: "Open a practice table at the position before this stroke, its cue set", onclick: () => void this.practise() },
            "Practise this position",
          ) as HTMLButtonElement),
          h("div", { class: "view-toggles" }, h("label", { class: "check toggle" }, this.trailsIn, " Trails"), h("label", { class: "check toggle" }, soundIn, " Sound")),
        )),
      ),
      (this.sideEl = h("aside", { class: "side" }, h("section", { class: "card history-card" }, h("h3", {}, "Strokes"), this.history.el))),
    );
    void this.load();
  }

  destroy(): void {
    cancelAnimationFrame(this.frame);
    if (this.timer) clearTimeout(this.timer);
    this.sound.stop();
    this.board.destroy();
  }

  private async load(): Promise<void> {
    const url = this.url ?? (this.game === null ? `/records/${encodeURIComponent(this.table)}.json` : `/records/${encodeURIComponent(this.table)}/${this.game}.json`);
    let rec: any;
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${res.status}`);
      rec = await res.json();
    } catch (e) {
      // nothing to replay: the message and a way back, none of the replay's controls
      this.status.textContent = `No record of this game (${String(e)}).`;
      this.status.setAttribute("role", "alert");
      this.status.after(h("p", { class: "missing-record" }, h("a", { href: "#/", id: "missing-record-lobby" }, "Back to the lobby")));
      this.el.dataset.missing = "true";
      this.wrap.hidden = true;
      this.playbackEl.hidden = true;
      this.sideEl.hidden = true;
      return;
    }
    this.preset = rec.preset ?? null;
    if (!this.preset) {
      // the server takes the geometry from the first stroke's log: a game resigned (or forfeited)
      // before any stroke has none, and nothing to draw
      const strokes: unknown[] = Array.isArray(rec.strokes) ? rec.strokes : [];
      const played = strokes.some((s) => s && typeof s === "object" && "sim" in s);
      this.status.textContent = played ? "The record carries no table preset; cannot draw it." : "This game ended before any stroke was played.";
      if (!played) this.scores.textContent = noStrokeSummary(rec);
      return;
    }
    const cloth = clothOf(this.preset);
    this.names = Array.isArray(rec.players) ? rec.players : [];
    this.discipline = typeof rec.discipline === "string" ? rec.discipline : "";
    const players = [0, 1].map((i) => this.names[i] ?? `Player ${i + 1}`);
    this.strokes = Array.isArray(rec.strokes) ? rec.strokes : [];
    this.entries = this.strokes.map((s, i) => entryFromRecord(s, i, cloth, this.preset ?? undefined));
    this.board.preset = this.preset;
    this.rec = { zones: rec.zones, strokes: this.strokes };
    const res = rec.result;
    this.status.textContent = `${disciplineLabel(rec.discipline)}: ${players.join(" vs ")}${res && Array.isArray(res.scores) ? ` \u2014 final ${res.scores.join(" : ")}` : ""}`;
    this.history.render(this.entries, this.discipline, this.names, true);
    this.show(-1);
  }

  /** The layout before entry `i` (the first log at or after it), or after the last one. */
  private layoutBefore(i: number): BallView[] {
    for (let k = Math.max(0, i); k < this.entries.length; k++) {
      const log = this.entries[k].log;
      if (log) return [...log.initial].map(([id, b]) => ({ id, x: b.rx, y: b.ry }));
    }
    return this.layoutAfter(this.entries.length - 1);
  }

  private layoutAfter(i: number): BallView[] {
    for (let k = i; k >= 0; k--) {
      const log = this.entries[k].log;
      if (log) {
        const end = log.at(log.duration());
        return [...end].filter(([, b]) => b.s !== POCKETED).map(([id, b]) => ({ id, x: b.rx, y: b.ry }));
      }
    }
    return this.layoutBefore(0);
  }

  /** Show the table after entry `i` (before the first one for -1). */
  private show(i: number): void {
    this.index = i;
    this.history.select(i >= 0 ? this.entries[i] : null);
    this.board.zones = replayZones(this.rec, Math.max(0, i));
    this.board.balls = i < 0 ? this.layoutBefore(0) : this.layoutBefore(i + 1);
    this.mark(i);
    this.draw();
  }

  /** The stroke "Practise this position" opens: the one shown, else (before the first) the first one with a log. */
  private practiseIndex(): number {
    if (MULTI.has(this.discipline)) return -1; // a practice table plays one discipline, not a whole pentathlon
    if (this.entries[this.index]?.log && this.entries[this.index].kind === "stroke") return this.index;
    return this.entries.findIndex((e, k) => k > this.index && e.kind === "stroke" && e.log);
  }

  /** Ask the server for the code of the position before the chosen stroke and open a practice table there. */
  private async practise(): Promise<void> {
    const i = this.practiseIndex();
    const e = this.entries[i];
    const body = e ? strokePosition(this.preset?.name ?? "", this.discipline, e.log, this.strokes[i]?.stroke) : null;
    if (!body) {
      toast("No stroke to practise here.", "error");
      return;
    }
    this.practiseBtn.disabled = true;
    const r = await api<{ code: string }>("POST", "/api/positions", body);
    this.practiseBtn.disabled = false;
    if (r.ok && typeof r.data?.code === "string") location.hash = `#/practice/${r.data.code}`;
    else toast(r.ok ? "The server gave no position code." : `Cannot practise this position: ${apiErrorText(r)}`, "error");
  }

  private mark(i: number): void {
    this.practiseBtn.disabled = this.practiseIndex() < 0;
    const e = this.entries[i];
    if (!e) {
      this.scores.textContent = "";
      return;
    }
    const w = describeEntry(e, this.discipline, this.names);
    const sc = w.scores ? `${this.names[0] ?? "Player 1"} ${w.scores[0]} : ${w.scores[1]} ${this.names[1] ?? "Player 2"}` : "";
    this.scores.textContent = [sc, w.headline, w.ruling].filter(Boolean).join(" \u2014 ");
  }

  private go(i: number): void {
    if (i < 0 || i >= this.entries.length) return;
    this.autoplay = false;
    this.play(i);
  }

  private playAll(): void {
    this.autoplay = true;
    this.play(this.index + 1 < this.entries.length ? this.index + 1 : 0);
  }

  /** Animate entry `i` from `at` s; false when it has no log. */
  private startClip(i: number, at: number, paused: boolean): boolean {
    const e = this.entries[i];
    if (!e?.log) return false;
    if (this.playback.animating) this.playback.clear();
    this.index = i;
    this.history.select(e);
    this.board.zones = replayZones(this.rec, i);
    this.mark(i);
    return this.playback.replay({ log: e.log, lag: e.kind === "lag", key: `r${i}` }, i, { at, paused });
  }

  private play(i: number): void {
    if (this.timer) clearTimeout(this.timer);
    if (!this.startClip(i, 0, false)) {
      this.show(i);
      if (this.autoplay && i + 1 < this.entries.length) this.timer = setTimeout(() => this.play(i + 1), GAP_MS);
      return;
    }
    bringIntoView(this.wrap); // picked from the list below the table (a phone)
    this.changed();
  }

  /** A clip ended: show the position after it, and go on when playing all. */
  private ended(i: number): void {
    this.show(i);
    if (this.autoplay && i + 1 < this.entries.length) this.timer = setTimeout(() => this.index === i && this.play(i + 1), GAP_MS);
  }

  private changed(): void {
    this.syncSound(true);
    this.draw();
    if (this.playback.animating) this.loop();
  }

  private syncSound(force = false): void {
    const c = this.playback.clip;
    const key = c && !this.playback.paused ? `${c.key}|${this.playback.speed}` : "";
    if (!force && key === this.soundKey) return;
    this.soundKey = key;
    if (!c || !key) this.sound.stop();
    else this.sound.play(soundSchedule(c.log), this.playback.time, this.playback.speed);
  }

  private loop(): void {
    cancelAnimationFrame(this.frame);
    const step = () => {
      this.draw();
      this.syncSound();
      if (this.playback.animating) this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
  }

  private draw(): void {
    const fr = this.playback.frame();
    const e = this.entries[this.index];
    const log = fr?.clip.log ?? e?.log ?? null;
    const pool = this.preset?.kind === "pool";
    const lag = fr ? fr.clip.lag : e?.kind === "lag";
    if (fr) this.board.balls = [...fr.balls].map(([id, b]) => ({ id, x: b.rx, y: b.ry, pocketed: b.s === POCKETED }));
    this.board.lagBalls = pool && fr && lag ? [0, 1] : null;
    this.board.lagTrails = !!lag;
    this.board.trails = this.trailsIn.checked && log ? buildTrailsCached(log, !pool, this.preset ?? undefined) : null;
    this.board.trailTime = fr ? fr.t : Infinity;
    this.board.draw();
    this.bar.update();
  }

  /** For tests: what the replay page shows. */
  debug(): Record<string, unknown> {
    return {
      index: this.index,
      entries: this.entries.length,
      playback: { animating: this.playback.animating, paused: this.playback.paused, t: this.playback.time, duration: this.playback.duration, speed: this.playback.speed },
      balls: this.board.balls,
    };
  }

  /** CSS-pixel position (relative to the page) of ball `id` as drawn now, or null. */
  ballOnScreen(id: number): { x: number; y: number; r: number } | null {
    return this.board.ballOnPage(id);
  }
}

const cache = new WeakMap<object, ReturnType<typeof buildTrails>>();
function buildTrailsCached(log: Parameters<typeof buildTrails>[0], carom: boolean, rails?: Preset) {
  let t = cache.get(log);
  if (!t) {
    t = buildTrails(log, { numberCushions: carom, rails });
    cache.set(log, t);
  }
  return t;
}
