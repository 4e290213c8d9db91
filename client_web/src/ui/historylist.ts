/**
 * The stroke history beside the table (and on the replay page): an ordered list with
 * `role="log"`, one child per stroke or ruling, newest last; each says who, what (the call, the
 * decision), the referee's ruling in words and the score after it, with fouls and warnings
 * marked. Clicking an entry asks for its replay.
 */

import { HistoryEntry, describeEntry } from "../game/history";
import { h, kids } from "./dom";

export class HistoryList {
  readonly el: HTMLElement;
  private list: HTMLElement;
  private note: HTMLElement;
  private key = "";
  private entries: HistoryEntry[] = [];
  private selected: HistoryEntry | null = null;

  constructor(private readonly onPick: (e: HistoryEntry) => void) {
    this.list = h("ol", { class: "history", role: "log", "aria-label": "Stroke history", "aria-live": "polite", "data-testid": "history" });
    this.note = h("div", { class: "hint history-note" });
    this.el = h("div", { class: "history-wrap" }, this.list, this.note);
  }

  /** Show `entries` (oldest first); `complete`: they start at the game's first stroke. */
  render(entries: HistoryEntry[], discipline: string, names: readonly (string | null | undefined)[], complete: boolean): void {
    const key = JSON.stringify([entries.length, entries.map((e) => e.v), entries[0]?.i ?? null, names, discipline, complete]);
    this.note.textContent = !complete ? "Strokes before you came are not listed." : entries.length === 0 ? "No strokes yet." : "";
    if (key === this.key) return;
    this.key = key;
    this.entries = entries;
    const atEnd = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 4;
    this.list.replaceChildren(...entries.map((e, k) => this.item(e, k, discipline, names)));
    if (atEnd) this.list.scrollTop = this.list.scrollHeight;
    this.mark();
  }

  /** Highlight the entry being replayed (null: none). */
  select(e: HistoryEntry | null): void {
    this.selected = e;
    this.mark();
  }

  private mark(): void {
    this.entries.forEach((e, k) => (this.list.children[k] as HTMLElement | undefined)?.classList.toggle("current", e === this.selected));
  }

  private item(e: HistoryEntry, k: number, discipline: string, names: readonly (string | null | undefined)[]): HTMLElement {
    const w = describeEntry(e, discipline, names);
    const n = e.i !== null ? e.i + 1 : k + 1;
    const pts = w.points !== null && w.points !== 0 ? h("span", { class: `pts ${w.points > 0 ? "plus" : "minus"}` }, w.points > 0 ? `+${w.points}` : String(w.points)) : null;
    const replayable = e.kind === "stroke" || e.kind === "lag";
    const body = h(
      "button",
      {
        type: "button",
        class: "entry-btn",
        disabled: !replayable,
        title: replayable ? "Replay this stroke with its trails" : "A ruling without a stroke",
        onclick: () => this.onPick(e),
      },
      h("span", { class: "line1" }, ...kids(h("span", { class: "n" }, `${n}.`), " ", h("span", { class: "what" }, w.headline), pts)),
      ...kids(
        w.ruling ? h("span", { class: "line2" }, w.ruling) : null,
        w.warning ? h("span", { class: "line2 warn-text" }, w.warning) : null,
        w.diamonds ? h("span", { class: "line2 diamonds" }, w.diamonds) : null,
        w.scores ? h("span", { class: "score" }, w.scores.join(" : ")) : null,
      ),
    );
    return h(
      "li",
      {
        class: `entry kind-${e.kind}${w.foul ? " foul" : ""}${w.warning ? " warning" : ""}`,
        "data-kind": e.kind,
        "data-i": e.i ?? "",
        "data-v": e.v,
        "data-seat": e.seat ?? "",
      },
      body,
    );
  }
}
