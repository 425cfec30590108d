// A press that threw: still the press delivered when it opened a dialog or closed its own tab (the
// gesture is done and the landing says where it left the page); anything else is the call's failure.
import { describe, expect, test } from "bun:test";
import type { BrowsingContext } from "webdriver-bidi-protocol";
import { delivered } from "../../../src/browser/landing.ts";
import { AppError, badInput } from "../../../src/errors.ts";
import type { Page } from "../../../src/grid/page.ts";
import { DialogOpened, TabClosed } from "../../../src/grid/page-dialogs.ts";

/** A page whose tab is listed open or not. */
const pageWith = (open: boolean) => ({ tabOpen: async () => open }) as unknown as Page;
const closed = () => new TabClosed();
const prompt = {
  context: "c",
  type: "alert",
  message: "hi",
  handler: "ignore",
} as unknown as BrowsingContext.UserPromptOpenedParameters;

describe("delivered", () => {
  test("a dialog the press opened, or its own tab it closed, ends the gesture", async () => {
    expect(await delivered(pageWith(true), new DialogOpened(prompt))).toBeUndefined();
    expect(await delivered(pageWith(false), closed())).toBeUndefined();
  });

  test("anything else is thrown again, a closed-tab error whose tab is still open too", async () => {
    const other = new AppError("bad_input", "nothing matched");
    await expect(delivered(pageWith(false), other)).rejects.toBe(other);
    // The port's TabClosed says so, not a message that reads the same.
    const alike = badInput(closed().message);
    await expect(delivered(pageWith(false), alike)).rejects.toBe(alike);
    const err = closed();
    const started = Date.now();
    // The tab is asked again for up to a second before it is believed open.
    await expect(delivered(pageWith(true), err)).rejects.toBe(err);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });
});
