/** A player's record at a drill: a guest's in localStorage (read as hostile input), the words shown. */
import { expect, test } from "vitest";
import { GUEST_DRILLS_KEY, guestRecords, noteGuestStroke, recordText, withStroke } from "../src/game/drillrecord";

class MemoryStorage {
  items = new Map<string, string>();
  getItem(k: string): string | null {
    return this.items.get(k) ?? null;
  }
  setItem(k: string, v: string): void {
    this.items.set(k, v);
  }
}

test("a guest's strokes are counted per drill and kept", () => {
  const st = new MemoryStorage();
  expect(guestRecords(st)).toEqual({});
  expect(noteGuestStroke(st, "pool-9ft-stop-1", true)).toEqual({ attempts: 1, successes: 1 });
  expect(noteGuestStroke(st, "pool-9ft-stop-1", false)).toEqual({ attempts: 2, successes: 1 });
  expect(noteGuestStroke(st, "3c-umbrella", false)).toEqual({ attempts: 1, successes: 0 });
  expect(JSON.parse(st.getItem(GUEST_DRILLS_KEY)!)).toEqual({
    "pool-9ft-stop-1": { attempts: 2, successes: 1 },
    "3c-umbrella": { attempts: 1, successes: 0 },
  });
});

test("whatever else is in the storage is left out, not trusted", () => {
  const st = new MemoryStorage();
  for (const bad of ["not json", "[1,2]", "null", "5"]) {
    st.setItem(GUEST_DRILLS_KEY, bad);
    expect(guestRecords(st)).toEqual({});
  }
  st.setItem(GUEST_DRILLS_KEY, JSON.stringify({ a: { attempts: 2, successes: 3 }, b: { attempts: -1, successes: 0 }, c: { attempts: 1.5, successes: 0 }, d: { attempts: 4, successes: 1 } }));
  expect(guestRecords(st)).toEqual({ d: { attempts: 4, successes: 1 } });
});

test("the words of a record", () => {
  expect(recordText(null, true)).toBe("No strokes at this drill yet (kept in this browser).");
  expect(recordText({ attempts: 7, successes: 3 }, false)).toBe("Your record at this drill: 3 of 7 (43%).");
  expect(withStroke({ attempts: 7, successes: 3 }, true)).toEqual({ attempts: 8, successes: 4 });
  expect(withStroke(null, false)).toEqual({ attempts: 1, successes: 0 });
});
