// execute_script: run the caller's JavaScript in the page's own world and return a JSON-safe result.
// A page that holds a typed secret is refused (a script could read it back in any encoding).
import { z } from "zod";
import { badInput } from "../errors.ts";
import { BidiError } from "../grid/bidi.ts";
import type { Page } from "../grid/page.ts";
import { allowedAt } from "../secrets/bound.ts";
import { holdsTyped, mayHoldTyped, typedAt } from "../secrets/contain.ts";
import { markScripted } from "../secrets/typed.ts";
import { defineAction } from "./define.ts";
import { acting } from "./failures.ts";
import { pageFields } from "./fields.ts";
import { dialogField, gesture, landed } from "./landing.ts";
import type { ActionServices } from "./ports.ts";
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

export const SCRIPT_AFTER_WRITE =
  "a page of this browser (in any tab) holds a secret typed by write, and a script could read it back: scripts are refused until no page holds one (its field is gone, or it went to another document: navigate, or submit the form). The operator can allow them with secrets.scripts_after_write: allow";

/**
 * Refuses a script while any document of the browser holds a typed secret (another tab's page can
 * reach it through window.open's reference), unless the operator allows it; a browser where nothing
 * was typed pays nothing for the check. Returns the marking of every document as script-reached
 * (no bound write lands where the script could have armed a copier), to await before answering:
 * it runs beside the script. Where no secret is configured there is nothing to mark.
 */
export async function refuseAfterWrite(services: ActionServices, page: Page, browser: string): Promise<void> {
  // Every tab: another tab's page can reach this one's through window.open's reference.
  const { tab: _, ...at } = typedAt(services, page, browser);
  if (services.config.secrets.scripts_after_write !== "allow" && mayHoldTyped(at)) {
    // A pop-up no call used yet may be one Chromium's BiDi never answers (see Page.usable): probed
    // first, so it does not read as typed. A browser the Grid reaped throws here, for the manager to
    // reopen, rather than reading as typed.
    const tabs = await page.send("browsingContext.getTree", { maxDepth: 0 }, { timeoutMs: 10_000 });
    await Promise.all(tabs.contexts.map((c) => page.usable(c.context)));
    if (await holdsTyped(at)) throw badInput(SCRIPT_AFTER_WRITE, "script");
  }
}

/** Marks every document as script-reached where a secret could later be typed; a browser that would not take every mark takes no bound write. */
export async function markReached(services: ActionServices, page: Page, browser: string): Promise<void> {
  const secrets = services.secrets.all();
  if (secrets.length === 0) return;
  // Only where a secret of the catalogue could be typed now: every page when one may go anywhere.
  const anywhere = secrets.some((s) => s.allowedUrls.length === 0);
  const typable = (url: string) => anywhere || secrets.some((s) => allowedAt(s.places, url));
  if (!(await markScripted(page, typable))) services.redactor.noteUnmarked(browser);
}

/** Bytes of JSON a script's result may take. */
export const MAX_RESULT = 1024 * 1024;

export const executeScript = defineAction({
  name: "execute_script",
  http: { method: "POST", path: "/browser/script" },
  title: "Run JavaScript in the page",
  description: [
    "Run JavaScript in the page (or frame): an expression, a function (async too) or a body that uses return; a promise is awaited.",
    "Returns result as JSON. Refused while any page holds a secret typed by write.",
    "Prefer read_page, extract, interact and write: they wait and explain failures. Keep results small.",
  ].join(" "),
  docs: [
    "An expression such as document.title, a function such as () => ... or async () => ..., or a function body.",
    "It runs in the page's own world (the server's own scripts run in a sandbox the page cannot reach), so what it reads is what the page says. After a write with a secret, it is refused in every tab while a page holds one (the field is still in it; a script could read the value back in any encoding); the operator can allow it with secrets.scripts_after_write: allow. A secret is not typed on a page a script ran in.",
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
    await refuseAfterWrite(ctx.services, page, ctx.browser.id);
    const marking = markReached(ctx.services, page, ctx.browser.id);
    const context = page.context;
    let value: Awaited<ReturnType<Page["userCall"]>> | null = null;
    const before = await gesture(page, () =>
      acting({}, async () => {
        value = await page
          .userCall(context, userFunction(input.script), input.args.map(toLocal))
          .catch(unreadable);
      }),
    ).finally(() => marking);
    const result = value ? await jsonOf(page, context, value) : null;
    const size = Buffer.byteLength(JSON.stringify(result ?? null));
    if (size > MAX_RESULT) {
      throw badInput(
        `the script's result is ${size} bytes of JSON, over the ${MAX_RESULT} a result may carry: return less (a slice, a count, the fields you need)`,
        "script",
      );
    }
    return (await landed(page, before)).map((at) => ({ ...at, result: result ?? null }));
  },
});
