// MCP completion/complete: a resource template's variable and a prompt's argument complete to this
// workspace's own flow names, file folders and names, saved sites and secret names, those starting
// with what was typed first; another workspace's names never appear; an unknown template or prompt
// is invalid params.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "mcp-complete";
const OTHER = "mcp-complete-other";
const FLOW = "steps:\n  - tool: navigate\n    args: {url: 'http://app.example.test/'}\n";
const site = serveFixture({
  "/": () => html("<title>Site</title><p>hi", { "set-cookie": "sid=s1; Path=/" }),
});
let server: TestServer;
let mcp: McpClient;

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.secrets.entries = {
        app: { description: "the app", keys: { password: { value: "pw-1" } } },
        mail: { description: "mail", keys: { password: { value: "pw-2" } } },
      };
    },
  });
  mcp = await mcpClient(server, W);
  for (const name of ["login", "logout", "export-report"])
    expect((await mcp.tool("save_flow", { name, yaml: FLOW })).isError).toBeFalsy();
  const other = await mcpClient(server, OTHER);
  expect((await other.tool("save_flow", { name: "logistics-plan", yaml: FLOW })).isError).toBeFalsy();
  expect((await mcp.tool("navigate", { url: site.url("/") })).isError).toBeFalsy();
  expect((await mcp.tool("save_site_data")).isError).toBeFalsy();
  expect((await mcp.tool("screenshot")).isError).toBeFalsy();
}, 180_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

const values = async (ref: unknown, name: string, value: string) => {
  const got = await mcp.request("completion/complete", { ref, argument: { name, value } });
  if (got.data.error) throw new Error(got.data.error.message);
  return got.data.result.completion;
};
const template = (uri: string) => ({ type: "ref/resource", uri });
const prompt = (name: string) => ({ type: "ref/prompt", name });

test("the capability is declared; flow names complete from what was typed, this workspace's only", async () => {
  // The initialize answer is one JSON body (an event stream only when something goes out first).
  const init = JSON.parse(mcp.texts[0]!);
  expect(init.result.capabilities.completions).toEqual({});
  expect(await values(template("workspace://flows/{name}"), "name", "lo")).toEqual({
    values: ["login", "logout"],
    total: 2,
    hasMore: false,
  });
  // Those starting with it first, then those containing it.
  expect((await values(template("workspace://flows/{name}"), "name", "o")).values).toEqual([
    "export-report",
    "login",
    "logout",
  ]);
  expect((await values(template("workspace://flows/{name}"), "name", "")).values).not.toContain(
    "logistics-plan",
  );
  expect((await values(prompt("make_flow"), "name", "EXP")).values).toEqual(["export-report"]);
});

test("file folders and names, saved sites and secret names complete", async () => {
  expect((await values(template("workspace://files/{name}"), "name", "scr")).values).toEqual(["screenshots"]);
  const shots = (await values(template("workspace://files/screenshots/{name}"), "name", "")).values;
  expect(shots).toHaveLength(1);
  expect(shots[0]).toMatch(/\.png$/);
  expect((await values(template("workspace://site-data/{site}"), "site", "app")).values).toEqual([
    "app.example.test",
  ]);
  expect((await values(prompt("sign_in"), "secret", "")).values).toEqual(["app", "mail"]);
  // An argument with nothing to offer: none.
  expect(await values(prompt("sign_in"), "url", "http")).toEqual({ values: [], total: 0, hasMore: false });
});

test("an unknown template or prompt is invalid params naming where to look", async () => {
  const bad = await mcp.request("completion/complete", {
    ref: template("workspace://nowhere/{x}"),
    argument: { name: "x", value: "" },
  });
  expect(bad.data.error.code).toBe(-32602);
  expect(bad.data.error.message).toContain("resources/templates/list");
  const none = await mcp.request("completion/complete", {
    ref: prompt("test_prompt_with_arguments"),
    argument: { name: "arg1", value: "" },
  });
  expect(none.data.error.code).toBe(-32602);
  expect(none.data.error.message).toContain("prompts/list");
});
