// The site-data surfaces on the real server and its real SQLite store, from records written
// directly (no browser): the agent's resources over REST and MCP, and the admin's Site data and
// History with Forget and Clear, their row fields, and what never appears in them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SiteDataShape, SiteList } from "../../src/site-data/schemas.ts";
import { emptyRecord, type WorkspaceRecord } from "../../src/store/record.ts";
import { cookie } from "../support/cookies.ts";
import { all, type El, one, parseHtml, text } from "../support/html.ts";
import { hints, type McpClient, mcpClient } from "../support/mcp.ts";
import { startServer, type TestServer, TOKEN } from "../support/server.ts";

const NOW = Date.now() / 1000;
const APP = "https://app.example.com";
const RAW = "RAW-SECRET-3f9a";
let server: TestServer;
let mcp: McpClient;
const bodies: string[] = [];
const secretsDir = mkdtempSync(join(tmpdir(), "sf-secrets-"));

function desktop(): WorkspaceRecord {
  return {
    ...emptyRecord(),
    history: [
      { origin: APP, url: `${APP}/x`, at: NOW - 60 },
      { origin: "http://app.example.com:8080", url: "http://app.example.com:8080/dev", at: NOW - 120 },
      { origin: "https://mail.example.org", url: "https://mail.example.org/inbox", at: NOW - 3600 },
    ],
    site_data: {
      cookies: [
        cookie("sid", "app.example.com", { http_only: true, value: RAW }),
        cookie("theme", "app.example.com", { value: "dark" }),
        cookie("shared", ".example.com", { value: "s" }),
        cookie("ad", "ads.example.net"),
      ],
      origins: { [APP]: { local: { a: "1" } } },
      session: { origin: APP, items: { s: "1" } },
      saved_at: 10,
    },
  };
}

async function admin(method: string, path: string, token: string | null = TOKEN) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const text = await res.text();
  bodies.push(text);
  return { status: res.status, body: JSON.parse(text) as any, text };
}

async function rest(path: string, workspace: string) {
  const res = await server.call("GET", path, undefined, workspace);
  bodies.push(JSON.stringify(res.body));
  return res;
}

const row = async (key: string) =>
  (await admin("GET", "/admin/workspaces")).body.workspaces.find((r: any) => r.key === key);

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.secrets.dirs = [secretsDir];
      c.secrets.entries = {
        app: {
          description: "the app",
          allowed_urls: ["https://app.example.com/login"],
          keys: { user: { value: "u-9c1e" }, pass: { value: "p-9c1e" } },
        },
        mail: {
          description: "mail",
          allowed_urls: ["mail.example.org"],
          keys: { token: { value: "t-9c1e" } },
        },
        unvisited: { allowed_urls: ["never.example.net"], keys: { k: { value: "n-9c1e" } } },
        anywhere: { description: "unleashed", keys: { k: { value: "a-9c1e" } } },
      };
    },
  });
  mcp = await mcpClient(server, "desktop");
});

afterAll(async () => {
  await server.close();
  rmSync(secretsDir, { recursive: true, force: true });
  const all = [...bodies, ...mcp.texts].join("\n");
  expect(all).not.toContain(RAW);
  for (const secret of ["u-9c1e", "p-9c1e", "t-9c1e", "n-9c1e", "a-9c1e"]) expect(all).not.toContain(secret);
});

describe("the agent's resources", () => {
  test("GET /site-data lists by host, history hosts first, counts only, with saved_at", async () => {
    await server.app.services.store.set("desktop", desktop());
    const { status, body } = await rest("/site-data", "desktop");
    expect(status).toBe(200);
    expect(body.saved_at).toBe(10);
    expect(body.uri).toBe("workspace://site-data");
    expect(body.sites.map((s: any) => s.site)).toEqual(["app.example.com", "ads.example.net"]);
    expect(body.sites[0]).toEqual({
      site: "app.example.com",
      uri: "workspace://site-data/app.example.com",
      cookies: 3,
      storage: [{ origin: APP, local_storage: 1, session_storage: 1 }],
    });
    expect(SiteList.strict().safeParse(body).success).toBe(true);
    expect(JSON.stringify(body)).not.toContain("dark");
  });

  test("GET /site-data/{site} shows one host in full, httpOnly masked; an unknown one names the listing", async () => {
    const { body } = await rest("/site-data/app.example.com", "desktop");
    expect(body.cookies.map((c: any) => [c.name, c.value, c.shared])).toEqual([
      ["sid", "•••", false],
      ["theme", "dark", false],
      ["shared", "s", true],
    ]);
    expect(body.own_cookies).toEqual(["sid", "theme"]);
    expect(body.kept_shared).toEqual([{ name: "shared", domain: ".example.com", path: "/" }]);
    expect(body.storage).toEqual([{ origin: APP, local_storage: { a: "1" }, session_storage: { s: "1" } }]);
    expect(SiteDataShape.strict().safeParse(body).success).toBe(true);
    const missing = await rest("/site-data/nowhere.example.com", "desktop");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe(
      "no saved data for 'nowhere.example.com': workspace://site-data lists them",
    );
  });

  test("a workspace with no record reads as nothing saved, and reading opens no browser", async () => {
    const { body } = await rest("/site-data", "nobody-here");
    expect(body).toEqual({ sites: [], saved_at: null, uri: "workspace://site-data" });
    expect(await server.app.services.store.get("nobody-here")).toBeNull();
  });

  test("MCP resources answer the same, and workspace://current carries the summary", async () => {
    const listing = await mcp.resource("workspace://site-data");
    expect(listing).toEqual((await rest("/site-data", "desktop")).body);
    const one = await mcp.resource("workspace://site-data/app.example.com");
    expect(one).toEqual((await rest("/site-data/app.example.com", "desktop")).body);
    const current = await rest("/browser", "desktop");
    expect(current.body.site_data).toEqual({ sites: 2, uri: "workspace://site-data" });
    const templates = await mcp.request("resources/templates/list");
    expect(JSON.stringify(templates.data)).toContain("workspace://site-data/{site}");
  });

  test("save_site_data is a tool and an endpoint with the declared annotations; its description links the guide", async () => {
    const { data } = await mcp.request("tools/list");
    const tool = data.result.tools.find((t: any) => t.name === "save_site_data");
    expect(hints(tool.annotations)).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(tool.description).toContain("skill://selenium-flow/references/SITE_DATA.md");
    expect(Object.keys(tool.outputSchema.properties)).toEqual(
      expect.arrayContaining(["url", "title", "saved", "uri", "site_data"]),
    );
    const open = data.result.tools.find((t: any) => t.name === "open_session");
    expect(open.inputSchema.properties.restore_site_data.default).toBe(true);
    const api = await fetch(`${server.url}/openapi.json`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const doc = (await api.json()) as any;
    expect(doc.paths["/browser/save-site-data"].post).toBeDefined();
    expect(doc.paths["/site-data/{site}"].get).toBeDefined();
    const guide = await fetch(`${server.url}/skill/references/SITE_DATA.md`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const text = await guide.text();
    for (const heading of [
      "## When to save",
      "## What comes back",
      "## Restored but still signed out",
      "## Start as a new user",
      "## Debugging with execute_script",
      "## Limits",
    ])
      expect(text).toContain(heading);
  });
});

describe("admin Site data", () => {
  test("the list is the snapshot by host, history hosts first, with details and no secrets", async () => {
    await server.app.services.store.set("desktop", desktop());
    const { body, text } = await admin("GET", "/admin/workspaces/desktop/site-data");
    expect(body.key).toBe("desktop");
    expect(body.saved_at).toBe(10);
    expect(body.sites.map((s: any) => s.site)).toEqual(["app.example.com", "ads.example.net"]);
    expect(Object.keys(body.details)).toEqual(["app.example.com", "ads.example.net"]);
    expect(text).not.toContain("mail.example.org");
    expect(text).not.toContain("secrets");
    const app = body.details["app.example.com"];
    expect(Object.fromEntries(app.cookies.map((c: any) => [c.name, c.value]))).toEqual({
      sid: "•••",
      theme: "dark",
      shared: "s",
    });
    expect(app.own_cookies).toEqual(["sid", "theme"]);
    expect(app.kept_shared).toEqual([{ name: "shared", domain: ".example.com", path: "/" }]);
  });

  test("details mask httpOnly values and show both storages", async () => {
    await server.app.services.store.set("desktop", desktop());
    const { body, text } = await admin("GET", "/admin/workspaces/desktop/site-data");
    const app = body.details["app.example.com"];
    expect(app.storage).toEqual([{ origin: APP, local_storage: { a: "1" }, session_storage: { s: "1" } }]);
    expect(app.cookies.map((c: any) => [c.name, c.value, c.http_only])).toEqual([
      ["sid", "•••", true],
      ["theme", "dark", false],
      ["shared", "s", false],
    ]);
    expect(body.details["ads.example.net"].storage).toEqual([]);
    expect(text).not.toContain(RAW);
  });

  test("a workspace that does not exist is 404 on every route", async () => {
    for (const [m, p] of [
      ["GET", "/admin/workspaces/nobody/site-data"],
      ["DELETE", "/admin/workspaces/nobody/site-data"],
      ["DELETE", "/admin/workspaces/nobody/site-data/app.example.com"],
      ["GET", "/admin/workspaces/nobody/history"],
      ["DELETE", "/admin/workspaces/nobody/history"],
    ] as const) {
      const res = await admin(m, p);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "no workspace nobody" });
    }
  });

  test("a workspace with a folder and no record has nothing saved", async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(`${server.dataDir}/sessions/empty-one`, { recursive: true });
    const { body } = await admin("GET", "/admin/workspaces/empty-one/site-data");
    expect(body).toEqual({
      key: "empty-one",
      sites: [],
      saved_at: null,
      uri: "workspace://site-data",
      details: {},
    });
    expect((await admin("DELETE", "/admin/workspaces/empty-one/site-data")).body).toEqual({ cleared: [] });
    expect((await admin("GET", "/admin/workspaces/empty-one/history")).body).toEqual({
      key: "empty-one",
      sites: [],
      clears: [],
    });
  });

  test("Forget takes one host, leaves shared cookies and the history; twice is 404", async () => {
    await server.app.services.store.set("desktop", desktop());
    const before = await row("desktop");
    const { status, body } = await admin("DELETE", "/admin/workspaces/desktop/site-data/APP.example.com");
    expect(status).toBe(200);
    expect(body).toEqual({
      forgotten: {
        site: "app.example.com",
        cookies: ["sid", "theme"],
        origins: [APP],
        kept_shared: [{ name: "shared", domain: ".example.com", path: "/" }],
      },
    });
    const record = await server.app.services.store.get("desktop");
    expect(record?.site_data.cookies?.map((c) => c.name)).toEqual(["shared", "ad"]);
    expect(record?.site_data.origins).toEqual({});
    expect(record?.site_data.session).toEqual({});
    expect(record?.site_data.saved_at).toBe(10);
    expect(record?.history).toEqual(desktop().history);
    const after = await row("desktop");
    expect(after.site_data_rev).not.toBe(before.site_data_rev);
    const again = await admin("DELETE", "/admin/workspaces/desktop/site-data/app.example.com");
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: "no saved site data for app.example.com" });
  });

  test("Forget keeps a save that lands while it works", async () => {
    await server.app.services.store.set("desktop", desktop());
    const store = server.app.services.store;
    const update = store.update.bind(store);
    store.update = async (key, fn) => {
      store.update = update;
      // Another write lands between the request and its own write.
      await update(key, (r) =>
        r
          ? {
              ...r,
              site_data: {
                ...r.site_data,
                origins: { ...r.site_data.origins, "https://late.example.net": { local: { l: "1" } } },
              },
            }
          : r,
      );
      return update(key, fn);
    };
    expect((await admin("DELETE", "/admin/workspaces/desktop/site-data/app.example.com")).status).toBe(200);
    expect(Object.keys((await store.get("desktop"))?.site_data.origins ?? {})).toEqual([
      "https://late.example.net",
    ]);
  });

  test("a parent-only row can be forgotten, a host it merely covers cannot", async () => {
    await server.app.services.store.set("parent", {
      ...emptyRecord(),
      site_data: { cookies: [cookie("shared", ".example.org")], saved_at: 5 },
    });
    const list = await admin("GET", "/admin/workspaces/parent/site-data");
    expect(list.body.sites.map((s: any) => s.site)).toEqual(["example.org"]);
    expect(list.body.details["example.org"].own_cookies).toEqual(["shared"]);
    expect((await admin("DELETE", "/admin/workspaces/parent/site-data/mail.example.org")).status).toBe(404);
    expect((await admin("DELETE", "/admin/workspaces/parent/site-data/example.org")).status).toBe(200);
    expect((await row("parent")).site_data_count).toBe(0);
  });

  test("Clear deletes the snapshot and keeps the history; clearing again is not an error", async () => {
    await server.app.services.store.set("desktop", desktop());
    const { body } = await admin("DELETE", "/admin/workspaces/desktop/site-data");
    expect(body).toEqual({ cleared: ["app.example.com", "ads.example.net"] });
    const record = await server.app.services.store.get("desktop");
    expect(record?.site_data).toEqual({});
    expect(record?.history).toEqual(desktop().history);
    expect((await admin("GET", "/admin/workspaces/desktop/site-data")).body.sites).toEqual([]);
    expect((await admin("DELETE", "/admin/workspaces/desktop/site-data")).body).toEqual({ cleared: [] });
  });

  test("the row counts hosts; its rev moves on a save, a forget and a clear", async () => {
    await server.app.services.store.set("desktop", desktop());
    const first = await row("desktop");
    expect(first.site_data_count).toBe(2);
    expect(first.site_data_rev).toBe(JSON.stringify([10, ["app.example.com", "ads.example.net"]]));
    await admin("DELETE", "/admin/workspaces/desktop/site-data/ads.example.net");
    const forgot = await row("desktop");
    expect(forgot.site_data_count).toBe(1);
    expect(forgot.site_data_rev).not.toBe(first.site_data_rev);
    await server.app.services.store.update("desktop", (r) =>
      r ? { ...r, site_data: { ...r.site_data, saved_at: 11 } } : r,
    );
    expect((await row("desktop")).site_data_rev).not.toBe(forgot.site_data_rev);
    await admin("DELETE", "/admin/workspaces/desktop/site-data");
    expect((await row("desktop")).site_data_count).toBe(0);
  });

  test("the routes need the token", async () => {
    for (const [m, p] of [
      ["GET", "/admin/workspaces/desktop/site-data"],
      ["DELETE", "/admin/workspaces/desktop/site-data"],
      ["DELETE", "/admin/workspaces/desktop/site-data/app.example.com"],
      ["GET", "/admin/workspaces/desktop/history"],
      ["DELETE", "/admin/workspaces/desktop/history"],
    ] as const) {
      expect((await admin(m, p, null)).status).toBe(401);
    }
  });
});

describe("admin History", () => {
  test("one row per host, current first, with its latest page, what is saved there, and its secrets", async () => {
    await server.app.services.store.set("desktop", desktop());
    const { body, text } = await admin("GET", "/admin/workspaces/desktop/history");
    expect(body.key).toBe("desktop");
    expect(body.sites.map((s: any) => [s.site, s.url])).toEqual([
      ["app.example.com", `${APP}/x`],
      ["mail.example.org", "https://mail.example.org/inbox"],
    ]);
    expect(body.sites[0].saved).toEqual({ cookies: 3, local: 1, session: 1 });
    expect(body.sites[1].saved).toBeNull();
    expect(body.sites[0].secrets).toEqual([{ name: "app", description: "the app", keys: ["user", "pass"] }]);
    expect(body.sites[1].secrets.map((s: any) => s.name)).toEqual(["mail"]);
    expect(text).not.toContain("never.example.net");
    expect(text).not.toContain("unleashed");
    expect(body.clears).toEqual(["http://app.example.com:8080", "https://mail.example.org"]);
  });

  test("Clear keeps the current site and nothing else; site data untouched", async () => {
    await server.app.services.store.set("desktop", desktop());
    const { body } = await admin("DELETE", "/admin/workspaces/desktop/history");
    expect(body).toEqual({ cleared: ["mail.example.org"] });
    const record = await server.app.services.store.get("desktop");
    expect(record?.history).toEqual(desktop().history.slice(0, 1));
    expect(record?.site_data).toEqual(desktop().site_data);
    expect(
      (await admin("GET", "/admin/workspaces/desktop/history")).body.sites.map((s: any) => s.site),
    ).toEqual(["app.example.com"]);
    expect((await admin("DELETE", "/admin/workspaces/desktop/history")).body).toEqual({ cleared: [] });
  });

  test("the row counts hosts; its rev follows every entry's origin and URL, not the clock", async () => {
    await server.app.services.store.set("desktop", desktop());
    const first = await row("desktop");
    expect(first.history_count).toBe(2);
    const store = server.app.services.store;
    const land = (url: string, when: number) =>
      store.update("desktop", (r) =>
        r
          ? {
              ...r,
              history: [
                { origin: new URL(url).origin, url, at: when },
                ...r.history.filter((v) => v.origin !== new URL(url).origin),
              ],
            }
          : r,
      );
    await land(`${APP}/y`, NOW);
    const moved = await row("desktop");
    expect(moved.history_rev).not.toBe(first.history_rev);
    await land(`${APP}/y`, NOW + 5);
    expect((await row("desktop")).history_rev).toBe(moved.history_rev);
    await admin("DELETE", "/admin/workspaces/desktop/history");
    expect((await row("desktop")).history_count).toBe(1);
  });

  test("the rev is every entry's origin and URL in order; another site or a row below the top moves it", async () => {
    await server.app.services.store.set("desktop", desktop());
    const first = await row("desktop");
    expect(first.history_count).toBe(2);
    expect(JSON.parse(first.history_rev)).toEqual([
      [APP, `${APP}/x`],
      ["http://app.example.com:8080", "http://app.example.com:8080/dev"],
      ["https://mail.example.org", "https://mail.example.org/inbox"],
    ]);
    expect(first.history_rev).toBe(JSON.stringify(JSON.parse(first.history_rev)));
    const store = server.app.services.store;
    // Another site is visited: it goes on top.
    await store.update("desktop", (r) =>
      r
        ? {
            ...r,
            history: [
              { origin: "https://mail.example.org", url: "https://mail.example.org/sent", at: NOW },
              ...r.history.filter((v) => v.origin !== "https://mail.example.org"),
            ],
          }
        : r,
    );
    const visited = await row("desktop");
    expect(visited.history_count).toBe(2);
    expect(JSON.parse(visited.history_rev)).toEqual([
      ["https://mail.example.org", "https://mail.example.org/sent"],
      [APP, `${APP}/x`],
      ["http://app.example.com:8080", "http://app.example.com:8080/dev"],
    ]);
    // A row below the top changes its page while the top stays.
    await store.update("desktop", (r) =>
      r
        ? {
            ...r,
            history: r.history.map((v) => (v.origin === APP ? { ...v, url: `${APP}/elsewhere` } : v)),
          }
        : r,
    );
    const below = await row("desktop");
    expect(below.history_rev).not.toBe(visited.history_rev);
    expect(JSON.parse(below.history_rev)[0]).toEqual([
      "https://mail.example.org",
      "https://mail.example.org/sent",
    ]);
    expect(below.history_count).toBe(2);
    await admin("DELETE", "/admin/workspaces/desktop/history");
    const cleared = await row("desktop");
    expect(cleared.history_count).toBe(1);
    expect(JSON.parse(cleared.history_rev)).toEqual([
      ["https://mail.example.org", "https://mail.example.org/sent"],
    ]);
  });

  test("the row's secrets_rev moves when the catalogue changes, and History then shows the new secret", async () => {
    await server.app.services.store.set("desktop", desktop());
    const before = await row("desktop");
    expect(typeof before.secrets_rev).toBe("string");
    expect((await row("desktop")).secrets_rev).toBe(before.secrets_rev);
    writeFileSync(
      join(secretsDir, "ads.yaml"),
      "description: ads login\nallowed_urls: [mail.example.org]\nkeys:\n  user:\n    value: ads-9c1e\n",
    );
    const after = await row("desktop");
    expect(after.secrets_rev).not.toBe(before.secrets_rev);
    const history = await admin("GET", "/admin/workspaces/desktop/history");
    expect(history.body.sites[1].secrets.map((s: any) => s.name)).toEqual(["ads", "mail"]);
    expect(history.text).not.toContain("ads-9c1e");
  });
});

describe("the admin UI's routes", () => {
  const page = async (path: string) => {
    const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const text = await res.text();
    bodies.push(text);
    return { status: res.status, type: res.headers.get("content-type") ?? "", root: parseHtml(text) };
  };
  const loaderOf = (root: El, pane: string) => one(root, `#${pane} [data-rev]`).attrs["hx-get"] as string;
  const LOOPBACK = "http://[::1]:3000";

  test("a Site data host rides in the URL: an encoded host round-trips to its open row; a files path opens none", async () => {
    await server.app.services.store.set("ports", {
      ...emptyRecord(),
      history: [
        { origin: APP, url: `${APP}/x`, at: NOW - 60 },
        { origin: LOOPBACK, url: `${LOOPBACK}/dev`, at: NOW - 120 },
      ],
      site_data: {
        cookies: [cookie("theme", "app.example.com", { value: "dark" })],
        origins: { [LOOPBACK]: { local: { k: "v" } } },
        saved_at: 10,
      },
    });
    // History's saved pill links the host, encoded.
    const history = await page("/ui/workspaces/ports/panes/history");
    const link = all(history.root, ".pill.link")[1]?.attrs.href as string;
    expect(link).toBe("/ui/workspaces/ports/site-data/%5B%3A%3A1%5D");
    // The page at that URL shows Site data and asks its pane to open the host.
    const linked = await page(link);
    expect(linked.status).toBe(200);
    expect(one(linked.root, "#tabSiteData").attrs["aria-selected"]).toBe("true");
    const loader = loaderOf(linked.root, "paneSiteData");
    expect(loader).toBe("/ui/workspaces/ports/panes/site-data?open=%5B%3A%3A1%5D");
    // The pane it loads has that row open and marked, the host decoded once.
    const pane = await page(loader);
    const open = all(pane.root, "section.section[data-linked]");
    expect(open.map((s) => s.attrs.id)).toEqual(["site-ports:[::1]Section"]);
    expect(one(open[0] as El, "button[aria-expanded]").attrs["aria-expanded"]).toBe("true");
    expect(text(one(open[0] as El, ".title"))).toBe(LOOPBACK);
    // Site data without a host, and the Files tab, ask no pane to open anything.
    for (const path of ["/ui/workspaces/ports/site-data", "/ui/workspaces/ports/files"]) {
      const plain = await page(path);
      expect(plain.status).toBe(200);
      for (const pane of ["paneFiles", "paneFlows", "paneSiteData", "paneHistory"])
        expect(loaderOf(plain.root, pane)).not.toContain("?");
    }
    // A path under Files names no site: it is no page at all, so no row opens.
    const files = await page("/ui/workspaces/ports/files/x");
    expect(files.status).toBe(404);
    expect(files.type).toContain("application/json");
    expect(all(files.root, "section.section")).toHaveLength(0);
  });
});
