// interact: one element-level gesture per call (click, hover, select an option, check, press keys,
// drag...). Pointer gestures go through W3C actions; HTML5 drag and drop, which WebDriver's pointer
// cannot complete in Chromium, is dispatched as drag events in the page.
import { Button, type WebDriver, type WebElement, error as wd } from "selenium-webdriver";
import { z } from "zod";
import { badInput } from "../errors.ts";
import { defineAction, pageFields } from "./define.ts";
import { acting, coveredError } from "./failures.ts";
import { type Combo, parseKeys, sendKeysText } from "./keys.ts";
import type { PageLib } from "./page/lib.ts";
import { pageScript, runPage } from "./page/run.ts";
import { armNavigation, dialogField, landed } from "./page/state.ts";
import { locate, Selector, timeoutField } from "./selectors.ts";

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
  option?: WebElement;
  label?: string;
  value?: string;
  selected?: boolean;
  disabled?: boolean;
  options?: string[];
}

const PICK_OPTION = pageScript((L: PageLib, el: Element, want: string): unknown => {
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
  return {
    option: pick,
    label: label(pick),
    value: pick.value,
    selected: pick.selected,
    disabled: pick.disabled,
  };
});

interface Checkable {
  problem?: string;
  checked?: boolean;
  radio?: boolean;
  click?: WebElement;
  label?: WebElement | null;
}

// Finds what to check: the element, the control of a label, or the one checkbox/radio inside it; and
// what to click for it: the control when it shows, else its label (custom-styled checkboxes).
const CHECKABLE = pageScript((L: PageLib, el: Element): unknown => {
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
  return { checked, radio, click, label };
});

const READ_CHECKED = pageScript((_L: PageLib, el: Element): boolean => {
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
});

// What sits on top of el's middle: the element a click there would reach instead.
const COVER = pageScript((L: PageLib, el: Element): string | null => {
  const r = el.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (!top || top === el || el.contains(top)) return null;
  const css = L.cssFor(top);
  return css ? `${L.describe(top)} (${JSON.stringify({ css })})` : L.describe(top);
});

const FOCUS = pageScript((_L: PageLib, el: HTMLElement) => {
  el.focus();
  return document.activeElement === el;
});

// HTML5 drag and drop as the browser would fire it, with one DataTransfer shared by every event.
const HTML5_DRAG = pageScript((_L: PageLib, src: Element, dst: Element): boolean => {
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
});

// ---- the gestures ---------------------------------------------------------------------------

async function pressKeys(driver: WebDriver, el: WebElement | null, combos: Combo[]): Promise<void> {
  if (el) {
    try {
      await el.sendKeys(sendKeysText(combos));
      return;
    } catch (err) {
      if (!(err instanceof wd.ElementNotInteractableError)) throw err;
      // Not a field: focus it and press on the page instead.
      await runPage(driver, FOCUS, el);
    }
  }
  const a = driver.actions();
  for (const c of combos) {
    for (const m of c.modifiers) a.keyDown(m);
    a.keyDown(c.key).keyUp(c.key);
    for (const m of [...c.modifiers].reverse()) a.keyUp(m);
  }
  await a.perform();
}

async function selectOption(driver: WebDriver, el: WebElement, input: In): Promise<Out["selected"]> {
  const pick = await runPage<OptionPick>(driver, PICK_OPTION, el, input.value);
  const q = JSON.stringify(input.selector);
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
  if (!pick.selected) await (pick.option as WebElement).click();
  return { label: pick.label as string, value: pick.value as string };
}

async function setChecked(driver: WebDriver, el: WebElement, input: In, want: boolean): Promise<boolean> {
  const q = JSON.stringify(input.selector);
  const c = await runPage<Checkable>(driver, CHECKABLE, el);
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
  try {
    await c.click.click();
  } catch (err) {
    // A styled checkbox often sits under its own label's decoration: the label takes the click.
    if (!(err instanceof wd.ElementClickInterceptedError) || !c.label) throw err;
    await c.label.click();
  }
  const now = await runPage<boolean>(driver, READ_CHECKED, el);
  if (now !== want) {
    throw badInput(
      `clicking ${q} did not ${want ? "check" : "uncheck"} it: the page kept it ${now ? "checked" : "unchecked"}`,
      "selector",
    );
  }
  return now;
}

async function perform(driver: WebDriver, input: In): Promise<Partial<Out>> {
  const { action, timeout } = input;
  const sel = input.selector;
  switch (action) {
    case "click": {
      const el = await locate(driver, sel!, { timeout, visible: true });
      try {
        await el.click();
      } catch (err) {
        if (!(err instanceof wd.ElementClickInterceptedError)) throw err;
        throw coveredError(
          { selector: sel },
          await runPage<string | null>(driver, COVER, el).catch(() => null),
        );
      }
      return {};
    }
    case "double_click":
    case "right_click": {
      const el = await locate(driver, sel!, { timeout, visible: true, scroll: true });
      const a = driver.actions().move({ origin: el, duration: 0 });
      if (action === "double_click") a.press().release().press().release();
      else a.press(Button.RIGHT).release(Button.RIGHT);
      await a.perform();
      return {};
    }
    case "hover": {
      const el = await locate(driver, sel!, { timeout, visible: true, scroll: true });
      await driver.actions().move({ origin: el, duration: 0 }).perform();
      return {};
    }
    case "focus":
      await runPage(driver, FOCUS, await locate(driver, sel!, { timeout, visible: true }));
      return {};
    case "scroll":
      await locate(driver, sel!, { timeout, visible: true, scroll: true });
      return {};
    case "select":
      return {
        selected: await selectOption(driver, await locate(driver, sel!, { timeout, visible: true }), input),
      };
    case "check":
    case "uncheck":
      return {
        checked: await setChecked(driver, await locate(driver, sel!, { timeout }), input, action === "check"),
      };
    case "press": {
      const parsed = parseKeys(input.keys as string);
      if ("problem" in parsed) throw badInput(`field "keys" must be valid: it ${parsed.problem}`, "keys");
      const el = sel ? await locate(driver, sel, { timeout, visible: true }) : null;
      await pressKeys(driver, el, parsed.combos);
      return {};
    }
    case "drag": {
      const from = await locate(driver, sel!, { timeout, visible: true, scroll: true });
      const to = await locate(driver, input.target!, { timeout, visible: true, field: "target" });
      if (await runPage<boolean>(driver, HTML5_DRAG, from, to)) return {};
      // A pointer drag: press, nudge past drag thresholds, travel, release.
      await driver
        .actions()
        .move({ origin: from, duration: 0 })
        .press()
        .move({ origin: from, x: 5, y: 5, duration: 50 })
        .move({ origin: to, duration: 150 })
        .release()
        .perform();
      return {};
    }
  }
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
    "Name elements with the selectors read_page returns: call it first, and again after the page changes; do not guess selectors.",
    "It waits up to timeout seconds for a visible match. The result carries selected for select and checked for check and uncheck.",
    "Type text with write, not press; read with extract or read_page.",
  ].join(" "),
  input: Input,
  output: Output,
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const { driver } = ctx.browser;
    // Locating an element marks the page; a key press on the page locates nothing.
    if (!input.selector) await armNavigation(driver);
    const extra = await acting({ selector: input.selector }, () => perform(driver, input));
    return { ...(await landed(ctx, driver)), ...extra };
  },
});
