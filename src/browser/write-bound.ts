// A bound write (spec §1.17): one call that fills every field it names (secrets and plain text),
// submits, and before it answers, on success or failure, empties every field it filled from a secret
// and every field the page filled from one during the call. So a secret is in the page only while
// the workspace's lease keeps every other call out: after it, nothing in the browser holds it, and no
// gesture, read or script of the agent's is restricted on its account.

import type { BrowsingContext } from "webdriver-bidi-protocol";
import type { Effects } from "../actions/effects.ts";
import type { ActionContext } from "../actions/ports.ts";
import { badInput, unavailable } from "../errors.ts";
import { BidiError } from "../grid/bidi.ts";
import type { Page } from "../grid/page.ts";
import type { PageFn } from "../grid/page-call.ts";
import type { FoundField as Found } from "../grid/page-found.ts";
import type { FillOutcome } from "../in-page/fill.ts";
import { type SecretRef, secretField } from "../secrets/field.ts";
import { type About, quoteSelector } from "./failures.ts";
import { delivered, type Press } from "./landing.ts";
import { locate, query, type Selector } from "./selectors.ts";

export interface Item {
  selector: Selector;
  text?: string;
  secret?: SecretRef;
}
export type Submit = boolean | "auto" | Selector;

export const NO_SUBMIT =
  'a write with a secret must say how the form is sent, so it can empty the field before it answers: submit: true (Enter in the last field), submit: {"ref": …} (click the page\'s send button) or submit: "auto" (the page sends itself once the field is full). Sign in with one call: fields: [{selector, text: user}, {selector, secret: {name, key}}], submit: true';

/** Past the hold, how long a document may take to answer that it emptied its fields. */
const ANSWER_MS = 5_000;

export const STUCK =
  "the page did not answer after the submit, so its fields could not be confirmed empty: the browser was ended, and the secret with it (the next call opens a fresh browser on this page, its saved site data restored); read_page to see whether the form went through before writing again";

interface Filled {
  item: Item;
  field: Found;
  /** The realm a secret's field was checked in (null for the agent's text: its context's sandbox). */
  realm: string | null;
  origin: string;
  /** What goes in: the agent's text or the secret's value. */
  value: string;
}

/**
 * Closes a dialog the page opened during the call, as a person would to go on (OK; Cancel on a prompt,
 * which asks for what the write does not have): the page's script, and so the emptying, waits on it.
 */
async function closeDialog(page: Page): Promise<BrowsingContext.UserPromptOpenedParameters | null> {
  const open = page.prompt;
  if (!open) return null;
  await page.send("browsingContext.handleUserPrompt", {
    context: open.context,
    accept: open.type !== "prompt",
  });
  page.held.promptAnswered(open);
  return open;
}

/** Finds every field and what goes in, checking each secret against its field's own document. */
async function prepare(ctx: ActionContext, page: Page, items: Item[], clear: boolean, timeout: number) {
  const out: Filled[] = [];
  for (const item of items) {
    const field = await page.field(query(page, item.selector, { timeout, visible: true }));
    const q = quoteSelector(item.selector);
    if (field.type === "range" && item.secret)
      throw badInput(`${q} is a range input: a secret is never put into one`, "secret");
    if (!item.secret) {
      out.push({ item, field, realm: null, origin: "", value: item.text ?? "" });
      continue;
    }
    // Where the field's document is comes from the browser: its realm's origin, never a parent's URL.
    const max = clear ? (field.maxLength ?? -1) : -1;
    const ready = await secretField(page, { el: field.field, max, quoted: q }, item.secret, ctx);
    out.push({ item, field, ...ready });
  }
  return out;
}

/**
 * Sends the form: Enter in the last field, or a click on the control `submit` names; "auto" leaves
 * it to the page. A press that threw goes to `delivered`: a dialog it opened, or its own tab it
 * closed, was the form sent. Returns the navigations begun before it, for `landed`.
 */
async function send(page: Page, filled: Filled[], submit: Submit, timeout: number): Promise<number> {
  const before = page.held.navigationCount;
  if (submit === "auto" || submit === false) return before;
  const last = filled[filled.length - 1] as Filled;
  try {
    if (submit === true) await page.submit(last.field, quoteSelector(last.item.selector));
    else {
      const el = await locate(page, submit, { timeout, visible: true, scroll: true, field: "submit" });
      await page.click(el, { count: 1, modifiers: [], checked: true, quoted: quoteSelector(submit) });
    }
  } catch (err) {
    await delivered(page, err);
  }
  return before;
}

/**
 * The bound write: fields found and checked, the documents armed, the values in, the form sent, and
 * every field emptied before it answers. Returns its press for `landed`: the navigation count before
 * the submit, and where the page is once the fields are empty.
 */
export async function boundWrite(
  ctx: ActionContext,
  page: Page,
  items: Item[],
  opts: { clear: boolean; submit: Submit; timeout: number; about: About },
): Promise<{ press: Press; dialog?: string; typed: string[]; changed: string[] }> {
  if (opts.submit === false) throw badInput(NO_SUBMIT, "submit");
  const filled = await prepare(ctx, page, items, opts.clear, opts.timeout);
  // Messages leave every value out (the longest first: one value may hold another).
  opts.about.typed = filled
    .filter((f) => f.item.secret)
    .map((f) => f.value)
    .sort((a, b) => b.length - a.length)[0];
  // The documents to arm: each context holding a field, in the realm its secrets were checked in.
  const docs = new Map<string, { realm: string | null; origin: string; items: Filled[] }>();
  for (const f of filled) {
    const d = docs.get(f.field.field.context) ?? { realm: null, origin: f.origin, items: [] };
    if (f.realm && d.realm && f.realm !== d.realm)
      throw badInput("the page changed while its fields were found: read_page and try again", "selector");
    if (f.realm) {
      d.realm = f.realm;
      d.origin = f.origin;
    }
    d.items.push(f);
    docs.set(f.field.field.context, d);
  }
  // No screen is drawn from here until the fields are empty (a capture in flight finishes first);
  // what the fields' documents, and their tab, log or request meanwhile is withheld from logs.
  const release = await page.held.quiet.hold(
    [...docs].flatMap(([context, d]) => [
      { context, origin: d.origin },
      ...(context === page.where.tab ? [] : [{ context: page.where.tab, origin: d.origin }]),
    ]),
  );
  const armed: Armed[] = [];
  const inDoc = <T>(a: { realm: string | null; context: string }, fn: PageFn, ...args: unknown[]) =>
    a.realm ? page.callRealm<T>(a.realm, a.context, fn, ...args) : page.callIn<T>(a.context, fn, ...args);
  let dialog: BrowsingContext.UserPromptOpenedParameters | null = null;
  /** The fields whose value the page changed as it took it (named by selector; never a value). */
  const changed: string[] = [];
  let before = 0;
  let failed: { err: unknown } | null = null;
  try {
    for (const [context, d] of docs) {
      const a = { realm: d.realm, context, confirmed: false };
      armed.push(a);
      const { got, changed: rewritten } = await inDoc<{ got: FillOutcome[]; changed: number[] }>(
        a,
        "boundFill",
        d.items.map((f) => ({
          el: f.field.field,
          value: f.value.replace(/\r\n?/g, "\n"),
          secret: !!f.item.secret,
        })),
        opts.clear,
      );
      d.items.forEach((f, i) => {
        const q = quoteSelector(f.item.selector);
        if (got[i] === "format")
          throw badInput(
            `${q} is a ${f.field.type} input and did not take that value: give it in the form the browser uses (date 2024-01-31, time 13:45, color #ff0000)`,
            f.item.secret ? "secret" : "text",
          );
        if (got[i] !== "ok")
          throw badInput(
            `${q} left its document or would not take the text, so nothing was typed: read_page and try again`,
            "selector",
          );
      });
      for (const i of rewritten) changed.push(quoteSelector((d.items[i] as Filled).item.selector));
    }
    before = await send(page, filled, opts.submit, opts.timeout);
    // The fields are emptied at the submit's formdata, when the page moves on or the field goes, or
    // after the hold: each document says so; one gone with its page emptied itself as it hid.
    const hold = ctx.services.config.secrets.hold_ms;
    for (let round = 0; round < 3; round++) {
      const waits = armed.map((a) =>
        inDoc<string>(a, "boundWait", hold).then(
          () => {
            a.confirmed = true;
          },
          // Gone with its page: it emptied itself as the page hid.
          () => undefined,
        ),
      );
      const settled = await Promise.race([
        Promise.all(waits),
        Bun.sleep(hold + ANSWER_MS).then(() => "late" as const),
      ]);
      const closed = page.prompt ? await closeDialog(page) : null;
      dialog ??= closed;
      if (!closed && settled !== "late") break;
    }
  } catch (err) {
    failed = { err };
  }
  // On success and on failure alike, nothing stays filled: a document gone emptied itself, one that
  // did not say so is emptied now, and one that does not answer (a busy page, a failed submit that
  // left it stuck) goes with its browser: the write fails closed.
  if (page.prompt) dialog ??= await closeDialog(page).catch(() => null);
  const emptied = await emptiedAll(page, armed, inDoc);
  await Promise.all(
    armed.filter((a) => !a.realm && !a.confirmed).map((a) => inDoc(a, "boundEmpty", "failed").catch(() => 0)),
  );
  if (!emptied) await ctx.lifecycle.end().catch(() => undefined);
  release();
  if (!emptied) throw unavailable(STUCK);
  if (failed) throw failed.err;
  const typed = filled.filter((f) => f.item.secret).map((f) => f.value);
  // Where it landed, read once the fields are empty, as a click reads its own (`landed` takes it).
  const press: Press = { before, read: page.prompt ? undefined : await page.landing() };
  return { press, typed, changed, ...(dialog ? { dialog: dialog.message } : {}) };
}

type Armed = { realm: string | null; context: string; confirmed: boolean };

/**
 * Whether every document a secret went into is emptied or gone: one that did not confirm is asked
 * again, unless the browser says its realm is gone (it emptied itself as it hid).
 */
async function emptiedAll(
  page: Page,
  armed: Armed[],
  inDoc: <T>(a: Armed, fn: PageFn, ...args: unknown[]) => Promise<T>,
): Promise<boolean> {
  const unsure = armed.filter((a) => a.realm && !a.confirmed);
  const answers = await Promise.all(
    unsure.map(async (a) => {
      const live = await page.held.socket
        .send("script.getRealms", { context: a.context }, { timeoutMs: ANSWER_MS })
        .then(
          ({ realms }) => realms.some((r) => r.realm === a.realm),
          // No such frame: the document went with its context.
          (err: unknown) => !(err instanceof BidiError && err.error === "no such frame"),
        );
      if (!live) return true;
      const emptied = inDoc(a, "boundEmpty", "failed").then(
        () => true,
        () => false,
      );
      const ok = await Promise.race([emptied, Bun.sleep(ANSWER_MS).then(() => false)]);
      if (ok) a.confirmed = true;
      return ok;
    }),
  );
  return answers.every(Boolean);
}

/**
 * Where a bound write landed, with every value it typed taken out of the url shown ([hidden]) and the
 * page kept out of the history: a form sent by GET puts the value in its url, and a one-time code or
 * a short value is not the redactor's to catch (spec §3.3).
 */
export function hideTyped<T extends { url: string }>(at: T, typed: string[], effects: Effects): T {
  const forms = (v: string) => [v, encodeURIComponent(v), new URLSearchParams({ v }).toString().slice(2)];
  const hits = typed
    .filter((v) => v !== "")
    .flatMap(forms)
    .filter((f) => at.url.includes(f));
  if (hits.length === 0) return at;
  let url = at.url;
  for (const f of hits.sort((a, b) => b.length - a.length)) url = url.split(f).join("[hidden]");
  effects.land(null);
  return { ...at, url };
}
