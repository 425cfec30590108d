// Test-only actions for tests of the manager and of flows.
import { z } from "zod";
import type { AnyAction } from "../../src/actions/action.ts";
import { defineAction } from "../../src/actions/define.ts";
import type { ActionContext } from "../../src/actions/ports.ts";

type Result = object;

/** A page action that takes `input` and does `handler`, and nothing else (test only). */
export function testAction<I extends z.ZodObject>(
  name: string,
  handler: (ctx: ActionContext, input: z.infer<I>) => Promise<Result>,
  input: I = z.strictObject({}) as unknown as I,
): AnyAction {
  return defineAction({
    name,
    http: { method: "POST", path: `/${name.replaceAll("_", "-")}` },
    title: name,
    description: "Test only.",
    input,
    output: z.record(z.string(), z.unknown()),
    annotations: { readOnly: false, destructive: false, idempotent: false },
    browser: "page",
    handler: async (ctx, i) => (await handler(ctx, i)) as Record<string, unknown>,
  });
}

/**
 * A page action of the simplest kind: go to a url, then run `then` (another writer, or a throw),
 * then report the page. Navigate's own shape may grow; this one stays.
 */
export function goAnd(
  name: string,
  then: (ctx: ActionContext) => Promise<unknown> = async () => {},
): AnyAction {
  return testAction(
    name,
    async (ctx, input) => {
      const page = await ctx.browser.page();
      await page.goto(input.url);
      await then(ctx);
      return page.state();
    },
    z.strictObject({ url: z.string() }),
  );
}

export const goAction = goAnd("go");
