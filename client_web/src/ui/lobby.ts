/**
 * The lobby: live and open tables (discipline, players, score, status, spectators) kept up to
 * date by the server's pushes (lobby / lobby_update / lobby_remove); create a table with its
 * discipline's options; quick play; watch or join any table; replays of finished games.
 */

import { DISCIPLINES, disciplineLabel } from "../game/names";
import { loadSeat } from "../game/seats";
import type { LobbyEntry, ServerMsg } from "../protocol/messages";
import { out } from "../protocol/messages";
import { h } from "./dom";

export interface LobbyLink {
  send(msg: object): boolean;
  open(table: string): void;
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

/** The create_table message of the create-table form's fields (the creator takes seat 0). */
export function createTableFromForm(f: Record<string, string>) {
  const discipline = f.discipline;
  return out.createTable(discipline, configFromForm(discipline, f), f.private === "on", 0, computerFromForm(f));
}

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
    const num = (id: string, label: string, placeholder: string, value = "") =>
      h("label", { class: "field" }, label, h("input", { id, name: id, type: "number", min: 1, step: 1, placeholder, value }));
    const discSel = sel(
      "discipline",
      "Discipline",
      DISCIPLINES.map((d) => [d.id, d.label]),
      "straight_pool",
    );
    const target = num("target", "Target points / distance", "default");
    const innings = num("innings", "Innings limit", "none");
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
    const clock = num("shot_clock", "Shot clock (s)", "off");
    const opponent = sel(
      "opponent",
      "Opponent",
      [["", "Human"], ...COMPUTER_LEVELS.map((n): [string, string] => [String(n), `Computer (level ${n})`])],
      "",
    );
    const priv = h("label", { class: "check" }, h("input", { type: "checkbox", name: "private", id: "private" }), " Private (not listed; share the link)");
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
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.app.send(createTableFromForm(this.formFields()));
    });
    this.el = h(
      "section",
      { class: "lobby" },
      h("section", { class: "card play-card" }, h("h2", {}, "Play"), this.form),
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
    this.app.send(out.quickPlay(discipline, config));
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
        const players = t.seats.map((s) => s ?? "\u2014").join(" vs ");
        const mine = loadSeat(t.table) !== null; // a seat of ours (this browser holds its token)
        const free = !mine && t.seats.some((s) => s === null) && t.status !== "over";
        return h(
          "tr",
          { "data-table": t.table, class: `status-${t.status}` },
          h("td", {}, disciplineLabel(t.discipline)),
          h("td", {}, players),
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
    this.app.send(out.join(table));
  }
}
