// interact: one element-level gesture per call (click, hover, select an option, check, press keys,
// drag...). Pointer and key gestures go through BiDi input with the element as origin; what the
// page would not get from a pointer (choosing a <select>'s option, HTML5 drag and drop, which
// WebDriver's pointer cannot complete in Chromium) is done in the sandbox with the page's own events.
import { z } from "zod";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import { hoverActions, type PointAt } from "../grid/page-input.ts";
import { defineAction } from "./define.ts";
import { acting } from "./failures.ts";
import { pageFields } from "./fields.ts";
import { FOCUS, HTML5_DRAG, pressKeys, selectOption, setChecked, target } from "./interact-gestures.ts";
import { dropOn, inViewport, setInputValue } from "./interact-inputs.ts";
import { clickChecked, dragTo, selectText } from "./interact-pointer.ts";
import { MODIFIER_NAMES, modifierCodes, parseKeys } from "./keys.ts";
import { armNavigation, dialogField, gesture, landed } from "./landing.ts";
import type { ActionContext } from "./ports.ts";
import { locate, Selector, timeoutField } from "./selectors.ts";

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export const INTERACTIONS = [
  "click",
  "double_click",
  "right_click",
  "hover",
  "focus",
  "scroll",
  "select",
  "check",
  "uncheck",
  "press",
  "drag",
  "drop",
  "select_text",
] as const;
type Interaction = (typeof INTERACTIONS)[number];

// Which extra field each gesture takes; every other extra field is refused.
const NEEDS: Partial<Record<Interaction, "value" | "keys" | "target">> = {
  select: "value",
  press: "keys",
  drag: "target",
};
const EXTRAS = ["value", "keys", "target"] as const;
/** The gestures a viewport point can take instead of a selector (drag: as its end), and those modifiers go with. */
const AT_POINT: readonly Interaction[] = ["click", "double_click", "right_click", "hover", "drag"];
const CLICKS: readonly Interaction[] = ["click", "double_click", "right_click"];
const coord = () => z.number().min(0).optional();

const Input = z
  .strictObject({
    action: z.enum(INTERACTIONS).meta({ docs: "The gesture (REST: the last path segment)." }),
    selector: Selector.optional().describe("The element (press without it: the focused one).").meta({
      docs: "The element to act on (required, except for press, which without it goes to the focused element).",
    }),
    target: Selector.optional().describe("drag: drop here; select_text: end here.").meta({
      docs: "drag: the element to drop onto (its middle, or position/offset by it). select_text: the text match where the selection ends (selector is where it starts).",
    }),
    position: z.enum(["before", "after", "top", "bottom"]).optional().meta({
      docs: "drag with target: end just above the target (before), just below it (after), or just inside its top or bottom edge (top, bottom); a sortable item lands before or after the target, or first or last in a list.",
    }),
    offset: z
      .strictObject({ x: z.number(), y: z.number() })
      .optional()
      .describe("drag: end {x, y} from target's top left.")
      .meta({
        docs: "drag with target: end at this point from the target's top left corner, {x, y} in CSS pixels.",
        shared: true,
      }),
    count: z.number().int().min(1).max(3).optional().describe("2 double, 3 triple click.").meta({
      docs: "click, double_click, right_click: how many clicks in a row (1–3; double_click's default is 2); 3 is a triple click, which selects a paragraph.",
    }),
    value: z.string().max(2000).optional().describe("select: an option or input value.").meta({
      docs: "select only: the option's visible label or its value; for a range, date, time or color input, its value (50, 2024-05-31, 13:45, #ff0000).",
    }),
    keys: z.string().max(1000).optional().describe('press: "Enter", "Control+a", "Tab Tab".').meta({
      docs: 'press only: keys separated by spaces, each a character or a name, with held modifiers joined by "+": "Enter", "Control+a", "Shift+Tab", "Tab Tab Enter".',
    }),
    modifiers: z.array(z.enum(MODIFIER_NAMES)).max(4).optional().describe("click: keys held.").meta({
      docs: "click, double_click, right_click: keys held during the click (the page sees ctrlKey...).",
    }),
    x: coord().describe("With y: a viewport point.").meta({
      docs: "click, double_click, right_click, hover: a point of the tab's viewport (CSS pixels from its top left) instead of a selector: canvases, maps. drag: the point where it ends, instead of a target. read_page boxes: true and extract get box give elements' boxes.",
    }),
    y: coord().meta({ docs: "With x: the point's distance from the viewport's top." }),
    files: z
      .array(z.string().min(1).max(2048))
      .max(20)
      .optional()
      .describe("drop: workspace uris.")
      .meta({ docs: "drop: workspace files (uris, as listings give them) the drop carries." }),
    data: z
      .record(z.string().max(100), z.string().max(100_000))
      .optional()
      .meta({ docs: 'drop: data by media type the drop carries, e.g. {"text/plain": "hi"}.' }),
    timeout: timeoutField(),
  })
  .superRefine((i, ctx) => {
    const need = NEEDS[i.action];
    const point = i.x !== undefined || i.y !== undefined;
    if (point) {
      if (!AT_POINT.includes(i.action))
        ctx.addIssue({ code: "custom", path: ["x"], message: `must only come with ${AT_POINT.join(", ")}` });
      else if (i.x === undefined || i.y === undefined)
        ctx.addIssue({
          code: "custom",
          path: [i.x === undefined ? "x" : "y"],
          message: "must be given with the other coordinate",
        });
      else if (i.action === "drag") {
        if (i.target !== undefined)
          ctx.addIssue({
            code: "custom",
            path: ["target"],
            message: "must not come with x and y: give one or the other",
          });
      } else if (i.selector !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["selector"],
          message: "must not come with x and y: give one or the other",
        });
    }
    if (i.count !== undefined && !CLICKS.includes(i.action))
      ctx.addIssue({ code: "custom", path: ["count"], message: `must only come with ${CLICKS.join(", ")}` });
    for (const f of ["position", "offset"] as const) {
      if (i[f] === undefined) continue;
      if (i.action !== "drag" || i.target === undefined)
        ctx.addIssue({ code: "custom", path: [f], message: "must only come with action drag and a target" });
    }
    if (i.position !== undefined && i.offset !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["offset"],
        message: "must not come with position: give one or the other",
      });
    if (i.modifiers !== undefined && !CLICKS.includes(i.action))
      ctx.addIssue({
        code: "custom",
        path: ["modifiers"],
        message: `must only come with ${CLICKS.join(", ")}`,
      });
    for (const f of ["files", "data"] as const) {
      if (i[f] !== undefined && i.action !== "drop")
        ctx.addIssue({ code: "custom", path: [f], message: "must only come with action drop" });
    }
    if (i.action === "drop" && !i.files?.length && i.data === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["files"],
        message: 'must be given for drop, or data: what the drop carries, e.g. {"text/plain": "hi"}',
      });
    if (i.selector === undefined && i.action !== "press" && (!point || i.action === "drag")) {
      ctx.addIssue({
        code: "custom",
        path: ["selector"],
        message: `must be given for ${i.action}: the element to act on (read_page lists selectors)${AT_POINT.includes(i.action) ? ", or x and y" : ""}`,
      });
    }
    for (const extra of EXTRAS) {
      // drag ends at a target or at x and y; select_text may end at a target.
      const optional = extra === "target" && ((i.action === "drag" && point) || i.action === "select_text");
      if (optional) continue;
      if (extra === need && i[extra] === undefined) {
        const what = {
          value: "an option's label or value",
          keys: 'the keys to press, e.g. "Enter"',
          target: "the element to drop onto, or x and y",
        }[extra];
        ctx.addIssue({ code: "custom", path: [extra], message: `must be given for ${i.action}: ${what}` });
      } else if (extra !== need && i[extra] !== undefined) {
        const owner =
          extra === "target"
            ? "drag or select_text"
            : Object.entries(NEEDS).find(([, f]) => f === extra)?.[0];
        ctx.addIssue({ code: "custom", path: [extra], message: `must only come with action ${owner}` });
      }
    }
    if (i.keys !== undefined) {
      const parsed = parseKeys(i.keys);
      if ("problem" in parsed)
        ctx.addIssue({ code: "custom", path: ["keys"], message: `must be valid: it ${parsed.problem}` });
    }
  });

const Output = z.object({
  ...pageFields,
  ...dialogField,
  selected: z
    .object({ label: z.string(), value: z.string() })
    .optional()
    .describe("select: the option now chosen."),
  checked: z.boolean().optional().describe("check/uncheck: the state now."),
  selection: z.string().optional().describe("select_text: the text now selected."),
  new_tab: z
    .number()
    .int()
    .optional()
    .describe("Present when it opened a tab: its index for switch; you stay here."),
});

type In = z.infer<typeof Input>;
type Out = z.infer<typeof Output>;

async function perform(
  ctx: ActionContext,
  page: Page,
  input: In,
): Promise<{ extra: Partial<Out>; before: number }> {
  const { action, timeout } = input;
  const sel = input.selector;
  let extra: Partial<Out> = {};
  let before = page.held.navigationCount;
  const act = async (fn: () => Promise<unknown>) => {
    before = await gesture(page, fn);
  };
  const at = async (): Promise<PointAt> =>
    input.x !== undefined && input.y !== undefined
      ? await inViewport(page, input.x, input.y)
      : await target(page, sel!, timeout);
  const ctxOf = (p: PointAt) => ("sharedId" in p ? p.context : page.where.tab);
  switch (action) {
    case "click":
    case "double_click":
    case "right_click": {
      const p = await at();
      const count = input.count ?? (action === "double_click" ? 2 : 1);
      const button = action === "right_click" ? 2 : 0;
      const modifiers = modifierCodes(input.modifiers ?? []);
      await act(() => clickChecked(page, p, { button, count, modifiers, selector: sel }));
      break;
    }
    case "hover": {
      const p = await at();
      await act(() => page.perform(ctxOf(p), [hoverActions(p)]));
      break;
    }
    case "focus": {
      const el = await locate(page, sel!, { timeout, visible: true });
      await act(() => page.callIn(el.context, FOCUS, el));
      break;
    }
    case "scroll":
      await locate(page, sel!, { timeout, visible: true, scroll: true });
      break;
    case "select": {
      const el = await locate(page, sel!, { timeout, visible: true });
      await act(async () => {
        extra = { selected: (await setInputValue(page, el, input)) ?? (await selectOption(page, el, input)) };
      });
      break;
    }
    case "drop": {
      const el = await target(page, sel!, timeout);
      await act(() => dropOn(ctx, page, el, input));
      break;
    }
    case "check":
    case "uncheck": {
      const el = await locate(page, sel!, { timeout });
      await act(async () => {
        extra = { checked: await setChecked(page, el, input, action === "check") };
      });
      break;
    }
    case "press": {
      const parsed = parseKeys(input.keys as string);
      if ("problem" in parsed) throw badInput(`field "keys" must be valid: it ${parsed.problem}`, "keys");
      const el = sel ? await locate(page, sel, { timeout, visible: true }) : null;
      await act(() => pressKeys(page, el, parsed.combos));
      break;
    }
    case "drag": {
      const from = await locate(page, sel!, { timeout, visible: true, scroll: true });
      const to = input.target
        ? await locate(page, input.target, { timeout, visible: true, field: "target" })
        : null;
      const point = to ? undefined : await inViewport(page, input.x as number, input.y as number);
      if (
        to &&
        !input.position &&
        !input.offset &&
        (await page.callIn<boolean>(from.context, HTML5_DRAG, from, to))
      )
        break;
      const end = { point, position: input.position, offset: input.offset };
      await act(() => dragTo(page, from, to, end, input));
      break;
    }
    case "select_text": {
      const start = await locate(page, sel!, { timeout, visible: true });
      const end = input.target
        ? await locate(page, input.target, { timeout, visible: true, field: "target" })
        : start;
      // A contained text match selects those words; an exact one, or any other selector, the whole element.
      const words = (s?: Selector) => (s?.text !== undefined && s.exact === false ? s.text : null);
      const span = { start: words(sel), end: words(input.target ?? sel) };
      await act(async () => {
        extra = { selection: cut(await selectText(page, start, end, span, input), 2000) };
      });
      break;
    }
  }
  return { extra, before };
}

/** Where `context` is in the browser's tab order (what switch takes), or -1. */
async function tabIndex(page: Page, context: string | null): Promise<number> {
  if (!context || page.prompt) return -1;
  const tabs = await page.tabs().catch(() => []);
  return tabs.findIndex((t) => t.context === context);
}

export const interact = defineAction({
  name: "interact",
  http: { method: "POST", path: "/browser/interact/{action}" },
  title: "Interact with an element",
  description: [
    "One gesture on one element, named by a selector from read_page. select picks a <select> option; check takes a styled box's label too.",
    "Type text with write; a custom dropdown: click it open, then the option.",
  ].join(" "),
  docs: [
    'action: click, double_click, right_click, hover, focus, scroll (into view), select (an option of a <select>, by its label or value; on a multiple select each call adds its option to those chosen), check or uncheck (a checkbox, radio button or switch; a styled one through its label), press (keys such as "Enter", "Control+a" or "Tab Tab Enter", on the element, or without a selector on whatever has focus), drag (onto target, at a position or offset by it, or to x and y; it walks there in small steps, so sortable lists follow), select_text (the whole text of selector, or from a text match to that of target: a press on the first character, a drag to the last), drop (workspace files and data onto a drop zone: dragenter, dragover and drop with one DataTransfer, fired from the server sandbox; a zone whose dragover is not cancelled refuses it).',
    "select also sets a range, date, time, datetime-local, month, week or color input (input and change follow; a value the input would clamp or drop is refused). click, double_click and right_click take modifiers held during the click and count (3: a triple click); they and hover take x and y, a point of the tab's viewport, instead of a selector.",
    "A click aims at the element's middle, or at the visible part nearest it when something covers the middle; the press is checked where it lands, and one another element takes (an overlay, a parent after a hover swapped the element) is stopped before the page sees it: a 400 names what took it and its ref.",
    'Name elements by the refs read_page gives ({"ref": "e12"}): call it first, and again after the page changes; do not guess selectors.',
    "It waits up to timeout seconds for a visible match. The result carries selected for select and checked for check and uncheck, and new_tab when the gesture opened a tab (window.open, a target=_blank link): its index for switch; later actions stay on this tab until you switch. A gesture that closes its own tab (a sign-in pop-up's Allow) answers the page of the tab that opened it, where later actions then act.",
    "Type text with write, not press; read with extract or read_page.",
  ].join(" "),
  input: Input,
  output: Output,
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const page = await ctx.browser.page();
    // Locating an element marks the page; a key press on the page locates nothing.
    if (!input.selector) await armNavigation(page);
    const popups = page.held.popups;
    const { extra, before } = await acting({ selector: input.selector }, () => perform(ctx, page, input));
    const out = await landed(page, before);
    const opened = page.held.popups > popups ? await tabIndex(page, page.held.lastPopup) : -1;
    return out.map((at) => ({ ...at, ...extra, ...(opened >= 0 ? { new_tab: opened } : {}) }));
  },
});
