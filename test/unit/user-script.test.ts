// How a caller's script is wrapped: expression, function, or body with return.
import { describe, expect, test } from "bun:test";
import { isExpression, userScript } from "../../src/actions/page/user-script.ts";

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

describe("userScript", () => {
  // Runs the wrapper as WebDriver would (a function body called with the arguments), with stand-ins
  // for the page's globals and the page library.
  const run = (source: string, args: unknown[] = [], truthy = false) => {
    const fakeLib = "{ describe: (e) => '<el>' }";
    const script = userScript(source, truthy).replace(
      /var __lib = [\s\S]*?; \nvar __safe/,
      `var __lib = ${fakeLib};\nvar __safe`,
    );
    const page = ["Element", "Node", "NodeList", "HTMLCollection", "window"];
    const stub = class {};
    const make = new Function(...page, `return function () {\n${script}\n};`);
    return make(stub, stub, stub, stub, {}).apply(null, args);
  };

  test("an expression's value, a function called with the args, a body's return value", () => {
    expect(run("1 + 2")).toBe(3);
    expect(run("(a, b) => a * b", [6, 7])).toBe(42);
    expect(run("const x = arguments[0];\nreturn { x, u: undefined }", ["y"])).toEqual({ x: "y", u: null });
    expect(run("0", [], true)).toEqual({ ok: false, value: 0 });
    expect(run("'yes'", [], true)).toEqual({ ok: true, value: "yes" });
  });
});
