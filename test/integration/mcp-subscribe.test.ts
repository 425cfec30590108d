// MCP resource subscriptions over Streamable HTTP: a session that keeps its event stream open (GET
// /mcp) gets notifications/resources/updated for what it subscribed to when its content changes
// (a flow saved, the page moved), for its own workspace only, and nothing once it unsubscribed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { html, serveFixture } from "../support/fixtures.ts";
import { mcpClient } from "../support/mcp.ts";
import { endAll, startServer, type TestServer, TOKEN } from "../support/server.ts";

const W = "mcp-subscribe";
const OTHER = "mcp-subscribe-other";
const site = serveFixture({
  "/": () => html("<title>One</title><p>one"),
  "/two": () => html("<title>Two</title><p>two"),
});
let server: TestServer;
const secrets = mkdtempSync(join(tmpdir(), "sf-subscribe-secrets-"));

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.secrets.dirs = [secrets];
    },
  });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  rmSync(secrets, { recursive: true, force: true });
});

const FLOW = "steps:\n  - tool: navigate\n    args: {url: 'http://app.example.test/'}\n";

/** The session's event stream: every JSON-RPC message it carried so far, and a wait for the next ones. */
async function listen(session: string) {
  const stop = new AbortController();
  const res = await fetch(`${server.url}/mcp`, {
    headers: {
      authorization: `Bearer ${TOKEN}`,
      accept: "text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-06-18",
    },
    signal: stop.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const got: any[] = [];
  let ended = false;
  let wake = () => {};
  void (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          ended = true;
          wake();
          return;
        }
        buf += value;
        for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
          const event = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (data) got.push(JSON.parse(data));
          wake();
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    got,
    /** The updated notices' uris so far. */
    uris: () => got.filter((m) => m.method === "notifications/resources/updated").map((m) => m.params.uri),
    async until(pred: () => boolean, ms = 10_000) {
      const end = Date.now() + ms;
      while (!pred() && Date.now() < end)
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 100);
        });
      return pred();
    },
    ended: () => ended,
    close: () => stop.abort(),
  };
}

test("a subscribed resource's update arrives on the session's stream; another workspace's changes and unsubscribed ones do not", async () => {
  const mcp = await mcpClient(server, W);
  // The initialize answer is one JSON body (an event stream only when something goes out first).
  const init = JSON.parse(mcp.texts[0]!);
  expect(init.result.capabilities.resources).toEqual({ subscribe: true });
  const session = mcp.session;
  const stream = await listen(session);
  try {
    expect((await mcp.request("resources/subscribe", { uri: "workspace://flows" })).data.result).toEqual({});
    expect((await mcp.request("resources/subscribe", { uri: "workspace://current" })).data.result).toEqual(
      {},
    );

    // Another workspace's flow is not this session's.
    const other = await mcpClient(server, OTHER);
    expect((await other.tool("save_flow", { name: "theirs", yaml: FLOW })).isError).toBeFalsy();
    const saved = await mcp.tool("save_flow", { name: "mine", yaml: FLOW });
    expect(saved.isError).toBeFalsy();
    expect(await stream.until(() => stream.uris().includes("workspace://flows"))).toBe(true);
    expect(stream.uris()).toEqual(["workspace://flows"]);

    // The page moving updates workspace://current.
    expect((await mcp.tool("navigate", { url: site.url("/") })).isError).toBeFalsy();
    expect(await stream.until(() => stream.uris().includes("workspace://current"), 30_000)).toBe(true);
    const before = stream.uris().length;

    // Unsubscribed from flows: a flow saved, then the page moved, brings current's notice only.
    expect((await mcp.request("resources/unsubscribe", { uri: "workspace://flows" })).data.result).toEqual(
      {},
    );
    expect((await mcp.tool("save_flow", { name: "mine-too", yaml: FLOW })).isError).toBeFalsy();
    expect((await mcp.tool("navigate", { url: site.url("/two") })).isError).toBeFalsy();
    expect(await stream.until(() => stream.uris().length > before, 30_000)).toBe(true);
    await Bun.sleep(300);
    // (The page moving may change what current reads more than once: each change is a notice.)
    expect(new Set(stream.uris().slice(before))).toEqual(new Set(["workspace://current"]));
    // Every message on the stream is a JSON-RPC notification, nothing else.
    expect(stream.got.every((m) => m.jsonrpc === "2.0" && !("id" in m))).toBe(true);
  } finally {
    stream.close();
  }
}, 120_000);

test("a change that reads the same sends nothing; a template's item is refused naming its list, an unknown uri too", async () => {
  const mcp = await mcpClient(server, W);
  const stream = await listen(mcp.session);
  try {
    await mcp.request("resources/subscribe", { uri: "workspace://files" });
    // A flow saved changes the workspace, not its files.
    expect((await mcp.tool("save_flow", { name: "same", yaml: FLOW })).isError).toBeFalsy();
    await Bun.sleep(500);
    expect(stream.uris()).toEqual([]);
    const item = await mcp.request("resources/subscribe", { uri: "workspace://flows/same" });
    expect(item.data.error.code).toBe(-32602);
    expect(item.data.error.message).toContain("subscribe to workspace://flows,");
    const shot = await mcp.request("resources/subscribe", { uri: "workspace://files/screenshots/a.png" });
    expect(shot.data.error.message).toContain("subscribe to workspace://files/screenshots,");
    const none = await mcp.request("resources/subscribe", { uri: "workspace://nothing" });
    expect(none.data.error.code).toBe(-32602);
    expect(none.data.error.message).toContain("no resource workspace://nothing");
  } finally {
    stream.close();
  }
}, 60_000);

test("any resource with a fixed uri: a secret file added is a notice on workspace://secrets, a screenshot one on workspace://files/screenshots", async () => {
  const mcp = await mcpClient(server, W);
  const stream = await listen(mcp.session);
  try {
    for (const uri of [
      "workspace://secrets",
      "workspace://files/screenshots",
      "skill://selenium-flow/SKILL.md",
    ])
      expect((await mcp.request("resources/subscribe", { uri })).data.result).toEqual({});
    // The secrets belong to no workspace: a file added is seen within a few seconds.
    writeFileSync(
      join(secrets, "shop.yaml"),
      "description: the shop\nkeys:\n  password: { value: Summer2026-Example }\n",
    );
    expect(await stream.until(() => stream.uris().includes("workspace://secrets"), 15_000)).toBe(true);
    expect((await mcp.tool("navigate", { url: site.url("/") })).isError).toBeFalsy();
    expect((await mcp.tool("screenshot", {})).isError).toBeFalsy();
    expect(await stream.until(() => stream.uris().includes("workspace://files/screenshots"), 30_000)).toBe(
      true,
    );
    await Bun.sleep(2_500);
    // The guide never changes; the secrets once; no notice names a value.
    expect(stream.uris().filter((u) => u === "workspace://secrets")).toHaveLength(1);
    expect(stream.uris()).not.toContain("skill://selenium-flow/SKILL.md");
    expect(JSON.stringify(stream.got)).not.toContain("Summer2026");
  } finally {
    stream.close();
  }
}, 90_000);

test("the stream asks for Accept: text/event-stream, and a closed session's stream ends", async () => {
  const mcp = await mcpClient(server, W);
  const plain = await fetch(`${server.url}/mcp`, {
    headers: { authorization: `Bearer ${TOKEN}`, "mcp-session-id": mcp.session },
  });
  expect(plain.status).toBe(400);
  expect(await plain.text()).toContain("text/event-stream");
  const stream = await listen(mcp.session);
  const res = await fetch(`${server.url}/mcp`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${TOKEN}`, "mcp-session-id": mcp.session },
  });
  expect(res.status).toBe(200);
  expect(await stream.until(() => stream.ended())).toBe(true);
  // No token, no stream.
  const anon = await fetch(`${server.url}/mcp`, {
    headers: { accept: "text/event-stream", "mcp-session-id": mcp.session },
  });
  expect(anon.status).toBe(401);
  stream.close();
}, 60_000);
