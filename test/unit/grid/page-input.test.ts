// The page's click verb given an element as the agent named it, without a browser: it locates it
// (polling until it comes), aims, presses once, checks where the press landed and reads the landing,
// and its 400s say what went wrong in the words they always had. A port whose sandbox calls and
// BiDi commands are scripted.
import { describe, expect, test } from "bun:test";
import type { HeldConnection } from "../../../src/grid/held.ts";
import type { Landing, PageFn, PageOptions } from "../../../src/grid/page-call.ts";
import { DialogOpened } from "../../../src/grid/page-dialogs.ts";
import { PageInput, type Query } from "../../../src/grid/page-input.ts";

const EL = { sharedId: "n1", context: "tab" };
const HERE: Landing = {
  top: { context: "tab", url: "https://a.example/", children: [] } as never,
  seen: null,
};

/** A page whose locating answers come from `finds` in turn (the last repeats), the press as told. */
function fakePage(
  finds: Record<string, unknown>[],
  seen: Record<string, unknown> = { leaving: null, title: "A" },
) {
  const held = { activeTab: "tab", prompts: new Map(), navigationCount: 3, stuck: false };
  const log: string[] = [];
  class Fake extends PageInput {
    override async armingIn<T>(_c: string, fn: PageFn, ...args: unknown[]): Promise<T> {
      log.push(`${fn}(${JSON.stringify(args.at(-1))})`);
      const got = finds.length > 1 ? finds.shift() : finds[0];
      if (got instanceof Error) throw got;
      return got as T;
    }
    override async send(method: string): Promise<never> {
      log.push(method);
      held.navigationCount++;
      return {} as never;
    }
    override async landing(read?: string): Promise<Landing> {
      log.push(`landing(${read})`);
      return { ...HERE, seen: seen as Landing["seen"] };
    }
  }
  const page = new Fake(held as unknown as HeldConnection, { tab: "tab", frame: null }, {} as PageOptions);
  return { page, log };
}

const q = (over: Partial<Query> = {}): Query => ({
  given: { css: "#go" },
  sel: { css: "#go" },
  quoted: '{"css":"#go"}',
  field: "selector",
  timeout: 1,
  visible: true,
  ...over,
});
const found = (over: Record<string, unknown> = {}) => ({
  total: 1,
  visible: 1,
  els: [EL],
  watched: true,
  ...over,
});

describe("Page.click on a query", () => {
  test("locates until the element shows, aims, presses once, reads the landing with the press's check", async () => {
    const { page, log } = fakePage([{ total: 0, visible: 0, els: [] }, found({ dx: 2, dy: 3 })]);
    const press = { before: 0 };
    const got = await page.click(q(), { checked: true, landing: true, press });
    expect(got?.top).toEqual(HERE.top);
    expect(log).toEqual([
      'pointerTarget({"max":1,"scroll":false,"visible":true,"watch":true})',
      'pointerTarget({"max":1,"scroll":false,"visible":true,"watch":true})',
      "input.performActions",
      "landing(clickSeen)",
    ]);
    // Where the press began: the navigations begun before the press itself.
    expect(press.before).toBe(3);
  });

  test("a press another element took, or one outside the element's frame, is the 400 naming it", async () => {
    const took = fakePage([found()], { took: "div.overlay", ref: "e9", leaving: null, title: "A" });
    await expect(took.page.click(q(), { checked: true, landing: true })).rejects.toThrow(
      '{"css":"#go"} did not get the click: the press landed on div.overlay, so it was stopped before the page saw it. Call read_page and act on what shows there now (that element is {"ref": "e9"}), or wait for the page to settle',
    );
    const outside = fakePage([found()], { pressed: false, leaving: null, title: "A" });
    await expect(outside.page.click(q(), { checked: true, landing: true })).rejects.toThrow(
      "did not get the click: the press landed outside its frame",
    );
  });

  test("an element covered all over, or in a frame that shows none of it: a 400 and no press", async () => {
    const covered = fakePage([found({ cover: "div.banner" })]);
    await expect(covered.page.click(q({ field: "submit" }), { checked: true })).rejects.toThrow(
      '{"css":"#go"} is covered by div.banner, which would get the click: close or wait for what covers it (a dialog, a banner, an overlay), then retry',
    );
    expect(covered.log).not.toContain("input.performActions");
    const framed = fakePage([found({ frame: "iframe#pay", cover: "body" })]);
    await expect(framed.page.click(q(), { checked: true })).rejects.toThrow(
      "is in a frame that shows none of it: the frame iframe#pay is clipped",
    );
  });

  test("nothing matched in time: the 400 that says so; an invalid CSS selector names its field", async () => {
    const none = fakePage([{ total: 0, visible: 0, els: [] }]);
    await expect(none.page.click(q({ timeout: 0 }), { checked: true })).rejects.toThrow(
      'nothing matched {"css":"#go"} within 0 s.',
    );
    const bad = fakePage([{ total: 0, visible: 0, invalid: { kind: "css", reason: "bad" } }]);
    await expect(bad.page.click(q(), { checked: true })).rejects.toThrow(
      'field "selector.css" is not a valid CSS selector: bad',
    );
  });

  test("a dialog met while locating is the open dialog's 400, never a press delivered", async () => {
    const prompt = { context: "tab", type: "alert", message: "hi" } as never;
    const { page, log } = fakePage([new DialogOpened(prompt) as never]);
    const err = await page.click(q(), { checked: true }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(DialogOpened);
    expect((err as Error).message).toBe(
      'a dialog is open: answer it with the dialog tool first (it says: "hi")',
    );
    expect(log).not.toContain("input.performActions");
  });
});

describe("Page.field and Page.submit", () => {
  test("a field found is answered; a button or a read-only input is the 400 naming what it is", async () => {
    const ok = fakePage([found({ field: EL, kind: "input" })]);
    expect((await ok.page.field(q())).field).toEqual(EL);
    expect(ok.log).toEqual(['fieldTarget({"max":1,"scroll":false,"visible":true})']);
    const button = fakePage([found({ field: EL, problem: "button" })]);
    await expect(button.page.field(q())).rejects.toThrow(
      '{"css":"#go"} is a <button>, not a field you can type into: name the input itself (read_page lists the fields), or use interact for selects, checkboxes and buttons',
    );
    const locked = fakePage([found({ field: EL, locked: "read-only" })]);
    await expect(locked.page.field(q())).rejects.toThrow(
      '{"css":"#go"} is read-only: it cannot be typed into',
    );
  });

  test("Enter only while the field holds the focus; one that lost it is a 400 on submit, no key sent", async () => {
    const field = { total: 1, visible: 1, field: EL, kind: "input" as const };
    for (const focused of [true, false]) {
      const { page, log } = fakePage([]);
      Object.assign(page, {
        callIn: async (_c: string, fn: string) => {
          log.push(fn);
          return focused;
        },
      });
      const sent = page.submit(field, '{"css":"#go"}');
      if (focused) await sent;
      else
        await expect(sent).rejects.toThrow(
          '{"css":"#go"} lost the focus before Enter, so the form was not sent: give submit the page\'s send button instead',
        );
      expect(log).toEqual(focused ? ["focusField", "input.performActions"] : ["focusField"]);
    }
  });
});
