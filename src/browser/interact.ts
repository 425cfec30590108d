// interact: one gesture per call, on an element or a point of the viewport. Each gesture (or family:
// click, double_click, right_click) is one definition in gestures/: its branch of the input, what
// its result adds, its docs line and its handler. This is the tool they make together: one input
// (their branches' union, checked by the branch the action names), one result, and what every
// gesture shares: the page it acts on, where it landed, and a tab it opened.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { pageFields } from "../actions/fields.ts";
import type { Page } from "../grid/page.ts";
import { isStale, mapDriverError } from "./failures.ts";
import { check } from "./gestures/check.ts";
import { drag } from "./gestures/drag.ts";
import { drop } from "./gestures/drop.ts";
import { gestureInput, gestureOf, gestureOutput } from "./gestures/gesture.ts";
import { clicks, hover } from "./gestures/pointer.ts";
import { focus, press } from "./gestures/press.ts";
import { scroll } from "./gestures/scroll.ts";
import { select } from "./gestures/select.ts";
import { selectText } from "./gestures/select-text.ts";
import { armNavigation, dialogField, landed, type Press } from "./landing.ts";
import { timeoutField } from "./selectors.ts";

/** Every gesture, in the order the action enum and the docs list them. */
const GESTURES = [clicks, hover, focus, scroll, select, check, press, drag, drop, selectText] as const;

const Input = gestureInput(GESTURES, timeoutField());

const Output = z.object({
  ...pageFields,
  ...dialogField,
  ...gestureOutput(GESTURES),
  new_tab: z
    .number()
    .int()
    .optional()
    .describe("Present when it opened a tab: its index for switch; you stay here."),
});

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
  description: ["One gesture at an element (a selector from read_page) or a point. Type with write."].join(
    " ",
  ),
  docs: [
    "The gestures, by action:",
    GESTURES.map((g) => g.docs).join(" "),
    'Name elements by the refs read_page gives ({"ref": "e12"}): call it first, and again after the page changes; do not guess selectors.',
    "It waits up to timeout seconds for a visible match. The result carries selected for select and checked for check and uncheck, and new_tab when the gesture opened a tab (window.open, a target=_blank link): its index for switch; later actions stay on this tab until you switch. A gesture that closes its own tab (a sign-in pop-up's Allow) answers the page of the tab that opened it, where later actions then act.",
    "Type text with write, not press; a custom dropdown: click it open, then click the option; read with extract or read_page.",
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
    // The gesture writes its press here (gesture.ts); one that pressed nothing leaves this.
    const press: Press = { before: page.held.navigationCount };
    const g = gestureOf(GESTURES, input.action);
    const call = { ctx, page, input, press };
    const about = { selector: input.selector };
    let extra: Awaited<ReturnType<typeof g.run>>;
    try {
      extra = await g.run(call);
    } catch (err) {
      // An element replaced by the page meanwhile: the gesture once more, locating afresh.
      if (!isStale(err)) throw mapDriverError(err, about);
      try {
        extra = await g.run(call);
      } catch (again) {
        throw mapDriverError(again, about);
      }
    }
    const out = await landed(page, press.before, ctx.effects, press.read);
    const opened = page.held.popups > popups ? await tabIndex(page, page.held.lastPopup) : -1;
    return { ...out, ...extra, ...(opened >= 0 ? { new_tab: opened } : {}) };
  },
});
