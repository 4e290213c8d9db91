/** The newer message types of issue 14 (rename, aim) against a server that does not speak them yet. */
import { expect, test } from "vitest";
import { Capabilities } from "../src/net/capabilities";
import type { ErrorMsg } from "../src/protocol/messages";

const err = (code: string, message: string): ErrorMsg => ({ type: "error", code, message });

test("an unknown_type refusal naming a pending type stops that type only, until a new connection", () => {
  const c = new Capabilities();
  c.noteSent("aim");
  c.noteSent("rename");
  expect(c.refusal(err("unknown_type", "type: unknown message type 'aim'"))).toEqual(["aim"]);
  expect(c.allows("aim")).toBe(false);
  expect(c.allows("rename")).toBe(true);
  c.reset();
  expect(c.allows("aim")).toBe(true);
});

test("other errors are not refusals; a refusal of a type the client does not send is not ours", () => {
  const c = new Capabilities();
  c.noteSent("rename");
  expect(c.refusal(err("bad_field", "name: too long"))).toBeNull();
  expect(c.refusal(err("unknown_type", "type: unknown message type 'shoot'"))).toBeNull();
  expect(c.allows("rename")).toBe(true);
  // a refusal that does not say which type: every pending type sent so far
  expect(c.refusal(err("unknown_type", "no such type"))).toEqual(["rename"]);
  expect(c.allows("rename")).toBe(false);
  expect(c.allows("aim")).toBe(true);
});
