// The admin UI's views, rendered from payloads shaped like the admin API's: the copy, the folds'
// ids and aria attributes, the confirms, and escaping of hostile values.
import { describe, expect, test } from "bun:test";
import { FilesPane } from "../../../src/files/view.tsx";
import { FlowsPane } from "../../../src/flows/view.tsx";
import { TABS } from "../../../src/registry.ts";
import { HistoryPane } from "../../../src/site-data/history-view.tsx";
import { SiteDataPane } from "../../../src/site-data/view.tsx";
import { ActivityPage } from "../../../src/surfaces/ui/pages.tsx";
import { tabNamed } from "../../../src/surfaces/ui/panes.ts";
import { SignInPage } from "../../../src/surfaces/ui/sign-in-page.tsx";
import { liveMessage, paneRev, WorkspaceHead, WorkspacePage } from "../../../src/surfaces/ui/workspace.tsx";
import { Card, cardMessage, countsText, WorkspacesPage } from "../../../src/surfaces/ui/workspaces.tsx";
import { OlderFailed, SavedAsFlow } from "../../../src/timeline/view.tsx";
import { ago } from "../../../src/views/format.ts";
import { ErrorNotice, Failed, render } from "../../../src/views/parts.tsx";
import { all, classes, type El, one, parseHtml, text } from "../../support/html.ts";
import { callsOf, filesOf, flowsOf, historyOf, siteDataOf } from "../../support/payloads.ts";

const NOW = 1_790_800_000;
const HOSTILE = "<script>alert(1)</script>";

const siteData = (over: Record<string, unknown> = {}) =>
  siteDataOf({
    key: "k",
    saved_at: NOW - 120,
    uri: "workspace://site-data",
    sites: [
      {
        site: "login.app.example.test",
        cookies: 2,
        storage: [{ origin: "https://login.app.example.test", local_storage: 2, session_storage: 0 }],
      },
      {
        site: "shop.example.test",
        cookies: 5,
        storage: [{ origin: "https://shop.example.test", local_storage: 12, session_storage: 0 }],
      },
      { site: "sso.example.test", cookies: 3, storage: [] },
    ],
    details: {
      "login.app.example.test": {
        site: "login.app.example.test",
        cookies: [
          {
            name: "rack.session",
            value: "•••",
            domain: "login.app.example.test",
            path: "/",
            expiry: null,
            http_only: true,
            secure: true,
            same_site: "lax",
            shared: false,
          },
          {
            name: "optimizelyEndUserId",
            value: "oeu1",
            domain: ".app.example.test",
            path: "/",
            expiry: 1_893_456_000,
            http_only: false,
            secure: false,
            same_site: null,
            shared: true,
          },
        ],
        storage: [
          {
            origin: "https://login.app.example.test",
            local_storage: { theme: "dark", "tour-seen": "1" },
            session_storage: {},
          },
        ],
        own_cookies: ["rack.session"],
        kept_shared: [{ name: "optimizelyEndUserId", domain: ".app.example.test", path: "/" }],
      },
      "shop.example.test": {
        site: "shop.example.test",
        cookies: [],
        storage: [{ origin: "https://shop.example.test", local_storage: {}, session_storage: {} }],
        own_cookies: [],
        kept_shared: [],
      },
      "sso.example.test": {
        site: "sso.example.test",
        cookies: [
          { name: "a", value: "1", domain: "sso.example.test", path: "/", http_only: false, shared: false },
        ],
        storage: [],
        own_cookies: ["a"],
        kept_shared: [],
      },
    },
    ...over,
  });

const sitePane = (data = siteData(), open: string | null = null) =>
  parseHtml(render(SiteDataPane({ workspace: "k", data, rev: "r1", now: NOW, open })));

const sectionsOf = (root: El) => all(root, "section.section");
const headButton = (section: El) => all(section, "button[aria-expanded]")[0];
const pairsOf = (dialog: El) => all(dialog, ".pair").map(text);

function uniqueIds(root: El): void {
  const ids = all(root, "[id]").map((e) => e.attrs.id);
  expect(new Set(ids).size).toBe(ids.length);
}

function foldsControlTheirBodies(root: El): void {
  for (const section of sectionsOf(root)) {
    const button = headButton(section);
    if (!button) continue;
    const body = button.attrs["aria-controls"] as string;
    expect(body).not.toBe(section.attrs.id);
    const bodies = all(section, `[id=${body}]`);
    expect(bodies.length).toBe(1);
    expect(classes(bodies[0] as El)).toContain("body");
    expect("hidden" in (bodies[0] as El).attrs).toBe(button.attrs["aria-expanded"] === "false");
  }
}

describe("Site data pane", () => {
  test("rows in order with their titles and counts; the tab counts the hosts", () => {
    const root = sitePane();
    const sections = sectionsOf(root);
    expect(sections.map((s) => text(one(s, ".title")))).toEqual([
      "https://login.app.example.test",
      "https://shop.example.test",
      "sso.example.test",
    ]);
    expect(sections.map((s) => text(one(s, ".head .muted")))).toEqual([
      "2 cookies · 2 local · 0 session",
      "5 cookies · 12 local · 0 session",
      "3 cookies",
    ]);
    for (const s of sections) expect(all(s, ".head .pill")).toHaveLength(0);
    expect(text(one(root, "#siteDataTotal"))).toBe("3");
    expect(one(root, "#siteDataTotal").attrs["hx-swap-oob"]).toBe("true");
    expect(one(root, "[data-rev]").attrs["data-rev"]).toBe("r1");
  });

  test("one saved pill and a danger Clear above the rows", () => {
    const root = sitePane();
    const bar = one(root, ".bar");
    expect(all(bar, ".pill").map(text)).toEqual(["saved 2m ago"]);
    expect(classes(one(bar, "#clearSiteData"))).toContain("danger");
  });

  test("the first row is open, the rest shut, with fold ids per row; ids unique", () => {
    const root = sitePane();
    const sections = sectionsOf(root);
    expect(sections.map((s) => headButton(s)?.attrs["aria-expanded"])).toEqual(["true", "false", "false"]);
    expect(sections[0]?.attrs.id).toBe("site-k:login.app.example.testSection");
    expect(headButton(sections[0] as El)?.attrs["aria-controls"]).toBe("site-k:login.app.example.testBody");
    foldsControlTheirBodies(root);
    uniqueIds(root);
  });

  test("a row linked from History opens and is marked for scrolling", () => {
    const root = sitePane(siteData(), "sso.example.test");
    const linked = all(root, "section.section[data-linked]");
    expect(linked.map((s) => s.attrs.id)).toEqual(["site-k:sso.example.testSection"]);
    expect(headButton(linked[0] as El)?.attrs["aria-expanded"]).toBe("true");
  });

  test("expanded: httpOnly dots, flags, expiry, shared pill, storage values, none", () => {
    const first = sectionsOf(sitePane())[0] as El;
    const cookies = all(first, ".line.cookie");
    expect(text(one(cookies[0] as El, ".value"))).toBe("•••");
    expect(text(one(cookies[0] as El, ".muted"))).toBe("login.app.example.test · session");
    expect(all(cookies[0] as El, ".pill").map(text)).toEqual(["httpOnly", "secure"]);
    expect(text(one(cookies[1] as El, ".muted"))).toBe(".app.example.test · 2030-01-01");
    expect(all(cookies[1] as El, ".pill").map((p) => [text(p), classes(p).join(" ")])).toEqual([
      ["shared", "pill shared"],
    ]);
    const theme = all(first, ".line").find((l) => text(one(l, "code.key")) === "theme") as El;
    const value = one(theme, ".value");
    expect(text(value)).toBe("dark");
    expect(classes(value)).toContain("clip");
    expect(value.attrs.title).toBe("dark");
    expect(all(first, "h3").map(text)).toEqual(["Cookies", "Local storage", "Session storage"]);
    expect(all(first, "p.none").map(text)).toEqual(["none"]);
  });

  test("the shared pill follows the payload: a site's own dotted cookie has none", () => {
    const base = siteData();
    const login = base.details["login.app.example.test"] as (typeof base.details)[string];
    const own = {
      name: "own-dotted",
      value: "o1",
      domain: ".login.app.example.test",
      path: "/",
      expiry: null,
      http_only: false,
      secure: false,
      same_site: null,
      shared: false,
    };
    const data = siteData({
      details: { ...base.details, "login.app.example.test": { ...login, cookies: [...login.cookies, own] } },
    });
    const cookies = all(sectionsOf(sitePane(data))[0] as El, ".line.cookie");
    const pills = Object.fromEntries(
      cookies.map((c) => [text(one(c, "code.key")), all(c, ".pill").map(text)]),
    );
    expect(pills).toEqual({
      "rack.session": ["httpOnly", "secure"],
      optimizelyEndUserId: ["shared"],
      "own-dotted": [],
    });
    expect(text(one(cookies[2] as El, ".muted"))).toBe(".login.app.example.test · session");
  });

  test("a cookie-only host still shows both storage groups as none", () => {
    const sso = sectionsOf(sitePane())[2] as El;
    expect(all(sso, "h3").map(text)).toEqual(["Cookies", "Local storage", "Session storage"]);
    expect(all(sso, "p.none").map(text)).toEqual(["none", "none"]);
  });

  test("no secrets and none of the dropped copy", () => {
    const html = render(SiteDataPane({ workspace: "k", data: siteData(), rev: "r", now: NOW }));
    expect(all(parseHtml(html), ".line.secret")).toHaveLength(0);
    expect(html).not.toContain("It stays listed because a secret is allowed here");
    expect(html).not.toContain("nothing saved");
  });

  test("nothing saved: the drawn line, no pill, no Clear, a count of 0", () => {
    const root = sitePane(siteDataOf({ key: "k", sites: [], saved_at: null, details: {} }));
    const p = all(root, "p");
    expect(p.map(text)).toEqual(["Nothing saved — an agent calls save_site_data after signing in."]);
    expect(all(p[0] as El, "code").map(text)).toEqual(["save_site_data"]);
    expect(all(root, ".pill")).toHaveLength(0);
    expect(all(root, "#clearSiteData")).toHaveLength(0);
    expect(text(one(root, "#siteDataTotal"))).toBe("0");
  });

  test("Forget confirms what goes and what stays, then DELETEs that host", () => {
    const root = sitePane();
    const forget = one(root, "button[command=show-modal][commandfor=site-k:login.app.example.testForget]");
    expect(text(forget)).toBe("Forget");
    expect(forget.attrs.command).toBe("show-modal");
    expect(classes(forget)).toContain("danger");
    const dialog = one(root, "dialog[id=site-k:login.app.example.testForget]");
    expect(classes(dialog)).toEqual(["modal"]);
    expect(text(one(dialog, ".head"))).toBe("Forget site data");
    expect(text(one(dialog, "p"))).toBe(
      "https://login.app.example.test — a reopened browser comes back signed out here.",
    );
    expect(one(dialog, ".pairs").attrs.class).toBe("pairs fate-list");
    expect(pairsOf(dialog)).toEqual([
      "goesrack.session · theme · tour-seen",
      "staysoptimizelyEndUserId, shared with .app.example.test",
    ]);
    const [cancel, confirm] = all(dialog, "button") as [El, El];
    expect([text(cancel), cancel.attrs.command, "hx-delete" in cancel.attrs]).toEqual([
      "Cancel",
      "close",
      false,
    ]);
    expect(text(confirm)).toBe("Forget");
    expect(classes(confirm)).toContain("danger");
    expect(confirm.attrs["hx-delete"]).toBe("/ui/workspaces/k/panes/site-data/login.app.example.test");
    expect(confirm.attrs["hx-target"]).toBe("#paneSiteData");
    // Every row has Forget.
    expect(all(root, "section.section .actions button").map(text)).toEqual(["Forget", "Forget", "Forget"]);
  });

  test("Clear confirms with the hosts, then DELETEs the snapshot", () => {
    const dialog = one(sitePane(), "dialog[id=clearSiteDataConfirm]");
    expect(text(one(dialog, ".head"))).toBe("Clear site data");
    expect(text(one(dialog, "p"))).toBe("3 sites — a reopened browser comes back signed out.");
    expect(pairsOf(dialog)).toEqual(["goeslogin.app.example.test · shop.example.test · sso.example.test"]);
    const confirm = all(dialog, "button")[1] as El;
    expect([text(confirm), confirm.attrs["hx-delete"]]).toEqual([
      "Clear",
      "/ui/workspaces/k/panes/site-data",
    ]);
    const single = one(
      sitePane(siteData({ sites: [{ site: "a.example.test", cookies: 1, storage: [] }], details: {} })),
      "dialog[id=clearSiteDataConfirm] p",
    );
    expect(text(single)).toBe("1 site — a reopened browser comes back signed out.");
  });

  test("a parent-only row's dotted cookie goes; two shared cookies of one name both stay", () => {
    const data = siteData({
      sites: [{ site: "example.test", cookies: 3, storage: [] }],
      details: {
        "example.test": {
          site: "example.test",
          cookies: [],
          storage: [],
          own_cookies: ["a"],
          kept_shared: [
            { name: "sid", domain: ".example.com", path: "/" },
            { name: "sid", domain: ".example.org", path: "/app" },
          ],
        },
      },
    });
    expect(pairsOf(one(sitePane(data), "dialog[id=site-k:example.testForget]"))).toEqual([
      "goesa",
      "stayssid, shared with .example.com",
      "stayssid, shared with .example.org /app",
    ]);
  });

  test("one host on two ports: a storage group per origin, each labelled; the host is the title", () => {
    const data = siteData({
      sites: [
        {
          site: "localhost",
          cookies: 0,
          storage: [
            { origin: "http://localhost:3000", local_storage: 1, session_storage: 0 },
            { origin: "http://localhost:8080", local_storage: 1, session_storage: 0 },
          ],
        },
      ],
      details: {
        localhost: {
          site: "localhost",
          cookies: [],
          storage: [
            { origin: "http://localhost:3000", local_storage: { k: "a" }, session_storage: {} },
            { origin: "http://localhost:8080", local_storage: { k: "b" }, session_storage: {} },
          ],
          own_cookies: [],
          kept_shared: [],
        },
      },
    });
    const row = sectionsOf(sitePane(data))[0] as El;
    expect(text(one(row, ".title"))).toBe("localhost");
    expect(text(one(row, ".head .muted"))).toBe("0 cookies · 2 local · 0 session");
    expect(all(row, "h3").map(text)).toEqual([
      "Cookies",
      "Local storage · http://localhost:3000",
      "Session storage · http://localhost:3000",
      "Local storage · http://localhost:8080",
      "Session storage · http://localhost:8080",
    ]);
    expect(all(row, ".line .value").map(text)).toEqual(["a", "b"]);
  });
});

const history = (over: Record<string, unknown> = {}) =>
  historyOf({
    key: "k",
    sites: [
      {
        site: "login.app.example.test",
        url: "https://login.app.example.test/account?tab=1",
        at: NOW - 60,
        saved: { cookies: 2, local: 2, session: 0 },
        secrets: [{ name: "app-login", description: "Sign-in for the app", keys: ["username", "password"] }],
      },
      {
        site: "shop.example.test",
        url: "https://shop.example.test/",
        at: NOW - 3600,
        saved: { cookies: 5, local: 12, session: 0 },
        secrets: [{ name: "shop", description: "The shop's admin", keys: ["token"] }],
      },
      {
        site: "docs.example.test",
        url: "https://docs.example.test/",
        at: NOW - 7200,
        saved: null,
        secrets: [],
      },
    ],
    clears: ["https://shop.example.test", "https://docs.example.test", "http://login.app.example.test:8080"],
    ...over,
  });
const historyPane = (data = history()) =>
  parseHtml(render(HistoryPane({ workspace: "k", data, rev: "h1", now: NOW })));

describe("History pane", () => {
  test("the current site on top: its URL, when, its secrets and what is saved there", () => {
    const root = historyPane();
    const rows = sectionsOf(root);
    expect(rows.map((r) => text(one(r, ".title")))).toEqual([
      "https://login.app.example.test/account?tab=1",
      "https://shop.example.test/",
      "https://docs.example.test/",
    ]);
    expect(rows.map((r) => text(all(r, ".head .muted")[0] as El))).toEqual([
      "1m ago · 1 secret",
      "1h ago · 1 secret",
      "2h ago",
    ]);
    const pills = rows.map((r) => all(r, ".head .pill"));
    expect(pills.map((p) => p.map(text))).toEqual([["2 cookies · 2 local"], ["5 cookies · 12 local"], []]);
    expect(classes(pills[0]?.[0] as El)).toEqual(["pill", "link"]);
    expect(pills[1]?.[0]?.attrs.href).toBe("/ui/workspaces/k/site-data/shop.example.test");
    expect(text(one(root, "#historyTotal"))).toBe("3");
  });

  test("rows fold like Site data; a row without secrets has nothing to open", () => {
    const root = historyPane();
    const rows = sectionsOf(root);
    expect(rows.map((r) => r.attrs.id)).toEqual([
      "visit-k:login.app.example.testSection",
      "visit-k:shop.example.testSection",
      "visit-k:docs.example.testSection",
    ]);
    expect(rows.map((r) => headButton(r)?.attrs["aria-expanded"])).toEqual(["true", "false", undefined]);
    const top = rows[0] as El;
    const secret = one(top, ".line.secret");
    expect(text(one(secret, ".key"))).toBe("🔑 app-login");
    expect(text(one(secret, ".muted"))).toBe("Sign-in for the app");
    expect(all(secret, ".pill").map(text)).toEqual(["username", "password"]);
    const bare = rows[2] as El;
    expect(all(bare, "[aria-expanded]")).toHaveLength(0);
    expect(all(bare, "button")).toHaveLength(0);
    expect(all(bare, ".caret.blank")).toHaveLength(1);
    expect(all(bare, ".line.secret")).toHaveLength(0);
    foldsControlTheirBodies(root);
    uniqueIds(root);
  });

  test("rows fold like Site data: the top one opens to its secrets, the rest stay shut over their own", () => {
    const rows = sectionsOf(historyPane());
    const bodies = rows.map((r) => {
      const id = headButton(r)?.attrs["aria-controls"];
      return id === undefined ? null : one(r, `[id=${id}]`);
    });
    expect(bodies.map((b) => (b ? "hidden" in b.attrs : null))).toEqual([false, true, null]);
    const lines = bodies.map((b) =>
      b
        ? all(b, ".line.secret").map((l) => [
            text(one(l, ".key")),
            text(one(l, ".muted")),
            all(l, ".pill").map(text),
          ])
        : null,
    );
    expect(lines).toEqual([
      [["🔑 app-login", "Sign-in for the app", ["username", "password"]]],
      [["🔑 shop", "The shop's admin", ["token"]]],
      null,
    ]);
    expect(all(rows[2] as El, ".line.secret")).toHaveLength(0);
  });

  test("Clear is offered only while the history holds more than the current origin", () => {
    expect(all(historyPane(), "#clearHistory")).toHaveLength(1);
    const onlyCurrent = history({ sites: [history().sites[0]], clears: [] });
    expect(all(historyPane(onlyCurrent), "#clearHistory")).toHaveLength(0);
    // A second port of the current host has no row of its own, and Clear removes it.
    const secondPort = history({
      sites: [history().sites[0]],
      clears: ["http://login.app.example.test:8080"],
    });
    expect(all(historyPane(secondPort), "#clearHistory")).toHaveLength(1);
  });

  test("Clear confirms what goes and what stays, then DELETEs the history", () => {
    const root = historyPane();
    expect(classes(one(root, "#clearHistory"))).toContain("danger");
    const dialog = one(root, "dialog[id=clearHistoryConfirm]");
    expect(text(one(dialog, ".head"))).toBe("Clear history");
    expect(text(one(dialog, "p"))).toBe("History only: site data and the browser are untouched.");
    expect(pairsOf(dialog)).toEqual([
      "goeshttps://shop.example.test · https://docs.example.test · http://login.app.example.test:8080",
      "stayslogin.app.example.test, the current site",
    ]);
    const [cancel, confirm] = all(dialog, "button") as [El, El];
    expect(text(cancel)).toBe("Cancel");
    expect("hx-delete" in cancel.attrs).toBe(false);
    expect([text(confirm), confirm.attrs["hx-delete"], confirm.attrs["hx-target"]]).toEqual([
      "Clear",
      "/ui/workspaces/k/panes/history",
      "#paneHistory",
    ]);
  });

  test("empty: nowhere yet", () => {
    const root = historyPane(historyOf({ key: "k", sites: [] }));
    expect(all(root, "p").map(text)).toEqual(["Nowhere yet."]);
    expect(text(one(root, "#historyTotal"))).toBe("0");
  });

  test("a failed load shows the API's error, empties the count and shows no revision", () => {
    const root = parseHtml(render(Failed({ error: "no workspace k", total: "historyTotal" })));
    const p = one(root, "p");
    expect([text(p), classes(p)]).toEqual(["no workspace k", ["empty", "error"]]);
    expect(text(one(root, "#historyTotal"))).toBe("");
    expect(one(root, "[data-rev]").attrs["data-rev"]).toBe("");
  });
});

describe("escaping", () => {
  test("a hostile title, URL, cookie, storage key, secret and file name stay text", () => {
    const evilSite = siteData({
      sites: [
        { site: HOSTILE, cookies: 1, storage: [{ origin: HOSTILE, local_storage: 1, session_storage: 0 }] },
      ],
      details: {
        [HOSTILE]: {
          site: HOSTILE,
          cookies: [{ name: HOSTILE, value: HOSTILE, domain: HOSTILE, path: "/", shared: false }],
          storage: [{ origin: HOSTILE, local_storage: { [HOSTILE]: HOSTILE }, session_storage: {} }],
          own_cookies: [HOSTILE],
          kept_shared: [{ name: HOSTILE, domain: HOSTILE, path: HOSTILE }],
        },
      },
    });
    const outputs = [
      render(SiteDataPane({ workspace: "k", data: evilSite, rev: "r", now: NOW })),
      render(
        HistoryPane({
          workspace: "k",
          data: historyOf({
            sites: [
              {
                site: HOSTILE,
                url: `https://app.example.test/${HOSTILE}`,
                at: NOW,
                saved: { cookies: 1, local: 0, session: 0 },
                secrets: [{ name: HOSTILE, description: HOSTILE, keys: [HOSTILE] }],
              },
              { site: "b", url: HOSTILE, at: NOW, saved: null, secrets: [] },
            ],
            clears: [HOSTILE],
          }),
          rev: "r",
          now: NOW,
        }),
      ),
      render(
        FilesPane({
          workspace: "k",
          data: filesOf({
            files: [{ name: HOSTILE, url: "/f" }],
            recordings: [{ name: HOSTILE, url: "/r", content_type: "video/mp4" }],
          }),
          rev: "r",
        }),
      ),
      render(
        FlowsPane({
          workspace: "k",
          data: flowsOf({
            flows: [{ name: HOSTILE, description: HOSTILE, yaml: HOSTILE, problem: HOSTILE }],
          }),
          rev: "r",
        }),
      ),
      render(Card({ row: { key: "k", url: `https://app.example.test/?q=${HOSTILE}`, live: true } })),
      cardMessage({ key: "k", url: HOSTILE }),
      WorkspacesPage({ rows: [{ key: "k", url: HOSTILE }], error: HOSTILE, signOut: true }),
      WorkspacePage({
        row: { key: "k", url: HOSTILE },
        tabs: TABS,
        tab: "history",
        item: HOSTILE,
        signOut: true,
      }),
      SignInPage({ error: HOSTILE, next: HOSTILE }),
    ];
    for (const html of outputs) {
      expect(html).not.toContain("<script>alert");
      expect(all(parseHtml(html), "script").every((s) => s.attrs.src?.startsWith("/ui/static/"))).toBe(true);
    }
    expect(outputs[0]).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    // Escaped once: the browser reads back the value itself.
    const url = `https://app.example.test/?a=1&b="x"&c=<y>&amp;`;
    const page = one(parseHtml(render(Card({ row: { key: "k", url } }))), ".page");
    expect([page.attrs.title, text(page)]).toEqual([url, url]);
  });
});

describe("Files pane", () => {
  const files = filesOf({
    key: "k",
    screenshots: [{ name: "shot-1.png", url: "/s/1", content_type: "image/png", image: true }],
    recordings: [
      { name: "rec-1.mp4", url: "/recordings/k/rec-1.mp4", content_type: "video/mp4", image: false },
      { name: "rec-2.mp4", url: "/recordings/k/rec-2.mp4", content_type: "video/mp4", image: false },
    ],
    files: [{ name: "kept one.pdf", url: "/f/1", content_type: "application/pdf", image: false }],
    downloads: [],
  });
  const pane = (data = files) => parseHtml(render(FilesPane({ workspace: "k", data, rev: "f1" })));

  test("folders in order, with counts; the tab counts every entry", () => {
    const root = pane();
    expect(all(root, "section.section .title").map(text)).toEqual([
      "Screenshots",
      "Recordings",
      "Files",
      "Downloads",
    ]);
    expect(text(one(root, "#recordingsSection .count"))).toBe("2");
    expect(text(one(root, "#filesTotal"))).toBe("4");
    expect(all(root, "#downloads p").map(text)).toEqual(["No downloads yet."]);
  });

  test("a recording tile: 🎬 and ▶, no image; its lightbox plays it; 📌 keeps it", () => {
    const tiles = all(pane(), "#recordings figure.tile");
    expect(tiles).toHaveLength(2);
    const tile = tiles[0] as El;
    expect(text(one(tile, ".glyph"))).toBe("🎬");
    expect(all(tile, ".play")).toHaveLength(1);
    expect(all(tile, "img")).toHaveLength(0);
    const video = one(tile, "dialog video");
    expect(["controls" in video.attrs, video.attrs.src]).toEqual([true, "/recordings/k/rec-1.mp4"]);
    expect(one(tile, "figcaption button.keep").attrs["hx-post"]).toBe(
      "/ui/workspaces/k/panes/files/recordings/rec-1.mp4/keep",
    );
    expect(all(tile, "dialog button").map(text)).toEqual(["Close", "📌 Keep"]);
  });

  test("Clear recordings confirms with the count, then DELETEs the recordings", () => {
    const root = pane();
    const clear = one(root, "#clearRecordings");
    expect([text(clear), classes(clear).includes("danger"), "disabled" in clear.attrs]).toEqual([
      "Clear recordings",
      true,
      false,
    ]);
    expect(clear.attrs.title).toBe("Delete every recording. Anything you kept is in Files and stays.");
    const dialog = one(root, "dialog[id=clearRecordingsConfirm]");
    expect(text(one(dialog, ".head"))).toBe("Clear recordings");
    const confirm = all(dialog, "button")[1] as El;
    expect([text(confirm), confirm.attrs["hx-delete"]]).toEqual([
      "Delete 2 recordings",
      "/ui/workspaces/k/panes/files/recordings",
    ]);
  });

  test("no recordings: the empty line, and Clear recordings disabled", () => {
    const root = pane({ ...files, recordings: [] });
    expect(text(one(root, "#recordings p"))).toBe("No recordings yet.");
    expect("disabled" in one(root, "#clearRecordings").attrs).toBe(true);
    const oneRec = pane({ ...files, recordings: [files.recordings[0] as (typeof files.recordings)[0]] });
    expect(text(all(one(oneRec, "dialog[id=clearRecordingsConfirm]"), "button")[1] as El)).toBe(
      "Delete 1 recording",
    );
  });

  test("a kept file deletes after a confirm; files are off says so", () => {
    const root = pane();
    const confirm = all(one(root, "dialog[id=filesDelete0]"), "button")[1] as El;
    expect(confirm.attrs["hx-delete"]).toBe("/ui/workspaces/k/panes/files/kept%20one.pdf");
    const off = pane(filesOf({ off: "files are off on this server" }));
    expect(text(all(off, "p")[0] as El)).toBe("files are off on this server");
  });
});

describe("Flows pane", () => {
  test("each flow a fold with its YAML; global ones marked", () => {
    const root = parseHtml(
      render(
        FlowsPane({
          workspace: "k",
          data: flowsOf({
            flows: [
              {
                name: "sign-in",
                source: "workspace",
                description: "Signs in",
                steps: 3,
                yaml: "steps: []\n",
              },
              { name: "report", source: "global", description: "", steps: 1, yaml: "a: 1" },
            ],
          }),
          rev: "x",
        }),
      ),
    );
    const rows = sectionsOf(root);
    expect(rows.map((r) => text(one(r, ".title")))).toEqual(["sign-in", "report"]);
    expect(rows.map((r) => headButton(r)?.attrs["aria-expanded"])).toEqual(["true", "false"]);
    expect(text(one(rows[0] as El, ".head .muted"))).toBe("Signs in · 3 steps");
    expect(all(rows[1] as El, ".head .pill").map(text)).toEqual(["global"]);
    expect(text(one(rows[0] as El, "pre code"))).toBe("steps: []\n");
    expect(text(one(root, "#flowsTotal"))).toBe("2");
    foldsControlTheirBodies(root);
  });
});

describe("Workspaces", () => {
  test("the card: pill, ● REC only while live and recording, the last page or Nowhere yet., counts", () => {
    const card = (row: Record<string, unknown>) => parseHtml(render(Card({ row: { key: "w1", ...row } })));
    const live = card({
      live: true,
      recording: true,
      url: "https://app.example.test/x",
      counts: { downloads: 0, screenshots: 6, recordings: 2, files: 2 },
    });
    expect(all(live, ".pill").map((p) => [text(p), classes(p).join(" ")])).toEqual([
      ["live", "pill live"],
      ["● REC", "pill rec"],
    ]);
    expect(text(one(live, ".page"))).toBe("https://app.example.test/x");
    expect(text(one(live, ".counts"))).toBe("6 screenshots · 2 recordings · 2 files");
    const idle = card({ live: false, recording: true, url: null, counts: { recordings: 1 } });
    expect(all(idle, ".pill").map(text)).toEqual(["idle"]);
    expect(text(one(idle, ".page"))).toBe("Nowhere yet.");
    expect(text(one(idle, ".counts"))).toBe("1 recording");
    expect(all(card({ live: true, recording: false }), ".pill.rec")).toHaveLength(0);
  });

  test("a pushed row updates or inserts its card in order; a gone one is deleted", () => {
    const msg = parseHtml(cardMessage({ key: "w.1", live: true }));
    const upsert = one(msg, "hx-upsert");
    expect([upsert.attrs["hx-target"], "sort" in upsert.attrs]).toEqual(["#cards", true]);
    expect(one(upsert, "article.card").attrs.id).toBe("ws-w.1");
    const gone = one(parseHtml(cardMessage({ key: "w.1", gone: true })), "hx-partial");
    expect([gone.attrs["hx-target"], gone.attrs["hx-swap"]]).toEqual(['[id="ws-w.1"]', "delete"]);
  });

  test("a workspace page: the tabs in order, the asked one selected, each pane loading its own", () => {
    const root = parseHtml(
      WorkspacePage({ row: { key: "w1", live: false }, tabs: TABS, tab: "history", signOut: true }),
    );
    const tabs = all(root, "#sessionTabs [role=tab]");
    expect(tabs.map((t) => text(t))).toEqual(["Files", "Flows", "Site data", "History", "Timeline"]);
    expect(tabs.map((t) => t.attrs["aria-selected"])).toEqual(["false", "false", "false", "true", "false"]);
    expect(one(root, "#tabHistory").attrs["aria-controls"]).toBe("paneHistory");
    for (const [pane, tab] of [
      ["paneFiles", "files"],
      ["paneFlows", "flows"],
      ["paneSiteData", "site-data"],
      ["paneHistory", "history"],
      ["paneTimeline", "timeline"],
    ] as const) {
      const el = one(root, `#${pane}`);
      expect("hidden" in el.attrs).toBe(tab !== "history");
      expect(one(el, "[data-rev]").attrs["hx-get"]).toBe(`/ui/workspaces/w1/panes/${tab}`);
      expect(text(one(el, "p"))).toBe("Loading…");
    }
    expect(text(one(root, "#siteDataTotal"))).toBe("");
    expect(one(root, "[hx-sse:connect]").attrs["hx-sse:connect"]).toBe("/ui/events?workspace=w1");
    const linked = parseHtml(
      WorkspacePage({ row: { key: "w1" }, tabs: TABS, tab: "site-data", item: "[::1]", signOut: true }),
    );
    expect(one(linked, "#paneSiteData [data-rev]").attrs["hx-get"]).toBe(
      "/ui/workspaces/w1/panes/site-data?open=%5B%3A%3A1%5D",
    );
  });

  const pushedRow = {
    key: "w1",
    history_rev: "h1",
    site_data_rev: "s1",
    secrets_rev: "c1",
    files_rev: "f1",
    flows_rev: "",
  };
  /** Each pane's reload selector in the message for a pushed row. */
  const targets = (r: Record<string, unknown>): Record<string, string> =>
    Object.fromEntries(
      all(parseHtml(liveMessage({ key: "w1", ...r }, TABS)), "hx-partial")
        .map((p) => p.attrs["hx-target"] as string)
        .filter((t) => t.includes("data-rev"))
        .map((t) => [/pane\w+/.exec(t)?.[0], t]),
    );

  test("a pushed row reloads only the panes whose revision moved", () => {
    const row = pushedRow;
    const before = targets(row);
    // The pane draws the revision the push compares with: same rev, its marker is left alone.
    const historyRev = paneRev(row, tabNamed("history")!);
    expect(before.paneHistory).toBe(`[id="paneHistory"] > [data-rev]:not([data-rev="${historyRev}"])`);
    const after = targets({ ...row, history_rev: "h2" });
    expect(after.paneHistory).not.toBe(before.paneHistory);
    expect(after.paneSiteData).toBe(before.paneSiteData);
    expect(after.paneFiles).toBe(before.paneFiles);
    // Site data moving repaints History's saved pills too; a secret change repaints History only.
    const saved = targets({ ...row, site_data_rev: "s2" });
    expect([saved.paneSiteData !== before.paneSiteData, saved.paneHistory !== before.paneHistory]).toEqual([
      true,
      true,
    ]);
    const secret = targets({ ...row, secrets_rev: "c2" });
    expect([secret.paneSiteData === before.paneSiteData, secret.paneHistory !== before.paneHistory]).toEqual([
      true,
      true,
    ]);
    // A row without a pane's revision reloads it on every push.
    expect(targets({ key: "w1" }).paneFiles).toBe('[id="paneFiles"] > [data-rev]');
    // The loader swapped in reloads the pane into itself.
    const loader = one(
      all(parseHtml(liveMessage(row, TABS)), "hx-partial").find((p) =>
        (p.attrs["hx-target"] as string).includes("paneHistory"),
      ) as El,
      "i",
    );
    expect([loader.attrs["hx-get"], loader.attrs["hx-trigger"], loader.attrs["hx-target"]]).toEqual([
      "/ui/workspaces/w1/panes/history",
      "load",
      "#paneHistory",
    ]);
    // Two pushes close together: the second load aborts the first, whose fragment (read before the
    // second push) would otherwise land last and leave the pane a revision behind.
    expect(loader.attrs["hx-sync"]).toBe("#paneHistory:replace");
  });

  test("a pushed files_rev or flows_rev change reloads only the Files or Flows pane", () => {
    const before = targets(pushedRow);
    const moved = (r: Record<string, unknown>) => {
      const after = targets(r);
      return Object.keys(before).filter((p) => after[p] !== before[p]);
    };
    expect(Object.keys(before).sort()).toEqual([
      "paneFiles",
      "paneFlows",
      "paneHistory",
      "paneSiteData",
      "paneTimeline",
    ]);
    expect(moved({ ...pushedRow, files_rev: "f2" })).toEqual(["paneFiles"]);
    expect(moved({ ...pushedRow, flows_rev: "w2" })).toEqual(["paneFlows"]);
    expect(moved(pushedRow)).toEqual([]);
    expect(before.paneFlows).toBe(
      `[id="paneFlows"] > [data-rev]:not([data-rev="${paneRev(pushedRow, tabNamed("flows")!)}"])`,
    );
  });
});

describe("format", () => {
  test("counts, plurals and relative times", () => {
    expect(countsText({ counts: { downloads: 0, screenshots: 6, recordings: 2, files: 2 } })).toBe(
      "6 screenshots · 2 recordings · 2 files",
    );
    expect(countsText({ counts: { recordings: 1, flows: 1 } })).toBe("1 recording · 1 flow");
    expect([ago(NOW - 5, NOW), ago(NOW - 60, NOW), ago(NOW - 150, NOW), ago(NOW - 3600, NOW)]).toEqual([
      "just now",
      "1m ago",
      "2m ago",
      "1h ago",
    ]);
  });

  test("sign-in: a token field posting to /ui/sign-in, and the error when there is one", () => {
    const root = parseHtml(SignInPage({ error: "wrong token", next: "/ui/activity" }));
    const form = one(root, "form");
    expect([form.attrs.method, form.attrs.action]).toEqual(["post", "/ui/sign-in"]);
    expect(one(form, "input[name=token]").attrs.type).toBe("password");
    expect(one(form, "input[name=next]").attrs.value).toBe("/ui/activity");
    expect(text(one(form, ".error"))).toBe("wrong token");
    expect(all(root, "nav")).toHaveLength(0);
  });

  test("Activity: each call's time, workspace, tool, status and ms, as the admin API gives them", () => {
    const calls = callsOf({
      calls: [{ time: NOW, workspace: "k", tool: "navigate", surface: "rest", status: 400, ms: 12 }],
    });
    const row = one(parseHtml(ActivityPage({ calls, signOut: true })), "tbody tr");
    expect(one(row, "time").attrs.datetime).toBe(new Date(NOW * 1000).toISOString());
    expect(all(row, "td").map(text)).toEqual([
      new Date(NOW * 1000).toISOString().slice(11, 19),
      "k",
      "navigate",
      "400",
      "12",
    ]);
    expect(classes(row)).toContain("failed");
  });
});

describe("notices", () => {
  test("an error, an older page that failed and a kept flow show their text escaped", () => {
    const err = parseHtml(render(ErrorNotice({ error: HOSTILE })));
    expect(text(one(err, "p.error.notice"))).toBe(HOSTILE);
    expect(all(err, "script")).toHaveLength(0);
    const older = parseHtml(render(OlderFailed({ error: HOSTILE })));
    expect(text(one(older, "li.more p.error"))).toBe(HOSTILE);
    expect(all(older, "script")).toHaveLength(0);
    const kept = parseHtml(render(SavedAsFlow({ workspace: "w1", name: `a"${HOSTILE}` })));
    expect(text(one(kept, "p.notice"))).toBe(`Saved as flow a"${HOSTILE}.`);
    expect(all(kept, "script")).toHaveLength(0);
    expect(one(kept, "a").attrs.href).toContain("/flows/");
  });

  test("End's answer: the head with why it failed inside it, or an empty head holding only the error", () => {
    const empty = one(parseHtml(render(WorkspaceHead({ row: null, error: HOSTILE }))), "header#wsHead");
    expect(text(one(empty, "p.error.notice"))).toBe(HOSTILE);
    expect(empty.children).toHaveLength(1);
    expect(all(empty, "script")).toHaveLength(0);
    expect(one(parseHtml(render(WorkspaceHead({ row: null }))), "header#wsHead").children).toHaveLength(0);
  });
});
