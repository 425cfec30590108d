// An admin pane op is declared once, in its capability's tab: the JSON route and the UI's pane
// action both come from it, and no capability writes the same route by hand beside it.
import { expect, test } from "bun:test";
import { CAPABILITIES, capabilityRoutes, TABS } from "../../../src/registry.ts";
import { openStore } from "../../../src/store/index.ts";
import { FakeGrid } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";

test("every pane op is one JSON route under /admin/workspaces/:key/<tab>/…, served once", async () => {
  const store = await openStore({ ttl: 86_400 });
  const services = testServices({ store, grid: new FakeGrid().grid });
  const routes = capabilityRoutes(services).routes.map((r) => `${r.method} ${r.path}`);
  const ops = TABS.flatMap((t) =>
    t.ops.map((op) => `${op.method} /admin/workspaces/:key/${[t.slug, ...op.path].join("/")}`),
  );
  expect(ops.length).toBeGreaterThanOrEqual(8);
  for (const op of ops) expect([op, routes.filter((r) => r === op).length]).toEqual([op, 1]);
  // None of them written by hand in a capability's own routes.
  const byHand = CAPABILITIES.flatMap((c) =>
    (c.adminRoutes?.(services).routes ?? []).map((r) => `${r.method} ${r.path}`),
  );
  expect(byHand.filter((r) => ops.includes(r))).toEqual([]);
});
