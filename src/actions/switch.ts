// Tabs and frames. Tabs are named by their index in the browser's own order (the order they were
// opened); window handles never leave the server.
import { type WebDriver, error as wd } from "selenium-webdriver";
import { z } from "zod";
import { badInput } from "../errors.ts";
import { defineAction, pageFields, webUrl } from "./define.ts";
import { failureOf, quoteSelector } from "./failures.ts";
import { locate, Selector, timeoutField } from "./selectors.ts";

const Tab = z.object({
  index: z.number().int().describe("What to pass as tab to switch to it."),
  url: z.string(),
  title: z.string(),
  current: z.boolean().describe("Whether later actions act on this tab."),
});
type TabInfo = z.infer<typeof Tab>;

const READ = "return [String(location.href), String(document.title), window.top === window]";

interface Here {
  url: string;
  title: string;
  inFrame: boolean;
}

/** The current document's url and title, and whether it is a frame. Empty while a dialog is open. */
async function here(driver: WebDriver): Promise<Here> {
  try {
    const got = (await driver.executeScript(READ)) as unknown;
    if (Array.isArray(got) && typeof got[0] === "string" && typeof got[1] === "string") {
      return { url: got[0], title: got[1], inFrame: got[2] === false };
    }
  } catch (err) {
    if (!(err instanceof wd.UnexpectedAlertOpenError)) throw err;
  }
  return { url: "", title: "", inFrame: false };
}

/** The current tab's handle, or null when the page closed it itself. */
async function currentHandle(driver: WebDriver): Promise<string | null> {
  try {
    return await driver.getWindowHandle();
  } catch (err) {
    if (err instanceof wd.NoSuchWindowError) return null;
    throw err;
  }
}

const noTab = (index: number, count: number) =>
  badInput(
    `there is no tab ${index}: this browser has ${count} tab${count === 1 ? "" : "s"} (0 to ${count - 1}); switch with tab "list" shows them`,
    "tab",
  );

// Reading another tab means switching to it; this returns to the current one afterwards (at its top
// document: a frame that was entered is left).
async function listTabs(driver: WebDriver, handles: string[], current: string | null): Promise<TabInfo[]> {
  const tabs: TabInfo[] = [];
  for (const [index, handle] of handles.entries()) {
    if (handles.length > 1 || handle !== current) await driver.switchTo().window(handle);
    const { url, title } = await here(driver);
    tabs.push({ index, url, title, current: handle === current });
  }
  if (current && handles.length > 1) await driver.switchTo().window(current);
  return tabs;
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
    'tab: "list" every tab; "new" opens one (at url) and switches; an index switches; "close" closes the current one.',
    "A link that opens a tab does not switch to it: list, then switch by index.",
    "frame: an iframe's selector enters it (outer ones first); null leaves. Changing tab leaves any frame.",
  ].join(" "),
  docs: [
    'tab "list" returns every tab (index, url, title, current); "close" switches to the tab before the closed one. Once in a frame, the other actions act inside it; null leaves to the top document.',
    "Returns the url and title of the document you are now in, tab (its index), in_frame, and tabs when listing.",
    "Indexes are the order the tabs were opened and shift when one closes; listing other tabs leaves any frame you were in. The only tab cannot be closed: use end_browser.",
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
      return await switching(ctx.browser.driver, input, ctx.land);
    } catch (err) {
      throw failureOf(err, input.frame ? { selector: input.frame, field: "frame" } : {});
    }
  },
});

interface SwitchInput {
  tab?: "list" | "new" | "close" | number;
  url?: string;
  frame?: Selector | null;
  timeout: number;
}

async function enterFrame(driver: WebDriver, frame: Selector, timeout: number): Promise<void> {
  const el = await locate(driver, frame, { timeout, field: "frame" });
  const tag = (await el.getTagName()).toLowerCase();
  if (tag !== "iframe" && tag !== "frame") {
    throw badInput(
      `${quoteSelector(frame)} is a <${tag}>, not a frame: name the <iframe> itself (read_page shows the page's frames)`,
      "frame",
    );
  }
  await driver.switchTo().frame(el);
}

async function switching(driver: WebDriver, input: SwitchInput, land: (url: string | null) => void) {
  const tab = input.tab;
  let tabs: TabInfo[] | undefined;
  if (tab !== undefined) {
    const handles = await driver.getAllWindowHandles();
    const current = await currentHandle(driver);
    if (tab === "list") {
      tabs = await listTabs(driver, handles, current);
    } else if (tab === "new") {
      await driver.switchTo().newWindow("tab");
      if (input.url) await driver.get(input.url);
    } else if (tab === "close") {
      if (handles.length <= 1) {
        throw badInput(
          "this is the browser's only tab and closing it would end the browser: use end_browser to end it, or navigate elsewhere",
          "tab",
        );
      }
      const at = current ? handles.indexOf(current) : handles.length;
      if (current) await driver.close();
      const rest = handles.filter((h) => h !== current);
      await driver.switchTo().window(rest[Math.max(0, Math.min(at - 1, rest.length - 1))]!);
    } else {
      const target = handles[tab];
      if (!target) throw noTab(tab, handles.length);
      await driver.switchTo().window(target);
    }
  }
  if (input.frame === null) await driver.switchTo().defaultContent();
  else if (input.frame) await enterFrame(driver, input.frame, input.timeout);
  const handles = await driver.getAllWindowHandles();
  const current = await currentHandle(driver);
  // A tab the page closed itself leaves the driver nowhere until it switches; listing moved it.
  for (const t of tabs ?? []) t.current = handles[t.index] === current;
  const state = await here(driver);
  // A frame's url is not a page to come back to; nothing is recorded while inside one.
  if (state.inFrame || !state.url) land(null);
  const index = current ? handles.indexOf(current) : -1;
  return {
    url: state.url,
    title: state.title,
    tab: index >= 0 ? index : null,
    in_frame: state.inFrame,
    ...(tabs ? { tabs } : {}),
  };
}
