// Save and restore through the workspace manager, on a fake Grid: what a save reads and stores,
// what an open and a silent reopen put back and say, and the races a save must survive.
import { beforeEach, describe, expect, test } from "bun:test";
import type { AnyAction } from "../../../src/actions/action.ts";
import { validate } from "../../../src/actions/validate.ts";
import { endBrowser, openSession } from "../../../src/browser/session.ts";
import { AppError } from "../../../src/errors.ts";
import { REPLACED_BEFORE_SAVE, saveSiteData } from "../../../src/site-data/actions.ts";
import { capture } from "../../../src/site-data/capture.ts";
import { siteDataHooks } from "../../../src/site-data/hooks.ts";
import { SW_REASON } from "../../../src/site-data/spare-page.ts";
import type { RecordStore } from "../../../src/store/index.ts";
import { openStore } from "../../../src/store/index.ts";
import { emptyRecord } from "../../../src/store/record.ts";
import type { WorkspaceManager } from "../../../src/workspaces/manager.ts";
import { goAction as navigate } from "../../support/actions.ts";
import { runCall } from "../../support/calls.ts";
import { bidiCookie, FakeBidi } from "../../support/fake-bidi.ts";
import { FakeGrid } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";

const NOW = 1_790_800_000;
/** The sandbox call a save makes to read the page's two storages. */
const readsStorage = (script: string) => script.includes("storagesNow");
const APP = "https://app.example.com";
const SSO = "https://sso.example.com";
const OLD = "https://old.example.com";
const W = "w";

describe("capture", () => {
  const page =
    (origin: string, local = {}, session = {}) =>
    async () => ({ origin, local, session, url: `${origin}/`, title: "App" });

  test("reads the jar, the page in place, and every other origin in spare tabs side by side", async () => {
    const bidi = new FakeBidi({
      cookies: [bidiCookie("sid", "app.example.com", { httpOnly: true, expiry: NOW + 60, sameSite: "none" })],
    });
    bidi.localOf(SSO).setItem("kc", "1");
    const got = await capture(async () => bidi.socket, page(APP, { a: "1" }, { t: "1" }), [APP, SSO, OLD]);
    expect(got).toEqual({
      cookies: [
        {
          name: "sid",
          value: "v-sid",
          value_type: "string",
          domain: "app.example.com",
          path: "/",
          http_only: true,
          secure: true,
          same_site: "none",
          expiry: NOW + 60,
        },
      ],
      origin: APP,
      local: { a: "1" },
      session: { t: "1" },
      others: { [SSO]: { kc: "1" }, [OLD]: {} },
      idb: {},
      idbSkipped: [],
      failed: [],
      page: { url: `${APP}/`, title: "App" },
    });
    // One tab for the two, readied while the page was read; the first visit's script sent it on to
    // the second origin.
    expect(bidi.log.filter((l) => l.startsWith("create"))).toHaveLength(1);
    expect(bidi.log.filter((l) => /^(navigate|replace|visit) /.test(l))).toEqual([
      `navigate spare-1 ${SSO}/__selenium-flow-spare__ interactive`,
      `visit spare-1 ${SSO}`,
      `replace spare-1 ${OLD}/__selenium-flow-spare__`,
      `visit spare-1 ${OLD}`,
    ]);
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
    expect(bidi.handlerGoneFirst).toEqual([]);
  });

  test("12 origins read in 3 tabs give what one tab in turn gives, in the history's order", async () => {
    const history = Array.from({ length: 12 }, (_, i) => `https://s${i}.example.com`);
    const slow = (url: string) => 5 + (12 - Number(/s(\d+)\./.exec(url)?.[1] ?? 0)) * 3;
    const world = () => {
      const bidi = new FakeBidi({ navigateMs: slow, workers: ["https://s5.example.com"] });
      for (const [i, o] of history.entries()) if (i % 4 !== 1) bidi.localOf(o).setItem("k", `v${i}`);
      return bidi;
    };
    const one = world();
    const four = world();
    const inTurn = await capture(async () => one.socket, page(APP), [APP, ...history], { tabs: 1 });
    const sideBySide = await capture(async () => four.socket, page(APP), [APP, ...history], { tabs: 4 });
    expect(sideBySide).toEqual(inTurn);
    expect(Object.keys(sideBySide.others)).toEqual(history.filter((o) => o !== "https://s5.example.com"));
    expect(sideBySide.failed).toEqual([{ site: "https://s5.example.com", reason: SW_REASON }]);
    expect(four.mostNavigating).toBe(3);
    expect(one.mostNavigating).toBe(1);
    expect([...four.tabs.keys()]).toEqual(["main"]);
    expect(four.handlers).toBe(0);
  });

  test("with `later`, the capture answers before its spare tab has closed, and hands the closing over", async () => {
    const bidi = new FakeBidi({ closeMs: 150 });
    bidi.localOf(SSO).setItem("kc", "1");
    let closing: Promise<void> | null = null;
    const got = await capture(async () => bidi.socket, page(APP), [APP, SSO], {
      later: (p) => {
        closing = p;
      },
    });
    expect(got.others).toEqual({ [SSO]: { kc: "1" } });
    expect(bidi.log.some((l) => l.startsWith("closed "))).toBe(false);
    expect(closing).not.toBeNull();
    await closing;
    expect(bidi.log.filter((l) => l.startsWith("closed "))).toHaveLength(1);
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
    expect(bidi.handlers).toBe(0);
  });

  test("only web origins are visited", async () => {
    const bidi = new FakeBidi();
    await capture(async () => bidi.socket, page(APP), ["chrome://settings", SSO, "file:///tmp"]);
    expect(bidi.log.filter((l) => l.startsWith("navigate"))).toEqual([
      `navigate spare-1 ${SSO}/__selenium-flow-spare__ interactive`,
    ]);
  });

  test("a service worker's origin is reported and never read", async () => {
    const bidi = new FakeBidi({ workers: [SSO] });
    const got = await capture(async () => bidi.socket, page(APP), [SSO, OLD]);
    expect(got.others).toEqual({ [OLD]: {} });
    expect(got.failed).toEqual([{ site: SSO, reason: SW_REASON }]);
  });

  test("a tab that cannot open fails every origin it did not read", async () => {
    const bidi = new FakeBidi({
      fail: (m) => (m === "browsingContext.create" ? new Error("socket is already closed") : undefined),
    });
    const got = await capture(async () => bidi.socket, page(APP), [SSO, OLD]);
    expect(got.others).toEqual({});
    expect(got.failed).toEqual([
      { site: SSO, reason: "socket is already closed" },
      { site: OLD, reason: "socket is already closed" },
    ]);
  });

  test("no other origin means no tab", async () => {
    const bidi = new FakeBidi();
    await capture(async () => bidi.socket, page(APP), [APP]);
    expect(bidi.log).toEqual(["storage.getCookies"]);
  });

  test("a spare tab readied while the page is read, then not needed, is closed", async () => {
    const bidi = new FakeBidi();
    const got = await capture(async () => bidi.socket, page(APP), ["chrome://settings", APP]);
    expect(got.others).toEqual({});
    expect(bidi.log.filter((l) => l.startsWith("navigate"))).toEqual([]);
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
    expect(bidi.openIntercepts).toBe(0);
    expect(bidi.handlers).toBe(0);
  });

  test("a page that cannot be read still leaves no spare tab behind", async () => {
    const bidi = new FakeBidi();
    const broken = async (): Promise<never> => {
      throw new Error("unexpected alert open");
    };
    const err = await capture(async () => bidi.socket, broken, [SSO, APP]).catch((e: unknown) => e);
    expect((err as Error).message).toBe("unexpected alert open");
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
    expect(bidi.handlers).toBe(0);
  });

  test("a jar the channel cannot read is a 503 that says nothing was saved; anything else stays itself", async () => {
    const down = new FakeBidi({
      fail: (m) => (m === "storage.getCookies" ? new AppError("unavailable", "closed") : undefined),
    });
    const err = await capture(async () => down.socket, page(APP), []).catch((e: unknown) => e);
    expect((err as AppError).status).toBe(503);
    expect((err as AppError).message).toBe("the browser's BiDi channel did not answer: nothing was saved");
    const odd = new FakeBidi({
      fail: (m) => (m === "storage.getCookies" ? new TypeError("bad shape") : undefined),
    });
    const other = await capture(async () => odd.socket, page(APP), []).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(TypeError);
  });
});

// ---- through the manager --------------------------------------------------------------------

let store: RecordStore;
let fake: FakeGrid;
let manager: WorkspaceManager;

beforeEach(async () => {
  store = await openStore({ ttl: 86_400 });
  fake = new FakeGrid();
  manager = testServices({
    store,
    grid: fake.grid,
    now: () => NOW,
    hooks: siteDataHooks(() => NOW),
  }).workspaces;
});

function call(action: AnyAction, input: unknown = {}): Promise<Record<string, any>> {
  return runCall(manager, W, action, validate(action.input, input));
}

/** Signs the current browser in: a cookie for app and sso, and storage on the page's origin. */
function signIn(id = fake.last().id) {
  const b = fake.browsers.get(id);
  if (!b) throw new Error("no browser");
  b.bidi.jar.push(
    bidiCookie("sid", "app.example.com", { httpOnly: true, value: { type: "string", value: "SID" } }),
  );
  b.bidi.jar.push(bidiCookie("kc", "sso.example.com"));
  b.bidi.localOf(APP).setItem("theme", "dark");
  b.bidi.sessionOf("main", APP).setItem("token", "T");
  b.bidi.localOf(SSO).setItem("kc", "1");
}

async function savedWorld() {
  await call(navigate, { url: `${SSO}/login` });
  await call(navigate, { url: `${APP}/x` });
  signIn();
  return call(saveSiteData);
}

describe("save_site_data through the manager", () => {
  test("a save is stored, reads every history origin, and is never returned raw", async () => {
    const out = await savedWorld();
    expect(out).toEqual({
      url: `${APP}/x`,
      title: "",
      saved: { cookies: 2, sites: [APP, SSO], skipped: [] },
      uri: "workspace://site-data",
    });
    expect(JSON.stringify(out)).not.toContain("SID");
    expect(JSON.stringify(out)).not.toContain("dark");
    const record = await store.get(W);
    expect(Object.keys(record?.site_data.origins ?? {})).toEqual([APP, SSO]);
    expect(record?.site_data.session).toEqual({ origin: APP, items: { token: "T" } });
    expect(record?.site_data.saved_at).toBe(NOW);
  });

  test("with url it goes there first and saves that page", async () => {
    await call(navigate, { url: `${SSO}/login` });
    signIn();
    const out = await call(saveSiteData, { url: `${APP}/y` });
    expect(out.url).toBe(`${APP}/y`);
    expect(out.saved.sites).toEqual([APP, SSO]);
    expect((await store.get(W))?.history[0]?.url).toBe(`${APP}/y`);
  });

  test("a save from a replaced browser keeps nothing, and says so", async () => {
    await call(navigate, { url: `${APP}/x` });
    signIn();
    fake.onScript = async (_id, script) => {
      if (!readsStorage(script)) return;
      fake.onScript = null;
      await store.update(W, (r) => (r ? { ...r, session_id: "newer", site_data: {} } : r));
    };
    const out = await call(saveSiteData);
    expect(out.saved).toEqual({ cookies: 0, sites: [], skipped: [{ reason: REPLACED_BEFORE_SAVE }] });
    expect(out.saved.skipped[0].reason).toStartWith("another browser took");
    expect((await store.get(W))?.site_data).toEqual({});
  });

  test("a save whose write is retried after another browser took the workspace keeps nothing", async () => {
    await call(navigate, { url: `${APP}/x` });
    signIn();
    // A Redis-style retry: the first run of the write sees this browser, the run that counts sees another.
    const inner = store;
    const retrying = Object.create(inner) as RecordStore;
    let armed = true;
    retrying.update = async (key, fn) => {
      if (armed) {
        armed = false;
        fn(await inner.get(key));
        await inner.update(key, (r) => (r ? { ...r, session_id: "newer" } : r));
      }
      return inner.update(key, fn);
    };
    manager = testServices({
      store: retrying,
      grid: fake.grid,
      now: () => NOW,
      hooks: siteDataHooks(() => NOW),
    }).workspaces;
    const out = await call(saveSiteData);
    expect(out.saved).toEqual({ cookies: 0, sites: [], skipped: [{ reason: REPLACED_BEFORE_SAVE }] });
    expect((await inner.get(W))?.site_data).toEqual({});
  });

  test("a save over a jar that alone passes the cap is a 400, and the last save stands", async () => {
    await savedWorld();
    fake
      .last()
      .bidi.jar.push(
        bidiCookie("big", "app.example.com", { value: { type: "string", value: "x".repeat(1_000_001) } }),
      );
    const err = await call(saveSiteData).catch((e: unknown) => e);
    expect((err as AppError).status).toBe(400);
    expect(Object.keys((await store.get(W))?.site_data.origins ?? {})).toEqual([APP, SSO]);
  });

  test("a store that fails the write fails the call, and nothing of the capture is in the error", async () => {
    await call(navigate, { url: `${APP}/x` });
    signIn();
    store.update = async () => {
      throw new Error("the store is down");
    };
    const err = await call(saveSiteData).catch((e: unknown) => e);
    expect((err as Error).message).toBe("the store is down");
    expect(JSON.stringify(err)).not.toContain("SID");
  });

  test("describe summarises what is saved", async () => {
    await savedWorld();
    expect((await manager.describe(W)).site_data).toEqual({ sites: 2, uri: "workspace://site-data" });
  });
});

describe("restore through the manager", () => {
  test("an open restores everything before its first page, and says so", async () => {
    await savedWorld();
    await call(endBrowser);
    const out = await call(openSession);
    const b = fake.last();
    expect(out.site_data).toEqual({
      restored: ["app.example.com", "sso.example.com"],
      skipped: [],
      uri: "workspace://site-data",
    });
    // Cookies, then each origin's storage from one page in the main tab (moved by the page itself,
    // so its history keeps none of them; no tab opened), the same-site one in a frame of it, back to
    // about:blank, then the first page. The sessionStorage went in on the way, at the site's spare page.
    const order = b.bidi.log
      .filter((l) => /^(setCookie|navigate|visit|replace|create)/.test(l))
      .map((l) => l.replace(/__selenium-flow-spare__(\?.*)?$/, "…$1").replace(/ interactive$/, ""));
    expect(order).toEqual([
      "setCookie sid lax",
      "setCookie kc lax",
      `replace main ${APP}/…?f=${encodeURIComponent(SSO)}`,
      `visit main ${APP}`,
      `visit main.f1 ${SSO}`,
      "replace main about:blank",
      `navigate main ${APP}/x`,
    ]);
    expect(b.bidi.log.filter((l) => l.startsWith("navigate main"))).toEqual([
      `navigate main ${APP}/x interactive`,
    ]);
    expect(fake.log.slice(-1)).toEqual([`get ${b.id} ${APP}/x`]);
    expect(b.bidi.localOf(APP).items()).toEqual({ theme: "dark" });
    expect(b.bidi.localOf(SSO).items()).toEqual({ kc: "1" });
    expect(b.bidi.sessionOf("main", APP).items()).toEqual({ token: "T" });
    expect(b.bidi.jar.map((c) => [c.name, c.httpOnly, c.value.value])).toEqual([
      ["sid", true, "SID"],
      ["kc", false, "v-kc"],
    ]);
  });

  test("restore_site_data=false opens empty, deletes the snapshot, keeps the history", async () => {
    await savedWorld();
    const out = await call(openSession, { restore_site_data: "false" });
    expect(out.site_data).toEqual({ forgotten: 2 });
    expect(fake.last().bidi.jar).toEqual([]);
    const record = await store.get(W);
    expect(record?.site_data).toEqual({});
    expect(record?.history.map((v) => v.origin)).toEqual([APP, SSO]);
  });

  test("a failed open erases nothing", async () => {
    await savedWorld();
    fake.openError = new AppError("unavailable", "the grid is full");
    const err = await call(openSession, { restore_site_data: false }).catch((e: unknown) => e);
    expect((err as AppError).message).toBe("the grid is full");
    expect(Object.keys((await store.get(W))?.site_data.origins ?? {})).toEqual([APP, SSO]);
  });

  test("an insecure browser gets nothing back, and what was saved stays", async () => {
    await savedWorld();
    const out = await call(openSession, { insecure: true });
    expect(out.site_data).toEqual({
      restored: [],
      skipped: [{ reason: "an insecure browser gets no saved site data" }],
      uri: "workspace://site-data",
    });
    // No cookie, no spare tab, no storage: only the first page's own navigation.
    expect(fake.last().bidi.log.filter((l) => /^(setCookie|create|evaluate|intercept)/.test(l))).toEqual([]);
    expect(Object.keys((await store.get(W))?.site_data.origins ?? {})).toEqual([APP, SSO]);
  });

  test("nothing saved means no site_data key", async () => {
    await call(navigate, { url: `${APP}/x` });
    const out = await call(openSession);
    expect("site_data" in out).toBe(false);
  });

  test("a restore with nothing to say (only expired cookies) carries no hint", async () => {
    await store.set(W, {
      ...emptyRecord(),
      site_data: {
        cookies: [
          {
            name: "old",
            value: "v",
            value_type: "string",
            domain: "app.example.com",
            path: "/",
            http_only: false,
            secure: true,
            same_site: "lax",
            expiry: NOW - 1,
          },
        ],
      },
    });
    const out = await call(openSession);
    expect("site_data" in out).toBe(false);
    expect(fake.last().bidi.log.filter((l) => l.startsWith("setCookie"))).toEqual([]);
  });

  test("the call that reopens a reaped browser says what came back, once", async () => {
    await savedWorld();
    fake.reap(fake.last().id);
    const first = await call(navigate, { url: `${APP}/z` });
    expect(first.site_data).toEqual({
      restored: ["app.example.com", "sso.example.com"],
      skipped: [],
      uri: "workspace://site-data",
    });
    expect(fake.last().bidi.jar.map((c) => c.name)).toEqual(["sid", "kc"]);
    const second = await call(navigate, { url: `${APP}/w` });
    expect("site_data" in second).toBe(false);
    expect((await store.get(W))?.reopened).toEqual({});
  });

  test("a reopen report waits for a call that finishes", async () => {
    await savedWorld();
    fake.reap(fake.last().id);
    fake.onScript = (_id, script) => {
      if (!readsStorage(script)) return;
      fake.onScript = null;
      throw new Error("the page broke");
    };
    const failed = await call(saveSiteData).catch((e: unknown) => e);
    expect((failed as Error).message).toBe("the page broke");
    const next = await call(navigate, { url: `${APP}/z` });
    expect(next.site_data?.restored).toEqual(["app.example.com", "sso.example.com"]);
  });

  test("an explicit open drops a report nobody collected and returns its own", async () => {
    await savedWorld();
    fake.reap(fake.last().id);
    fake.onScript = (_id, script) => {
      if (!readsStorage(script)) return;
      fake.onScript = null;
      throw new Error("the page broke");
    };
    expect(await call(saveSiteData).catch((e: unknown) => (e as Error).message)).toBe("the page broke");
    const opened = await call(openSession, { insecure: true });
    expect(opened.site_data?.skipped).toEqual([{ reason: "an insecure browser gets no saved site data" }]);
    const after = await call(navigate, { url: `${APP}/w` });
    expect("site_data" in after).toBe(false);
  });

  test("a restore that cannot reach BiDi never fails the open", async () => {
    await savedWorld();
    await call(endBrowser);
    // The channel refuses the restore; by the first page it answers again.
    const realBidi = fake.bidi.bind(fake);
    fake.bidi = async () => {
      fake.bidi = realBidi;
      throw new AppError("unavailable", "the browser's BiDi channel could not be opened: refused");
    };
    const out = await call(openSession);
    expect(out.url).toBe(`${APP}/x`);
    expect(out.site_data).toEqual({
      restored: [],
      skipped: [{ reason: "the browser's BiDi channel could not be opened: refused" }],
      uri: "workspace://site-data",
    });
  });
});
