// A person takes over a workspace's browser (the admin's Take over) and hands it back (spec §1.17).
// The take-over is kept in the workspace's record (src/workspaces/taken-over.ts: an agent's call
// waits for Hand back). Hand back empties the password fields the person filled and did not send.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import type { Page } from "../grid/page.ts";
import type { TakenOver } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";

/** How long a take-over lasts without a Hand back (the person went away). */
const TAKE_OVER_S = 15 * 60;

/** A person takes over `key`: the record says so until they hand back (or TAKE_OVER_S pass). */
export async function takeOver(
  store: Pick<RecordStore, "update">,
  key: string,
  by: string,
  now: number,
): Promise<TakenOver> {
  const t: TakenOver = { by, since: now, until: now + TAKE_OVER_S };
  await store.update(key, (r) => (r ? { ...r, taken_over: t } : null));
  return t;
}

/** The take-over of `key` ends. */
export async function endTakeOver(store: Pick<RecordStore, "update">, key: string): Promise<void> {
  await store.update(key, (r) => {
    if (!r?.taken_over) return null;
    const { taken_over: _gone, ...rest } = r;
    return rest;
  });
}

/** In every document of every tab: the person's password fields not sent, emptied. */
async function emptyPersonFields(page: Page): Promise<number> {
  const tree = await page.send("browsingContext.getTree", {});
  const contexts: string[] = [];
  const walk = (cs: typeof tree.contexts | null | undefined) => {
    for (const c of cs ?? []) {
      contexts.push(c.context);
      walk(c.children);
    }
  };
  walk(tree.contexts);
  const counts = await Promise.all(
    contexts.map((c) => page.callIn<number>(c, "personHandBack").catch(() => 0)),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** Hand back, in the workspace's turn: the password fields a person filled and did not send, emptied. */
export const handBackAction = defineAction({
  name: "person_hand_back",
  http: { method: "POST", path: "/admin/workspaces/{key}/hand-back" },
  title: "Hand back",
  description: "A person hands the browser back to the agent.",
  input: z.strictObject({}),
  output: z.object({ emptied: z.number().int() }),
  annotations: { readOnly: false, destructive: true, idempotent: true },
  browser: "page",
  handler: async (ctx) => ({ emptied: await emptyPersonFields(await ctx.browser.page()) }),
});
