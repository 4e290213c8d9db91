/**
 * billar in the browser: one WebSocket connection, screens chosen by the URL hash (shareable
 * links): `#/` lobby, `#/table/<id>` a table (play or watch), `#/replay/<id>[/<game>]` and
 * `#/game/<n>` the replay of a recorded game, `#/@/<name>[/games]` a player's profile and games,
 * `#/leaderboard/<discipline>`, `#/tv[/<discipline>]` the featured live game, `#/games[/<discipline>]`
 * the live games, `#/practice/<code>` and `#/practice/drill/<id>` a new practice table at a position
 * or a drill, `#/puzzle[/<id>]` the puzzle of the day or one puzzle. The account control in the header logs in and out (the HTTP API); each change
 * reconnects the socket so its `hello` is the account's.
 */

import "./style.css";
import { SoundBoard } from "./audio/sound";
import { Capabilities } from "./net/capabilities";
import { Connection, LinkStatus } from "./net/connection";
import type { ServerMsg, Welcome } from "./protocol/messages";
import { LIMITS, out } from "./protocol/messages";
import { h, toast } from "./ui/dom";
import { AccountControl } from "./ui/account";
import { GamesView, LeaderboardView, ProfileView } from "./ui/players";
import { LobbyView } from "./ui/lobby";
import { ReplayView } from "./ui/replay";
import { TableView } from "./ui/tableview";
import { TournamentsView, TournamentView } from "./ui/tournaments";
import { PuzzlePage } from "./ui/puzzle";
import { LiveGamesView, TvView } from "./ui/tv";
import { parseRoute } from "./route";
import { api } from "./api";


const NAME_KEY = "billar.name";

class App {
  readonly conn: Connection;
  private main: HTMLElement;
  private linkEl: HTMLElement;
  private nameIn: HTMLInputElement;
  private nameField: HTMLElement;
  lobby: LobbyView | null = null;
  table: TableView | null = null;
  replay: ReplayView | null = null;
  /** a profile, game list or leaderboard page (plain HTTP pages) */
  page: ProfileView | GamesView | LeaderboardView | null = null;
  readonly account: AccountControl;
  tv: TvView | null = null;
  games: LiveGamesView | null = null;
  tournament: TournamentsView | TournamentView | null = null;
  /** the puzzle page (`#/puzzle[/<id>]`, plain HTTP) */
  puzzle: PuzzlePage | null = null;
  clockOffset = 0;
  welcome: Welcome | null = null;
  /** which of the newer message types (rename, aim) the server speaks */
  readonly caps = new Capabilities();
  /** the table's sounds (no audio before the first user gesture) */
  readonly sound = new SoundBoard();
  /** the opponents tournament directors named for our seats, by table id (tournament_game) */
  private readonly tournamentOpponents = new Map<string, string>();
  /** the name asked for by the last rename, until the server answers */
  private pendingName: string | null = null;
  /** a practice table's create_table, sent once connected (a `#/practice/...` link) */
  private pendingPractice: object | null = null;
  /** the cue stroke of the position link being opened (`#/practice/<code>` with a cue), for its table */
  private practiceCue: TableView["startCue"] = null;
  /** a rename refused while our game was in progress: retried once when that game is over */
  private heldName: { name: string; retried: boolean } | null = null;

  constructor(root: HTMLElement) {
    this.linkEl = h("div", { id: "link-status", class: "link-status connecting", role: "status", "aria-live": "polite" }, "Connecting...");
    // no maxlength: a longer name is refused with a message (applyName), never cut silently
    this.nameIn = h("input", { id: "player-name", type: "text", placeholder: "Your name", "aria-label": "Your name", value: localStorage.getItem(NAME_KEY) ?? "" }) as HTMLInputElement;
    this.nameIn.addEventListener("input", () => localStorage.setItem(NAME_KEY, this.nameIn.value.trim()));
    this.nameIn.addEventListener("change", () => this.applyName());
    this.main = h("main", { id: "view" });
    this.account = new AccountControl(() => this.accountChanged());
    this.nameField = h("label", { class: "name-field" }, "Name ", this.nameIn);
    root.replaceChildren(
      h(
        "header",
        { class: "top" },
        h("a", { class: "brand", href: "#/" }, h("span", { class: "logo", "aria-hidden": "true" }), "billar"),
        h(
          "nav",
          { class: "top-nav" },
          h("a", { href: "#/tv", id: "nav-tv" }, "TV"),
          h("a", { href: "#/puzzle", id: "nav-puzzle", title: "The puzzle of the day: find the pot or the carom" }, "Puzzle"),
          h("a", { href: "#/games", id: "nav-games" }, "Live games"),
          h("a", { href: "#/tournaments", id: "nav-tournaments" }, "Tournaments"),
          h("a", { href: "#/leaderboard", id: "nav-leaderboard" }, "Leaderboards"),
        ),
        this.linkEl,
        this.nameField,
        this.account.el,
      ),
      this.main,
      h("div", { id: "toasts", "aria-live": "polite" }),
    );
    this.conn = new Connection(Connection.defaultUrl(), () => this.nameIn.value.trim(), {
      onWelcome: (w, again) => this.onWelcome(w, again),
      onMessage: (m) => this.onMessage(m),
      onStatus: (s, d) => this.onStatus(s, d),
    });
    this.sound.armOnFirstGesture();
    window.addEventListener("hashchange", () => this.route());
    this.route();
    // the socket's hello carries the session cookie by itself and the welcome names the account: the header
    // follows it (no GET /api/account at start, which answered a guest's every page load with a 401 the
    // browser logs as an error)
    this.conn.start();
  }

  /** Logged in or out: the Rated box, the name field, and a new socket whose hello is the account's. */
  private accountChanged(): void {
    this.nameField.hidden = this.account.account !== null;
    this.lobby?.accountChanged();
    void this.puzzle?.accountChanged();
    if (this.tournament instanceof TournamentsView) this.tournament.accountChanged();
    this.conn.reconnect();
  }

  get connected(): boolean {
    return this.conn.ready;
  }

  tournamentOpponent(table: string): string | null {
    return this.tournamentOpponents.get(table) ?? null;
  }

  get stoppedWhy(): string | null {
    return this.conn.status === "closed" && this.conn.detail ? this.conn.detail : null;
  }

  get playerName(): string {
    return this.welcome?.name ?? "";
  }

  get loggedIn(): boolean {
    return !!this.welcome?.account;
  }

  send(msg: object): boolean {
    return this.conn.send(msg);
  }

  /** Send a message of a newer type (rename, aim) unless the server refused that type already. */
  sendNewer(type: string, msg: object): boolean {
    if (!this.caps.allows(type)) return false;
    if (!this.conn.send(msg)) return false;
    this.caps.noteSent(type);
    return true;
  }

  /** The name box shows the name the server uses (after a refusal), and the next visit starts from it. */
  private restoreName(): void {
    const name = this.playerName;
    if (!name) return;
    this.nameIn.value = name;
    localStorage.setItem(NAME_KEY, name);
  }

  /** The typed name, at once: a `rename` (the next hello takes it when not connected). */
  private applyName(): void {
    const name = this.nameIn.value.trim();
    if (!name) return;
    const chars = [...name].length; // code points, as the server counts
    if (chars > LIMITS.MAX_NAME_CHARS) {
      toast(`Your name must be at most ${LIMITS.MAX_NAME_CHARS} characters (this one has ${chars}).`, "error");
      if (this.connected) this.restoreName();
      return;
    }
    if (!this.connected || name === this.playerName || name === this.pendingName) return;
    if (this.heldName && this.heldName.name !== name) this.heldName = null;
    if (!this.sendNewer("rename", out.rename(name))) {
      toast("Your name is used from the next connection.");
      return;
    }
    this.pendingName = name;
  }

  /** After a refusal for a game in progress: the typed name once that game is over. */
  private retryHeldName(): void {
    const held = this.heldName;
    if (!held || held.retried || !this.connected || this.table?.inGame) return;
    held.retried = true;
    this.applyName();
  }

  private route(): void {
    const r = parseRoute(location.hash);
    if (r.view === "table" && this.table?.id === r.id && !this.tv) return;
    // a window whose seat another window resumed stopped its link (the seat is played there now): going elsewhere
    // (or back to the table, as a reload would) connects it again, and gives nothing up (QA: the lobby of such a
    // window stayed empty and Create did nothing)
    const replaced = this.conn.status === "closed" && this.conn.replaced;
    let forfeit = false;
    if (this.table?.seat && this.table.gameStarted && !replaced) {
      // leaving a game in progress gives it up: the table must not stay "playing" with nobody at it
      if (!confirm("Leave this game? Going away from the table gives up your seat and forfeits the game in progress.")) {
        history.replaceState(null, "", `#/table/${this.table.id}`);
        return;
      }
      forfeit = true;
    }
    if (r.view !== "table") queueMicrotask(() => this.retryHeldName());
    if (replaced) this.conn.reconnect();
    window.scrollTo(0, 0); // a new screen starts at its top (the table first on a phone)
    this.closeScreens(forfeit);
    if (r.view === "lobby") {
      this.lobby = new LobbyView({ send: (m) => this.send(m), open: (t) => (location.hash = `#/table/${t}`), loggedIn: () => this.account.account !== null });
      this.main.replaceChildren(this.lobby.el);
      document.title = "billar \u2014 lobby";
      if (this.connected) this.send(out.lobbySubscribe());
    } else if (r.view === "table") {
      this.send(out.lobbyUnsubscribe());
      this.openTable(r.id);
    } else if (r.view === "tv") {
      this.send(out.lobbyUnsubscribe());
      this.tv = new TvView(r.channel, { showTable: (id, slot) => this.showTvTable(id, slot) });
      this.main.replaceChildren(this.tv.el);
      document.title = "billar \u2014 TV";
    } else if (r.view === "live") {
      this.send(out.lobbyUnsubscribe());
      this.games = new LiveGamesView(r.discipline);
      this.main.replaceChildren(this.games.el);
      document.title = "billar \u2014 live games";
    } else if (r.view === "practice") {
      this.send(out.lobbyUnsubscribe());
      void this.openPractice(r.code, r.drill);
    } else if (r.view === "puzzle") {
      this.send(out.lobbyUnsubscribe());
      this.puzzle = new PuzzlePage(r.id, r.bad ?? null);
      this.main.replaceChildren(this.puzzle.el);
      document.title = "billar \u2014 puzzle";
    } else if (r.view === "tournaments" || r.view === "tournament") {
      this.send(out.lobbyUnsubscribe());
      const me = () => this.account.account?.username ?? null;
      this.tournament = r.view === "tournaments" ? new TournamentsView(() => this.account.account !== null) : new TournamentView(r.id, me);
      this.main.replaceChildren(this.tournament.el);
      document.title = "billar \u2014 tournaments";
    } else if (r.view === "replay" || r.view === "record") {
      this.send(out.lobbyUnsubscribe());
      this.replay = r.view === "replay" ? new ReplayView(r.id, r.game, this.sound) : new ReplayView("", null, this.sound, `/api/games/${r.id}`);
      this.main.replaceChildren(this.replay.el);
      document.title = "billar \u2014 replay";
    } else {
      this.send(out.lobbyUnsubscribe());
      this.page = r.view === "profile" ? new ProfileView(r.name) : r.view === "games" ? new GamesView(r.name) : new LeaderboardView(r.discipline);
      this.main.replaceChildren(this.page.el);
      document.title = `billar \u2014 ${r.view === "leaderboard" ? "leaderboard" : r.name}`;
    }
  }

  /** The TV's featured table `id` (null: none) as a spectator view in `slot`, the previous one left. */
  private showTvTable(id: string | null, slot: HTMLElement): void {
    if (this.table?.id === id) return;
    this.table?.destroy();
    this.table = null;
    if (id === null) {
      slot.replaceChildren();
      return;
    }
    this.table = new TableView(id, this);
    slot.replaceChildren(this.table.el);
    if (this.connected) this.table.attach();
  }

  /** `#/practice/<code>` or `#/practice/drill/<id>`: a new practice table there (its discipline from the API). */
  private async openPractice(code: string | null, drill: string | null): Promise<void> {
    const note = h("section", { class: "card practice-start", "data-testid": "practice-start" }, "Setting up the practice table...");
    this.main.replaceChildren(note);
    document.title = "billar \u2014 practice";
    this.practiceCue = null;
    let discipline: string | null = null;
    if (drill) {
      const r = await api<{ drills: { id: string; discipline: string }[] }>("GET", "/api/drills");
      const d = r.ok ? r.data.drills.find((x) => x.id === drill) : undefined;
      if (d) discipline = d.discipline;
      else note.textContent = r.ok ? `There is no drill "${drill}".` : "Could not reach the server; reload to try again.";
    } else if (code) {
      const r = await api<{ discipline: string; cue: TableView["startCue"] }>("GET", `/api/positions/${code}`);
      if (r.ok) {
        discipline = r.data.discipline;
        this.practiceCue = r.data.cue ?? null;
      }
      else note.textContent = r.status === 400 ? `This position link is not valid: ${r.message}` : "Could not reach the server; reload to try again.";
    }
    const now = parseRoute(location.hash);
    if (!discipline || now.view !== "practice" || now.code !== code || now.drill !== drill) return;
    this.pendingPractice = out.createPractice(discipline, drill ? { drill } : { position: code! });
    this.sendPractice();
  }

  private sendPractice(): void {
    if (this.pendingPractice && this.connected && this.send(this.pendingPractice)) this.pendingPractice = null;
  }

  /** Leave whatever screen is shown (a table's seat with `forfeit`: the game in progress is given up). */
  private closeScreens(forfeit: boolean): void {
    this.lobby = null;
    this.table?.destroy(forfeit);
    this.table = null;
    this.replay?.destroy();
    this.replay = null;
    this.page = null;
    this.tv?.destroy();
    this.tv = null;
    this.games?.destroy();
    this.games = null;
    this.tournament?.destroy();
    this.tournament = null;
    this.puzzle?.destroy();
    this.puzzle = null;
  }

  /** Show table `id`; `attach`: resume or watch now (not when the server has just seated us there). */
  private openTable(id: string, attach = true): TableView {
    if (this.table?.id === id && !this.tv) return this.table;
    this.closeScreens(false);
    this.table = new TableView(id, this);
    this.main.replaceChildren(this.table.el);
    window.scrollTo(0, 0);
    document.title = "billar \u2014 table";
    if (attach && this.connected) this.table.attach();
    else this.table.attached = true;
    return this.table;
  }

  private onWelcome(w: Welcome, again: boolean): void {
    this.welcome = w;
    this.account.noteWelcome(w.account?.name ?? null);
    this.nameField.hidden = !!w.account;
    // a guest who typed no name plays under the server's ("player-LEuV"): the empty box shows it (QA: it said "Your
    // name" while the scoreboard said "player-LEuV")
    this.nameIn.placeholder = w.account ? "Your name" : w.name || "Your name";
    this.lobby?.accountChanged();
    if (this.tournament instanceof TournamentsView) this.tournament.accountChanged();
    this.caps.reset();
    this.pendingName = null;
    this.heldName = null;
    this.clockOffset = w.ts - Date.now() / 1000;
    if (this.lobby) this.send(out.lobbySubscribe());
    this.table?.attach();
    this.sendPractice();
    if (again) toast("Reconnected.");
  }

  private onStatus(s: LinkStatus, detail: string): void {
    this.linkEl.className = `link-status ${s}`;
    this.linkEl.textContent = detail;
    this.table?.refresh();
  }

  private onMessage(m: ServerMsg): void {
    if (m.type === "renamed") {
      if (this.welcome) this.welcome = { ...this.welcome, name: m.name };
      this.pendingName = null;
      this.heldName = null;
      toast(`You are now ${m.name}.`);
      this.table?.refresh();
      return;
    }
    if (m.type === "error") {
      const refused = this.caps.refusal(m);
      if (refused) {
        if (refused.includes("rename")) toast("Your name is used from the next connection.");
        return; // an older server: the live aim is not relayed either, and nothing else changes
      }
      if (m.ref === "rename") {
        const name = this.pendingName;
        this.pendingName = null;
        if (m.code === "game_in_progress" && name && !this.heldName?.retried) {
          this.heldName = { name, retried: false };
          toast(`Your name becomes ${name} when this game is over.`);
        } else {
          toast(m.message || m.code, "error");
          this.restoreName(); // refused: the box says the name the server still uses
        }
        return;
      }
    }
    if (this.lobby?.handle(m)) return;
    if (m.type === "seated") {
      // quick play, create and join: go to the table (the snapshot follows)
      const t = this.table?.id === m.table ? this.table : this.openTable(m.table, false);
      if (this.practiceCue) t.startCue = this.practiceCue;
      this.practiceCue = null;
      if (location.hash !== `#/table/${m.table}`) location.hash = `#/table/${m.table}`;
      t.handle(m);
      return;
    }
    if (m.type === "shutdown") {
      toast(`The server is restarting (${m.reason}); reconnecting...`);
      return;
    }
    if (m.type === "tournament_game") {
      if (m.opponent) this.tournamentOpponents.set(m.table, m.opponent);
      // the director keeps our seat: take it (seated then opens the table), unless a game of ours is on elsewhere
      if (this.table?.id === m.table && this.table.seat) return;
      if (this.table?.seat && this.table.gameStarted) {
        toast(`Your tournament game against ${m.opponent ?? "?"} is ready: finish this game, then open it from the tournament's page.`);
        return;
      }
      toast(`Tournament game against ${m.opponent ?? "?"}: taking your seat.`);
      this.send(out.join(m.table, m.seat));
      return;
    }
    if (m.type === "error" && (!this.table || (m.table && m.table !== this.table.id))) {
      toast(m.message || m.code, "error");
      return;
    }
    if (m.type === "lobby" || m.type === "lobby_update" || m.type === "lobby_remove" || m.type === "quick_play_waiting") return;
    this.table?.handle(m);
    // a name held back by a game in progress goes out once that game is over
    this.retryHeldName();
  }
}

// every screen starts at its top, also after a reload (on a phone the table comes first)
history.scrollRestoration = "manual";
const app = new App(document.getElementById("app")!);
// read-only handle for end-to-end tests and debugging in the console
(window as any).billar = app;
