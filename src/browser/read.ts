// read_page: the page as a model needs it to act, in parts. The page library walks the page once
// and keeps the walk in the document; each call describes one part (refs, names, state). The model
// reads the part as an indented outline (the MCP text block); programs get the same part as JSON.
import { z } from "zod";
import type { McpContent } from "../actions/action.ts";
import { defineAction } from "../actions/define.ts";
import { Box, pageFields, webUrl } from "../actions/fields.ts";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import { type Entry, type ReadElement, renderEntries } from "../in-page/render.ts";
import { isStale, mapDriverError } from "./failures.ts";
import { here } from "./landing.ts";
import { composeRead, type Step } from "./read-frames.ts";
import { placeOf } from "./ref-places.ts";
import { locate, Selector, timeoutField } from "./selectors.ts";

export const DEFAULT_MAX_LENGTH = 6_000;
/**
 * How long a read waits for a page just loaded to say its hints are sent, and for a few of another
 * document's to reach the sandbox (see grid/hint-relay.ts); its own (a few) go with its call; a flood
 * of them is not waited for, nor taken along.
 */
const HINT_WAIT_MS = 300;
const HINT_FEW = 200;
/**
 * How long a read waits for the requests the page's script sent in the last few seconds (fetch,
 * XHR: a list on its way to a skeleton) to end; older ones (a long poll) are not waited for.
 */
const FETCH_WAIT_MS = 1_000;
const FETCH_YOUNG_MS = 5_000;
/** After those ended, for the page to draw what came. */
const DRAW_MS = 60;

/**
 * Waits briefly for the tab's young script requests (fetch, XHR) to end; how many of the tab's are
 * still under way then (the page may still fill in).
 */
async function fetchesDone(tab: Page): Promise<number> {
  const held = tab.held;
  const ofTab = (c: string) => held.topOf(c) === tab.where.tab;
  const end = Date.now() + FETCH_WAIT_MS;
  let waited = false;
  while (held.logs.inFlight(ofTab, FETCH_YOUNG_MS) > 0 && Date.now() < end) {
    waited = true;
    await Bun.sleep(25);
  }
  if (waited) await Bun.sleep(DRAW_MS);
  return held.logs.inFlight(ofTab);
}

/** The outline rides along on the result for the MCP text block; JSON never sees a symbol key. */
export const OUTLINE = Symbol("outline");

const SelectorOut = z
  .record(z.string(), z.string())
  .describe(
    'For scripts and flows (a ref is better for the next call): {"css"}, {"role", "name"} or {"text"}.',
  );

const Element = z.object({
  ref: z.string().describe('Pass {"ref": ...} as the selector of the next call.'),
  role: z.string().describe("What it is: link, button, textbox, checkbox, radio, combobox, ..."),
  name: z.string().optional().describe("Its label or text."),
  selector: SelectorOut.optional(),
  frame: z
    .array(z.object({ css: z.string() }))
    .optional()
    .describe("Frames to switch into before using its selector (not its ref)."),
  href: z.string().optional().describe("A link's address, a picture's when no alt names it."),
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
  draggable: z.boolean().optional(),
  droppable: z.boolean().optional().describe("A drop target: drag onto it."),
  focused: z.boolean().optional(),
  color: z.string().optional(),
  at: z.string().optional().describe("A shape's place in its drawing: x,y,WxH."),
  box: Box.optional(),
});

const ELEMENT_KEYS = Object.keys(Element.shape);

function ordered<T extends object>(o: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in o) out[k] = (o as Record<string, unknown>)[k];
  return out as T;
}

const Output = z.object({
  ...pageFields,
  viewport: z
    .string()
    .optional()
    .describe("The tab's viewport in CSS pixels, WxH (what x and y gestures take)."),
  in_flight: z
    .number()
    .int()
    .optional()
    .describe(
      "Requests the page's script sent (fetch, XHR) still under way after a short wait: the page may still fill in; read again.",
    ),
  headings: z.array(z.object({ level: z.number().int(), text: z.string() })),
  landmarks: z
    .array(
      z.object({
        role: z.string(),
        name: z.string().optional(),
        ref: z.string(),
        selector: SelectorOut.optional(),
      }),
    )
    .describe(
      "The page's regions (banner, navigation, main, form...): pass one's ref as selector to read only it.",
    ),
  text: z
    .string()
    .describe("The part's visible text in reading order; # marks headings, - list items, | table cells."),
  elements: z.array(Element),
  frames: z
    .array(
      z.object({ ref: z.string(), selector: SelectorOut.optional(), url: z.string(), readable: z.boolean() }),
    )
    .optional()
    .describe("The page's frames, each read in (readable: false: it did not answer)."),
  next_cursor: z
    .string()
    .optional()
    .describe("Present when more of the page remains: pass it as cursor to read the next part."),
});
type Output = z.infer<typeof Output>;

// Fields whose element says their text through their name; a field's name is its label, already in the text.
const FIELDS = new Set(["textbox", "searchbox", "combobox", "listbox", "spinbutton", "slider"]);
const shown = (e: ReadElement) => (FIELDS.has(e.role) || e.type !== undefined ? "" : (e.name ?? ""));

/** The part as programs take it: headings, landmarks, text, elements and frames, each in page order. */
export function structured(entries: Entry[]): Omit<Output, "url" | "title"> {
  const out: Omit<Output, "url" | "title"> = { headings: [], landmarks: [], text: "", elements: [] };
  const lines: string[] = [];
  const frames: NonNullable<Output["frames"]> = [];
  for (const e of entries) {
    if (e.k === "landmark") {
      out.landmarks.push(ordered({ role: e.role, name: e.name, ref: e.ref, selector: e.selector }, LM_KEYS));
      continue;
    }
    if (e.k === "frame") {
      frames.push(
        ordered({ ref: e.ref, selector: e.selector, url: e.url, readable: e.readable }, FRAME_KEYS),
      );
      continue;
    }
    let text = "";
    for (const s of e.segs) {
      if (typeof s === "string") text += s;
      else {
        text += ` ${shown(s)} `;
        out.elements.push(ordered(s, ELEMENT_KEYS));
      }
    }
    text = text.replace(/\s+/g, " ").trim();
    if (e.h && text) out.headings.push({ level: e.h, text });
    if (text) lines.push(`${e.h ? `${"#".repeat(e.h)} ` : e.li ? "- " : ""}${text}`);
  }
  out.text = lines.join("\n");
  if (frames.length) out.frames = frames;
  return out;
}
const LM_KEYS = ["role", "name", "ref", "selector"];
const FRAME_KEYS = ["ref", "selector", "url", "readable"];

interface Carried {
  entries: Entry[];
  more?: { lines: number; elements: number };
}

/** What the model reads: where it is, the part as an outline, and how to go on. */
export function outline(result: Output, { entries, more }: Carried): string {
  const head = [`url: ${result.url}`, `title: ${result.title}`];
  if (result.viewport) head.push(`viewport: ${result.viewport}`);
  if (result.in_flight)
    head.push(
      `in_flight: ${result.in_flight} request${result.in_flight > 1 ? "s" : ""} of the page still loading: it may fill in more; read again shortly`,
    );
  if (result.site_data) head.push(`site_data: ${JSON.stringify(result.site_data)}`);
  if (result.page) head.push(`page: ${JSON.stringify(result.page)}`);
  const body = renderEntries(entries);
  const left = more ? `${more.lines} more lines, ${more.elements} more elements` : "more of the page";
  const tail = result.next_cursor
    ? `\n(${left}: read_page {"cursor": ${JSON.stringify(result.next_cursor)}})`
    : "";
  return `${head.join("\n")}\n${body}${tail}`;
}

const CURSOR_FORMAT = /^[a-z0-9]{6}\.\d{1,9}\.\d{1,9}$/;

export const readPageAction = defineAction({
  name: "read_page",
  http: { method: "POST", path: "/browser/read" },
  title: "Read the page",
  description: [
    'The page as an outline in reading order: headings, landmarks, text, pictures and everything to act on (links, fields, anything clickable or draggable), each with a ref (e12) and state, frames included. Pass {"ref": "e12"} as selector to the other tools, a frame\'s too.',
    "Read again after the page changes; refs last until it navigates.",
    "A long page comes in parts: pass next_cursor as cursor; selector reads one part.",
  ].join(" "),
  docs: "The MCP text block is the outline (`- link \"Sign in\" [e12] /login`, `## Heading`, text lines, indented under their landmark or frame), under a header: url, title, the tab's viewport in CSS pixels (`viewport: 1280x720`, what x and y gestures take) and, when requests the page's script sent (fetch, XHR) are still under way, how many (`in_flight`: a skeleton whose list is on its way; read again shortly). A read waits up to 1 s for such requests sent in the last 5 s to end first (a long poll is not waited for); structuredContent, and REST, carry the same part as JSON, each element with a CSS (or role and name) selector too, for scripts and flows, which cannot hold a ref. A ref resolves to the very element read_page saw, without a new search, for as long as the element stays on the page; the same element keeps its ref across reads of the same document. After a navigation or reload, or once the element is gone, a ref is a 400 that says to call read_page again. Every frame's content, same-origin or not (a payment form from another host), is read into the one outline under its frame line, and a ref of it acts from wherever the agent is in the tab, without a switch; a CSS selector of a frame's element works once you switch into each frame its `frame` lists. A frame that does not answer within 3 s is listed unread (readable: false). max_length is the most characters of outline in one part; a part may end inside a frame, and its cursor goes on from there; a cursor from before a navigation is a 400. The element that has the focus is marked focused. Besides native controls and roles, it lists what the page made clickable: an element the page's script gave a click, pointer or drop listener (addEventListener or an on… property: a preload script in the page's own world records which elements got one, as a hint that only ever adds an element to the outline; a listener on something bigger than a quarter of the window, a framework's root, does not count), the top of a region with a pointer cursor, an inline handler (onclick, a framework's click attribute), an anchor without href, a tabindex=-1 item with a short text (role clickable; an icon without text, or a button with nothing else to name it, is an icon button named from its class or picture); inside such a region, what has a listener or handler of its own and items alike side by side (a menu's entries, a mail's Reply and Forward, a folder's files) get refs of their own, the region named by its own text. Drag handles (draggable, aria-grabbed, a draggable or sortable aria-roledescription, jQuery UI's draggable and sortable items, a grab or move cursor) are marked draggable, and drop targets (aria-dropeffect, jQuery UI's droppables, an ondrop handler, a drop or dragover listener) droppable. Pictures: an img by its alt (`img \"A grey cat\"`), or its address when it has none (decorative ones, alt=\"\", and spacers are left out); an SVG icon by its title; an SVG drawing by its shapes (rect, circle, path, text…), each with its colour and place in the drawing (`circle [e5] color=#1e90ff(blue) at=120,10,60x60`: x, y, width, height from the drawing's top left), at most 30 a drawing; a coloured box with no text (a swatch) as `box [e7] color=red`, and an element listed with no name with its colour. Text a person cannot see is left out: display: none, visibility, opacity: 0, a font size of 0, and what an opaque element paints over in the viewport (a sticky header or a cookie bar does not count: the page scrolls out from under it); so are elements that are painted over. Closed shadow roots a script made (attachShadow) are read as open ones, the hints reaching them; a declarative one written in the HTML is not. A select lists its first 25 options; read_page with the select's ref as selector lists every one, a line each. boxes: true adds each element's box (viewport CSS pixels, its frame's in a frame), the outline writing box=x,y,WxH.",
  input: z
    .strictObject({
      selector: Selector.optional().describe("Read only this part."),
      url: webUrl().optional().describe("Go here first."),
      cursor: z.string().max(64).optional().describe("next_cursor of the last read."),
      max_length: z
        .number()
        .int()
        .min(2000)
        .max(500_000)
        .default(DEFAULT_MAX_LENGTH)
        .describe("Characters per part."),
      boxes: z.boolean().optional().describe("Elements' boxes too.").meta({
        docs: "Add each element's box: x, y, width and height in CSS pixels of the viewport (its frame's, in a frame), as the page is scrolled now; the outline writes it box=x,y,WxH. For x and y gestures.",
      }),
      timeout: timeoutField(),
    })
    .superRefine((i, ctx) => {
      if (i.cursor === undefined) return;
      if (!CURSOR_FORMAT.test(i.cursor))
        ctx.addIssue({
          code: "custom",
          path: ["cursor"],
          message: "must be a next_cursor read_page gave, as is",
        });
      for (const f of ["selector", "url"] as const)
        if (i[f] !== undefined)
          ctx.addIssue({
            code: "custom",
            path: [f],
            message: "must not come with cursor: a cursor goes on with the read it came from",
          });
    }),
  output: Output,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const tab = await ctx.browser.page();
    const about = { selector: input.selector };
    // A failure is said where it is caught; a read that met an element the page replaced runs once more.
    const said = (err: unknown) => Promise.reject(mapDriverError(err, about));
    if (input.url !== undefined) await tab.goto(input.url).catch(said);
    // Right after a switch into a tab or a frame still loading, its document is read once it is
    // interactive (the one it replaces is about to go); then the hints of a page that just got a few.
    await tab.held.navigationOver(tab.context, input.timeout * 1000, true);
    await tab.usable();
    const hints = tab.held.hints;
    await hints.reported(tab.context, HINT_WAIT_MS);
    // Another document's (a same-origin frame's) are handed over first; this one's go with its read.
    await hints.handOver(HINT_WAIT_MS, HINT_FEW, tab.context);
    const inFlight = await fetchesDone(tab);
    const floor = ctx.browser.refFloors.floor(tab.held);
    const goOn = hints.pauseFor();
    const claim = hints.claim(tab.context, HINT_FEW);
    const compose = async () => {
      const root: NodeRef | null = input.selector
        ? await locate(tab, input.selector, { timeout: input.timeout })
        : null;
      // A cursor goes on in the document it came from (a frame's, maybe); a root is read where it is.
      const cursor = input.cursor;
      const context =
        (cursor !== undefined ? placeOf(tab.held, `cur:${cursor.slice(0, 6)}`, tab.where.tab) : null) ??
        root?.context ??
        tab.context;
      const start: Step = { context, root };
      if (cursor !== undefined) start.cursor = cursor;
      return composeRead(tab, start, { max: input.max_length, floor, boxes: input.boxes, hints: claim });
    };
    const got = await compose()
      .catch((err: unknown) => (isStale(err) ? compose() : Promise.reject(err)))
      .catch((err: unknown) => {
        claim?.giveBack();
        return said(err);
      })
      .finally(goOn);
    if ("stale" in got) throw badInput(got.stale, "cursor");
    ctx.browser.refFloors.raise(tab.held, got.high);
    const [{ url, title }, viewport] = await Promise.all([
      here(tab, ctx.effects),
      tab.callIn<string>(tab.where.tab, "viewportSize").catch(() => undefined),
    ]);
    const result: Output = { url, title, ...structured(got.entries) };
    if (viewport) result.viewport = viewport;
    if (inFlight) result.in_flight = inFlight;
    if (got.next) result.next_cursor = got.next;
    const carried: Carried = { entries: got.entries };
    if (got.more) carried.more = got.more;
    return Object.assign(result, { [OUTLINE]: carried });
  },
  mcpContent: (result): McpContent => {
    const { [OUTLINE]: carried, ...rest } = result as Output & { [OUTLINE]?: Carried };
    if (!carried) return { blocks: [], structured: rest };
    return { blocks: [{ type: "text", text: outline(rest, carried) }], structured: rest, json: false };
  },
});
