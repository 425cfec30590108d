// Test-only actions for unit tests of the manager on a fake Grid.
import { z } from "zod";
import { defineAction, PageResult } from "../../src/actions/define.ts";
import { pageState } from "../../src/grid/page.ts";

/** A page action of the simplest kind: go to a url (navigate's own shape may grow; this one stays). */
export const goAction = defineAction({
  name: "go",
  http: { method: "POST", path: "/go" },
  title: "Go",
  description: "Go to a url.",
  input: z.strictObject({ url: z.string() }),
  output: PageResult,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  browser: "page",
  handler: async (ctx, input) => {
    await ctx.browser.driver.get(input.url);
    return pageState(ctx.browser.driver);
  },
});
