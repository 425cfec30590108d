// interact's handler around its gesture: an element the page replaced meanwhile (stale) has the
// gesture run once more, locating afresh; a second stale is the 400 that says so. A fake page: one
// match for the locating call, the press (a focus) failing as told, the landing read in one call.
import { describe, expect, test } from "bun:test";
import { error as wd } from "selenium-webdriver";
import { Effects } from "../../../src/actions/effects.ts";
import type { ActionContext } from "../../../src/actions/ports.ts";
import { validate } from "../../../src/actions/validate.ts";
import { interact } from "../../../src/browser/interact.ts";

function fakeCall(staleTimes: number) {
  const calls = { located: 0, pressed: 0 };
  const page = {
    context: "tab",
    where: { tab: "tab", frame: null },
    held: { popups: 0, navigationCount: 0, lastPopup: null },
    located: [],
    armingIn: async () => {
      calls.located++;
      return { total: 1, visible: 1, els: [{ sharedId: `n${calls.located}`, context: "tab" }] };
    },
    callIn: async () => {
      calls.pressed++;
      if (calls.pressed <= staleTimes) throw new wd.StaleElementReferenceError("stale element reference");
    },
    landing: async () => ({
      top: { context: "tab", url: "https://a.example/", children: [] },
      seen: { leaving: null, title: "A" },
    }),
  };
  const ctx = { browser: { page: async () => page }, effects: new Effects() } as unknown as ActionContext;
  const input = validate(interact.input, { action: "focus", selector: { css: "#q" } });
  return { run: () => interact.handler(ctx, input), calls };
}

describe("interact's handler", () => {
  test("a stale element: the gesture once more, located afresh, and its answer", async () => {
    const { run, calls } = fakeCall(1);
    expect(await run()).toEqual({ url: "https://a.example/", title: "A" });
    expect(calls).toEqual({ located: 2, pressed: 2 });
  });

  test("stale twice: the 400 that says the page replaced it, after one more try only", async () => {
    const { run, calls } = fakeCall(2);
    await expect(run()).rejects.toThrow(
      '{"css":"#q"} was replaced by the page while the action ran: retry the call',
    );
    expect(calls).toEqual({ located: 2, pressed: 2 });
  });

  test("no stale: one run", async () => {
    const { run, calls } = fakeCall(0);
    expect(await run()).toEqual({ url: "https://a.example/", title: "A" });
    expect(calls).toEqual({ located: 1, pressed: 1 });
  });
});
