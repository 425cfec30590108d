// execute_script: run the caller's JavaScript in the page and return a JSON-safe result.
import { z } from "zod";
import { badInput } from "../errors.ts";
import { defineAction, pageFields } from "./define.ts";
import { acting } from "./failures.ts";
import { dialogField, landed } from "./page/state.ts";
import { userScript } from "./page/user-script.ts";

/** Bytes of JSON a script's result may take. */
export const MAX_RESULT = 1024 * 1024;

export const executeScript = defineAction({
  name: "execute_script",
  http: { method: "POST", path: "/browser/script" },
  title: "Run JavaScript in the page",
  description: [
    "Run JavaScript in the page (or frame): an expression, a function (async too) or a body that uses return; a promise is awaited.",
    "Returns result as JSON.",
    "Prefer read_page, extract, interact and write: they wait and explain failures. Keep results small.",
  ].join(" "),
  docs: [
    "An expression such as document.title, a function such as () => ... or async () => ..., or a function body.",
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
    const { driver } = ctx.browser;
    const result = await acting({}, () => driver.executeScript(userScript(input.script), ...input.args));
    const size = Buffer.byteLength(JSON.stringify(result ?? null));
    if (size > MAX_RESULT) {
      throw badInput(
        `the script's result is ${size} bytes of JSON, over the ${MAX_RESULT} a result may carry: return less (a slice, a count, the fields you need)`,
        "script",
      );
    }
    return { ...(await landed(ctx, driver)), result: result ?? null };
  },
});
