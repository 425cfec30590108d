// The gestures interact performs: the page functions they run in the sandbox, and the checks and
// BiDi input around them (an option picked, a box checked, keys pressed, a pointer's target).
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import type { PageLib, PageSelector } from "../in-page/index.ts";
import { coveredError } from "./failures.ts";
import type { Combo } from "./keys.ts";
import { type PageMatch, type SeekArgs, type Selector, seek } from "./selectors.ts";

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
  /** What covers the whole element, where the pointer would go (a click would reach it). */
  cover?: string | null;
  /** The visible point aimed at, from the element's in-view centre. */
  dx?: number;
  dy?: number;
}

// Locates for a pointer gesture: scrolled to the middle of the window, aimed at its middle, or at
// the visible point nearest it when something covers the middle (the page library's aim).
const TARGET = (L: PageLib, sel: PageSelector, opts: SeekArgs): unknown => {
  const found = L.find(sel);
  if (found.invalid) return { els: [], visible: 0, total: 0, invalid: found.invalid };
  const base = { visible: found.visible, total: found.els.length };
  const el = found.els[0];
  if (!el || (opts.visible && !found.visible)) return { ...base, els: [] };
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const got = L.aim(el);
  if ("dx" in got) return { ...base, els: [el], dx: got.dx, dy: got.dy };
  const top = got.cover;
  // No box in view at all: the browser's own input says why.
  if (!top) return { ...base, els: [el] };
  const css = L.cssFor(top);
  const cover = css ? `${L.describe(top)} (${JSON.stringify({ css })})` : L.describe(top);
  return { ...base, els: [el], cover };
};

export const FOCUS = (_L: PageLib, el: HTMLElement) => {
  el.focus();
  return el.ownerDocument.activeElement === el;
};

// HTML5 drag and drop as the browser would fire it, with one DataTransfer shared by every event.
export const HTML5_DRAG = (_L: PageLib, src: Element, dst: Element): boolean => {
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

export async function pressKeys(page: Page, el: NodeRef | null, combos: Combo[]): Promise<void> {
  // On an element: it takes the focus first, as WebDriver's typing does.
  if (el) await page.callIn(el.context, FOCUS, el);
  await page.keys(el?.context ?? page.context, combos);
}

export async function selectOption(
  page: Page,
  el: NodeRef,
  input: { selector?: Selector; value?: string },
): Promise<{ label: string; value: string }> {
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

export async function setChecked(
  page: Page,
  el: NodeRef,
  input: { selector?: Selector },
  want: boolean,
): Promise<boolean> {
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

/**
 * The element a pointer gesture goes to, in view, with the visible point aimed at (from its
 * middle); a 400 when something else covers all of it.
 */
export async function target(
  page: Page,
  selector: Selector,
  timeout: number,
  field?: string,
): Promise<NodeRef & { dx: number; dy: number }> {
  const got = await seek<Target>(page, selector, { timeout, visible: true, field }, TARGET);
  if (got.cover !== undefined) throw coveredError({ selector, field }, got.cover);
  return { ...(got.els[0] as NodeRef), dx: got.dx ?? 0, dy: got.dy ?? 0 };
}
