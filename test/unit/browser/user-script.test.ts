// How a caller's script is wrapped: expression, function, or body with return.
import { describe, expect, test } from "bun:test";
import type { Script } from "webdriver-bidi-protocol";
import { isExpression, jsonOf, toLocal, truthy, userFunction } from "../../../src/browser/user-script.ts";
import type { Page } from "../../../src/grid/page.ts";

describe("isExpression", () => {
  test("expressions and functions are expressions; bodies with statements are not", () => {
    for (const s of [
      "document.title",
      "() => 1",
      "async () => { await x; }",
      "function f() { return 1 }",
      "a = 5",
      "x // trailing comment",
      "{ a: 1 }",
    ]) {
      expect([s, isExpression(s)]).toEqual([s, true]);
    }
    for (const s of [
      "return document.title",
      "const a = 1; return a",
      "// lead\nreturn 1",
      "if (a) { b() }",
      "a; b",
    ]) {
      expect([s, isExpression(s)]).toEqual([s, false]);
    }
  });
});

describe("userFunction", () => {
  // The declaration as the browser calls it: a function, called with the arguments.
  const run = (source: string, args: unknown[] = []) =>
    (new Function(`return (${userFunction(source)})`)() as (...a: unknown[]) => unknown).apply(null, args);

  test("an expression's value, a function called with the args, a body's return value", () => {
    expect(run("1 + 2")).toBe(3);
    expect(run("(a, b) => a * b", [6, 7])).toBe(42);
    expect(run("const x = arguments[0];\nreturn { x }", ["y"])).toEqual({ x: "y" });
  });

  test("arguments cross as BiDi values", () => {
    expect(toLocal({ a: [1, "b", null, true] })).toEqual({
      type: "object",
      value: [
        [
          "a",
          {
            type: "array",
            value: [
              { type: "number", value: 1 },
              { type: "string", value: "b" },
              { type: "null" },
              { type: "boolean", value: true },
            ],
          },
        ],
      ],
    });
  });
});

describe("the value as JSON", () => {
  const described: string[][] = [];
  const page = {
    callIn: async (_context: string, _fn: unknown, refs: { sharedId: string }[]) => {
      described.push(refs.map((r) => r.sharedId));
      return refs.map((r) => `<button#${r.sharedId}>`);
    },
  } as unknown as Page;
  const json = (v: Script.RemoteValue) => jsonOf(page, "ctx", v);

  test("primitives, odd numbers, dates, functions and windows", async () => {
    expect(await json({ type: "undefined" })).toBeNull();
    expect(await json({ type: "number", value: "NaN" })).toBe("NaN");
    expect(await json({ type: "number", value: "-0" })).toBe(0);
    expect(await json({ type: "number", value: "Infinity" })).toBe("Infinity");
    expect(await json({ type: "bigint", value: "12" })).toBe("12");
    expect(await json({ type: "date", value: "2026-01-02T03:04:05.000Z" })).toBe("2026-01-02T03:04:05.000Z");
    expect(await json({ type: "function" })).toBe("[function]");
    expect(await json({ type: "window", value: { context: "x" } })).toBe("[window]");
    expect(await json({ type: "regexp", value: { pattern: "a+", flags: "g" } })).toBe("/a+/g");
  });

  test("objects and maps, elements described in one call, other nodes named, cycles marked", async () => {
    const el = (id: string) => ({ type: "node", sharedId: id, value: { nodeType: 1, localName: "button" } });
    const got = await json({
      type: "object",
      internalId: "o1",
      value: [
        ["a", { type: "array", value: [el("one"), el("two")] }],
        ["text", { type: "node", sharedId: "t", value: { nodeType: 3 } }],
        ["self", { type: "object", internalId: "o1" }],
        [
          "m",
          {
            type: "map",
            value: [
              [
                { type: "number", value: 1 },
                { type: "string", value: "x" },
              ],
            ],
          },
        ],
      ],
    } as Script.RemoteValue);
    expect(got).toEqual({
      a: ["<button#one>", "<button#two>"],
      text: "[#text]",
      self: "[circular]",
      m: { "1": "x" },
    });
    expect(described).toEqual([["one", "two"]]);
  });

  test("truthiness is the page's", () => {
    expect(truthy({ type: "number", value: 0 })).toBe(false);
    expect(truthy({ type: "number", value: "NaN" })).toBe(false);
    expect(truthy({ type: "string", value: "" })).toBe(false);
    expect(truthy({ type: "null" })).toBe(false);
    expect(truthy({ type: "string", value: "yes" })).toBe(true);
    expect(truthy({ type: "object", value: [] })).toBe(true);
  });
});
