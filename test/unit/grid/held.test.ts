// The held connection: one per browser, reused, opened again after a drop, closed on drop and
// after its idle time; and what it follows (dialogs, navigations) for the page work that needs it.
import { expect, test } from "bun:test";
import { BidiDead, BidiError, BidiTimeout } from "../../../src/grid/bidi.ts";
import { HeldConnection } from "../../../src/grid/held.ts";
import { HeldConnections } from "../../../src/grid/held-pool.ts";
import { Page } from "../../../src/grid/page.ts";
import { DialogOpened } from "../../../src/grid/page-dialogs.ts";
import { FakeSocket } from "../../support/fake-socket.ts";

const TAB = "TAB1";

function pool(idleMs = 60_000) {
  const made: FakeSocket[] = [];
  const conns = new HeldConnections(async () => {
    const s = new FakeSocket();
    made.push(s);
    return s.socket;
  }, idleMs);
  return { conns, made };
}

test("one connection per browser: reused while open, opened again once it dropped", async () => {
  const { conns, made } = pool();
  const [a, b] = await Promise.all([conns.get("b1"), conns.get("b1")]);
  expect(a).toBe(b);
  expect(made.length).toBe(1);
  expect(conns.size).toBe(1);
  made[0]!.close();
  expect(conns.size).toBe(0);
  const c = await conns.get("b1");
  expect(c).not.toBe(a);
  expect(made.length).toBe(2);
  await conns.get("b2");
  expect(conns.size).toBe(2);
  conns.drop("b1");
  expect(made[1]!.closed).toBe(true);
  expect(conns.size).toBe(1);
  conns.closeAll();
  expect(conns.size).toBe(0);
  expect(made.every((s) => s.closed)).toBe(true);
});

test("a connection dropped while it was opening is closed as soon as it opens", async () => {
  let open: (s: FakeSocket) => void = () => {};
  const conns = new HeldConnections(
    () => new Promise((resolve) => (open = (s) => resolve(s.socket))),
    60_000,
  );
  const pending = conns.get("b1");
  conns.drop("b1");
  const s = new FakeSocket();
  open(s);
  await pending;
  expect(s.closed).toBe(true);
  expect(conns.size).toBe(0);
});

test("an idle connection closes after its idle time, never while a call uses it", async () => {
  const { conns, made } = pool(40);
  const c = await conns.get("b1");
  const release = c.use();
  await Bun.sleep(80);
  expect(made[0]!.closed).toBe(false);
  release();
  await Bun.sleep(80);
  expect(made[0]!.closed).toBe(true);
  expect(conns.size).toBe(0);
});

test("dialogs are followed per tab; a gesture that opens one ends with DialogOpened", async () => {
  const s = new FakeSocket((method) => (method === "input.performActions" ? new Promise(() => {}) : {}));
  const held = new HeldConnection(s.socket, () => {}, 60_000);
  const page = new Page(
    held,
    { tab: TAB, frame: null },
    { pageLoadMs: 1000, scriptMs: 1000, gone: async () => false },
  );
  const clicking = page.click({ sharedId: "n1", context: TAB });
  setTimeout(
    () => s.emit("browsingContext.userPromptOpened", { context: TAB, type: "alert", message: "hi" }),
    10,
  );
  const err = await clicking.catch((e) => e);
  expect(err).toBeInstanceOf(DialogOpened);
  expect(page.prompt?.message).toBe("hi");
  // While it is open, nothing else runs, and the error says what it says.
  await expect(page.call("docTitle")).rejects.toThrow(
    'a dialog is open: answer it with the dialog tool first (it says: "hi")',
  );
  s.emit("browsingContext.userPromptClosed", { context: TAB, accepted: true, type: "alert" });
  expect(page.prompt).toBeNull();
  // A dialog in another tab is not this tab's.
  s.emit("browsingContext.userPromptOpened", { context: "TAB2", type: "alert", message: "other" });
  expect(page.prompt).toBeNull();
});

test("after a gesture: a navigation it began is waited for until it loads", async () => {
  const s = new FakeSocket();
  const held = new HeldConnection(s.socket, () => {}, 60_000);
  const page = new Page(
    held,
    { tab: TAB, frame: null },
    { pageLoadMs: 2000, scriptMs: 1000, gone: async () => false },
  );
  const before = held.navigationCount;
  s.emit("browsingContext.navigationStarted", {
    context: TAB,
    navigation: "n1",
    url: "https://app.example.test/done",
  });
  let done = false;
  const waiting = page.afterGesture(before, false).then(() => {
    done = true;
  });
  await Bun.sleep(30);
  expect(done).toBe(false);
  // A late event of an earlier navigation does not end this one.
  s.emit("browsingContext.load", { context: TAB, navigation: "old", url: "https://app.example.test/" });
  await Bun.sleep(10);
  expect(done).toBe(false);
  s.emit("browsingContext.load", { context: TAB, navigation: "n1", url: "https://app.example.test/done" });
  await waiting;
  expect(done).toBe(true);
});

test("after a gesture: one the page says is coming is waited for a moment; none, and it goes on", async () => {
  const s = new FakeSocket();
  const held = new HeldConnection(s.socket, () => {}, 60_000);
  const page = new Page(
    held,
    { tab: TAB, frame: null },
    { pageLoadMs: 2000, scriptMs: 1000, gone: async () => false },
  );
  // Nothing said: no wait at all.
  let t = performance.now();
  await page.afterGesture(held.navigationCount, false);
  expect(performance.now() - t).toBeLessThan(50);
  // "maybe" and it begins 100 ms later: waited for, to its load.
  const before = held.navigationCount;
  setTimeout(
    () => s.emit("browsingContext.navigationStarted", { context: TAB, navigation: "n2", url: "u" }),
    100,
  );
  setTimeout(() => s.emit("browsingContext.load", { context: TAB, navigation: "n2", url: "u" }), 200);
  t = performance.now();
  await page.afterGesture(before, true);
  expect(performance.now() - t).toBeGreaterThanOrEqual(190);
  // "maybe" and nothing comes (a download, a 204): it gives up after about a second.
  t = performance.now();
  await page.afterGesture(held.navigationCount, true);
  const waited = performance.now() - t;
  expect(waited).toBeGreaterThanOrEqual(900);
  expect(waited).toBeLessThan(2000);
});

test("a browser the Grid removed: a command that never answers fails at once as a gone browser", async () => {
  const s = new FakeSocket(() => new Promise(() => {}));
  const held = new HeldConnection(s.socket, () => {}, 60_000);
  let asked = 0;
  const page = new Page(
    held,
    { tab: TAB, frame: null },
    {
      pageLoadMs: 1000,
      scriptMs: 1000,
      gone: async () => {
        asked++;
        return true;
      },
    },
  );
  const t = performance.now();
  const err = await page.tree().catch((e) => e);
  expect(err?.name).toBe("NoSuchSessionError");
  expect(performance.now() - t).toBeLessThan(2000);
  expect(asked).toBe(1);
  // The connection is closed, so the next call opens a new one (and finds the browser gone).
  expect(s.closed).toBe(true);
});

test("a document loaded before the connection held has no library yet: the call brings it once", async () => {
  const declarations: string[] = [];
  const s = new FakeSocket((method, params) => {
    if (method !== "script.callFunction") return {};
    const d = (params as { functionDeclaration: string }).functionDeclaration;
    declarations.push(d);
    // The sandbox has no library until a call brings it (the bundle assigns it).
    const missing = !d.includes("globalThis.__sfLib=lib");
    const value = missing ? "__sf:no-library" : null;
    return missing
      ? { type: "success", result: { type: "string", value } }
      : { type: "success", result: { type: "array", value: [{ type: "string", value: "42" }] } };
  });
  const held = new HeldConnection(s.socket, () => {}, 60_000);
  held.usable.add(TAB);
  const page = new Page(
    held,
    { tab: TAB, frame: null },
    { pageLoadMs: 1000, scriptMs: 1000, gone: async () => false },
  );
  expect(await page.call("docTitle")).toBe(42);
  expect(declarations).toHaveLength(2);
  // The lean form is small; the one that brings the library carries it whole.
  expect(declarations[0]!.length).toBeLessThan(1_000);
  expect(declarations[1]!.length).toBeGreaterThan(10_000);
});

test("a command past its deadline is a 503 and the connection is not used again", async () => {
  // The tree of the tab times out; the probe (the roots alone) answers: the channel lives.
  const s = new FakeSocket((method, params) => {
    if (method === "browsingContext.getTree" && (params as { maxDepth?: number }).maxDepth !== 0)
      throw new BidiTimeout(method, 100);
    return {};
  });
  const held = new HeldConnection(s.socket, () => {}, 60_000);
  const page = new Page(
    held,
    { tab: TAB, frame: null },
    { pageLoadMs: 1000, scriptMs: 1000, gone: async () => false },
  );
  const err = await page.tree().catch((e) => e);
  expect(err).toBeInstanceOf(BidiTimeout);
  expect(err.status).toBe(503);
  expect(s.closed).toBe(true);
});

test("a command past its deadline whose probe goes unanswered too finds the channel dead", async () => {
  const s = new FakeSocket((method) => {
    if (method === "browsingContext.getTree") throw new BidiTimeout(method, 100);
    return {};
  });
  const held = new HeldConnection(s.socket, () => {}, 60_000);
  const page = new Page(
    held,
    { tab: TAB, frame: null },
    { pageLoadMs: 1000, scriptMs: 1000, gone: async () => false },
  );
  const err = await page.tree().catch((e) => e);
  expect(err).toBeInstanceOf(BidiDead);
  expect(err.status).toBe(503);
  expect([s.dead, s.closed]).toEqual([true, true]);
});

test("a read sent while the document is being replaced is sent again once the next is in", async () => {
  let calls = 0;
  const s = new FakeSocket((method) => {
    if (method !== "script.callFunction") return {};
    if (++calls < 3) throw new BidiError("unknown error", "Cannot find context with specified id");
    return { type: "success", result: { type: "string", value: "Next page" } };
  });
  const held = new HeldConnection(s.socket, () => {}, 60_000);
  held.usable.add(TAB);
  const page = new Page(
    held,
    { tab: TAB, frame: null },
    { pageLoadMs: 1000, scriptMs: 1000, gone: async () => false },
  );
  expect(await page.title()).toBe("Next page");
  expect(calls).toBe(3);
});

test("a preload the browser takes late (a loaded machine) unmarks the connection stuck; a page found busy meanwhile stays so", async () => {
  const follow = async (takeMs: number, busyMeanwhile: boolean) => {
    let took: () => void = () => {};
    const s = new FakeSocket((method) =>
      method === "script.addPreloadScript"
        ? new Promise((r) => (took = () => r({ script: "p1" })))
        : { contexts: [] },
    );
    const held = new HeldConnection(s.socket, () => {}, 60_000);
    const late: string[][] = [];
    const scripts = await held.follow([{ functionDeclaration: "() => {}" }], (l) => late.push(l));
    expect([scripts, held.stuck]).toEqual([null, true]);
    if (busyMeanwhile) held.stuck = true;
    setTimeout(() => took(), takeMs);
    await Bun.sleep(takeMs + 20);
    expect(late).toEqual([["p1"]]);
    return held.stuck;
  };
  expect(await follow(10, false)).toBe(false);
  expect(await follow(10, true)).toBe(true);
}, 10_000);
