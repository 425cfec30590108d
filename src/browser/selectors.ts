// Selectors: one schema for every action that names an element, and locating with a wait. Locating
// is one sandbox call per poll (the page library finds, orders visible matches first, and says what
// is there instead when nothing matched); elements come back as BiDi node references.
import { z } from "zod";
import { type Problem, ruled } from "../actions/validate.ts";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef, PageFn } from "../grid/page-call.ts";
import type { PageSelector } from "../in-page/index.ts";
import { type Found, textRegex } from "../in-page/selectors.ts";
import { quoteSelector } from "./failures.ts";
import { refPlace } from "./ref-places.ts";
import { frameHolding, frameSentence } from "./selectors-frames.ts";
import { keeping, noteLocator } from "./selectors-kept.ts";

const KINDS = ["ref", "css", "xpath", "text", "label", "role"] as const;
// The fields only one kind takes, in the order they are checked.
const ONLY_WITH = [
  ["exact", "text"],
  ["nth", "text"],
  ["within", "text"],
  ["name", "role"],
] as const;
const EXAMPLE = `e.g. {"ref": "e12"} from read_page, {"css": "#email"}, {"text": "Sign in"}, {"label": "Email"} or {"role": "button", "name": "Sign in"}`;

const part = (what: string) => z.string().min(1).max(2000).optional().describe(what);

const SelectorFields = z.strictObject({
  ref: z
    .string()
    .regex(/^[a-z]{1,2}[0-9]{1,7}$/, "must be a ref read_page gave, such as e12")
    .optional()
    .describe("A ref read_page gave (e12): that very element, on the page read_page read."),
  css: part('A CSS selector, as read_page gives them: #id, input[name="q"], form > button.'),
  xpath: part("An XPath expression."),
  text: part("The visible text of the element (a button, a link, a heading...).").meta({
    docs: "The visible text of the element (a button, a link, a heading...); written /pattern/flags, a regular expression its text matches (a search: the innermost elements whose text matches, e.g. /\\$\\d+\\.\\d\\d/ for prices).",
  }),
  exact: z
    .boolean()
    .optional()
    .describe(
      "With text: true (default) matches the whole text; false matches any element containing it, ignoring case.",
    ),
  nth: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe("With text: the n-th visible match in page order (1 = the first)."),
  within: z
    .strictObject({
      ref: z
        .string()
        .regex(/^[a-z]{1,2}[0-9]{1,7}$/, "must be a ref read_page gave, such as e12")
        .describe("A ref read_page gave."),
    })
    .optional()
    .describe('With text: only matches inside this element, {"ref": "e12"}.'),
  label: part("A form field by its label, aria-label or placeholder."),
  role: part("An ARIA role: button, link, textbox, checkbox, radio, combobox, heading, tab, menuitem..."),
  name: part("With role: the accessible name (exact, ignoring case; else contained)."),
});

export const Selector = ruled(SelectorFields, selectorProblem)
  // Shared: tools/list shows this line, not the whole shape, wherever a selector is taken.
  .describe(
    'Which element: {"ref": "e12"} from read_page, or one of css, xpath, text (+nth, within), label, role (+name), e.g. {"css": "#q"}.',
  )
  .meta({ shared: true });

export type Selector = z.infer<typeof Selector>;

/** What a selector names wrongly, or null: exactly one kind, the fields only its kind takes, text's pattern. */
export function selectorProblem(s: z.infer<typeof SelectorFields>): Problem | null {
  const given = KINDS.filter((k) => s[k] !== undefined);
  if (given.length !== 1)
    return { message: `must name exactly one of ref, css, xpath, text, label or role (${EXAMPLE})` };
  for (const [field, kind] of ONLY_WITH)
    if (s[field] !== undefined && given[0] !== kind)
      return { path: [field], message: `must only come with ${kind}` };
  if (s.text === undefined) return null;
  try {
    textRegex(s.text);
    return null;
  } catch (e) {
    return {
      path: ["text"],
      message: `is written /pattern/flags, a regular expression, but not a valid one (${(e as Error).message}): fix it, or give the text without the slashes`,
    };
  }
}

export const DEFAULT_TIMEOUT = 5;
export const timeoutField = () =>
  z
    .number()
    .min(0)
    .max(120)
    .default(DEFAULT_TIMEOUT)
    .describe("Seconds.")
    .meta({ docs: "Seconds to wait for the element to appear (default 5, at most 120)." });

/** The selector in the page library's shape (exactly one kind). */
export function pageSelector(s: Selector): PageSelector {
  if (s.ref !== undefined) return { ref: s.ref };
  if (s.css !== undefined) return { css: s.css };
  if (s.xpath !== undefined) return { xpath: s.xpath };
  if (s.text !== undefined) {
    const t: PageSelector = { text: s.text };
    if (s.exact !== undefined) t.exact = s.exact;
    if (s.nth !== undefined) t.nth = s.nth;
    if (s.within !== undefined) t.within = s.within.ref;
    return t;
  }
  if (s.label !== undefined) return { label: s.label };
  return s.name === undefined ? { role: s.role as string } : { role: s.role as string, name: s.name };
}

export interface LocateOptions {
  /** Seconds to wait. */
  timeout: number;
  /** Wait for a visible match (for what the user acts on); otherwise any match will do. */
  visible?: boolean;
  /** Scroll the element to the middle of the window (pointer actions need it in view). */
  scroll?: boolean;
  /** The input field the selector came from, for messages. */
  field?: string;
}

/** What a locating script reports; scripts may add their own fields. */
export interface PageMatch {
  total: number;
  visible: number;
  invalid?: Found["invalid"];
}

interface Matched extends PageMatch {
  els: NodeRef[];
}

/** Arguments every locating script gets (scripts may take more). */
export interface SeekArgs {
  max: number;
  scroll: boolean;
  visible: boolean;
}

const POLL_MS = [0, 50, 100, 200, 250];
/**
 * How long a selector may match nothing here before the frames are asked once: a match in one of
 * them (a payment or sign-in frame from another host) ends the wait, as nothing here would.
 */
const FRAMES_AFTER_MS = 1_000;
interface Framed {
  path: (string | null)[] | null;
  asked?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ready = (got: PageMatch, visible: boolean | undefined) => (visible ? got.visible > 0 : got.total > 0);

async function poll<T extends PageMatch>(
  page: Page,
  sel: PageSelector,
  opts: LocateOptions,
  script: PageFn,
  args: Record<string, unknown>,
  /** Set to the frames holding a match, when asking them ended the wait early. */
  framed: Framed | null = null,
): Promise<T> {
  const start = Date.now();
  const deadline = start + opts.timeout * 1000;
  const all = { max: 1, scroll: opts.scroll === true, visible: opts.visible === true, ...args };
  // A ref (or the ref a text is looked for within) acts in the document read_page saw it in, a frame
  // of this tab maybe: no switch needed. One whose frame went is looked for here, and said so.
  const ref = "ref" in sel ? sel.ref : "within" in sel ? sel.within : undefined;
  let context = (ref !== undefined ? refPlace(page.held, ref, page.where.tab) : undefined) ?? page.context;
  for (let i = 0; ; i++) {
    // Locating also marks the page for the gesture that follows (see page/leaving.ts).
    const [fn, ...first] = keeping(script, sel);
    const got = await page.armingIn<T>(context, fn, ...first, sel, all).catch((err: unknown) => {
      if (context === page.context) throw err;
      context = page.context;
      return page.armingIn<T>(context, fn, ...first, sel, all);
    });
    if (got.invalid?.kind === "ref")
      throw badInput(
        got.invalid.reason,
        `${opts.field ?? "selector"}${got.invalid.within ? ".within" : ""}.ref`,
      );
    if (got.invalid) {
      const kind = got.invalid.kind;
      const field = `${opts.field ?? "selector"}.${kind}`;
      throw badInput(
        `field "${field}" is not a valid ${kind === "css" ? "CSS selector" : "XPath expression"}: ${got.invalid.reason}`,
        field,
      );
    }
    if (ready(got, opts.visible) || Date.now() >= deadline) return got;
    if (framed && !framed.asked && got.total === 0 && Date.now() - start >= FRAMES_AFTER_MS) {
      framed.asked = true;
      framed.path = await frameHolding(page, sel).catch(() => null);
      if (framed.path) return got;
    }
    const wait = POLL_MS[Math.min(i + 1, POLL_MS.length - 1)] as number;
    await sleep(Math.max(0, Math.min(wait, deadline - Date.now())));
  }
}

const seconds = (t: number) => `${t} s`;

/** The 400 for a selector that matched nothing (or nothing visible) when the wait ran out. */
async function notMatched(
  page: Page,
  selector: Selector,
  got: PageMatch,
  opts: LocateOptions,
  /** The frames were asked during the wait and held nothing: not asked again. */
  framesAsked = false,
): Promise<Error> {
  const q = quoteSelector(selector);
  const field = opts.field ?? "selector";
  if (got.total > 0) {
    return badInput(
      `${q} matched ${got.total === 1 ? "1 element" : `${got.total} elements`} but none is visible after ${seconds(opts.timeout)}: it may be in a closed menu, a collapsed section or another tab. Reveal it first (hover or click what opens it), or call read_page to see what is visible`,
      field,
    );
  }
  if (selector.nth !== undefined) {
    const { nth: _, ...all } = pageSelector(selector) as { text: string; nth?: number };
    const shown = await page.call<number>("visibleMatches", all).catch(() => null);
    if (shown !== null && shown > 0)
      return badInput(
        `${q} asks for match ${selector.nth}, but the page shows ${shown === 1 ? "1 visible match" : `${shown} visible matches`} of that text after ${seconds(opts.timeout)}: give a smaller nth, or call read_page`,
        `${field}.nth`,
      );
  }
  const instead = await whatIsThere(page, selector, !framesAsked);
  return badInput(
    `nothing matched ${q} within ${seconds(opts.timeout)}.${instead ? ` ${instead}` : ""} Call read_page to see the page and its selectors`,
    field,
  );
}

/** A sentence or two on what the page holds nearest to what `selector` asked for ("" if it cannot tell). */
export async function whatIsThere(page: Page, selector: Selector, frames = true): Promise<string> {
  const sel = pageSelector(selector);
  const framed = frames ? await frameHolding(page, sel).catch(() => null) : null;
  if (framed) return frameSentence(framed);
  try {
    const h = await page.call<{ what: string; items: string[]; roles?: string[] }>("hints", sel);
    const raw = "css" in sel || "xpath" in sel;
    const items = raw ? h.items : h.items.map((i) => JSON.stringify(i));
    const out: string[] = [];
    if (items.length) out.push(`Nearest ${h.what} on the page: ${items.join(", ")}.`);
    if (h.roles?.length) out.push(`Roles on the page: ${h.roles.join(", ")}.`);
    if (!out.length) out.push(`The page has no ${h.what}.`);
    return out.join(" ");
  } catch {
    // the hint is a courtesy; a message stands without it
    return "";
  }
}

/**
 * Runs a locating `script` (a page function called as `script(selector, args)`) until it reports a
 * match (a visible one with opts.visible) or `timeout` runs out; then the "nothing matched" 400,
 * unless `allowNone`. Without a script: the default finder, which returns `els` (node refs).
 */
export async function seek<T extends PageMatch = Matched>(
  page: Page,
  selector: Selector,
  opts: LocateOptions & { allowNone?: boolean },
  script: PageFn = "located",
  args: Record<string, unknown> = {},
): Promise<T> {
  // Waiting for a match to come (allowNone) is not cut short by one elsewhere.
  const framed: Framed | null = opts.allowNone ? null : { path: null };
  const got = await poll<T>(page, pageSelector(selector), opts, script, args, framed);
  if (framed?.path)
    throw badInput(
      `nothing matched ${quoteSelector(selector)} in this document. ${frameSentence(framed.path)} Call read_page to see the page and its selectors`,
      opts.field ?? "selector",
    );
  if (!ready(got, opts.visible) && !opts.allowNone)
    throw await notMatched(page, selector, got, opts, framed?.asked === true);
  // A ref's element, as a locator a kept flow can use (selectors-kept.ts).
  noteLocator(page, selector, got);
  return got;
}

/** The element `selector` names (the first visible match, else the first), waiting up to `timeout`. */
export async function locate(page: Page, selector: Selector, opts: LocateOptions): Promise<NodeRef> {
  const got = await seek<Matched>(page, selector, opts);
  return got.els[0] as NodeRef;
}
