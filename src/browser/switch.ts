// Tabs and frames. Tabs are named by their index in the browser's own order (the order they were
// opened, as its context tree lists them); context ids never leave the server. Where the agent is
// (its tab, and the frame in it) is the call's page's `where`, which the manager keeps in the record.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import type { Effects } from "../actions/effects.ts";
import { pageFields, webUrl } from "../actions/fields.ts";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef, WindowRef } from "../grid/page-call.ts";
import { mapDriverError, quoteSelector } from "./failures.ts";
import { locate, Selector, timeoutField } from "./selectors.ts";

const Tab = z.object({
  index: z.number().int().describe("What to pass as tab to switch to it."),
  url: z.string(),
  title: z.string(),
  current: z.boolean().describe("Whether later actions act on this tab."),
});
type TabInfo = z.infer<typeof Tab>;

const noTab = (index: number, count: number) =>
  badInput(
    `there is no tab ${index}: this browser has ${count} tab${count === 1 ? "" : "s"} (0 to ${count - 1}); switch with tab "list" shows them`,
    "tab",
  );

async function listTabs(page: Page, handles: string[]): Promise<TabInfo[]> {
  const tree = await page.tabs();
  const urls = new Map(tree.map((t) => [t.context, t.url]));
  return Promise.all(
    handles.map(async (handle, index) => {
      const title = await page.callIn<string>(handle, "docTitle").catch(() => "");
      return { index, url: urls.get(handle) ?? "", title, current: handle === page.where.tab };
    }),
  );
}

const tabArg = z.preprocess(
  (v) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v),
  z.union([z.enum(["list", "new", "close"]), z.number().int().min(0).max(999)]),
);

export const switchTo = defineAction({
  name: "switch",
  http: { method: "POST", path: "/browser/switch" },
  title: "Switch tab or frame",
  description: [
    "Choose the tab, and the frame in it, that other actions work on.",
    'tab: "list" lists; "new" opens one (at url); an index switches; "close" closes the current one.',
    "frame: an iframe's selector enters it (outer first); null leaves. Changing tab leaves any frame.",
  ].join(" "),
  docs: [
    'tab "list" returns every tab (index, url, title, current); "close" switches to the tab before the closed one. Once in a frame, the other actions act inside it; null leaves to the top document.',
    "Returns the url and title of the document you are now in, tab (its index), in_frame, and tabs when listing.",
    "Indexes are the order the tabs were opened and shift when one closes. The only tab cannot be closed: use end_browser.",
  ].join(" "),
  input: z
    .strictObject({
      tab: tabArg
        .optional()
        .meta({ docs: '"list", "new", "close", or the index of a tab to switch to (see "list").' }),
      url: webUrl()
        .optional()
        .describe('With tab "new": its page.')
        .meta({ docs: 'With tab "new": the page to open in it.' }),
      frame: Selector.nullable()
        .optional()
        .describe("An iframe to enter, or null for the top document.")
        .meta({
          docs: "An iframe to enter (inside the current document), or null to leave to the top document.",
        }),
      timeout: timeoutField(),
    })
    .refine((i) => i.tab !== undefined || i.frame !== undefined, {
      message: "give tab, frame, or both (the tab is chosen first)",
      path: ["tab"],
    })
    .refine((i) => i.url === undefined || i.tab === "new", {
      message: 'url goes with tab "new" only; use navigate to move the current tab',
      path: ["url"],
    }),
  output: z.object({
    tab: z.number().int().nullable().describe("The index of the tab you are in now."),
    in_frame: z.boolean().describe("Whether you are inside a frame (url and title are the frame's)."),
    tabs: z.array(Tab).optional().describe('Every tab, with tab "list".'),
    ...pageFields,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    try {
      return await switching(await ctx.browser.page(), input, ctx.effects);
    } catch (err) {
      throw mapDriverError(err, input.frame ? { selector: input.frame, field: "frame" } : {});
    }
  },
});

interface SwitchInput {
  tab?: "list" | "new" | "close" | number;
  url?: string;
  frame?: Selector | null;
  timeout: number;
}

async function enterFrame(page: Page, frame: Selector, timeout: number): Promise<void> {
  const el: NodeRef = await locate(page, frame, { timeout, field: "frame" });
  const got = await page.callIn<{ tag: string; window?: WindowRef | null }>(el.context, "frameWindow", el);
  if (got.tag !== "iframe" && got.tag !== "frame") {
    throw badInput(
      `${quoteSelector(frame)} is a <${got.tag}>, not a frame: name the <iframe> itself (read_page shows the page's frames)`,
      "frame",
    );
  }
  if (!got.window?.window)
    throw badInput(`${quoteSelector(frame)} holds no document yet: retry in a moment`, "frame");
  page.where.frame = got.window.window;
}

async function switching(page: Page, input: SwitchInput, effects: Effects) {
  const tab = input.tab;
  let tabs: TabInfo[] | undefined;
  // A tab the page closed itself leaves the agent in the tab that opened it, else the first.
  const listed = await page.tabs();
  page.rehome(listed);
  const open = listed.map((t) => t.context);
  if (tab !== undefined) {
    const handles = open;
    if (tab === "list") {
      tabs = await listTabs(page, handles);
    } else if (tab === "new") {
      const made = await page.send("browsingContext.create", { type: "tab" });
      page.where.tab = made.context;
      page.where.frame = null;
      if (input.url) await page.goto(input.url);
    } else if (tab === "close") {
      if (handles.length <= 1) {
        throw badInput(
          "this is the browser's only tab and closing it would end the browser: use end_browser to end it, or navigate elsewhere",
          "tab",
        );
      }
      const current = page.where.tab;
      const at = handles.includes(current) ? handles.indexOf(current) : handles.length;
      if (handles.includes(current)) await page.send("browsingContext.close", { context: current });
      const rest = handles.filter((h) => h !== current);
      page.where.tab = rest[Math.max(0, Math.min(at - 1, rest.length - 1))] as string;
      page.where.frame = null;
      await page.front();
    } else {
      const target = handles[tab];
      if (!target) throw noTab(tab, handles.length);
      if (target !== page.where.tab) {
        page.where.tab = target;
        page.where.frame = null;
        await page.front();
      }
    }
  }
  if (input.frame === null) page.where.frame = null;
  else if (input.frame) await enterFrame(page, input.frame, input.timeout);
  const handles = (await page.tabs()).map((t) => t.context);
  const inFrame = page.where.frame !== null;
  let state = { url: "", title: "" };
  if (!page.prompt) state = await page.state(page.context);
  // A frame's url is not a page to come back to; nothing is recorded while inside one.
  const index = handles.indexOf(page.where.tab);
  const out = {
    url: state.url,
    title: state.title,
    tab: index >= 0 ? index : null,
    in_frame: inFrame,
    ...(tabs ? { tabs } : {}),
  };
  if (inFrame || !state.url) effects.land(null);
  return out;
}
