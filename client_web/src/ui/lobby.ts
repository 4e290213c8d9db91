/**
 * The lobby: live and open tables (discipline, players, score, status, spectators) kept up to
 * date by the server's pushes (lobby / lobby_update / lobby_remove); create a table with its
 * discipline's options; quick play; watch or join any table; replays of finished games. Rated
 * games (create or quick play) for logged-in players; the players' ratings beside their names.
 */

import { DISCIPLINES, disciplineLabel } from "../game/names";
import { loadSeat } from "../game/seats";
import type { LobbyEntry, ServerMsg } from "../protocol/messages";
import { out } from "../protocol/messages";
import { h, toast } from "./dom";
import { profileHref } from "../players/model";
import { api } from "../api";
import { parsePuzzle } from "../puzzles/model";
import { nameWithRating, ratingText } from "../players/model";

/** A drill of `GET /api/drills` (rules/drills.py). */
export interface DrillEntry {
  id: string;
  name: string;
  group: string;
  discipline: string;
  goal: string;
  code: string;
}

export interface LobbyLink {
  send(msg: object): boolean;
  open(table: string): void;
  /** a logged-in player (rated games are theirs only) */
  loggedIn(): boolean;
}

function intOrNull(v: string): number | null {
  const x = Number(v);
  return v.trim() !== "" && Number.isInteger(x) && x > 0 ? x : null;
}

/** The configuration map of the create-table form for `discipline` (keys of the rules specs, section C). */
export function configFromForm(discipline: string, f: Record<string, string>): Record<string, unknown> {
  const cfg: Record<string, unknown> = {};
  const pool = discipline === "straight_pool";
  const multi = discipline === "pentathlon" || discipline === "triathlon";
  const clock = intOrNull(f.shot_clock ?? "");
  if (pool) {
    const t = intOrNull(f.target ?? "");
    if (t !== null) cfg.target_points = t;
    if (f.table) cfg.table = f.table;
    if (clock !== null) cfg.shot_clock = { limit_s: clock, extensions: 1 };
  } else {
    const d = intOrNull(f.target ?? "");
    if (d !== null && !multi) cfg.distance = d;
    const inn = intOrNull(f.innings ?? "");
    const sets = intOrNull(f.sets ?? "");
    if (sets !== null && !multi) cfg.sets = { sets_to_win: sets, set_distance: d ?? 15 };
    else if (inn !== null) cfg.inning_limit = inn;
    if (clock !== null) cfg.shot_clock = { limit_s: clock, warn_s: Math.max(1, Math.round(clock * 0.66)), timeouts: 1 };
  }
  return cfg;
}

/** The computer levels offered in the create-table form (protocol: `create_table.computer`, 1..5). */
export const COMPUTER_LEVELS = [1, 2, 3, 4, 5] as const;

/** The opponent chosen in the create-table form: a computer level, or null for a human. */
export function computerFromForm(f: Record<string, string>): number | null {
  const lv = Number(f.opponent ?? "");
  return (COMPUTER_LEVELS as readonly number[]).includes(lv) ? lv : null;
}

/** The create_table message of the create-table form's fields (the creator takes seat 0; never rated against the computer). */
export function createTableFromForm(f: Record<string, string>) {
  const discipline = f.discipline;
  const computer = computerFromForm(f);
  return out.createTable(discipline, configFromForm(discipline, f), f.private === "on", 0, computer, f.rated === "on" && computer === null);
}

/** A lobby seat in words: the name and, for a logged-in player, the rating ("Ann (1520)"); "—" when free. */
/** What each lobby status means (the badge's tooltip). */
const STATUS_TITLES: Record<string, string> = {
  waiting: "A seat is free: join",
  playing: "Both players are at the table",
  paused: "A player is away; the seat is held for a while",
  over: "The game is over",
};

export class LobbyView {
  readonly el: HTMLElement;
  private tables = new Map<string, LobbyEntry>();
  private list: HTMLElement;
  private online: HTMLElement;
  private waiting: HTMLElement;
  private form: HTMLFormElement;
  private ratedIn: HTMLInputElement;
  private ratedHint: HTMLElement;
  private syncRated: () => void = () => {};
  private drillSel: HTMLSelectElement;
  private puzzleNote: HTMLElement;

  constructor(private readonly app: LobbyLink) {
    this.list = h("tbody", { "data-testid": "lobby-tables" });
    this.online = h("span", { class: "online", "data-testid": "online" });
    this.waiting = h("div", { class: "waiting", "data-testid": "quick-play-status" });
    const sel = (id: string, label: string, options: [string, string][], value?: string) =>
      h(
        "label",
        { class: "field" },
        label,
        h("select", { id, name: id }, ...options.map(([v, t]) => h("option", { value: v, selected: v === value }, t))),
      );
    // the ranges the referees accept (rules: target_points 1-1000, shot_clock.limit_s 2-3600 s): the browser says
    // what is wrong in its own words before anything is sent (QA: 99999999 came back as the protocol's raw text)
    const num = (id: string, label: string, placeholder: string, max: number, min = 1) =>
      h("label", { class: "field" }, label, h("input", { id, name: id, type: "number", min, max, step: 1, placeholder }));
    const discSel = sel(
      "discipline",
      "Discipline",
      DISCIPLINES.map((d) => [d.id, d.label]),
      "straight_pool",
    );
    const target = num("target", "Target points / distance", "default", 1000);
    const innings = num("innings", "Innings limit", "none", 1000);
    const sets = sel("sets", "Sets", [
      ["", "One game"],
      ["2", "Best of 3"],
      ["3", "Best of 5"],
    ]);
    const table = sel("table", "Table", [
      ["9ft", "9 ft"],
      ["8ft", "8 ft"],
      ["7ft", "7 ft"],
    ]);
    const clock = num("shot_clock", "Shot clock (s)", "off", 3600, 2);
    const opponent = sel(
      "opponent",
      "Opponent",
      [["", "Human"], ...COMPUTER_LEVELS.map((n): [string, string] => [String(n), `Computer (level ${n})`])],
      "",
    );
    const priv = h("label", { class: "check" }, h("input", { type: "checkbox", name: "private", id: "private" }), " Private (not listed; share the link)");
    this.ratedIn = h("input", { type: "checkbox", name: "rated", id: "rated" });
    this.ratedHint = h("span", { class: "hint", id: "rated-hint" });
    const rated = h("label", { class: "check" }, this.ratedIn, " Rated ", this.ratedHint);
    this.form = h(
      "form",
      { class: "create-form", id: "create-form" },
      discSel,
      opponent,
      target,
      table,
      innings,
      sets,
      clock,
      priv,
      rated,
      h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "create-btn" }, "Create table"), h("button", { type: "button", id: "quick-play-btn", onclick: () => this.quickPlay() }, "Quick play")),
      this.waiting,
    ) as HTMLFormElement;
    const discSelect = discSel.querySelector("select")!;
    const sync = () => {
      const d = discSelect.value;
      const pool = d === "straight_pool";
      const multi = d === "pentathlon" || d === "triathlon";
      table.hidden = !pool;
      innings.hidden = pool;
      sets.hidden = pool || multi;
      target.hidden = multi;
      (target.querySelector("input") as HTMLInputElement).placeholder = pool ? "150" : "discipline default";
    };
    discSelect.addEventListener("change", sync);
    sync();
    const oppSelect = opponent.querySelector("select")!;
    this.syncRated = () => {
      const vsComputer = oppSelect.value !== "";
      const can = this.app.loggedIn() && !vsComputer;
      this.ratedIn.disabled = !can;
      if (!can) this.ratedIn.checked = false;
      this.ratedHint.textContent = !this.app.loggedIn() ? "(log in to play rated games)" : vsComputer ? "(not against the computer)" : "";
    };
    oppSelect.addEventListener("change", this.syncRated);
    this.syncRated();
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.post(createTableFromForm(this.formFields()));
    });
    // practice: a drill, or the opening of the form's discipline (one shooter, an optional coach, nothing scored)
    this.drillSel = h("select", { id: "practice-drill", name: "practice-drill", "aria-label": "Drill" }, h("option", { value: "" }, "Loading drills...")) as HTMLSelectElement;
    const coachIn = h("input", { type: "checkbox", id: "practice-coach" }) as HTMLInputElement;
    const practiceCard = h(
      "section",
      { class: "card practice-card", "data-testid": "practice-card" },
      h("h2", {}, "Practice"),
      h("p", { class: "hint" }, "Place the balls anywhere, shoot, undo and retry; fouls and caroms are judged, nothing is scored."),
      h("label", { class: "field" }, "Drill", this.drillSel),
      h(
        "div",
        { class: "buttons" },
        h("button", { type: "button", class: "primary", id: "practice-drill-btn", onclick: () => {
          if (this.drillSel.value) location.hash = `#/practice/drill/${this.drillSel.value}`;
        } }, "Practice this drill"),
        h("button", { type: "button", id: "practice-open-btn", onclick: () => {
          const { discipline, isPrivate } = this.formValues();
          const d = discipline === "pentathlon" || discipline === "triathlon" ? "three_cushion" : discipline;
          this.post(out.createPractice(d, coachIn.checked ? { coach: true } : {}, isPrivate));
        } }, "Practice table (the form's discipline)"),
      ),
      h("label", { class: "check" }, coachIn, " Coach seat (a second player may place balls and shoot)"),
    );
    void this.loadDrills();
    this.puzzleNote = h("p", { class: "hint", "data-testid": "lobby-puzzle-goal" }, "Find the pot or the carom: one position from a real game, judged by the referee.");
    const puzzleCard = h(
      "section",
      { class: "card puzzle-card", "data-testid": "puzzle-card" },
      h("h2", {}, "Puzzle of the day"),
      this.puzzleNote,
      h("a", { href: "#/puzzle", id: "lobby-puzzle", class: "button primary" }, "Solve the puzzle of the day"),
    );
    void this.loadPuzzle();
    this.el = h(
      "section",
      { class: "lobby" },
      h("section", { class: "card play-card" }, h("h2", {}, "Play"), this.form),
      practiceCard,
      puzzleCard,
      h(
        "section",
        { class: "card tables-card" },
        h("h2", {}, "Tables ", this.online),
        h(
          "table",
          { class: "tables" },
          h("thead", {}, h("tr", {}, h("th", {}, "Discipline"), h("th", {}, "Players"), h("th", {}, "Score"), h("th", {}, "Status"), h("th", {}, "Watching"), h("th", {}, ""))),
          this.list,
        ),
      ),
    );
    this.render();
  }

  /** The drills library into the practice card's list, grouped (14.1, three-cushion, balkline). */
  /** The daily puzzle's goal and rating on its card (the card stays a plain link when there is none). */
  private async loadPuzzle(): Promise<void> {
    const r = await api<unknown>("GET", "/api/puzzles/daily");
    const p = r.ok ? parsePuzzle(r.data) : null;
    if (p) this.puzzleNote.textContent = `${disciplineLabel(p.discipline)}: ${p.goal_text} (rating ${ratingText(p.rating, p.rd)})`;
    else if (!r.ok && r.code === "no_puzzle") this.puzzleNote.textContent = "No puzzle of the day yet.";
  }

  private async loadDrills(): Promise<void> {
    const r = await api<{ drills: DrillEntry[] }>("GET", "/api/drills");
    if (!r.ok || !Array.isArray(r.data?.drills)) {
      this.drillSel.replaceChildren(h("option", { value: "" }, "Drills unavailable"));
      return;
    }
    const groups = new Map<string, DrillEntry[]>();
    for (const d of r.data.drills) groups.set(d.group, [...(groups.get(d.group) ?? []), d]);
    this.drillSel.replaceChildren(
      ...[...groups].map(([g, ds]) => h("optgroup", { label: g }, ...ds.map((d) => h("option", { value: d.id, title: d.goal }, d.name)))),
    );
  }

  private formFields(): Record<string, string> {
    const fd = new FormData(this.form);
    const f: Record<string, string> = {};
    for (const [k, v] of fd.entries()) f[k] = String(v);
    return f;
  }

  private formValues(): { discipline: string; config: Record<string, unknown>; isPrivate: boolean } {
    const f = this.formFields();
    const discipline = f.discipline;
    return { discipline, config: configFromForm(discipline, f), isPrivate: f.private === "on" };
  }

  private quickPlay(): void {
    const { discipline, config } = this.formValues();
    this.post(out.quickPlay(discipline, config, this.ratedIn.checked && !this.ratedIn.disabled));
  }

  /** The player logged in or out: the Rated box follows. */
  /** Send a player's action; with no link to the server, say so (QA: Create did nothing at all). */
  private post(msg: object): void {
    if (!this.app.send(msg)) toast("Not connected to the server: wait for \"Connected\" at the top, then try again.", "error");
  }

  accountChanged(): void {
    this.syncRated();
  }

  /** Lobby messages; returns true when handled. */
  handle(m: ServerMsg): boolean {
    switch (m.type) {
      case "lobby":
        this.tables = new Map(m.tables.map((t) => [t.table, t]));
        this.online.textContent = `${m.online} online`;
        this.render();
        return true;
      case "lobby_update":
        this.tables.set(m.table.table, m.table);
        this.render();
        return true;
      case "lobby_remove":
        this.tables.delete(m.table);
        this.render();
        return true;
      case "quick_play_waiting":
        this.waiting.replaceChildren(
          `Waiting for an opponent (${disciplineLabel(m.discipline)})... `,
          h("button", { type: "button", class: "small", id: "quick-play-cancel", onclick: () => this.cancelQuickPlay() }, "Cancel"),
        );
        return true;
    }
    return false;
  }

  private cancelQuickPlay(): void {
    this.app.send(out.quickPlayCancel());
    this.waiting.textContent = "";
  }

  private render(): void {
    const rows = [...this.tables.values()].sort((a, b) => {
      const rank = (t: LobbyEntry) => ({ waiting: 0, playing: 1, paused: 2, over: 3 })[t.status] ?? 4;
      return rank(a) - rank(b) || b.ts - a.ts;
    });
    if (!rows.length) {
      this.list.replaceChildren(h("tr", {}, h("td", { colspan: 6, class: "empty" }, "No tables yet: create one or use quick play.")));
      return;
    }
    this.list.replaceChildren(
      ...rows.map((t) => {
        const players = t.seats.map((s, i) => nameWithRating(s, t.ratings?.[i], t.provisional?.[i]));
        const mine = loadSeat(t.table) !== null; // a seat of ours (this browser holds its token)
        // a practice table offers its second seat only as a coach's: its status says whether a seat is open
        const free = !mine && (t.practice ? t.status === "waiting" : t.seats.some((s) => s === null)) && t.status !== "over";
        return h(
          "tr",
          { "data-table": t.table, class: `status-${t.status}` },
          h(
            "td",
            {},
            disciplineLabel(t.discipline),
            t.rated ? h("span", { class: "badge rated", title: "The games count for ratings" }, "rated") : null,
            t.practice ? h("span", { class: "badge practice", title: "A practice table: nothing is scored" }, "practice") : null,
          ),
          h(
            "td",
            { class: "players" },
            ...players.flatMap((p, i) => {
              const name = t.seats[i];
              const el = name !== null && typeof t.ratings?.[i] === "number" ? h("a", { href: profileHref(name), "data-testid": `lobby-player-${i}` }, p) : h("span", { "data-testid": `lobby-player-${i}` }, p);
              return i === 0 ? [el] : [" vs ", el];
            }),
          ),
          h("td", { class: "score" }, t.scores.length ? t.scores.join(" : ") : "\u2014"),
          h("td", {}, h("span", { class: `badge ${t.status}`, title: STATUS_TITLES[t.status] ?? "" }, t.status)),
          h("td", { class: "num" }, String(t.spectators)),
          h(
            "td",
            { class: "actions" },
            free ? h("button", { type: "button", class: "primary small", "data-action": "join", onclick: () => this.join(t.table) }, "Join") : null,
            mine
              ? h("a", { class: "button small primary", href: `#/table/${t.table}`, "data-action": "resume" }, "Your table")
              : h("a", { class: "button small", href: `#/table/${t.table}`, "data-action": "watch" }, "Watch"),
            t.status === "over" ? h("a", { class: "button small", href: `#/replay/${t.table}`, "data-action": "replay" }, "Replay") : null,
          ),
        );
      }),
    );
  }

  private join(table: string): void {
    this.post(out.join(table));
  }
}
