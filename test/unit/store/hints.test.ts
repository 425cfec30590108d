// The Redis store's update hints: what this process last saw under each key, within a character
// budget, least recently seen dropped first; a value too big to hint, or a budget of 0, hints nothing.
import { expect, test } from "bun:test";
import { Hints } from "../../../src/store/redis-update.ts";

test("a hint is the last value seen (null: absent); one too big for the budget drops the old hint", () => {
  const h = new Hints(800);
  expect(h.get("k")).toBeUndefined();
  h.set("k", null);
  expect(h.get("k")).toBeNull();
  h.set("k", "v1");
  expect(h.get("k")).toBe("v1");
  // Over an eighth of the budget: not kept, and the stale hint must not stay either.
  h.set("k", "x".repeat(200));
  expect(h.get("k")).toBeUndefined();
  h.set("k", "v2");
  h.delete("k");
  expect(h.get("k")).toBeUndefined();
});

test("past the budget the least recently seen go first; clear empties it; a budget of 0 keeps none", () => {
  const h = new Hints(800);
  const keys = ["a", "b", "c", "d", "e", "f", "g", "h"];
  for (const k of keys) h.set(k, k.repeat(90));
  // 8 × 91 = 728 of 800: all kept. A ninth goes past it, and the least recently seen goes: "d", once
  // "a" and "b" were read and "c" seen again.
  expect(keys.map((k) => h.get(k)?.length)).toEqual(keys.map(() => 90));
  h.get("a");
  h.get("b");
  h.set("c", "c".repeat(90));
  h.set("i", "i".repeat(90));
  expect(h.get("d")).toBeUndefined();
  expect(h.get("a")).toBe("a".repeat(90));
  expect(h.get("i")).toBe("i".repeat(90));
  h.clear();
  expect(h.get("a")).toBeUndefined();
  const none = new Hints(0);
  none.set("k", "v");
  expect(none.get("k")).toBeUndefined();
});
