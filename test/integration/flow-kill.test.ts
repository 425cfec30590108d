// A server killed during a flow run (issue 43): the run writes each step's landing as it goes, so
// the workspace's history is left at the last page the run reached, not at the page before the run.
// A real server process on a SQLite data dir, against the real Grid, killed with SIGKILL while the
// run's third step waits on a page that never answers.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/store/index.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { type ServerProcess, startProcess } from "../support/process.ts";
import { TOKEN } from "../support/server.ts";

const W = "flow-kill";
let hangAsked: () => void = () => {};
const asked = new Promise<void>((resolve) => (hangAsked = resolve));
let release: () => void = () => {};
const released = new Promise<void>((resolve) => (release = resolve));
const site = serveFixture({
  "/start": () => html("<title>Start</title>"),
  "/one": () => html("<title>One</title>"),
  "/two": () => html("<title>Two</title>"),
  "/hang": async () => {
    hangAsked();
    await released;
    return html("<title>Late</title>");
  },
});
const dataDir = mkdtempSync(join(tmpdir(), "sf-flow-kill-"));
let server: ServerProcess | null = null;
/** The browser the killed server left (the record's): ended for the next files, whatever failed. */
let left = "";

afterAll(async () => {
  release();
  await server?.kill("SIGKILL").catch(() => undefined);
  if (left) await fetch(`${testGridUrl}/session/${left}`, { method: "DELETE" }).catch(() => undefined);
  site.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "x-workspace": W,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

test("a server killed mid-run leaves the history at the last page the run reached", async () => {
  server = await startProcess({
    AUTH_TOKEN: TOKEN,
    GRID_URL: testGridUrl,
    DATA_DIR: dataDir,
    GRID_OPEN_TIMEOUT: "120",
  });
  const base = server.base;
  expect((await call(base, "POST", "/browser/navigate", { url: site.url("/start") })).status).toBe(200);
  const steps = ["/one", "/two", "/hang"].map((p) => ({ tool: "navigate", args: { url: site.url(p) } }));
  expect((await call(base, "PUT", "/flows/tour", { steps })).status).toBe(200);

  const run = call(base, "POST", "/flows/tour/run", {}).catch(() => null);
  await asked;
  await server.kill("SIGKILL");
  server = null;
  await run;

  const store = await openStore({ dataDir, ttl: 86400 });
  try {
    const record = await store.get(W);
    left = record?.session_id ?? "";
    // One entry per origin: the run's pages share the start page's, and its top is the last reached.
    expect(record?.history.map((v) => v.url)).toEqual([site.url("/two")]);
    // The browser the killed server left is still the record's.
    expect(left).not.toBe("");
  } finally {
    await store.close();
  }
}, 120_000);
