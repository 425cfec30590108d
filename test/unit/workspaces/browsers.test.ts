// A call's browser as `Browsers.forCall` hands it: ready to work when its connection is open with
// nothing to send (its Page made and the connection in use from the take, `page()` a lookup); made
// on first use otherwise, as a browser reopened or never held; or why the lifecycle must give one.
import { expect, test } from "bun:test";
import { HeldConnections } from "../../../src/grid/held-pool.ts";
import { emptyRecord, type WorkspaceRecord } from "../../../src/store/record.ts";
import { Browsers } from "../../../src/workspaces/browsers.ts";
import { FakeGrid } from "../../support/fake-grid.ts";

const IDLE_MS = 40;

async function setUp() {
  const fake = new FakeGrid();
  const { id } = await fake.open({} as never);
  const connections = new HeldConnections((b) => fake.grid.bidi(b), IDLE_MS);
  const browsers = new Browsers(fake.grid, connections);
  const record = (more: Partial<WorkspaceRecord> = {}): WorkspaceRecord => ({
    ...emptyRecord(),
    session_id: id,
    focus: { browser: id, tab: "main", frame: null },
    ...more,
  });
  return { fake, id, connections, browsers, record };
}

/** Holds the browser's connection once, as an earlier call did: open, and idle from now on. */
async function heldBefore(connections: HeldConnections, id: string) {
  (await connections.get(id)).use()();
}

test("an open connection with nothing to send: the Page is made at the take and the connection kept from then", async () => {
  const { fake, id, connections, browsers, record } = await setUp();
  await heldBefore(connections, id);
  const sent = fake.browsers.get(id)!.bidi.log.length;
  const browser = await browsers.forCall(record());
  if (typeof browser === "string") throw new Error(browser);
  // Past the idle time the call's connection is still open: the take holds it.
  await Bun.sleep(IDLE_MS * 2);
  expect(connections.peek(id)).toBeDefined();
  // Not the call's page until it asks for it (where it is: unknown).
  expect(browser.where()).toBeNull();
  const page = await browser.page();
  expect(await browser.page()).toBe(page);
  expect(page.where.tab).toBe("main");
  expect(browser.where()).toEqual({ tab: "main", frame: null });
  expect(fake.browsers.get(id)!.bidi.log.length).toBe(sent);
  browser.release();
  await Bun.sleep(IDLE_MS * 2);
  expect(connections.peek(id)).toBeUndefined();
});

test("no connection open, a proxy to look up, or no tab known: the Page is made on first use, as before", async () => {
  const { fake, id, connections, browsers, record } = await setUp();
  const cold = await browsers.forCall(record());
  if (typeof cold === "string") throw new Error(cold);
  expect(fake.log.filter((l) => l.startsWith("bidi"))).toEqual([]);
  await cold.page();
  expect(fake.log.filter((l) => l.startsWith("bidi"))).toEqual([`bidi ${id}`]);
  cold.release();
  await heldBefore(connections, id);
  for (const r of [record({ settings: { proxy: "corp" } }), record({ focus: undefined })]) {
    const lazy = await browsers.forCall(r);
    if (typeof lazy === "string") throw new Error(lazy);
    // Nothing holds the connection until the page is asked for: it idles out.
    await Bun.sleep(IDLE_MS * 2);
    expect(connections.peek(id)).toBeUndefined();
    await heldBefore(connections, id);
  }
});

test("a record that names no browser, or one whose channel died: the lifecycle's to give", async () => {
  const { id, connections, browsers, record } = await setUp();
  expect(await browsers.forCall(null)).toBe("none");
  expect(await browsers.forCall(emptyRecord())).toBe("none");
  const conn = await connections.get(id);
  (conn.socket as unknown as { dead: boolean }).dead = true;
  conn.close();
  expect(connections.dead(id)).toBe(true);
  expect(await browsers.forCall(record())).toBe("dead");
});
