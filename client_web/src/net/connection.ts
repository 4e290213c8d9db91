/**
 * The WebSocket connection to the server: binary msgpack frames, the hello/welcome handshake,
 * and reconnection by itself with exponential backoff (the server's `shutdown` message gives
 * the delay after a graceful restart). What to do after (re)connecting, e.g. resume a seat with
 * its token, is the listener's job (`onWelcome`).
 */

import { decodeMessage, encodeMessage } from "../protocol/codec";
import { CloseCode, ServerMsg, Welcome, out } from "../protocol/messages";

export type LinkStatus = "connecting" | "open" | "reconnecting" | "closed";

export interface ConnectionEvents {
  onWelcome(w: Welcome, reconnected: boolean): void;
  onMessage(m: ServerMsg): void;
  onStatus(s: LinkStatus, detail: string): void;
}

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 8000;

export class Connection {
  private ws: WebSocket | null = null;
  private attempts = 0;
  private greeted = false;
  private everGreeted = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private nextDelay: number | null = null;
  private stopped = false;
  /** closed because a seat of this connection was resumed from another window (close code 4002) */
  replaced = false;
  status: LinkStatus = "connecting";
  /** the words of the status (why it closed, when it did) */
  detail = "";

  constructor(
    private readonly url: string,
    private readonly name: () => string,
    private readonly ev: ConnectionEvents,
  ) {}

  static defaultUrl(): string {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws`;
  }

  get ready(): boolean {
    return this.greeted && this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  /** Close for good (no reconnect). */
  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.ws?.close(CloseCode.NORMAL);
  }

  /** Open a new connection now (after a login or logout: the new `hello` carries the session cookie). */
  reconnect(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const old = this.ws;
    this.ws = null; // its close event is ignored (onclose checks this.ws)
    this.greeted = false;
    this.everGreeted = false; // a new connection, not a recovered one: "Connecting...", then "Connected"
    old?.close(CloseCode.NORMAL);
    this.stopped = false;
    this.open();
  }

  /** Drop the socket as a network failure would (used by the "reconnect" control and tests). */
  drop(): void {
    this.ws?.close(4999, "client dropped the connection");
  }

  send(msg: object): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(encodeMessage(msg));
    return true;
  }

  private setStatus(s: LinkStatus, detail: string): void {
    this.status = s;
    this.detail = detail;
    this.ev.onStatus(s, detail);
  }

  private open(): void {
    this.replaced = false;
    this.setStatus(this.everGreeted ? "reconnecting" : "connecting", this.everGreeted ? "Reconnecting..." : "Connecting...");
    const ws = new WebSocket(this.url);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    this.greeted = false;
    ws.onopen = () => {
      ws.send(encodeMessage(out.hello(this.name())));
    };
    ws.onmessage = (e: MessageEvent) => {
      if (typeof e.data === "string") return;
      let msg: ServerMsg;
      try {
        msg = decodeMessage(e.data as ArrayBuffer) as ServerMsg;
      } catch (err) {
        console.warn("billar: undecodable frame", err);
        return;
      }
      if (msg.type === "welcome") {
        const again = this.everGreeted;
        this.greeted = true;
        this.everGreeted = true;
        this.attempts = 0;
        this.setStatus("open", again ? "Reconnected" : "Connected");
        this.ev.onWelcome(msg, again);
        return;
      }
      if (msg.type === "shutdown") this.nextDelay = Math.max(100, msg.retry_ms);
      if (!this.greeted && msg.type === "error" && msg.field === "name") {
        // the server refused the name: say hello without one (the server names the guest) and tell the user
        ws.send(encodeMessage(out.hello()));
        this.ev.onMessage({ ...msg, message: `Your name was refused (${msg.message}); you play as a guest until you change it.` });
        return;
      }
      this.ev.onMessage(msg);
    };
    ws.onclose = (e: CloseEvent) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.greeted = false;
      if (this.stopped) {
        this.setStatus("closed", "Disconnected");
        return;
      }
      if (e.code === CloseCode.REPLACED) {
        this.replaced = true;
        this.setStatus("closed", "This seat was resumed in another window; this one stopped.");
        return;
      }
      if (e.code === CloseCode.UNSUPPORTED_VERSION) {
        this.setStatus("closed", "The server speaks another protocol version; reload the page.");
        return;
      }
      const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.attempts);
      const delay = this.nextDelay ?? backoff * (0.75 + 0.5 * Math.random());
      this.nextDelay = null;
      this.attempts++;
      this.setStatus("reconnecting", `Connection lost; reconnecting in ${(delay / 1000).toFixed(1)} s...`);
      this.retryTimer = setTimeout(() => this.open(), delay);
    };
  }
}
