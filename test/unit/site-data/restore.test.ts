// Restore on a fake BiDi socket: the order (cookies, then each origin's localStorage from its page in
// the main tab, lent as the spare tab, with more tabs beside it on a browser with the cores; the main
// tab's sessionStorage through a one-shot preload that fills it on the way to the site), the cookie
// rules and their exact reasons, and failures reported, never raised.
import { describe, expect, test } from "bun:test";
import { BAD_EXPIRY, NO_NAME, NOT_KEPT, restore } from "../../../src/site-data/restore.ts";
import { OUT_OF_TIME } from "../../../src/site-data/spare-pool.ts";
import type { SiteData, StoredCookie } from "../../../src/store/record.ts";
import { SiteDataHint } from "../../../src/store/shapes.ts";
import { cookie } from "../../support/cookies.ts";
import { FakeBidi } from "../../support/fake-bidi.ts";

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
  bidi.log.filter((l) => /^(setCookie|visit) /.test(l)).map((l) => l.split(" ").slice(0, 2).join(" "));

/** The agent's first page, as the manager goes there after the restore. */
const firstPage = (bidi: FakeBidi, url: string) =>
  bidi.send("browsingContext.navigate", { context: "main", url, wait: "complete" });

describe("restore", () => {
  test("cookies, then each origin's storage from its page in the main tab, which opens no tab and keeps none of it in its history; sessionStorage goes in on the way", async () => {
    const bidi = new FakeBidi();
    const report = await restore(bidi.socket, FULL, NOW, { main });
    // Nothing is written before the cookies are in; the two sites take the main tab, one by one.
    expect(steps(bidi)).toEqual(["setCookie sid", "setCookie kc", "visit main", "visit main"]);
    expect(bidi.log).toContain("preload [main] selenium-flow");
    expect(bidi.log.some((l) => l.startsWith("create"))).toBe(false);
    // The page moved the tab each time (location.replace: no history entry), then back to about:blank;
    // nothing of the spare tab is left.
    expect(bidi.log.filter((l) => /^(navigate|replace) main/.test(l))).toEqual([
      `replace main ${APP}/__selenium-flow-spare__`,
      `replace main ${SSO}/__selenium-flow-spare__`,
      "replace main about:blank",
    ]);
    expect(bidi.tabs.get("main")?.url).toBe("about:blank");
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
    expect(bidi.openIntercepts).toBe(0);
    expect(bidi.handlerGoneFirst).toEqual([]);
    expect(bidi.localOf(APP).items()).toEqual({ theme: "dark" });
    expect(bidi.localOf(SSO).items()).toEqual({ kc: "1" });
    // The site's spare page was its first document in the tab: the preload filled it there, then went
    // with all it held.
    expect(bidi.sessionOf("main", APP).items()).toEqual({ token: "t" });
    await Bun.sleep(0);
    expect(bidi.preloads.size).toBe(0);
    expect(bidi.handlers).toBe(0);
    expect(report).toEqual({
      restored: ["app.example.com", "sso.example.com"],
      skipped: [],
      uri: "workspace://site-data",
    });
    await firstPage(bidi, `${APP}/x`);
    expect(bidi.sessionOf("main", APP).items()).toEqual({ token: "t" });
  });

  test("the first site's page loads while the cookies go in, and nothing is written before they are in", async () => {
    // When each visit is sent, how many cookies the jar held; the cookies take 50 ms each to go in.
    const jarAtVisits: number[] = [];
    const bidi: FakeBidi = new FakeBidi({
      delayMs: (m, p) => {
        if (m === "script.callFunction" && String(p.functionDeclaration).includes("selenium-flow-spare"))
          jarAtVisits.push(bidi.jar.length);
        return m === "storage.setCookie" ? 50 : undefined;
      },
    });
    const report = await restore(bidi.socket, FULL, NOW, { main });
    expect(report.skipped).toEqual([]);
    expect(jarAtVisits).toEqual([2, 2]);
    // The tab was on the first site's page before the cookies were in.
    expect(bidi.log.indexOf(`replace main ${APP}/__selenium-flow-spare__`)).toBeLessThan(
      bidi.log.indexOf("storage.getCookies"),
    );
  });

  test("the main tab makes no move before the sessionStorage preload is in: a slow preload still fills the site's page", async () => {
    const bidi = new FakeBidi({
      delayMs: (m, p) =>
        m === "script.addPreloadScript" && String(p.functionDeclaration).includes("sessionStorage")
          ? 60
          : undefined,
    });
    const report = await restore(bidi.socket, FULL, NOW, { main });
    expect(report.skipped).toEqual([]);
    expect(bidi.sessionOf("main", APP).items()).toEqual({ token: "t" });
    await firstPage(bidi, `${APP}/x`);
    expect(bidi.sessionOf("main", APP).items()).toEqual({ token: "t" });
  });

  test("the preload acts once: a later page of the site keeps what the page did with its sessionStorage", async () => {
    const bidi = new FakeBidi();
    await restore(bidi.socket, FULL, NOW, { main });
    await firstPage(bidi, `${APP}/x`);
    bidi.sessionOf("main", APP).setItem("token", "from-the-page");
    bidi.sessionOf("main", APP).removeItem("other");
    await Bun.sleep(0);
    await firstPage(bidi, `${APP}/y`);
    expect(bidi.sessionOf("main", APP).items()).toEqual({ token: "from-the-page" });
    expect(bidi.preloads.size).toBe(0);
  });

  test("a first page elsewhere leaves the preload waiting: the tab has it when it reaches the site", async () => {
    const bidi = new FakeBidi();
    // No localStorage of the site's: the tab does not visit it during the restore.
    await restore(bidi.socket, { ...FULL, origins: { [SSO]: { local: { kc: "1" } } } }, NOW, { main });
    await firstPage(bidi, `${SSO}/login`);
    await Bun.sleep(0);
    expect(bidi.sessionOf("main", SSO).items()).toEqual({});
    expect(bidi.preloads.size).toBe(1);
    await firstPage(bidi, `${APP}/home`);
    expect(bidi.sessionOf("main", APP).items()).toEqual({ token: "t" });
    await Bun.sleep(0);
    expect(bidi.preloads.size).toBe(0);
    expect(bidi.handlers).toBe(0);
  });

  test("a page its service worker serves still gets its sessionStorage", async () => {
    const bidi = new FakeBidi({ workers: [APP] });
    const report = await restore(bidi.socket, { session: { origin: APP, items: { t: "1" } } }, NOW, { main });
    expect(report.restored).toEqual(["app.example.com"]);
    await firstPage(bidi, `${APP}/`);
    expect(bidi.sessionOf("main", APP).items()).toEqual({ t: "1" });
  });

  test("on a browser of 4 cores, 12 origins in the main tab and 2 tabs beside it restore exactly what the main tab alone does on 2 cores, and say so in the same words", async () => {
    const twelve: SiteData = {
      origins: Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [
          `https://s${i}.example.com`,
          { local: { k: `v${i}`, n: `${i}` } },
        ]),
      ),
    };
    const slow = (url: string) => 5 + (12 - Number(/s(\d+)\./.exec(url)?.[1] ?? 0)) * 3;
    const one = new FakeBidi({ navigateMs: slow, workers: ["https://s3.example.com"], cores: 2 });
    const four = new FakeBidi({ navigateMs: slow, workers: ["https://s3.example.com"], cores: 4 });
    const inTurn = await restore(one.socket, twelve, NOW, { main, tabs: 4 });
    const sideBySide = await restore(four.socket, twelve, NOW, { main, tabs: 4 });
    expect(sideBySide).toEqual(inTurn);
    expect(inTurn.skipped).toEqual([
      { site: "https://s3.example.com", reason: "a service worker answered: save while on this site" },
    ]);
    expect(inTurn.restored).toHaveLength(11);
    for (let i = 0; i < 12; i++) {
      const o = `https://s${i}.example.com`;
      expect(four.localOf(o).items()).toEqual(i === 3 ? {} : { k: `v${i}`, n: `${i}` });
      expect(four.localOf(o).items()).toEqual(one.localOf(o).items());
    }
    expect(one.mostNavigating).toBe(1);
    expect(one.log.filter((l) => l.startsWith("create"))).toHaveLength(0);
    expect(four.mostNavigating).toBe(3);
    expect(four.log.filter((l) => l.startsWith("create"))).toHaveLength(2);
    for (const b of [one, four]) {
      expect([...b.tabs.keys()]).toEqual(["main"]);
      expect(b.tabs.get("main")?.url).toBe("about:blank");
      expect(b.handlers).toBe(0);
    }
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

  test("an origin that fails is skipped, and the rest go on (the failed move is an event: the page asked for it)", async () => {
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

  test("sessionStorage that fails is skipped, not fatal, and leaves nothing behind", async () => {
    const bidi = new FakeBidi({
      fail: (m, p) =>
        m === "script.addPreloadScript" && p.contexts?.[0] === "main"
          ? new Error("unsupported operation")
          : undefined,
    });
    const report = await restore(bidi.socket, { session: { origin: APP, items: { t: "1" } } }, NOW, { main });
    expect(report).toEqual({
      restored: [],
      skipped: [{ site: APP, reason: "unsupported operation" }],
      uri: "workspace://site-data",
    });
    expect(bidi.handlers).toBe(0);
    expect(bidi.log).toContain("unsubscribe");
  });

  test("a main tab that cannot be found skips its sessionStorage; a tab of its own writes the rest", async () => {
    const bidi = new FakeBidi();
    const report = await restore(
      bidi.socket,
      { origins: { [SSO]: { local: { kc: "1" } } }, session: { origin: APP, items: { t: "1" } } },
      NOW,
      {
        main: async () => {
          throw new Error("the browser has no tab");
        },
      },
    );
    expect(report.skipped).toEqual([{ site: APP, reason: "the browser has no tab" }]);
    expect(report.restored).toEqual(["sso.example.com"]);
    expect(bidi.log.filter((l) => l.startsWith("create"))).toHaveLength(1);
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
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
    // The localStorage did not come back; the sessionStorage needs no spare tab.
    expect(report.restored).toEqual(["app.example.com", "sso.example.com"]);
    expect(report.skipped).toEqual([{ site: APP, reason: "socket is already closed" }]);
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
      fail: (m) => (m === "storage.setCookie" || m === "network.addIntercept" ? leak() : undefined),
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
          : m === "script.callFunction" && String(p.functionDeclaration).includes("localStorage.setItem")
            ? new Error(`quota exceeded for ${JSON.stringify(p.arguments).match(/LOCAL-VALUE-\d/)?.[0]}`)
            : m === "script.addPreloadScript" && String(p.functionDeclaration).includes("SESSION-VALUE")
              ? new Error(`refused ${String(p.functionDeclaration).match(/SESSION-VALUE-\d/)?.[0]}`)
              : undefined,
    });
    const report = await restore(
      bidi.socket,
      {
        cookies: [cookie("sid", "app.example.com", { value: "COOKIE-VALUE-1" })],
        origins: { [APP]: { local: { k: "LOCAL-VALUE-1" } } },
        session: { origin: APP, items: { t: "SESSION-VALUE-1" } },
      },
      NOW,
      { main },
    );
    expect(report.skipped?.map((s) => s.reason)).toEqual([
      "invalid cookie value [hidden]",
      "quota exceeded for [hidden]",
      "refused [hidden]",
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
      { main, budgetMs: 60, tabs: 1 },
    );
    expect(report.restored).toEqual(["a.example.com"]);
    expect(report.skipped).toEqual([{ site: "https://b.example.com", reason: OUT_OF_TIME }]);
  });

  test("after the budget ran out, the main tab is back on about:blank before restore returns; sessionStorage lands only at the first page", async () => {
    // Margins wide enough for a loaded machine: a's visit ends well inside the budget, b's well past it.
    const bidi = new FakeBidi({ navigateMs: 100, closeMs: 100 });
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
      { main, budgetMs: 160, tabs: 1 },
    );
    expect(report.skipped).toEqual([{ site: "https://b.example.com", reason: OUT_OF_TIME }]);
    // b's page may still have been on its way: the tab left it for about:blank before the first page.
    expect(bidi.log.at(-1)).toBe("unsubscribe");
    expect(bidi.log.filter((l) => l.startsWith("replace main")).at(-1)).toBe("replace main about:blank");
    expect(bidi.tabs.get("main")?.url).toBe("about:blank");
    expect(bidi.openIntercepts).toBe(0);
    expect(bidi.sessionOf("main", APP).items()).toEqual({});
    await firstPage(bidi, `${APP}/`);
    expect(bidi.sessionOf("main", APP).items()).toEqual({ t: "1" });
  });
});
