/**
 * Pure parts of the account pages: rating words, the rating chart's scale, and the cursor stack
 * of a paged game list (server/api: `next` is the `before` of the following page).
 */

/** RD at or above which a rating is provisional (server/players/queries.py PROVISIONAL_RD, as lichess shows "?"). */
export const PROVISIONAL_RD = 110;

/** A rating rounded, with "?" when provisional (`provisional` from the API, else from `rd`). */
export function ratingText(rating: number, rd: number | null = null, provisional?: boolean): string {
  const p = provisional ?? (rd !== null && rd >= PROVISIONAL_RD);
  return `${Math.round(rating)}${p ? "?" : ""}`;
}

/**
 * A player named with the rating, as the lobby and the TV list them: "Ann (1500?)" ("?" while provisional, as on the
 * scoreboard and the profile), the name alone without a usable rating, "\u2014" for an empty seat.
 */
export function nameWithRating(name: string | null, rating: number | null | undefined, provisional?: boolean | null): string {
  if (!name) return "\u2014";
  return typeof rating === "number" && Number.isFinite(rating) ? `${name} (${ratingText(rating, null, provisional === true)})` : name;
}

/**
 * A seated player's rating as the scoreboard shows it beside the name ("1500?" while provisional,
 * as on the profile): null for a guest, or when the seat entry carries no usable number.
 */
export function seatRatingText(seat: { rating?: unknown; provisional?: unknown } | null | undefined): string | null {
  const r = seat?.rating;
  if (typeof r !== "number" || !Number.isFinite(r)) return null;
  return ratingText(r, null, seat?.provisional === true);
}

/** The signed change, "+162", "-162", "0" (rounded ratings subtracted, so it always matches the two shown). */
export function signedChange(before: number, after: number): string {
  const d = Math.round(after) - Math.round(before);
  return d > 0 ? `+${d}` : String(d);
}

/** "1500 → 1662 (+162)". */
export function ratingChangeText(before: number, after: number): string {
  return `${Math.round(before)} \u2192 ${Math.round(after)} (${signedChange(before, after)})`;
}

export interface ChartPoint {
  /** unix seconds */
  t: number;
  rating: number;
}

export interface ChartScale {
  /** the points in drawing coordinates (y down), in the order given */
  xy: [number, number][];
  /** rating axis: values and their y, bottom to top, on round steps */
  ticks: { value: number; y: number }[];
  min: number;
  max: number;
}

/**
 * Fit a rating history into a `width` x `height` box inside `pad`: games across, evenly spaced in
 * the order played (times are whole seconds and games come in bursts, so spacing by time would
 * stack them), rating up, the rating range widened to whole steps of 50 (or 100, 200 for wider
 * ranges) with at least 100 points of range so a flat line sits mid-box.
 */
export function chartScale(points: ChartPoint[], width: number, height: number, pad = 30): ChartScale {
  if (!points.length) return { xy: [], ticks: [], min: 0, max: 0 };
  let lo = Math.min(...points.map((p) => p.rating));
  let hi = Math.max(...points.map((p) => p.rating));
  if (hi - lo < 100) {
    const mid = (hi + lo) / 2;
    lo = mid - 50;
    hi = mid + 50;
  }
  const step = hi - lo > 800 ? 200 : hi - lo > 300 ? 100 : 50;
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const w = Math.max(1, width - 2 * pad);
  const hh = Math.max(1, height - 2 * pad);
  const x = (i: number) => pad + (points.length === 1 ? w / 2 : (i / (points.length - 1)) * w);
  const y = (r: number) => pad + (1 - (r - lo) / (hi - lo)) * hh;
  const ticks = [];
  for (let v = lo; v <= hi + 1e-9; v += step) ticks.push({ value: v, y: y(v) });
  return { xy: points.map((p, i) => [x(i), y(p.rating)]), ticks, min: lo, max: hi };
}

/**
 * Where a paged list is: the `before` cursors of the pages seen, newest page first (null: the
 * first page). `next` moves on with the cursor the server gave; `previous` goes back one page.
 */
export class PageCursor {
  private stack: (number | null)[] = [null];

  /** the `before` of the page shown */
  get before(): number | null {
    return this.stack[this.stack.length - 1];
  }

  /** the page number shown, from 1 */
  get page(): number {
    return this.stack.length;
  }

  get hasPrevious(): boolean {
    return this.stack.length > 1;
  }

  /** Go to the page after the one shown; `next` is the server's cursor (null: no more pages, nothing happens). */
  next(next: number | null): boolean {
    if (next === null) return false;
    this.stack.push(next);
    return true;
  }

  previous(): boolean {
    if (this.stack.length <= 1) return false;
    this.stack.pop();
    return true;
  }
}

/** The query of a page of `name`'s games. */
export function gamesPath(name: string, before: number | null, limit: number): string {
  const q = new URLSearchParams({ limit: String(limit) });
  if (before !== null) q.set("before", String(before));
  return `/api/players/${encodeURIComponent(name)}/games?${q}`;
}

/** The hash of a player's profile (`#/@/<name>`) and of their game list (`#/@/<name>/games`). */
export function profileHref(name: string): string {
  return `#/@/${encodeURIComponent(name)}`;
}

export function gamesHref(name: string): string {
  return `#/@/${encodeURIComponent(name)}/games`;
}

export function leaderboardHref(discipline: string): string {
  return `#/leaderboard/${encodeURIComponent(discipline)}`;
}

/** The replay of a recorded game by its database id (the record of `GET /api/games/<id>`). */
export function gameReplayHref(id: number): string {
  return `#/game/${id}`;
}
