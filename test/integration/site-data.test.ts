// Site data end to end on the real Grid: two apps signed in through an identity-provider bounce
// (httpOnly cookies, localStorage, a sessionStorage token, a parent-domain cookie they share), a
// service-worker origin, one save, then a real end and reopen and a reap behind the server's back,
// both signed in everywhere; restore_site_data=false starts over. No value in any body or log line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SW_REASON } from "../../src/site-data/spare-page.ts";
import { testGridUrl } from "../support/env.ts";
import { mcpClient } from "../support/mcp.ts";
import { endAll, logLines, startServer, type TestServer, TOKEN } from "../support/server.ts";

const V = {
  appSid: "app-sid-6b1d2e90",
  crmSid: "crm-sid-41c7aa03",
  idpSid: "idp-sid-9e2b7f15",
  shared: "shared-5d8c3b71",
  code: "code-0a9f4e62",
  appPref: "app-pref-7e31c9d4",
  appToken: "app-token-2b6f8a15",
  crmCart: "crm-cart-c84d1e07",
  crmToken: "crm-token-f3a9b260",
  swKey: "sw-key-88e1d4a2",
};
const W = "site-data-e2e";

function cookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k) out[k] = v.join("=");
  }
  return out;
}

const page = (body: string, headers: HeadersInit = {}) =>
  new Response(`<!doctype html><html><head><meta charset="utf-8">${body}</head><body>ok</body></html>`, {
    headers: { "content-type": "text/html; charset=utf-8", ...headers },
  });
const redirect = (to: string, setCookies: string[] = []) => {
  const h = new Headers({ location: to });
  for (const c of setCookies) h.append("set-cookie", c);
  return new Response(null, { status: 302, headers: h });
};

/** A home page: the server says whether its cookie came; the page says whether its storage is there. */
function home(
  name: string,
  signedIn: boolean,
  sharedCame: boolean,
  store: { localKey: string; local: string; sessionKey: string; session: string },
) {
  const js = `
    const setup = document.cookie.split('; ').includes('setup=1');
    if (setup) {
      localStorage.setItem('${store.localKey}', '${store.local}');
      sessionStorage.setItem('${store.sessionKey}', '${store.session}');
      document.cookie = 'setup=; max-age=0; path=/';
    }
    const yes = (b) => (b ? 'yes' : 'no');
    document.title = '${name}: in=${signedIn ? "yes" : "no"}; local=' +
      yes(localStorage.getItem('${store.localKey}') === '${store.local}') + '; session=' +
      yes(sessionStorage.getItem('${store.sessionKey}') === '${store.session}') + '; shared=${sharedCame ? "yes" : "no"}';`;
  return page(`<title>${name}</title><script>${js}</script>`);
}

const SW_JS = `
self.addEventListener('install', (e) => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => e.respondWith(new Response('<!doctype html><title>from the worker</title>', { headers: { 'content-type': 'text/html' } })));`;

let port = 0;
const origin = (host: string) => `http://${host}:${port}`;
const fixture = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const url = new URL(req.url);
    const host = (req.headers.get("host") ?? "").split(":")[0];
    const c = cookies(req);
    const path = url.pathname;
    if (host === "idp.example.test" && path === "/authorize") {
      const back = url.searchParams.get("return") ?? "";
      // Signed in at the provider already: straight back. Otherwise sign in (httpOnly) and go back.
      const set = c.idp_sid === V.idpSid ? [] : [`idp_sid=${V.idpSid}; HttpOnly; Path=/`];
      return redirect(`${back}?code=${V.code}`, set);
    }
    if (host === "app.example.test" || host === "crm.example.test") {
      const app = host.split(".")[0] as "app" | "crm";
      const sid = app === "app" ? V.appSid : V.crmSid;
      const signedIn = c[`${app}_sid`] === sid;
      if (path === "/login") {
        if (signedIn) return redirect("/home");
        return redirect(`${origin("idp.example.test")}/authorize?return=${origin(host)}/callback`);
      }
      if (path === "/callback") {
        if (url.searchParams.get("code") !== V.code) return page("<title>bad code</title>");
        const set = [`${app}_sid=${sid}; HttpOnly; Path=/`, "setup=1; Path=/"];
        if (app === "app") set.push(`shared=${V.shared}; Domain=example.test; Path=/`);
        return redirect("/home", set);
      }
      if (path === "/home") {
        const store =
          app === "app"
            ? { localKey: "app_pref", local: V.appPref, sessionKey: "app_token", session: V.appToken }
            : { localKey: "crm_cart", local: V.crmCart, sessionKey: "crm_token", session: V.crmToken };
        return home(app, signedIn, c.shared === V.shared, store);
      }
    }
    if (host === "127.0.0.1") {
      if (path === "/sw.js") return new Response(SW_JS, { headers: { "content-type": "text/javascript" } });
      if (path === "/sw/")
        return page(
          `<title>worker page</title><script>localStorage.setItem('sw_key', '${V.swKey}');
           navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(() => navigator.serviceWorker.ready).then(() => { document.title = 'worker ready'; });</script>`,
        );
    }
    return new Response("not found", { status: 404 });
  },
});
port = fixture.port as number;

const APP = origin("app.example.test");
const CRM = origin("crm.example.test");
const SW = `http://127.0.0.1:${port}`;
const SIGNED_IN_CRM = "crm: in=yes; local=yes; session=yes; shared=yes";

let server: TestServer;
const bodies: string[] = [];
// One site in full (agent or admin) shows what is not httpOnly, by design: those bodies are checked
// for the httpOnly values only.
const fullViews: string[] = [];
const HTTP_ONLY = [V.appSid, V.crmSid, V.idpSid];

/** The url of every tab the workspace's browser has open. */
async function tabsOpen(): Promise<string[]> {
  const listed = await call("POST", "/browser/switch", { tab: "list" });
  expect(listed.status).toBe(200);
  return listed.body.tabs.map((t: { url: string }) => t.url);
}

async function call(method: string, path: string, body?: unknown) {
  const res = await server.call(method, path, body, W);
  (/^\/site-data\/./.test(path) ? fullViews : bodies).push(JSON.stringify(res.body));
  return res;
}

async function admin(path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  (path.endsWith("/site-data") ? fullViews : bodies).push(text);
  return JSON.parse(text) as any;
}

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  fixture.stop(true);
  const everything = [...bodies, ...logLines].join("\n");
  for (const [name, value] of Object.entries(V)) {
    if (name === "code") continue; // travels in a URL by design
    expect({ name, leaked: everything.includes(value) }).toEqual({ name, leaked: false });
  }
  const full = fullViews.join("\n");
  expect(fullViews.length).toBeGreaterThan(0);
  for (const value of HTTP_ONLY) expect(full).not.toContain(value);
});

describe("site data on the real Grid", () => {
  test("two apps sign in through the identity provider; a worker's origin is visited", async () => {
    const opened = await call("POST", "/browser", { url: `${APP}/login`, restore_site_data: false });
    expect(opened.status).toBe(200);
    expect(opened.body.url).toBe(`${APP}/home`);
    expect(opened.body.title).toBe("app: in=yes; local=yes; session=yes; shared=yes");
    const crm = await call("POST", "/browser/navigate", { url: `${CRM}/login` });
    expect(crm.body.url).toBe(`${CRM}/home`);
    expect(crm.body.title).toBe(SIGNED_IN_CRM);
    let title = "";
    for (let i = 0; i < 20 && !["worker ready", "from the worker"].includes(title); i++) {
      title = (await call("POST", "/browser/navigate", { url: `${SW}/sw/` })).body.title;
      if (!["worker ready", "from the worker"].includes(title)) await Bun.sleep(250);
    }
    expect(["worker ready", "from the worker"]).toContain(title);
    expect((await call("POST", "/browser/navigate", { url: `${CRM}/home` })).body.title).toBe(SIGNED_IN_CRM);
  }, 180_000);

  test("one save keeps every site it went to; the worker's origin is skipped with its reason", async () => {
    const saved = await call("POST", "/browser/save-site-data", {});
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      url: `${CRM}/home`,
      title: SIGNED_IN_CRM,
      saved: {
        cookies: 4,
        sites: [CRM, APP],
        skipped: [{ site: SW, reason: SW_REASON }],
      },
      uri: "workspace://site-data",
    });
    // The same save as an MCP tool, structured and declared: nothing loaded since, so only the
    // page is read again and the rest is carried.
    const mcp = await mcpClient(server, W);
    const viaMcp = await mcp.tool("save_site_data", {});
    bodies.push(...mcp.texts);
    expect(viaMcp.isError).toBeFalsy();
    expect(viaMcp.structuredContent).toEqual({
      ...saved.body,
      saved: { cookies: 4, sites: [CRM], skipped: [] },
    });
    const listing = await call("GET", "/site-data");
    expect(listing.body.sites.map((s: any) => s.site)).toEqual([
      "crm.example.test",
      "app.example.test",
      "idp.example.test",
    ]);
    const app = await call("GET", "/site-data/app.example.test");
    expect(app.body.cookies.map((c: any) => [c.name, c.value === "•••", c.shared, c.http_only])).toEqual([
      ["app_sid", true, false, true],
      ["shared", false, true, false],
    ]);
    expect(app.body.kept_shared).toEqual([{ name: "shared", domain: ".example.test", path: "/" }]);
    expect(
      app.body.storage.map((s: any) => [
        s.origin,
        Object.keys(s.local_storage),
        Object.keys(s.session_storage),
      ]),
    ).toEqual([[APP, ["app_pref"], []]]);
    const details = await admin(`/admin/workspaces/${W}/site-data`);
    expect(details.details["crm.example.test"].storage[0].session_storage).toHaveProperty("crm_token");
    // The hidden tab is gone after both saves: the browser has the agent's tab only.
    expect(await tabsOpen()).toEqual([`${CRM}/home`]);
  }, 120_000);

  test("a real end and reopen comes back signed in everywhere, before the first page", async () => {
    expect((await call("DELETE", "/browser")).body).toEqual({ ended: true });
    const reopened = await call("POST", "/browser", {});
    expect(reopened.status).toBe(200);
    expect(reopened.body.url).toBe(`${CRM}/home`);
    expect(reopened.body.title).toBe(SIGNED_IN_CRM);
    expect(reopened.body.site_data).toEqual({
      restored: ["app.example.test", "crm.example.test", "idp.example.test"],
      skipped: [],
      uri: "workspace://site-data",
    });
    // The hidden tab is gone and the main tab is where the open said.
    expect(await tabsOpen()).toEqual([`${CRM}/home`]);
    const app = await call("POST", "/browser/navigate", { url: `${APP}/home` });
    // sessionStorage is the saved page's only: the app's own token stays behind by design.
    expect(app.body.title).toBe("app: in=yes; local=yes; session=no; shared=yes");
    expect("site_data" in app.body).toBe(false);
  }, 180_000);

  test("a browser reaped behind the server's back comes back signed in; the call that noticed says so once", async () => {
    const id = (await server.app.services.store.get(W))?.session_id ?? "";
    expect(id).not.toBe("");
    const reaped = await fetch(`${testGridUrl}/session/${id}`, { method: "DELETE" });
    expect(reaped.status).toBe(200);
    const next = await call("POST", "/browser/navigate", { url: `${CRM}/home` });
    expect(next.status).toBe(200);
    expect(next.body.title).toBe(SIGNED_IN_CRM);
    expect(next.body.site_data).toEqual({
      restored: ["app.example.test", "crm.example.test", "idp.example.test"],
      skipped: [],
      uri: "workspace://site-data",
    });
    const after = await call("POST", "/browser/navigate", { url: `${APP}/login` });
    expect(after.body.url).toBe(`${APP}/home`);
    expect(after.body.title).toBe("app: in=yes; local=yes; session=no; shared=yes");
    expect("site_data" in after.body).toBe(false);
    expect(logLines.join("\n")).not.toContain(id);
  }, 180_000);

  test("restore_site_data=false opens empty, deletes what was saved and keeps where it has been", async () => {
    const fresh = await call("POST", "/browser", { restore_site_data: false, url: `${CRM}/home` });
    expect(fresh.body.site_data).toEqual({ forgotten: 3 });
    expect(fresh.body.title).toBe("crm: in=no; local=no; session=no; shared=no");
    expect((await call("GET", "/site-data")).body).toEqual({
      sites: [],
      saved_at: null,
      uri: "workspace://site-data",
    });
    const history = await admin(`/admin/workspaces/${W}/history`);
    expect(history.sites.map((s: any) => s.site)).toEqual([
      "crm.example.test",
      "app.example.test",
      "127.0.0.1",
    ]);
    const again = await call("POST", "/browser", { restore_site_data: false });
    expect("site_data" in again.body).toBe(false);
  }, 180_000);
});
