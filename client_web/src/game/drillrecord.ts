/**
 * A player's record at a drill (issue 16): strokes played at its practice table and those that met its goal, as the
 * referee judged them (the stroke's `ruling.drill`). A logged-in player's is kept by the server (GET
 * /api/account/drills); a guest's in this browser (localStorage, under {@link GUEST_DRILLS_KEY}).
 */

export interface DrillRecord {
  attempts: number;
  successes: number;
}

export const GUEST_DRILLS_KEY = "billar.drills";

const isCount = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x) && x >= 0 && x < 1e9;

/** Every drill's record in `storage` (malformed entries are left out; a page may have written anything there). */
export function guestRecords(storage: Pick<Storage, "getItem">): Record<string, DrillRecord> {
  let raw: unknown;
  try {
    raw = JSON.parse(storage.getItem(GUEST_DRILLS_KEY) ?? "{}");
  } catch {
    return {};
  }
  const out: Record<string, DrillRecord> = {};
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return out;
  for (const [id, r] of Object.entries(raw as Record<string, unknown>)) {
    const o = r as Record<string, unknown> | null;
    if (o && isCount(o.attempts) && isCount(o.successes) && o.successes <= o.attempts) out[id] = { attempts: o.attempts, successes: o.successes };
  }
  return out;
}

/** `record` with one more stroke (and success when `achieved`). */
export function withStroke(record: DrillRecord | null, achieved: boolean): DrillRecord {
  const r = record ?? { attempts: 0, successes: 0 };
  return { attempts: r.attempts + 1, successes: r.successes + (achieved ? 1 : 0) };
}

/** Count a guest's stroke at drill `id` in `storage`; returns the drill's new record. */
export function noteGuestStroke(storage: Pick<Storage, "getItem" | "setItem">, id: string, achieved: boolean): DrillRecord {
  const all = guestRecords(storage);
  all[id] = withStroke(all[id] ?? null, achieved);
  try {
    storage.setItem(GUEST_DRILLS_KEY, JSON.stringify(all));
  } catch {
    // storage full or refused: the record shown still counts this stroke
  }
  return all[id];
}

/** "Your record at this drill: 3 of 7 (43%)", or that there is none yet. */
export function recordText(r: DrillRecord | null, guest: boolean): string {
  const where = guest ? " (kept in this browser)" : "";
  if (!r || r.attempts === 0) return `No strokes at this drill yet${where}.`;
  return `Your record at this drill: ${r.successes} of ${r.attempts} (${Math.round((100 * r.successes) / r.attempts)}%)${where}.`;
}
