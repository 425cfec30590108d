// One call pipeline for every surface (issue 21): a click over REST and a click over MCP go through
// the same call pipeline (`calls.invoke`), each once, with its own surface; and both reach the page and the timeline.
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { serveFixture } from "../support/fixtures.ts";
import { mcpClient } from "../support/mcp.ts";
import { actionPages } from "../support/pages.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "pipeline";
const site = serveFixture(actionPages);
let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("a REST click and an MCP click both go through the call pipeline, once each, with their surface", async () => {
  const mcp = await mcpClient(server, W);
  expect((await server.call("POST", "/browser/navigate", { url: site.url("/clicks") }, W)).status).toBe(200);
  const invoke = spyOn(server.app.services.workspaces.calls, "invoke");
  try {
    const rest = await server.call("POST", "/browser/interact/click", { selector: { css: "#one" } }, W);
    expect(rest.status).toBe(200);
    const over = await mcp.tool("interact", { action: "click", selector: { css: "#one" } });
    expect(over.isError).toBeUndefined();
    const calls = invoke.mock.calls.map(([call]) => [call.surface, call.workspace, call.action.name]);
    expect(calls).toEqual([
      ["rest", W, "interact"],
      ["mcp", W, "interact"],
    ]);
  } finally {
    invoke.mockRestore();
  }
  // Both clicks reached the page, and both are in the timeline, each with its surface.
  const texts = await server.call("POST", "/browser/extract", { selector: { css: "#log li" }, all: true }, W);
  expect(JSON.stringify(texts.body)).toContain('"click","click"');
  await server.app.services.timeline.settled(W);
  const entries = await server.app.services.timeline.all(W);
  const clicks = entries.filter((e) => e.tool === "interact").map((e) => [e.surface, e.status]);
  expect(clicks).toEqual([
    ["rest", 200],
    ["mcp", 200],
  ]);
});
