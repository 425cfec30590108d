// check and uncheck: a checkbox, radio button or switch (the element, a label's control, or the one
// box inside it) clicked until it holds the state asked; a styled one through its label.
import { z } from "zod";
import { badInput } from "../../errors.ts";
import type { NodeRef } from "../../grid/page-call.ts";
import type { PageLib } from "../../in-page/index.ts";
import { locate, type Selector } from "../selectors.ts";
import { defineGesture, needsSelector, selectorField } from "./gesture.ts";

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

export const check = defineGesture({
  actions: ["check", "uncheck"],
  fields: { selector: selectorField },
  output: { checked: z.boolean().optional().describe("check/uncheck: the state now.") },
  docs: "check or uncheck: a checkbox, radio button or switch (a styled one through its label).",
  check: needsSelector,
  async run({ page, input, act }) {
    const el = await locate(page, input.selector as Selector, { timeout: input.timeout });
    const want = input.action === "check";
    const q = JSON.stringify(input.selector);
    const c = await page.callIn<Checkable>(el.context, CHECKABLE, el);
    if (c.problem) {
      const [tag, role] = c.problem.split(":");
      throw badInput(
        `${q} is a <${tag}>${role ? ` (${role})` : ""}, not a checkbox, radio button or switch`,
        "selector",
      );
    }
    if (c.checked === want) return { checked: want };
    if (!want && c.radio)
      throw badInput(
        `${q} is a radio button: it cannot be unchecked; check another option of its group instead`,
        "selector",
      );
    const click = c.covered && c.label ? c.label : c.click;
    if (!click) throw badInput(`${q} is hidden and has no visible label to click`, "selector");
    // A styled checkbox often sits under its own label's decoration: the label takes the click.
    let now: boolean | undefined;
    await act(async () => {
      await page.click(click);
      now = await page.callIn<boolean>(el.context, READ_CHECKED, el);
    });
    if (now === undefined) return {};
    if (now !== want)
      throw badInput(
        `clicking ${q} did not ${want ? "check" : "uncheck"} it: the page kept it ${now ? "checked" : "unchecked"}`,
        "selector",
      );
    return { checked: now };
  },
});
