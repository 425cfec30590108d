// The selector schema (strict, exactly one kind) and the inputs that carry it, through the one
// validation every surface uses.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { validate } from "../../../src/actions/validate.ts";
import { interact } from "../../../src/browser/interact.ts";
import { pageSelector, Selector, timeoutField } from "../../../src/browser/selectors.ts";
import { textRegex } from "../../../src/in-page/selectors.ts";

const Holder = z.strictObject({ selector: Selector, timeout: timeoutField() });
const ok = (selector: unknown) => validate(Holder, { selector });
const refused = (selector: unknown) => {
  try {
    validate(Holder, { selector });
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("accepted");
};

describe("Selector", () => {
  test("a text written /pattern/flags must be a regular expression the engine takes; other text is text", () => {
    expect(ok({ text: "/\\$\\d+/i" }).selector).toEqual({ text: "/\\$\\d+/i" });
    expect(ok({ text: "1/2 off" }).selector).toEqual({ text: "1/2 off" });
    expect(ok({ text: "/[a-/x" }).selector).toEqual({ text: "/[a-/x" });
    expect(refused({ text: "/[a-/" })).toContain("not a valid one");
    expect(textRegex("/sku-\\d/gi")?.flags).toBe("i");
    expect(textRegex("Sign in")).toBeNull();
  });

  test("each kind alone is accepted, with its own options", () => {
    for (const s of [
      { ref: "e12" },
      { ref: "ab3" },
      { css: "#email" },
      { xpath: "//a" },
      { text: "Sign in" },
      { text: "sign", exact: false },
      { label: "Email" },
      { role: "button" },
      { role: "button", name: "Sign in" },
    ]) {
      expect(ok(s).selector).toEqual(s);
    }
  });

  test("none, two kinds, options of another kind, unknown keys, empty strings are refused", () => {
    const one = 'field "selector" must name exactly one of ref, css, xpath, text, label or role';
    expect(refused({})).toStartWith(one);
    expect(refused({ css: "#a", text: "b" })).toStartWith(one);
    expect(refused({ css: "#a", exact: true })).toBe('field "selector.exact" must only come with text');
    expect(refused({ text: "a", name: "b" })).toBe('field "selector.name" must only come with role');
    expect(refused({ id: "x" })).toContain('unknown field "selector.id"');
    expect(refused({ css: "" })).toContain('field "selector.css" is too short');
    expect(refused("#email")).toBe('field "selector" must be an object');
    expect(refused({ ref: "e12", css: "#a" })).toStartWith(one);
    expect(refused({ ref: "e12", name: "x" })).toBe('field "selector.name" must only come with role');
    for (const bad of ["12", "e", "E12", "e12 ", "#e12", "e1.2"])
      expect(refused({ ref: bad })).toBe('field "selector.ref" must be a ref read_page gave, such as e12');
  });

  test("timeout: seconds, default 5, at most 120", () => {
    expect(ok({ css: "a" }).timeout).toBe(5);
    expect(validate(Holder, { selector: { css: "a" }, timeout: 0 }).timeout).toBe(0);
    expect(() => validate(Holder, { selector: { css: "a" }, timeout: 121 })).toThrow("at most 120");
    expect(() => validate(Holder, { selector: { css: "a" }, timeout: -1 })).toThrow('field "timeout"');
  });

  test("pageSelector keeps only the kind and its options", () => {
    expect(pageSelector({ text: "a" })).toEqual({ text: "a" });
    expect(pageSelector({ text: "a", exact: false })).toEqual({ text: "a", exact: false });
    expect(pageSelector({ role: "link", name: "Home" })).toEqual({ role: "link", name: "Home" });
    expect(pageSelector({ role: "link" })).toEqual({ role: "link" });
    expect(pageSelector({ ref: "e7" })).toEqual({ ref: "e7" });
  });
});

describe("interact input", () => {
  const bad = (input: unknown) => {
    try {
      validate(interact.input, input);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error("accepted");
  };

  test("each gesture takes exactly its own extra field", () => {
    expect(validate(interact.input, { action: "press", keys: "Enter" })).toMatchObject({
      action: "press",
      timeout: 5,
    });
    expect(
      validate(interact.input, { action: "drag", selector: { css: "a" }, target: { css: "b" } }).target,
    ).toEqual({ css: "b" });
    expect(bad({ action: "drag", selector: { css: "a" } })).toBe(
      'field "target" must be given for drag: the element to drop onto, x and y, or a path',
    );
    expect(bad({ action: "hover", selector: { css: "a" }, value: "x" })).toBe(
      'field "value" must only come with action select',
    );
    expect(bad({ action: "press", keys: "Ctl+a" })).toContain(
      'field "keys" must be valid: it has "Ctl" before a "+"',
    );
    expect(bad({ action: "press", keys: "Enter", target: { css: "b" } })).toBe(
      'field "target" must only come with action drag or select_text',
    );
    expect(bad({ action: "drag", selector: { css: "a" }, target: { nope: 1 } })).toContain(
      'unknown field "target.nope"',
    );
  });

  test("path on drag and hover, hold on clicks and drag, offset on scroll as the wheel's turn", () => {
    const sel = { css: "a" };
    const path = [
      { x: 1, y: 2 },
      { x: 30, y: 40 },
    ];
    expect(validate(interact.input, { action: "drag", path }).path).toEqual(path);
    expect(validate(interact.input, { action: "drag", selector: sel, path }).path).toEqual(path);
    expect(validate(interact.input, { action: "drag", path: [{ x: 5, y: 5 }], target: sel }).target).toEqual(
      sel,
    );
    expect(validate(interact.input, { action: "hover", path }).path).toEqual(path);
    expect(validate(interact.input, { action: "click", selector: sel, hold: 1.5 }).hold).toBe(1.5);
    expect(validate(interact.input, { action: "drag", selector: sel, target: sel, hold: 0.5 }).hold).toBe(
      0.5,
    );
    expect(
      validate(interact.input, { action: "scroll", selector: sel, offset: { x: 0, y: -200 } }).offset,
    ).toEqual({
      x: 0,
      y: -200,
    });
    expect(validate(interact.input, { action: "scroll", x: 5, y: 5, offset: { x: 0, y: 9 } }).x).toBe(5);
    expect(bad({ action: "drag", path: [{ x: 1, y: 2 }] })).toBe(
      'field "path" must hold at least two points, or come with target (the element to end on)',
    );
    expect(bad({ action: "drag", path, x: 1, y: 2 })).toBe(
      'field "x" must not come with path: end the path there instead',
    );
    expect(bad({ action: "hover", path, x: 1, y: 2 })).toContain('field "x" must not come with path');
    expect(bad({ action: "drag", path: [{ x: 1 }] })).toContain('field "path');
    expect(bad({ action: "drag", path: [] })).toContain('field "path"');
    expect(bad({ action: "click", selector: sel, path })).toBe(
      'field "path" must only come with action hover or drag',
    );
    expect(bad({ action: "click", selector: sel, hold: 11 })).toBe(
      'field "hold" must be at most 10 (seconds)',
    );
    expect(bad({ action: "click", selector: sel, hold: -1 })).toContain('field "hold"');
    expect(bad({ action: "hover", selector: sel, hold: 1 })).toBe(
      'field "hold" must only come with action click, double_click, right_click or drag',
    );
    expect(bad({ action: "scroll", x: 1, y: 2 })).toBe(
      'field "offset" must be given with x and y: how far to turn the wheel there',
    );
    expect(bad({ action: "scroll", selector: sel, x: 1, y: 2, offset: { x: 0, y: 1 } })).toBe(
      'field "selector" must not come with x and y: give one or the other',
    );
    expect(bad({ action: "scroll" })).toContain('field "selector" must be given for scroll');
    expect(validate(interact.input, { action: "scroll", selector: sel }).offset).toBeUndefined();
  });

  test("the hand's fields: count on clicks, position or offset on a drag to a target, x and y as a drag's end", () => {
    const sel = { css: "a" };
    expect(validate(interact.input, { action: "click", selector: sel, count: 3 }).count).toBe(3);
    expect(validate(interact.input, { action: "right_click", x: 5, y: 5, count: 2 }).count).toBe(2);
    expect(bad({ action: "hover", selector: sel, count: 2 })).toBe(
      'field "count" must only come with action click, double_click or right_click',
    );
    expect(bad({ action: "click", selector: sel, count: 4 })).toContain('field "count"');
    const after = validate(interact.input, {
      action: "drag",
      selector: sel,
      target: { ref: "e2" },
      position: "after",
    });
    expect(after.position).toBe("after");
    expect(validate(interact.input, { action: "drag", selector: sel, x: 10, y: 20 })).toMatchObject({
      x: 10,
      y: 20,
    });
    expect(bad({ action: "drag", selector: sel, target: sel, x: 1, y: 2 })).toBe(
      'field "target" must not come with x and y: give one or the other',
    );
    expect(bad({ action: "drag", selector: sel, x: 1, y: 2, position: "top" })).toBe(
      'field "position" must only come with action drag and a target',
    );
    expect(bad({ action: "drag", selector: sel, target: sel, position: "top", offset: { x: 1, y: 1 } })).toBe(
      'field "offset" must not come with position: give one or the other',
    );
    expect(bad({ action: "drag", selector: sel, target: sel, position: "middle" })).toContain(
      'field "position"',
    );
    expect(bad({ action: "drag", x: 1, y: 2 })).toContain('field "selector" must be given for drag');
    expect(validate(interact.input, { action: "select_text", selector: { ref: "e3" } }).action).toBe(
      "select_text",
    );
    expect(
      validate(interact.input, { action: "select_text", selector: { text: "a" }, target: { text: "b" } })
        .target,
    ).toEqual({ text: "b" });
  });

  test("text takes nth and within; no other kind does", () => {
    const got = validate(interact.input, {
      action: "click",
      selector: { text: "Reply", nth: 2, within: { ref: "e7" } },
    }).selector;
    expect(got).toEqual({ text: "Reply", nth: 2, within: { ref: "e7" } });
    expect(bad({ action: "click", selector: { css: "a", nth: 2 } })).toBe(
      'field "selector.nth" must only come with text',
    );
    expect(bad({ action: "click", selector: { role: "button", within: { ref: "e7" } } })).toBe(
      'field "selector.within" must only come with text',
    );
    expect(bad({ action: "click", selector: { text: "a", nth: 0 } })).toContain('field "selector.nth"');
    expect(bad({ action: "click", selector: { text: "a", within: { css: "b" } } })).toContain(
      "selector.within",
    );
  });
});
