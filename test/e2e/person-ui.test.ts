// A person in the loop, in a real browser: an agent's ask_human waits; the admin, signed in to the
// UI in a second browser, sees the question, takes over, clicks the agent's page's button on the
// live picture, answers and hands back, and the agent's call returns with those words.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { By, until, type WebDriver } from "selenium-webdriver";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer, TOKEN } from "../support/server.ts";

const AGENT = "e2e-person-agent";
const VIEWER = "e2e-person-viewer";
const site = serveFixture({
  "/": () =>
    html(`<title>waiting</title><style>body{margin:0}#b{position:absolute;left:0;top:0;width:400px;height:300px}</style>
<button id="b" onclick="document.title='clicked'">Press</button>`),
});
let server: TestServer;
let driver: WebDriver;

async function rest(workspace: string, path: string, body: unknown) {
  const out = await server.call("POST", path, body, workspace);
  if (out.status !== 200) throw new Error(`${path}: ${out.status} ${JSON.stringify(out.body)}`);
  return out.body;
}

beforeAll(async () => {
  server = await startServer();
  await rest(AGENT, "/browser/navigate", { url: site.url("/") });
  await rest(VIEWER, "/browser/navigate", { url: `${server.url}/ui/` });
  const record = await server.app.services.store.get(VIEWER);
  driver = server.app.services.grid.attach(record?.session_id as string);
}, 240_000);

afterAll(async () => {
  await endAll(server, [AGENT, VIEWER]);
  await server.close();
  site.stop();
});

test("see the question, take over, click on the live picture, answer: the agent gets the words", async () => {
  await driver.findElement(By.id("token")).sendKeys(TOKEN);
  await driver.findElement(By.css("form.sign-in button[type=submit]")).click();
  await driver.wait(until.elementLocated(By.id(`ws-${AGENT}`)), 10_000);

  const asked = server.call(
    "POST",
    "/browser/ask-human",
    { question: "Press the big button", timeout: 120 },
    AGENT,
  );
  // The card stands out at once, over SSE.
  const card = await driver.wait(until.elementLocated(By.css(`[id="ws-${AGENT}"].waiting`)), 10_000);
  expect(await card.findElement(By.css(".asks")).getText()).toContain("Press the big button");

  await driver.get(`${server.url}/ui/workspaces/${AGENT}`);
  const ask = await driver.wait(until.elementLocated(By.css("#wsAsk.asking")), 10_000);
  expect(await ask.findElement(By.css(".question")).getText()).toContain("Press the big button");
  const img = await driver.wait(until.elementLocated(By.css("#liveScreen img")), 20_000);

  await driver.findElement(By.css("#takeOver .take")).click();
  expect(await driver.findElement(By.css("#takeOver .take")).getAttribute("aria-pressed")).toBe("true");
  // The button covers the page's top-left 400×300: click the picture where (100, 100) of the page is.
  const at = (await driver.executeScript(
    "const r = arguments[0].getBoundingClientRect(); return [r.width, r.height, arguments[0].naturalWidth, arguments[0].naturalHeight];",
    img,
  )) as number[];
  const [w, h, nw, nh] = at as [number, number, number, number];
  const x = Math.round((100 * w) / nw - w / 2);
  const y = Math.round((100 * h) / nh - h / 2);
  await driver.actions().move({ origin: img, x, y }).click().perform();

  // The agent's page has its click: the person's input answers where it left the page (an agent's
  // call would wait for Hand back now), and its timeline entry says so.
  let title = "";
  for (let i = 0; i < 50 && title !== "clicked"; i++) {
    await server.app.services.timeline.settled(AGENT);
    const { entries } = await server.app.services.timeline.batch(AGENT, { limit: 10 });
    title = entries.find((e) => e.surface === "person" && e.tool === "person_input")?.title ?? "";
    if (title !== "clicked") await Bun.sleep(100);
  }
  expect(title).toBe("clicked");

  await ask.findElement(By.css("input[name=text]")).sendKeys("pressed it for you");
  await ask.findElement(By.css("button[type=submit]")).click();
  const res = await asked;
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    answered: true,
    answer: "pressed it for you",
    url: site.url("/"),
    title: "clicked",
  });
  await driver.wait(until.elementLocated(By.css("#wsAsk[hidden]")), 10_000);
}, 180_000);
