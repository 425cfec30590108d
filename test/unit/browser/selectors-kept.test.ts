// The locator a ref-holding selector keeps, without a browser: the locating script sent for it reads
// the locator in the same sandbox call, only once the match is ready to act on, and a failing read
// leaves the match as it was; other selectors' scripts go as they are; what is noted on the page.
import { describe, expect, test } from "bun:test";
import { keeping, noteLocator } from "../../../src/browser/selectors-kept.ts";
import type { Page } from "../../../src/grid/page.ts";
import type { PageFn } from "../../../src/grid/page-call.ts";

const FIND: PageFn = (L, sel) => L.find(sel);

/** The composed script as the sandbox would run it, against a made-up library. */
function run(script: PageFn, found: Record<string, unknown>, locatorOf: () => unknown, visible = true) {
  // The source is what the sandbox is sent: made a function here, as the sandbox makes it.
  const fn = new Function(`return (${script.toString()});`)() as (
    ...a: unknown[]
  ) => Promise<Record<string, unknown>>;
  const asked: unknown[] = [];
  const L = {
    find: () => found,
    locatorOf: (sel: unknown) => {
      asked.push(sel);
      return locatorOf();
    },
  };
  return { got: fn(L, { ref: "e6" }, { visible, max: 1, scroll: false }), asked };
}

describe("keeping", () => {
  test("a ref's match answers its locator, read in the same call", async () => {
    const { got, asked } = run(keeping(FIND, { ref: "e6" }), { total: 1, visible: 1, els: [] }, () => ({
      role: "button",
      name: "Send",
    }));
    expect(await got).toEqual({ total: 1, visible: 1, els: [], locator: { role: "button", name: "Send" } });
    expect(asked).toEqual([{ ref: "e6" }]);
  });

  test("no read until the match is ready (visible when asked), and none for a broken selector", async () => {
    const hidden = run(keeping(FIND, { ref: "e6" }), { total: 1, visible: 0 }, () => ({ text: "x" }));
    expect(await hidden.got).toEqual({ total: 1, visible: 0 });
    expect(hidden.asked).toEqual([]);
    const anyMatch = run(
      keeping(FIND, { ref: "e6" }),
      { total: 1, visible: 0 },
      () => ({ text: "x" }),
      false,
    );
    expect((await anyMatch.got).locator).toEqual({ text: "x" });
    const gone = { total: 0, visible: 0, invalid: { kind: "ref", reason: "gone", gone: true } };
    const broken = run(keeping(FIND, { ref: "e6" }), gone, () => ({ text: "x" }));
    expect(await broken.got).toEqual(gone);
    expect(broken.asked).toEqual([]);
  });

  test("a read that throws answers the match with no locator (null), never a failed call", async () => {
    const { got } = run(keeping(FIND, { ref: "e6" }), { total: 1, visible: 1 }, () => {
      throw new Error("detached");
    });
    expect(await got).toEqual({ total: 1, visible: 1, locator: null });
  });

  test("text within a ref keeps one; a selector without a ref is sent as it was", () => {
    expect(keeping(FIND, { text: "Edit", within: "e2" })).not.toBe(FIND);
    expect(keeping(FIND, { css: "#go" })).toBe(FIND);
    expect(keeping(FIND, { text: "Edit" })).toBe(FIND);
  });
});

describe("noteLocator", () => {
  test("notes each selector once (its last read), as given; a match without a read notes nothing", () => {
    const page = { located: [] } as unknown as Page;
    noteLocator(page, { ref: "e6" }, { total: 1, locator: null });
    noteLocator(page, { ref: "e7" }, { total: 1, locator: { label: "Email" } });
    noteLocator(page, { ref: "e6" }, { total: 1, locator: { text: "Send" } });
    noteLocator(page, { css: "#go" }, { total: 1 });
    expect(page.located).toEqual([
      { selector: { ref: "e7" }, locator: { label: "Email" } },
      { selector: { ref: "e6" }, locator: { text: "Send" } },
    ]);
  });
});
