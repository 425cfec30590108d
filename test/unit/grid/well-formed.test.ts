// The wrapper the server's own sandbox calls go through: a result or a thrown message with an
// unpaired surrogate comes back well-formed; any other result is the very value the function gave.
import { expect, test } from "bun:test";
import { wellFormed } from "../../../src/grid/well-formed.ts";

// The declaration as the browser would run it: made a function, then called.
const made = (fn: string) => new Function(`return (${wellFormed(fn)})`)() as (...args: unknown[]) => any;
const run = (fn: string, ...args: unknown[]) => made(fn)(...args);

test("lone surrogates in strings, keys, arrays and nested objects are replaced", () => {
  expect(run("() => 'a\\uD800b'")).toBe("a\uFFFDb");
  expect(run("() => ({ t: ['x\\uDC00', { deep: '\\uD800' }], ['k\\uD800']: 1 })")).toEqual({
    t: ["x\uFFFD", { deep: "\uFFFD" }],
    "k\uFFFD": 1,
  });
});

test("a well-formed result is handed back as it was: the same objects, emoji pairs untouched", () => {
  const same = { a: ["😀", 1, null], node: new Map([["k", "v"]]) };
  (globalThis as Record<string, unknown>).__same = same;
  expect(run("() => globalThis.__same")).toBe(same);
  expect(run("(x, y) => x + y", 2, 3)).toBe(5);
  // A class instance (a DOM node, a Map) is never copied.
  const m = new Map([["k", "a\uD800"]]);
  (globalThis as Record<string, unknown>).__map = m;
  expect(run("() => globalThis.__map")).toBe(m);
});

test("promises resolve well-formed; a thrown message is made well-formed and the error kept", async () => {
  expect(await run("async () => 'p\\uD800'")).toBe("p\uFFFD");
  expect(() => run("() => { throw new TypeError('bad \\uD800') }")).toThrow(new TypeError("bad \uFFFD"));
  await expect(run("async () => { throw new Error('late \\uDC00') }")).rejects.toThrow("late \uFFFD");
  expect(() => run("() => { throw 'str\\uD800' }")).toThrow("str\uFFFD");
});

test("this is passed through", () => {
  expect(made("function () { return this.v }").call({ v: "ok" })).toBe("ok");
});
