// ask_human without a browser, on the real Grid through a ledger proxy: a workspace with no browser
// (and no record) asks, is answered or times out, and no browser is ever opened for it; End and
// Forget cancel a wait (answered false), and neither brings a browser or the record back.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { type GridLedger, startGridLedger } from "../support/grid-ledger.ts";
import { endAll, startServer, type TestServer, TOKEN } from "../support/server.ts";

const site = serveFixture({ "/": () => html("<title>Stuck</title><p>a CAPTCHA") });
let ledger: GridLedger;
let server: TestServer;

const admin = (method: string, path: string, body?: unknown) => server.call(method, path, body, null);
const ask = (w: string, question: string, timeout = 60) =>
  server.call("POST", "/browser/ask-human", { question, timeout }, w);

/** Answers `w`'s question once it is asked (a 409 until then). */
async function answerWhenAsked(w: string, text: string) {
  for (let i = 0; i < 200; i++) {
    const res = await admin("POST", `/admin/workspaces/${w}/answer`, { text });
    // Until it is asked: 409 (a record, nothing waits) or 404 (no record).
    if (res.status !== 409 && res.status !== 404) return res;
    await Bun.sleep(50);
  }
  throw new Error("never asked");
}

async function untilWaiting(w: string) {
  for (let i = 0; i < 200; i++) {
    if ((await admin("GET", `/admin/workspaces/${w}`)).body?.waiting) return;
    await Bun.sleep(50);
  }
  throw new Error("never waited");
}

beforeAll(async () => {
  ledger = startGridLedger(testGridUrl);
  server = await startServer({ configure: (c) => (c.grid.url = ledger.url) });
});

afterAll(async () => {
  await endAll(server, ["nb-end", "nb-forget", "nb-reaped"]);
  await server.close();
  await ledger.endAll();
  ledger.stop();
  site.stop();
});

test("a workspace with no record asks and is answered: the text, the page unknown, no browser opened", async () => {
  expect((await admin("GET", "/admin/workspaces/nb-fresh")).status).toBe(404);
  const asked = ask("nb-fresh", "Which account, hunter2-Example! or Welcome2024!?");
  const answered = await answerWhenAsked("nb-fresh", "Welcome2024!");
  expect(answered.status).toBe(200);
  const res = await asked;
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ answered: true, answer: "Welcome2024!", url: "", title: "" });
  expect(ledger.opened).toHaveLength(0);
  // Once answered, nothing waits: a late answer is refused (the question made the workspace's record).
  expect((await admin("POST", "/admin/workspaces/nb-fresh/answer", { text: "late" })).status).toBe(409);
}, 60_000);

test("no answer on a workspace with no browser: answered false, and no browser opened", async () => {
  const res = await ask("nb-timeout", "anyone?", 5);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ answered: false, url: "", title: "" });
  expect(ledger.opened).toHaveLength(0);
}, 60_000);

test("End during a wait cancels it: answered false with the last page, and no browser reopened", async () => {
  expect((await server.call("POST", "/browser/navigate", { url: site.url("/") }, "nb-end")).status).toBe(200);
  const before = ledger.opened.length;
  const asked = ask("nb-end", "Please solve the CAPTCHA");
  await untilWaiting("nb-end");
  const t0 = performance.now();
  expect((await admin("POST", "/admin/workspaces/nb-end/end")).status).toBe(200);
  const res = await asked;
  // At once: the browser being ended is not asked after (the Grid took 10 s to say).
  expect(performance.now() - t0).toBeLessThan(5_000);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ answered: false, url: site.url("/"), title: "" });
  expect(ledger.opened).toHaveLength(before);
  expect((await admin("GET", "/admin/workspaces/nb-end")).body.waiting).toBeNull();
}, 90_000);

test("Forget during a wait cancels it: answered false, and the workspace stays forgotten", async () => {
  expect((await server.call("POST", "/browser/navigate", { url: site.url("/") }, "nb-forget")).status).toBe(
    200,
  );
  const before = ledger.opened.length;
  const asked = ask("nb-forget", "Please solve the CAPTCHA");
  await untilWaiting("nb-forget");
  const t0 = performance.now();
  expect((await admin("DELETE", "/admin/workspaces/nb-forget")).status).toBe(200);
  const res = await asked;
  expect(performance.now() - t0).toBeLessThan(5_000);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ answered: false, url: site.url("/"), title: "" });
  expect(ledger.opened).toHaveLength(before);
  // The forgotten record does not come back (the stopped wait settles nothing into it).
  expect(await server.app.services.store.get("nb-forget")).toBeNull();
}, 90_000);

test("a browser the Grid reaped during the wait is not reopened: the answer comes back at once with the last page", async () => {
  expect((await server.call("POST", "/browser/navigate", { url: site.url("/") }, "nb-reaped")).status).toBe(
    200,
  );
  const id = (await server.app.services.store.get("nb-reaped"))!.session_id;
  const before = ledger.opened.length;
  const asked = ask("nb-reaped", "Please solve the CAPTCHA");
  await untilWaiting("nb-reaped");
  // Gone behind the server's back, as a Grid's session timeout ends it.
  await server.app.services.grid.end(id);
  expect((await admin("POST", "/admin/workspaces/nb-reaped/answer", { text: "done" })).status).toBe(200);
  const res = await asked;
  expect([res.status, res.body]).toEqual([
    200,
    { answered: true, answer: "done", url: site.url("/"), title: "" },
  ]);
  expect(ledger.opened).toHaveLength(before);
}, 90_000);

test("1,000 asks on workspaces without browsers all time out cleanly, and make no Grid session", async () => {
  const before = ledger.opened.length;
  const names = Array.from({ length: 1000 }, (_, i) => `nb-many-${i}`);
  // Handed to the server's fetch directly: a client's fetch keeps 256 connections to a host and
  // queues the rest, which made the asks wait their turn for 20 s in all.
  const askDirect = async (w: string) => {
    const res = await server.app.fetch(
      new Request(`${server.url}/browser/ask-human`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": w, "content-type": "application/json" },
        body: JSON.stringify({ question: "anyone?", timeout: 5 }),
      }),
    );
    return { status: res.status, body: await res.json() };
  };
  const t0 = performance.now();
  const got = await Promise.all(names.map(askDirect));
  expect(got.filter((r) => r.status !== 200)).toEqual([]);
  // All at once: each waits its own 5 s beside the others.
  expect(performance.now() - t0).toBeLessThan(15_000);
  expect(new Set(got.map((r) => JSON.stringify(r.body)))).toEqual(
    new Set([JSON.stringify({ answered: false, url: "", title: "" })]),
  );
  expect(ledger.opened).toHaveLength(before);
}, 120_000);
