// execute_script: run the caller's JavaScript in the page's own world and return a JSON-safe result.
// A page that holds a typed secret is refused (a script could read it back in any encoding).
import { z } from "zod";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { Services } from "../services.ts";
import { defineAction, pageFields } from "./define.ts";
import { acting } from "./failures.ts";
import { dialogField, gesture, landed } from "./page/state.ts";
import { jsonOf, toLocal, userFunction } from "./page/user-script.ts";

export const SCRIPT_AFTER_WRITE =
  "this page holds a secret typed by write, and a script could read it back: scripts are refused on it until the page goes to another document (navigate, or submit the form). The operator can allow them with secrets.scripts_after_write: allow";

/** Refuses a script on a page that holds a typed secret, unless the operator allows it. */
export async function refuseAfterWrite(services: Services, page: Page): Promise<void> {
  if (services.config.secrets.scripts_after_write === "allow") return;
  if (await page.holdsTypedSecret()) throw badInput(SCRIPT_AFTER_WRITE, "script");
}

/** Bytes of JSON a script's result may take. */
export const MAX_RESULT = 1024 * 1024;

export const executeScript = defineAction({
  name: "execute_script",
  http: { method: "POST", path: "/browser/script" },
  title: "Run JavaScript in the page",
  description: [
    "Run JavaScript in the current page (or frame) and get its result: an expression (document.title), a function (() => ..., async () => ...), or a function body that uses return.",
    "args are passed as arguments[0], arguments[1]... (or as the function's parameters); a promise is awaited.",
    'Returns result as JSON: elements come back as short descriptions such as <button#send> "Send", functions and cycles are marked, undefined is null; plus the url and title after the script.',
    "A script that throws is an error carrying the page's message. Prefer read_page, extract, interact and write: they wait for elements and explain failures; use a script for what they cannot do, and keep results small.",
  ].join(" "),
  input: z.strictObject({
    script: z.string().min(1).max(100_000).describe("The JavaScript to run."),
    args: z
      .array(z.unknown())
      .max(50)
      .default([])
      .describe("JSON values passed as arguments[0], arguments[1]..."),
  }),
  output: z.object({
    ...pageFields,
    ...dialogField,
    result: z.unknown().describe("The script's value, JSON-safe (null for undefined)."),
  }),
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const page = await ctx.browser.page();
    await refuseAfterWrite(ctx.services, page);
    const context = page.context;
    let value: Awaited<ReturnType<Page["userCall"]>> | null = null;
    const before = await gesture(page, () =>
      acting({}, async () => {
        value = await page.userCall(context, userFunction(input.script), input.args.map(toLocal));
      }),
    );
    const result = value ? await jsonOf(page, context, value) : null;
    const size = Buffer.byteLength(JSON.stringify(result ?? null));
    if (size > MAX_RESULT) {
      throw badInput(
        `the script's result is ${size} bytes of JSON, over the ${MAX_RESULT} a result may carry: return less (a slice, a count, the fields you need)`,
        "script",
      );
    }
    return { ...(await landed(ctx, page, before)), result: result ?? null };
  },
});
