// write: type into fields — text the agent gives, or a secret's value it never sees (a bound write,
// write-bound.ts: one call that fills, submits and empties its fields before it answers).
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { flag, pageFields, webUrl } from "../actions/fields.ts";
import { type Problem, ruled } from "../actions/validate.ts";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { FoundField as Found } from "../grid/page-found.ts";
import { type About, isStale, mapDriverError, quoteSelector } from "./failures.ts";
import { setInputValue } from "./gestures/select.ts";
import { delivered, dialogField, landed, type Press } from "./landing.ts";
import { locate, query, Selector, timeoutField } from "./selectors.ts";
import { boundWrite, hideTyped, type Item, type Submit } from "./write-bound.ts";
import { typeInto } from "./write-field.ts";

const SecretShape = z.strictObject({
  name: z.string().min(1).max(200).meta({ docs: "The secret's name (GET /secrets, workspace://secrets)." }),
  key: z.string().min(1).max(200).meta({ docs: "Which of its keys to type, e.g. password." }),
});
const SecretRef = SecretShape.describe(
  "A stored secret {name, key} (workspace://secrets), its value unseen.",
);

const Text = z.string().max(100_000);

/** Text or secret, exactly one. */
const oneOf = (i: { text?: unknown; secret?: unknown }): Problem | null =>
  (i.text === undefined) === (i.secret === undefined)
    ? {
        path: [i.text === undefined ? "text" : "secret"],
        message: "must be given instead of the other: give exactly one of text or secret",
      }
    : null;

const FieldItem = ruled(
  z.strictObject({
    selector: Selector.describe("The field."),
    text: Text.optional(),
    secret: SecretShape.optional(),
  }),
  oneOf,
);

const Input = ruled(
  z.strictObject({
    selector: Selector.optional().describe('The field, e.g. {"label": "Email"}.').meta({
      docs: 'The field: e.g. {"label": "Email"} or a selector read_page gave. A label or a wrapper with one field inside works too. Or give fields.',
    }),
    text: Text.optional().meta({ docs: "The text to type. Give text or secret, not both." }),
    secret: SecretRef.optional().meta({
      docs: "Type a stored secret's value instead of text; you never see the value.",
    }),
    fields: z
      .array(FieldItem)
      .min(1)
      .max(20)
      .optional()
      .describe("Several fields in order, instead of selector.")
      .meta({
        docs: "Several fields filled in one call, in order, each {selector, text} or {selector, secret}: a whole sign-in form. Instead of selector, text and secret.",
      }),
    clear: flag(true)
      .describe("false appends.")
      .meta({ docs: "Empty each field first (default true); false appends." }),
    submit: z
      .union([z.boolean(), z.literal("auto"), Selector])
      .default(false)
      .describe('true: Enter; a selector: click it; "auto": the page sends. Required with secret.')
      .meta({
        docs: "How the form is sent after the fields are filled: true presses Enter in the last field (a textarea's form is submitted instead); a selector clicks that control (the page's send button); \"auto\" leaves it to the page (a one-time-code box that sends itself once full). A write with a secret must give one.",
      }),
    timeout: timeoutField(),
    url: webUrl().optional().describe("Go here first.").meta({ docs: "Go to this page first." }),
  }),
  (i): Problem[] => {
    if (i.fields !== undefined)
      return (["selector", "text", "secret"] as const).flatMap((k) =>
        i[k] === undefined ? [] : [{ path: [k], message: "must not come with fields: put it in fields" }],
      );
    const selector: Problem[] =
      i.selector === undefined ? [{ path: ["selector"], message: "is required (or give fields)" }] : [];
    return [...selector, ...[oneOf(i) ?? []].flat()];
  },
);

type In = z.infer<typeof Input>;

// Input types whose value is set whole (typing into them does not work): date, time, color...
const SET_WHOLE = ["date", "time", "datetime-local", "month", "week", "color"];

/**
 * The agent's text into one field: set whole for the types keys cannot fill, else typed; then
 * committed (change). What the page changed it to, when it did.
 */
async function writeText(
  page: Page,
  item: Item,
  text: string,
  clear: boolean,
  timeout: number,
): Promise<{ field: Found; changed: string | null }> {
  const field = await page.field(query(page, item.selector, { timeout, visible: true }), { text, clear });
  const el = field.field;
  if (field.type === "range") await setInputValue(page, el, { selector: item.selector, value: text }, "text");
  else if (SET_WHOLE.includes(field.type ?? "")) {
    const got = await page.callIn<string>(el.context, "fillField", el, text, clear);
    if (got === "format")
      throw badInput(
        `${quoteSelector(item.selector)} is a ${field.type} input and did not take that value: give it in the form the browser uses (date 2024-01-31, time 13:45, color #ff0000, month 2024-01, week 2024-W05, datetime-local 2024-01-31T13:45)`,
        "text",
      );
    if (got !== "ok")
      throw badInput(
        `${quoteSelector(item.selector)} left its document, so nothing was typed: read_page and try again`,
        "selector",
      );
  } else await typeInto(page, field, item.selector, text, clear);
  if (field.type === "range") return { field, changed: null };
  // A field that keeps fewer characters than the text already said what it kept (or moved on).
  const max = field.maxLength ?? -1;
  const compare = max < 0 || text.replace(/\r\n?/g, "\n").length <= max;
  const now = await page
    .callIn<{ value?: string } | null>(el.context, "commitText", el, text, clear, compare)
    .catch(() => null);
  const q = quoteSelector(item.selector);
  return {
    field,
    changed: now ? (now.value === undefined ? q : `${q} holds ${JSON.stringify(now.value)}`) : null,
  };
}

/**
 * Plain text into each field in order, then the form sent as `submit` says. The last press (for
 * `landed`: where it began, and a click's own read), and the fields the page changed from the text.
 * A press that threw goes to `delivered`: a dialog it opened ends the write (the result says so).
 */
async function plainWrite(
  page: Page,
  items: Item[],
  input: In,
): Promise<{ press: Press; changed: string[] }> {
  const submit = input.submit as Submit;
  const press: Press = { before: page.held.navigationCount };
  const changed: string[] = [];
  let last: Found | null = null;
  for (const item of items) {
    press.before = page.held.navigationCount;
    try {
      const got = await writeText(page, item, item.text ?? "", input.clear, input.timeout);
      last = got.field;
      if (got.changed) changed.push(got.changed);
    } catch (err) {
      await delivered(page, err);
    }
    if (page.prompt) return { press, changed };
  }
  const lastItem = items[items.length - 1] as Item;
  if (submit === true && last) {
    const field: Found = last;
    press.before = page.held.navigationCount;
    await page.submit(field, quoteSelector(lastItem.selector)).catch((err: unknown) => delivered(page, err));
  } else if (typeof submit === "object") {
    const el = await locate(page, submit, {
      timeout: input.timeout,
      visible: true,
      scroll: true,
      field: "submit",
    });
    press.read = await page
      .click(el, {
        count: 1,
        modifiers: [],
        checked: true,
        quoted: quoteSelector(submit),
        landing: true,
        press,
      })
      .catch((err: unknown) => delivered(page, err));
  }
  return { press, changed };
}

export const write = defineAction({
  name: "write",
  http: { method: "POST", path: "/browser/write" },
  title: "Type into fields",
  description: [
    "Type into a field (input, textarea, rich editor), emptied first; submit sends the form.",
    "Give a credential as secret, never text: typed on its allowed hosts, sent, emptied before the answer.",
    "Sign in in one call: fields [{selector, text}, {selector, secret}], submit: true.",
  ].join(" "),
  docs: [
    "A secret is refused on a page its allowed_urls do not name (an item with a scheme names scheme, host and port; a bare host any), checked against the origin the browser reports for the document holding the field (a frame's own); page script cannot fake it. GET /secrets or workspace://secrets lists what exists.",
    "A write with a secret is one whole sign-in: it fills every field it names, sends the form (submit is required), and before it answers, on success or failure, empties each field it filled from a secret and each field the page filled from one during the call (a code spread over boxes), as a person's delete would. It empties them once the page has taken the form (its formdata), the page moved on or the field went, or after secrets.hold_ms (2 s) for a page that sends nothing. While it runs the fields show no text in pictures and what their page logs is withheld from logs. A secret is refused on a page a script of yours ran in, and while such a page of the same site is open (navigate first).",
    "Plain text goes in as one insert at the caret (beforeinput and input, as a paste does), not a key per character; a tab in the text is a character, never the Tab key. Text with a new line, and a field that keeps fewer characters than the text (a code split over one-character boxes), are typed key by key; when such a field keeps the focus and drops the rest, the write is a 400 saying what it kept; a secret longer than its field is refused before anything goes in. Date, time, color and range inputs are set whole (2024-01-31, 13:45, #ff0000). Once a field's text is in, change fires, as leaving the field would fire it (the same for a secret's fill; the browser fires its own again when the focus leaves a field typed into), so a page that takes the value on change does so during the write; a field that then holds something else than was typed (a page that rewrites it: 5 becomes 5.00) is listed in changed, its selector with what it holds now for plain text, its selector alone for a write with a secret or a password.",
    "url goes to that page first. It waits up to timeout seconds for each field to be visible. The url and title returned are after the submit; a landing url that would reveal a secret is shown with [hidden] and not recorded.",
    "Use interact select for a <select>, check for a checkbox, and press for keys such as Tab or Escape.",
  ].join(" "),
  input: Input,
  output: z.object({
    ...pageFields,
    ...dialogField,
    closed_dialog: z
      .string()
      .optional()
      .describe(
        "A dialog the page opened during a write with a secret, closed by the write (OK) so it could empty the fields: its message.",
      ),
    changed: z
      .array(z.string())
      .optional()
      .describe(
        'Fields that hold something else than was typed once the page took it (a page that rewrites on change): each field\'s selector and, for plain text, what it holds now (`{"label":"Amount"} holds "5.00"`); a secret\'s or a password\'s value never.',
      ),
  }),
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  browser: "page",
  // A secret in no catalogue is asked of a person first: a 409 with the link to their page. One the
  // catalogue has asks nobody; one it seems to lack is looked for on disk by `require` before anyone
  // is asked (a file just written is found), and the handler looks each up once, its files first.
  precheck: async ({ services, workspace, origin }, input) => {
    const refs = (input.fields ?? [input]).flatMap((i) =>
      i.secret && !services.secrets.peek(i.secret.name) ? [i.secret] : [],
    );
    if (refs.length) await services.personSecrets.require(workspace, refs, input.url, origin);
  },
  handler: async (ctx, input) => {
    const items: Item[] = input.fields ?? [
      { selector: input.selector as Selector, text: input.text, secret: input.secret },
    ];
    const page = await ctx.browser.page();
    const about: About = { selector: input.fields ? undefined : input.selector, typed: input.text };
    // A failure is said where it is caught (mapDriverError); a write that met an element the page
    // replaced meanwhile runs once more, finding its fields afresh.
    const said = (err: unknown) => Promise.reject(mapDriverError(err, about));
    if (input.url !== undefined) await page.goto(input.url).catch(said);
    if (items.some((i) => i.secret)) {
      const bound = () =>
        boundWrite(ctx, page, items, {
          clear: input.clear,
          submit: input.submit as Submit,
          timeout: input.timeout,
          about,
        });
      const done = await bound()
        .catch((err: unknown) => (isStale(err) ? bound() : Promise.reject(err)))
        .catch(said);
      const at = hideTyped(
        await landed(page, done.press.before, ctx.effects, done.press.read),
        done.typed,
        ctx.effects,
      );
      // A dialog the write closed to empty its fields is said beside where it left the page; a field
      // the page changed, by its selector alone.
      const changed = done.changed;
      return {
        ...at,
        ...(done.dialog === undefined ? {} : { closed_dialog: done.dialog }),
        ...(changed.length ? { changed } : {}),
      };
    }
    const plain = () => plainWrite(page, items, input);
    const { press, changed } = await plain()
      .catch((err: unknown) => (isStale(err) ? plain() : Promise.reject(err)))
      .catch(said);
    // A landing that carries a secret value is shown [hidden] and not recorded by the settle.
    const at = await landed(page, press.before, ctx.effects, press.read);
    return changed.length ? { ...at, changed } : at;
  },
});
