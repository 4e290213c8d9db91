/**
 * The end-of-match summary, over the table when a game is over: who won and the score, then for
 * each player the points, innings, high run, average, strokes played and fouls (from the
 * scoreboard and the game's history), with a rematch button for the players and the replay link.
 * Closed with its button; it comes back for the next game. When it first shows for a game, it is
 * scrolled into view if the page was scrolled away from the table.
 */

import type { GameModelView } from "./summarymodel";
import { summaryOf } from "./summarymodel";
import { fmt, h, kids } from "./dom";

export interface SummaryActions {
  /** label and action of the rematch button (null: none, e.g. a spectator) */
  rematch: { label: string; disabled: boolean; run: () => void } | null;
  /** link to the replay of the game */
  replayHref: string;
  /** a rated game: each seat's rating change in words ("" until the server has recorded it); null: casual */
  ratings?: [string, string] | null;
  /** the page still shows an earlier position (strokes being played back): the summary waits for the end */
  behind?: boolean;
}

export class MatchSummary {
  readonly el: HTMLElement;
  private closedFor = "";
  private key = "";
  private shownFor = "";

  constructor() {
    this.el = h("section", { class: "match-summary", "data-testid": "match-summary", role: "dialog", "aria-label": "Game over", hidden: true });
  }

  /** Show the summary of `m` when its game is over (`gameKey` names the game: closing it hides it for that game only). */
  render(m: GameModelView, gameKey: string, act: SummaryActions): void {
    const st = m.state;
    if (!st?.over || act.behind || this.closedFor === gameKey) {
      this.el.hidden = true;
      this.key = "";
      return;
    }
    const s = summaryOf(m);
    const key = JSON.stringify([gameKey, s, act.rematch?.label, act.rematch?.disabled, act.replayHref, act.ratings]);
    this.el.hidden = false;
    if (key === this.key) return;
    this.key = key;
    const row = (label: string, vals: [string, string], testid: string) =>
      h("tr", {}, h("th", { scope: "row" }, label), h("td", { "data-testid": `${testid}-0` }, vals[0]), h("td", { "data-testid": `${testid}-1` }, vals[1]));
    const pair = (f: (p: (typeof s.players)[number]) => string): [string, string] => [f(s.players[0]), f(s.players[1])];
    this.el.replaceChildren(
      ...kids(
        h("h3", {}, "Game over"),
        h("p", { class: "result", "data-testid": "summary-result" }, s.headline),
        h(
          "table",
          { class: "summary-table" },
          h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, s.players[0].name), h("th", { scope: "col" }, s.players[1].name))),
          h(
            "tbody",
            {},
            row("Points", pair((p) => String(p.score)), "sum-score"),
            row("Innings", pair((p) => fmt(p.innings)), "sum-innings"),
            row("High run", pair((p) => fmt(p.highRun)), "sum-high-run"),
            row("Average", pair((p) => fmt(p.average, 3)), "sum-average"),
            row("Strokes", pair((p) => String(p.strokes)), "sum-strokes"),
            row("Fouls", pair((p) => String(p.fouls)), "sum-fouls"),
            act.ratings ? row("Rating", [act.ratings[0] || "updating...", act.ratings[1] || "updating..."], "sum-rating") : null,
          ),
        ),
        h(
          "div",
          { class: "buttons" },
          ...kids(
            act.rematch ? h("button", { type: "button", class: "primary", id: "summary-rematch", disabled: act.rematch.disabled, onclick: act.rematch.run }, act.rematch.label) : null,
            h("a", { class: "button", href: act.replayHref, id: "summary-replay" }, "Replay of the game"),
            h("a", { class: "button", href: "#/" }, "Lobby"),
            h("button", { type: "button", id: "summary-close", onclick: () => this.close(gameKey) }, "Close"),
          ),
        ),
      ),
    );
    if (this.shownFor !== gameKey) {
      // the game has just ended: a player scrolled down to the stroke controls (a phone held sideways)
      // would not see the summary over the table, so it is brought into view once
      this.shownFor = gameKey;
      const r = this.el.getBoundingClientRect();
      if (r.top < 0 || r.bottom > window.innerHeight) this.el.scrollIntoView?.({ block: "center" });
    }
  }

  private close(gameKey: string): void {
    this.closedFor = gameKey;
    this.el.hidden = true;
  }
}
