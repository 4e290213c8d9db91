/**
 * Replay controls over a Playback: previous event, play/pause, next event, a scrubber over the
 * clip's time, the time itself, the speed (0.1x to 4x) and skip. When nothing plays, the
 * controls stand for the clip `source()` offers (the last shot, or the history entry picked):
 * pressing play or moving the scrubber starts it.
 */

import { Playback, SPEEDS } from "../game/playback";
import { h } from "./dom";

export interface ReplaySource {
  /** Start the clip these controls stand for when nothing plays: at `at` s, paused or not.
   * False when there is none. */
  start(at: number, paused: boolean): boolean;
  /** Duration (s) of that clip, or null when there is none. */
  idleDuration(): number | null;
  /** Called after every change the controls made (redraw, sound). */
  changed(): void;
}

/** Small inline icons (the media symbols are missing from many system fonts). */
const ICONS: Record<string, string> = {
  prev: '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M3 2h2v12H3zM14 2v12L6 8z" fill="currentColor"/></svg>',
  next: '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M11 2h2v12h-2zM2 2v12l8-6z" fill="currentColor"/></svg>',
  play: '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M4 2v12l10-6z" fill="currentColor"/></svg>',
  pause: '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M3 2h4v12H3zM9 2h4v12H9z" fill="currentColor"/></svg>',
};

function fmtTime(t: number): string {
  return `${t.toFixed(2)} s`;
}

export class ReplayBar {
  readonly el: HTMLElement;
  private playBtn: HTMLButtonElement;
  private prevBtn: HTMLButtonElement;
  private nextBtn: HTMLButtonElement;
  private skipBtn: HTMLButtonElement;
  private scrub: HTMLInputElement;
  private timeEl: HTMLElement;
  readonly speedSel: HTMLSelectElement;
  private dragging = false;

  constructor(
    private readonly pb: Playback<any>,
    private readonly src: ReplaySource,
    ids: { skip?: string; play?: string; speed?: string } = {},
  ) {
    const btn = (icon: string, title: string, onclick: () => void, id?: string) => {
      const b = h("button", { type: "button", class: "small icon", title, "aria-label": title, id, onclick }) as HTMLButtonElement;
      b.innerHTML = ICONS[icon];
      return b;
    };
    this.prevBtn = btn("prev", "Previous event (collision or cushion)", () => this.step(-1), "step-prev");
    this.playBtn = btn("play", "Play", () => this.toggle(), ids.play ?? "play-pause");
    this.nextBtn = btn("next", "Next event (collision or cushion)", () => this.step(1), "step-next");
    this.skipBtn = h("button", { type: "button", class: "small", title: "Skip to the end", id: ids.skip ?? "skip-btn", onclick: () => {
      this.pb.skip();
      this.src.changed();
    } }, "Skip") as HTMLButtonElement;
    this.scrub = h("input", { type: "range", min: 0, max: 1, step: "any", value: 0, class: "scrubber", id: "scrubber", "aria-label": "Time in the stroke" }) as HTMLInputElement;
    this.timeEl = h("span", { class: "clip-time", "data-testid": "clip-time" }, "");
    this.speedSel = h(
      "select",
      { id: ids.speed ?? "speed", "aria-label": "Replay speed" },
      ...SPEEDS.map((s) => h("option", { value: s, selected: s === 1 }, `${s}\u00d7`)),
    ) as HTMLSelectElement;
    this.speedSel.addEventListener("change", () => {
      this.pb.speed = Number(this.speedSel.value);
      this.src.changed();
    });
    this.scrub.addEventListener("input", () => this.onScrub());
    this.scrub.addEventListener("pointerdown", () => (this.dragging = true));
    this.scrub.addEventListener("pointerup", () => (this.dragging = false));
    this.el = h("div", { class: "replay-bar", role: "group", "aria-label": "Replay controls" }, this.prevBtn, this.playBtn, this.nextBtn, this.scrub, this.timeEl, this.speedSel, this.skipBtn);
    this.update();
  }

  private ensure(at: number, paused: boolean): boolean {
    if (this.pb.animating) return true;
    return this.src.start(at, paused);
  }

  private toggle(): void {
    if (!this.pb.animating) {
      this.ensure(0, false);
    } else this.pb.toggle();
    this.src.changed();
  }

  private step(dir: number): void {
    if (!this.pb.animating) {
      const d = this.src.idleDuration();
      if (d === null || !this.ensure(dir > 0 ? 0 : d, true)) return;
    }
    this.pb.step(dir);
    this.src.changed();
  }

  private onScrub(): void {
    const d = this.pb.animating ? this.pb.duration : this.src.idleDuration();
    if (d === null) return;
    const t = Number(this.scrub.value) * d;
    if (!this.pb.animating) {
      if (!this.ensure(t, true)) return;
    } else this.pb.pause();
    this.pb.seek(t);
    this.src.changed();
  }

  /** Bring the controls up to date with the playback (every frame while it plays). */
  update(): void {
    const on = this.pb.animating;
    const idle = this.src.idleDuration();
    const d = on ? this.pb.duration : idle ?? 0;
    const t = on ? this.pb.time : d;
    const have = on || idle !== null;
    const playing = on && !this.pb.paused;
    const icon = playing ? "pause" : "play";
    if (this.playBtn.dataset.icon !== icon) {
      this.playBtn.innerHTML = ICONS[icon];
      this.playBtn.dataset.icon = icon;
    }
    this.playBtn.title = playing ? "Pause" : "Play";
    this.playBtn.setAttribute("aria-label", this.playBtn.title);
    this.playBtn.disabled = !have;
    this.prevBtn.disabled = !have;
    this.nextBtn.disabled = !have;
    this.scrub.disabled = !have;
    this.skipBtn.disabled = !on;
    if (!this.dragging) this.scrub.value = String(d > 0 ? t / d : 0);
    this.timeEl.textContent = have ? `${fmtTime(t)} / ${fmtTime(d)}` : "";
    this.el.dataset.state = playing ? "playing" : on ? "paused" : "idle";
  }
}
