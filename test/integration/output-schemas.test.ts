// Every tool's real results on the real Grid, checked against what the tool declares: the output
// schema tools/list sends (with the validator MCP clients use on structuredContent), the full
// schema OpenAPI promises (no undeclared field), and the zod schema the table declares. The
// results include the optional site_data and page reports, so their full shapes are checked too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { ACTIONS } from "../../src/registry.ts";
import { openApiDocument } from "../../src/surfaces/openapi.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { actionPages } from "../support/pages.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "output-schemas";
const site = serveFixture({
  ...actionPages,
  "/noisy": () =>
    html(`<title>Noisy</title><h1>Noisy</h1><script>console.error("boom");</script><img src="/missing.png">`),
  "/cookie": () =>
    html(`<title>Cookie</title><h1>Signed in</h1><script>document.cookie = "sid=abc; path=/";</script>`),
  "/alert": () => html(`<title>Alert</title><button id="a" onclick="alert('Saved')">Save</button>`),
  "/upload": () => html(`<title>Upload</title><label for="f">Attachment</label><input id="f" type="file">`),
});

const validator = new AjvJsonSchemaValidator();
const doc = openApiDocument() as any;
let server: TestServer;
let mcp: McpClient;
let tools: Map<string, any>;
/** Each tool and the fields its checked results carried (the optional reports among them). */
const checked = new Map<string, Set<string>>();

beforeAll(async () => {
  server = await startServer();
  mcp = await mcpClient(server, W);
  tools = new Map(((await mcp.request("tools/list")).data.result.tools as any[]).map((t) => [t.name, t]));
}, 60_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

/** Calls a tool over MCP and checks its structured result against every declaration of its shape. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await mcp.tool(name, args);
  expect([name, result.isError ?? false, result.isError ? result.content[0].text : ""]).toEqual([
    name,
    false,
    "",
  ]);
  const out = result.structuredContent;
  const listed = validator.getValidator(tools.get(name).outputSchema)(out);
  expect([name, "tools/list", listed.errorMessage]).toEqual([name, "tools/list", undefined]);
  const action = ACTIONS.find((a) => a.name === name)!;
  const op = doc.paths[action.http.path][action.http.method.toLowerCase()];
  const full = validator.getValidator(op.responses["200"].content["application/json"].schema)(out);
  expect([name, "openapi", full.errorMessage]).toEqual([name, "openapi", undefined]);
  const zod = action.output.safeParse(out);
  expect([name, "zod", zod.success ? "" : zod.error.message]).toEqual([name, "zod", ""]);
  const fields = checked.get(name) ?? new Set<string>();
  for (const k of Object.keys(out)) fields.add(k);
  checked.set(name, fields);
  return out;
}

describe("results match their declared output schemas", () => {
  test("opening, moving, reading and acting on a page", async () => {
    const opened = await call("open_session", { url: site.url("/form"), capture: true });
    expect(opened.settings.capture).toBe(true);
    await call("navigate", { url: site.url("/noisy") });
    await call("navigate", { url: site.url("/form") });
    const read = await call("read_page");
    expect(read.elements.length).toBeGreaterThan(5);
    await call("interact", { action: "select", selector: { label: "Country" }, value: "Japan" });
    await call("interact", { action: "check", selector: { label: "Send me news" } });
    await call("interact", { action: "press", selector: { label: "Email" }, keys: "Tab" });
    await call("write", { selector: { label: "Email" }, text: "someone@example.test" });
    await call("extract", { selector: { label: "Email" }, get: "value" });
    const all = await call("extract", { selector: { css: "option" }, all: true });
    expect(all.count).toBe(4);
    await call("execute_script", { script: "return {n: document.forms.length, el: document.body}" });
    await call("assert", { selector: { css: "#go" }, state: "visible" });
  }, 180_000);

  test("dialogs, tabs and frames", async () => {
    await call("navigate", { url: site.url("/alert") });
    const clicked = await call("interact", { action: "click", selector: { css: "#a" } });
    expect(clicked.dialog).toBe("Saved");
    await call("dialog", { action: "read" });
    await call("dialog", { action: "accept" });
    const list = await call("switch", { tab: "list" });
    expect(list.tabs.length).toBe(1);
    await call("switch", { tab: "new", url: site.url("/two") });
    await call("switch", { tab: "close" });
    await call("navigate", { url: site.url("/framed") });
    const inside = await call("switch", { frame: { css: "#inner" } });
    expect(inside.in_frame).toBe(true);
    await call("switch", { frame: null });
  }, 180_000);

  test("screenshots, prints, kept files and uploads", async () => {
    await call("navigate", { url: site.url("/upload") });
    const shot = await call("screenshot");
    expect(shot.file.uri).toStartWith("workspace://files/screenshots/");
    await call("screenshot", { selector: { css: "label" } });
    await call("print_page");
    const kept = await call("keep_file", { uri: shot.file.uri });
    const up = await call("upload_file", { selector: { label: "Attachment" }, uri: kept.uri });
    expect(up.files).toEqual([kept.name]);
  }, 180_000);

  test("flows", async () => {
    await call("save_flow", {
      name: "shapes",
      params: { path: "/two" },
      steps: [
        { tool: "navigate", args: { url: `${site.url("")}\${path}` } },
        { tool: "extract", args: { selector: { css: "h1" } }, return: true },
      ],
    });
    const run = await call("run_flow", { name: "shapes" });
    expect(run.status).toBe("ok");
    await call("delete_flow", { name: "shapes" });
  }, 180_000);

  test("site data saved, then restored into the next browser, reported as site_data", async () => {
    await call("navigate", { url: site.url("/cookie") });
    const saved = await call("save_site_data");
    expect(saved.saved.cookies).toBeGreaterThan(0);
    expect((await call("end_browser")).ended).toBe(true);
    const reopened = await call("open_session", { url: site.url("/two") });
    expect(reopened.site_data.restored).toContain("app.example.test");
    await call("end_browser");
  }, 180_000);

  test("logs and ask_human answer what they declare", async () => {
    await call("navigate", { url: site.url("/noisy") });
    const logs = await call("logs", { kind: "all", tab: "all" });
    expect(logs.entries.length).toBeGreaterThan(0);
    // Nobody answers: after its timeout it says so, with the page.
    const asked = await call("ask_human", { question: "Which plan?", timeout: 5 });
    expect(asked).toMatchObject({ answered: false, url: site.url("/noisy") });
    await call("end_browser");
  }, 180_000);

  test("request_secret answers what it declares: a client without URL elicitation gets the link", async () => {
    const asked = await call("request_secret", {
      name: "shop",
      key: "password",
      allowed_urls: ["app.example.test"],
      reason: "to sign in to the shop",
    });
    expect(asked.entered).toBe(false);
    expect(asked.link).toContain("/secrets/enter/");
    expect(asked.expires_in).toBeGreaterThan(0);
  });

  test("every tool was checked, and the optional reports were among what was checked", () => {
    expect([...checked.keys()].sort()).toEqual(ACTIONS.map((a) => a.name).sort());
    expect(checked.get("navigate")!.has("page")).toBe(true);
    expect(checked.get("open_session")!.has("site_data")).toBe(true);
  });
});

describe("the validator refuses what a schema does not declare", () => {
  test("a wrong type, a missing field and an undeclared field fail where they should", () => {
    const navigateSchema =
      doc.paths["/browser/navigate"].post.responses["200"].content["application/json"].schema;
    const listed = validator.getValidator(tools.get("navigate").outputSchema);
    const full = validator.getValidator(navigateSchema);
    expect(listed({ url: "u", title: "t" }).valid).toBe(true);
    expect(listed({ url: "u" }).valid).toBe(false);
    expect(listed({ url: 1, title: "t" }).valid).toBe(false);
    expect(listed({ url: "u", title: "t", site_data: "restored" }).valid).toBe(false);
    expect(full({ url: "u", title: "t", extra: 1 }).valid).toBe(false);
    expect(full({ url: "u", title: "t", site_data: { restored: [1] } }).valid).toBe(false);
    expect(full({ url: "u", title: "t", page: { console_errors: [{ text: "x" }] } }).valid).toBe(true);
  });
});
