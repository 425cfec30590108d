// A read or a script that met an element the page replaced meanwhile (stale) runs once more, where
// its handler calls it; a second stale is the 400 that says so (mapped where it is caught). extract,
// assert and execute_script on a fake page: its call failing stale as told, then answering.
import { describe, expect, test } from "bun:test";
import { error as wd } from "selenium-webdriver";
import { Effects } from "../../../src/actions/effects.ts";
import type { ActionContext } from "../../../src/actions/ports.ts";
import { validate } from "../../../src/actions/validate.ts";
import { assertAction } from "../../../src/browser/assert.ts";
import { extract } from "../../../src/browser/extract.ts";
import { executeScript } from "../../../src/browser/script.ts";

function fakeCall(staleTimes: number) {
  const calls = { asked: 0 };
  const ask = async () => {
    calls.asked++;
    if (calls.asked <= staleTimes) throw new wd.StaleElementReferenceError("stale element reference");
    return { total: 1, visible: 1, els: [{ sharedId: "n1", context: "tab" }], results: ["hi"] };
  };
  const page = {
    context: "tab",
    where: { tab: "tab", frame: null },
    held: { navigationCount: 0, prompt: null },
    located: [],
    armingIn: ask,
    call: ask,
    state: async () => ({ url: "https://a.example/", title: "A" }),
    // execute_script's: the script's value, then where the page is after it.
    userCall: async () => {
      await ask();
      return { type: "string", value: "hi" };
    },
    landing: async () => ({
      top: { context: "tab", url: "https://a.example/", children: [] },
      seen: { leaving: null, title: "A" },
    }),
  };
  Object.assign(page.held, { reached: { ran: () => "https://a.example", ofOrigin: () => [] } });
  const ctx = { browser: { page: async () => page }, effects: new Effects() } as unknown as ActionContext;
  return { ctx, calls };
}

const ACTIONS = {
  extract: (ctx: ActionContext) =>
    extract.handler(ctx, validate(extract.input, { selector: { css: "#q" }, timeout: 0 })),
  assert: (ctx: ActionContext) =>
    assertAction.handler(ctx, validate(assertAction.input, { selector: { css: "#q" }, timeout: 0 })),
  execute_script: (ctx: ActionContext) =>
    executeScript.handler(ctx, validate(executeScript.input, { script: "document.title" })),
};

describe.each(Object.entries(ACTIONS))("%s's handler", (name, run) => {
  test("a stale element: once more, and its answer", async () => {
    const { ctx, calls } = fakeCall(1);
    expect(await run(ctx)).toMatchObject({ url: "https://a.example/", title: "A" });
    expect(calls.asked).toBe(2);
  });

  test("stale twice: the 400 that says the page replaced it, after one more try only", async () => {
    const { ctx, calls } = fakeCall(2);
    await expect(run(ctx)).rejects.toThrow(
      `${name === "execute_script" ? "the element" : '{"css":"#q"}'} was replaced by the page while the action ran: retry the call`,
    );
    expect(calls.asked).toBe(2);
  });

  test("no stale: one ask", async () => {
    const { ctx, calls } = fakeCall(0);
    expect(await run(ctx)).toMatchObject({ url: "https://a.example/", title: "A" });
    expect(calls.asked).toBe(1);
  });
});
