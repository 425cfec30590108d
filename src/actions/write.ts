// write: type into a field — text the agent gives, or a secret's value it never sees (a bound write).
// A bound write checks the origin of the realm that holds the field, as the browser tells it, then
// sets the value on that element from the sandbox (secrets/typed.ts): never keys to whatever has focus.
import { Key } from "selenium-webdriver";
import { z } from "zod";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import { DialogOpened } from "../grid/page-dialogs.ts";
import { insertable as insertableText } from "../in-page/fields.ts";
import type { PageLib, PageSelector } from "../in-page/index.ts";
import { secretValue } from "../secrets/bound.ts";
import { fieldRealm, fillIn, markTyped, SCRIPTED } from "../secrets/typed.ts";
import { defineAction } from "./define.ts";
import { type About, acting, quoteSelector } from "./failures.ts";
import { flag, pageFields, webUrl } from "./fields.ts";
import { setInputValue } from "./interact-inputs.ts";
import { dialogField, gesture, landed } from "./landing.ts";
import { type PageMatch, type SeekArgs, Selector, seek, timeoutField } from "./selectors.ts";

interface Field extends PageMatch {
  field?: NodeRef;
  kind?: "input" | "textarea" | "editable";
  problem?: string;
  locked?: string;
  /** Whether it holds something now (clearing it takes keys). */
  filled?: boolean;
  /** An input's type. */
  type?: string;
  /** It holds a typed secret (a bound write's, or a person's). */
  typed?: boolean;
  /** The most characters it keeps (-1: no limit). */
  maxLength?: number;
  /** With `insert` asked: what the insert did in the same call (see FOCUS_FIELD), absent when not tried. */
  inserted?: boolean | "ok" | "keys";
}

// Finds the field: the element itself, the control of a label, or the one field inside a wrapper.
// Given `insert` (plain text, nothing typed in this browser), a field that takes it as one insert
// gets it in the same call: one round trip for the common write.
const FIELD = (
  L: PageLib,
  sel: PageSelector,
  opts: SeekArgs & { insert?: { text: string; clear: boolean } },
): unknown => {
  const found = L.find(sel);
  if (found.invalid) return { total: 0, visible: 0, invalid: found.invalid };
  const base = { total: found.els.length, visible: found.visible };
  const el = found.els[0];
  if (!el || (opts.visible && !found.visible)) return base;
  const NOT_TEXT = ["button", "submit", "reset", "image", "checkbox", "radio", "file", "hidden"];
  const editable = (e: Element) =>
    (e.tagName === "INPUT" && !NOT_TEXT.includes((e as HTMLInputElement).type)) ||
    e.tagName === "TEXTAREA" ||
    (e as HTMLElement).isContentEditable;
  let field: Element | null = editable(el) ? el : null;
  if (!field && el.tagName === "LABEL") {
    const c = (el as HTMLLabelElement).control;
    if (c && editable(c)) field = c;
  }
  if (!field) {
    const inner = Array.from(el.querySelectorAll("input,textarea,[contenteditable]")).filter(
      (e) => editable(e) && L.isVisible(e),
    );
    if (inner.length === 1) field = inner[0] as Element;
  }
  if (!field) {
    const type = el.tagName === "INPUT" ? (el as HTMLInputElement).type : "";
    return { ...base, problem: `${el.tagName.toLowerCase()}${type ? ` type=${type}` : ""}` };
  }
  const f = field as HTMLInputElement;
  const kind = f.tagName === "INPUT" ? "input" : f.tagName === "TEXTAREA" ? "textarea" : "editable";
  const locked = f.disabled ? "disabled" : f.readOnly ? "read-only" : L.covered(f);
  const filled = kind === "editable" ? (f.textContent ?? "") !== "" : f.value !== "";
  const typed = L.typedEl(f);
  const maxLength = kind === "editable" ? -1 : f.maxLength;
  const type = kind === "input" ? f.type : undefined;
  const insert = opts.insert;
  const inserted =
    insert && !locked && !typed && L.insertable(kind, type, maxLength, insert.text)
      ? L.focusField(f, { text: insert.text, clear: insert.clear && filled })
      : undefined;
  return { ...base, field, kind, locked, filled, typed, maxLength, type, inserted };
};

// Focus goes to the field (see in-page/fields.ts); with `insert`, its text goes in as one insert.
const FOCUS_FIELD = (L: PageLib, el: HTMLInputElement, insert?: { text: string; clear: boolean }) =>
  L.focusField(el, insert);

// A textarea or a rich editor takes Enter as a new line: submit its form the way its button would.
const SUBMIT_FORM = (_L: PageLib, el: Element): boolean => {
  const form = (el as HTMLInputElement).form ?? el.closest("form");
  if (!form) return false;
  form.requestSubmit();
  return true;
};

const Input = z
  .strictObject({
    selector: Selector.describe('The field, e.g. {"label": "Email"}.').meta({
      docs: 'The field: e.g. {"label": "Email"} or a selector read_page gave. A label or a wrapper with one field inside works too.',
    }),
    text: z
      .string()
      .max(100_000)
      .optional()
      .describe("Give text or secret, not both.")
      .meta({ docs: "The text to type. Give text or secret, not both." }),
    secret: z
      .strictObject({
        name: z
          .string()
          .min(1)
          .max(200)
          .meta({ docs: "The secret's name (GET /secrets, workspace://secrets)." }),
        key: z
          .string()
          .min(1)
          .max(200)
          .describe("e.g. password")
          .meta({ docs: "Which of its keys to type, e.g. password." }),
      })
      .optional()
      .describe("A stored secret to type (workspace://secrets); you never see its value.")
      .meta({ docs: "Type a stored secret's value instead of text; you never see the value." }),
    clear: flag(true)
      .describe("false appends.")
      .meta({ docs: "Empty the field first (default true); false appends." }),
    submit: flag(false)
      .describe("Press Enter after.")
      .meta({ docs: "Press Enter after typing (a textarea's form is submitted instead)." }),
    url: webUrl().optional().describe("Go here first.").meta({ docs: "Go to this page first." }),
    timeout: timeoutField(),
  })
  .superRefine((i, ctx) => {
    if ((i.text === undefined) === (i.secret === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [i.text === undefined ? "text" : "secret"],
        message: "must be given instead of the other: give exactly one of text or secret",
      });
    }
  });

type In = z.infer<typeof Input>;

// Input types whose value is set whole (typing into them does not work): date, time, color...
const SET_WHOLE = ["date", "time", "datetime-local", "month", "week", "color"];

/** Whether the field's value is put in from the sandbox (a secret, or a type keys cannot fill). */
const setsWhole = (field: Field, input: In) =>
  input.secret !== undefined || SET_WHOLE.includes(field.type ?? "");

async function submitAfter(page: Page, field: Field, input: In): Promise<void> {
  const el = field.field as NodeRef;
  if (field.kind === "input") {
    // Enter only while the field holds the focus: refused if the page moved it away.
    if (!(await page.callIn<boolean>(el.context, FOCUS_FIELD, el))) {
      throw badInput(
        `${quoteSelector(input.selector)} lost the focus before Enter, so the form was not sent (the value is in the field): click the page's send button with interact`,
        "submit",
      );
    }
    await page.keys(el.context, [{ modifiers: [], key: Key.ENTER }]);
    return;
  }
  if (!(await page.callIn<boolean>(el.context, SUBMIT_FORM, el))) {
    throw badInput(
      `${quoteSelector(input.selector)} is a ${field.kind === "textarea" ? "textarea" : "rich text field"} outside any form, so submit has nothing to send: click the page's send button with interact instead`,
      "submit",
    );
  }
}

// Puts the value into the element itself from the sandbox realm, never as keystrokes to whatever has focus.
async function setInto(page: Page, field: Field, input: In, typed: string, realm: string): Promise<void> {
  const q = quoteSelector(input.selector);
  const got = await fillIn(
    page,
    realm,
    field.field as NodeRef,
    typed.replace(/\r\n?/g, "\n"),
    input.clear,
    input.secret !== undefined,
  );
  if (got === "format") {
    throw badInput(
      `${q} is a ${field.type} input and did not take that value: give it in the form the browser uses (date 2024-01-31, time 13:45, color #ff0000, month 2024-01, week 2024-W05, datetime-local 2024-01-31T13:45)`,
      "text",
    );
  }
  if (got !== "ok") {
    throw badInput(
      `${q} left its document or would not take the text, so nothing was typed: read_page and try again`,
      "selector",
    );
  }
  if (input.submit) await submitAfter(page, field, input);
}

/** Whether the text goes in as one insert (in-page/fields.ts); a new line or a tab, and a field that
 * keeps fewer characters than it would hold, take keys. */
const insertable = (field: Field, typed: string, maxLength: number) =>
  insertableText(field.kind ?? "input", field.type, maxLength, typed);

const unfocused = (input: In) =>
  badInput(
    `${quoteSelector(input.selector)} would not take the focus (the page moved it elsewhere), so nothing was typed: click the field first, or name another one`,
    "selector",
  );

async function typeInto(page: Page, field: Field, input: In, typed: string): Promise<void> {
  const el = field.field as NodeRef;
  if (insertable(field, typed, field.maxLength ?? -1)) {
    const got = await page.callIn<boolean | string>(el.context, FOCUS_FIELD, el, {
      text: typed,
      clear: input.clear && !!field.filled,
    });
    if (got === false) throw unfocused(input);
    if (got === "ok") {
      if (input.submit) await submitAfter(page, field, input);
      return;
    }
  } else if (!(await page.callIn<boolean>(el.context, FOCUS_FIELD, el))) throw unfocused(input);
  const keys: { modifiers: string[]; key: string }[] = [];
  if (input.clear && field.filled)
    keys.push({ modifiers: [Key.CONTROL], key: "a" }, { modifiers: [], key: Key.BACK_SPACE });
  for (const ch of typed.replace(/\r\n?/g, "\n")) {
    keys.push({ modifiers: [], key: ch === "\n" ? Key.ENTER : ch === "\t" ? Key.TAB : ch });
  }
  if (keys.length) await page.keys(el.context, keys);
  // A field that keeps fewer characters than given dropped the rest, as it would a person's keys;
  // unless it handed the focus on (a code split over one-character boxes), that is said.
  const max = field.maxLength ?? -1;
  const text = typed.replace(/\r\n?/g, "\n");
  const given = text.length;
  if (max >= 0 && given > max && input.clear) {
    const kept = await page.callIn<number>(el.context, KEPT, el, text);
    if (kept >= 0)
      throw badInput(
        `${quoteSelector(input.selector)} kept the first ${kept} of the ${given} characters given (its maxlength is ${max}) and dropped the rest: write at most ${max}`,
        "text",
      );
  }
  if (input.submit) await submitAfter(page, field, input);
}

// How many characters of `text` the field kept when it holds only their start, still focused; else
// -1: the focus moved on (the page took the rest elsewhere), the page reformatted what it got (a
// card number's spaces taken out), or the type ignores maxlength (number).
const KEPT = (_L: PageLib, el: HTMLInputElement, text: string): number => {
  const v = el.value;
  return el.ownerDocument.activeElement === el && v.length < text.length && text.startsWith(v)
    ? v.length
    : -1;
};

export const write = defineAction({
  name: "write",
  http: { method: "POST", path: "/browser/write" },
  title: "Type into a field",
  description: [
    "Type text into a field (input, textarea, rich editor), emptying it first; submit=true presses Enter after.",
    "For a password or any credential give secret {name, key}, never text: the server types the stored value on the hosts it is allowed on and never shows it to you.",
    "The place checked is the browser's own for the document holding the field (a frame's).",
    "Returns the url and title after. Use interact for a <select>, a checkbox or keys.",
  ].join(" "),
  docs: [
    "Enter sends most forms. A secret is refused on a page its allowed_urls do not name (an item with a scheme names scheme, host and port; a bare host any); GET /secrets or workspace://secrets lists what exists.",
    "The place is the origin the browser reports for the realm holding the field (an about:blank frame counts as its maker's); page script cannot fake it. A secret is put into the field itself, never sent as keys to whatever has focus. The page still controls what it shows, so check the url before typing a secret into what looks like a sign-in form.",
    "After a secret is typed, scripts (execute_script, assert's script) are refused in every tab while a page holds it, and on the page holding it no key but Enter or Tab goes into its field, nothing is copied, and no selector may depend on its value; a secret is refused on a page a script ran in (navigate first). Date, time and color inputs are set whole (2024-01-31, 13:45, #ff0000), a range too (its value, as interact select sets it).",
    "Plain text goes in as one insert at the caret (beforeinput and input, as a paste does), not a key per character; text with a new line or a tab, and a field that keeps fewer characters than the text (a code split over one-character boxes), are typed key by key. When such a field keeps the focus and so drops the rest, the write is a 400 saying what it kept; a secret longer than its field is refused before anything goes in. interact press sends real keys.",
    "url goes to that page first. It waits up to timeout seconds for the field to be visible.",
    "The url and title returned are after the submit, if any; a landing url that would reveal a typed secret is shown with [hidden] and not recorded.",
    "Use interact select for a <select>, check for a checkbox, and press for keys such as Tab or Escape.",
  ].join(" "),
  input: Input,
  output: z.object({ ...pageFields, ...dialogField }),
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const page = await ctx.browser.page();
    let typed = input.text ?? "";
    // Mutable: once a secret's value is known, messages leave it out too.
    const about: About = { selector: input.selector, typed };
    if (input.url !== undefined) await acting(about, () => page.goto(input.url as string));
    let before = page.held.navigationCount;
    let release = () => {};
    try {
      await acting(about, async () => {
        // Plain text where nothing was typed in this browser goes in with the finding, when it can.
        const insert =
          input.text !== undefined && !ctx.services.redactor.typedIn(ctx.browser.id)
            ? { insert: { text: input.text, clear: input.clear } }
            : {};
        let field: Field;
        try {
          field = await seek<Field>(
            page,
            input.selector,
            { timeout: input.timeout, visible: true },
            FIELD,
            insert,
          );
        } catch (err) {
          // The insert opened a dialog: the write is done, and the result says so (as a gesture's).
          if (insert.insert && err instanceof DialogOpened) return;
          throw err;
        }
        const q = quoteSelector(input.selector);
        if (field.problem) {
          throw badInput(
            `${q} is a <${field.problem}>, not a field you can type into: name the input itself (read_page lists the fields), or use interact for selects, checkboxes and buttons`,
            "selector",
          );
        }
        if (field.locked) throw badInput(`${q} is ${field.locked}: it cannot be typed into`, "selector");
        // Text added to a typed value could be read back with it; replacing it whole is fine.
        if (field.typed && input.text !== undefined && !input.clear)
          throw badInput(
            `${q} holds a secret typed by write: write into it with clear (the default), which replaces the secret`,
            "clear",
          );
        const max = field.maxLength ?? -1;
        const el = field.field as NodeRef;
        // A range takes its value whole, as interact select sets it (a secret never goes into one).
        if (field.type === "range") {
          if (input.secret) throw badInput(`${q} is a range input: a secret is never put into one`, "secret");
          before = await gesture(page, () =>
            setInputValue(page, el, { selector: input.selector, value: typed }, "text"),
          );
          return;
        }
        // Checked against the document that holds the field (a frame's own host, as the browser
        // knows it), before anything is typed.
        if (setsWhole(field, input)) {
          // Where the field's document is comes from the browser: its realm's origin, never a parent's URL.
          const { realm, origin, scripted } = await fieldRealm(page, el);
          if (input.secret) {
            typed = await secretValue(ctx.services, input.secret, origin);
            // Put in whole, it would be cut short unsaid: refused before anything goes in.
            if (input.clear && max >= 0 && typed.length > max)
              throw badInput(
                `${q} keeps at most ${max} characters (its maxlength), fewer than the secret's value: nothing was typed; name the field that takes the whole value`,
                "secret",
              );
            if (scripted || ctx.services.redactor.unmarkedIn(ctx.browser.id))
              throw badInput(SCRIPTED, "secret");
            about.typed = typed;
            // From now on the browser's page checks know what was typed here and where.
            ctx.services.redactor.noteTyped(ctx.browser.id, ctx.workspace, typed, origin);
            // No screen is drawn from here until the write is done (a capture in flight finishes first).
            release = await page.held.holdScreens();
            await markTyped(page, realm, el.context);
            // What this document logs from now on is withheld from logs while it holds the secret.
            page.held.logs.typedFrom(el.context);
          }
          before = await gesture(page, () => setInto(page, field, input, typed, realm));
        } else if (field.inserted === "ok") {
          if (input.submit) before = await gesture(page, () => submitAfter(page, field, input));
        } else if (field.inserted === false) {
          throw unfocused(input);
        } else before = await gesture(page, () => typeInto(page, field, input, typed));
        // Plain text is the agent's own: the field holds no secret now, and never by what it holds.
        if (input.secret === undefined && (field.typed || ctx.services.redactor.typedIn(ctx.browser.id)))
          await page.callIn(el.context, (L: PageLib, f: Element) => L.wrotePlain(f), el);
      });
    } finally {
      release();
    }
    // A landing that carries the typed secret is shown [hidden] and not recorded by the settle.
    return landed(page, before);
  },
});
