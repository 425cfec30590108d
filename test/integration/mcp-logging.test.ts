// MCP logging and prompts over Streamable HTTP: a session that set a level gets its workspace's log
// lines and each call's own line as notifications/message on the call's stream, scrubbed of
// secrets; lines about other workspaces and lines below the level never reach it. Prompts list and
// fill in.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { mcpClient } from "../support/mcp.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "mcp-logging";
const SECRET = "hunter2-Example!";
const site = serveFixture({ "/": () => html("<title>Logs</title><p>hi") });
let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.secrets.entries = { app: { description: "the app's login", keys: { password: { value: SECRET } } } };
    },
  });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

/**
 * Runs `call` with `lines` logged while it runs, whatever its speed: as the call reads the
 * workspace's record (a timer beside a fast call logged nothing in its time).
 */
async function logging<T>(lines: () => void, call: () => Promise<T>): Promise<T> {
  const store = server.app.services.store as any;
  // The call's one read of it comes with its lease (its timeline entry's follows the answer).
  const take = store.takeLeaseReading;
  store.takeLeaseReading = function (key: string, ...rest: unknown[]) {
    if (key === W) lines();
    return take.call(this, key, ...rest);
  };
  try {
    return await call();
  } finally {
    store.takeLeaseReading = take;
  }
}

const messages = (notes: any[]) =>
  notes.filter((n) => n.method === "notifications/message").map((n) => n.params);

test("logging: setLevel answers; a call relays its workspace's lines at or above the level, secrets scrubbed", async () => {
  const mcp = await mcpClient(server, W);
  // The initialize answer is one JSON body (an event stream only when something goes out first).
  const init = JSON.parse(mcp.texts[0]!);
  expect(init.result.capabilities.logging).toEqual({});
  // No level chosen: nothing is sent.
  const quiet = await mcp.request("tools/call", { name: "navigate", arguments: { url: site.url("/") } });
  expect([quiet.data.result.isError ?? false, quiet.data.result.content[0].text.slice(0, 300)]).toEqual([
    false,
    expect.any(String),
  ]);
  expect(messages(quiet.notes)).toEqual([]);

  expect((await mcp.request("logging/setLevel", { level: "info" })).data.result).toEqual({});
  const slow = await logging(
    () => {
      server.app.services.log.info(`workspace ${W}: a test line, password ${SECRET}`);
      server.app.services.log.info(`workspace someone-else: not this session's`);
      server.app.services.log.debug(`workspace ${W}: below the level`);
    },
    () => mcp.request("tools/call", { name: "read_page", arguments: {} }),
  );
  expect(slow.data.result.isError).toBeFalsy();
  const got = messages(slow.notes);
  expect(got).toContainEqual({
    level: "info",
    logger: "selenium-flow",
    data: expect.stringMatching(/^read_page: done in \d+ ms$/),
  });
  const lines = got.filter((m) => String(m.data).startsWith(`workspace ${W}: a test line`));
  expect(lines.length).toBeGreaterThan(0);
  expect(lines[0].level).toBe("info");
  expect(got.some((m) => String(m.data).includes("someone-else") || String(m.data).includes("below"))).toBe(
    false,
  );
  expect(slow.text).not.toContain(SECRET);

  // A failed call says so at warning.
  const bad = await mcp.request("tools/call", { name: "navigate", arguments: { url: 5 } });
  expect(messages(bad.notes)).toContainEqual(
    expect.objectContaining({ level: "warning", data: expect.stringMatching(/^navigate: failed \(400\)/) }),
  );

  // Above the call's lines: nothing; a level that is not MCP's: invalid params.
  await mcp.request("logging/setLevel", { level: "error" });
  const above = await mcp.request("tools/call", { name: "navigate", arguments: { url: 5 } });
  expect(messages(above.notes)).toEqual([]);
  expect((await mcp.request("logging/setLevel", { level: "loud" })).data.error.code).toBe(-32602);
}, 180_000);

test("logging: an ordinary value that is no secret reaches the client as it was written", async () => {
  const mcp = await mcpClient(server, W);
  await mcp.request("logging/setLevel", { level: "info" });
  const r = await logging(
    () => server.app.services.log.info(`workspace ${W}: the page says Welcome2024!`),
    () => mcp.request("tools/call", { name: "navigate", arguments: { url: site.url("/") } }),
  );
  expect(r.data.result.structuredContent.title).toBe("Logs");
  const data = messages(r.notes).map((m) => m.data);
  expect(data).toContainEqual(`workspace ${W}: the page says Welcome2024!`);
  expect(data).toContainEqual(expect.stringMatching(/^navigate: done in \d+ ms$/));
}, 180_000);

test("prompts: listed, filled in, and a missing argument or unknown prompt is invalid params", async () => {
  const mcp = await mcpClient(server, W);
  const list = (await mcp.request("prompts/list")).data.result.prompts;
  expect(list.map((p: any) => p.name)).toEqual(["sign_in", "make_flow"]);
  expect(list[0].arguments[0]).toEqual({ name: "url", description: "The sign-in page", required: true });
  const got = (
    await mcp.request("prompts/get", {
      name: "sign_in",
      arguments: { url: "https://app.example.test/login", secret: "app" },
    })
  ).data.result;
  expect(got.messages[0].role).toBe("user");
  expect(got.messages[0].content.text).toContain("https://app.example.test/login");
  expect(got.messages[0].content.text).toContain("save_site_data");
  const flow = (await mcp.request("prompts/get", { name: "make_flow", arguments: { name: "checkout" } })).data
    .result;
  expect(flow.messages[0].content.text).toContain("flow checkout with save_flow");
  const missing = (await mcp.request("prompts/get", { name: "make_flow", arguments: {} })).data.error;
  expect([missing.code, missing.message]).toEqual([-32602, '"name" is required for the prompt make_flow']);
  expect((await mcp.request("prompts/get", { name: "nope" })).data.error.code).toBe(-32602);
});
