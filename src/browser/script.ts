// execute_script: run the caller's JavaScript in the page's own world and return a JSON-safe result.
// The document it runs in, and every one of its origin alive beside it, count as scripted from then
// on (no secret is typed into them, spec §1.17) until they navigate.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { pageFields } from "../actions/fields.ts";
import { badInput } from "../errors.ts";
import { BidiError } from "../grid/bidi.ts";
import type { Page } from "../grid/page.ts";
import { noteScript } from "../secrets/field.ts";
import { isStale, mapDriverError } from "./failures.ts";
import { delivered, dialogField, landed } from "./landing.ts";
import { jsonOf, toLocal, userFunction } from "./user-script.ts";

/** The browser could not serialise the result (a getter that throws when read): a 400 saying what to return. */
function unreadable(err: unknown): never {
  if (err instanceof BidiError && /seriali[sz]ation/i.test(err.bidiMessage)) {
    throw badInput(
      "the script's result could not be read: reading one of its properties threw (a getter that throws). Return plain data: copy the fields you need into a new object",
      "script",
    );
  }
  throw err;
}

/** Bytes of JSON a script's result may take. */
export const MAX_RESULT = 1024 * 1024;

export const executeScript = defineAction({
  name: "execute_script",
  http: { method: "POST", path: "/browser/script" },
  title: "Run JavaScript in the page",
  description: [
    "Run JavaScript in the page (or frame): an expression, a function or a body with return; a promise is awaited; result as JSON.",
    "Prefer read_page, extract, interact and write: they wait and explain failures.",
  ].join(" "),
  docs: [
    "An expression such as document.title, a function such as () => ... or async () => ..., or a function body.",
    "It runs in the page's own world (the server's own scripts run in a sandbox the page cannot reach), so what it reads is what the page says. A secret is not typed into a page a script ran in, nor while such a page of the same site is open (navigate it first).",
    "args are passed as arguments[0], arguments[1]... (or as the function's parameters).",
    'In the result, an element reads as a short description such as <button#send> "Send", functions and cycles are marked and undefined is null; the url and title after the script come with it.',
    "A script that throws is an error carrying the page's message.",
    "Use a script for what the other actions cannot do.",
  ].join(" "),
  input: z.strictObject({
    script: z.string().min(1).max(100_000).meta({ docs: "The JavaScript to run." }),
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
    await noteScript(page);
    const context = page.context;
    let value: Awaited<ReturnType<Page["userCall"]>> | null = null;
    const run = () =>
      page.userCall(context, userFunction(input.script), input.args.map(toLocal)).catch(unreadable);
    const before = page.held.navigationCount;
    try {
      // Once more when an element went stale meanwhile; a failure is said where it is caught, and
      // a dialog the script opened ends it (delivered: the result says so).
      value = await run().catch((err: unknown) => (isStale(err) ? run() : Promise.reject(err)));
    } catch (err) {
      await delivered(page, mapDriverError(err));
    }
    const result = value ? await jsonOf(page, context, value) : null;
    const size = Buffer.byteLength(JSON.stringify(result ?? null));
    if (size > MAX_RESULT) {
      throw badInput(
        `the script's result is ${size} bytes of JSON, over the ${MAX_RESULT} a result may carry: return less (a slice, a count, the fields you need)`,
        "script",
      );
    }
    return { ...(await landed(page, before, ctx.effects)), result: result ?? null };
  },
});
