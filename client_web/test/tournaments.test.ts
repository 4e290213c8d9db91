import { expect, test } from "vitest";
import { parseRoute } from "../src/route";

test("tournament links", () => {
  expect(parseRoute("#/tournaments")).toEqual({ view: "tournaments" });
  expect(parseRoute("#/tournament/42")).toEqual({ view: "tournament", id: 42 });
  expect(parseRoute("#/tournament/x")).toEqual({ view: "lobby" });
  expect(parseRoute("#/tournament/")).toEqual({ view: "lobby" });
});
