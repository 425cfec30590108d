// The platform end to end on the real Grid: the surfaces, auth, workspace naming, bad input, the
// first actions, history, the silent reopen of a reaped browser, and no Grid id anywhere.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { hints, mcpClient } from "../support/mcp.ts";
import { endAll, logLines, startServer, type TestServer, TOKEN } from "../support/server.ts";
import { expiresIn } from "../support/store-ttl.ts";

let server: TestServer;
const site = serveFixture({
  "/": () => html("<title>Home</title><h1>Home</h1><a href='/two'>two</a>"),
  "/two": () => html("<title>Two</title><h1>Two</h1>"),
  "/three": () => html("<title>Three</title><h1>Three</h1>"),
});
const W = "platform";
const gridIds = new Set<string>();
const bodies: string[] = [];

async function call(method: string, path: string, body?: unknown, workspace: string | null = W) {
  const res = await server.call(method, path, body, workspace);
  bodies.push(JSON.stringify(res.body));
  return res;
}

/** The Grid's own list of live sessions (ids only the test and the server see). */
async function gridSessions(): Promise<string[]> {
  const res = await fetch(`${testGridUrl}/status`);
  const status = (await res.json()) as any;
  const ids: string[] = [];
  for (const node of status.value.nodes ?? []) {
    for (const slot of node.slots ?? []) if (slot.session) ids.push(slot.session.sessionId);
  }
  for (const id of ids) gridIds.add(id);
  return ids;
}

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await endAll(server, [W, "mcp-ws", "other"]);
  await server.close();
  site.stop();
  // The Grid id never reached a response body or a log line.
  const everything = [...bodies, ...logLines].join("\n");
  for (const id of gridIds) expect(everything).not.toContain(id);
});

describe("health and auth", () => {
  test("GET /healthz needs no token and says the Grid and the store answer", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.ok).toBe(true);
    expect(body.grid.ready).toBe(true);
    expect(body.store.ok).toBe(true);
  });

  test("every other route is 401 without the bearer token", async () => {
    for (const [method, path] of [
      ["POST", "/browser/navigate"],
      ["GET", "/browser"],
      ["DELETE", "/browser"],
      ["GET", "/openapi.json"],
      ["POST", "/mcp"],
    ] as const) {
      const res = await fetch(`${server.url}${path}?workspace=${W}`, {
        method,
        body: method === "GET" ? undefined : "{}",
      });
      expect(res.status).toBe(401);
      const wrong = await fetch(`${server.url}${path}?workspace=${W}`, {
        method,
        headers: { authorization: "Bearer nope" },
        body: method === "GET" ? undefined : "{}",
      });
      expect(wrong.status).toBe(401);
    }
  });

  test("an unknown route is a 404 that says where the routes are", async () => {
    const res = await call("GET", "/nope");
    expect(res.status).toBe(404);
    expect(res.body.error).toContain("/openapi.json");
  });
});

describe("naming the workspace", () => {
  test("neither header nor query is a 400 saying how to name one", async () => {
    const res = await call("GET", "/browser", undefined, null);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("X-Workspace");
  });

  test("both header and query is a 400", async () => {
    const res = await fetch(`${server.url}/browser?workspace=a`, {
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": "b" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toContain("both");
  });

  test("a name that could leave its folder is refused", async () => {
    for (const bad of ["../x", "a/b", ".hidden", "x".repeat(65)]) {
      const res = await fetch(`${server.url}/browser?workspace=${encodeURIComponent(bad)}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(400);
    }
  });

  test("the query parameter names it too", async () => {
    const res = await fetch(`${server.url}/browser?workspace=other`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).live).toBe(false);
  });
});

describe("bad input never makes a 500 and never echoes a value", () => {
  const SECRETISH = "hunter2-do-not-echo";

  test("malformed JSON is a 400 that does not echo the body", async () => {
    const res = await call("POST", "/browser/navigate", `{"url": "${SECRETISH}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toContain(SECRETISH);
  });

  test("a body over 1 MiB is a 413", async () => {
    const res = await call("POST", "/browser/navigate", {
      url: `https://a.example.test/${"x".repeat(1024 * 1024)}`,
    });
    expect(res.status).toBe(413);
  });

  test("a wrong type names the field, never the value", async () => {
    const res = await call("POST", "/browser", { width: SECRETISH });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"width"');
    expect(JSON.stringify(res.body)).not.toContain(SECRETISH);
  });

  test("an unknown field is named", async () => {
    const res = await call("POST", "/browser/navigate", { url: site.url("/"), colour: SECRETISH });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"colour"');
    expect(JSON.stringify(res.body)).not.toContain(SECRETISH);
  });

  test("a body that is not an object is a 400", async () => {
    for (const body of ["[1,2]", "42", '"text"', "null"]) {
      const res = await call("POST", "/browser/navigate", body);
      expect(res.status).toBe(400);
    }
  });

  test("every route survives wrong types, missing fields, huge strings and unknown fields", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const variants = [
      {},
      { url: 12 },
      { url: "not a url" },
      { url: "x".repeat(100_000) },
      { unknown_field: true },
      { width: "wide", height: -1 },
      { selector: { css: 1 } },
      { back: "sideways" },
      { restore_site_data: "perhaps" },
    ];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) {
        if (method === "get" || method === "delete") continue;
        const concrete = path.replace(/\{[a-z_]+\}/g, "click");
        for (const body of variants) {
          const res = await call(method.toUpperCase(), concrete, body, "fuzz");
          expect(res.status).toBeLessThan(500);
        }
      }
    }
    await call("DELETE", "/browser", undefined, "fuzz");
  }, 300_000);
});

describe("the first actions on the real Grid", () => {
  test("open, navigate, describe, end", async () => {
    const opened = await call("POST", "/browser", { url: site.url("/") });
    expect(opened.status).toBe(200);
    expect(opened.body.title).toBe("Home");
    expect(opened.body.browser).toBe("chrome");
    expect(opened.body.recording).toBe(false);
    expect(await gridSessions()).not.toHaveLength(0);

    const moved = await call("POST", "/browser/navigate", { url: site.url("/two") });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ url: site.url("/two"), title: "Two" });

    const back = await call("POST", "/browser/navigate", { back: true });
    expect(back.body.title).toBe("Home");

    const current = await call("GET", "/browser");
    expect(current.body).toMatchObject({ live: true, url: site.url("/"), title: "Home" });

    const record = await server.app.services.store.get(W);
    expect(record?.history.map((v) => v.url)).toEqual([site.url("/")]);

    const ended = await call("DELETE", "/browser");
    expect(ended.body).toEqual({ ended: true });
    const after = await call("GET", "/browser");
    expect(after.body.live).toBe(false);
    expect(after.body.url).toBe(site.url("/"));
  });

  test("navigate needs exactly one of url, back, forward, reload", async () => {
    const res = await call("POST", "/browser/navigate", { back: true, reload: true });
    expect(res.status).toBe(400);
  });

  test("a browser the Grid reaped is reopened silently on its last page by the next call", async () => {
    await call("POST", "/browser", { url: site.url("/two"), width: 900, height: 700 });
    const before = await server.app.services.store.get(W);
    const oldId = before!.session_id;
    gridIds.add(oldId);
    // Reap it behind the server's back through the Grid's own API.
    const del = await fetch(`${testGridUrl}/session/${oldId}`, { method: "DELETE" });
    expect(del.status).toBe(200);

    const res = await call("POST", "/browser/navigate", { reload: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: site.url("/two"), title: "Two" });
    const after = await server.app.services.store.get(W);
    expect(after!.session_id).not.toBe(oldId);
    expect(after!.session_id).not.toBe("");
    gridIds.add(after!.session_id);
    // Same settings, and the page is still the top of the history.
    expect(after!.settings).toMatchObject({ width: 900, height: 700, browser: "chrome" });
    expect(after!.history[0]!.url).toBe(site.url("/two"));
    await gridSessions();
  });

  test("calls on one workspace run one at a time", async () => {
    const urls = ["/", "/two", "/three", "/two", "/"].map((p) => site.url(p));
    const results = await Promise.all(urls.map((url) => call("POST", "/browser/navigate", { url })));
    for (const [i, r] of results.entries()) expect(r.body.url).toBe(urls[i] as string);
    const record = await server.app.services.store.get(W);
    expect(record!.history[0]!.url).toBe(site.url("/"));
  });

  test("every call slides the TTL", async () => {
    const store = server.app.services.store;
    await call("POST", "/browser/navigate", { url: site.url("/three") });
    const left = await expiresIn(store, W);
    expect(left).toBeGreaterThan(server.config.session.ttl - 5);
  });
});

describe("MCP over Streamable HTTP", () => {
  test("tools carry schemas and annotations; a call acts in the named workspace; bad args read as on REST", async () => {
    const mcp = await mcpClient(server, "mcp-ws");
    const tools = (await mcp.request("tools/list")).data.result.tools as any[];
    const nav = tools.find((t) => t.name === "navigate");
    expect(nav.inputSchema.properties.url.type).toBe("string");
    expect(nav.outputSchema.properties.title.type).toBe("string");
    expect(hints(nav.annotations)).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    const open = tools.find((t) => t.name === "open_session");
    expect(open.inputSchema.properties.restore_site_data.default).toBe(true);

    const called = await mcp.tool("navigate", { url: site.url("/two") });
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toMatchObject({ title: "Two" });
    const record = await server.app.services.store.get("mcp-ws");
    expect(record!.history[0]!.url).toBe(site.url("/two"));

    const bad = await mcp.tool("open_session", { width: "wide" });
    expect(bad.isError).toBe(true);
    const rest = await call("POST", "/browser", { width: "wide" }, "mcp-ws");
    expect(bad.content[0].text).toBe(rest.body.error);

    expect(await mcp.resource("workspace://current")).toMatchObject({ live: true, title: "Two" });
    expect((await mcp.tool("end_browser")).structuredContent).toEqual({ ended: true });
    bodies.push(...mcp.texts);
  });

  test("a web page on another origin cannot drive /mcp", async () => {
    const res = await fetch(`${server.url}/mcp?workspace=x`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        origin: "https://evil.example.test",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: "{}",
    });
    expect(res.status).toBe(403);
  });
});

describe("OpenAPI", () => {
  test("every action is a path with its MCP tool name, and every resource a GET", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    expect(doc.paths["/browser/navigate"].post.operationId).toBe("navigate");
    expect(doc.paths["/browser"].post["x-mcp-tool"]).toBe("open_session");
    expect(doc.paths["/browser"].delete["x-mcp-tool"]).toBe("end_browser");
    expect(doc.paths["/browser"].get["x-mcp-resource"]).toBe("workspace://current");
  });
});
