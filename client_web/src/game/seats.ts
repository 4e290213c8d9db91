/**
 * Seat tokens kept in localStorage per table, so a reload (or a dropped connection) resumes the
 * seat. Sequence numbers must grow across reloads: the next one is past both the last one used
 * here and the wall clock in milliseconds.
 */

export interface SeatRecord {
  seat: number;
  token: string;
  seq: number;
}

const key = (table: string) => `billar.seat.${table}`;

export function loadSeat(table: string): SeatRecord | null {
  try {
    const raw = localStorage.getItem(key(table));
    if (!raw) return null;
    const r = JSON.parse(raw);
    if (typeof r.token === "string" && typeof r.seat === "number") return { seat: r.seat, token: r.token, seq: Number(r.seq) || 0 };
  } catch {
    /* storage unavailable or corrupt: no seat */
  }
  return null;
}

export function saveSeat(table: string, rec: SeatRecord): void {
  try {
    localStorage.setItem(key(table), JSON.stringify(rec));
  } catch {
    /* private mode: the seat lasts as long as the page */
  }
}

export function forgetSeat(table: string): void {
  try {
    localStorage.removeItem(key(table));
  } catch {
    /* ignore */
  }
}

/** The next client sequence number for `rec` (and remember it). */
export function nextSeq(table: string, rec: SeatRecord): number {
  rec.seq = Math.max(rec.seq + 1, Date.now());
  saveSeat(table, rec);
  return rec.seq;
}
