// What a locate found or did not, without a browser. The locator a ref-holding selector keeps: the
// locating script sent for it reads the locator in the same sandbox call (src/in-page/kept.ts), only
// once the match is ready to act on, and a failing read leaves the match as it was; other
// selectors' scripts go as they are; what is noted. The frame search behind "a match is inside a
// frame": which frames it names, and that a page of endless frames (each holding twenty more) costs
// a bounded number of sandbox calls.
import { afterEach, describe, expect, test } from "bun:test";
import {
  type Asker,
  frameHolding,
  frameSentence,
  keeping,
  type Located,
  noteLocator,
} from "../../../src/grid/page-found.ts";
import { keeping as inPage } from "../../../src/in-page/kept.ts";

/** The library's `keeping` as the sandbox would run it, against a made-up library. */
function run(found: Record<string, unknown>, locatorOf: () => unknown, visible = true) {
  const asked: unknown[] = [];
  (globalThis as { __sfLib?: unknown }).__sfLib = {
    located: () => found,
    locatorOf: (sel: unknown) => {
      asked.push(sel);
      return locatorOf();
    },
  };
  return { got: inPage("located", { ref: "e6" }, { visible }) as Promise<Record<string, unknown>>, asked };
}

afterEach(() => {
  delete (globalThis as { __sfLib?: unknown }).__sfLib;
});

describe("keeping", () => {
  test("a ref's match answers its locator, read in the same call", async () => {
    const { got, asked } = run({ total: 1, visible: 1, els: [] }, () => ({ role: "button", name: "Send" }));
    expect(await got).toEqual({ total: 1, visible: 1, els: [], locator: { role: "button", name: "Send" } });
    expect(asked).toEqual([{ ref: "e6" }]);
  });

  test("no read until the match is ready (visible when asked), and none for a broken selector", async () => {
    const hidden = run({ total: 1, visible: 0 }, () => ({ text: "x" }));
    expect(await hidden.got).toEqual({ total: 1, visible: 0 });
    expect(hidden.asked).toEqual([]);
    const anyMatch = run({ total: 1, visible: 0 }, () => ({ text: "x" }), false);
    expect((await anyMatch.got).locator).toEqual({ text: "x" });
    const gone = { total: 0, visible: 0, invalid: { kind: "ref", reason: "gone", gone: true } };
    const broken = run(gone, () => ({ text: "x" }));
    expect(await broken.got).toEqual(gone);
    expect(broken.asked).toEqual([]);
  });

  test("a read that throws answers the match with no locator (null), never a failed call", async () => {
    const { got } = run({ total: 1, visible: 1 }, () => {
      throw new Error("detached");
    });
    expect(await got).toEqual({ total: 1, visible: 1, locator: null });
  });

  test("text within a ref keeps one; a selector without a ref is sent as it was", () => {
    expect(keeping("located", { ref: "e6" })).toEqual(["keeping", "located"]);
    expect(keeping("located", { text: "Edit", within: "e2" })).toEqual(["keeping", "located"]);
    expect(keeping("located", { css: "#go" })).toEqual(["located"]);
    expect(keeping("located", { text: "Edit" })).toEqual(["located"]);
  });
});

describe("noteLocator", () => {
  test("notes each selector once (its last read), as given; a match without a read notes nothing", () => {
    const located: Located[] = [];
    noteLocator(located, { ref: "e6" }, { total: 1, locator: null });
    noteLocator(located, { ref: "e7" }, { total: 1, locator: { label: "Email" } });
    noteLocator(located, { ref: "e6" }, { total: 1, locator: { text: "Send" } });
    noteLocator(located, { css: "#go" }, { total: 1 });
    expect(located).toEqual([
      { selector: { ref: "e7" }, locator: { label: "Email" } },
      { selector: { ref: "e6" }, locator: { text: "Send" } },
    ]);
  });
});

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
  return { page: page as unknown as Asker, calls: () => calls };
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
