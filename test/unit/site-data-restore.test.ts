// Restore on a fake BiDi socket: the order (cookies, each origin's localStorage in one spare tab,
// sessionStorage in the main tab, then about:blank), the cookie rules and their exact reasons, and
// failures reported, never raised.
import { describe, expect, test } from "bun:test";
import { SiteDataHint } from "../../src/actions/define.ts";
import { OUT_OF_TIME } from "../../src/grid/spare-tab.ts";
import { BAD_EXPIRY, NO_NAME, NOT_KEPT, restore } from "../../src/site-data/restore.ts";
import type { SiteData, StoredCookie } from "../../src/store/record.ts";
import { cookie } from "../support/cookies.ts";
import { FakeBidi } from "../support/fake-bidi.ts";

const NOW = 1_790_800_000;
const APP = "https://app.example.com";
const SSO = "https://sso.example.com";
const main = async () => "main";

const FULL: SiteData = {
  cookies: [
    cookie("sid", "app.example.com", { http_only: true, expiry: NOW + 3600 }),
    cookie("kc", "sso.example.com"),
    cookie("gone", "app.example.com", { expiry: NOW - 1 }),
  ],
  origins: { [APP]: { local: { theme: "dark" } }, [SSO]: { local: { kc: "1" } } },
  session: { origin: APP, items: { token: "t" } },
  saved_at: NOW - 60,
};

const steps = (bidi: FakeBidi) =>
  bidi.log
    .filter((l) => /^(setCookie|evaluate)/.test(l))
    .map((l) => (l.startsWith("setCookie") ? "cookie" : l.includes("main") ? "main" : "spare"));

describe("restore", () => {
  test("cookies, then each origin's storage in one spare tab, then sessionStorage in the main tab", async () => {
    const bidi = new FakeBidi();
    const report = await restore(bidi.socket, FULL, NOW, { main });
    expect(bidi.log.filter((l) => l.startsWith("setCookie")).map((l) => l.split(" ")[1])).toEqual([
      "sid",
      "kc",
    ]);
    expect(steps(bidi)).toEqual(["cookie", "cookie", "spare", "spare", "main"]);
    expect(bidi.log.filter((l) => l.startsWith("create"))).toHaveLength(1);
    expect(bidi.log.filter((l) => l.startsWith("navigate main"))).toEqual([
      `navigate main ${APP}/__selenium-flow-spare__ interactive`,
      "navigate main about:blank complete",
    ]);
    expect(bidi.tabs.get("main")?.url).toBe("about:blank");
    // Both tabs are torn down: the spare one closed, the main one left open without our intercept.
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
    expect(bidi.openIntercepts).toBe(0);
    expect(bidi.handlers).toBe(0);
    expect(bidi.handlerGoneFirst).toEqual([]);
    expect(bidi.localOf(APP).items()).toEqual({ theme: "dark" });
    expect(bidi.localOf(SSO).items()).toEqual({ kc: "1" });
    expect(bidi.sessionOf("main", APP).items()).toEqual({ token: "t" });
    expect(report).toEqual({
      restored: ["app.example.com", "sso.example.com"],
      skipped: [],
      uri: "workspace://site-data",
    });
  });

  test("a cookie-only snapshot opens no tab", async () => {
    const bidi = new FakeBidi();
    const report = await restore(bidi.socket, { cookies: [cookie("sid", "app.example.com")] }, NOW, { main });
    expect(bidi.log.some((l) => l.startsWith("create") || l.startsWith("intercept"))).toBe(false);
    expect(report.restored).toEqual(["app.example.com"]);
  });

  test("a parent cookie that reaches a restored host adds no host of its own", async () => {
    const bidi = new FakeBidi();
    const report = await restore(
      bidi.socket,
      {
        cookies: [cookie("ab", ".example.com"), cookie("x", ".example.org")],
        origins: { [APP]: { local: { a: "1" } } },
      },
      NOW,
      { main },
    );
    expect(report.restored).toEqual(["app.example.com", "example.org"]);
  });

  test("an origin that fails is skipped, and the rest go on", async () => {
    const bidi = new FakeBidi({
      fail: (m, p) =>
        m === "browsingContext.navigate" && String(p.url).startsWith("https://bad.example.com")
          ? new Error("the navigation failed")
          : undefined,
    });
    const report = await restore(
      bidi.socket,
      {
        origins: {
          "https://bad.example.com": { local: { a: "1" } },
          "https://ok.example.com": { local: { a: "1" } },
        },
      },
      NOW,
      { main },
    );
    expect(report.restored).toEqual(["ok.example.com"]);
    expect(report.skipped).toEqual([{ site: "https://bad.example.com", reason: "the navigation failed" }]);
  });

  test("sessionStorage that fails is skipped, not fatal", async () => {
    const bidi = new FakeBidi({ workers: [APP] });
    const report = await restore(bidi.socket, { session: { origin: APP, items: { t: "1" } } }, NOW, { main });
    expect(report).toEqual({
      restored: [],
      skipped: [{ site: APP, reason: "a service worker answered: save while on this site" }],
      uri: "workspace://site-data",
    });
  });

  test("a main tab that cannot stand on its origin is skipped and still left on about:blank", async () => {
    const bidi = new FakeBidi({
      fail: (m, p) =>
        m === "browsingContext.navigate" && p.context === "main" && p.url !== "about:blank"
          ? new Error("net::ERR_ABORTED")
          : undefined,
    });
    const report = await restore(
      bidi.socket,
      { origins: { [SSO]: { local: { kc: "1" } } }, session: { origin: APP, items: { t: "1" } } },
      NOW,
      { main },
    );
    expect(report.skipped).toEqual([{ site: APP, reason: "net::ERR_ABORTED" }]);
    expect(report.restored).toEqual(["sso.example.com"]);
    expect(bidi.log.filter((l) => l.startsWith("navigate main")).at(-1)).toBe(
      "navigate main about:blank complete",
    );
    expect(bidi.sessionOf("main", APP).items()).toEqual({});
    expect(bidi.openIntercepts).toBe(0);
    expect(bidi.handlers).toBe(0);
  });

  test("a tab that cannot open skips its origins, and the cookies stand", async () => {
    const bidi = new FakeBidi({
      fail: (m) => (m === "network.addIntercept" ? new Error("socket is already closed") : undefined),
    });
    const report = await restore(
      bidi.socket,
      {
        cookies: [cookie("kc", "sso.example.com")],
        origins: { [APP]: { local: { a: "1" } } },
        session: { origin: APP, items: { t: "1" } },
      },
      NOW,
      { main },
    );
    expect(report.restored).toEqual(["sso.example.com"]);
    expect(report.skipped).toEqual([
      { site: APP, reason: "socket is already closed" },
      { site: APP, reason: "socket is already closed" },
    ]);
  });

  test("a dead channel is reported, never raised", async () => {
    const bidi = new FakeBidi({ fail: () => new Error("socket is already closed") });
    const report = await restore(bidi.socket, FULL, NOW, { main });
    expect(report.restored).toEqual([]);
    expect(report.skipped?.length).toBeGreaterThan(0);
    for (const s of report.skipped ?? []) expect(s.reason).toBe("socket is already closed");
  });

  test("SameSite none without secure is sent as lax; with secure stays none; Firefox's default unchanged", async () => {
    const bidi = new FakeBidi();
    const report = await restore(
      bidi.socket,
      {
        cookies: [
          cookie("a", "a.example.com", { same_site: "none", secure: false }),
          cookie("b", "b.example.com", { same_site: "none", secure: true }),
          cookie("c", "c.example.com", { same_site: "default", secure: false }),
        ],
      },
      NOW,
      { main },
    );
    expect(bidi.log.filter((l) => l.startsWith("setCookie"))).toEqual([
      "setCookie a lax",
      "setCookie b none",
      "setCookie c default",
    ]);
    expect(report.skipped).toEqual([]);
  });

  test("a cookie refused or not kept is skipped, refusals first; its host is not restored", async () => {
    const bidi = new FakeBidi({
      drop: ["gone"],
      fail: (m, p) =>
        m === "storage.setCookie" && p.cookie.name === "bad" ? new Error("unable to set cookie") : undefined,
    });
    const report = await restore(
      bidi.socket,
      {
        cookies: [
          cookie("gone", "only.example.com"),
          cookie("bad", "refused.example.com"),
          cookie("sid", "app.example.com"),
        ],
      },
      NOW,
      { main },
    );
    expect(report.skipped).toEqual([
      { cookie: "bad", domain: "refused.example.com", reason: "unable to set cookie" },
      { cookie: "gone", domain: "only.example.com", reason: NOT_KEPT },
    ]);
    expect(report.restored).toEqual(["app.example.com"]);
    expect(NOT_KEPT).toBe("the browser did not keep it");
  });

  test("an unreadable jar trusts the set", async () => {
    const bidi = new FakeBidi({
      drop: ["sid"],
      fail: (m) => (m === "storage.getCookies" ? new Error("no") : undefined),
    });
    const report = await restore(bidi.socket, { cookies: [cookie("sid", "app.example.com")] }, NOW, { main });
    expect(report).toEqual({ restored: ["app.example.com"], skipped: [], uri: "workspace://site-data" });
  });

  test("one malformed cookie is skipped, not the whole restore, with only its string fields", async () => {
    const bidi = new FakeBidi();
    const cookies = [
      { ...cookie("x", "app.example.com"), name: undefined },
      { ...cookie("nodomain", "x"), domain: null },
      cookie("odd", "app.example.com", { expiry: "tomorrow" as unknown as number }),
      cookie("ok", "app.example.com"),
    ] as unknown as StoredCookie[];
    const report = await restore(bidi.socket, { cookies }, NOW, { main });
    expect(bidi.log.filter((l) => l.startsWith("setCookie"))).toEqual(["setCookie ok lax"]);
    expect(report.skipped).toEqual([
      { reason: NO_NAME, domain: "app.example.com" },
      { reason: NO_NAME, cookie: "nodomain" },
      { reason: BAD_EXPIRY, cookie: "odd", domain: "app.example.com" },
    ]);
    expect(NO_NAME).toBe("a stored cookie with no name or domain");
    expect(BAD_EXPIRY).toBe("a stored cookie whose expiry is not a time");
  });

  test("a failure never leaks the Grid credential", async () => {
    const leak = () => new Error("POST http://user:pass@grid:4444/session failed");
    const bidi = new FakeBidi({
      fail: (m) => (m === "storage.setCookie" || m === "browsingContext.create" ? leak() : undefined),
    });
    const report = await restore(
      bidi.socket,
      { cookies: [cookie("a", "a.example.com")], origins: { [APP]: { local: { k: "1" } } } },
      NOW,
      { main },
    );
    expect(report.skipped).toHaveLength(2);
    expect(JSON.stringify(report)).not.toContain("user:pass");
  });

  test("a browser error that echoes what it was given never carries the value into the report", async () => {
    const bidi = new FakeBidi({
      fail: (m, p) =>
        m === "storage.setCookie"
          ? new Error(`invalid cookie value ${p.cookie.value.value}`)
          : m === "script.evaluate" && String(p.expression).includes("localStorage.setItem")
            ? new Error(`quota exceeded for ${String(p.expression).match(/LOCAL-VALUE-\d/)?.[0]}`)
            : undefined,
    });
    const report = await restore(
      bidi.socket,
      {
        cookies: [cookie("sid", "app.example.com", { value: "COOKIE-VALUE-1" })],
        origins: { [APP]: { local: { k: "LOCAL-VALUE-1" } } },
      },
      NOW,
      { main },
    );
    expect(report.skipped?.map((s) => s.reason)).toEqual([
      "invalid cookie value [hidden]",
      "quota exceeded for [hidden]",
    ]);
  });

  test("every skipped item restore emits is declared, and nothing waits", async () => {
    const bidi = new FakeBidi({
      drop: ["gone"],
      workers: [SSO],
      fail: (m, p) =>
        m === "storage.setCookie" && p.cookie.name === "bad" ? new Error("unable to set cookie") : undefined,
    });
    const report = await restore(
      bidi.socket,
      {
        cookies: [
          cookie("gone", "a.example.com"),
          cookie("bad", "b.example.com"),
          { name: "" } as StoredCookie,
        ],
        origins: { [SSO]: { local: { k: "1" } } },
      },
      NOW,
      { main },
    );
    expect(report.skipped).toHaveLength(4);
    const hint = SiteDataHint.strict();
    expect(hint.safeParse(report).success).toBe(true);
    const item = SiteDataHint.shape.skipped.unwrap().element.strict();
    for (const s of report.skipped ?? []) expect(item.safeParse(s).success).toBe(true);
    expect("waiting" in SiteDataHint.shape).toBe(false);
  });

  test("origins not reached within the budget say so", async () => {
    const bidi = new FakeBidi({ navigateMs: 40 });
    const report = await restore(
      bidi.socket,
      {
        origins: {
          "https://a.example.com": { local: { k: "1" } },
          "https://b.example.com": { local: { k: "1" } },
        },
      },
      NOW,
      { main, budgetMs: 60 },
    );
    expect(report.restored).toEqual(["a.example.com"]);
    expect(report.skipped).toEqual([{ site: "https://b.example.com", reason: OUT_OF_TIME }]);
  });

  test("after the budget ran out, the spare tab is closed before the main tab takes its sessionStorage", async () => {
    const bidi = new FakeBidi({ navigateMs: 40, closeMs: 100 });
    const report = await restore(
      bidi.socket,
      {
        origins: {
          "https://a.example.com": { local: { k: "1" } },
          "https://b.example.com": { local: { k: "1" } },
        },
        session: { origin: APP, items: { t: "1" } },
      },
      NOW,
      { main, budgetMs: 60 },
    );
    expect(report.skipped).toEqual([{ site: "https://b.example.com", reason: OUT_OF_TIME }]);
    // b's write may still have been under way in the spare tab: it is gone before main is written.
    expect(bidi.log.indexOf("closed spare-1")).toBeGreaterThan(-1);
    expect(bidi.log.indexOf("closed spare-1")).toBeLessThan(bidi.log.indexOf("evaluate main await"));
    expect(bidi.sessionOf("main", APP).items()).toEqual({ t: "1" });
  });
});
