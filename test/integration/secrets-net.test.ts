// The manager's last line of defence: whatever action lands on a page that carries a secret value,
// the page is not recorded and the value never reaches the caller.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const VALUE = "net-s3cret-value-42";
const site = serveFixture({
  "/": () => html("<title>Start</title><p>start"),
  "/echo": (req) => html(`<title>Echo</title><p>${new URL(req.url).searchParams.get("q") ?? ""}`),
});
let server: TestServer;
const W = "secrets-net";

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.secrets.entries = { vault: { description: "a test secret", keys: { token: { value: VALUE } } } };
    },
  });
  await server.call("POST", "/browser/navigate", { url: site.url("/") }, W);
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("navigate to a URL carrying a secret value: shown hidden, never recorded", async () => {
  const res = await server.call("POST", "/browser/navigate", { url: site.url(`/echo?q=${VALUE}`) }, W);
  expect(res.status).toBe(200);
  expect(res.body.url).toContain("[hidden]");
  expect(JSON.stringify(res.body)).not.toContain(VALUE);
  const record = await server.app.services.store.get(W);
  expect(record!.history[0]!.url).toBe(site.url("/"));
  expect(JSON.stringify(record)).not.toContain(VALUE);
  expect(logLines.join("\n")).not.toContain(VALUE);
});
