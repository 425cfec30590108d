// The /ui routes over the real app (no browser): signing in and out, what needs the cookie, the
// panes rendered from the admin API, actions through it, the live stream, static files, and that
// a mistyped path is never answered with a page.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ACTIONS } from "../../src/registry.ts";
import { emptyRecord, type WorkspaceRecord } from "../../src/store/record.ts";
import { ASSETS } from "../../src/views/assets.ts";
import { all, one, parseHtml, text } from "../support/html.ts";
import { startServer, type TestServer, TOKEN } from "../support/server.ts";
import { recordCall } from "../support/timeline.ts";

let server: TestServer;
const W = "ui-routes";
/** The cookie of a sign-in made in beforeAll: a random id, never the token. */
let COOKIE = "";
const NOW = Date.now() / 1000;
// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

function record(): WorkspaceRecord {
  return {
    ...emptyRecord(),
    history: [
      { origin: "https://app.example.test", url: "https://app.example.test/home?x=1", at: NOW - 60 },
      { origin: "https://shop.example.test", url: "https://shop.example.test/", at: NOW - 3600 },
    ],
    site_data: {
      saved_at: NOW - 120,
      cookies: [
        {
          name: "sid",
          value: "v<script>",
          value_type: "string",
          domain: "app.example.test",
          path: "/",
          http_only: true,
          secure: true,
          same_site: "Lax",
          expiry: null,
        },
        {
          name: "cart",
          value: "3",
          value_type: "string",
          domain: "shop.example.test",
          path: "/",
          http_only: false,
          secure: false,
          same_site: null,
          expiry: null,
        },
      ],
      origins: { "https://app.example.test": { local: { theme: "dark" } } },
    },
  };
}

const get = (path: string, headers: Record<string, string> = { cookie: COOKIE }) =>
  fetch(`${server.url}${path}`, { headers, redirect: "manual" });
// As the admin's browser sends it from the server's own page: with its Origin.
const send = (method: string, path: string, body?: BodyInit, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method,
    body,
    headers: { cookie: COOKIE, origin: server.url, ...headers },
    redirect: "manual",
  });
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** Signs in with the token; the cookie pair the server set. */
async function signIn(): Promise<string> {
  const res = await fetch(`${server.url}/ui/sign-in`, {
    method: "POST",
    body: form({ token: TOKEN }),
    headers: { ...FORM, origin: server.url },
    redirect: "manual",
  });
  expect(res.status).toBe(303);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
}

beforeAll(async () => {
  server = await startServer({ configure: (c) => (c.secrets.entries = {}) });
  await server.app.services.store.update(W, () => record());
  COOKIE = await signIn();
});

afterAll(async () => {
  await server.close();
});

describe("signing in", () => {
  test("without the cookie a page is the token field (401); a fragment is a JSON 401", async () => {
    for (const path of ["/ui/", `/ui/workspaces/${W}/history`, "/ui/settings"]) {
      const res = await get(path, {});
      expect(res.status).toBe(401);
      expect(res.headers.get("content-type")).toContain("text/html");
      const page = parseHtml(await res.text());
      expect(one(page, "input[name=token]").attrs.type).toBe("password");
      expect(one(page, "input[name=next]").attrs.value).toBe(path);
    }
    for (const path of [`/ui/workspaces/${W}/panes/history`, "/ui/events"]) {
      const res = await get(path, {});
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toContain("token");
    }
  });

  test("a wrong token is a 401 page with the error; the right one sets the cookie", async () => {
    const wrong = await send("POST", "/ui/sign-in", form({ token: "nope", next: "/ui/" }), FORM);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(text(one(parseHtml(await wrong.text()), ".error"))).toContain("wrong token");

    const right = await send("POST", "/ui/sign-in", form({ token: TOKEN, next: "/ui/activity" }), FORM);
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe("/ui/activity");
    const set = right.headers.get("set-cookie") ?? "";
    // A random sign-in id, never the token itself.
    expect(set).toMatch(/^sf_admin=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(set).not.toContain(TOKEN);
    const signedIn = await get("/ui/activity", { cookie: set.split(";")[0] as string });
    expect(signedIn.status).toBe(200);

    const https = await send("POST", "/ui/sign-in", form({ token: TOKEN }), {
      ...FORM,
      "x-forwarded-proto": "https",
    });
    expect(https.headers.get("set-cookie")).toEndWith("; HttpOnly; Secure; SameSite=Strict");
    expect(https.headers.get("location")).toBe("/ui/");
  });

  test("signing in never sends the admin off this server", async () => {
    for (const next of [
      "https://evil.example.test/",
      "//evil.example.test/ui/",
      "/ui//evil.example.test",
      "/admin/",
    ]) {
      const res = await send("POST", "/ui/sign-in", form({ token: TOKEN, next }), FORM);
      expect(res.headers.get("location")).toBe("/ui/");
    }
  });

  test("sign out clears the cookie and ends that sign-in; the bearer token opens pages too", async () => {
    const mine = await signIn();
    expect((await get("/ui/", { cookie: mine })).status).toBe(200);
    const out = await send("POST", "/ui/sign-out", undefined, { cookie: mine });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toBe("sf_admin=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict");
    // The old cookie, kept by whoever copied it, signs in nobody now.
    expect((await get("/ui/", { cookie: mine })).status).toBe(401);
    expect((await get("/ui/", { cookie: COOKIE })).status).toBe(200);
    const bearer = await get("/ui/", { authorization: `Bearer ${TOKEN}` });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get("content-security-policy")).toContain("script-src 'self'");
  });
});

describe("routes", () => {
  test("a mistyped path under /ui is the JSON 404, never a page", async () => {
    for (const path of [
      "/ui/nope",
      `/ui/workspaces/${W}/nope`,
      `/ui/workspaces/${W}/panes/nope`,
      "/ui/static/nope.js",
    ]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
    }
  });

  test("static files are the embedded bytes, cached for a year under a versioned URL", async () => {
    const page = parseHtml(await (await get("/ui/")).text());
    const urls = [
      ...all(page, "script").map((s) => s.attrs.src as string),
      ...all(page, "link").map((l) => l.attrs.href as string),
    ];
    expect(urls).toHaveLength(6);
    for (const url of urls) {
      expect(url).toMatch(/^\/ui\/static\/[\w.-]+\?v=\w+$/);
      const res = await get(url, {});
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    }
    const htmx = await get((ASSETS.get("htmx.js") as { url: string }).url, {});
    expect(htmx.headers.get("content-type")).toContain("text/javascript");
    expect(Buffer.from(await htmx.arrayBuffer())).toEqual(
      readFileSync(require.resolve("htmx.org/dist/htmx.min.js")),
    );
  });

  test("a workspace that does not exist: the API's error on the page and in a pane", async () => {
    const res = await get("/ui/workspaces/nobody-here/history");
    expect(res.status).toBe(404);
    expect(text(one(parseHtml(await res.text()), "p.error"))).toBe("no workspace nobody-here");
    const pane = await get("/ui/workspaces/nobody-here/panes/history");
    expect(pane.status).toBe(404);
    const root = parseHtml(await pane.text());
    expect(text(one(root, "p.error"))).toBe("no workspace nobody-here");
    expect(one(root, "[data-rev]").attrs["data-rev"]).toBe("");
  });
});

describe("panes over the admin API", () => {
  test("the workspace page: its card and five tabs, History selected; Not live. without a browser", async () => {
    const root = parseHtml(await (await get(`/ui/workspaces/${W}/history`)).text());
    expect(text(one(root, "#wsHead h1"))).toBe(W);
    expect(text(one(root, "#wsHead .page"))).toBe("https://app.example.test/home?x=1");
    expect(all(root, "[role=tab]").map((t) => t.attrs["aria-selected"])).toEqual([
      "false",
      "false",
      "false",
      "true",
      "false",
    ]);
    expect(text(one(root, "#liveScreen"))).toBe("Not live.");
  });

  test("History and Site data render what the API returns, with the row's revision", async () => {
    const row = (await (
      await get(`/admin/workspaces/${W}`, { authorization: `Bearer ${TOKEN}` })
    ).json()) as Record<string, unknown>;
    const history = parseHtml(await (await get(`/ui/workspaces/${W}/panes/history`)).text());
    expect(all(history, "section.section .title").map(text)).toEqual([
      "https://app.example.test/home?x=1",
      "https://shop.example.test/",
    ]);
    expect(all(history, ".pill.link").map(text)).toEqual(["1 cookie · 1 local", "1 cookie"]);
    expect(text(one(history, "#historyTotal"))).toBe("2");
    const { paneRev } = await import("../../src/surfaces/ui/workspace.tsx");
    const { TABS } = await import("../../src/registry.ts");
    const tab = TABS.find((t) => t.slug === "history")!;
    expect(one(history, "[data-rev]").attrs["data-rev"]).toBe(paneRev(row, tab));

    const siteData = await (await get(`/ui/workspaces/${W}/panes/site-data?open=shop.example.test`)).text();
    expect(siteData).not.toContain("v<script>");
    const root = parseHtml(siteData);
    expect(all(root, "section.section .title").map(text)).toEqual([
      "https://app.example.test",
      "shop.example.test",
    ]);
    expect(all(root, "section.section[data-linked]").map((s) => s.attrs.id)).toEqual([
      `site-${W}:shop.example.testSection`,
    ]);
    expect(text(one(root, "[id=site-ui-routes:app.example.testBody] .line.cookie .value"))).toBe("•••");
  });

  test("Forget through the UI: the API forgets, the pane comes back without the host", async () => {
    const res = await send("DELETE", `/ui/workspaces/${W}/panes/site-data/shop.example.test`);
    expect(res.status).toBe(200);
    const root = parseHtml(await res.text());
    expect(all(root, "section.section .title").map(text)).toEqual(["https://app.example.test"]);
    expect(text(one(root, "#siteDataTotal"))).toBe("1");
    const stored = await server.app.services.store.get(W);
    expect(stored?.site_data.cookies?.map((c) => c.name)).toEqual(["sid"]);
    // Again: the API's 404 shows above the pane as it is now.
    const again = await send("DELETE", `/ui/workspaces/${W}/panes/site-data/shop.example.test`);
    expect(again.status).toBe(404);
    const after = parseHtml(await again.text());
    expect(text(one(after, "p.notice"))).toBe("no saved site data for shop.example.test");
    expect(all(after, "section.section")).toHaveLength(1);
  });

  test("an action path no pane op takes is the app's 404 naming it (Elysia routes the ops); nothing changes", async () => {
    const before = await server.app.services.store.get(W);
    for (const [method, path] of [
      ["DELETE", "flows"],
      ["DELETE", "history/app.example.test"],
      ["POST", "site-data/app.example.test"],
      ["DELETE", "files/a%20b/c"],
      ["POST", "files/screenshots/x.png/drop"],
      ["DELETE", "timeline/5"],
    ] as const) {
      const res = await send(method, `/ui/workspaces/${W}/panes/${path}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: `no route ${method} /ui/workspaces/${W}/panes/${path}: /openapi.json lists them`,
      });
    }
    expect(await server.app.services.store.get(W)).toEqual(before);
  });

  test("Files: a screenshot is kept into Files, a kept file deleted, both through the admin API", async () => {
    const shots = join(server.dataDir as string, "sessions", W, "screenshots");
    mkdirSync(shots, { recursive: true });
    writeFileSync(join(shots, "shot 1.png"), PNG);
    const before = parseHtml(await (await get(`/ui/workspaces/${W}/panes/files`)).text());
    const keep = one(before, "#screenshots figure.tile button.keep");
    expect(keep.attrs["hx-post"]).toBe(`/ui/workspaces/${W}/panes/files/screenshots/shot%201.png/keep`);
    expect(one(before, "#screenshots img").attrs.src).toStartWith("/");

    const kept = parseHtml(await (await send("POST", keep.attrs["hx-post"] as string)).text());
    expect(all(kept, "#screenshots figure.tile")).toHaveLength(0);
    expect(all(kept, "#files figure.tile .name").map(text)).toEqual(["shot 1.png"]);
    expect(text(one(kept, "#filesTotal"))).toBe("1");

    const remove = all(one(kept, "dialog[id=filesDelete0]"), "button")[1];
    expect(remove?.attrs["hx-delete"]).toBe(`/ui/workspaces/${W}/panes/files/shot%201.png`);
    const gone = parseHtml(await (await send("DELETE", remove?.attrs["hx-delete"] as string)).text());
    expect(all(gone, "#files p").map(text)).toEqual(["No files yet."]);
  });

  test("Files: a recording is kept with its 📌, the rest cleared after the confirm, through the admin API", async () => {
    const recs = join(server.dataDir as string, "sessions", W, "recordings");
    mkdirSync(recs, { recursive: true });
    for (const name of ["rec-20261008-1403.mp4", "rec-20261008-1404.mp4"])
      writeFileSync(join(recs, name), PNG);
    const before = parseHtml(await (await get(`/ui/workspaces/${W}/panes/files`)).text());
    expect(all(before, "#recordings figure.tile")).toHaveLength(2);
    const keep = all(before, "#recordings figure.tile button.keep").find((b) =>
      (b.attrs["hx-post"] ?? "").includes("1403"),
    );
    expect(keep?.attrs["hx-post"]).toBe(
      `/ui/workspaces/${W}/panes/files/recordings/rec-20261008-1403.mp4/keep`,
    );
    const kept = parseHtml(await (await send("POST", keep?.attrs["hx-post"] as string)).text());
    expect(all(kept, "#recordings figure.tile .name").map(text)).toEqual(["rec-20261008-1404.mp4"]);
    expect(all(kept, "#files figure.tile .name").map(text)).toContain("rec-20261008-1403.mp4");

    const confirm = one(kept, "dialog[id=clearRecordingsConfirm]");
    const clear = all(confirm, "button").find((b) => b.attrs["hx-delete"]);
    expect(text(clear!)).toBe("Delete 1 recording");
    expect(clear?.attrs["hx-delete"]).toBe(`/ui/workspaces/${W}/panes/files/recordings`);
    const cleared = parseHtml(await (await send("DELETE", clear?.attrs["hx-delete"] as string)).text());
    expect(all(cleared, "#recordings p").map(text)).toEqual(["No recordings yet."]);
    expect(one(cleared, "#clearRecordings").attrs.disabled).toBeDefined();
    // The kept one stays in Files.
    expect(all(cleared, "#files figure.tile .name").map(text)).toContain("rec-20261008-1403.mp4");
  });

  test("Flows: each of the workspace's flows with its YAML, read through the admin API", async () => {
    const flows = join(server.dataDir as string, "sessions", W, "flows");
    mkdirSync(flows, { recursive: true });
    const yaml =
      "description: Opens the app\nsteps:\n  - tool: navigate\n    args: {url: 'https://app.example.test/'}\n";
    writeFileSync(join(flows, "open-app.yaml"), yaml);
    const root = parseHtml(await (await get(`/ui/workspaces/${W}/panes/flows`)).text());
    const row = one(root, `section[id=flow-${W}:open-appSection]`);
    expect(text(one(row, ".title"))).toBe("open-app");
    expect(text(one(row, "pre code"))).toBe(yaml);
    expect(text(one(root, "#flowsTotal"))).toBe("1");
  });

  test("the Files and Flows panes render, off or not", async () => {
    const files = parseHtml(await (await get(`/ui/workspaces/${W}/panes/files`)).text());
    expect(all(files, "section.section .title").map(text)).toEqual([
      "Screenshots",
      "Recordings",
      "Files",
      "Downloads",
    ]);
    const flows = await get(`/ui/workspaces/${W}/panes/flows`);
    expect(flows.status).toBe(200);
    expect(all(parseHtml(await flows.text()), "#flowsTotal")).toHaveLength(1);
  });

  test("Settings shows each value with its source; Activity and Secrets answer", async () => {
    const settings = parseHtml(await (await get("/ui/settings")).text());
    const tokenRow = all(settings, "tbody tr").find((r) => text(r).startsWith("auth.token"));
    expect(tokenRow && text(tokenRow)).not.toContain(TOKEN);
    expect(tokenRow && all(tokenRow, "td").map(text)).toEqual(["auth.token", "•••", "default"]);
    for (const path of ["/ui/activity", "/ui/secrets"]) expect((await get(path)).status).toBe(200);
  });
});

describe("the Timeline tab over the admin API", () => {
  const T = "ui-timeline";
  const navigate = ACTIONS.find((a) => a.name === "navigate")!;
  const entryIds = (html: string) => all(parseHtml(html), "li.entry").map((e) => e.attrs.id);

  beforeAll(async () => {
    await server.app.services.store.update(T, () => emptyRecord());
    for (const path of ["/a", "/b", "/c"]) {
      const url = `https://app.example.test${path}`;
      await recordCall(
        server.app.services.timeline,
        { surface: "rest", workspace: T, action: navigate, args: { url } },
        async () => ({ url, title: path }),
        server.app.services.now(),
      );
    }
  });

  test("the pane: the entries newest first, the tab's count", async () => {
    const html = await (await get(`/ui/workspaces/${T}/panes/timeline`)).text();
    expect(entryIds(html)).toEqual(["entry3", "entry2", "entry1"]);
    expect(text(one(parseHtml(html), "#timelineTotal"))).toBe("3");
  });

  test("newer: only what came after the page's newest, with the markers moved on; the whole pane when it cannot say", async () => {
    const res = await get(`/ui/workspaces/${T}/panes/timeline/newer?after=2`);
    expect(res.headers.get("hx-retarget")).toBeNull();
    const html = await res.text();
    expect(entryIds(html)).toEqual(["entry3"]);
    expect(one(parseHtml(html), "#timelineAfter").attrs.value).toBe("3");
    for (const after of ["0", "9", "x"]) {
      const whole = await get(`/ui/workspaces/${T}/panes/timeline/newer?after=${after}`);
      expect([whole.headers.get("hx-retarget"), whole.headers.get("hx-reswap")]).toEqual([
        "#paneTimeline",
        "innerHTML",
      ]);
      expect(entryIds(await whole.text())).toEqual(["entry3", "entry2", "entry1"]);
    }
  });

  test("older: the entries below a number", async () => {
    expect(entryIds(await (await get(`/ui/workspaces/${T}/panes/timeline/older?before=2`)).text())).toEqual([
      "entry1",
    ]);
  });

  test("Save as flow: the range between the ticked entries, through the admin API; nothing ticked or a bad name says why", async () => {
    const none = await send("POST", `/ui/workspaces/${T}/panes/timeline/flow`, form({ name: "x" }), FORM);
    expect(none.status).toBe(400);
    expect(text(one(parseHtml(await none.text()), ".notice"))).toBe(
      "tick the first and the last entry of the run to keep, then Save as flow",
    );
    const body = new URLSearchParams([
      ["name", "../escape"],
      ["entry", "3"],
      ["entry", "1"],
    ]).toString();
    const bad = await send("POST", `/ui/workspaces/${T}/panes/timeline/flow`, body, FORM);
    expect(bad.status).toBe(400);
    expect(text(one(parseHtml(await bad.text()), ".notice"))).toContain("invalid flow name");
    const good = body.replace("..%2Fescape", "kept");
    const saved = await send("POST", `/ui/workspaces/${T}/panes/timeline/flow`, good, FORM);
    expect(saved.status).toBe(200);
    const page = parseHtml(await saved.text());
    expect(text(one(page, ".notice"))).toBe("Saved as flow kept.");
    expect(one(page, ".notice a").attrs.href).toBe(`/ui/workspaces/${T}/flows/kept`);
    const yaml = readFileSync(join(server.dataDir as string, "sessions", T, "flows", "kept.yaml"), "utf8");
    expect(yaml).toContain("https://app.example.test/a");
    expect(yaml).toContain("https://app.example.test/c");
    // From another origin, the cookie is not enough.
    const forged = await send("POST", `/ui/workspaces/${T}/panes/timeline/flow`, good, {
      ...FORM,
      origin: "http://evil.example.test",
    });
    expect(forged.status).toBe(403);
  });

  test("a workspace page's stream carries its live screen: Not live. without a browser", async () => {
    const abort = new AbortController();
    const res = await fetch(`${server.url}/ui/events?workspace=${T}`, {
      headers: { cookie: COOKIE },
      signal: abort.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let seen = "";
    const deadline = Date.now() + 10_000;
    while (!seen.includes("liveScreen") && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    expect(server.app.services.timeline.live.watched(T)).toBe(true);
    abort.abort();
    expect(seen).toContain(
      'data: <hx-partial hx-target="#liveScreen" hx-swap="innerHTML"><p class="muted">Not live.</p>',
    );
    for (let i = 0; i < 50 && server.app.services.timeline.live.watched(T); i++) await Bun.sleep(20);
    expect(server.app.services.timeline.live.watched(T)).toBe(false);
    const bad = await fetch(`${server.url}/admin/events?watch=..%2Fx`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(bad.status).toBe(400);
  });
});

describe("live updates", () => {
  test("/ui/events pushes a workspace's card when it changes, and a workspace page's partials", async () => {
    const read = async (path: string, want: string) => {
      const abort = new AbortController();
      const res = await fetch(`${server.url}${path}`, { headers: { cookie: COOKIE }, signal: abort.signal });
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let seen = "";
      setTimeout(() => server.app.services.events.changed(W), 100);
      const deadline = Date.now() + 10_000;
      while (!seen.includes(want) && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += decoder.decode(value);
      }
      abort.abort();
      return seen;
    };
    const listeners = server.app.services.events.size;
    const list = await read("/ui/events", `id="ws-${W}"`);
    expect(list).toContain('data: <hx-upsert hx-target="#cards" sort="">');
    const page = await read(`/ui/events?workspace=${W}`, "paneHistory");
    expect(page).toContain('<hx-partial hx-target="#wsHead" hx-swap="outerHTML">');
    expect(page).not.toContain("hx-upsert");
    // A page that goes away takes its subscription with it.
    for (let i = 0; i < 50 && server.app.services.events.size > listeners; i++) await Bun.sleep(20);
    expect(server.app.services.events.size).toBe(listeners);
  });
});
