// The admin JSON core on the real Grid: rows, live updates over SSE, end and forget, settings, activity.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer, TOKEN } from "../support/server.ts";

let server: TestServer;
// A page that never finishes loading: a call going there is stuck until an admin stops it.
let hang: () => void = () => {};
const site = serveFixture({
  "/": () => html("<title>Admin fixture</title><p>x"),
  "/other": () => html("<title>Other</title><p>y"),
  "/never": () =>
    new Promise<Response>((resolve) => {
      hang = () => resolve(html("<title>Late</title>"));
    }),
});
const W = "admin-ws";

async function admin(method: string, path: string, token: string | null = TOKEN) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.secrets.entries = {
        shop: {
          description: "the shop",
          allowed_urls: ["https://shop.example.test/"],
          keys: { password: { value: "admin-test-secret-value" } },
        },
      };
    },
  });
  await server.call("POST", "/browser/navigate", { url: site.url("/") }, W);
}, 120_000);

afterAll(async () => {
  hang();
  await endAll(server, [W, "stuck-ws"]);
  await server.close();
  site.stop();
});

describe("admin JSON", () => {
  test("every admin route is 401 without the token", async () => {
    for (const [m, p] of [
      ["GET", "/admin/workspaces"],
      ["GET", `/admin/workspaces/${W}`],
      ["POST", `/admin/workspaces/${W}/end`],
      ["DELETE", `/admin/workspaces/${W}`],
      ["GET", "/admin/settings"],
      ["GET", "/admin/activity"],
      ["GET", "/admin/secrets"],
      ["GET", "/admin/events"],
    ] as const) {
      expect((await admin(m, p, null)).status).toBe(401);
      expect((await admin(m, p, "wrong")).status).toBe(401);
    }
  });

  test("the admin cookie from a sign-in works like the token; the token itself as a cookie does not", async () => {
    const signIn = await fetch(`${server.url}/ui/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
      body: new URLSearchParams({ token: TOKEN }).toString(),
      redirect: "manual",
    });
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const res = await fetch(`${server.url}/admin/workspaces`, { headers: { cookie } });
    expect(res.status).toBe(200);
    const token = await fetch(`${server.url}/admin/workspaces`, { headers: { cookie: `sf_admin=${TOKEN}` } });
    expect(token.status).toBe(401);
  });

  test("a row says live, the last page, and history counts and revision; never the Grid id", async () => {
    const { body } = await admin("GET", "/admin/workspaces");
    const row = body.workspaces.find((r: any) => r.key === W);
    expect(row).toMatchObject({ key: W, live: true, url: site.url("/"), history_count: 1 });
    expect(typeof row.history_rev).toBe("string");
    const id = (await server.app.services.store.get(W))!.session_id;
    expect(JSON.stringify(body)).not.toContain(id);

    await server.call("POST", "/browser/navigate", { url: site.url("/other") }, W);
    const again = (await admin("GET", `/admin/workspaces/${W}`)).body;
    expect(again.history_rev).not.toBe(row.history_rev);
    const same = (await admin("GET", `/admin/workspaces/${W}`)).body;
    expect(same.history_rev).toBe(again.history_rev);
  }, 60_000);

  test("any route on a workspace that does not exist is 404 naming it", async () => {
    for (const [m, p] of [
      ["GET", "/admin/workspaces/nobody"],
      ["POST", "/admin/workspaces/nobody/end"],
      ["DELETE", "/admin/workspaces/nobody"],
    ] as const) {
      const res = await admin(m, p);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "no workspace nobody" });
    }
  });

  test("activity lists calls with tool, status and time, never an argument", async () => {
    const { body } = await admin("GET", "/admin/activity");
    const call = body.calls.find((c: any) => c.workspace === W && c.tool === "navigate");
    expect(Object.keys(call).sort()).toEqual(["ms", "status", "surface", "time", "tool", "workspace"]);
    expect(call).toMatchObject({ surface: "rest", status: 200 });
    expect(typeof call.ms).toBe("number");
    expect(Math.abs(call.time - Date.now() / 1000)).toBeLessThan(600);
    expect(JSON.stringify(body)).not.toContain(site.url("/other"));
  });

  test("secrets list names, descriptions, key names and allowed URLs, never a value", async () => {
    const { body } = await admin("GET", "/admin/secrets");
    expect(body.secrets).toEqual([
      {
        name: "shop",
        description: "the shop",
        keys: ["password"],
        allowed_urls: ["https://shop.example.test/"],
        restricted: true,
      },
    ]);
    expect(typeof body.rev).toBe("number");
    expect(JSON.stringify(body)).not.toContain("admin-test-secret-value");
  });

  test("settings say where each value came from and mask the token", async () => {
    const { body } = await admin("GET", "/admin/settings");
    const token = body.settings.find((s: any) => s.key === "auth.token");
    expect(token.value).toBe("•••");
    expect(JSON.stringify(body)).not.toContain(TOKEN);
    expect(body.settings.find((s: any) => s.key === "grid.url").source).toBe("default");
  });

  test("the event stream pushes a workspace's row when a call changes it", async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/admin/events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: controller.signal,
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const seen = (async () => {
      while (!text.includes(`"key":"${W}"`)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    })();
    await server.call("POST", "/browser/navigate", { url: site.url("/") }, W);
    await Promise.race([seen, Bun.sleep(10_000)]);
    controller.abort();
    expect(text).toContain("event: workspace");
    expect(text).toContain(`"url":"${site.url("/")}"`);
  }, 60_000);

  test("end quits the browser and keeps the record; forget deletes it", async () => {
    const ended = await admin("POST", `/admin/workspaces/${W}/end`);
    expect(ended.body).toEqual({ ended: true });
    const row = (await admin("GET", `/admin/workspaces/${W}`)).body;
    expect(row.live).toBe(false);
    expect(row.url).toBe(site.url("/"));
    const gone = await admin("DELETE", `/admin/workspaces/${W}`);
    expect(gone.body).toEqual({ forgotten: W });
    expect(await server.app.services.store.get(W)).toBeNull();
  }, 60_000);
});

describe("the event stream under a slow read", () => {
  test("rows go out in the order they were read: the last one pushed is the record as it stands", async () => {
    const key = "feed-order";
    const { store, events } = server.app.services;
    const put = (url: string) =>
      store.update(
        key,
        (r) =>
          ({
            ...(r ?? { session_id: "", history: [], settings: {}, site_data: null }),
            history: [{ origin: new URL(url).origin, url, at: Date.now() / 1000 }],
          }) as never,
      );
    await put("http://app.example.test/first");
    const controller = new AbortController();
    const res = await fetch(`${server.url}/admin/events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const urls = () => [...text.matchAll(/"key":"feed-order"[^\n]*?"url":"([^"]+)"/g)].map((m) => m[1]);
    const read = (async () => {
      while (urls().length < 2) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    })();
    // The first row's read of the record (after the check that it exists) answers late, after the
    // record has moved on.
    const get = store.get.bind(store);
    let reads = 0;
    store.get = async (k) => {
      const got = await get(k);
      if (k === key && ++reads === 2) await Bun.sleep(400);
      return got;
    };
    try {
      events.changed(key);
      await Bun.sleep(150);
      await put("http://app.example.test/second");
      events.changed(key);
      await Promise.race([read, Bun.sleep(10_000)]);
    } finally {
      store.get = get;
      controller.abort();
      await store.update(key, () => null);
    }
    expect(urls()).toEqual(["http://app.example.test/first", "http://app.example.test/second"]);
  }, 30_000);
});

describe("a stuck call", () => {
  test("admin End stops it and returns at once; the stopped call answers, and settles nothing", async () => {
    await server.call("POST", "/browser/navigate", { url: site.url("/") }, "stuck-ws");
    const before = (await server.app.services.store.get("stuck-ws"))!.session_id;
    const stuck = server.call("POST", "/browser/navigate", { url: site.url("/never") }, "stuck-ws");
    await Bun.sleep(800);
    const t = performance.now();
    const ended = await admin("POST", "/admin/workspaces/stuck-ws/end");
    const ms = performance.now() - t;
    expect(ended.body).toEqual({ ended: true });
    // The End did not wait for the stuck call's turn (which would be the page load timeout: minutes).
    expect(ms).toBeLessThan(5_000);
    const answered = await stuck;
    expect(answered.status).toBe(503);
    const after = await server.app.services.store.get("stuck-ws");
    expect(after?.session_id).toBe("");
    expect(after?.history.map((v) => v.url)).toEqual([site.url("/")]);
    // End answers without waiting on the Grid's quit (it may take seconds on a busy node); the quit
    // still happens: the Grid lets the browser go.
    let live = true;
    for (let i = 0; i < 60 && live; i++) {
      live = (await server.app.services.grid.sessions())?.has(before) ?? true;
      if (live) await Bun.sleep(500);
    }
    expect(live).toBe(false);
  }, 120_000);
});

describe("a call stuck on a Grid that stops answering", () => {
  test("admin End stops it at once: its browser's connection closes under it", async () => {
    // A Grid that opens browsers and answers classic calls, whose BiDi answers the set-up and then
    // never answers a navigation.
    const id = "0123456789abcdef0123456789abcdef";
    const grid = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req, srv) {
        const path = new URL(req.url).pathname;
        if (path.endsWith("/se/bidi") && srv.upgrade(req)) return undefined;
        const value =
          req.method === "POST" && path === "/session"
            ? { sessionId: id, capabilities: { browserName: "chrome" } }
            : path.endsWith("/window")
              ? "TAB"
              : null;
        return Response.json({ value });
      },
      websocket: {
        message(ws, data) {
          const msg = JSON.parse(String(data)) as { id: number; method: string };
          if (msg.method === "browsingContext.navigate") return;
          const result =
            msg.method === "browsingContext.getTree"
              ? { contexts: [{ context: "TAB", url: "about:blank", children: [], parent: null }] }
              : msg.method === "session.subscribe"
                ? { subscription: "s" }
                : {};
          ws.send(JSON.stringify({ id: msg.id, type: "success", result }));
        },
      },
    });
    const hung = await startServer({
      dataDir: false,
      configure: (c) => {
        c.grid.url = `http://127.0.0.1:${grid.port}`;
      },
    });
    try {
      const stuck = hung.call("POST", "/browser/navigate", { url: "http://app.example.test/" }, "hung-ws");
      await Bun.sleep(1000);
      const t = performance.now();
      const res = await fetch(`${hung.url}/admin/workspaces/hung-ws/end`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(await res.json()).toEqual({ ended: true });
      const answered = await stuck;
      // Without the stop, the navigation would wait for the page load timeout (five minutes).
      expect(performance.now() - t).toBeLessThan(5_000);
      expect(answered.status).toBe(503);
      expect((await hung.app.services.store.get("hung-ws"))?.session_id).toBe("");
    } finally {
      await hung.close();
      grid.stop(true);
    }
  }, 60_000);
});
