// read_page: the page as a model needs it to act, in one script.
import { z } from "zod";
import type { NodeRef } from "../grid/page.ts";
import type { PageLib } from "../page/index.ts";
import type { ReadResult } from "../page/outline.ts";
import { defineAction, pageFields, webUrl } from "./define.ts";
import { acting } from "./failures.ts";
import { here } from "./page/state.ts";
import { locate, Selector, timeoutField } from "./selectors.ts";

export const DEFAULT_MAX_LENGTH = 20_000;

const READ = (L: PageLib, root: Element | null, max: number) => L.readPage(root, max);

const SelectorOut = z
  .record(z.string(), z.string())
  .describe('Use as is as the selector of the next call: {"css": ...}, or {"role", "name"} or {"text"}.');

const Element = z.object({
  role: z.string().describe("What it is: link, button, textbox, checkbox, radio, combobox, ..."),
  name: z.string().optional().describe("Its label or text."),
  selector: SelectorOut.optional(),
  frame: z
    .array(z.object({ css: z.string() }))
    .optional()
    .describe("The frames it is in: enter each with switch (frame), outermost first, before using selector."),
  href: z.string().optional(),
  type: z.string().optional().describe("An input's type, when not plain text."),
  value: z.string().optional().describe("What the field holds."),
  filled: z
    .boolean()
    .optional()
    .describe("A password field: whether something is typed in it. Its value is never read."),
  checked: z.boolean().optional(),
  options: z.array(z.string()).optional().describe("A select's options, by label."),
  selected: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe("A select's chosen option(s)."),
  placeholder: z.string().optional(),
  expanded: z.boolean().optional(),
  required: z.boolean().optional(),
  disabled: z.boolean().optional(),
  readonly: z.boolean().optional(),
});

const ELEMENT_KEYS = Object.keys(Element.shape);

function ordered<T extends object>(o: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in o) out[k] = (o as Record<string, unknown>)[k];
  return out as T;
}

export const readPageAction = defineAction({
  name: "read_page",
  http: { method: "POST", path: "/browser/read" },
  title: "Read the page",
  description: [
    "See the current page the way you need it to act, without a screenshot: its headings, landmarks, visible text in reading order, and every interactive element (links with href, buttons, fields with their label, type and value, selects with options and the chosen one, checkboxes and radios with their state), each with a selector to pass as is to interact, write, extract or assert.",
    "Call it after navigate and after anything that changes the page, before acting; do not guess selectors.",
    "selector reads only part of the page (a form, a dialog, a landmark's selector); max_length caps the answer (default 20000 characters) and truncated says what was left out.",
    "Elements inside a frame carry frame: enter it with switch first. A password field's value is never returned, only whether it is filled.",
  ].join(" "),
  input: z.strictObject({
    selector: Selector.optional().describe("Read only this part of the page."),
    url: webUrl().optional().describe("Go to this page first."),
    max_length: z
      .number()
      .int()
      .min(2000)
      .max(500_000)
      .default(DEFAULT_MAX_LENGTH)
      .describe(`The most characters the answer may take (default ${DEFAULT_MAX_LENGTH}).`),
    timeout: timeoutField(),
  }),
  output: z.object({
    ...pageFields,
    headings: z.array(z.object({ level: z.number().int(), text: z.string() })),
    landmarks: z
      .array(z.object({ role: z.string(), name: z.string().optional(), selector: SelectorOut.optional() }))
      .describe(
        "The page's regions (banner, navigation, main, form...): pass one's selector to read only it.",
      ),
    text: z
      .string()
      .describe("The visible text in reading order; # marks headings, - list items, | table cells."),
    elements: z.array(Element),
    frames: z
      .array(z.object({ selector: SelectorOut, url: z.string(), readable: z.boolean() }))
      .optional()
      .describe(
        "The page's frames; readable ones are read into elements, the others need switch (frame) first.",
      ),
    truncated: z
      .string()
      .optional()
      .describe("Present when the page did not fit max_length: what was left out."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const tab = await ctx.browser.page();
    const about = { selector: input.selector };
    if (input.url !== undefined) await acting(about, () => tab.goto(input.url as string));
    const page = await acting(about, async () => {
      const root: NodeRef | null = input.selector
        ? await locate(tab, input.selector, { timeout: input.timeout })
        : null;
      return tab.call<ReadResult>(READ, root, input.max_length);
    });
    const { url, title } = await here(ctx, tab);
    // Keys in reading order (the Grid hands objects back with their keys sorted).
    return {
      url,
      title,
      headings: page.headings,
      landmarks: page.landmarks.map((l) => ordered(l, ["role", "name", "selector"])),
      text: page.text,
      elements: page.elements.map((e) => ordered(e, ELEMENT_KEYS)),
      ...(page.frames ? { frames: page.frames.map((f) => ordered(f, ["selector", "url", "readable"])) } : {}),
      ...(page.truncated ? { truncated: page.truncated } : {}),
    };
  },
});
