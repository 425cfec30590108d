// The spare-tab pool over a fake BiDi socket: one tab in turn within a budget, tabs side by side,
// results in the order asked whatever the order they finished, each tab sent on to its next origin
// by its visit's own script.
import { describe, expect, test } from "bun:test";
import { SPARE_PATH } from "../../../src/grid/net-rules.ts";
import { FRAME_WAIT_MS, FRAMES_PER_PAGE, framesIn, SW_REASON } from "../../../src/site-data/spare-page.ts";
import {
  OUT_OF_TIME,
  type SpareJob,
  type SpareOutcome,
  SparePool,
  siteGuess,
} from "../../../src/site-data/spare-pool.ts";
import { FakeBidi } from "../../support/fake-bidi.ts";
import { expectTornDown, spareLoop } from "../../support/spare-tab.ts";

const APP = "https://app.example.test";
const SSO = "https://sso.example.test";

describe("the spare-tab loop", () => {
  test("one origin failing does not stop the rest; a worker's origin says why", async () => {
    const bidi = new FakeBidi({ workers: [SSO] });
    bidi.localOf(APP).setItem("a", "1");
    bidi.localOf("https://old.example.test").setItem("o", "1");
    const out = await spareLoop(bidi.socket, [
      { origin: APP, fn: "() => localStorage.getItem('a')" },
      { origin: SSO, fn: "() => 1" },
      { origin: "https://old.example.test", fn: "() => localStorage.getItem('o')" },
    ]);
    expect(out).toEqual([
      { origin: APP, ok: true, value: "1" },
      { origin: SSO, ok: false, reason: SW_REASON },
      { origin: "https://old.example.test", ok: true, value: "1" },
    ]);
    expect(bidi.log.filter((l) => l.startsWith("create"))).toHaveLength(1);
  });

  test("each visit's own script sends the tab on to the next origin once its function answered: one navigation for three", async () => {
    const bidi = new FakeBidi();
    for (const o of [APP, SSO, "https://old.example.test"]) bidi.localOf(o).setItem("k", o);
    const out = await spareLoop(
      bidi.socket,
      [APP, SSO, "https://old.example.test"].map((origin) => ({
        origin,
        fn: "() => localStorage.getItem('k')",
      })),
    );
    expect(out.map((o) => (o.ok ? o.value : o.reason))).toEqual([APP, SSO, "https://old.example.test"]);
    expect(bidi.log.filter((l) => /^(navigate|replace|visit) /.test(l))).toEqual([
      `navigate spare-1 ${APP}${SPARE_PATH} interactive`,
      `visit spare-1 ${APP}`,
      `replace spare-1 ${SSO}${SPARE_PATH}`,
      `visit spare-1 ${SSO}`,
      `replace spare-1 https://old.example.test${SPARE_PATH}`,
      `visit spare-1 https://old.example.test`,
    ]);
    expectTornDown(bidi);
  });

  test("the page a visit sent the tab to is not answered before that visit's answer is back (the channel still needs its document)", async () => {
    const bidi = new FakeBidi({ visitReplyMs: 30 });
    const out = await spareLoop(
      bidi.socket,
      [APP, SSO].map((origin) => ({ origin, fn: "() => 1" })),
    );
    expect(out.every((o) => o.ok)).toBe(true);
    const moves = bidi.log.filter((l) => /^(replace|replied|respond) /.test(l));
    // The first page's answer, then: the move, the first visit's answer back, only then the next page's.
    expect(moves.map((l) => l.split(" ")[0])).toEqual([
      "respond",
      "replace",
      "replied",
      "respond",
      "replied",
    ]);
  });

  test("a site the browser upgrades to https is said so at once, whether the tab navigated or was sent there; the rest go on", async () => {
    const HSTS = "http://secure.example.test";
    for (const [first, second] of [
      [HSTS, APP],
      [APP, HSTS],
    ]) {
      const bidi = new FakeBidi({ upgrade: [HSTS] });
      const started = performance.now();
      const out = await spareLoop(
        bidi.socket,
        [first, second].map((origin) => ({ origin: origin as string, fn: "() => 1" })),
      );
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(out.find((o) => o.origin === HSTS)).toEqual({
        origin: HSTS,
        ok: false,
        reason: `the spare tab is on https://secure.example.test, not ${HSTS}`,
      });
      expect(out.find((o) => o.origin === APP)?.ok).toBe(true);
      expectTornDown(bidi);
    }
  });

  test("a page that was not ours sends the tab nowhere: the origin after it gets a navigation of its own", async () => {
    const bidi = new FakeBidi({ workers: [SSO] });
    const out = await spareLoop(
      bidi.socket,
      [APP, SSO, "https://old.example.test"].map((origin) => ({ origin, fn: "() => 1" })),
    );
    expect(out.map((o) => o.ok)).toEqual([true, false, true]);
    expect(bidi.log.filter((l) => /^(navigate|replace) /.test(l))).toEqual([
      `navigate spare-1 ${APP}${SPARE_PATH} interactive`,
      `replace spare-1 ${SSO}${SPARE_PATH}`,
      `navigate spare-1 https://old.example.test${SPARE_PATH} interactive`,
    ]);
    expectTornDown(bidi);
  });

  test("a tab that cannot open fails every origin with its reason", async () => {
    const bidi = new FakeBidi({
      fail: (m) => (m === "network.addIntercept" ? new Error("socket is already closed") : undefined),
    });
    const out = await spareLoop(bidi.socket, [
      { origin: APP, fn: "() => 1" },
      { origin: SSO, fn: "() => 1" },
    ]);
    expect(out).toEqual([
      { origin: APP, ok: false, reason: "socket is already closed" },
      { origin: SSO, ok: false, reason: "socket is already closed" },
    ]);
    expectTornDown(bidi);
  });

  test("the loop stops at its budget; every origin not reached says so", async () => {
    const bidi = new FakeBidi({ navigateMs: 40 });
    const started = performance.now();
    const out = await spareLoop(
      bidi.socket,
      ["https://a.example.test", "https://b.example.test", "https://c.example.test"].map((origin) => ({
        origin,
        fn: "() => 1",
      })),
      { budgetMs: 60 },
    );
    expect(performance.now() - started).toBeLessThan(200);
    expect(out[0]).toEqual({ origin: "https://a.example.test", ok: true, value: 1 });
    expect(out.slice(1)).toEqual([
      { origin: "https://b.example.test", ok: false, reason: OUT_OF_TIME },
      { origin: "https://c.example.test", ok: false, reason: OUT_OF_TIME },
    ]);
    // The second page was on its way (sent there by the first visit's script) when the budget ran out.
    expect(bidi.log.filter((l) => /^(navigate|replace) /.test(l))).toHaveLength(2);
    expectTornDown(bidi);
    expect(OUT_OF_TIME).toBe("not reached: the spare tab ran out of time");
  });
});

describe("the spare-tab pool", () => {
  const origins = Array.from({ length: 12 }, (_, i) => `https://s${i}.example.test`);
  const reads = origins.map((origin) => ({ origin, fn: "() => localStorage.getItem('k')" }));
  function world(opts: ConstructorParameters<typeof FakeBidi>[0] = {}) {
    const bidi = new FakeBidi(opts);
    for (const [i, o] of origins.entries()) bidi.localOf(o).setItem("k", `v${i}`);
    return bidi;
  }
  const sequential: SpareOutcome[] = origins.map((origin, i) => ({ origin, ok: true, value: `v${i}` }));
  /** Every tab the pool made is gone, and each lost its intercept before its handler. */
  function allTornDown(bidi: FakeBidi): void {
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
    expect(bidi.handlers).toBe(0);
    expect(bidi.openIntercepts).toBe(0);
    expect(bidi.handlerGoneFirst).toEqual([]);
  }

  test("12 origins in 3 tabs side by side (a tab per 4 visits): the same outcomes, in the order asked, as one tab in turn", async () => {
    // The later origins answer faster, so they finish first.
    const slow = (url: string) => 5 + (12 - Number(/s(\d+)\./.exec(url)?.[1] ?? 0)) * 3;
    const one = world({ navigateMs: slow });
    const inTurn = await spareLoop(one.socket, reads, { tabs: 1 });
    const four = world({ navigateMs: slow });
    const finished: string[] = [];
    const realSend = four.send.bind(four);
    four.send = async (method, params) => {
      const out = await realSend(method, params);
      if (method === "script.callFunction") finished.push(String(params.arguments?.[0]?.value));
      return out;
    };
    const sideBySide = await spareLoop(four.socket, reads, { tabs: 4 });
    expect(inTurn).toEqual(sequential);
    expect(sideBySide).toEqual(inTurn);
    expect(finished).not.toEqual(origins);
    expect(four.log.filter((l) => l.startsWith("create"))).toHaveLength(3);
    expect(four.mostNavigating).toBe(3);
    expect(one.mostNavigating).toBe(1);
    allTornDown(four);
  });

  test("a tab for every 4 visits, never more than its size", async () => {
    const pool = new SparePool(world().socket, 4);
    expect([0, 1, 4, 5, 8, 9, 16, 17, 100].map((n) => pool.tabsFor(n))).toEqual([0, 1, 1, 2, 2, 3, 4, 4, 4]);
    expect(new SparePool(world().socket, 1).tabsFor(100)).toBe(1);
    const creates = async (jobs: number, tabs: number) => {
      const bidi = world();
      const many = Array.from({ length: jobs }, (_, i) => reads[i % reads.length] as SpareJob);
      await spareLoop(bidi.socket, many, { tabs });
      allTornDown(bidi);
      return bidi.log.filter((l) => l.startsWith("create")).length;
    };
    expect(await creates(2, 4)).toBe(1);
    expect(await creates(12, 6)).toBe(3);
    expect(await creates(40, 6)).toBe(6);
    expect(await spareLoop(world().socket, [], { tabs: 4 })).toEqual([]);
  });

  test("a pool with a tab to lend does every visit in it on 2 cores or fewer, and opens tabs beside it on more", async () => {
    const bidi = new FakeBidi();
    const pool = new SparePool(bidi.socket, 4, async () => ({ context: "main" }));
    expect([1, 5, 12, 100].map((n) => pool.tabsFor(n))).toEqual([1, 1, 1, 1]);
    pool.useCores(2, 12);
    expect(pool.tabsFor(12)).toBe(1);
    pool.useCores(4, 12);
    expect(pool.tabsFor(12)).toBe(3);
    const out = await pool.run(
      [APP, SSO, "https://old.example.test"].map((origin) => ({ origin, fn: "() => 1" })),
    );
    await pool.close();
    expect(out.every((o) => o.ok)).toBe(true);
    // The main tab was lent, two of its own beside it; all are gone but the main tab, on about:blank.
    expect(bidi.log.filter((l) => l.startsWith("create"))).toHaveLength(2);
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
    expect(bidi.tabs.get("main")?.url).toBe("about:blank");
    expect(bidi.log.some((l) => l.startsWith("navigate main"))).toBe(false);
    expect(bidi.handlers).toBe(0);
    expect(bidi.openIntercepts).toBe(0);
  });

  test("a browser with more than 2 cores gets a tab a visit, up to a core less one and its size; 2 cores change nothing", async () => {
    const counts = (size: number, cores: number) => {
      const pool = new SparePool(world().socket, size);
      pool.useCores(cores, 0);
      return [0, 1, 4, 5, 9, 100].map((n) => pool.tabsFor(n));
    };
    expect(counts(4, 2)).toEqual([0, 1, 1, 2, 3, 4]);
    expect(counts(4, 0)).toEqual([0, 1, 1, 2, 3, 4]);
    expect(counts(4, 8)).toEqual([0, 1, 4, 4, 4, 4]);
    expect(counts(8, 4)).toEqual([0, 1, 3, 3, 3, 3]);
  });

  test("cores learnt while a run is on: the tabs opened then join it, every origin once, in the order asked", async () => {
    const bidi = world({ navigateMs: () => 10 });
    const pool = new SparePool(bidi.socket, 6);
    let out: SpareOutcome[];
    try {
      const running = pool.run(reads);
      await Bun.sleep(15);
      pool.useCores(8, reads.length);
      out = await running;
    } finally {
      await pool.close();
    }
    expect(out).toEqual(sequential);
    expect(bidi.log.filter((l) => l.startsWith("create"))).toHaveLength(6);
    // Every tab that opened visited: the late ones took a share.
    const visitedIn = new Set(bidi.log.filter((l) => l.startsWith("navigate")).map((l) => l.split(" ")[1]));
    expect(visitedIn.size).toBe(6);
    allTornDown(bidi);
  });

  test("a tab whose site never answers runs out of time alone; the others finish every other origin", async () => {
    const stuck = origins[1] as string;
    const bidi = world({ hang: [stuck], navigateMs: 5 });
    const started = performance.now();
    const out = await spareLoop(bidi.socket, reads, { tabs: 4, budgetMs: 400 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(out).toEqual(
      sequential.map((o) => (o.origin === stuck ? { origin: stuck, ok: false, reason: OUT_OF_TIME } : o)),
    );
    allTornDown(bidi);
  });

  test("a tab that cannot open leaves its share to the others", async () => {
    let creates = 0;
    const bidi = world({
      fail: (m) =>
        m === "browsingContext.create" && ++creates === 2 ? new Error("no more tabs") : undefined,
    });
    const out = await spareLoop(bidi.socket, reads, { tabs: 3 });
    expect(out).toEqual(sequential);
    allTornDown(bidi);
  });

  test("when no tab opens, every origin fails with the first tab's reason", async () => {
    const bidi = world({
      fail: (m) => (m === "browsingContext.create" ? new Error("socket is already closed") : undefined),
    });
    const out = await spareLoop(bidi.socket, reads.slice(0, 5), { tabs: 3 });
    expect(out).toEqual(
      origins.slice(0, 5).map((origin) => ({ origin, ok: false, reason: "socket is already closed" })),
    );
  });

  test("the budget stops every tab at once; each origin not finished says so, and every tab closes", async () => {
    const bidi = world({ navigateMs: 50 });
    const out = await spareLoop(bidi.socket, reads, { tabs: 4, budgetMs: 80 });
    // Each of the 3 tabs finished its first visit (50 ms) and was cut off in its second.
    expect(out.slice(0, 3)).toEqual(sequential.slice(0, 3));
    expect(out.slice(3)).toEqual(
      origins.slice(3).map((origin) => ({ origin, ok: false, reason: OUT_OF_TIME })),
    );
    expect(bidi.log.filter((l) => /^(navigate|replace) /.test(l))).toHaveLength(6);
    allTornDown(bidi);
  });

  test("a tab still opening when the work is done does not hold the run, and is closed after", async () => {
    let creates = 0;
    const bidi = world();
    const realSend = bidi.send.bind(bidi);
    bidi.send = async (method, params) => {
      if (method === "browsingContext.create" && ++creates === 2) await Bun.sleep(300);
      return realSend(method, params);
    };
    const pool = new SparePool(bidi.socket, 2);
    const started = performance.now();
    const out = await pool.run(reads.slice(0, 5));
    expect(performance.now() - started).toBeLessThan(200);
    expect(out).toEqual(sequential.slice(0, 5));
    await pool.close();
    allTornDown(bidi);
  });
});

describe("spare frames", () => {
  const read = "() => localStorage.getItem('k')";
  const frames = (bidi: FakeBidi) =>
    bidi.log.filter((l) => /^visit spare-\d+\.f/.test(l)).map((l) => l.split(" ")[2]);
  const pages = (bidi: FakeBidi) =>
    bidi.log.filter((l) => /^(navigate|replace) spare-\d+ http/.test(l)).map((l) => l.split(" ")[2]);

  test("origins that may share a site go in frames of one page, FRAMES_PER_PAGE at most; the browser's word decides, and one whose storage there is not its own gets a page of its own", async () => {
    const same = Array.from({ length: FRAMES_PER_PAGE + 2 }, (_, i) => `https://s${i}.example.test`);
    // Looks alike, but the browser partitions its frame under s0's page (another site, as under a public suffix).
    const alike = "https://other.example.test";
    const ip = "http://127.0.0.1:8080";
    const all = [same[0] as string, alike, ip, ...same.slice(1)];
    const bidi = new FakeBidi({ partitioned: [alike] });
    for (const o of all) bidi.localOf(o).setItem("k", `v ${o}`);
    const pool = new SparePool(bidi.socket, 1, undefined, true);
    expect(pool.visitsOf(all)).toBe(2 + 1);
    const out = await pool.run(all.map((origin) => ({ origin, fn: read })));
    await pool.close();
    expect(out).toEqual(all.map((origin) => ({ origin, ok: true, value: `v ${origin}` })));
    // The first page held the first 7 alike origins in frames, the partitioned one among them; it and
    // the IP address got pages of their own, and the 2 left over one page more.
    const [first, ...rest] = pages(bidi);
    expect(new URL(first as string).searchParams.getAll("f")).toEqual([
      alike,
      ...same.slice(1, FRAMES_PER_PAGE - 1),
    ]);
    expect(rest.map((u) => new URL(u as string).origin)).toEqual([
      alike,
      ip,
      same[FRAMES_PER_PAGE - 1] as string,
    ]);
    expect(frames(bidi).sort()).toEqual(
      [alike, ...same.slice(1, FRAMES_PER_PAGE - 1), ...same.slice(FRAMES_PER_PAGE)].sort(),
    );
    // Nothing was written in the partitioned frame's storage; the site check left no cookie.
    expect(bidi.local.get(`${alike} under ${same[0]}`)?.items() ?? {}).toEqual({});
    expect(bidi.jar).toEqual([]);
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
  });

  const SLOW = "https://slow.example.test";
  /** APP's page with SLOW and SSO in frames, SLOW's frame taking `ms` to load; every origin read. */
  const withSlowFrame = async (ms: number) => {
    const bidi = new FakeBidi({ frameMs: { [SLOW]: ms } });
    const all = [APP, SLOW, SSO];
    for (const o of all) bidi.localOf(o).setItem("k", `v ${o}`);
    const pool = new SparePool(bidi.socket, 1, undefined, true);
    const out = await pool.run(all.map((origin) => ({ origin, fn: read })));
    await pool.close();
    expect(out).toEqual(all.map((origin) => ({ origin, ok: true, value: `v ${origin}` })));
    return bidi;
  };

  test("each frame is read as soon as its own page is parsed, and the page's own origin too: a slow frame holds up none of them", async () => {
    const bidi = await withSlowFrame(200);
    expect(frames(bidi).sort()).toEqual([SSO, SLOW].sort());
    const at = (line: string) => bidi.log.findIndex((l) => l.startsWith(line));
    const slowParsed = at("parsed spare-1.f1");
    expect(slowParsed).toBeGreaterThan(-1);
    expect(at(`visit spare-1 ${APP}`)).toBeLessThan(slowParsed);
    expect(at(`visit spare-1.f2 ${SSO}`)).toBeLessThan(slowParsed);
  });

  test("a frame not parsed within FRAME_WAIT_MS is given up on there: its origin gets a page of its own", async () => {
    const bidi = await withSlowFrame(FRAME_WAIT_MS + 1_000);
    expect(frames(bidi)).toEqual([SSO]);
    expect(pages(bidi).map((u) => new URL(u as string).origin)).toEqual([APP, SLOW]);
  }, 10_000);

  test("a restore's writes in frames land in each site's own storage", async () => {
    const bidi = new FakeBidi();
    const pool = new SparePool(bidi.socket, 1, undefined, true);
    const write = "(v) => { localStorage.setItem('k', v); return 1; }";
    const out = await pool.run([APP, SSO].map((origin) => ({ origin, fn: write, arg: `w ${origin}` })));
    await pool.close();
    expect(out.every((o) => o.ok)).toBe(true);
    expect(frames(bidi)).toEqual([SSO]);
    expect(bidi.localOf(SSO).items()).toEqual({ k: `w ${SSO}` });
    expect(bidi.localOf(APP).items()).toEqual({ k: `w ${APP}` });
    // A function that answers nothing (undefined leaves no key in the JSON) was still done in its frame.
    const quiet = new FakeBidi();
    const again = new SparePool(quiet.socket, 1, undefined, true);
    const none = await again.run([APP, SSO].map((origin) => ({ origin, fn: "() => undefined" })));
    await again.close();
    expect(none.map((o) => o.ok)).toEqual([true, true]);
    expect(pages(quiet).map((u) => new URL(u as string).origin)).toEqual([APP]);
  });

  test("a guess is a scheme and the last two labels; an IP address or a single label is never guessed; a tab for every 4 pages", async () => {
    expect(siteGuess("https://a.b.example.test:8443")).toBe("https://example.test");
    expect(siteGuess("http://a.example.test")).toBe("http://example.test");
    expect(siteGuess("http://127.0.0.1:9")).toBeNull();
    expect(siteGuess("http://[::1]:9")).toBeNull();
    expect(siteGuess("http://localhost:9")).toBeNull();
    expect(siteGuess("file:///x")).toBeNull();
    // Frames in Chrome, the default when no browser is named; never in Firefox.
    expect([framesIn(undefined), framesIn("chrome"), framesIn("firefox")]).toEqual([true, true, false]);
    const pool = new SparePool(new FakeBidi().socket, 4, undefined, true);
    const twelve = Array.from({ length: 12 }, (_, i) => `https://s${i}.example.test`);
    expect(pool.visitsOf(twelve)).toBe(2);
    expect(new SparePool(new FakeBidi().socket, 4).visitsOf(twelve)).toBe(12);
    // A tab for every 4 pages, not sites: twelve sites of one site are 2 pages, in one tab.
    expect(pool.tabsFor(pool.visitsOf(twelve))).toBe(1);
    const bidi = new FakeBidi();
    const framed = new SparePool(bidi.socket, 4, undefined, true);
    const out = await framed.run(twelve.map((origin) => ({ origin, fn: "() => 1" })));
    await framed.close();
    expect(out.every((o) => o.ok)).toBe(true);
    expect(bidi.log.filter((l) => l.startsWith("create"))).toHaveLength(1);
  });
});
