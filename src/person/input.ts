// A person drives the browser: one click, text, key press or scroll at viewport CSS pixels, in
// the workspace's turn (never between an agent call's steps), over the held BiDi connection.

import type { BrowsingContext, Input } from "webdriver-bidi-protocol";
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { browserState } from "../browser/landing.ts";
import { badInput } from "../errors.ts";
import { parseKeys } from "../grid/keys.ts";
import type { Page } from "../grid/page.ts";

const Coord = z.number().min(0).max(100_000);
const Delta = z.number().min(-100_000).max(100_000);
/** The kinds of input, each its schema: a body names exactly one (person/admin.ts `readInput`). */
export const KINDS = {
  click: z.strictObject({
    x: Coord,
    y: Coord,
    button: z.number().int().min(0).max(2).optional(),
    count: z.number().int().min(1).max(3).optional(),
  }),
  text: z.string().min(1).max(2000),
  key: z.string().min(1).max(200),
  scroll: z.strictObject({ x: Coord, y: Coord, dx: Delta, dy: Delta }),
};
export const PersonInput = z.union([
  z.strictObject({ click: KINDS.click }),
  z.strictObject({ text: KINDS.text }),
  z.strictObject({ key: KINDS.key }),
  z.strictObject({ scroll: KINDS.scroll }),
]);
export type PersonInput = z.infer<typeof PersonInput>;

/** What the timeline keeps of an input: typed text only as its length. */
export function inputArgs(input: PersonInput): Record<string, unknown> {
  if ("text" in input) return { typed: `typed ${[...input.text].length} characters` };
  return { ...input };
}

/** The person is about to type: a password field holding the focus is noted, to empty at Hand back. */
async function notePasswords(page: Page): Promise<void> {
  const contexts: string[] = [];
  const walk = (c: BrowsingContext.Info) => {
    contexts.push(c.context);
    for (const k of c.children ?? []) walk(k);
  };
  walk(await page.tree());
  await Promise.all(contexts.map((c) => page.callIn(c, "personTyping").catch(() => false)));
}

export const personAction = defineAction({
  name: "person_input",
  http: { method: "POST", path: "/admin/workspaces/{key}/input" },
  title: "A person's input",
  description: "A person's click, text, key or scroll on the page.",
  input: z.strictObject({ input: PersonInput }),
  output: z.object({ url: z.string(), title: z.string() }),
  annotations: { readOnly: false, destructive: true, idempotent: false },
  browser: "page",
  handler: async (ctx, { input: given }) => {
    const page = await ctx.browser.page();
    const tab = page.where.tab;
    // A click presses and looks where the tab is in one verb; the others look after (browserState).
    if ("click" in given) return page.personClick(given.click.x, given.click.y, given.click);
    if ("text" in given) {
      await notePasswords(page);
      await page.type(tab, given.text);
    } else if ("key" in given) {
      const parsed = parseKeys(given.key);
      if ("problem" in parsed) throw badInput(`key: ${parsed.problem}`, "key");
      await notePasswords(page);
      await page.keys(tab, parsed.combos);
    } else {
      const s = given.scroll;
      const wheel: Input.SourceActions = {
        type: "wheel",
        id: "person-wheel",
        actions: [{ type: "scroll", x: Math.round(s.x), y: Math.round(s.y), deltaX: s.dx, deltaY: s.dy }],
      };
      await page.perform(tab, [wheel]);
    }
    return browserState(ctx.browser);
  },
});
