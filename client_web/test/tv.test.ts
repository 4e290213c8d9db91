import { expect, test } from "vitest";
import { parseRoute } from "../src/route";
import { pref } from "../src/ui/prefs";
import { filterGames, type LiveGame } from "../src/ui/tv";
import { nameWithRating } from "../src/players/model";

test("TV and live games links", () => {
  expect(parseRoute("#/tv")).toEqual({ view: "tv", channel: "all" });
  expect(parseRoute("#/tv/three_cushion")).toEqual({ view: "tv", channel: "three_cushion" });
  expect(parseRoute("#/games")).toEqual({ view: "live", discipline: null });
  expect(parseRoute("#/games/straight_pool")).toEqual({ view: "live", discipline: "straight_pool" });
});

test("live games: labels and the discipline filter keep the server's order", () => {
  expect(nameWithRating("ann", 1712.4)).toBe("ann (1712)");
  expect(nameWithRating("ann", 1712.4, true)).toBe("ann (1712?)"); // provisional, as the scoreboard shows it
  expect(nameWithRating("bob", null)).toBe("bob");
  expect(nameWithRating("bob", Number.NaN, true)).toBe("bob");
  expect(nameWithRating(null, null)).toBe("\u2014");
  const g = (table: string, discipline: string, score: number): LiveGame => ({
    table, discipline, seats: ["a", "b"], ratings: [null, null], scores: [0, 0], run: 0, status: "playing",
    spectators: 0, rated: false, game: 1, score,
  });
  const games = [g("t1", "libre", 9), g("t2", "three_cushion", 8), g("t3", "libre", 7)];
  expect(filterGames(games, "libre").map((x) => x.table)).toEqual(["t1", "t3"]);
  expect(filterGames(games, null)).toHaveLength(3);
});

test("the spectators' chat is off for players until switched on; the other switches are on", () => {
  // no localStorage here (node): the defaults
  expect(pref("spectatorChat")).toBe(false);
  expect(pref("trails")).toBe(true);
  expect(pref("aimAid")).toBe(true);
});
