// A save is a snapshot: it replaces the last whole, keeps what it could not read, and stays under
// the 1,000,000-byte cap by leaving out the origins visited longest ago first.
import { describe, expect, test } from "bun:test";
import { AppError } from "../../../src/errors.ts";
import { readPage } from "../../../src/in-page/storage.ts";
import { READ_LOCAL, sessionPreload, WRITE_LOCAL } from "../../../src/site-data/scripts.ts";
import {
  type Captured,
  JAR_OVER,
  LEFT_OUT,
  MAX_BYTES,
  restorable,
  sizeOf,
  snapshot,
} from "../../../src/site-data/snapshot.ts";
import { SW_REASON } from "../../../src/site-data/spare-page.ts";
import {
  at,
  detached,
  emptyRecord,
  fromJson,
  type SiteData,
  toJson,
  type Visit,
  withSiteData,
} from "../../../src/store/record.ts";
import { cookie } from "../../support/cookies.ts";
import { callOn, FakeStorage } from "../../support/fake-bidi.ts";

const NOW = 1_790_800_000;
const APP = "https://app.example.com";
const SSO = "https://sso.example.com";
const OLD = "https://old.example.com";

const visit = (origin: string, when = NOW): Visit => ({ origin, url: `${origin}/`, at: when });

function captured(over: Partial<Captured> = {}): Captured {
  return {
    cookies: [cookie("sid", "app.example.com")],
    origin: APP,
    local: {},
    session: {},
    others: {},
    failed: [],
    ...over,
  };
}

describe("snapshot", () => {
  test("a save replaces the whole snapshot", () => {
    const before: SiteData = {
      cookies: [cookie("old", "old.example.com")],
      origins: { [OLD]: { local: { x: "1" } } },
      session: { origin: OLD, items: { s: "1" } },
      saved_at: NOW - 60,
    };
    const { data, receipt } = snapshot(before, captured({ local: { theme: "dark" } }), [visit(APP)], NOW);
    expect(data).toEqual({
      cookies: [cookie("sid", "app.example.com")],
      origins: { [APP]: { local: { theme: "dark" } } },
      session: { origin: APP, items: {} },
      saved_at: NOW,
    });
    expect(receipt).toEqual({ cookies: 1, sites: [APP], skipped: [] });
  });

  test("every origin read is kept newest first, and an empty one is left out", () => {
    const history = [visit(APP, NOW), visit(SSO, NOW - 10), visit(OLD, NOW - 20)];
    const others = { [OLD]: { o: "1" }, [SSO]: { kc: "1" }, "https://empty.example.com": {} };
    const { data, receipt } = snapshot({}, captured({ local: { a: "1" }, others }), history, NOW);
    expect(Object.keys(data.origins ?? {})).toEqual([APP, SSO, OLD]);
    expect(receipt.sites).toEqual([APP, SSO, OLD]);
  });

  test("the page's sessionStorage is kept for its origin, and alone counts as a site saved", () => {
    const { data, receipt } = snapshot({}, captured({ session: { token: "t" } }), [visit(APP)], NOW);
    expect(data.session).toEqual({ origin: APP, items: { token: "t" } });
    expect(data.origins).toEqual({});
    expect(receipt.sites).toEqual([APP]);
  });

  test("a page with no origin saves its cookies and the others", () => {
    const { data, receipt } = snapshot(
      {},
      captured({ origin: "", others: { [SSO]: { kc: "1" } } }),
      [visit(SSO)],
      NOW,
    );
    expect(data.session).toEqual({});
    expect(Object.keys(data.origins ?? {})).toEqual([SSO]);
    expect(receipt).toEqual({ cookies: 1, sites: [SSO], skipped: [] });
  });

  test("a page with no storage keeps the cookies", () => {
    const { data, receipt } = snapshot({}, captured({ origin: "" }), [], NOW);
    expect(receipt).toEqual({ cookies: 1, sites: [], skipped: [] });
    expect(data.origins).toEqual({});
    expect(data.session).toEqual({});
  });

  test("an origin that could not be read keeps its last storage", () => {
    const before: SiteData = { origins: { [SSO]: { local: { kc: "old" } } }, saved_at: NOW - 60 };
    const failed = [
      { site: SSO, reason: SW_REASON },
      { site: OLD, reason: "the navigation failed" },
    ];
    const history = [visit(APP), visit(SSO), visit(OLD)];
    const { data, receipt } = snapshot(before, captured({ local: { a: "1" }, failed }), history, NOW);
    expect(data.origins).toEqual({ [APP]: { local: { a: "1" } }, [SSO]: { local: { kc: "old" } } });
    expect(receipt.sites).toEqual([APP]);
    expect(receipt.skipped).toEqual(failed);
  });

  test("a history origin the save never tried (it landed meanwhile) keeps its last storage", () => {
    const before: SiteData = { origins: { [SSO]: { local: { kc: "old" } }, [OLD]: { local: { o: "old" } } } };
    // SSO entered the history after the save read it; OLD went out of the history: it is dropped.
    const { data, receipt } = snapshot(
      before,
      captured({ local: { a: "1" } }),
      [visit(SSO), visit(APP)],
      NOW,
    );
    expect(data.origins).toEqual({ [APP]: { local: { a: "1" } }, [SSO]: { local: { kc: "old" } } });
    expect(receipt.sites).toEqual([APP]);
  });

  test("over the cap the origins visited longest ago go first", () => {
    const third = { blob: "x".repeat(Math.floor(MAX_BYTES / 3)) };
    const history = [visit(APP, NOW), visit(SSO, NOW - 10), visit(OLD, NOW - 20)];
    const { data, receipt } = snapshot(
      {},
      captured({ local: third, others: { [SSO]: third, [OLD]: third } }),
      history,
      NOW,
    );
    expect(sizeOf(data)).toBeLessThanOrEqual(MAX_BYTES);
    expect(Object.keys(data.origins ?? {})).toEqual([APP, SSO]);
    expect(receipt.skipped).toEqual([{ site: OLD, reason: LEFT_OUT }]);
    expect(LEFT_OUT).toBe("left out: the snapshot would pass 1000000 bytes");
  });

  test("the page's own storage is the last to go, its sessionStorage after it", () => {
    const big = { blob: "x".repeat(MAX_BYTES - 1000) };
    const history = [visit(APP), visit(SSO, NOW - 10)];
    const { data, receipt } = snapshot(
      {},
      captured({ local: big, session: big, others: { [SSO]: { kc: "1" } } }),
      history,
      NOW,
    );
    expect(data.origins).toEqual({});
    expect(data.session?.items).toEqual(big);
    expect(receipt.skipped.map((s) => s.site)).toEqual([SSO, APP]);
    expect(receipt.sites).toEqual([APP]);
    expect(sizeOf(data)).toBeLessThanOrEqual(MAX_BYTES);
  });

  test("the size is UTF-8 bytes of the compact JSON: one byte under the cap fits, one over does not", () => {
    const fit = (extra: number) => {
      const local = { k: "é".repeat(1) + "x".repeat(extra) };
      return snapshot({}, captured({ cookies: [], local }), [visit(APP)], NOW);
    };
    // Find the largest value that fits, then check the boundary exactly.
    const base = sizeOf({
      cookies: [],
      origins: { [APP]: { local: { k: "é" } } },
      session: { origin: APP, items: {} },
      saved_at: NOW,
    });
    const room = MAX_BYTES - base;
    expect(sizeOf(fit(room).data)).toBe(MAX_BYTES);
    expect(fit(room).receipt.skipped).toEqual([]);
    expect(fit(room + 1).receipt.skipped).toEqual([{ site: APP, reason: LEFT_OUT }]);
  });

  test("a sessionStorage over the cap goes after every origin", () => {
    const big = { blob: "x".repeat(MAX_BYTES) };
    const { data, receipt } = snapshot({}, captured({ local: { a: "1" }, session: big }), [visit(APP)], NOW);
    expect(data.session).toEqual({});
    expect(data.origins).toEqual({});
    expect(receipt.skipped).toEqual([
      { site: APP, reason: LEFT_OUT },
      { site: APP, reason: LEFT_OUT },
    ]);
    expect(receipt.sites).toEqual([]);
  });

  test("a cookie jar over the cap is a 400 and saves nothing", () => {
    const big = [cookie("blob", "app.example.com", { value: "x".repeat(MAX_BYTES + 1) })];
    let err: unknown = null;
    try {
      snapshot({}, captured({ cookies: big }), [visit(APP)], NOW);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    expect((err as AppError).message).toBe("the cookie jar is over 1000000 bytes; nothing was saved");
    expect(JAR_OVER).toBe((err as AppError).message);
  });

  test("the record round-trips its snapshot; ending a browser and a landing keep it", () => {
    const { data } = snapshot({}, captured({ local: { a: "1" }, session: { t: "1" } }), [visit(APP)], NOW);
    const record = withSiteData(at({ ...emptyRecord(), session_id: "s" }, [`${APP}/x`], NOW), data);
    const again = fromJson(toJson(record));
    expect(again.site_data).toEqual(data);
    expect(detached(again).site_data).toEqual(data);
    expect(at(again, ["https://x.example.com/"], NOW).site_data).toEqual(data);
  });

  test("restorable: cookies, any origin, or session items", () => {
    expect(restorable({})).toBe(false);
    expect(restorable(null)).toBe(false);
    expect(restorable({ session: { origin: APP, items: {} } })).toBe(false);
    expect(restorable({ cookies: [cookie("a", "a.example.com")] })).toBe(true);
    expect(restorable({ origins: { [APP]: { local: { a: "1" } } } })).toBe(true);
    expect(restorable({ session: { origin: APP, items: { t: "1" } } })).toBe(true);
  });
});

describe("the storage scripts", () => {
  test("write and read for real, values with quotes and </script> surviving", async () => {
    const local = new FakeStorage();
    const session = new FakeStorage();
    const page = { origin: APP, marked: true, local, session };
    const items = { a: `a'b"c</script>`, "k with space": "\u2028line" };
    expect(await callOn(WRITE_LOCAL, [JSON.stringify({ local: items })], page)).toBe(2);
    expect(await callOn(READ_LOCAL, [], page)).toEqual({ local: items, idb: { dbs: [], skipped: [] } });
    callOn(sessionPreload(APP, { t: `x'"</script>\u2028` }), [], page);
    expect(session.items()).toEqual({ t: `x'"</script>\u2028` });
  });

  test("the sessionStorage preload fills only the top document of its origin, and only an empty storage", () => {
    const fresh = (origin: string, top = true, items: Record<string, string> = {}) => ({
      origin,
      marked: false,
      top,
      local: new FakeStorage(),
      session: new FakeStorage(items),
    });
    const script = sessionPreload(APP, { t: "1" });
    for (const [page, want] of [
      [fresh(APP), { t: "1" }],
      [fresh(SSO), {}],
      [fresh(APP, false), {}],
      [fresh(APP, true, { mine: "x" }), { mine: "x" }],
    ] as const) {
      callOn(script, [], page);
      expect(page.session.items()).toEqual(want);
    }
  });

  test("the page read gives both storages, the title of the document it runs in and the browser's cores; a storage it may not read is empty", async () => {
    const run = async (local: unknown, session: unknown) =>
      JSON.parse(
        (await callOn(readPage.toString(), [], {
          origin: APP,
          marked: false,
          title: "Home",
          local: local as FakeStorage,
          session: session as FakeStorage,
        })) as string,
      );
    expect(await run(new FakeStorage({ a: "1" }), new FakeStorage({ t: "2" }))).toEqual({
      local: { a: "1" },
      session: { t: "2" },
      title: "Home",
      cores: navigator.hardwareConcurrency,
    });
    const throwing = {
      get length(): number {
        throw new Error("denied");
      },
    };
    expect(await run(throwing, new FakeStorage({ t: "2" }))).toEqual({
      local: {},
      session: { t: "2" },
      title: "Home",
      cores: navigator.hardwareConcurrency,
    });
  });
});
