// extract: read text, HTML, an attribute or the value of what a selector matches — locating and
// reading in one sandbox call; the url comes from the browser.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { Box, flag, pageFields, webUrl } from "../actions/fields.ts";
import { badInput } from "../errors.ts";
import { isStale, mapDriverError, quoteSelector } from "./failures.ts";
import { here } from "./landing.ts";
import { type PageMatch, type SeekArgs, Selector, seek, timeoutField } from "./selectors.ts";

const GETS = ["text", "html", "value", "attribute", "box"] as const;
type Get = (typeof GETS)[number];

export const MAX_MATCHES = 500;
/** Characters of one value, and of all values together. */
export const MAX_VALUE = 100_000;
export const MAX_TOTAL = 500_000;

type BoxOf = z.infer<typeof Box>;

interface Read extends PageMatch {
  results?: (string | BoxOf | null)[];
  truncated?: boolean;
  password?: boolean;
}

/** What the page's `readMatches` is handed (src/in-page/extract.ts). */
interface ReadArgs extends SeekArgs {
  get: Get;
  /** Characters of each value skipped (reading on where the last read was cut). */
  offset: number;
  attribute: string | null;
  all: boolean;
  maxValue: number;
  maxTotal: number;
}

const Input = z
  .strictObject({
    selector: Selector,
    get: z.enum(GETS).optional().describe("text (default) also reads fields and checkboxes.").meta({
      docs: "What to read: text (default; a field's value, a select's chosen option, a checkbox's checked/unchecked), html (outer HTML), value (a field's value), attribute (with attribute), or box ({x, y, width, height}: where the element is in the viewport, CSS pixels, as the page is scrolled now; for interact's x and y).",
    }),
    attribute: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("e.g. href (implies get).")
      .meta({ docs: "The attribute to read, e.g. href (implies get: attribute)." }),
    all: flag(false)
      .describe(`Every match (at most ${MAX_MATCHES}).`)
      .meta({ docs: `Read every match, in page order (at most ${MAX_MATCHES}), instead of the first.` }),
    offset: z
      .number()
      .int()
      .optional()
      .describe("Characters to skip (past truncated).")
      .meta({
        docs: `Skip this many characters of each value: a value longer than ${MAX_VALUE.toLocaleString("en")} characters comes cut (truncated), and offset reads on from there.`,
      }),
    url: webUrl().optional().describe("Go here first.").meta({ docs: "Go to this page first." }),
    timeout: timeoutField(),
  })
  .superRefine((i, ctx) => {
    if (i.get === "attribute" && i.attribute === undefined) {
      ctx.addIssue({ code: "custom", path: ["attribute"], message: "must be given with get: attribute" });
    }
    if (i.attribute !== undefined && i.get !== undefined && i.get !== "attribute") {
      ctx.addIssue({
        code: "custom",
        path: ["attribute"],
        message: `must only come with get: attribute, not ${i.get}`,
      });
    }
  });

const Output = z.object({
  ...pageFields,
  result: z
    .union([z.string(), Box])
    .nullable()
    .optional()
    .describe("Without all: what the first match holds (null: no such attribute or value)."),
  results: z
    .array(z.union([z.string(), Box]).nullable())
    .optional()
    .describe("With all: what each match holds, in page order."),
  count: z.number().int().describe("How many elements matched."),
  truncated: z.boolean().optional().describe("Values or matches were cut to fit (offset reads on)."),
});

export const extract = defineAction({
  name: "extract",
  http: { method: "POST", path: "/browser/extract" },
  title: "Read from elements",
  description: [
    'Read what one element holds, or with all=true every match\'s: check a result, read a column, get an href, search the text ({"text": "/regex/i"}). Overview: read_page.',
  ].join(" "),
  docs: [
    "No match is an error that lists what the page has instead (with all: count 0). Matches come in page order. It waits up to timeout seconds for a match. A password's value is never read.",
    "Returns result (or results with all), count, and the page's url and title. url goes to that page first.",
  ].join(" "),
  input: Input,
  output: Output,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const page = await ctx.browser.page();
    const about = { selector: input.selector };
    // A failure is said where it is caught; a read that met an element the page replaced runs once more.
    const said = (err: unknown) => Promise.reject(mapDriverError(err, about));
    if (input.url !== undefined) await page.goto(input.url).catch(said);
    const get: Get = input.get ?? (input.attribute !== undefined ? "attribute" : "text");
    const args: Omit<ReadArgs, "scroll" | "visible"> = {
      get,
      attribute: input.attribute ?? null,
      all: input.all,
      max: input.all ? MAX_MATCHES : 1,
      maxValue: MAX_VALUE,
      maxTotal: MAX_TOTAL,
      offset: Math.max(0, input.offset ?? 0),
    };
    const read = () =>
      seek<Read>(page, input.selector, { timeout: input.timeout, allowNone: input.all }, "readMatches", args);
    const got = await read()
      .catch((err: unknown) => (isStale(err) ? read() : Promise.reject(err)))
      .catch(said);
    if (got.password) {
      throw badInput(
        `${quoteSelector(input.selector)} is a password field: its value is never read (read_page says whether it is filled)`,
        "selector",
      );
    }
    const { url, title } = await here(page, ctx.effects);
    const out: z.infer<typeof Output> = { url, title, count: got.total };
    const results = got.results ?? [];
    if (input.all) out.results = results;
    else out.result = results[0] ?? null;
    if (got.truncated) out.truncated = true;
    return out;
  },
});
