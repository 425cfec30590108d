// MCP over stdio: the same tools, acting in the workspace named by --workspace, logging to stderr only.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";

const site = serveFixture({ "/": () => html("<title>Stdio</title><p>hi") });
const dataDir = mkdtempSync(join(tmpdir(), "sf-stdio-"));

afterAll(() => {
  site.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("tools over stdio act in the --workspace workspace", async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["src/main.ts", "--stdio", "--workspace", "stdio-test"],
    env: { PATH: process.env.PATH ?? "", GRID_URL: testGridUrl, DATA_DIR: dataDir },
    stderr: "pipe",
  });
  const client = new Client({ name: "test", version: "1" });
  const logged: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logged.push(`${n.params.level} ${n.params.data}`);
  });
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
  });
  await client.connect(transport);
  try {
    await client.setLoggingLevel("info");
    expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true });
    await client.subscribeResource({ uri: "workspace://current" });
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("navigate");
    // The files folders, recordings included, and their item templates are there over stdio too.
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toEqual(
      expect.arrayContaining(["workspace://files", "workspace://files/recordings", "workspace://current"]),
    );
    const templates = (await client.listResourceTemplates()).resourceTemplates;
    expect(templates.find((t) => t.uriTemplate === "workspace://files/recordings/{name}")?.name).toBe(
      "Recording",
    );
    const res = (await client.callTool({ name: "navigate", arguments: { url: site.url("/") } })) as any;
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent.title).toBe("Stdio");
    expect(logged).toContainEqual(expect.stringMatching(/^info navigate: done in \d+ ms$/));
    // The page moved: the subscribed workspace://current says so, unasked.
    for (let i = 0; i < 100 && !updated.includes("workspace://current"); i++) await Bun.sleep(100);
    expect(updated).toContain("workspace://current");
    await client.unsubscribeResource({ uri: "workspace://current" });
    const current = await client.readResource({ uri: "workspace://current" });
    const body = JSON.parse((current.contents[0] as { text: string }).text);
    expect(body).toMatchObject({ live: true, url: site.url("/") });
    const bad = (await client.callTool({ name: "navigate", arguments: { url: 5 } })) as any;
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain('"url"');
    const ended = (await client.callTool({ name: "end_browser", arguments: {} })) as any;
    expect(ended.structuredContent).toEqual({ ended: true });
  } finally {
    await client.close();
  }
}, 120_000);
