// interact: one element-level gesture per call (click, hover, select an option, check, press keys,
// drag...). Pointer and key gestures go through BiDi input with the element as origin; what the
// page would not get from a pointer (choosing a <select>'s option, HTML5 drag and drop, which
// WebDriver's pointer cannot complete in Chromium) is done in the sandbox with the page's own events.
import { z } from "zod";
import { badInput } from "../errors.ts";
import type { NodeRef, Page } from "../grid/page.ts";
import type { PageLib, PageSelector } from "../page/index.ts";
import { defineAction, pageFields } from "./define.ts";
import { acting, coveredError } from "./failures.ts";
import { type Combo, parseKeys } from "./keys.ts";
import { armNavigation, dialogField, gesture, landed } from "./page/state.ts";
import { locate, type PageMatch, type SeekArgs, Selector, seek, timeoutField } from "./selectors.ts";

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
] as const;
type Interaction = (typeof INTERACTIONS)[number];

// Which extra field each gesture takes; every other extra field is refused.
const NEEDS: Partial<Record<Interaction, "value" | "keys" | "target">> = {
  select: "value",
  press: "keys",
  drag: "target",
};
const EXTRAS = ["value", "keys", "target"] as const;

const Input = z
  .strictObject({
    action: z.enum(INTERACTIONS).meta({ docs: "The gesture (REST: the last path segment)." }),
    selector: Selector.optional().describe("The element (press without it: the focused one).").meta({
      docs: "The element to act on (required, except for press, which without it goes to the focused element).",
    }),
    target: Selector.optional()
      .describe("drag: the element to drop onto.")
      .meta({ docs: "drag only: the element to drop onto." }),
    value: z
      .string()
      .max(2000)
      .optional()
      .describe("select: the option's label or value.")
      .meta({ docs: "select only: the option's visible label or its value." }),
    keys: z
      .string()
      .max(1000)
      .optional()
      .describe('press: e.g. "Enter", "Control+a", "Tab Tab Enter".')
      .meta({
        docs: 'press only: keys separated by spaces, each a character or a name, with held modifiers joined by "+": "Enter", "Control+a", "Shift+Tab", "Tab Tab Enter".',
      }),
    timeout: timeoutField(),
  })
  .superRefine((i, ctx) => {
    const need = NEEDS[i.action];
    if (i.selector === undefined && i.action !== "press") {
      ctx.addIssue({
        code: "custom",
        path: ["selector"],
        message: `must be given for ${i.action}: the element to act on (read_page lists selectors)`,
      });
    }
    for (const extra of EXTRAS) {
      if (extra === need && i[extra] === undefined) {
        const what = {
          value: "an option's label or value",
          keys: 'the keys to press, e.g. "Enter"',
          target: "the element to drop onto",
        }[extra];
        ctx.addIssue({ code: "custom", path: [extra], message: `must be given for ${i.action}: ${what}` });
      } else if (extra !== need && i[extra] !== undefined) {
        const owner = Object.entries(NEEDS).find(([, f]) => f === extra)?.[0];
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
});

type In = z.infer<typeof Input>;
type Out = z.infer<typeof Output>;

// ---- page-side helpers ----------------------------------------------------------------------

interface OptionPick {
  problem?: string;
  label?: string;
  value?: string;
  selected?: boolean;
  disabled?: boolean;
  options?: string[];
}

// Chooses the option as a person would (the pick, then input and change); WebDriver's own option
// click does the same. `dry` only finds it.
const PICK_OPTION = (L: PageLib, el: Element, want: string, dry: boolean): unknown => {
  let select: Element | null = el;
  if (el.tagName !== "SELECT") {
    const inner = el.tagName === "LABEL" ? (el as HTMLLabelElement).control : null;
    const nested = el.querySelectorAll("select");
    select = inner?.tagName === "SELECT" ? inner : nested.length === 1 ? (nested[0] as Element) : null;
  }
  if (!select) return { problem: `not-select:${el.tagName.toLowerCase()}:${L.roleOf(el) ?? ""}` };
  const opts = Array.from((select as HTMLSelectElement).options);
  const label = (o: HTMLOptionElement) => L.norm(o.label || o.text);
  const w = L.norm(want);
  const lw = w.toLowerCase();
  const pick =
    opts.find((o) => label(o) === w) ??
    opts.find((o) => o.value === want) ??
    opts.find((o) => label(o).toLowerCase() === lw) ??
    opts.find((o) => label(o).toLowerCase().includes(lw));
  if (!pick) return { problem: "no-option", options: opts.slice(0, 15).map(label) };
  const out = { label: label(pick), value: pick.value, selected: pick.selected, disabled: pick.disabled };
  if (dry || pick.selected || pick.disabled) return out;
  const s = select as HTMLSelectElement;
  if (!s.multiple) for (const o of opts) o.selected = o === pick;
  else pick.selected = true;
  s.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  s.dispatchEvent(new Event("change", { bubbles: true }));
  return out;
};

interface Checkable {
  problem?: string;
  checked?: boolean;
  radio?: boolean;
  click?: NodeRef;
  label?: NodeRef | null;
  /** What covers `click`'s middle, when something does (the label then takes the click). */
  covered?: boolean;
}

// Finds what to check: the element, the control of a label, or the one checkbox/radio inside it; and
// what to click for it: the control when it shows, else its label (custom-styled checkboxes).
const CHECKABLE = (L: PageLib, el: Element): unknown => {
  const isBox = (e: Element) =>
    (e.tagName === "INPUT" && ["checkbox", "radio"].includes((e as HTMLInputElement).type)) ||
    ["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(L.roleOf(e) ?? "");
  let box: Element | null = isBox(el) ? el : null;
  if (!box && el.tagName === "LABEL") {
    const c = (el as HTMLLabelElement).control;
    if (c && isBox(c)) box = c;
  }
  if (!box) {
    const inner = Array.from(
      el.querySelectorAll(
        "input[type=checkbox],input[type=radio],[role=checkbox],[role=switch],[role=radio]",
      ),
    );
    if (inner.length === 1) box = inner[0] as Element;
  }
  if (!box) return { problem: `${el.tagName.toLowerCase()}:${L.roleOf(el) ?? ""}` };
  const input = box.tagName === "INPUT" ? (box as HTMLInputElement) : null;
  const checked = input ? input.checked : box.getAttribute("aria-checked") === "true";
  const radio = input ? input.type === "radio" : (L.roleOf(box) ?? "").endsWith("radio");
  const labels = input?.labels ? Array.from(input.labels).filter(L.isVisible) : [];
  const label = labels[0] ?? (el !== box && L.isVisible(el) ? el : null);
  const click = L.isVisible(box) ? box : label;
  if (click) click.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const covered =
    !!click &&
    (() => {
      const r = click.getClientRects()[0];
      if (!r) return false;
      const top = (click.getRootNode() as Document | ShadowRoot).elementFromPoint(
        r.left + r.width / 2,
        r.top + r.height / 2,
      );
      return (
        !!top && top !== click && !click.contains(top) && !(label && (top === label || label.contains(top)))
      );
    })();
  return { checked, radio, click, label, covered };
};

const READ_CHECKED = (_L: PageLib, el: Element): boolean => {
  const box =
    el.tagName === "LABEL" && (el as HTMLLabelElement).control
      ? ((el as HTMLLabelElement).control as Element)
      : el.matches(
            "input[type=checkbox],input[type=radio],[role=checkbox],[role=switch],[role=radio],[role=menuitemcheckbox],[role=menuitemradio]",
          )
        ? el
        : (el.querySelector(
            "input[type=checkbox],input[type=radio],[role=checkbox],[role=switch],[role=radio]",
          ) ?? el);
  return box.tagName === "INPUT"
    ? (box as HTMLInputElement).checked
    : box.getAttribute("aria-checked") === "true";
};

interface Target extends PageMatch {
  els: NodeRef[];
  /** What sits on top of the element's middle, where the pointer goes (a click would reach it). */
  cover?: string | null;
}

// Locates for a pointer gesture: scrolled to the middle of the window, and what covers it, checked
// where WebDriver's element click checks it (the middle of its first box).
const TARGET = (L: PageLib, sel: PageSelector, opts: SeekArgs): unknown => {
  const found = L.find(sel);
  if (found.invalid) return { els: [], visible: 0, total: 0, invalid: found.invalid };
  const base = { visible: found.visible, total: found.els.length };
  const el = found.els[0];
  if (!el || (opts.visible && !found.visible)) return { ...base, els: [] };
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const r = el.getClientRects()[0];
  let cover: string | null = null;
  if (r) {
    // Asked of the element's own root, so an element in a shadow tree is not its host's cover.
    const root = el.getRootNode() as Document | ShadowRoot;
    const top = root.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (top && top !== el && !el.contains(top) && !el.shadowRoot?.contains(top)) {
      const css = L.cssFor(top);
      cover = css ? `${L.describe(top)} (${JSON.stringify({ css })})` : L.describe(top);
    }
  }
  return { ...base, els: [el], cover };
};

const FOCUS = (_L: PageLib, el: HTMLElement) => {
  el.focus();
  return el.ownerDocument.activeElement === el;
};

// HTML5 drag and drop as the browser would fire it, with one DataTransfer shared by every event.
const HTML5_DRAG = (_L: PageLib, src: Element, dst: Element): boolean => {
  const draggable = src.closest("[draggable=true]");
  if (!draggable) return false;
  const data = new DataTransfer();
  const at = (el: Element) => {
    const r = el.getBoundingClientRect();
    return { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
  };
  const fire = (el: Element, type: string, pos: { clientX: number; clientY: number }) =>
    el.dispatchEvent(
      new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: data, ...pos }),
    );
  const from = at(draggable);
  const to = at(dst);
  fire(draggable, "dragstart", from);
  fire(dst, "dragenter", to);
  const accepted = !fire(dst, "dragover", to);
  if (accepted) fire(dst, "drop", to);
  else fire(dst, "dragleave", to);
  fire(draggable, "dragend", to);
  return true;
};

// ---- the gestures ---------------------------------------------------------------------------

async function pressKeys(page: Page, el: NodeRef | null, combos: Combo[]): Promise<void> {
  // On an element: it takes the focus first, as WebDriver's typing does.
  if (el) await page.callIn(el.context, FOCUS, el);
  await page.keys(el?.context ?? page.context, combos);
}

async function selectOption(page: Page, el: NodeRef, input: In): Promise<Out["selected"]> {
  const q = JSON.stringify(input.selector);
  const pick = await page.callIn<OptionPick>(el.context, PICK_OPTION, el, input.value, true);
  if (pick.problem?.startsWith("not-select")) {
    const [, tag, role] = pick.problem.split(":");
    throw badInput(
      `${q} is a <${tag}>${role ? ` (${role})` : ""}, not a <select>: for a custom dropdown, click it to open the list, then click the option`,
      "selector",
    );
  }
  if (pick.problem === "no-option") {
    const list = (pick.options ?? []).map((o) => JSON.stringify(o)).join(", ");
    throw badInput(
      `${q} has no option labelled or valued ${JSON.stringify(input.value)}; its options: ${list}`,
      "value",
    );
  }
  if (pick.disabled) throw badInput(`the option ${JSON.stringify(pick.label)} of ${q} is disabled`, "value");
  if (!pick.selected) await page.callIn(el.context, PICK_OPTION, el, input.value, false);
  return { label: pick.label as string, value: pick.value as string };
}

async function setChecked(page: Page, el: NodeRef, input: In, want: boolean): Promise<boolean> {
  const q = JSON.stringify(input.selector);
  const c = await page.callIn<Checkable>(el.context, CHECKABLE, el);
  if (c.problem) {
    const [tag, role] = c.problem.split(":");
    throw badInput(
      `${q} is a <${tag}>${role ? ` (${role})` : ""}, not a checkbox, radio button or switch`,
      "selector",
    );
  }
  if (c.checked === want) return want;
  if (!want && c.radio) {
    throw badInput(
      `${q} is a radio button: it cannot be unchecked; check another option of its group instead`,
      "selector",
    );
  }
  if (!c.click) throw badInput(`${q} is hidden and has no visible label to click`, "selector");
  // A styled checkbox often sits under its own label's decoration: the label takes the click.
  await page.click(c.covered && c.label ? c.label : c.click);
  const now = await page.callIn<boolean>(el.context, READ_CHECKED, el);
  if (now !== want) {
    throw badInput(
      `clicking ${q} did not ${want ? "check" : "uncheck"} it: the page kept it ${now ? "checked" : "unchecked"}`,
      "selector",
    );
  }
  return now;
}

/** The element a pointer gesture goes to, in view; a 400 when something else would get the pointer. */
async function target(page: Page, selector: Selector, timeout: number, field?: string): Promise<NodeRef> {
  const got = await seek<Target>(page, selector, { timeout, visible: true, field }, TARGET);
  if (got.cover) throw coveredError({ selector, field }, got.cover);
  return got.els[0] as NodeRef;
}

async function perform(page: Page, input: In): Promise<{ extra: Partial<Out>; before: number }> {
  const { action, timeout } = input;
  const sel = input.selector;
  let extra: Partial<Out> = {};
  let before = page.held.navigationCount;
  const act = async (fn: () => Promise<unknown>) => {
    before = await gesture(page, fn);
  };
  switch (action) {
    case "click": {
      const el = await target(page, sel!, timeout);
      await act(() => page.click(el));
      break;
    }
    case "double_click":
    case "right_click": {
      const el = await target(page, sel!, timeout);
      await act(() =>
        action === "double_click" ? page.click(el, { count: 2 }) : page.click(el, { button: 2 }),
      );
      break;
    }
    case "hover": {
      const el = await target(page, sel!, timeout);
      await act(() => page.hover(el));
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
        extra = { selected: await selectOption(page, el, input) };
      });
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
      const to = await locate(page, input.target!, { timeout, visible: true, field: "target" });
      if (await page.callIn<boolean>(from.context, HTML5_DRAG, from, to)) break;
      await act(() => page.drag(from, to));
      break;
    }
  }
  return { extra, before };
}

export const interact = defineAction({
  name: "interact",
  http: { method: "POST", path: "/browser/interact/{action}" },
  title: "Interact with an element",
  description: [
    "One gesture on one element, named by a selector from read_page. select picks a <select> option; check and uncheck take a styled box's label too.",
    "Waits for a visible match; a failure says what the page has instead, or what covers it.",
    "Returns the url and title after (a click that navigates: the new page). Type text with write; for a custom dropdown, click it open, then the option.",
  ].join(" "),
  docs: [
    'action: click, double_click, right_click, hover, focus, scroll (into view), select (an option of a <select>, by its label or value), check or uncheck (a checkbox, radio button or switch; a styled one through its label), press (keys such as "Enter", "Control+a" or "Tab Tab Enter", on the element, or without a selector on whatever has focus), drag (onto target).',
    'Name elements by the refs read_page gives ({"ref": "e12"}): call it first, and again after the page changes; do not guess selectors.',
    "It waits up to timeout seconds for a visible match. The result carries selected for select and checked for check and uncheck.",
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
    const { extra, before } = await acting({ selector: input.selector }, () => perform(page, input));
    return { ...(await landed(ctx, page, before)), ...extra };
  },
});
