// The Grid client against the real test Grid: open, reattach from a fresh client, end, alive, the
// failures it names (unreachable, no free slot, refused capabilities), Basic auth, connection reuse.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGrid } from "../../scripts/lib.mjs";
import { AppError, messageOf } from "../../src/errors.ts";
import { Grid } from "../../src/grid/webdriver.ts";
import { isNoSuchSession, NO_FREE_SLOT } from "../../src/grid/webdriver-errors.ts";
import { startAuthProxy } from "../support/auth-proxy.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { startTcpProxy } from "../support/tcp-proxy.ts";

const site = serveFixture({
  "/": () => html("<title>Grid fixture</title><p id=hi title=greeting>hello</p>"),
});
const opened: { grid: Grid; id: string }[] = [];

async function open(grid: Grid, o: Parameters<Grid["open"]>[0] = { browser: "chrome" }) {
  const got = await grid.open(o);
  opened.push({ grid, id: got.id });
  return got;
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

afterAll(async () => {
  for (const { grid, id } of opened) await grid.end(id).catch(() => undefined);
  site.stop();
});

describe("a browser on the Grid", () => {
  test("open, reattach from a fresh Grid object, alive, end", async () => {
    const { id, capabilities } = await open(new Grid(testGridUrl), {
      browser: "chrome",
      width: 900,
      height: 700,
    });
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(String(capabilities.webSocketUrl)).toEndWith(`/session/${id}/se/bidi`);
    expect(capabilities["se:downloadsEnabled"]).toBe(true);

    const fresh = new Grid(`${testGridUrl}/`);
    const driver = fresh.attach(id);
    await driver.get(site.url("/"));
    expect(await driver.getTitle()).toBe("Grid fixture");
    expect(await driver.executeScript("return [outerWidth, outerHeight]")).toEqual([900, 700]);
    const el = await fresh.attach(id).findElement({ css: "#hi" });
    expect(await el.getAttribute("title")).toBe("greeting");
    expect(await fresh.alive(id)).toBe(true);

    await fresh.end(id);
    expect(await fresh.alive(id)).toBe(false);
    await fresh.end(id); // already gone: quietly fine
  });

  test("a browser deleted behind our back reads as gone, and a reattached call says so", async () => {
    const grid = new Grid(testGridUrl);
    const { id } = await open(grid);
    const res = await fetch(`${testGridUrl}/session/${id}`, { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await grid.alive(id)).toBe(false);
    const err = await grid
      .attach(id)
      .getCurrentUrl()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(Error);
    expect(isNoSuchSession(err)).toBe(true);
    expect(messageOf(err)).not.toContain(id);
    await grid.end(id);
  });

  test("a dialog stays open for the dialog action, and alive leaves it alone", async () => {
    const grid = new Grid(testGridUrl);
    const { id, driver } = await open(grid);
    await driver.get(site.url("/"));
    await driver.executeScript(
      "document.body.innerHTML = `<button onclick=\"alert('still here')\">b</button>`",
    );
    await driver.findElement({ css: "button" }).click();
    expect(await grid.alive(id)).toBe(true);
    expect(await grid.attach(id).switchTo().alert().getText()).toBe("still here");
    await grid.end(id);
  });

  test("a refused browser is bad input with the Grid's reason", async () => {
    const err = await failure(new Grid(testGridUrl).open({ browser: "chrome", pageLoadTimeout: -5 }));
    expect(err.kind).toBe("bad_input");
    expect(err.message).toStartWith("the Grid refused this browser: invalid argument");
    expect(err.message).toContain("cannot parse capability: timeouts");
    expect(err.message).not.toContain("Build info");
  });

  test("status says ready", async () => {
    expect(await new Grid(testGridUrl).status()).toEqual({ ready: true, message: expect.any(String) });
  });
});

describe("an unreachable Grid", () => {
  test("is unavailable, named without its credentials", async () => {
    const closed = 1; // nothing listens on port 1 here
    const grid = new Grid(`http://flowuser:s3cret-pw@127.0.0.1:${closed}/`);
    const prefix = `the Grid at http://127.0.0.1:${closed} did not answer: `;
    const attempts = [
      () => grid.open({ browser: "chrome" }),
      () => grid.attach("abc").getCurrentUrl(),
      () => grid.alive("abc"),
    ];
    for (const attempt of attempts) {
      const err = await failure(attempt());
      expect(err.kind).toBe("unavailable");
      expect(err.message).toStartWith(prefix);
      expect(err.message).not.toContain("s3cret");
      expect(err.message).not.toContain("flowuser");
    }
    const status = await grid.status();
    expect(status.ready).toBe(false);
    expect(status.message).toStartWith(prefix);
    expect(status.message).not.toContain("s3cret");
  });
});

describe("credentials in the Grid URL", () => {
  const proxy = startAuthProxy(testGridUrl, "flowuser", "s3cret-pw");
  afterAll(() => proxy.stop());

  test("authenticate WebDriver calls and the BiDi socket", async () => {
    const grid = new Grid(proxy.url);
    expect((await grid.status()).ready).toBe(true);
    const { id } = await open(grid);
    await grid.attach(id).get(site.url("/"));
    expect(await new Grid(proxy.url).attach(id).getTitle()).toBe("Grid fixture");
    const bidi = await grid.bidi(id);
    try {
      const tree = await bidi.send("browsingContext.getTree", {});
      expect(tree.contexts[0]?.url).toBe(site.url("/"));
    } finally {
      bidi.close();
    }
    expect(await grid.alive(id)).toBe(true);
    expect(proxy.refused).toBe(0);
    await grid.end(id);
    expect(await grid.alive(id)).toBe(false);
  });

  test("wrong credentials are named without the password", async () => {
    const grid = new Grid(proxy.url.replace("s3cret-pw", "wrong-pw"));
    const err = await failure(grid.open({ browser: "chrome" }));
    expect(err.kind).toBe("unavailable");
    expect(err.message).toBe(
      `the Grid at http://127.0.0.1:${proxy.port} refused this server (HTTP 401): check the user and password in the Grid URL`,
    );
    expect((await grid.status()).message).not.toContain("wrong-pw");
    expect(proxy.refused).toBeGreaterThan(0);
  });
});

describe("reattaching is cheap", () => {
  test("every reattached driver of one Grid shares pooled keep-alive connections", async () => {
    const target = new URL(testGridUrl);
    const relay = await startTcpProxy(target.hostname, Number(target.port || 80));
    try {
      const grid = new Grid(relay.url);
      const { id } = await open(grid);
      const before = relay.connections;
      const reattached: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < 30; i++) {
        let t = performance.now();
        await grid.attach(id).getCurrentUrl();
        reattached.push(performance.now() - t);
        t = performance.now();
        await (await fetch(`${testGridUrl}/session/${id}/url`)).json();
        raw.push(performance.now() - t);
      }
      // 30 reattached drivers, one after another: one pooled connection, not 30.
      expect(relay.connections - before).toBeLessThanOrEqual(1);
      console.log(
        `reattached getCurrentUrl median ${median(reattached).toFixed(2)} ms (via a relay), raw fetch median ${median(raw).toFixed(2)} ms`,
      );
      await grid.end(id);
    } finally {
      relay.stop();
    }
  });
});

describe("a Grid with no free slot", () => {
  let small: Awaited<ReturnType<typeof startGrid>>;
  beforeAll(async () => {
    small = await startGrid({
      port: 4471,
      name: "grid-test-one-slot",
      maxSessions: 1,
      sessionRequestTimeout: 6,
    });
  }, 60_000);
  afterAll(() => small?.stop());

  test("says every slot is busy, whether the Grid's queue or our own wait runs out", async () => {
    const grid = new Grid(small.url, { openTimeout: 30 });
    const first = await open(grid);

    let t = Date.now();
    let err = await failure(grid.open({ browser: "chrome" }));
    expect(err.kind).toBe("unavailable");
    expect(err.message).toBe(NO_FREE_SLOT);
    expect(Date.now() - t).toBeGreaterThan(4_000); // the Grid's own 6 s queue timeout, not ours

    // A browser the Grid has no node for would wait forever: that is the caller's to change.
    const impatient = new Grid(small.url, { openTimeout: 2 });
    err = await failure(impatient.open({ browser: "firefox" }));
    expect(err.kind).toBe("bad_input");
    expect(err.message).toBe("the Grid has no firefox browsers: it offers chrome");

    t = Date.now();
    err = await failure(impatient.open({ browser: "chrome" }));
    expect(err.message).toBe(
      "the Grid has no free slot for a new browser: every slot is busy. Retry after a wait, or end a browser you no longer need",
    );
    expect(Date.now() - t).toBeLessThan(4_000);

    // The Grid would hold that request ~4 s more: once the slot frees, it must not become a browser
    // nobody owns.
    await grid.end(first.id);
    await Bun.sleep(3_000);
    const status = (await (await fetch(`${small.url}/status`)).json()) as {
      value: { nodes: { slots: { session: unknown }[] }[] };
    };
    expect(status.value.nodes.flatMap((n) => n.slots).filter((s) => s.session)).toEqual([]);
  }, 60_000);
});
