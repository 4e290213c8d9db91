/**
 * The pages of the players' API (plain HTTP, no socket): a profile (`#/@/<name>`: ratings, the
 * rating chart, statistics per discipline, recent games), a player's games page by page
 * (`#/@/<name>/games`) and the leaderboards (`#/leaderboard/<discipline>`: by rating, by high run).
 * Everything from the server is shown as text.
 */

import { api, apiErrorText } from "../api";
import { DISCIPLINES, disciplineLabel } from "../game/names";
import { PageCursor, gameReplayHref, gamesHref, gamesPath, leaderboardHref, profileHref, ratingChangeText, ratingText, signedChange } from "../players/model";
import { ratingChart } from "./chart";
import { fmt, h, kids } from "./dom";

// ----- the API's shapes (server/api/schemas.py) -----------------------------------------------
export interface GameItem {
  id: number;
  discipline: string;
  rated: boolean;
  /** forfeited before both players had played a stroke: not rated, not in the statistics (absent from older servers) */
  aborted?: boolean;
  finished_at: string;
  seat: number;
  result: "win" | "draw" | "loss";
  points: number;
  innings: number;
  high_run: number;
  average: number;
  rating_before: number | null;
  rating_after: number | null;
  rating_change: number | null;
  opponent: { name: string; registered: boolean; points: number; rating_before: number | null };
}

interface Profile {
  username: string;
  created_at: string;
  ratings: { discipline: string; rating: number; rd: number; provisional: boolean; games: number; rated_at: string }[];
  statistics: {
    discipline: string;
    games: number;
    wins: number;
    draws: number;
    losses: number;
    points: number;
    innings: number;
    average: number;
    high_run: number;
    best_average: number;
    best_game_id: number | null;
  }[];
  history: Record<string, [number, number][]>;
  recent_games: GameItem[];
}

interface GamePage {
  username: string;
  games: GameItem[];
  next: number | null;
}

interface Leaderboard {
  discipline: string;
  rating: { rank: number; username: string; rating: number; rd: number; games: number }[];
  high_run: { rank: number; username: string; high_run: number; games: number; average: number }[];
}

/** "2026-12-01 21:14" in the viewer's time zone. */
function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function playerLink(name: string, testid?: string): HTMLElement {
  return h("a", { href: profileHref(name), class: "player-link", "data-testid": testid }, name);
}

function status(text: string, testid = "page-status"): HTMLElement {
  return h("p", { class: "page-status", "data-testid": testid }, text);
}

/** A table that scrolls sideways inside its card on a narrow screen (the page never does); each cell carries its
 * column's name (`data-label`), which a phone held upright shows beside it when the wide tables become cards. */
function scrollTable(head: string[], rows: HTMLElement[], cls: string, testid: string): HTMLElement {
  for (const r of rows) [...r.children].forEach((td, i) => td.setAttribute("data-label", head[i] ?? ""));
  return h(
    "div",
    { class: "table-scroll" },
    h("table", { class: `data ${cls}`, "data-testid": testid }, h("thead", {}, h("tr", {}, ...head.map((t) => h("th", { scope: "col" }, t)))), h("tbody", {}, ...rows)),
  );
}

const RESULT_WORD = { win: "Won", draw: "Draw", loss: "Lost" } as const;

/** The rows of a game list (recent games, a page of games). */
function gameRows(games: GameItem[]): HTMLElement[] {
  return games.map((g) => {
    const change =
      g.rating_before !== null && g.rating_after !== null
        ? h("span", { class: `change ${Math.round(g.rating_after) >= Math.round(g.rating_before) ? "plus" : "minus"}`, title: ratingChangeText(g.rating_before, g.rating_after) }, signedChange(g.rating_before, g.rating_after), h("span", { class: "after" }, ` (${Math.round(g.rating_after)})`))
        : h("span", { class: "hint", "data-testid": "game-rating" }, g.aborted ? "aborted" : g.rated ? "-" : "casual");
    return h(
      "tr",
      { "data-game": g.id, class: `result-${g.result}` },
      h("td", { class: "result", "data-testid": "game-result" }, RESULT_WORD[g.result] ?? g.result),
      h("td", { class: "score num" }, `${g.points} : ${g.opponent.points}`),
      h("td", { "data-testid": "game-opponent" }, g.opponent.registered ? playerLink(g.opponent.name) : h("span", {}, g.opponent.name)),
      h("td", {}, disciplineLabel(g.discipline)),
      h("td", { class: "num", "data-testid": "game-rating-change" }, change),
      h("td", { class: "date" }, when(g.finished_at)),
      h("td", {}, h("a", { class: "button small", href: gameReplayHref(g.id), "data-action": "replay" }, "Replay")),
    );
  });
}

const GAME_HEAD = ["Result", "Score", "Opponent", "Discipline", "Rating", "Date", ""];

export class ProfileView {
  readonly el: HTMLElement;

  constructor(readonly name: string) {
    this.el = h("section", { class: "players-page profile", "data-testid": "profile" }, h("h1", {}, name), status("Loading..."));
    void this.load();
  }

  private async load(): Promise<void> {
    const r = await api<Profile>("GET", `/api/players/${encodeURIComponent(this.name)}`);
    if (!r.ok) {
      this.el.replaceChildren(h("h1", {}, this.name), status(r.status === 404 ? "No such player." : apiErrorText(r), r.status === 404 ? "not-found" : "page-status"), h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
      return;
    }
    this.render(r.data);
  }

  private render(p: Profile): void {
    const ratings = p.ratings.map((x) =>
      h(
        "tr",
        { "data-discipline": x.discipline },
        h("td", {}, h("a", { href: leaderboardHref(x.discipline) }, disciplineLabel(x.discipline))),
        h("td", { class: "num rating", "data-testid": "rating", title: x.provisional ? "Provisional: too few games to be sure (RD over 110)" : "" }, ratingText(x.rating, x.rd, x.provisional)),
        h("td", { class: "num" }, String(Math.round(x.rd))),
        h("td", { class: "num" }, String(x.games)),
      ),
    );
    const charts = Object.entries(p.history)
      .filter(([, pts]) => pts.length > 0)
      .map(([d, pts]) =>
        h("figure", { class: "chart", "data-discipline": d }, h("figcaption", {}, disciplineLabel(d)), ratingChart(pts.map(([t, rating]) => ({ t, rating })), `${p.username}: ${disciplineLabel(d)} rating over time`)),
      );
    const stats = p.statistics.map((s) =>
      h(
        "tr",
        { "data-discipline": s.discipline },
        h("td", {}, disciplineLabel(s.discipline)),
        h("td", { class: "num", "data-testid": "stat-games" }, String(s.games)),
        h("td", { class: "num", "data-testid": "stat-wdl" }, `${s.wins} / ${s.draws} / ${s.losses}`),
        h("td", { class: "num" }, fmt(s.games ? s.points / s.games : null, 1)),
        h("td", { class: "num" }, fmt(s.average, 3)),
        h("td", { class: "num" }, String(s.high_run)),
        h("td", { class: "num" }, s.best_game_id !== null ? h("a", { href: gameReplayHref(s.best_game_id), title: "Replay the best game" }, fmt(s.best_average, 3)) : fmt(s.best_average, 3)),
      ),
    );
    this.el.replaceChildren(
      ...kids(
        h("h1", {}, p.username),
        h("p", { class: "hint" }, `Playing since ${when(p.created_at).slice(0, 10)}. `, h("a", { href: gamesHref(p.username), id: "all-games" }, "All games")),
        h(
          "section",
          { class: "card" },
          h("h2", {}, "Ratings"),
          ratings.length ? scrollTable(["Discipline", "Rating", "RD", "Rated games"], ratings, "ratings", "ratings") : h("p", { class: "hint" }, "No rated games yet."),
          charts.length ? h("div", { class: "charts" }, ...charts) : null,
        ),
        h(
          "section",
          { class: "card" },
          h("h2", {}, "Statistics"),
          stats.length
            ? scrollTable(["Discipline", "Games", "W / D / L", "Points per game", "General average", "High run", "Best game (average)"], stats, "stats", "statistics")
            : h("p", { class: "hint" }, "No games yet."),
        ),
        h(
          "section",
          { class: "card" },
          h("h2", {}, "Recent games"),
          p.recent_games.length ? scrollTable(GAME_HEAD, gameRows(p.recent_games), "games", "recent-games") : h("p", { class: "hint" }, "No games yet."),
        ),
      ),
    );
  }
}

/** A player's games, newest first, 20 a page, with Previous / Next. */
export class GamesView {
  readonly el: HTMLElement;
  static readonly PAGE = 20;
  private cursor = new PageCursor();
  private next: number | null = null;
  private body: HTMLElement;
  private prevBtn: HTMLButtonElement;
  private nextBtn: HTMLButtonElement;
  private pageEl: HTMLElement;
  private seq = 0;

  constructor(readonly name: string, readonly limit = GamesView.PAGE) {
    this.body = h("div", { class: "games-body" }, status("Loading..."));
    this.prevBtn = h("button", { type: "button", id: "games-prev", onclick: () => this.cursor.previous() && void this.load() }, "\u2039 Newer") as HTMLButtonElement;
    this.nextBtn = h("button", { type: "button", id: "games-next", onclick: () => this.cursor.next(this.next) && void this.load() }, "Older \u203a") as HTMLButtonElement;
    this.pageEl = h("span", { class: "hint", "data-testid": "games-page" });
    this.el = h(
      "section",
      { class: "players-page games-page", "data-testid": "games" },
      h("h1", {}, "Games of ", playerLink(name)),
      h("section", { class: "card" }, this.body, h("div", { class: "pager" }, this.prevBtn, this.pageEl, this.nextBtn)),
    );
    void this.load();
  }

  private async load(): Promise<void> {
    const seq = ++this.seq;
    this.prevBtn.disabled = this.nextBtn.disabled = true;
    const r = await api<GamePage>("GET", gamesPath(this.name, this.cursor.before, this.limit));
    if (seq !== this.seq) return;
    if (!r.ok) {
      this.body.replaceChildren(status(r.status === 404 ? "No such player." : apiErrorText(r), r.status === 404 ? "not-found" : "page-status"));
      return;
    }
    this.next = r.data.next;
    this.pageEl.textContent = `Page ${this.cursor.page}`;
    this.prevBtn.disabled = !this.cursor.hasPrevious;
    this.nextBtn.disabled = this.next === null;
    this.body.replaceChildren(r.data.games.length ? scrollTable(GAME_HEAD, gameRows(r.data.games), "games", "games-list") : status("No games."));
  }
}

/** The top 100 by rating (established players) and by high run of one discipline. */
export class LeaderboardView {
  readonly el: HTMLElement;
  readonly discipline: string;

  constructor(discipline: string | null) {
    this.discipline = discipline && DISCIPLINES.some((d) => d.id === discipline) ? discipline : discipline ?? DISCIPLINES[0].id;
    const sel = h(
      "select",
      { id: "lb-discipline", "aria-label": "Discipline" },
      ...DISCIPLINES.map((d) => h("option", { value: d.id, selected: d.id === this.discipline }, d.label)),
    ) as HTMLSelectElement;
    sel.addEventListener("change", () => (location.hash = leaderboardHref(sel.value)));
    this.el = h(
      "section",
      { class: "players-page leaderboard", "data-testid": "leaderboard" },
      h("div", { class: "page-head" }, h("h1", {}, "Leaderboard"), sel),
      h("div", { class: "boards" }, status("Loading...")),
    );
    void this.load();
  }

  private async load(): Promise<void> {
    const r = await api<Leaderboard>("GET", `/api/leaderboard/${encodeURIComponent(this.discipline)}`);
    const boards = this.el.querySelector(".boards")!;
    if (!r.ok) {
      boards.replaceChildren(status(r.status === 404 ? "No such discipline." : apiErrorText(r)));
      return;
    }
    const b = r.data;
    const byRating = b.rating.map((x) =>
      h("tr", {}, h("td", { class: "num" }, String(x.rank)), h("td", {}, playerLink(x.username)), h("td", { class: "num" }, ratingText(x.rating, x.rd)), h("td", { class: "num" }, String(x.games))),
    );
    const byRun = b.high_run.map((x) =>
      h("tr", {}, h("td", { class: "num" }, String(x.rank)), h("td", {}, playerLink(x.username)), h("td", { class: "num" }, String(x.high_run)), h("td", { class: "num" }, fmt(x.average, 3))),
    );
    boards.replaceChildren(
      h(
        "section",
        { class: "card" },
        h("h2", {}, "By rating"),
        byRating.length ? scrollTable(["#", "Player", "Rating", "Games"], byRating, "board", "board-rating") : h("p", { class: "hint", "data-testid": "board-rating-empty" }, "Nobody is established yet (a rating counts here once its RD is under 100)."),
      ),
      h(
        "section",
        { class: "card" },
        h("h2", {}, "By high run"),
        byRun.length ? scrollTable(["#", "Player", "High run", "Average"], byRun, "board", "board-high-run") : h("p", { class: "hint" }, "No runs yet (a player is listed once a run of at least one point is made)."),
      ),
    );
  }
}
