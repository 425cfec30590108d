// Every WebDriver command has a deadline (grid.command_timeout); a page load or a script gets the
// browser's own timeout when it is longer. Against fake Grids: one that takes connections and never
// answers, and one that answers slowly.
import { afterAll, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { AppError, statusOf } from "../../../src/errors.ts";
import { Grid } from "../../../src/grid/webdriver.ts";
import { isNoSuchSession } from "../../../src/grid/webdriver-errors.ts";

// Takes every connection and every byte, and never says a word.
const held: Socket[] = [];
const silent = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    open: (s) => {
      held.push(s);
    },
    data: () => {},
  },
});
const SILENT = `http://127.0.0.1:${silent.port}`;

// Answers like a Grid, each command after `delays[command]` ms.
const delays: Record<string, number> = {};
const asked: string[] = [];
const slow = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 60,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    const command = path.split("/").slice(3).join("/") || path;
    asked.push(`${req.method} ${command}`);
    await Bun.sleep(delays[command] ?? 0);
    const value = (v: unknown, status = 200) => Response.json({ value: v }, { status });
    if (path === "/session" && req.method === "POST") {
      const caps = ((await req.json()) as any).capabilities.alwaysMatch;
      return value({
        sessionId: "s1",
        capabilities: { ...caps, timeouts: { pageLoad: 2000, script: 2000 } },
      });
    }
    if (command === "timeouts") return value({ implicit: 0, pageLoad: 2000, script: 2000 });
    if (path.startsWith("/session/removed/")) {
      return value(
        {
          error: "unknown error",
          message: `Unable to find session with ID: ${"a".repeat(32)}. Session was removed\nBuild info: version: '4.48.0'`,
        },
        500,
      );
    }
    if (command === "url" || command === "title") return value(command === "title" ? "T" : null);
    return value({ error: "unknown command", message: "no" }, 404);
  },
});
const SLOW = `http://127.0.0.1:${slow.port}`;

afterAll(() => {
  for (const s of held) s.end();
  silent.stop(true);
  slow.stop(true);
});

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected the call to fail");
}

describe("a Grid that takes the connection and never answers", () => {
  const grid = new Grid(SILENT, { commandTimeout: 1 });

  test("a command is a 503 naming the Grid and the deadline, not a 500 and not a gone browser", async () => {
    const err = await failure(grid.attach("abc").getTitle());
    expect(statusOf(err)).toBe(503);
    expect(err.message).toBe(
      `the Grid at ${SILENT} did not answer a WebDriver command within 1 s (grid.command_timeout): it may be overloaded or stuck; retry after a wait`,
    );
    expect(isNoSuchSession(err)).toBe(false);
  });

  test("a page load of a browser whose timeouts are unknown: asking for them has the deadline too", async () => {
    const err = await failure(grid.attach("abc").get("https://app.example.test/"));
    expect(statusOf(err)).toBe(503);
    expect(err.message).toContain(`the Grid at ${SILENT} did not answer`);
  });

  test("status, alive and end answer within the deadline too", async () => {
    expect((await grid.status()).ready).toBe(false);
    expect(statusOf(await failure(grid.alive("abc")))).toBe(503);
    expect(statusOf(await failure(grid.end("abc")))).toBe(503);
    expect(await grid.sessions()).toBeNull();
  });
});

describe("a new browser on a Grid that never answers", () => {
  test("the wait ends at grid.open_timeout, saying the Grid does not answer (not that every slot is busy)", async () => {
    const grid = new Grid(SILENT, { openTimeout: 2, commandTimeout: 60 });
    const t = Date.now();
    const err = await failure(grid.open({ browser: "chrome" }));
    expect(Date.now() - t).toBeLessThan(2_500);
    expect(statusOf(err)).toBe(503);
    expect(err.message).toBe(
      `the Grid at ${SILENT} did not answer: no new browser within 2 s (grid.open_timeout), and no answer to GET /status either. Check that the Grid is up and reachable, then retry`,
    );
  });
});

describe("a slow Grid", () => {
  const grid = new Grid(SLOW, { commandTimeout: 1 });

  test("a page load may take the browser's page_load_timeout; any other command only the deadline", async () => {
    const { driver } = await grid.open({ browser: "chrome" });
    delays.url = 1500;
    delays.title = 1500;
    await driver.get("https://app.example.test/");
    const err = await failure(driver.getTitle());
    expect(err.message).toContain("within 1 s (grid.command_timeout)");
    delays.url = 0;
    delays.title = 0;
  });

  test("a browser this server did not open: its timeouts are asked once, then remembered", async () => {
    asked.length = 0;
    delays.url = 1500;
    const driver = new Grid(SLOW, { commandTimeout: 1 }).attach("other");
    await driver.get("https://app.example.test/");
    await driver.get("https://app.example.test/two");
    expect(asked.filter((a) => a === "GET timeouts")).toHaveLength(1);
    delays.url = 0;
  });

  test("a page load past the browser's own timeout (and the margin) is a 503 naming that timeout", async () => {
    delays.url = 60_000;
    const driver = new Grid(SLOW, { commandTimeout: 1 }).attach("late");
    const err = await failure(driver.get("https://app.example.test/"));
    expect(err.message).toContain("within 7 s (the browser's page_load_timeout)");
    delays.url = 0;
  }, 20_000);

  test("the Grid's 'Session was removed', sent as a 500 unknown error, is a browser gone", async () => {
    let thrown: unknown;
    try {
      await grid.attach("removed").getTitle();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(AppError);
    expect(isNoSuchSession(thrown)).toBe(true);
  });
});
