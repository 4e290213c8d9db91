/**
 * The TV (`#/tv`, `#/tv/<discipline>`): the featured live game of a channel, watched as a spectator,
 * switching by itself; and the live games list (`#/games[/<discipline>]`).
 *
 * The server chooses the featured table (one per discipline for the whole cluster, server/tv/); the
 * page asks `GET /api/tv/<channel>` every few seconds and, when the table changes, opens the new one
 * in the spectator table view. Polling rather than a push: the choice changes at most once a second
 * and a few seconds late is fine on TV; a poll costs a cached answer of the process it reaches.
 */

import { DISCIPLINES, disciplineLabel } from "../game/names";
import { h } from "./dom";
import { nameWithRating } from "../players/model";

export const TV_POLL_MS = 3000;
export const GAMES_POLL_MS = 3000;

/** A live game as `/api/games/live` and `/api/tv` describe it. */
export interface LiveGame {
  table: string;
  discipline: string;
  seats: (string | null)[];
  ratings: (number | null)[];
  /** each rating is provisional (shown "1500?"); absent from older servers */
  provisional?: boolean[];
  scores: number[];
  run: number;
  status: string;
  spectators: number;
  rated: boolean;
  game: number;
  score: number;
  featured?: boolean;
}

/** A TV channel's featured table (`table` null: nothing featured). */
export type TvChannel = { channel: string; table: null } | (LiveGame & { channel: string; since: number; ended: boolean });

/** The games of `games` in `discipline` (null: all), best TV score first (the server's order kept). */
export function filterGames(games: LiveGame[], discipline: string | null): LiveGame[] {
  return discipline ? games.filter((g) => g.discipline === discipline) : games;
}

async function getJson<T>(path: string): Promise<T> {
  const r = await fetch(path, { headers: { Accept: "application/json" }, cache: "no-store" });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return (await r.json()) as T;
}

function channelSelect(id: string, value: string, allLabel: string, onPick: (v: string) => void): HTMLSelectElement {
  const sel = h(
    "select",
    { id, "aria-label": "Discipline" },
    h("option", { value: "all", selected: value === "all" }, allLabel),
    ...DISCIPLINES.map((d) => h("option", { value: d.id, selected: d.id === value }, d.label)),
  ) as HTMLSelectElement;
  sel.addEventListener("change", () => onPick(sel.value));
  return sel;
}

export interface TvLink {
  /** show table `id` as a spectator inside `slot` (null: nothing to show) */
  showTable(id: string | null, slot: HTMLElement): void;
}

export class TvView {
  readonly el: HTMLElement;
  readonly slot: HTMLElement;
  private info: HTMLElement;
  private timer: ReturnType<typeof setInterval>;
  /** the featured table shown now */
  table: string | null | undefined = undefined;
  private stopped = false;

  constructor(
    readonly channel: string,
    private readonly app: TvLink,
  ) {
    this.info = h("div", { class: "tv-info", "data-testid": "tv-info" }, "Looking for the best live game...");
    this.slot = h("div", { class: "tv-slot", "data-testid": "tv-slot" });
    const sel = channelSelect("tv-channel", channel, "All disciplines", (v) => (location.hash = v === "all" ? "#/tv" : `#/tv/${v}`));
    this.el = h(
      "section",
      { class: "tv", "data-channel": channel },
      h(
        "div",
        { class: "card tv-bar" },
        h("h2", {}, "billar TV"),
        h("label", { class: "field tv-channel" }, "Channel ", sel),
        this.info,
        h("a", { class: "button small", href: channel === "all" ? "#/games" : `#/games/${channel}`, id: "tv-live-games" }, "Live games"),
      ),
      this.slot,
    );
    this.timer = setInterval(() => void this.poll(), TV_POLL_MS);
    void this.poll();
  }

  destroy(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  async poll(): Promise<void> {
    let ch: TvChannel;
    try {
      ch = await getJson<TvChannel>(`/api/tv/${encodeURIComponent(this.channel)}`);
    } catch (e) {
      if (this.stopped) return;
      if (String(e).includes("HTTP 404")) this.info.textContent = `No TV channel "${this.channel}": pick a discipline.`;
      else if (this.table === undefined) this.info.textContent = "The TV is unavailable for now; retrying...";
      return;
    }
    if (this.stopped) return;
    this.render(ch);
    if (ch.table !== this.table) {
      this.table = ch.table;
      this.app.showTable(ch.table, this.slot);
    }
  }

  private render(ch: TvChannel): void {
    if (ch.table === null) {
      this.info.replaceChildren(h("span", { class: "empty" }, "No live game right now: the next one appears here by itself."));
      return;
    }
    const g = ch;
    const parts: (Node | string | null)[] = [
      h("span", { class: "tv-discipline" }, disciplineLabel(g.discipline)),
      " ",
      h("strong", { class: "tv-players", "data-testid": "tv-players" }, `${nameWithRating(g.seats[0], g.ratings[0], g.provisional?.[0])} vs ${nameWithRating(g.seats[1], g.ratings[1], g.provisional?.[1])}`),
      " ",
      h("span", { class: "tv-score", "data-testid": "tv-score" }, g.scores.join(" : ")),
      g.run > 0 ? h("span", { class: "tv-run" }, ` run ${g.run}`) : null,
      h("span", { class: "tv-watching" }, ` \u00b7 ${g.spectators} watching`),
      g.ended ? h("span", { class: "badge over" }, "over") : null,
    ];
    this.info.replaceChildren(...parts.filter((x): x is Node | string => x !== null));
  }
}

export class LiveGamesView {
  readonly el: HTMLElement;
  private list: HTMLElement;
  private count: HTMLElement;
  private timer: ReturnType<typeof setInterval>;
  games: LiveGame[] = [];
  private stopped = false;

  constructor(readonly discipline: string | null) {
    this.list = h("tbody", { "data-testid": "live-games" });
    this.count = h("span", { class: "online", "data-testid": "live-count" });
    const sel = channelSelect("games-filter", discipline ?? "all", "All disciplines", (v) => (location.hash = v === "all" ? "#/games" : `#/games/${v}`));
    this.el = h(
      "section",
      { class: "card live-games" },
      h("h2", {}, "Live games ", this.count),
      h("div", { class: "live-bar" }, h("label", { class: "field" }, "Discipline ", sel), h("a", { class: "button small", href: discipline ? `#/tv/${discipline}` : "#/tv", id: "games-tv" }, "Watch TV")),
      h(
        "table",
        { class: "tables live" },
        h(
          "thead",
          {},
          h("tr", {}, h("th", {}, "Discipline"), h("th", {}, "Players"), h("th", {}, "Score"), h("th", {}, "Run"), h("th", {}, "Watching"), h("th", { title: "How good a game to watch (ratings, closeness, run)" }, "TV score"), h("th", {}, "")),
        ),
        this.list,
      ),
    );
    this.render();
    this.timer = setInterval(() => void this.poll(), GAMES_POLL_MS);
    void this.poll();
  }

  destroy(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  async poll(): Promise<void> {
    const q = this.discipline ? `?discipline=${encodeURIComponent(this.discipline)}` : "";
    try {
      const r = await getJson<{ games: LiveGame[]; total: number }>(`/api/games/live${q}`);
      if (this.stopped) return;
      this.games = filterGames(r.games, this.discipline);
      this.count.textContent = `${r.total} live`;
    } catch {
      if (!this.stopped) this.count.textContent = "unavailable";
      return;
    }
    this.render();
  }

  private render(): void {
    if (!this.games.length) {
      this.list.replaceChildren(h("tr", {}, h("td", { colspan: 7, class: "empty" }, "No live game right now.")));
      return;
    }
    this.list.replaceChildren(
      ...this.games.map((g) =>
        h(
          "tr",
          { "data-table": g.table, "data-discipline": g.discipline, class: `status-${g.status}${g.featured ? " featured" : ""}`, onclick: () => (location.hash = `#/table/${g.table}`) },
          h("td", {}, disciplineLabel(g.discipline), g.featured ? h("span", { class: "badge on-tv", title: "On TV now" }, "TV") : null),
          h("td", { class: "players" }, `${nameWithRating(g.seats[0], g.ratings[0], g.provisional?.[0])} vs ${nameWithRating(g.seats[1], g.ratings[1], g.provisional?.[1])}`),
          h("td", { class: "score" }, g.scores.join(" : ")),
          h("td", { class: "run" }, String(g.run)),
          h("td", { class: "num" }, String(g.spectators)),
          h("td", { class: "tvscore" }, String(Math.round(g.score))),
          h("td", { class: "actions" }, h("a", { class: "button small", href: `#/table/${g.table}`, "data-action": "watch" }, "Watch")),
        ),
      ),
    );
  }
}
