// The HTTP plumbing Elysia carries, without a browser: route schemas answer with the handlers' own
// 400 messages, the credential comes before any schema, every failure is the app's JSON error, the
// live feeds open with a heartbeat and let go of the feed when the client leaves, and resource
// URIs match by the MCP SDK's template matcher.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { matchUri } from "../../../src/actions/resource.ts";
import { ACTIONS } from "../../../src/registry.ts";
import { startServer, type TestServer, TOKEN } from "../../support/server.ts";

const W = "plumbing";
let server: TestServer;

const get = (path: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
  fetch(`${server.url}${path}`, { headers });
const answer = async (path: string, headers?: Record<string, string>) => {
  const res = await get(path, headers);
  return { status: res.status, type: res.headers.get("content-type"), body: await res.json() };
};

beforeAll(async () => {
  server = await startServer({ dataDir: false });
  await server.app.services.store.update(
    W,
    () => ({ session_id: "", history: [], settings: {}, site_data: null }) as never,
  );
});
afterAll(async () => {
  await server.app.services.store.update(W, () => null);
  await server.close();
});

describe("route schemas", () => {
  test("a query or path number that is not an entry's n is a 400 with the handler's message", async () => {
    const before = "before must be a whole number from 1 (an entry's n)";
    expect(await answer(`/admin/workspaces/${W}/timeline?before=x`)).toEqual({
      status: 400,
      type: "application/json; charset=utf-8",
      body: { error: before },
    });
    expect((await answer(`/admin/workspaces/${W}/timeline?limit=0`)).body).toEqual({
      error: "limit must be a whole number from 1 (an entry's n)",
    });
    expect((await answer(`/admin/workspaces/${W}/timeline?before=1234567890123456`)).body).toEqual({
      error: before,
    });
    // Empty is absent, as before the schema.
    const listed = await answer(`/admin/workspaces/${W}/timeline?before=&limit=`);
    expect(listed.status).toBe(200);
    expect(listed.body.key).toBe(W);
    for (const n of ["0", "abc", "1.5"]) {
      expect(await answer(`/admin/workspaces/${W}/timeline/${n}/screen`)).toMatchObject({
        status: 400,
        body: { error: "n must be a whole number from 1 (an entry's n)" },
      });
    }
    expect(await answer("/admin/events?watch=..%2Fx")).toMatchObject({
      status: 400,
      body: { error: "watch must be a workspace's name" },
    });
  });

  test("without the credential a bad param is a 401, never a 400 about the param", async () => {
    expect((await answer(`/admin/workspaces/${W}/timeline?before=x`, {})).status).toBe(401);
    expect((await answer(`/admin/workspaces/${W}/timeline/0/screen`, {})).status).toBe(401);
    expect((await answer("/admin/events?watch=..%2Fx", {})).status).toBe(401);
    expect((await answer("/metrics", {})).status).toBe(401);
  });

  test("a failure a handler throws, and a route nobody registered, are the app's JSON errors", async () => {
    expect(await answer("/admin/workspaces/nobody/timeline")).toEqual({
      status: 404,
      type: "application/json; charset=utf-8",
      body: { error: "no workspace nobody" },
    });
    expect(await answer("/nowhere")).toMatchObject({
      status: 404,
      body: { error: "no route GET /nowhere: /openapi.json lists them" },
    });
    expect(await answer("/ui/static/nothing.js")).toMatchObject({
      status: 404,
      body: { error: "no UI file nothing.js" },
    });
  });
});

describe("the admin credential", () => {
  test("each route checks it once per request, against its own server", async () => {
    // A second server in the same process: its routes must not check against the first one's.
    const other = await startServer({ dataDir: false });
    try {
      const { gate } = other.app.services;
      const admin = gate.admin.bind(gate);
      let checks = 0;
      gate.admin = (request) => {
        checks++;
        return admin(request);
      };
      await other.app.services.store.update(
        W,
        () => ({ session_id: "", history: [], settings: {}, site_data: null }) as never,
      );
      for (const path of [
        `/admin/workspaces/${W}/timeline`,
        `/admin/workspaces/${W}/site-data`,
        "/admin/settings",
      ]) {
        checks = 0;
        const res = await fetch(`${other.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect([path, res.status, checks]).toEqual([path, 200, 1]);
      }
    } finally {
      await other.close();
    }
  });
});

describe("bodies: read by the parser each route names, in the parse stage", () => {
  // A body that never ends: a route that reads it before answering never answers.
  const endless = () =>
    new ReadableStream<Uint8Array>({
      pull: async (c) => {
        await Bun.sleep(5);
        c.enqueue(new TextEncoder().encode("{"));
      },
    });
  const send = (method: string, path: string, headers: Record<string, string>, body: BodyInit) =>
    server.app.fetch(
      new Request(`${server.url}${path}`, { method, headers, body, duplex: "half" } as RequestInit),
    );
  const within = <T>(p: Promise<T>) =>
    Promise.race([p, Bun.sleep(3000).then(() => "read the body: no answer in 3 s" as const)]);

  test("an agent route checks its token before it reads a byte", async () => {
    const res = await within(
      send("POST", "/browser/navigate", { "content-type": "application/json", "x-workspace": W }, endless()),
    );
    expect(res instanceof Response ? res.status : res).toBe(401);
    const mcp = await within(send("POST", "/mcp", { "content-type": "application/json" }, endless()));
    expect(mcp instanceof Response ? mcp.status : mcp).toBe(401);
  });

  test("every action's REST route refuses a caller without the token, with a body or without", async () => {
    for (const action of ACTIONS) {
      const path = action.http.path.replace(/\{[a-z_]+\}/g, "x");
      for (const body of [undefined, "{}"]) {
        const headers: Record<string, string> = { "x-workspace": W };
        if (body) headers["content-type"] = "application/json";
        const res = await server.app.fetch(
          new Request(`${server.url}${path}`, { method: action.http.method, headers, body }),
        );
        expect([action.name, res.status]).toEqual([action.name, 401]);
      }
    }
  });

  test("/mcp's event stream (a GET: its gate, no body read) is refused to a page on another origin and to no token", async () => {
    const get = (headers: Record<string, string>) =>
      server.app.fetch(
        new Request(`${server.url}/mcp`, { headers: { accept: "text/event-stream", ...headers } }),
      );
    const auth = { authorization: `Bearer ${TOKEN}`, "mcp-session-id": "none" };
    expect((await get({ ...auth, origin: "https://evil.example.test" })).status).toBe(403);
    expect((await get({ "mcp-session-id": "none" })).status).toBe(401);
    // Its own page, or no page at all: on to the session (none here).
    expect((await get({ ...auth, origin: server.url })).status).toBe(404);
    expect((await get(auth)).status).toBe(404);
  });

  test("a route that names no body parser reads none, whatever is sent (an admin route, a page's fragment)", async () => {
    const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const res = await within(send("DELETE", `/admin/workspaces/${W}/timeline/screens`, auth, endless()));
    expect(res instanceof Response ? res.status : res).toBe(200);
    const pane = await within(send("DELETE", `/ui/workspaces/${W}/panes/timeline/screens`, auth, endless()));
    expect(pane instanceof Response ? pane.status : pane).toBe(200);
  });

  test("a declared body over its cap is a 413, of a type the route does not take a 415 naming what it takes", async () => {
    const auth = { authorization: `Bearer ${TOKEN}`, "x-workspace": W };
    const big = await send(
      "POST",
      "/browser/navigate",
      { ...auth, "content-type": "application/json" },
      JSON.stringify({ url: `https://a.example.test/?q=${"x".repeat(1024 * 1024)}` }),
    );
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: string }).error).toBe(
      "the body is over its cap of 1048576 bytes of JSON: send less",
    );
    const upload = await send("POST", "/browser/upload", { ...auth, "content-type": "text/plain" }, "hello");
    expect(upload.status).toBe(415);
    expect(((await upload.json()) as { error: string }).error).toBe(
      "the body is of type text/plain: send it as application/json or multipart/form-data (Content-Type)",
    );
    const flow = await send("PUT", "/flows/x", { ...auth, "content-type": "application/json" }, "{nope");
    expect(flow.status).toBe(400);
    expect(((await flow.json()) as { error: string }).error).toBe(
      "the body is not valid JSON: send a JSON object",
    );
  });
});

describe("live feeds", () => {
  const open = async (path: string) => {
    const abort = new AbortController();
    const res = await fetch(`${server.url}${path}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: abort.signal,
    });
    const first = await (res.body as ReadableStream<Uint8Array>).getReader().read();
    return { res, first: new TextDecoder().decode(first.value), close: () => abort.abort() };
  };
  const feeds = () => server.app.feeds.feeds.size;
  const settled = async () => {
    for (let i = 0; i < 50 && feeds() > 0; i++) await Bun.sleep(20);
    return feeds();
  };

  test("the JSON stream opens with a heartbeat event and lets go of the feed when the client leaves", async () => {
    const feed = await open("/admin/events");
    expect(feed.res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(feed.res.headers.get("cache-control")).toBe("no-store");
    expect(feed.first).toMatch(/^event: heartbeat\ndata: \{"at":[\d.]+\}\n\n$/);
    expect(feeds()).toBe(1);
    feed.close();
    expect(await settled()).toBe(0);
  });

  test("the pages' stream opens with a comment beat and lets go of the feed when the client leaves", async () => {
    const feed = await open(`/ui/events?workspace=${W}`);
    expect(feed.res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(feed.first.startsWith(": beat\n\n")).toBe(true);
    expect(server.app.services.timeline.live.watched(W)).toBe(true);
    feed.close();
    expect(await settled()).toBe(0);
    expect(server.app.services.timeline.live.watched(W)).toBe(false);
  });
});

describe("resource URIs", () => {
  test("a template's params come back decoded; a literal URI matches only itself", () => {
    expect(
      matchUri("workspace://files/screenshots/{name}", "workspace://files/screenshots/a%20(1).png"),
    ).toEqual({ name: "a (1).png" });
    expect(matchUri("workspace://site-data/{site}", "workspace://site-data/app.example.test:8080")).toEqual({
      site: "app.example.test:8080",
    });
    expect(matchUri("workspace://files/screenshots/{name}", "workspace://files/screenshots/a/b")).toBeNull();
    expect(matchUri("workspace://current", "workspace://current")).toEqual({});
    expect(matchUri("workspace://current", "workspace://current/x")).toBeNull();
    expect(() => matchUri("workspace://files/{name}", "workspace://files/%E0%A4%A")).toThrow(
      "the name in workspace://files/%E0%A4%A is not valid percent-encoding: escape '%' as %25",
    );
  });
});
