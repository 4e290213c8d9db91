/** Pure parts of the account pages: rating words, chart scale, paging, routes, the Rated form field and its wire message. */
import { expect, test } from "vitest";
import { PageCursor, chartScale, gamesPath, nameWithRating, profileHref, ratingChangeText, ratingText, seatRatingText, signedChange } from "../src/players/model";
import { parseRoute } from "../src/route";
import { createTableFromForm } from "../src/ui/lobby";
import { apiErrorText } from "../src/api";
import { disciplineLabel } from "../src/game/names";
import { noStrokeSummary } from "../src/ui/replay";
import { out } from "../src/protocol/messages";
import { encodeMessage } from "../src/protocol/codec";
import { bytesToHex, reference } from "./reference";

test("rating changes in words: rounded ratings and their difference", () => {
  expect(ratingChangeText(1500, 1662)).toBe("1500 \u2192 1662 (+162)");
  expect(ratingChangeText(1500, 1338)).toBe("1500 \u2192 1338 (-162)");
  expect(ratingChangeText(1500.4, 1500.6)).toBe("1500 \u2192 1501 (+1)"); // the change matches the numbers shown
  expect(signedChange(1712.2, 1712.4)).toBe("0");
});

test("a provisional rating gets a question mark (RD 110 and over, or the API's flag)", () => {
  expect(ratingText(1662.4, 290)).toBe("1662?");
  expect(ratingText(1662.6, 109.9)).toBe("1663");
  expect(ratingText(1662.6, 110)).toBe("1663?");
  expect(ratingText(1500, 50, true)).toBe("1500?");
  expect(ratingText(1500, 350, false)).toBe("1500");
});

test("a seated player's rating beside the name: the profile's words, none for a guest or a bad number", () => {
  expect(seatRatingText({ rating: 1500, provisional: true })).toBe("1500?");
  expect(seatRatingText({ rating: 1712, provisional: false })).toBe("1712");
  expect(seatRatingText({ rating: 1662.6 })).toBe("1663"); // an older server: no flag, shown plain
  expect(seatRatingText({ rating: 1500, provisional: "yes" })).toBe("1500"); // only a real true marks it
  expect(seatRatingText({ rating: null, provisional: null })).toBeNull(); // a guest
  expect(seatRatingText({ rating: "1500" })).toBeNull();
  expect(seatRatingText({ rating: Number.NaN })).toBeNull();
  expect(seatRatingText({})).toBeNull();
  expect(seatRatingText(null)).toBeNull();
  expect(seatRatingText(undefined)).toBeNull();
});

test("chart scale: games across in order, rating up, round ticks around the range", () => {
  const pts = [
    { t: 1000, rating: 1500 },
    { t: 2000, rating: 1662 },
    { t: 5000, rating: 1580 },
  ];
  const s = chartScale(pts, 600, 200, 30);
  expect(s.min).toBe(1500);
  expect(s.max).toBe(1700);
  expect(s.ticks.map((t) => t.value)).toEqual([1500, 1550, 1600, 1650, 1700]);
  expect(s.xy[0][0]).toBe(30);
  expect(s.xy[2][0]).toBe(570);
  expect(s.xy[1][0]).toBe(300); // the second of three games mid-way, whatever its time
  // y is down: the lowest rating at the bottom of the box, 1662 near the top
  expect(s.xy[0][1]).toBe(170);
  expect(s.xy[1][1]).toBeCloseTo(30 + (1 - 162 / 200) * 140, 9);
  expect(s.ticks[0].y).toBe(170);
  expect(s.ticks[4].y).toBe(30);
});

test("chart scale: one point sits mid-box, a flat line gets 100 points of range, games of the same second are spread", () => {
  const one = chartScale([{ t: 5, rating: 1500 }], 600, 200, 30);
  expect(one.xy).toEqual([[300, 100]]);
  expect([one.min, one.max]).toEqual([1450, 1550]);
  const same = chartScale([{ t: 7, rating: 1500 }, { t: 7, rating: 1510 }, { t: 7, rating: 1520 }], 600, 200, 30);
  expect(same.xy.map((p) => p[0])).toEqual([30, 300, 570]);
  expect(chartScale([], 600, 200)).toEqual({ xy: [], ticks: [], min: 0, max: 0 });
  const wide = chartScale([{ t: 1, rating: 900 }, { t: 2, rating: 2100 }], 600, 200, 30);
  expect(wide.ticks.map((t) => t.value)).toEqual([800, 1000, 1200, 1400, 1600, 1800, 2000, 2200]);
});

test("paging: the server's next cursor moves on, previous comes back, the end stops", () => {
  const c = new PageCursor();
  expect([c.before, c.page, c.hasPrevious]).toEqual([null, 1, false]);
  expect(c.next(41)).toBe(true);
  expect(c.next(17)).toBe(true);
  expect([c.before, c.page]).toEqual([17, 3]);
  expect(c.next(null)).toBe(false);
  expect(c.page).toBe(3);
  expect(c.previous()).toBe(true);
  expect(c.before).toBe(41);
  expect(c.previous()).toBe(true);
  expect(c.previous()).toBe(false);
  expect([c.before, c.page]).toEqual([null, 1]);
  expect(gamesPath("Ann B", null, 20)).toBe("/api/players/Ann%20B/games?limit=20");
  expect(gamesPath("\u00c5sa", 41, 5)).toBe("/api/players/%C3%85sa/games?limit=5&before=41");
});

test("routes of the account pages (Unicode names round-trip)", () => {
  expect(parseRoute(profileHref("\u00c5sa/\u00e9"))).toEqual({ view: "profile", name: "\u00c5sa/\u00e9" });
  expect(parseRoute("#/@/Ann/games")).toEqual({ view: "games", name: "Ann" });
  expect(parseRoute("#/@/%E0%A4")).toEqual({ view: "lobby" }); // not UTF-8: no page
  expect(parseRoute("#/leaderboard/three_cushion")).toEqual({ view: "leaderboard", discipline: "three_cushion" });
  expect(parseRoute("#/leaderboard")).toEqual({ view: "leaderboard", discipline: null });
  expect(parseRoute("#/game/42")).toEqual({ view: "record", id: 42 });
  expect(parseRoute("#/game/x")).toEqual({ view: "lobby" });
});

test("lobby seats show ratings of logged-in players", () => {
  expect(nameWithRating("Ann", 1661.6)).toBe("Ann (1662)");
  expect(nameWithRating("Ann", 1661.6, false)).toBe("Ann (1662)");
  expect(nameWithRating("Ann", 1500, true)).toBe("Ann (1500?)");
  expect(nameWithRating("guest", null)).toBe("guest");
  expect(nameWithRating(null, null)).toBe("\u2014");
});

test("API errors in words", () => {
  expect(apiErrorText({ status: 409, code: "username_taken", message: "x" })).toMatch(/taken/);
  expect(apiErrorText({ status: 401, code: "login_failed", message: "x" })).toBe("Wrong username or password.");
  expect(apiErrorText({ status: 429, code: "too_many_attempts", message: "x" })).toMatch(/Too many attempts/);
  expect(apiErrorText({ status: 429, code: "too_many_attempts", message: "too many failed logins for this name; try again in 14 minutes" }))
    .toBe("Too many attempts: too many failed logins for this name. Try again in 14 minutes.");
  expect(apiErrorText({ status: 409, code: "username_taken", message: "x" })).toMatch(/separators/);
  expect(apiErrorText({ status: 400, code: "bad_password", message: "password: must be at least 8 characters" })).toBe("The password is too weak: must be at least 8 characters.");
  expect(apiErrorText({ status: 400, code: "bad_username", message: "username: must be 2 to 20 characters, got 1" }))
    .toBe("That name is not allowed: must be 2 to 20 characters, got 1.");
  expect(apiErrorText({ status: 0, code: "network", message: "" })).toMatch(/reach the server/);
});

test("the Rated box: create_table and quick_play carry rated, accepted by the server; never with the computer", () => {
  const fields = { discipline: "three_cushion", target: "1", shot_clock: "", opponent: "", rated: "on" };
  const msgs = [createTableFromForm(fields), createTableFromForm({ ...fields, opponent: "2" }), out.quickPlay("three_cushion", { distance: 1 }, true), out.quickPlay("libre")];
  const [c, comp, q, casual] = reference("parse", msgs.map((m) => bytesToHex(encodeMessage(m))).join("\n"));
  expect(c).toEqual({ type: "create_table", discipline: "three_cushion", config: { distance: 1 }, private: false, seat: 0, rated: true });
  expect(comp).toEqual({ type: "create_table", discipline: "three_cushion", config: { distance: 1 }, private: false, seat: 0, computer: 2 });
  expect(q).toEqual({ type: "quick_play", discipline: "three_cushion", config: { distance: 1 }, rated: true });
  expect(casual).toEqual({ type: "quick_play", discipline: "libre", config: {} });
});

test("a recorded game with no stroke is said in words: players and final score, never markup", () => {
  expect(noStrokeSummary({ discipline: "three_cushion", players: ["Ann", "<b>Bob</b>"], result: { scores: [0, 0] } })).toBe(
    `${disciplineLabel("three_cushion")}: Ann vs <b>Bob</b> \u2014 final 0 : 0`,
  );
  expect(noStrokeSummary({ players: [null, 7], result: null })).toBe("Player 1 vs Player 2");
  expect(noStrokeSummary({})).toBe("Player 1 vs Player 2");
});
