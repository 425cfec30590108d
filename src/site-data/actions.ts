// save_site_data: one snapshot of every site the workspace has been to. The capture goes straight
// into the settle write (a change its handler returns): it never appears in a result, a report or a log line.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { pageFields, SITE_DATA_URI, webUrl } from "../actions/fields.ts";
import type { ActionContext } from "../actions/ports.ts";
import { BIDI_DOWN, badInput, unavailable } from "../errors.ts";
import type { BidiSocket } from "../grid/bidi.ts";
import type { Page } from "../grid/page.ts";
import { dialogOpenError, TabClosed } from "../grid/page-dialogs.ts";
import { originOf, withSiteData } from "../store/record.ts";
import { capture, channelDown } from "./capture.ts";
import { Saved } from "./schemas.ts";
import { JAR_OVER, jarFits, type SaveReceipt, snapshot } from "./snapshot.ts";
import { framesIn } from "./spare-page.ts";
import { beginRead } from "./touched.ts";

export const REPLACED_BEFORE_SAVE =
  "another browser took this workspace while the save ran: nothing was saved";
export const GUIDE_URI = "skill://selenium-flow/references/SITE_DATA.md";

const replaced = (): SaveReceipt => ({ cookies: 0, sites: [], skipped: [{ reason: REPLACED_BEFORE_SAVE }] });

/**
 * The page's url (the browser's word: its context tree, the one the save's read asked for, `urlOf`)
 * beside its storages and title (the page library's read, in the sandbox), at once.
 */
async function readPage(page: Page, urlOf: Promise<string | null>) {
  const tab = page.where.tab;
  if (page.prompt) throw dialogOpenError(page.prompt);
  await page.usable();
  const tree = async () =>
    (await urlOf) ??
    (await page.send("browsingContext.getTree", { root: tab, maxDepth: 0 })).contexts[0]?.url;
  const [url, got] = await Promise.all([tree(), page.callIn<Record<string, unknown>>(tab, "storagesNow")]);
  if (url === undefined) throw new TabClosed();
  return {
    origin: originOf(url),
    local: got.local,
    session: got.session,
    idb: got.idb,
    url,
    title: String(got.title ?? ""),
    cores: typeof got.cores === "number" ? got.cores : 0,
  };
}

async function socket(ctx: ActionContext): Promise<BidiSocket> {
  try {
    return await ctx.browser.bidi();
  } catch (err) {
    if (channelDown(err)) throw unavailable(BIDI_DOWN);
    throw err;
  }
}

export const saveSiteData = defineAction({
  name: "save_site_data",
  http: { method: "POST", path: "/browser/save-site-data" },
  title: "Save site data",
  description: [
    "Save the browser's cookies and storage so later browsers of this workspace come back signed in.",
    "Call it after a confirmed sign-in (check you landed) and after a setting you want kept; each save replaces the last.",
    `${SITE_DATA_URI} lists it. Guide: ${GUIDE_URI}.`,
  ].join(" "),
  docs: [
    "What is saved: every cookie the browser holds, the localStorage of the sites it has been to, and the sessionStorage of the page it is on. Saving before you have checked the landing keeps a failed sign-in.",
    "One save covers every site a call ended on while the workspace keeps its history (a day, 100 sites): one passed through inside a call (a redirect) is not read, its cookies are.",
    "A save after signing out saves you signed out.",
    "Every browser opened for this workspace has it back before open_session returns, the one that replaces a reaped browser included.",
    'Returns saved {cookies, sites, skipped} and never a value. A skipped site keeps its last saved storage: on "a service worker answered", navigate there and save again.',
  ].join(" "),
  input: z.strictObject({
    url: webUrl().optional().describe("Go here first, then save."),
  }),
  output: z.object({
    ...pageFields,
    saved: Saved,
    uri: z.string().describe(`${SITE_DATA_URI}, which lists what is saved.`),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const page = await ctx.browser.page();
    if (input.url !== undefined) await page.goto(input.url);
    const record = await ctx.services.store.get(ctx.workspace);
    const history = (record?.history ?? []).map((v) => v.origin);
    const stored = Object.keys(record?.site_data?.origins ?? {});
    const held = socket(ctx);
    // A channel that cannot say what loaded reads everything (and fails as the capture says).
    const reading = held.then((b) => beginRead(b, stored)).catch(() => null);
    // Only what a document loaded since the last save (or restore) is read again; the rest is carried.
    // A full read reads the history and whatever has a document now (a pop-up not yet in the history).
    // Worked out while the page and the jar are read: their commands go out together.
    const origins = reading.then((read) => {
      const fresh = read?.fresh ? new Set(read.fresh) : null;
      const all = [...new Set([...history, ...(read?.seen ?? [])])];
      return fresh ? all.filter((o) => fresh.has(o)) : all;
    });
    const { page: seen, ...captured } = await capture(
      () => held,
      () =>
        readPage(
          page,
          reading.then((r) => r?.tabs.get(page.where.tab) ?? null),
        ),
      origins,
      {
        tabs: ctx.services.config.site_data.tabs,
        frames: framesIn(ctx.browser.settings.browser),
        later: (closing) => ctx.effects.later(closing),
      },
    );
    const read = await reading;
    const fresh = read?.fresh ? new Set(read.fresh) : null;
    if (fresh) captured.carried = stored.filter((o) => !fresh.has(o));
    const now = ctx.services.now();
    if (!jarFits(captured.cookies, now)) throw badInput(JAR_OVER);
    const out = { ...(seen ?? (await page.state())), saved: replaced(), uri: SITE_DATA_URI };
    // The snapshot is taken inside the settle write, against the record as it is then; its receipt
    // is the result's once the write is in. A write that did not apply it leaves `replaced()`.
    ctx.effects.change((r, _browser, fill) => {
      const { data, receipt } = snapshot(r.site_data, captured, r.history, now);
      fill((result) => {
        // What loads from here counts toward the next save: the browser holds what was written.
        read?.saved(Object.keys(data.origins ?? {}));
        return { ...result, saved: receipt };
      });
      return withSiteData(r, data);
    });
    return out;
  },
});
