// interact's gestures as one piece each: the tool's one input is the union of their branches, a
// field one gesture does not take is refused naming those that do, and a field two gestures take
// is one schema.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { validate } from "../../../src/actions/validate.ts";
import { defineGesture, gestureInput, gestureOutput } from "../../../src/browser/gestures/gesture.ts";
import { interact } from "../../../src/browser/interact.ts";

const shared = z.string().optional();
const tap = defineGesture({
  actions: ["tap", "double_tap"],
  fields: { where: shared, times: z.number().optional() },
  output: { tapped: z.number().optional() },
  docs: "tap: taps.",
  check(i, issue) {
    if (i.where === undefined) issue("where", `must be given for ${i.action}: where to tap`);
  },
  run: async () => ({ tapped: 1 }),
});
const swipe = defineGesture({
  actions: ["swipe"],
  fields: { where: shared, speed: z.number().optional() },
  docs: "swipe: swipes.",
  run: async () => undefined,
});
const Input = gestureInput([tap, swipe], z.number().default(5));
const refused = (input: unknown) => {
  try {
    validate(Input, input);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("accepted");
};

describe("gestureInput", () => {
  test("the union of the branches: every action, every field once, timeout", () => {
    expect(Object.keys(Input.shape)).toEqual(["action", "where", "times", "speed", "timeout"]);
    expect(validate(Input, { action: "double_tap", where: "here", times: 2 })).toEqual({
      action: "double_tap",
      where: "here",
      times: 2,
      timeout: 5,
    });
    expect(Object.keys(gestureOutput([tap, swipe]))).toEqual(["tapped"]);
  });

  test("a field the named gesture does not take names those that do; then the gesture's own rules", () => {
    expect(refused({ action: "swipe", speed: 1, times: 2 })).toBe(
      'field "times" must only come with action tap or double_tap',
    );
    expect(refused({ action: "tap" })).toBe('field "where" must be given for tap: where to tap');
    expect(refused({ action: "pinch" })).toContain(
      'field "action" must be one of "tap", "double_tap", "swipe"',
    );
  });

  test("a field two gestures declare differently is refused when the tool is made", () => {
    const other = defineGesture({
      actions: ["poke"],
      fields: { where: z.string().optional() },
      docs: "poke.",
      run: async () => undefined,
    });
    expect(() => gestureInput([tap, other], z.number())).toThrow("field where is declared twice");
  });
});

describe("interact's gestures", () => {
  const refusedBy = (input: unknown) => {
    try {
      validate(interact.input, input);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error("accepted");
  };

  test("a click's rules, shared ones it names, run in order: the element or a point, then hold's cap", () => {
    expect(refusedBy({ action: "right_click", x: 1, hold: 11 })).toBe(
      'field "y" must be given with the other coordinate',
    );
    expect(refusedBy({ action: "click", hold: 11 })).toBe(
      'field "selector" must be given for click: the element to act on (read_page lists selectors), or x and y',
    );
    expect(refusedBy({ action: "click", selector: { ref: "e1" }, hold: 11 })).toBe(
      'field "hold" must be at most 10 (seconds)',
    );
    expect(validate(interact.input, { action: "click", selector: { ref: "e1" }, hold: 10 })).toEqual({
      action: "click",
      selector: { ref: "e1" },
      hold: 10,
      timeout: 5,
    });
  });

  test("each action belongs to one gesture, and every gesture says what it does in the docs", () => {
    const actions = (interact.input.shape.action as z.ZodEnum).options;
    expect(new Set(actions).size).toBe(actions.length);
    for (const a of actions) expect([a, interact.docs?.includes(`${a}`)]).toEqual([a, true]);
  });
});
