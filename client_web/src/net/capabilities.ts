/**
 * Which of the newer message types (protocol/messages.ts PENDING_INBOUND_TYPES) the server on the
 * other end speaks. A server without one answers `error` `unknown_type` ("type: unknown message
 * type 'aim'"); the client then stops sending it on this connection and says nothing to the user
 * beyond what the feature's own fallback says. A new connection (perhaps to a newer server)
 * starts optimistic again.
 */

import type { ErrorMsg } from "../protocol/messages";
import { PENDING_INBOUND_TYPES } from "../protocol/messages";

const PENDING: readonly string[] = PENDING_INBOUND_TYPES;

export class Capabilities {
  private refused = new Set<string>();
  private sent = new Set<string>();

  /** A new connection: nothing known. */
  reset(): void {
    this.refused.clear();
    this.sent.clear();
  }

  /** May a message of `type` be sent (false once the server refused the type on this connection). */
  allows(type: string): boolean {
    return !this.refused.has(type);
  }

  /** Note that a message of a pending `type` went out. */
  noteSent(type: string): void {
    if (PENDING.includes(type)) this.sent.add(type);
  }

  /**
   * Read an error: when it is the refusal of a pending type, remember it and return that type
   * (the caller then handles it quietly); otherwise null. The type is read from the message; a
   * refusal that does not name it counts for every pending type sent so far.
   */
  refusal(e: ErrorMsg): string[] | null {
    if (e.code !== "unknown_type") return null;
    const m = /unknown message type '([A-Za-z0-9_]+)'/.exec(e.message ?? "");
    const types = m ? (PENDING.includes(m[1]) ? [m[1]] : []) : [...this.sent];
    if (!types.length) return null;
    for (const t of types) this.refused.add(t);
    return types;
  }
}
