// A workspace's network routes, offline and emulation on the real Grid: a route answers a fetch and
// a navigation with its status, headers and body (the fixture never hears them) or blocks a request;
// they are listed in the settings, changed in place (the page stays), removed, and come back when a
// reaped browser reopens; offline makes fetch fail and comes back; the page sees its locale, time
// zone, user agent, colour scheme and location; a value the browser refuses is a 400 naming the
// field. And the opposite: a workspace with none of them pays nothing (no intercept) and its pages
// are untouched.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "routes";
const E = "emulated";
const PLAIN = "plain";
let server: TestServer;
/** Every path the fixture was asked for. */
const heard: string[] = [];
/** The User-Agent of every request the fixture heard. */
const agents: string[] = [];

const site = serveFixture({
  "/page": (req) => {
    heard.push("/page");
    agents.push(req.headers.get("user-agent") ?? "");
    return html("<title>Page</title><p>the real page</p>");
  },
  "/api/data": () => {
    heard.push("/api/data");
    return new Response("real", { headers: { "content-type": "text/plain" } });
  },
  "/routed-page": () => {
    heard.push("/routed-page");
    return html("<title>Real</title>");
  },
  "/blocked.js": () => {
    heard.push("/blocked.js");
    return new Response("1", { headers: { "content-type": "text/javascript" } });
  },
});

const call = (path: string, body?: unknown, workspace = W) => server.call("POST", path, body, workspace);
const script = async (script: string, workspace = W) => {
  const res = await call("/browser/script", { script }, workspace);
  if (res.status !== 200) throw new Error(`script: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
};
const FETCH = `async () => { try { const r = await fetch("/api/data"); return [r.status, r.headers.get("x-routed"), await r.text()]; } catch (e) { return "failed"; } }`;
const ROUTES = [
  {
    url: "*/api/data*",
    status: 201,
    headers: {
      "content-type": "application/json",
      "x-routed": "yes",
      "access-control-expose-headers": "x-routed",
    },
    body: '{"routed":true}',
  },
  {
    url: "*/routed-page",
    headers: { "content-type": "text/html" },
    body: "<title>Routed</title><p>from the route</p>",
  },
  { url: "*/blocked*", block: true },
];
const held = async (workspace: string) => {
  const id = (await server.app.services.store.get(workspace))!.session_id!;
  return { id, conn: server.app.services.workspaces.connections.peek(id) };
};

beforeAll(async () => {
  server = await startServer({ dataDir: false });
}, 180_000);

afterAll(async () => {
  await endAll(server, [W, `${W}-policy`, E, PLAIN]);
  await server.close();
  site.stop();
});

describe("network routes", () => {
  test("a route answers a fetch and a navigation with its status, headers and body; a blocked one fails; all listed", async () => {
    const opened = await call("/browser", { url: site.url("/page"), routes: ROUTES });
    expect(opened.status).toBe(200);
    expect(opened.body.settings.routes).toEqual(ROUTES);
    const start = (await call("/browser/logs", {})).body.next_cursor;
    expect(await script(FETCH)).toEqual([201, "yes", '{"routed":true}']);
    expect(await script(`fetch("/blocked.js").then(() => "loaded", () => "failed")`)).toBe("failed");
    const nav = await call("/browser/navigate", { url: site.url("/routed-page") });
    expect(nav.status).toBe(200);
    expect(nav.body.title).toBe("Routed");
    expect(await script("document.body.innerText")).toBe("from the route");
    const logs = (await call("/browser/logs", { cursor: start, kind: "network", tab: "all" })).body;
    expect(logs.entries).toContainEqual(
      expect.objectContaining({ refused: true, error: "blocked by the route */blocked*" }),
    );
    expect(heard.filter((h) => h !== "/page")).toEqual([]);
  });

  test("a route never answers for a host the navigation policy refuses: the policy is judged first", async () => {
    const ws = `${W}-policy`;
    const routed = [
      {
        url: "*://evil.blocked.example.test*",
        headers: { "access-control-allow-origin": "*" },
        body: "from the route",
      },
    ];
    const opened = await call(
      "/browser",
      { url: site.url("/page"), routes: routed, policy: { block: ["*.blocked.example.test"] } },
      ws,
    );
    expect(opened.status).toBe(200);
    const target = site.url("/api/data", "evil.blocked.example.test");
    expect(await script(`fetch(${JSON.stringify(target)}).then((r) => r.text(), () => "failed")`, ws)).toBe(
      "failed",
    );
    const nav = await call("/browser/navigate", { url: target }, ws);
    expect(nav.status).toBe(400);
    expect(nav.body.error).toContain("this workspace's policy blocks *.blocked.example.test");
    await server.call("DELETE", "/browser", undefined, ws);
  });

  test("removed in place: the page stays, the same browser, and requests reach the site again with no intercept left", async () => {
    // A page a route answered cannot itself reach the network in Chromium 156 (its requests fail with
    // net::ERR_FAILED, intercepted or not): the fetch is made from a page the site served.
    expect((await call("/browser/navigate", { url: site.url("/page") })).status).toBe(200);
    const before = await held(W);
    const removed = await call("/browser", { routes: [] });
    expect(removed.status).toBe(200);
    expect(removed.body.url).toBe(site.url("/page"));
    expect(removed.body.title).toBe("Page");
    expect(removed.body.settings.routes).toBeUndefined();
    const after = await held(W);
    expect(after.id).toBe(before.id);
    expect(await script(FETCH)).toEqual([200, null, "real"]);
    expect(heard).toContain("/api/data");
    expect(after.conn?.net ?? null).toBeNull();
    expect(after.conn?.socket.intercepts.size).toBe(0);
  });

  test("kept in the workspace's record: a reaped browser reopens with its routes", async () => {
    expect((await call("/browser", { routes: ROUTES })).status).toBe(200);
    const { id } = await held(W);
    expect((await fetch(`${testGridUrl}/session/${id}`, { method: "DELETE" })).status).toBe(200);
    heard.length = 0;
    expect(await script(FETCH)).toEqual([201, "yes", '{"routed":true}']);
    expect((await held(W)).id).not.toBe(id);
    expect(heard).not.toContain("/api/data");
  });

  test("offline: fetch fails and navigator.onLine is false, in place; back online it comes back", async () => {
    expect((await call("/browser", { routes: [] })).status).toBe(200);
    const off = await call("/browser", { offline: true });
    expect(off.status).toBe(200);
    expect(off.body.settings.offline).toBe(true);
    expect(off.body.url).toBe(site.url("/page"));
    expect(await script("navigator.onLine")).toBe(false);
    expect(await script(FETCH)).toBe("failed");
    const on = await call("/browser", { offline: false });
    expect(on.status).toBe(200);
    expect(on.body.settings.offline).toBeUndefined();
    expect(await script("navigator.onLine")).toBe(true);
    expect(await script(FETCH)).toEqual([200, null, "real"]);
    await server.call("DELETE", "/browser", undefined, W);
  });
});

const READ = `async () => [
  navigator.language,
  Intl.DateTimeFormat().resolvedOptions().timeZone,
  navigator.userAgent,
  matchMedia("(prefers-color-scheme: dark)").matches,
  await new Promise((r) => navigator.geolocation.getCurrentPosition(
    (p) => r([p.coords.latitude, p.coords.longitude]), (e) => r("error " + e.code), { timeout: 3000 })),
]`;
const EMULATE = {
  locale: "de-DE",
  timezone: "Asia/Tokyo",
  user_agent: "AgentProbe/1.0",
  geolocation: { latitude: 48.8584, longitude: 2.2945 },
  media: { "prefers-color-scheme": "dark" },
};

describe("emulation", () => {
  let plain: unknown[] = [];

  test("a workspace with none pays nothing: no intercept, its page as the browser has it", async () => {
    expect((await call("/browser", { url: site.url("/page", "127.0.0.1") }, PLAIN)).status).toBe(200);
    plain = await script(READ, PLAIN);
    expect(plain.slice(0, 4)).toEqual([
      expect.not.stringMatching(/^de/),
      expect.not.stringMatching(/Tokyo/),
      expect.not.stringContaining("AgentProbe"),
      false,
    ]);
    expect(await script(FETCH, PLAIN)).toEqual([200, null, "real"]);
    const { conn } = await held(PLAIN);
    expect(conn?.net ?? null).toBeNull();
    expect(conn?.socket.intercepts.size).toBe(0);
    await server.call("DELETE", "/browser", undefined, PLAIN);
  });

  test("the page sees its locale, time zone, user agent, colour scheme and location; {} puts the browser's own back in place", async () => {
    agents.length = 0;
    const opened = await call("/browser", { url: site.url("/page", "127.0.0.1"), emulate: EMULATE }, E);
    expect(opened.status).toBe(200);
    expect(opened.body.settings.emulate).toEqual(EMULATE);
    expect(await script(READ, E)).toEqual(["de-DE", "Asia/Tokyo", "AgentProbe/1.0", true, [48.8584, 2.2945]]);
    expect(agents).toEqual(["AgentProbe/1.0"]);
    // Kept in the record: a reaped browser reopens emulating the same.
    const { id } = await held(E);
    expect((await fetch(`${testGridUrl}/session/${id}`, { method: "DELETE" })).status).toBe(200);
    expect(await script(READ, E)).toEqual(["de-DE", "Asia/Tokyo", "AgentProbe/1.0", true, [48.8584, 2.2945]]);
    expect((await held(E)).id).not.toBe(id);
    const cleared = await call("/browser", { emulate: {} }, E);
    expect(cleared.status).toBe(200);
    expect(cleared.body.settings.emulate).toBeUndefined();
    expect((await script(READ, E)).slice(0, 4)).toEqual(plain.slice(0, 4));
  });

  test("a value the browser refuses is a 400 naming the field; the browser and its settings stay", async () => {
    const { id } = await held(E);
    const bad = await call("/browser", { emulate: { timezone: "Mars/Olympus_Mons" } }, E);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("emulate.timezone: the browser refused the value");
    expect((await held(E)).id).toBe(id);
    expect((await server.app.services.store.get(E))!.settings.emulate).toBeUndefined();
    expect((await script(READ, E))[1]).toBe(plain[1]);
  });
});
