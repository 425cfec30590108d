// A server whose records are in memory (no data.dir, no store.url) ends its browsers as it closes:
// its records and its owner tag go with it, so a browser it left would hold a Grid slot for nobody
// until the Grid's session timeout (the next test files found "the Grid has no free slot").
import { afterAll, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { startGridLedger } from "../support/grid-ledger.ts";
import { gridHolds, leavesGrid } from "../support/grid-session.ts";
import { startServer } from "../support/server.ts";

const site = serveFixture({ "/start": () => html("<title>Start</title>") });
afterAll(() => site.stop());

test("a server with its records in memory ends its browsers as it closes", async () => {
  const server = await startServer({ dataDir: false });
  let id = "";
  try {
    expect((await server.call("POST", "/browser/navigate", { url: site.url("/start") }, "w")).status).toBe(
      200,
    );
    id = (await server.app.services.store.get("w"))?.session_id as string;
    expect(await gridHolds(id)).toBe(true);
  } finally {
    await server.close();
  }
  expect(await leavesGrid(id)).toBe(true);
}, 60_000);

test("so is one whose end the Grid never got (an End it did not answer), which no record names", async () => {
  // The first end of a browser is taken and never answered, nor passed on to the Grid.
  let held = 0;
  const ledger = startGridLedger(testGridUrl, { hold: (method) => method === "DELETE" && held++ === 0 });
  const server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.grid.url = ledger.url;
    },
  });
  let id = "";
  try {
    expect((await server.call("POST", "/browser/navigate", { url: site.url("/start") }, "w")).status).toBe(
      200,
    );
    id = (await server.app.services.store.get("w"))?.session_id as string;
    expect((await server.app.services.workspaces.interrupt("w")).ended).toBe(false);
    expect((await server.app.services.store.get("w"))?.session_id).toBeFalsy();
    expect(await gridHolds(id)).toBe(true);
  } finally {
    await server.close();
    ledger.stop();
  }
  expect(await leavesGrid(id)).toBe(true);
}, 60_000);
