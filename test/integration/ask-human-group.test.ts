// ask_human in a group: separate server processes on one Redis, and on one SQLite file. The agent's
// call waits on one server; the person's answer, End or Forget goes to the other and reaches it
// through the store. The answer call answers once the agent's call took the answer, or says it was
// not delivered. No browser is opened for any of it (a ledger proxy counts the Grid's sessions).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testGridUrl } from "../support/env.ts";
import { type GridLedger, startGridLedger } from "../support/grid-ledger.ts";
import { type ServerProcess, startProcess } from "../support/process.ts";
import { type PrivateRedis, startRedis } from "../support/redis-server.ts";
import { TOKEN } from "../support/server.ts";

const GROUP_KEY = "ask-group-test-store-key-0123456789abcdef";

async function call(base: string, method: string, path: string, workspace: string | null, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(workspace ? { "x-workspace": workspace } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

const ask = (base: string, w: string, question: string, timeout = 60, signal?: AbortSignal) =>
  fetch(`${base}/browser/ask-human`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": w, "content-type": "application/json" },
    body: JSON.stringify({ question, timeout }),
    signal,
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

async function untilWaiting(base: string, w: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const row = (await call(base, "GET", `/admin/workspaces/${w}`, null)).body;
    if (row?.waiting) return row.waiting;
    await Bun.sleep(50);
  }
  throw new Error("never waited");
}

for (const kind of ["redis", "sqlite"] as const) {
  describe(`ask_human across two servers on one ${kind === "redis" ? "Redis" : "SQLite file"}`, () => {
    let redis: PrivateRedis | null = null;
    let ledger: GridLedger;
    let dataDir: string;
    let a: ServerProcess;
    let b: ServerProcess;

    beforeAll(async () => {
      ledger = startGridLedger(testGridUrl);
      dataDir = mkdtempSync(join(tmpdir(), `sf-ask-group-${kind}-`));
      if (kind === "redis") redis = await startRedis();
      const env = {
        AUTH_TOKEN: TOKEN,
        GRID_URL: ledger.url,
        DATA_DIR: dataDir,
        ...(redis ? { STORE_URL: redis.url, STORE_KEY: GROUP_KEY } : {}),
      };
      [a, b] = await Promise.all([startProcess(env), startProcess(env)]);
    });

    afterAll(async () => {
      await Promise.all([a, b].map((p) => p.stop().catch(() => undefined)));
      ledger.stop();
      await redis?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test("asked on one server, answered on the other: the agent gets the answer, once", async () => {
      const W = `ask-${kind}`;
      const asked = ask(a.base, W, "Which account, hunter2-Example! or Welcome2024!?");
      // Both servers show the question: it is in the store, not in one process.
      expect((await untilWaiting(b.base, W)).question).toBe(
        "Which account, hunter2-Example! or Welcome2024!?",
      );
      expect((await untilWaiting(a.base, W)).question).toBe(
        "Which account, hunter2-Example! or Welcome2024!?",
      );
      // A second question from either server is refused while the first waits.
      expect((await ask(b.base, W, "again?")).status).toBe(409);
      const t0 = performance.now();
      const answered = await call(b.base, "POST", `/admin/workspaces/${W}/answer`, null, {
        text: "Welcome2024!",
      });
      expect([answered.status, answered.body]).toEqual([200, { answered: true }]);
      const res = await asked;
      expect([res.status, res.body]).toEqual([
        200,
        { answered: true, answer: "Welcome2024!", url: "", title: "" },
      ]);
      // The answer call returned once the agent's call had it: within a poll or two, not a timeout.
      expect(performance.now() - t0).toBeLessThan(5_000);
      // Taken once: a second answer finds nothing waiting, and the row is clear on both servers.
      expect(
        (await call(a.base, "POST", `/admin/workspaces/${W}/answer`, null, { text: "late" })).status,
      ).toBe(409);
      expect((await call(a.base, "GET", `/admin/workspaces/${W}`, null)).body.waiting).toBeNull();
      expect((await call(b.base, "GET", `/admin/workspaces/${W}`, null)).body.waiting).toBeNull();
    }, 60_000);

    test("End on the other server cancels the wait: answered false, and no browser opened", async () => {
      const W = `end-${kind}`;
      const asked = ask(a.base, W, "Please solve the CAPTCHA");
      await untilWaiting(b.base, W);
      expect((await call(b.base, "POST", `/admin/workspaces/${W}/end`, null)).status).toBe(200);
      const res = await asked;
      expect([res.status, res.body]).toEqual([200, { answered: false, url: "", title: "" }]);
      expect((await call(b.base, "POST", `/admin/workspaces/${W}/answer`, null, { text: "x" })).status).toBe(
        409,
      );
    }, 60_000);

    test("Forget on the other server cancels the wait, and the workspace stays forgotten", async () => {
      const W = `forget-${kind}`;
      const asked = ask(a.base, W, "Please solve the CAPTCHA");
      await untilWaiting(b.base, W);
      expect((await call(b.base, "DELETE", `/admin/workspaces/${W}`, null)).status).toBe(200);
      const res = await asked;
      expect([res.status, res.body]).toEqual([200, { answered: false, url: "", title: "" }]);
      expect((await call(b.base, "GET", `/admin/workspaces/${W}`, null)).status).toBe(404);
    }, 60_000);

    test("an answer to a call that went away is not delivered, and the person is told", async () => {
      const W = `gone-${kind}`;
      const stop = new AbortController();
      const asked = ask(a.base, W, "Still there?", 60, stop.signal).catch(() => null);
      await untilWaiting(b.base, W);
      stop.abort();
      await asked;
      // The call's end reaches the store soon; an answer before or after that is refused, never kept.
      let res = await call(b.base, "POST", `/admin/workspaces/${W}/answer`, null, { text: "yes" });
      for (let i = 0; i < 50 && res.status === 200; i++) {
        await Bun.sleep(100);
        res = await call(b.base, "POST", `/admin/workspaces/${W}/answer`, null, { text: "yes" });
      }
      expect(res.status).toBe(409);
      expect((await call(b.base, "GET", `/admin/workspaces/${W}`, null)).body.waiting).toBeNull();
      // The next question on the workspace is a fresh one, and gets its own answer.
      const again = ask(a.base, W, "Now?");
      await untilWaiting(b.base, W);
      expect(
        (await call(b.base, "POST", `/admin/workspaces/${W}/answer`, null, { text: "now" })).status,
      ).toBe(200);
      expect((await again).body).toEqual({ answered: true, answer: "now", url: "", title: "" });
    }, 60_000);

    test("many asks on workspaces without browsers, answered across servers: every answer arrives, no Grid session", async () => {
      const n = 40;
      const names = Array.from({ length: n }, (_, i) => `many-${kind}-${i}`);
      const asks = names.map((w, i) => ask(i % 2 ? a.base : b.base, w, `q${i}`, 30));
      await Promise.all(names.map((w) => untilWaiting(a.base, w)));
      const answers = await Promise.all(
        names.map((w, i) =>
          call(i % 2 ? b.base : a.base, "POST", `/admin/workspaces/${w}/answer`, null, { text: `a${i}` }),
        ),
      );
      expect(answers.map((r) => r.status)).toEqual(names.map(() => 200));
      const got = await Promise.all(asks);
      expect(got.map((r) => r.body.answer)).toEqual(names.map((_, i) => `a${i}`));
      expect(ledger.opened).toHaveLength(0);
    }, 120_000);

    test("an answer while the agent's server is gone is not delivered: the person is told, and it is withdrawn", async () => {
      const W = `killed-${kind}`;
      void ask(a.base, W, "Anyone?", 120).catch(() => null);
      await untilWaiting(b.base, W);
      await a.kill("SIGKILL");
      const res = await call(b.base, "POST", `/admin/workspaces/${W}/answer`, null, {
        text: "hunter2-Example!",
      });
      expect(res.status).toBe(503);
      expect(res.body.error).toStartWith("the answer was not delivered");
      // Withdrawn: the record holds no answer for anyone to take later.
      const row = await call(b.base, "GET", `/admin/workspaces/${W}`, null);
      expect(row.body.waiting?.question).toBe("Anyone?");
    }, 60_000);
  });
}
