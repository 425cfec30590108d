// The admin UI in a real browser on the test Grid. One browser: the workspace's own. The agent's
// REST calls take it to two fixture sites and then to the admin pages; the test drives those pages
// through the same browser (attached by id, so its own clicks leave the history alone).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { By, until, type WebDriver, type WebElement } from "selenium-webdriver";
import { waitOn } from "../support/e2e.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer, TOKEN } from "../support/server.ts";

const W = "e2e-ui";
const site = serveFixture({
  "/": () => html("<title>App</title><p>app"),
  "/shop": () => html("<title>Shop</title><p>shop"),
});
let server: TestServer;
let driver: WebDriver;

async function adminGet(path: string): Promise<any> {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return res.json();
}

async function rest(method: string, path: string, body?: unknown) {
  const out = await server.call(method, path, body, W);
  if (out.status !== 200) throw new Error(`${method} ${path}: ${out.status} ${JSON.stringify(out.body)}`);
  return out.body;
}

const waitFor = <T>(fn: () => Promise<T | null | undefined | false>, what: string, ms = 15_000) =>
  waitOn(driver, fn, what, ms);

/**
 * Shows the tab `tab` (its pane `pane`): a click the page takes before its script does is lost, as a
 * person's would be, so the tab is clicked again until its pane shows. A hidden pane's rows are in
 * the page already (every pane loads), but read as empty text.
 */
async function showTab(tab: string, pane: string): Promise<void> {
  await driver.wait(until.elementLocated(By.id(tab)), 10_000);
  await waitFor(async () => {
    if (
      await driver
        .findElement(By.id(pane))
        .isDisplayed()
        .catch(() => false)
    )
      return true;
    await driver
      .findElement(By.id(tab))
      .click()
      .catch(() => undefined);
    await Bun.sleep(300);
    return false;
  }, `the ${pane} pane to show`);
}

async function rows(): Promise<WebElement[]> {
  return driver.findElements(By.css("#paneHistory section.section"));
}

beforeAll(async () => {
  server = await startServer();
  await rest("POST", "/browser", { url: site.url("/") });
  await rest("POST", "/browser/navigate", { url: site.url("/shop", "shop.example.test") });
  await rest("POST", "/browser/navigate", { url: `${server.url}/ui/` });
  const record = await server.app.services.store.get(W);
  driver = server.app.services.grid.attach(record?.session_id as string);
}, 180_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

describe("the admin UI", () => {
  test("signs in with the token and shows the workspace's card", async () => {
    expect(await driver.findElement(By.css("h1")).getText()).toBe("Sign in");
    await driver.findElement(By.id("token")).sendKeys("not-the-token");
    await driver.findElement(By.css("form.sign-in button[type=submit]")).click();
    const error = await driver.wait(until.elementLocated(By.css("form.sign-in .error")), 10_000);
    expect(await error.getText()).toContain("wrong token");
    await driver.findElement(By.id("token")).sendKeys(TOKEN);
    await driver.findElement(By.css("form.sign-in button[type=submit]")).click();
    const card = await driver.wait(until.elementLocated(By.id(`ws-${W}`)), 10_000);
    expect(await card.findElement(By.css(".page")).getText()).toBe(`${server.url}/ui/`);
    expect(await card.findElement(By.css(".pill")).getText()).toBe("live");
  }, 60_000);

  test("the card follows a REST call in its workspace without a reload", async () => {
    await driver.executeScript("window.__samePage = true");
    // A fragment navigation: the page stays, the workspace's last page moves.
    await rest("POST", "/browser/navigate", { url: `${server.url}/ui/#later` });
    const page = await waitFor(async () => {
      // A live update may swap the card between finding it and reading it: then read it again.
      const text = await driver
        .findElement(By.css(`[id="ws-${W}"] .page`))
        .getText()
        .catch((e: Error) => {
          if (e.name === "StaleElementReferenceError") return "";
          throw e;
        });
      return text === `${server.url}/ui/#later` && text;
    }, "the card's last page to change");
    expect(page).toBe(`${server.url}/ui/#later`);
    expect(await driver.executeScript("return window.__samePage === true")).toBe(true);
  }, 60_000);

  test("the History tab lists the sites, and Clear asks first: Cancel keeps, Clear clears", async () => {
    await driver.findElement(By.css(`[id="ws-${W}"] a.title`)).click();
    await showTab("tabHistory", "paneHistory");
    await waitFor(async () => (await rows()).length === 3, "three History rows");
    expect(await driver.findElement(By.id("historyTotal")).getText()).toBe("3");
    const titles = await Promise.all((await rows()).map((r) => r.findElement(By.css(".title")).getText()));
    expect(titles).toEqual([
      `${server.url}/ui/#later`,
      site.url("/shop", "shop.example.test"),
      site.url("/"),
    ]);

    const dialog = await driver.findElement(By.id("clearHistoryConfirm"));
    expect(await dialog.isDisplayed()).toBe(false);
    await driver.findElement(By.id("clearHistory")).click();
    await driver.wait(until.elementIsVisible(dialog), 5_000);
    expect(await dialog.findElement(By.css(".head")).getText()).toBe("Clear history");
    expect(await dialog.findElement(By.css("p")).getText()).toBe(
      "History only: site data and the browser are untouched.",
    );
    const pairs = await Promise.all((await dialog.findElements(By.css(".pair .pv"))).map((p) => p.getText()));
    expect(pairs[1]).toBe("127.0.0.1, the current site");

    await dialog.findElement(By.xpath(".//button[text()='Cancel']")).click();
    await driver.wait(until.elementIsNotVisible(dialog), 5_000);
    expect(await rows()).toHaveLength(3);
    expect((await adminGet(`/admin/workspaces/${W}/history`)).sites).toHaveLength(3);

    await driver.findElement(By.id("clearHistory")).click();
    await driver.wait(until.elementIsVisible(dialog), 5_000);
    await dialog.findElement(By.css("button.danger")).click();
    await waitFor(async () => (await rows()).length === 1, "one History row after Clear");
    expect(await driver.findElement(By.id("historyTotal")).getText()).toBe("1");
    expect(await driver.findElements(By.id("clearHistory"))).toHaveLength(0);
    const left = await adminGet(`/admin/workspaces/${W}/history`);
    expect(left.sites.map((s: { site: string }) => s.site)).toEqual(["127.0.0.1"]);
  }, 90_000);

  test("a pushed row reloads the History pane when its revision moves", async () => {
    await driver.executeScript("window.__samePage = true");
    const here = (await driver.getCurrentUrl()).replace(/#.*$/, "");
    await rest("POST", "/browser/navigate", { url: `${here}#moved` });
    await waitFor(async () => {
      const [row] = await rows();
      return row && (await row.findElement(By.css(".title")).getText()) === `${here}#moved`;
    }, "the History row to show the new page");
    expect(await driver.executeScript("return window.__samePage === true")).toBe(true);
  }, 60_000);

  test("folds are the reader's, kept across a reload; a History pill opens its Site data row", async () => {
    const cookie = (name: string, domain: string) => ({
      name,
      value: "v",
      value_type: "string" as const,
      domain,
      path: "/",
      http_only: false,
      secure: false,
      same_site: null,
      expiry: null,
    });
    await server.app.services.store.update(W, (r) =>
      r
        ? {
            ...r,
            site_data: {
              saved_at: Date.now() / 1000,
              cookies: [cookie("a", "127.0.0.1"), cookie("b", "shop.example.test")],
            },
          }
        : null,
    );
    server.app.services.events.changed(W);
    const expanded = async () =>
      Promise.all(
        (await driver.findElements(By.css("#paneSiteData section.section > .head > button"))).map((b) =>
          b.getAttribute("aria-expanded"),
        ),
      );
    await driver.get(`${server.url}/ui/workspaces/${W}/site-data`);
    await waitFor(async () => (await expanded()).length === 2, "two Site data rows");
    expect(await expanded()).toEqual(["true", "false"]);
    const heads = await driver.findElements(By.css("#paneSiteData section.section > .head > button"));
    await heads[1]?.click();
    await heads[0]?.click();
    expect(await expanded()).toEqual(["false", "true"]);
    expect(await driver.findElement(By.id(`site-${W}:127.0.0.1Body`)).isDisplayed()).toBe(false);

    await driver.navigate().refresh();
    await waitFor(async () => (await expanded()).length === 2, "the rows after a reload");
    expect(await expanded()).toEqual(["false", "true"]);

    await showTab("tabHistory", "paneHistory");
    const pill = await driver.wait(until.elementLocated(By.css("#paneHistory .pill.link")), 10_000);
    expect(await pill.getText()).toBe("1 cookie");
    await pill.click();
    await waitFor(async () => (await expanded())[0] === "true", "the linked row to open");
    expect(await driver.getCurrentUrl()).toBe(`${server.url}/ui/workspaces/${W}/site-data/127.0.0.1`);
    expect(await driver.findElement(By.id(`site-${W}:127.0.0.1Body`)).isDisplayed()).toBe(true);
  }, 60_000);
});
