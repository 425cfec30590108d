// The workspace record stays consistent when something else writes it mid-call, through the manager
// on a fake Grid: a stale browser's result or touch moves nothing, a reopen report reaches only the
// browser it came back in, an end keeps a save that landed while it quit, an open with nothing to
// restore touches no BiDi, and neither a clean open nor a lost bind race erases the winner's data.
import { beforeEach, describe, expect, test } from "bun:test";
import type { AnyAction } from "../../../src/actions/action.ts";
import { validate } from "../../../src/actions/validate.ts";
import { endBrowser, openSession } from "../../../src/browser/session.ts";
import { LeaseLost } from "../../../src/errors.ts";
import type { OpenOptions } from "../../../src/grid/webdriver-caps.ts";
import { saveSiteData } from "../../../src/site-data/actions.ts";
import { siteDataHooks } from "../../../src/site-data/hooks.ts";
import type { RecordStore } from "../../../src/store/index.ts";
import { openStore } from "../../../src/store/index.ts";
import {
  at,
  emptyRecord,
  recordUrl,
  reportFor,
  type SiteData,
  type SiteDataReport,
  type WorkspaceRecord,
} from "../../../src/store/record.ts";
import type { WorkspaceManager } from "../../../src/workspaces/manager.ts";
import { goAnd, goAction as navigate, testAction } from "../../support/actions.ts";
import { runCall } from "../../support/calls.ts";
import { bidiCookie } from "../../support/fake-bidi.ts";
import { FakeGrid } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";

const NOW = 1_790_800_000;
const APP = "https://app.example.com";
const SSO = "https://sso.example.com";
const NEWER = "https://newer.example.com";
const LATE = "https://late.example.com";
const W = "w";

const REPORT: SiteDataReport = {
  restored: ["app.example.com", "sso.example.com"],
  skipped: [],
  uri: "workspace://site-data",
};

let store: RecordStore;
let fake: FakeGrid;
let manager: WorkspaceManager;

function managerOn(s: RecordStore): WorkspaceManager {
  return testServices({ store: s, grid: fake.grid, now: () => NOW, hooks: siteDataHooks(() => NOW) })
    .workspaces;
}

beforeEach(async () => {
  store = await openStore({ ttl: 86_400 });
  fake = new FakeGrid();
  manager = managerOn(store);
});

function call(action: AnyAction, input: unknown = {}, workspace = W): Promise<Record<string, any>> {
  return runCall(manager, workspace, action, validate(action.input, input));
}

/** A page action that goes to `url`, runs `meanwhile` (another writer), then reports the page. */
const goThen = (meanwhile: () => Promise<unknown>) => goAnd("go_then", meanwhile);

/** Fails after its page loads, so the call never settles (a reopen report it caused waits). */
const goThenBreak = goAnd("go_then_break", async () => {
  throw new Error("the page broke");
});

/** Another browser took the workspace and landed on NEWER. */
const newerBrowserTakesOver = () =>
  store.update(W, (r) => (r ? { ...at(r, [`${NEWER}/home`], NOW, store.ttl), session_id: "newer" } : r));

/** Signs the current browser in and saves: a cookie for app and sso, storage on both origins. */
async function savedWorld() {
  await call(navigate, { url: `${SSO}/login` });
  await call(navigate, { url: `${APP}/x` });
  const b = fake.last();
  b.bidi.jar.push(bidiCookie("sid", "app.example.com", { httpOnly: true }));
  b.bidi.jar.push(bidiCookie("kc", "sso.example.com"));
  b.bidi.localOf(APP).setItem("theme", "dark");
  b.bidi.localOf(SSO).setItem("kc", "1");
  await call(saveSiteData);
  return (await store.get(W)) as WorkspaceRecord;
}

/** A save another server made: newer than anything this test's own save wrote. */
const lateSnapshot = (base: SiteData = {}): SiteData => ({
  ...base,
  origins: { ...(base.origins ?? {}), [LATE]: { local: { late: "1" } } },
  saved_at: NOW + 5,
});

describe("a result from a browser the record no longer names", () => {
  test("a result settled for a browser the record no longer names moves neither the page nor the history", async () => {
    await call(navigate, { url: `${APP}/x` });
    const before = (await store.get(W)) as WorkspaceRecord;
    let during: WorkspaceRecord | null = null;
    const out = await call(
      goThen(async () => {
        await newerBrowserTakesOver();
        during = await store.get(W);
      }),
      { url: `${SSO}/stale` },
    );
    expect(out.url).toBe(`${SSO}/stale`);
    const after = (await store.get(W)) as WorkspaceRecord;
    expect(during).not.toBeNull();
    expect(after).toEqual(during as unknown as WorkspaceRecord);
    expect(after.session_id).toBe("newer");
    expect(recordUrl(after)).toBe(`${NEWER}/home`);
    expect(after.history.map((v) => v.origin)).toEqual([NEWER, APP]);
    expect(before.history.map((v) => v.origin)).toEqual([APP]);
  });

  test("a touch from a browser the record no longer names records nothing and collects no report", async () => {
    await call(navigate, { url: `${APP}/x` });
    let told: SiteDataReport | null | undefined;
    // Touches after another browser took over.
    const touching = testAction("touch_late", async (ctx) => {
      await store.update(W, (r) =>
        r
          ? {
              ...at(r, [`${NEWER}/home`], NOW, store.ttl),
              session_id: "newer",
              reopened: { browser: "newer", report: REPORT },
            }
          : r,
      );
      told = (await ctx.steps().touch([`${SSO}/touched`])).report;
      return {};
    });
    await call(touching);
    expect(told).toBeNull();
    const after = (await store.get(W)) as WorkspaceRecord;
    expect(recordUrl(after)).toBe(`${NEWER}/home`);
    expect(after.history.map((v) => v.origin)).toEqual([NEWER, APP]);
    expect(after.reopened).toEqual({ browser: "newer", report: REPORT });
  });

  test("a result from the browser the record still names moves the page", async () => {
    await call(navigate, { url: `${APP}/x` });
    const held = fake.last().id;
    const out = await call(
      goThen(async () => undefined),
      { url: `${SSO}/next` },
    );
    expect(out.url).toBe(`${SSO}/next`);
    const after = (await store.get(W)) as WorkspaceRecord;
    expect(after.session_id).toBe(held);
    expect(recordUrl(after)).toBe(`${SSO}/next`);
    expect(after.history.map((v) => v.origin)).toEqual([SSO, APP]);
  });
});

describe("a reopen report", () => {
  test("a reopen report is never handed to a result from another browser; the next real call carries it", async () => {
    await savedWorld();
    const first = fake.last().id;
    // Another server: its call finds the browser reaped, reopens with a restore, then fails, so the
    // report waits on the record for the browser it reopened.
    const other = managerOn(store);
    // Outlives this call's browser, and its lease: only then can another call run.
    const stale = testAction("stale_result", async () => {
      fake.reap(first);
      await store.breakLease(W);
      const err = await runCall(other, W, goThenBreak, { url: `${APP}/y` }).catch(
        (e: unknown) => (e as Error).message,
      );
      expect(err).toBe("the page broke");
      // This call's browser is gone: it reports the page it last saw.
      return { url: `${SSO}/stale`, title: "" };
    });
    // Its result is refused (the lease is another's now), so it carries no report either.
    const out = await call(stale).catch((e: unknown) => e);
    expect(out).toBeInstanceOf(LeaseLost);
    const reopened = fake.last().id;
    expect(reopened).not.toBe(first);
    const waiting = (await store.get(W)) as WorkspaceRecord;
    expect(waiting.session_id).toBe(reopened);
    expect(waiting.reopened).toEqual({ browser: reopened, report: REPORT });
    expect(waiting.history.map((v) => v.origin)).toEqual([APP, SSO]);

    const next = await call(navigate, { url: `${APP}/z` });
    expect(next.site_data).toEqual(REPORT);
    const after = await call(navigate, { url: `${APP}/w` });
    expect("site_data" in after).toBe(false);
    expect((await store.get(W))?.reopened).toEqual({});
  });

  test("a report is collected only by the browser it came back in, while the record still names it", () => {
    const record = (session_id: string, browser: string): WorkspaceRecord => ({
      ...emptyRecord(),
      session_id,
      reopened: { browser, report: REPORT },
    });
    expect(reportFor(record("b2", "b2"), "b2")).toEqual(REPORT);
    // A result from the replaced browser.
    expect(reportFor(record("b2", "b2"), "b1")).toBeNull();
    // A report left for a browser the record no longer names.
    expect(reportFor(record("b2", "b1"), "b1")).toBeNull();
    // The record names this browser, but the report is another's.
    expect(reportFor(record("b1", "b2"), "b1")).toBeNull();
    expect(reportFor({ ...emptyRecord(), session_id: "b1" }, "b1")).toBeNull();
  });
});

describe("ending a browser", () => {
  test("ending a browser keeps a save that landed while it quit, and detaches the record", async () => {
    const saved = await savedWorld();
    const ended = fake.last().id;
    const realEnd = fake.end.bind(fake);
    fake.end = async (id: string) => {
      await store.update(W, (r) => (r ? { ...r, site_data: lateSnapshot(r.site_data) } : r));
      return realEnd(id);
    };
    const out = await call(endBrowser);
    expect(out).toEqual({ ended: true });
    expect(fake.log).toContain(`end ${ended}`);
    const after = (await store.get(W)) as WorkspaceRecord;
    expect(after.session_id).toBe("");
    expect(Object.keys(after.site_data.origins ?? {})).toEqual([APP, SSO, LATE]);
    expect(after.site_data.saved_at).toBe(NOW + 5);
    expect(after.site_data.cookies).toEqual(saved.site_data.cookies);
    expect(after.history).toEqual(saved.history);
  });

  test("ending a browser leaves alone a browser another server bound while it quit", async () => {
    await call(navigate, { url: `${APP}/x` });
    const ended = fake.last().id;
    let bound = "";
    const realEnd = fake.end.bind(fake);
    fake.end = async (id: string) => {
      bound = (await fake.open({} as OpenOptions)).id;
      await store.update(W, (r) => (r ? { ...r, session_id: bound } : r));
      return realEnd(id);
    };
    expect(await call(endBrowser)).toEqual({ ended: true });
    expect(bound).not.toBe(ended);
    expect((await store.get(W))?.session_id).toBe(bound);
    expect(await fake.alive(bound)).toBe(true);
  });
});

describe("an open with nothing saved", () => {
  const EMPTY: SiteData = { cookies: [], origins: {}, session: {} };

  test("an open with no record, with site data {}, or with an empty snapshot says nothing and restores nothing", async () => {
    const cases: Array<[string, SiteData | null]> = [
      ["no-record", null],
      ["nothing", {}],
      ["empty-snapshot", EMPTY],
    ];
    for (const [workspace, siteData] of cases) {
      if (siteData) {
        await store.set(workspace, {
          ...at(emptyRecord(), [`${APP}/x`], NOW, store.ttl),
          site_data: siteData,
        });
      }
      const from = fake.log.length;
      const out = await call(openSession, {}, workspace);
      const b = fake.last();
      expect("site_data" in out).toBe(false);
      expect(fake.log.slice(from)).toEqual(
        siteData ? [`open ${b.id}`, `bidi ${b.id}`, `get ${b.id} ${APP}/x`] : [`open ${b.id}`],
      );
      expect(restoreWork(b.bidi.log)).toEqual([]);
    }
  });

  test("a silent reopen with an empty snapshot says nothing and restores nothing", async () => {
    await store.set(W, {
      ...at(emptyRecord(), [`${APP}/x`], NOW, store.ttl),
      session_id: "reaped",
      site_data: EMPTY,
    });
    const out = await call(navigate, { url: `${APP}/y` });
    const b = fake.last();
    expect(out.url).toBe(`${APP}/y`);
    expect("site_data" in out).toBe(false);
    expect(fake.log).toEqual([
      `open ${b.id}`,
      `bidi ${b.id}`,
      `get ${b.id} ${APP}/x`,
      `get ${b.id} ${APP}/y`,
    ]);
    expect(restoreWork(b.bidi.log)).toEqual([]);
    expect((await store.get(W))?.reopened).toEqual({});
  });
});

/** What a restore does over BiDi (cookies, spare tabs, storage); a first page's navigation is not it. */
const restoreWork = (log: string[]) => log.filter((l) => /^(setCookie|create|evaluate|intercept)/.test(l));

describe("opens that race another writer", () => {
  test("a clean open erases nothing that was saved after it looked", async () => {
    await savedWorld();
    const realOpen = fake.open.bind(fake);
    fake.open = async (options: OpenOptions) => {
      fake.open = realOpen;
      // Another server saves while this open is under way.
      await store.update(W, (r) => (r ? { ...r, site_data: lateSnapshot() } : r));
      return realOpen(options);
    };
    const out = await call(openSession, { restore_site_data: false });
    expect("site_data" in out).toBe(false);
    const after = (await store.get(W)) as WorkspaceRecord;
    expect(after.session_id).toBe(fake.last().id);
    expect(after.site_data).toEqual(lateSnapshot());
    expect(restoreWork(fake.last().bidi.log)).toEqual([]);
  });

  test("a clean open erases nothing that was saved after it looked, even within the same second", async () => {
    await savedWorld();
    const seen = ((await store.get(W)) as WorkspaceRecord).site_data;
    const realOpen = fake.open.bind(fake);
    fake.open = async (options: OpenOptions) => {
      fake.open = realOpen;
      // Another save lands in the very second of the one this open saw.
      await store.update(W, (r) =>
        r ? { ...r, site_data: { ...lateSnapshot(), saved_at: seen.saved_at } } : r,
      );
      return realOpen(options);
    };
    await call(openSession, { restore_site_data: false });
    const after = (await store.get(W)) as WorkspaceRecord;
    expect(after.site_data).toEqual({ ...lateSnapshot(), saved_at: seen.saved_at });
  });

  test("a clean open still forgets what a Forget left of the snapshot it saw", async () => {
    await savedWorld();
    const realOpen = fake.open.bind(fake);
    fake.open = async (options: OpenOptions) => {
      fake.open = realOpen;
      // An admin forgets sso while this open is under way: less of the same save is left.
      await store.update(W, (r) =>
        r
          ? {
              ...r,
              site_data: {
                ...r.site_data,
                cookies: (r.site_data.cookies ?? []).filter((c) => c.domain !== "sso.example.com"),
                origins: { [APP]: r.site_data.origins?.[APP] ?? { local: {} } },
              },
            }
          : r,
      );
      return realOpen(options);
    };
    const out = await call(openSession, { restore_site_data: false });
    expect(out.site_data).toEqual({ forgotten: 1 });
    expect(((await store.get(W)) as WorkspaceRecord).site_data).toEqual({});
  });

  test("a reopen that loses the bind race ends its own browser and leaves the winner's browser and snapshot alone", async () => {
    await savedWorld();
    const reaped = fake.last().id;
    fake.reap(reaped);
    let ours = "";
    let winner = "";
    const realOpen = fake.open.bind(fake);
    fake.open = async (options: OpenOptions) => {
      fake.open = realOpen;
      const opened = await realOpen(options);
      ours = opened.id;
      // Another server reopens first, binds its browser and saves there.
      winner = (await realOpen(options)).id;
      await store.update(W, (r) =>
        r ? { ...r, session_id: winner, site_data: lateSnapshot(), reopened: {} } : r,
      );
      return opened;
    };
    const out = await call(navigate, { url: `${APP}/z` });
    expect(ours).not.toBe("");
    expect(winner).not.toBe(ours);
    // Our restore went into our browser, which lost: its report is not handed over.
    expect(fake.browsers.get(ours)?.bidi.log.some((l) => l.startsWith("setCookie"))).toBe(true);
    expect("site_data" in out).toBe(false);
    expect(out.url).toBe(`${APP}/z`);
    expect(fake.log).toContain(`end ${ours}`);
    expect(fake.log).toContain(`get ${winner} ${APP}/z`);
    expect(fake.log).not.toContain(`end ${winner}`);
    expect(await fake.alive(ours)).toBe(false);
    expect(await fake.alive(winner)).toBe(true);
    const after = (await store.get(W)) as WorkspaceRecord;
    expect(after.session_id).toBe(winner);
    expect(after.site_data).toEqual(lateSnapshot());
    expect(after.reopened).toEqual({});
    expect(recordUrl(after)).toBe(`${APP}/z`);
  });
});

describe("sockets", () => {
  test("one held socket per live browser: a reaped one's is closed, the new one's held, an ended one's closed", async () => {
    await call(navigate, { url: `${APP}/x` });
    await call(navigate, { url: `${APP}/x2` });
    expect(fake.openSockets).toBe(1);
    let attempts = 0;
    const withSocket = goAnd("go_with_socket", async (ctx) => {
      await ctx.browser.bidi();
      attempts++;
      // The Grid reaps the browser after this socket opened: the call goes on in a new one.
      if (attempts === 1) {
        fake.reap(ctx.browser.id);
        await (await ctx.browser.page()).goto(`${APP}/y`);
      }
    });
    const out = await call(withSocket, { url: `${APP}/y` });
    expect(out.url).toBe(`${APP}/y`);
    expect(attempts).toBe(2);
    expect(fake.openSockets).toBe(1);
    await call(endBrowser);
    expect(fake.openSockets).toBe(0);
  });
});
