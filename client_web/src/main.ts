/**
 * billar in the browser: one WebSocket connection, three screens chosen by the URL hash
 * (shareable links): `#/` lobby, `#/table/<id>` a table (play or watch), `#/replay/<id>[/<game>]`
 * the replay of a recorded game.
 */

import "./style.css";
import { Connection, LinkStatus } from "./net/connection";
import type { ServerMsg, Welcome } from "./protocol/messages";
import { out } from "./protocol/messages";
import { h, toast } from "./ui/dom";
import { LobbyView } from "./ui/lobby";
import { ReplayView } from "./ui/replay";
import { TableView } from "./ui/tableview";
import { parseRoute } from "./route";


const NAME_KEY = "billar.name";

class App {
  readonly conn: Connection;
  private main: HTMLElement;
  private linkEl: HTMLElement;
  private nameIn: HTMLInputElement;
  lobby: LobbyView | null = null;
  table: TableView | null = null;
  replay: ReplayView | null = null;
  clockOffset = 0;
  welcome: Welcome | null = null;

  constructor(root: HTMLElement) {
    this.linkEl = h("div", { id: "link-status", class: "link-status connecting", role: "status", "aria-live": "polite" }, "Connecting...");
    this.nameIn = h("input", { id: "player-name", type: "text", maxlength: 32, placeholder: "Your name", "aria-label": "Your name", value: localStorage.getItem(NAME_KEY) ?? "" }) as HTMLInputElement;
    this.nameIn.addEventListener("input", () => localStorage.setItem(NAME_KEY, this.nameIn.value.trim()));
    this.nameIn.addEventListener("change", () => toast("Your name is used from the next connection."));
    this.main = h("main", { id: "view" });
    root.replaceChildren(
      h(
        "header",
        { class: "top" },
        h("a", { class: "brand", href: "#/" }, h("span", { class: "logo", "aria-hidden": "true" }), "billar"),
        this.linkEl,
        h("label", { class: "name-field" }, "Name ", this.nameIn),
      ),
      this.main,
      h("div", { id: "toasts", "aria-live": "polite" }),
    );
    this.conn = new Connection(Connection.defaultUrl(), () => this.nameIn.value.trim(), {
      onWelcome: (w, again) => this.onWelcome(w, again),
      onMessage: (m) => this.onMessage(m),
      onStatus: (s, d) => this.onStatus(s, d),
    });
    window.addEventListener("hashchange", () => this.route());
    this.route();
    this.conn.start();
  }

  get connected(): boolean {
    return this.conn.ready;
  }

  get playerName(): string {
    return this.welcome?.name ?? "";
  }

  send(msg: object): boolean {
    return this.conn.send(msg);
  }

  private route(): void {
    const r = parseRoute(location.hash);
    if (r.view === "table" && this.table?.id === r.id) return;
    this.lobby = null;
    this.table?.destroy();
    this.table = null;
    this.replay?.destroy();
    this.replay = null;
    if (r.view === "lobby") {
      this.lobby = new LobbyView({ send: (m) => this.send(m), open: (t) => (location.hash = `#/table/${t}`) });
      this.main.replaceChildren(this.lobby.el);
      document.title = "billar \u2014 lobby";
      if (this.connected) this.send(out.lobbySubscribe());
    } else if (r.view === "table") {
      this.send(out.lobbyUnsubscribe());
      this.openTable(r.id);
    } else {
      this.send(out.lobbyUnsubscribe());
      this.replay = new ReplayView(r.id, r.game);
      this.main.replaceChildren(this.replay.el);
      document.title = "billar \u2014 replay";
    }
  }

  /** Show table `id`; `attach`: resume or watch now (not when the server has just seated us there). */
  private openTable(id: string, attach = true): TableView {
    if (this.table?.id === id) return this.table;
    this.lobby = null;
    this.replay?.destroy();
    this.replay = null;
    this.table?.destroy();
    this.table = new TableView(id, this);
    this.main.replaceChildren(this.table.el);
    document.title = "billar \u2014 table";
    if (attach && this.connected) this.table.attach();
    else this.table.attached = true;
    return this.table;
  }

  private onWelcome(w: Welcome, again: boolean): void {
    this.welcome = w;
    this.clockOffset = w.ts - Date.now() / 1000;
    if (this.lobby) this.send(out.lobbySubscribe());
    this.table?.attach();
    if (again) toast("Reconnected.");
  }

  private onStatus(s: LinkStatus, detail: string): void {
    this.linkEl.className = `link-status ${s}`;
    this.linkEl.textContent = detail;
    this.table?.refresh();
  }

  private onMessage(m: ServerMsg): void {
    if (this.lobby?.handle(m)) return;
    if (m.type === "seated") {
      // quick play, create and join: go to the table (the snapshot follows)
      const t = this.table?.id === m.table ? this.table : this.openTable(m.table, false);
      if (location.hash !== `#/table/${m.table}`) location.hash = `#/table/${m.table}`;
      t.handle(m);
      return;
    }
    if (m.type === "shutdown") {
      toast(`The server is restarting (${m.reason}); reconnecting...`);
      return;
    }
    if (m.type === "error" && (!this.table || (m.table && m.table !== this.table.id))) {
      toast(m.message || m.code, "error");
      return;
    }
    if (m.type === "lobby" || m.type === "lobby_update" || m.type === "lobby_remove" || m.type === "quick_play_waiting") return;
    this.table?.handle(m);
  }
}

const app = new App(document.getElementById("app")!);
// read-only handle for end-to-end tests and debugging in the console
(window as any).billar = app;
