// assert: wait until a selector is visible, present or absent — or a script returns truthy — and,
// with stable_for, stays so; a 400 that says what was seen when it does not hold.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { pageFields } from "../actions/fields.ts";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import { noteScript } from "../secrets/field.ts";
import { isStale, mapDriverError, quoteSelector } from "./failures.ts";
import { here } from "./landing.ts";
import { pageSelector, Selector, whatIsThere } from "./selectors.ts";
import { jsonOf, truthy, userFunction } from "./user-script.ts";

const STATES = ["visible", "present", "absent"] as const;
type State = (typeof STATES)[number];

interface Seen {
  holds: boolean;
  /** What the page showed, in words. */
  seen: string;
  /** A script's last value. */
  value?: unknown;
  /** Nothing matched at all (for the "what is there instead" hint). */
  none?: boolean;
}

/** "1 match", "6 matches", "2 elements": words ending in s, x, z, ch or sh take "es". */
export const plural = (n: number, one: string) =>
  `${n} ${one}${n === 1 ? "" : /(s|x|z|ch|sh)$/.test(one) ? "es" : "s"}`;

function holdsFor(state: State, total: number, visible: number): Seen {
  const seen = total === 0 ? "no match" : `${plural(total, "match")}, ${visible} visible`;
  const holds = state === "present" ? total > 0 : state === "visible" ? visible > 0 : visible === 0;
  return { holds, seen, none: total === 0 };
}

const POLL_MS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const Input = z
  .strictObject({
    selector: Selector.optional().describe("Give selector or script, not both.").meta({
      docs: "The element to check. Give selector or script, not both.",
    }),
    state: z
      .enum(STATES)
      .optional()
      .describe("visible (default): shown; present: in the page; absent: none shown.")
      .meta({
        docs: "With selector: visible (default; a match is shown), present (a match is in the page, shown or not), absent (no match is shown: removed or hidden).",
      }),
    script: z
      .string()
      .min(1)
      .max(100_000)
      .optional()
      .describe("JavaScript, truthy when the condition holds.")
      .meta({
        docs: "JavaScript that returns truthy when the condition holds, e.g. document.querySelectorAll('li').length >= 3.",
      }),
    stable_for: z
      .number()
      .min(0)
      .max(60)
      .default(0)
      .describe("Seconds it must keep holding.")
      .meta({ docs: "Seconds the condition must keep holding once it holds (default 0)." }),
    timeout: z
      .number()
      .min(0)
      .max(120)
      .default(5)
      .describe("Seconds.")
      .meta({ docs: "Seconds to wait for the condition to start holding (default 5, at most 120)." }),
  })
  .superRefine((i, ctx) => {
    if ((i.selector === undefined) === (i.script === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [i.selector === undefined ? "selector" : "script"],
        message: "must be given instead of the other: give exactly one of selector or script",
      });
    }
    if (i.state !== undefined && i.selector === undefined) {
      ctx.addIssue({ code: "custom", path: ["state"], message: "must only come with selector" });
    }
  });

type In = z.infer<typeof Input>;

async function look(page: Page, input: In, state: State, script: string | null): Promise<Seen> {
  if (script !== null) {
    // Each poll may run in a new document: each counts as scripted (spec §1.17).
    await noteScript(page);
    const context = page.context;
    const raw = await page.userCall(context, script, []);
    const value = await jsonOf(page, context, raw);
    return { holds: truthy(raw), seen: `the script returned ${JSON.stringify(value)}`, value };
  }
  const got = await page.call<{
    total: number;
    visible: number;
    invalid?: { kind: string; reason: string; gone?: true };
  }>("countMatches", pageSelector(input.selector as Selector));
  if (got.invalid?.kind === "ref") {
    // A ref whose element is gone is absent; one from another page is a mistake to say.
    if (state === "absent" && got.invalid.gone) return holdsFor(state, 0, 0);
    throw badInput(got.invalid.reason, "selector.ref");
  }
  if (got.invalid) {
    const field = `selector.${got.invalid.kind}`;
    throw badInput(`field "${field}" is not a valid selector: ${got.invalid.reason}`, field);
  }
  return holdsFor(state, got.total, got.visible);
}

function describeCondition(input: In, state: State): string {
  return input.selector ? `${quoteSelector(input.selector)} to be ${state}` : "the script to return truthy";
}

export const assertAction = defineAction({
  name: "assert",
  http: { method: "POST", path: "/browser/assert" },
  title: "Wait for a condition",
  description: [
    "Wait until a selector is visible, present or absent, or a script returns truthy; stable_for: it must keep holding (spinners, live updates).",
    "Use it instead of sleeping, and to check a result; a failure says what was seen. The script is polled: no side effects.",
  ].join(" "),
  docs: [
    "Use it instead of sleeping after an action whose effect comes later.",
    "Use it after a submit, a search or a modal opening. It waits up to timeout seconds.",
    "Returns seen (what held) with the url and title.",
  ].join(" "),
  input: Input,
  output: z.object({
    ...pageFields,
    seen: z.string().describe('What the page showed when the condition held, e.g. "1 match, 1 visible".'),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const page = await ctx.browser.page();
    const state: State = input.state ?? "visible";
    const script = input.script === undefined ? null : userFunction(input.script);
    const start = Date.now();
    const deadline = start + input.timeout * 1000;
    const stable = input.stable_for * 1000;
    let since: number | null = null;
    let longest = 0;
    let last: Seen = { holds: false, seen: "nothing yet" };
    const about = { selector: input.selector };
    const once = () => look(page, input, state, script);
    for (;;) {
      // Once more when an element went stale meanwhile; a failure is said where it is caught.
      last = await once()
        .catch((err: unknown) => (isStale(err) ? once() : Promise.reject(err)))
        .catch((err: unknown) => Promise.reject(mapDriverError(err, about)));
      const now = Date.now();
      if (last.holds) {
        since ??= now;
        longest = Math.max(longest, now - since);
        if (now - since >= stable) break;
      } else {
        since = null;
      }
      // Once it holds, waiting out stable_for may run past the timeout; a new start may not.
      if (since === null && now >= deadline) break;
      await sleep(
        since === null
          ? Math.min(POLL_MS, Math.max(0, deadline - now))
          : Math.min(POLL_MS, stable - (now - since)),
      );
    }
    if (!last.holds || (since !== null && Date.now() - since < stable)) {
      const cond = describeCondition(input, state);
      const wait = `${input.timeout} s`;
      let detail: string;
      if (longest > 0 && stable > 0) {
        detail = `it held for at most ${(longest / 1000).toFixed(1)} s at a time, not the ${input.stable_for} s of stable_for; last seen: ${last.seen}`;
      } else detail = `seen: ${last.seen}`;
      if (input.selector && last.none && state !== "absent") {
        const instead = await whatIsThere(page, input.selector);
        if (instead) detail += `. ${instead}`;
      }
      throw badInput(
        `assert failed after ${wait}: waited for ${cond} (${detail})`,
        input.selector ? "selector" : "script",
      );
    }
    return { ...(await here(page, ctx.effects)), seen: last.seen };
  },
});
