// Test-only actions for tests of the manager and of flows.
import { z } from "zod";
import { type ActionContext, type AnyAction, defineAction, PageResult } from "../../src/actions/define.ts";
import { pageState } from "../../src/grid/page.ts";

/**
 * A page action of the simplest kind: go to a url, then run `then` (another writer, or a throw),
 * then report the page. Navigate's own shape may grow; this one stays.
 */
export function goAnd(
  name: string,
  then: (ctx: ActionContext) => Promise<unknown> = async () => {},
): AnyAction {
  return defineAction({
    name,
    http: { method: "POST", path: `/${name.replaceAll("_", "-")}` },
    title: name,
    description: "Go to a url (test only).",
    input: z.strictObject({ url: z.string() }),
    output: PageResult,
    annotations: { readOnly: false, destructive: false, idempotent: false },
    browser: "page",
    handler: async (ctx, input) => {
      await ctx.browser.driver.get(input.url);
      await then(ctx);
      return pageState(ctx.browser.driver);
    },
  });
}

export const goAction = goAnd("go");
