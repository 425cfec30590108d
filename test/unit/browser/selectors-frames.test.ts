// The frame search behind "a match is inside a frame": which frames it names, and that a page of
// endless frames (each holding twenty more) costs a bounded number of sandbox calls.
import { describe, expect, test } from "bun:test";
import { frameHolding, frameSentence } from "../../../src/browser/selectors-frames.ts";
import type { Page } from "../../../src/grid/page.ts";

/** A page whose every document holds `wide` frames; `holds` says which context has a match. */
function fakePage(wide: number, holds: (context: string) => boolean) {
  let calls = 0;
  const page = {
    context: "top",
    async callIn(context: string, fn: string) {
      calls++;
      if (fn === "framesHere") {
        return Array.from({ length: wide }, (_, i) => ({
          css: `#f${i}`,
          window: { window: `${context}/${i}` },
        }));
      }
      return holds(context) ? 1 : 0;
    },
  };
  return { page: page as unknown as Page, calls: () => calls };
}

describe("frameHolding", () => {
  test("names the frames from the outermost down to the one holding a match", async () => {
    const { page } = fakePage(3, (c) => c === "top/2/1");
    const path = await frameHolding(page, { text: "Pay" });
    expect(path).toEqual(["#f2", "#f1"]);
    expect(frameSentence(path!)).toContain('{"frame":{"css":"#f2"}}, then {"frame":{"css":"#f1"}}');
  });

  test("a page of endless frames holding nothing costs at most about sixty calls", async () => {
    const { page, calls } = fakePage(20, () => false);
    expect(await frameHolding(page, { text: "Pay" })).toBeNull();
    expect(calls()).toBeLessThanOrEqual(61);
  });

  test("a ref is never searched for in frames (refs are per document)", async () => {
    const { page, calls } = fakePage(3, () => true);
    expect(await frameHolding(page, { ref: "e1" })).toBeNull();
    expect(calls()).toBe(0);
  });
});
