// An agent's whole job over MCP, on the real Grid: sign in with a secret, fill and submit a form,
// answer a dialog, work inside a frame and a second tab, and read the results — with no value in any
// reply or log line.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { actionPages } from "../support/pages.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const PASSWORD = "journey-pw-7c1e";
const site = serveFixture(actionPages);
const W = "journey";
let server: TestServer;
let mcp: McpClient;

async function ok(name: string, args: Record<string, unknown>) {
  const res = await mcp.tool(name, args);
  if (res.isError) throw new Error(`${name} failed: ${res.content[0].text}`);
  return res.structuredContent;
}

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.secrets.entries = {
        app: {
          description: "the fixture app",
          allowed_urls: [site.url("/")],
          keys: { password: { value: PASSWORD } },
        },
      };
    },
  });
  mcp = await mcpClient(server, W);
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("sign in, a form, a dialog, a frame and a second tab, all over MCP", async () => {
  // Sign in, in one call: the password is typed from the secret, never seen.
  await ok("navigate", { url: site.url("/signin") });
  const signedIn = await ok("write", {
    fields: [
      { selector: { label: "Username" }, text: "ada" },
      { selector: { label: "Password" }, secret: { name: "app", key: "password" } },
    ],
    submit: true,
  });
  expect(signedIn.title).toBe("Welcome");
  expect(await ok("extract", { selector: { css: "h1" } })).toMatchObject({ result: "Welcome, ada" });

  // A form: fill, choose, submit, read what the server got.
  await ok("navigate", { url: site.url("/form") });
  const page = await ok("read_page", {});
  expect(JSON.stringify(page)).toContain("Email");
  await ok("write", { selector: { label: "Email" }, text: "ada@example.test" });
  await ok("interact", { action: "select", selector: { label: "Country" }, value: "Japan" });
  const sent = await ok("interact", {
    action: "click",
    selector: { role: "button", name: "Create account" },
  });
  expect(sent.title).toBe("Done");
  expect(sent.url).toContain("country=jp");

  // A dialog: the click that opens it says so; dismiss it and read what the page made of it.
  await ok("navigate", { url: site.url("/confirm") });
  const opened = await ok("interact", { action: "click", selector: { css: "#del" } });
  expect(opened.dialog).toBe("Delete it?");
  expect(await ok("dialog", { action: "dismiss" })).toMatchObject({ message: "Delete it?" });
  expect(await ok("extract", { selector: { css: "#answer" } })).toMatchObject({ result: "kept" });

  // A frame: enter it, type there, leave it.
  await ok("navigate", { url: site.url("/framed") });
  await ok("switch", { frame: { css: "#inner" } });
  await ok("write", { selector: { label: "Code" }, text: "4242" });
  expect(await ok("extract", { selector: { label: "Code" }, get: "value" })).toMatchObject({
    result: "4242",
  });
  await ok("switch", { frame: null });
  expect(await ok("extract", { selector: { css: "h1" } })).toMatchObject({ result: "Outer" });

  // A second tab: open it, work there, come back.
  await ok("switch", { tab: "new", url: site.url("/two") });
  const tabs = await ok("switch", { tab: "list" });
  expect(tabs.tabs).toHaveLength(2);
  expect(await ok("extract", { selector: { css: "h1" } })).toMatchObject({ result: "Two" });
  await ok("switch", { tab: "close" });
  expect((await ok("switch", { tab: "list" })).tabs).toHaveLength(1);

  // Where the workspace is, without touching the browser.
  expect(await mcp.resource("workspace://current")).toMatchObject({ live: true, url: site.url("/framed") });

  const everything = [...mcp.texts, ...logLines].join("\n");
  expect(everything).not.toContain(PASSWORD);
}, 180_000);
