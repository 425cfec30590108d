// What the browser's pages reported: console messages, uncaught errors and network requests, from
// the ring the held connection keeps per browser (grid/event-log.ts), read since a cursor. Secret
// values are redacted in every text and URL handed out.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import type { LogEntry, Logged } from "../grid/event-log.ts";
import type { Page } from "../grid/page.ts";

const LEVELS = ["debug", "info", "warn", "error"] as const;
type Level = (typeof LEVELS)[number];

const CURSOR = /^\d{1,15}(\.[0-9a-f]{8})?$/;

/** The seq a cursor stands for in `ring`: one from another browser (another tag) starts before its first. */
function seqOf(cursor: string, ring: { epoch: string }): number {
  const [n, tag] = cursor.split(".");
  return tag !== undefined && tag !== ring.epoch ? 0 : Number(n);
}

const rank = (level: string) => Math.max(0, LEVELS.indexOf(level as Level));

/** A request counts as an error when it failed or answered >= 400. */
const levelOf = (e: LogEntry): string =>
  e.kind === "console" ? e.level : e.error || (e.status ?? 0) >= 400 ? "error" : "info";

/** The current tab and every frame in it. */
async function contextsOf(page: Page): Promise<Set<string>> {
  const out = new Set<string>();
  const walk = (c: { context: string; children?: unknown }) => {
    out.add(c.context);
    for (const k of (c.children as (typeof c)[] | null) ?? []) walk(k);
  };
  walk(await page.tree());
  return out;
}

const Entry = z.union([
  z.object({
    kind: z.literal("console"),
    level: z.string(),
    text: z.string(),
    source: z.string().optional(),
  }),
  z.object({
    kind: z.literal("network"),
    method: z.string(),
    url: z.string(),
    status: z.number().int().optional(),
    type: z.string(),
    ms: z.number().optional(),
    size: z.number().optional(),
    error: z.string().optional(),
    refused: z.literal(true).optional(),
  }),
]);

const WITHHELD =
  "entries reading [withheld] came from the page a write with a secret typed into, while that write ran: their console text and their requests' paths and queries are not shown";

const originOf = (url: string) => (URL.canParse(url) ? new URL(url).origin : "");

export const logs = defineAction({
  name: "logs",
  http: { method: "POST", path: "/browser/logs" },
  title: "Read console and network logs",
  description:
    "Console messages, uncaught errors and network requests. Pass next_cursor as cursor for newer ones.",
  docs: [
    "Kept per browser, the newest logs.keep entries (setting), across navigations and tabs.",
    "Without cursor: the newest max entries; with it: the oldest after it first, and more: true when max cut the list (call again with next_cursor).",
    "level keeps entries at or above it; a request is an error when it failed or answered >= 400. Secret values are hidden.",
  ].join(" "),
  input: z.strictObject({
    kind: z.enum(["console", "network", "all"]).optional(),
    level: z.enum(LEVELS).optional(),
    url_contains: z.string().max(1000).optional(),
    tab: z.enum(["current", "all"]).optional().describe("Default current."),
    cursor: z
      .string()
      .refine(
        (c) => CURSOR.test(c),
        "must be a next_cursor from an earlier logs result (at most 15 digits, then its tag)",
      )
      .optional(),
    max: z.number().int().min(1).max(500).optional(),
  }),
  output: z.object({
    // One small object in tools/list (the description names the kinds); OpenAPI keeps both shapes.
    entries: z.array(Entry.meta({ shared: true })),
    next_cursor: z.string().optional(),
    more: z.boolean().optional(),
    note: z.string().optional(),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: false },
  browser: "page",
  handler: async (ctx, input) => {
    const page = await ctx.browser.page();
    const ring = page.held.logs;
    const kind = input.kind ?? "all";
    const max = input.max ?? 100;
    const floor = input.level ? rank(input.level) : 0;
    const tabs = (input.tab ?? "current") === "current" ? await contextsOf(page) : null;
    // What a bound write's document logged while the write ran is withheld (values are redacted in
    // the rest where every result is). Filters look at entries as shown: a url_contains on what is
    // withheld or redacted would tell, by what it matches, what was typed.
    const redact = ctx.services.redactor.redact;
    const isWithheld = (l: Logged) => ring.withheld(l) !== null;
    const asShown = (l: Logged): LogEntry => {
      const e = l.entry;
      const own = ring.withheld(l);
      if (own === null) return e;
      // Only the field's own origin is named: another host's name may carry what was typed.
      if (e.kind === "network")
        return { ...e, url: originOf(e.url) === own ? `${own}/[withheld]` : "[withheld]" };
      return { kind: "console", level: e.level, text: "[withheld]" };
    };
    const wanted = (l: Logged) => {
      if (kind !== "all" && l.entry.kind !== kind) return false;
      // An entry of no tab (the server's own notice) concerns every tab.
      if (tabs && l.context !== null && !tabs.has(l.context)) return false;
      if (rank(levelOf(l.entry)) < floor) return false;
      if (input.url_contains === undefined) return true;
      const e = asShown(l);
      return e.kind === "network" && redact(e.url).includes(input.url_contains);
    };
    const after = input.cursor === undefined ? undefined : seqOf(input.cursor, ring);
    const all = ring.since(after === undefined ? 0 : after + 1);
    const picked = all.filter(wanted);
    const cut = picked.length > max;
    const shown = input.cursor === undefined ? picked.slice(-max) : picked.slice(0, max);
    const last = cut && input.cursor !== undefined ? shown.at(-1)?.seq : all.at(-1)?.seq;
    const withheld = shown.filter(isWithheld).length;
    const entries = shown.map(asShown);
    const cursor = last ?? (after === undefined ? ring.head - 1 : after);
    return {
      entries,
      next_cursor: `${cursor}.${ring.epoch}`,
      ...(cut && input.cursor !== undefined ? { more: true } : {}),
      ...(withheld ? { note: WITHHELD } : {}),
    };
  },
});
