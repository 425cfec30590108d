// The admin UI at a phone's and a desktop's size, in a real browser: nothing runs off the screen
// sideways, the top bar and the tab row wrap, table cells keep their text inside them, and the live
// view is the agent's page at its own aspect, as wide as the pane (the whole width on a phone).
// Two browsers: the agent's, and a viewer's opened at each size in turn. Every page checked is saved
// under .run/ui-shots/ (<size>-<page>.png) to look at.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { By, type WebDriver } from "selenium-webdriver";
import { waitOn } from "../support/e2e.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { decode } from "../support/png.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";
import {
  DESKTOP,
  layoutProblems,
  NARROW,
  PHONE,
  type Size,
  savePage,
  viewerAt,
} from "../support/ui-browser.ts";

const A = "e2e-layout-agent-workspace";
const V = "e2e-layout-viewer";
const site = serveFixture({
  "/": () =>
    html(`<title>Sign up</title><body style="font:16px sans-serif;margin:24px"><h1>Sign up</h1>
<label>Name <input id="name" style="width:177px;height:21px"></label>
<p>A long line of text that goes on and on so the page has something to read in its picture.</p></body>`),
  "/shop": () =>
    html(`<title>Shop</title><h1>Shop</h1><p>Tea · Cake · Jam
<script>document.cookie = "basket=tea-cake-jam; path=/"; localStorage.setItem("theme", "dark")</script>`),
});
let server: TestServer;
let driver: WebDriver;

async function agent(path: string, body: unknown): Promise<any> {
  const out = await server.call("POST", path, body, A);
  if (out.status !== 200) throw new Error(`${path}: ${out.status} ${JSON.stringify(out.body)}`);
  return out.body;
}

const waitFor = <T>(fn: () => Promise<T | null | undefined | false>, what: string, ms = 20_000) =>
  waitOn(driver, fn, what, ms);

let phone = false;

/**
 * Opens `path` and waits until `ready` (a CSS selector) shows and every pane has loaded. On a phone's
 * size the scroll bar takes no room, as on a phone (its bar is drawn over the page).
 */
async function visit(path: string, ready: string): Promise<void> {
  await driver.get(`${server.url}${path}`);
  if (phone)
    await driver.executeScript(() => document.documentElement.style.setProperty("scrollbar-width", "none"));
  await waitFor(
    () =>
      driver.executeScript<boolean>(
        (sel: string) =>
          document.querySelector(sel) !== null &&
          Array.from(document.querySelectorAll(".pane > p.empty")).every((p) => p.textContent !== "Loading…"),
        ready,
      ),
    `${path} to show ${ready}`,
  );
}

/** The page at `path` has no layout problem at this size; saved as `<size>-<name>.png`. */
async function checkPage(size: string, name: string, path: string, ready: string): Promise<void> {
  await visit(path, ready);
  await savePage(server, V, `${size}-${name}`);
  expect(await layoutProblems(driver)).toEqual([]);
}

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.grid.open_timeout = 540;
      c.timeline.screens = true;
      c.secrets.entries = {
        "shop-sign-in": {
          description: "the shop's sign-in, for the agent that keeps the basket",
          allowed_urls: ["shop.example.test", "accounts.shop.example.test"],
          keys: { user: { value: "ada@example.test" }, password: { value: "correct-horse-battery" } },
        },
      };
    },
  });
  await agent("/browser", {
    url: site.url("/shop", "shop.example.test"),
    viewport: { width: 1280, height: 720 },
  });
  await agent("/browser/save-site-data", {});
  const flow = await server.call(
    "PUT",
    "/flows/open-the-shop-and-look",
    {
      description: "open the shop and look at the basket",
      steps: [{ tool: "navigate", args: { url: site.url("/shop") } }],
    },
    A,
  );
  expect(flow.status).toBe(200);
  await agent("/browser/navigate", { url: site.url("/") });
  await agent("/browser/screenshot", {});
  await agent("/browser/interact/click", { selector: { css: "#gone" }, timeout: 0 }).catch(() => null);
}, 600_000);

afterAll(async () => {
  await endAll(server, [A, V]);
  await server.close();
  site.stop();
});

const SIZES: Array<[string, Size]> = [
  ["phone", PHONE],
  ["narrow", NARROW],
  ["desktop", DESKTOP],
];

for (const [label, size] of SIZES) {
  describe(`at ${label} size (${size.width}×${size.height})`, () => {
    beforeAll(async () => {
      driver = await viewerAt(server, V, size);
      phone = size.width < 600;
    }, 600_000);

    test("Workspaces: the top bar wraps, Sign out on screen", async () => {
      await checkPage(label, "workspaces", "/ui/", `[id="ws-${A}"]`);
      const out = await driver.findElement(By.css(".top .sign-out button")).getRect();
      expect(out.x + out.width).toBeLessThanOrEqual(size.width);
    }, 60_000);

    test("a workspace: the tab row wraps, every tab on screen", async () => {
      await checkPage(label, "workspace", `/ui/workspaces/${A}/timeline`, "#timelineList li.entry");
      const timeline = await driver.findElement(By.id("tabTimeline")).getRect();
      expect(timeline.x + timeline.width).toBeLessThanOrEqual(size.width);
    }, 60_000);

    test("a white page's screen thumbnail shows the page's edge, not a blank", async () => {
      await visit(`/ui/workspaces/${A}/timeline`, "#timelineList button.thumb img");
      const thumb = await driver.findElement(By.css("#timelineList button.thumb"));
      await waitFor(
        async () => Number(await thumb.findElement(By.css("img")).getAttribute("naturalWidth")) > 0,
        "the thumbnail",
      );
      const png = decode(Buffer.from(await thumb.takeScreenshot(), "base64"));
      if (!png) throw new Error("the thumbnail's picture could not be read");
      // Pixels that are not (near) white: the frame round the page's white sheet.
      let marked = 0;
      for (let i = 0; i < png.rows.length; i += png.bpp)
        if (Math.min(png.rows[i] ?? 0, png.rows[i + 1] ?? 0, png.rows[i + 2] ?? 0) < 235) marked++;
      expect(marked / (png.width * png.height)).toBeGreaterThan(0.12);
    }, 60_000);

    test("the live view is the page at its own aspect, as wide as the pane", async () => {
      await visit(`/ui/workspaces/${A}`, "#liveScreen img");
      const at = await waitFor(
        () =>
          driver.executeScript<number[] | null>(() => {
            const img = document.querySelector<HTMLImageElement>("#liveScreen img");
            if (!img?.naturalWidth) return null;
            const r = img.getBoundingClientRect();
            const pane = document.querySelector("main")?.getBoundingClientRect();
            const style = getComputedStyle(document.querySelector("main") as Element);
            const inner = (pane?.width ?? 0) - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            return [
              r.width,
              r.height,
              img.naturalWidth,
              img.naturalHeight,
              inner,
              document.documentElement.clientWidth,
            ];
          }),
        "the live picture",
      );
      const [w, h, nw, nh, pane, screen] = at as [number, number, number, number, number, number];
      // The agent's 1280×720 page, at its aspect.
      expect(nw / nh).toBeCloseTo(1280 / 720, 1);
      expect(w / h).toBeCloseTo(nw / nh, 1);
      // As wide as the pane (less the card's frame); on a phone, the whole screen.
      if (size.width < 600) expect(w).toBeGreaterThanOrEqual(screen - 1);
      else expect(w).toBeGreaterThanOrEqual(pane - 20);
      // The page's 177×21 field at a readable size: on a desktop at least three quarters of it.
      if (size.width >= 1000) expect((177 * w) / nw).toBeGreaterThanOrEqual(177 * 0.75);
    }, 60_000);

    test("Settings and Activity: no cell's text runs over its neighbour", async () => {
      await checkPage(label, "settings", "/ui/settings", "table.table td");
      await checkPage(label, "activity", "/ui/activity", "table.table td");
    }, 60_000);

    test("Files, History, Site data, Flows and Secrets fit", async () => {
      await checkPage(label, "files", `/ui/workspaces/${A}/files`, "#paneFiles section");
      await checkPage(label, "history", `/ui/workspaces/${A}/history`, "#paneHistory section");
      await checkPage(label, "site-data", `/ui/workspaces/${A}/site-data`, "#paneSiteData");
      await checkPage(label, "flows", `/ui/workspaces/${A}/flows`, "#paneFlows");
      await checkPage(label, "secrets", "/ui/secrets", "main h1");
    }, 90_000);
  });
}
