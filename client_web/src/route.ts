/** Shareable links: the screen is chosen by the URL hash. */

export type Route = { view: "lobby" } | { view: "table"; id: string } | { view: "replay"; id: string; game: number | null };

/** `#/` lobby, `#/table/<id>` a table, `#/replay/<id>` the latest game of a table, `#/replay/<id>/<game>` one game. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "table" && parts[1]) return { view: "table", id: decodeURIComponent(parts[1]) };
  if (parts[0] === "replay" && parts[1]) {
    const game = parts[2] !== undefined && /^\d+$/.test(parts[2]) ? Number(parts[2]) : null;
    return { view: "replay", id: decodeURIComponent(parts[1]), game };
  }
  return { view: "lobby" };
}
