// Validation's 400s for inputs with rules across fields: a selector's own (one kind, the fields its
// kind takes, text's pattern) and its input's (interact's gesture, write's text or secret), made by
// `ruled` as pure rules. Each case's message and field are main's before the rules became pure
// functions (the fuzz compare of issue 42's round 4): the first issue in zod's order, whatever else
// fails beside it.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { ruled, validate } from "../../../src/actions/validate.ts";
import { interact } from "../../../src/browser/interact.ts";
import { write } from "../../../src/browser/write.ts";

function refusal(schema: z.ZodType, input: unknown): { message: string; field?: string } {
  try {
    validate(schema, input);
  } catch (e) {
    const err = e as { message: string; field?: string };
    return { message: err.message, field: err.field };
  }
  throw new Error("taken");
}

const KINDS =
  'field "selector" must name exactly one of ref, css, xpath, text, label or role (e.g. {"ref": "e12"} from read_page, {"css": "#email"}, {"text": "Sign in"}, {"label": "Email"} or {"role": "button", "name": "Sign in"})';

describe("ruled", () => {
  const schema = ruled(z.strictObject({ a: z.number().optional(), b: z.string().optional() }), (v) => [
    ...(v.a === 1 ? [{ path: ["a"], message: "must not be 1" }] : []),
    ...(v.b === undefined ? [{ message: "must have b" }] : []),
  ]);

  test("each problem is an issue at its path, in the rule's order", () => {
    expect(refusal(schema, { a: 1 })).toEqual({ message: 'field "a" must not be 1', field: "a" });
    expect(schema.safeParse({ a: 1 }).error?.issues.map((i) => [i.path, i.message])).toEqual([
      [["a"], "must not be 1"],
      [[], "must have b"],
    ]);
  });

  test("a value the rule finds nothing wrong with is taken", () => {
    expect(validate(schema, { a: 2, b: "x" })).toEqual({ a: 2, b: "x" });
  });

  test("a value whose own fields failed hard is not handed to the rule", () => {
    expect(refusal(schema, { a: "1" })).toEqual({ message: 'field "a" must be a number', field: "a" });
  });
});

describe("a selector's rules, in interact", () => {
  const input = interact.input;

  test("one kind", () => {
    expect(refusal(input, { action: "click", selector: { css: "#a", text: "A" } })).toEqual({
      message: KINDS,
      field: "selector",
    });
  });

  test("a field another kind takes", () => {
    expect(refusal(input, { action: "click", selector: { label: "A", exact: true } })).toEqual({
      message: 'field "selector.exact" must only come with text',
      field: "selector.exact",
    });
    expect(refusal(input, { action: "click", selector: { text: "A", name: "B" } })).toEqual({
      message: 'field "selector.name" must only come with role',
      field: "selector.name",
    });
  });

  test("text's pattern", () => {
    const got = refusal(input, { action: "click", selector: { text: "/[/" } });
    expect(got.field).toBe("selector.text");
    expect(got.message).toStartWith(
      'field "selector.text" is invalid: is written /pattern/flags, a regular expression, but not a valid one (',
    );
  });

  test("said before a later field's hard failure (a count that is no integer, a path over its cap)", () => {
    expect(refusal(input, { action: "click", selector: { css: "#a", xpath: "//a" }, count: 1.5 })).toEqual({
      message: KINDS,
      field: "selector",
    });
    const path = Array.from({ length: 201 }, () => ({ x: 1, y: 1 }));
    expect(refusal(input, { action: "hover", selector: { css: "#a", xpath: "//a" }, path })).toEqual({
      message: KINDS,
      field: "selector",
    });
  });

  test("said after an earlier field's failure, and before the gesture's own rules", () => {
    expect(refusal(input, { action: "bogus", selector: { css: "#a", text: "A" } }).field).toBe("action");
    expect(refusal(input, { action: "click", selector: { css: "#a", text: "A" }, x: 1 })).toEqual({
      message: KINDS,
      field: "selector",
    });
  });

  test("target's, after selector's", () => {
    expect(
      refusal(input, { action: "drag", selector: { css: "#a" }, target: { role: "button", nth: 2 } }),
    ).toEqual({ message: 'field "target.nth" must only come with text', field: "target.nth" });
  });

  test("a good selector leaves the gesture's rules to speak", () => {
    expect(refusal(input, { action: "click", selector: { css: "#a" }, x: 1, y: 2 })).toEqual({
      message: 'field "selector" must not come with x and y: give one or the other',
      field: "selector",
    });
    expect(refusal(input, { action: "click", selector: { css: "#a" }, keys: "a" }).field).toBe("keys");
    expect(validate(input, { action: "click", selector: { text: "/ok/i", nth: 2 } }).selector).toEqual({
      text: "/ok/i",
      nth: 2,
    });
  });
});

describe("a selector's rules, in write", () => {
  const input = write.input;

  test("the field's, before text or secret's", () => {
    expect(refusal(input, { selector: { css: "#a", label: "A" } })).toEqual({
      message: KINDS,
      field: "selector",
    });
  });

  test("said before fields over their cap", () => {
    const fields = Array.from({ length: 21 }, () => ({ selector: { css: "#a" }, text: "t" }));
    expect(refusal(input, { selector: { css: "#a", label: "A" }, fields })).toEqual({
      message: KINDS,
      field: "selector",
    });
  });

  test("each field's in fields, before its text or secret", () => {
    expect(refusal(input, { fields: [{ selector: { css: "#a", exact: false } }] })).toEqual({
      message: 'field "fields.0.selector.exact" must only come with text',
      field: "fields.0.selector.exact",
    });
    expect(refusal(input, { fields: [{ selector: { css: "#a" } }] })).toEqual({
      message: 'field "fields.0.text" must be given instead of the other: give exactly one of text or secret',
      field: "fields.0.text",
    });
  });

  test("submit's, when it is a selector", () => {
    expect(refusal(input, { selector: { css: "#a" }, text: "t", submit: { label: "Go", nth: 1 } })).toEqual({
      message: 'field "submit.nth" must only come with text',
      field: "submit.nth",
    });
  });

  test("write's own rules with good selectors", () => {
    expect(refusal(input, { text: "t" })).toEqual({
      message: 'field "selector" is invalid: is required (or give fields)',
      field: "selector",
    });
    expect(refusal(input, { selector: { css: "#a" }, text: "t", fields: [] }).field).toBe("fields");
    expect(validate(input, { selector: { css: "#a" }, text: "t", submit: { text: "Go" } }).submit).toEqual({
      text: "Go",
    });
  });
});
