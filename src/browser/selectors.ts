// Selectors: one schema for every action that names an element, and the element as the page seeks
// it (a `Query`, as Playwright's locator): the page locates it with a wait, one sandbox call per poll
// (grid/page-input.ts `seek`; the page library finds, orders visible matches first, and says what
// is there instead when nothing matched); elements come back as BiDi node references.
import { z } from "zod";
import { type Problem, ruled } from "../actions/validate.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef, PageFn } from "../grid/page-call.ts";
import { whatIsThere as nearest } from "../grid/page-found.ts";
import { type PageMatch, type Query, seek as seekIn } from "../grid/page-input.ts";
import type { PageSelector } from "../in-page/index.ts";
import { textRegex } from "../in-page/selectors.ts";
import { quoteSelector } from "./failures.ts";
import { refPlace } from "./ref-places.ts";

export type { PageMatch, Query };

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

interface Matched extends PageMatch {
  els: NodeRef[];
}

/** Arguments every locating script gets (scripts may take more). */
export interface SeekArgs {
  max: number;
  scroll: boolean;
  visible: boolean;
}

/** The element `selector` names, as the page seeks it (a ref's document looked up where read_page noted it). */
export function query(page: Page, selector: Selector, opts: LocateOptions & { allowNone?: boolean }): Query {
  const sel = pageSelector(selector);
  const ref = "ref" in sel ? sel.ref : "within" in sel ? sel.within : undefined;
  const { timeout, visible, scroll, allowNone } = opts;
  return {
    given: selector,
    sel,
    quoted: quoteSelector(selector),
    field: opts.field ?? "selector",
    context: ref === undefined ? undefined : refPlace(page.held, ref, page.where.tab),
    timeout,
    visible,
    scroll,
    allowNone,
  };
}

/** A sentence or two on what the page holds nearest to what `selector` asked for ("" if it cannot tell). */
export const whatIsThere = (page: Page, selector: Selector): Promise<string> =>
  nearest(page, pageSelector(selector));

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
  return seekIn<T>(page, query(page, selector, opts), script, args);
}

/** The element `selector` names (the first visible match, else the first), waiting up to `timeout`. */
export async function locate(page: Page, selector: Selector, opts: LocateOptions): Promise<NodeRef> {
  const got = await seek<Matched>(page, selector, opts);
  return got.els[0] as NodeRef;
}
