// The BiDi actions a gesture becomes: a press held for its hold, a stroke through points in steps
// small enough that the page sees it pass continuously, the wheel over an element, and how long a
// set of actions takes (the command's deadline grows by it).
import { describe, expect, test } from "bun:test";
import {
  actionsMs,
  clickActions,
  pathActions,
  strokeActions,
  wheelActions,
} from "../../../src/grid/input-actions.ts";

type Move = { type: string; x?: number; y?: number; duration?: number; button?: number };
const moves = (a: { actions: unknown[] }) => (a.actions as Move[]).filter((m) => m.type === "pointerMove");

describe("clickActions", () => {
  test("a hold pauses between each press and its release; without one, none", () => {
    const el = { context: "c", sharedId: "s" };
    const held = clickActions(el, { count: 2, holdMs: 1200 }).actions as Move[];
    expect(held.map((a) => a.type)).toEqual([
      "pointerMove",
      "pointerDown",
      "pause",
      "pointerUp",
      "pointerDown",
      "pause",
      "pointerUp",
    ]);
    expect(held[2]?.duration).toBe(1200);
    expect((clickActions(el, {}).actions as Move[]).map((a) => a.type)).toEqual([
      "pointerMove",
      "pointerDown",
      "pointerUp",
    ]);
  });
});

describe("strokeActions", () => {
  test("pressed at the first point, through every point in steps of at most 10 px, released at the last", () => {
    const points = [
      { x: 10, y: 10 },
      { x: 110, y: 10 },
      { x: 110, y: 60 },
    ];
    const s = strokeActions(points, { press: true, holdMs: 500 });
    const acts = s.actions as Move[];
    expect(acts[0]).toMatchObject({ type: "pointerMove", x: 10, y: 10 });
    expect(acts[1]).toEqual({ type: "pointerDown", button: 0 });
    expect(acts[2]).toEqual({ type: "pause", duration: 500 });
    expect(acts.at(-1)).toEqual({ type: "pointerUp", button: 0 });
    const m = moves(s);
    expect(m.at(-1)).toMatchObject({ x: 110, y: 60 });
    expect(m.some((p) => p.x === 110 && p.y === 10)).toBe(true);
    for (let i = 1; i < m.length; i++) {
      const a = m[i - 1] as Move;
      const b = m[i] as Move;
      expect(Math.hypot((b.x ?? 0) - (a.x ?? 0), (b.y ?? 0) - (a.y ?? 0))).toBeLessThanOrEqual(10);
      // Every step lies on the path: along y = 10, then along x = 110.
      expect(b.y === 10 || b.x === 110).toBe(true);
    }
    expect(m.length).toBe(1 + 10 + 5);
  });

  test("a long stroke makes at most 400 moves, its steps longer", () => {
    const zigzag = Array.from({ length: 200 }, (_, i) => ({ x: i % 2 ? 1200 : 0, y: i * 3 }));
    const m = moves(strokeActions(zigzag, { press: true }));
    expect(m.length).toBeLessThanOrEqual(1 + 400 + 200);
    expect(m.at(-1)).toMatchObject({ x: 1200, y: 597 });
  });

  test("unpressed (a hover's path): moves only", () => {
    const s = strokeActions(
      [
        { x: 0, y: 0 },
        { x: 25, y: 0 },
      ],
      { press: false },
    );
    expect((s.actions as Move[]).every((a) => a.type === "pointerMove")).toBe(true);
  });
});

describe("wheelActions", () => {
  test("over an element from its aimed point, or over a viewport point, by the delta given", () => {
    const el = { context: "c", sharedId: "s", dx: 3, dy: -4 };
    expect(wheelActions(el, { x: 0, y: 250 })).toEqual({
      type: "wheel",
      id: "wheel",
      actions: [
        {
          type: "scroll",
          x: 3,
          y: -4,
          deltaX: 0,
          deltaY: 250,
          origin: { type: "element", element: { sharedId: "s" } },
        },
      ],
    });
    expect(wheelActions({ x: 10, y: 20 }, { x: -5, y: 0 }).actions[0]).toMatchObject({
      origin: "viewport",
      x: 10,
      y: 20,
      deltaX: -5,
    });
  });
});

describe("actionsMs", () => {
  test("the longest source's durations added up", () => {
    const drag = pathActions({ x: 0, y: 0 }, { x: 100, y: 0 }, 2000);
    const ms = actionsMs([drag, clickActions({ x: 1, y: 1 }, { holdMs: 300 })]);
    expect(ms).toBeGreaterThan(2000);
    // Each action is allowed 50 ms besides its own duration (a move waits for the page's frame).
    expect(actionsMs([clickActions({ x: 1, y: 1 }, {})])).toBe(150);
  });
});
