// The typed BiDi socket against a real browser on the test Grid, through the Grid's BiDi proxy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowsingContext, Network } from "webdriver-bidi-protocol";
import { AppError } from "../../src/errors.ts";
import { BidiError, BidiSocket, remoteValue } from "../../src/grid/bidi.ts";
import { Grid } from "../../src/grid/webdriver.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";

const COOKIE_VALUE = "sess-0f3a9c";
const site = serveFixture({
  "/": () => html("<title>home</title>", { "set-cookie": `sid=${COOKIE_VALUE}; HttpOnly; Path=/` }),
  "/a": () => html("<title>page a</title>"),
  "/b": () => html("<title>page b</title>"),
});
const grid = new Grid(testGridUrl);
let id = "";
let main = "";
const sockets: BidiSocket[] = [];

async function connect(opts?: { commandTimeoutMs?: number }): Promise<BidiSocket> {
  const s = opts ? await BidiSocket.connect(grid.bidiUrl(id), opts) : await grid.bidi(id);
  sockets.push(s);
  return s;
}

async function evaluate(bidi: BidiSocket, context: string, expression: string): Promise<unknown> {
  const r = await bidi.send("script.evaluate", { expression, target: { context }, awaitPromise: true });
  if (r.type !== "success") throw new Error(r.exceptionDetails.text);
  return remoteValue(r.result);
}

beforeAll(async () => {
  const opened = await grid.open({ browser: "chrome" });
  id = opened.id;
  main = await opened.driver.getWindowHandle();
});

afterAll(async () => {
  for (const s of sockets) s.close();
  if (id) await grid.end(id);
  site.stop();
});

describe("the BiDi socket", () => {
  test("reads an httpOnly cookie the page itself cannot see", async () => {
    await grid.attach(id).get(site.url("/"));
    expect(await grid.attach(id).executeScript("return document.cookie")).toBe("");
    const bidi = await connect();
    const { cookies } = await bidi.send("storage.getCookies", {});
    const sid = cookies.find((c) => c.name === "sid");
    expect(sid).toMatchObject({
      domain: "app.example.test",
      httpOnly: true,
      value: { type: "string", value: COOKIE_VALUE },
    });
  });

  test("creates a background tab, navigates it and evaluates in it", async () => {
    const bidi = await connect();
    const { context } = await bidi.send("browsingContext.create", { type: "tab", background: true });
    expect(context).not.toBe(main);
    const nav = await bidi.send("browsingContext.navigate", {
      context,
      url: site.url("/a"),
      wait: "complete",
    });
    expect(nav.url).toBe(site.url("/a"));
    expect(await evaluate(bidi, context, "document.title")).toBe("page a");
    const tree = await bidi.send("browsingContext.getTree", { maxDepth: 0 });
    expect(tree.contexts.map((c) => c.context)).toEqual(expect.arrayContaining([main, context]));
    // The main tab is where it was: the background tab did not take over.
    expect(await grid.attach(id).getCurrentUrl()).toBe(site.url("/"));
    await bidi.send("browsingContext.close", { context });
    const after = await bidi.send("browsingContext.getTree", { maxDepth: 0 });
    expect(after.contexts.map((c) => c.context)).not.toContain(context);
  });

  test("routes events to the context they belong to; unsubscribe stops them", async () => {
    const bidi = await connect();
    const tabs = await Promise.all(
      [0, 1].map(
        async () => (await bidi.send("browsingContext.create", { type: "tab", background: true })).context,
      ),
    );
    const [a, b] = tabs as [string, string];
    const loads: Record<string, string[]> = { a: [], b: [], all: [] };
    const requests: Record<string, string[]> = { a: [], b: [] };
    bidi.on("browsingContext.load", a, (e: BrowsingContext.NavigationInfo) => loads.a?.push(e.url));
    bidi.on("browsingContext.load", b, (e: BrowsingContext.NavigationInfo) => loads.b?.push(e.url));
    const offAll = bidi.on("browsingContext.load", null, (e: BrowsingContext.NavigationInfo) =>
      loads.all?.push(e.url),
    );
    bidi.on("network.beforeRequestSent", a, (e: Network.BaseParameters) => requests.a?.push(e.request.url));
    bidi.on("network.beforeRequestSent", b, (e: Network.BaseParameters) => requests.b?.push(e.request.url));
    // A handler that throws must not disturb the socket or the other handlers.
    bidi.on("browsingContext.load", null, () => {
      throw new Error("handler bug");
    });
    const subscription = await bidi.subscribe(["browsingContext.load", "network.beforeRequestSent"], [a, b]);
    expect(typeof subscription).toBe("string");

    await Promise.all([
      bidi.send("browsingContext.navigate", { context: a, url: site.url("/a"), wait: "complete" }),
      bidi.send("browsingContext.navigate", { context: b, url: site.url("/b"), wait: "complete" }),
    ]);
    await Bun.sleep(100);
    expect(loads.a).toEqual([site.url("/a")]);
    expect(loads.b).toEqual([site.url("/b")]);
    expect(loads.all?.sort()).toEqual([site.url("/a"), site.url("/b")]);
    expect(requests.a).toContain(site.url("/a"));
    expect(requests.a).not.toContain(site.url("/b"));
    expect(requests.b).toContain(site.url("/b"));
    expect(requests.b).not.toContain(site.url("/a"));

    offAll();
    await bidi.send("browsingContext.navigate", { context: a, url: site.url("/b"), wait: "complete" });
    await Bun.sleep(100);
    expect(loads.a).toEqual([site.url("/a"), site.url("/b")]);
    expect(loads.all).toHaveLength(2);

    await bidi.unsubscribe(subscription);
    await bidi.send("browsingContext.navigate", { context: b, url: site.url("/a"), wait: "complete" });
    await Bun.sleep(100);
    expect(loads.b).toEqual([site.url("/b")]);
    for (const context of tabs) await bidi.send("browsingContext.close", { context });
  });

  test("an error reply carries the BiDi error and message", async () => {
    const bidi = await connect();
    const err = await bidi
      .send("browsingContext.navigate", { context: "no-such-tab", url: site.url("/a") })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(BidiError);
    expect((err as BidiError).error).toBe("no such frame");
    expect((err as BidiError).message).toStartWith("no such frame");
    // The socket still works after an error reply.
    expect((await bidi.send("browsingContext.getTree", { maxDepth: 0 })).contexts.length).toBeGreaterThan(0);
  });

  test("a command with no answer in time is unavailable; the socket carries on", async () => {
    const bidi = await connect({ commandTimeoutMs: 300 });
    const t = Date.now();
    const err = await bidi
      .send("script.evaluate", {
        expression: "new Promise(() => {})",
        target: { context: main },
        awaitPromise: true,
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(Date.now() - t).toBeLessThan(2_000);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).kind).toBe("unavailable");
    expect((err as AppError).message).toBe(
      "the browser's BiDi channel did not answer script.evaluate within 0.3 s",
    );
    expect(await evaluate(bidi, main, "1 + 1")).toBe(2);
  });

  test("the default command timeout is 5 s", async () => {
    const bidi = await connect();
    const t = Date.now();
    const err = await bidi
      .send("script.evaluate", {
        expression: "new Promise(() => {})",
        target: { context: main },
        awaitPromise: true,
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    const waited = Date.now() - t;
    expect((err as AppError).message).toBe(
      "the browser's BiDi channel did not answer script.evaluate within 5 s",
    );
    expect(waited).toBeGreaterThanOrEqual(4_900);
    expect(waited).toBeLessThan(7_000);
  }, 15_000);

  test("close fails what is waiting, later commands, and never throws", async () => {
    const bidi = await connect();
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e,
      );
    const waiting = outcome(
      bidi.send("script.evaluate", {
        expression: "new Promise(() => {})",
        target: { context: main },
        awaitPromise: true,
      }),
    );
    bidi.close();
    bidi.close();
    expect(bidi.closed).toBe(true);
    const later = outcome(bidi.send("browsingContext.getTree", {}));
    for (const err of [await waiting, await later]) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe("unavailable");
    }
  });

  test("a browser that is gone cannot be reached: unavailable", async () => {
    const err = await BidiSocket.connect(grid.bidiUrl("0123456789abcdef0123456789abcdef")).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).kind).toBe("unavailable");
    expect((err as AppError).message).toStartWith("the browser's BiDi channel could not be opened");
    expect((err as AppError).message).not.toContain("0123456789abcdef");
  });
});
