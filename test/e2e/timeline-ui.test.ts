// The live view and the Timeline tab in a real browser on the test Grid. Two browsers: the agent's
// (driven over REST) and a viewer's, whose workspace browser shows the admin pages (attached by id,
// so the test's clicks are not calls). The viewer watches the agent live, sees its entries arrive
// with their screens, keeps a range as a flow, and when it leaves nothing more is taken.
// DOCS_SCREENSHOT=1 writes the Timeline tab's picture to docs/timeline.png for the README.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { By, until, type WebDriver, type WebElement } from "selenium-webdriver";
import { waitOn } from "../support/e2e.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { countLooks, type Looks } from "../support/live-frames.ts";
import { actionPages } from "../support/pages.ts";
import { endAll, startServer, type TestServer, TOKEN } from "../support/server.ts";

const A = "e2e-agent";
const V = "e2e-viewer";
const site = serveFixture({
  ...actionPages,
  "/": () =>
    html(
      '<title>Shop</title><body style="background:#e8f0ff;font:20px sans-serif"><h1>Shop</h1><p>Tea · Cake · Jam</p></body>',
    ),
  "/two": () =>
    html(
      '<title>Basket</title><body style="background:#fff2d8;font:20px sans-serif"><h1>Basket</h1><p>2 items</p></body>',
    ),
});
let server: TestServer;
let driver: WebDriver;
let looks: Looks;

async function agent(method: string, path: string, body?: unknown) {
  const out = await server.call(method, path, body, A);
  if (out.status !== 200) throw new Error(`${method} ${path}: ${out.status} ${JSON.stringify(out.body)}`);
  return out.body;
}

const waitFor = <T>(fn: () => Promise<T | null | undefined | false>, what: string, ms = 20_000) =>
  waitOn(driver, fn, what, ms);

// Read in the page in one go: the live picture is replaced every second, so a handle to it goes stale.
const liveSrc = () =>
  driver.executeScript<string | null>(
    "return document.querySelector('#liveScreen img')?.getAttribute('src') ?? null",
  );
const entryIds = async () =>
  Promise.all((await driver.findElements(By.css("#timelineList li.entry"))).map((e) => e.getAttribute("id")));

beforeAll(async () => {
  // Two browsers at once: on a shared Grid the second may wait a while for its slot.
  server = await startServer({
    configure: (c) => {
      c.grid.open_timeout = 540;
    },
  });
  looks = countLooks(server.app.services.timeline.live);
  await agent("POST", "/browser", { url: site.url("/") });
  const opened = await server.call(
    "POST",
    "/browser",
    { url: `${server.url}/ui/`, width: 1280, height: 1000 },
    V,
  );
  expect(opened.status).toBe(200);
  const record = await server.app.services.store.get(V);
  driver = server.app.services.grid.attach(record?.session_id as string);
  await driver.findElement(By.id("token")).sendKeys(TOKEN);
  await driver.findElement(By.css("form.sign-in button[type=submit]")).click();
  await driver.wait(until.elementLocated(By.id(`ws-${A}`)), 15_000);
}, 600_000);

afterAll(async () => {
  await endAll(server, [A, V]);
  await server.close();
  site.stop();
});

describe("watching a workspace", () => {
  test("the live view shows the agent's browser and follows it about once a second", async () => {
    await driver.get(`${server.url}/ui/workspaces/${A}/timeline`);
    const first = await waitFor(async () => {
      const src = await liveSrc();
      return src?.startsWith("data:image/jpeg;base64,") && src;
    }, "the first live frame");
    expect(server.app.services.timeline.live.watched(A)).toBe(true);
    await driver.executeScript("window.__samePage = true");
    await agent("POST", "/browser/navigate", { url: site.url("/two") });
    const next = await waitFor(async () => {
      const src = await liveSrc();
      return src && src !== first && src;
    }, "a frame of the new page");
    expect(next.startsWith("data:image/jpeg;base64,")).toBe(true);
    const width = await waitFor(
      () =>
        driver.executeScript<number>("return document.querySelector('#liveScreen img')?.naturalWidth ?? 0"),
      "the live picture to be drawn",
    );
    expect(width).toBeGreaterThan(100);
    expect(await driver.executeScript("return window.__samePage === true")).toBe(true);
  }, 90_000);

  test("the Timeline tab puts each new call on top as it happens, with its screen; a click opens the large one", async () => {
    await driver.executeScript("window.__samePage = true");
    // The last test's navigate is written once its screen is in, after it answered (its write may
    // not even be queued yet): wait until no entry comes for a while and none is pending, then for
    // the newest to be on the page, or it would land between `before` and this test's entry.
    const timeline = server.app.services.timeline;
    let shown = -1;
    for (
      let seen = (await timeline.summary(A)).last;
      seen !== shown;
      seen = (await timeline.summary(A)).last
    ) {
      shown = seen;
      await Bun.sleep(1_000);
      await timeline.settled(A);
    }
    await waitFor(async () => (await entryIds())[0] === `entry${shown}`, "the last test's entry on top");
    const before = await entryIds();
    // A tick made while the agent works stays: new entries go on top, the rest is left alone.
    const ticked = await driver.findElement(By.css("#timelineList li.entry input[name=entry]"));
    await ticked.click();
    await agent("POST", "/browser/navigate", { url: site.url("/") });
    const n = server.app.services.timeline;
    const last = (await n.summary(A)).last;
    await waitFor(async () => (await entryIds())[0] === `entry${last}`, "the new entry on top");
    // What was shown stays as it was, below only newer entries (the last test's may land late too).
    const ids = await entryIds();
    const at = ids.indexOf(before[0] as string);
    expect(ids.slice(at, at + before.length)).toEqual(before);
    expect(ids.slice(0, at).every((id) => Number(id?.slice(5)) > Number(before[0]?.slice(5)))).toBe(true);
    expect(at).toBeGreaterThanOrEqual(1);
    expect(await driver.findElement(By.css(`#${before[0]} input[name=entry]`)).isSelected()).toBe(true);
    await driver.findElement(By.css(`#${before[0]} input[name=entry]`)).click();
    expect(await driver.executeScript("return window.__samePage === true")).toBe(true);
    const entry = await driver.findElement(By.id(`entry${last}`));
    expect(await entry.findElement(By.css("code.tool")).getText()).toBe("navigate");
    expect(await entry.findElement(By.css(".pill.ok")).getText()).toBe("ok");
    // Watched, so kept with a screen; the thumbnail loads the JPEG.
    const thumb = await entry.findElement(By.css("button.thumb img"));
    await waitFor(async () => Number(await thumb.getAttribute("naturalWidth")) > 0, "the thumbnail to load");
    await entry.findElement(By.css("button.thumb")).click();
    const box = await driver.findElement(By.id(`screen${last}`));
    await driver.wait(until.elementIsVisible(box), 5_000);
    const large = await box.findElement(By.css("img"));
    expect(Number(await large.getAttribute("naturalWidth"))).toBeGreaterThan(500);
    expect((await large.getRect()).width).toBeGreaterThan((await thumb.getRect()).width * 2);
    await box.findElement(By.xpath(".//button[text()='Close']")).click();
    await driver.wait(until.elementIsNotVisible(box), 5_000);

    // A failed call: its status pill and its error in full.
    const failed = await server.call(
      "POST",
      "/browser/interact/click",
      { selector: { css: "#gone" }, timeout: 0 },
      A,
    );
    expect(failed.status).toBe(400);
    const bad = await waitFor<WebElement>(async () => {
      const [top] = await driver.findElements(By.css("#timelineList li.entry"));
      if (!top) return null;
      return ((await top.getAttribute("class")) ?? "").includes("failed") ? top : null;
    }, "the failed entry");
    expect(await bad.findElement(By.css(".pill.failed")).getText()).toBe("400");
    expect(await bad.findElement(By.css("p.error")).getText()).toBe(failed.body.error);
  }, 90_000);

  test("a ticked range saved as a flow shows in the Flows tab and replays to the same page", async () => {
    const nav = (await agent("POST", "/browser/navigate", { url: site.url("/form") })) as { url: string };
    expect(nav.url).toBe(site.url("/form"));
    await agent("POST", "/browser/read", {});
    await agent("POST", "/browser/write", { selector: { label: "Email" }, text: "ada@example.test" });
    const done = (await agent("POST", "/browser/interact/click", { selector: { css: "#go" } })) as {
      url: string;
    };
    const { last } = await server.app.services.timeline.summary(A);
    await waitFor(async () => (await entryIds())[0] === `entry${last}`, "the run's entries");
    if (process.env.DOCS_SCREENSHOT) {
      // The live view's next frame shows where the run ended.
      await Bun.sleep(2_000);
      await driver.executeScript("window.scrollTo(0, 0)");
      const png = await driver.takeScreenshot();
      writeFileSync(join(import.meta.dir, "../../docs/timeline.png"), Buffer.from(png, "base64"));
    }
    // Only this test's ticks: one left by a test that failed would widen the range.
    for (const box of await driver.findElements(By.css("input[name=entry]:checked"))) await box.click();
    await driver.findElement(By.css(`input[name=entry][value="${last - 3}"]`)).click();
    await driver.findElement(By.css(`input[name=entry][value="${last}"]`)).click();
    await driver.findElement(By.css("#timelineForm input[name=name]")).sendKeys("kept-run");
    await driver.findElement(By.id("saveAsFlow")).click();
    const notice = await driver.wait(until.elementLocated(By.css("#paneTimeline .notice")), 10_000);
    expect(await notice.getText()).toBe("Saved as flow kept-run.");

    await driver.findElement(By.id("tabFlows")).click();
    const row = await driver.wait(until.elementLocated(By.css("#paneFlows section.section")), 10_000);
    expect(await row.findElement(By.css(".title")).getText()).toBe("kept-run");
    expect(await row.findElement(By.css(".muted")).getText()).toContain("3 steps");

    await agent("POST", "/browser/navigate", { url: site.url("/two") });
    const run = (await agent("POST", "/flows/kept-run/run", {})) as { status: string; url: string };
    expect(run.status).toBe("ok");
    expect(run.url).toBe(done.url);
  }, 120_000);

  test("leaving the page ends the watch: no more frames, and calls keep no screen", async () => {
    const live = server.app.services.timeline.live;
    expect(live.watched(A)).toBe(true);
    await driver.get("about:blank");
    await waitFor(async () => !live.watched(A), "the watch to end", 15_000);
    // A frame already on its way when the page closed may still land; then nothing more.
    await waitFor(async () => looks.under === 0, "the live view's last look to end", 5_000);
    const { taken } = looks;
    await agent("POST", "/browser/navigate", { url: site.url("/") });
    await Bun.sleep(2_500);
    expect(looks.taken).toBe(taken);
    const [top] = (await server.app.services.timeline.batch(A, { limit: 1 })).entries;
    expect([top?.tool, top?.screen]).toEqual(["navigate", undefined]);
  }, 60_000);
});
