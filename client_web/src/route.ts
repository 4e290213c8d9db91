/** Shareable links: the screen is chosen by the URL hash. */

export type Route =
  | { view: "lobby" }
  | { view: "table"; id: string }
  | { view: "practice"; code: string | null; drill: string | null }
  | { view: "replay"; id: string; game: number | null }
  | { view: "record"; id: number }
  | { view: "profile"; name: string }
  | { view: "games"; name: string }
  | { view: "leaderboard"; discipline: string | null }
  | { view: "tv"; channel: string }
  | { view: "live"; discipline: string | null }
  | { view: "tournaments" }
  | { view: "tournament"; id: number }
  | { view: "puzzle"; id: number | null; bad?: string };

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/**
 * `#/` lobby, `#/table/<id>` a table, `#/replay/<id>` the latest game of a table,
 * `#/replay/<id>/<game>` one game, `#/game/<n>` a recorded game by its database id,
 * `#/@/<name>` a player's profile, `#/@/<name>/games` their games, `#/leaderboard[/<discipline>]`,
 * `#/tv` the best live game now (`#/tv/<discipline>`: that discipline's), `#/games[/<discipline>]`
 * the live games, `#/practice/<code>` a new practice table at a position code, `#/practice/drill/<id>`
 * at a drill, `#/tournaments` the tournaments, `#/tournament/<id>` one tournament, `#/puzzle` the
 * puzzle of the day, `#/puzzle/<id>` one puzzle (a positive integer id; anything else is kept in
 * `bad` for the page to say the link is not valid).
 */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "table" && parts[1]) return { view: "table", id: decodeURIComponent(parts[1]) };
  if (parts[0] === "practice") {
    // position codes are base64url and drill ids [a-z0-9-]: anything else is not a practice link
    if (parts[1] === "drill") return parts[2] && /^[a-z0-9-]{1,48}$/.test(parts[2]) ? { view: "practice", code: null, drill: parts[2] } : { view: "lobby" };
    if (parts[1] && /^[A-Za-z0-9_-]{1,128}$/.test(parts[1])) return { view: "practice", code: parts[1], drill: null };
    return { view: "lobby" };
  }
  if (parts[0] === "replay" && parts[1]) {
    const game = parts[2] !== undefined && /^\d+$/.test(parts[2]) ? Number(parts[2]) : null;
    return { view: "replay", id: decodeURIComponent(parts[1]), game };
  }
  if (parts[0] === "game" && parts[1] && /^\d{1,15}$/.test(parts[1])) return { view: "record", id: Number(parts[1]) };
  if (parts[0] === "@" && parts[1]) {
    const name = decode(parts[1]);
    if (name) return parts[2] === "games" ? { view: "games", name } : { view: "profile", name };
  }
  if (parts[0] === "leaderboard") return { view: "leaderboard", discipline: parts[1] ? decode(parts[1]) : null };
  if (parts[0] === "tv") return { view: "tv", channel: (parts[1] && decode(parts[1])) || "all" };
  if (parts[0] === "tournaments") return { view: "tournaments" };
  if (parts[0] === "tournament" && parts[1] && /^\d{1,15}$/.test(parts[1])) return { view: "tournament", id: Number(parts[1]) };
  if (parts[0] === "puzzle") {
    if (!parts[1]) return { view: "puzzle", id: null };
    const id = /^\d{1,15}$/.test(parts[1]) ? Number(parts[1]) : 0;
    return id > 0 ? { view: "puzzle", id } : { view: "puzzle", id: null, bad: decode(parts[1]) ?? parts[1] };
  }
  if (parts[0] === "games") return { view: "live", discipline: parts[1] ? decode(parts[1]) : null };
  return { view: "lobby" };
}
