// Through a distributed Grid: a hub and one node from the same jar as the standalone Grid, so
// WebDriver, BiDi and the managed downloads all pass the hub's router. Open, navigate, save and
// restore site data over BiDi, a real download, a reap behind the server's back and the silent
// reopen after it, signed in again. `npm test` starts the hub and node (TEST_HUB_URL); run alone,
// this file starts its own on other ports and stops them after.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startHub } from "../../scripts/lib.mjs";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "through-the-hub";
const CSV = "id,total\n1,42\n";
const SID = "hub-sid-7f3a91c2";
const site = serveFixture({
  "/login": () =>
    html(`<title>Signed in</title><script>localStorage.setItem("pref", "dark");</script>`, {
      "set-cookie": `sid=${SID}; Path=/; HttpOnly`,
    }),
  "/home": (req) => {
    const signedIn = (req.headers.get("cookie") ?? "").includes(`sid=${SID}`);
    return html(
      `<title>home</title><script>document.title = "in=${signedIn ? "yes" : "no"}; pref=" + (localStorage.getItem("pref") ?? "none");</script>`,
    );
  },
  "/download": () =>
    html(`<title>Download</title><a id="d" href="/report.csv">report</a>
      <script>setTimeout(function () { document.getElementById("d").click(); }, 50);</script>`),
  "/report.csv": () =>
    new Response(CSV, {
      headers: { "content-type": "text/csv", "content-disposition": 'attachment; filename="report.csv"' },
    }),
});

let hub: { url: string; stop(): void } | null = null;
let hubUrl: string;
let server: TestServer;

/** Browsers the standalone Grid runs now. */
async function busy(grid: string): Promise<number> {
  const body = (await (await fetch(`${grid}/status`)).json()) as {
    value: { nodes: Array<{ slots: Array<{ session: unknown }> }> };
  };
  return body.value.nodes.reduce((n, node) => n + node.slots.filter((s) => s.session).length, 0);
}

beforeAll(async () => {
  // The machine runs two browsers at most: the node has one slot, and this suite waits (a minute
  // at most: a browser left open elsewhere is reaped in five) for a free slot of the standalone's.
  for (let i = 0; i < 120 && (await busy(testGridUrl)) > 1; i++) await Bun.sleep(500);
  if ((await busy(testGridUrl)) > 1)
    console.warn("hub suite: the standalone Grid's two slots are still busy");
  if (process.env.TEST_HUB_URL) hubUrl = process.env.TEST_HUB_URL;
  else {
    hub = await startHub({ port: 4470, nodePort: 5570, hostRules: true, name: "test-hub", maxSessions: 1 });
    hubUrl = hub.url;
  }
  server = await startServer({ configure: (c) => (c.grid.url = hubUrl) });
}, 400_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  hub?.stop();
  site.stop();
});

test("the Grid is a hub with a node", async () => {
  const status = (await (await fetch(`${hubUrl}/status`)).json()) as {
    value: { ready: boolean; nodes: Array<{ uri: string }> };
  };
  expect(status.value.ready).toBe(true);
  expect(status.value.nodes).toHaveLength(1);
  expect(status.value.nodes[0]!.uri).not.toBe(hubUrl);
});

test("open and navigate through the hub: the page's URL and title come over BiDi", async () => {
  const opened = await server.call("POST", "/browser", { url: site.url("/home") }, W);
  expect(opened.status).toBe(200);
  expect(opened.body).toMatchObject({ url: site.url("/home"), title: "in=no; pref=none", browser: "chrome" });
  const went = await server.call("POST", "/browser/navigate", { url: site.url("/login") }, W);
  expect(went.body).toMatchObject({ url: site.url("/login"), title: "Signed in" });
  const read = await server.call("POST", "/browser/extract", { selector: { css: "title" } }, W);
  expect(read.status).toBe(200);
});

test("save site data over BiDi, end the browser, and the next call's browser is signed in again", async () => {
  const saved = await server.call("POST", "/browser/save-site-data", {}, W);
  expect(saved.status).toBe(200);
  expect(saved.body.saved).toMatchObject({ cookies: 1 });
  expect((await server.call("DELETE", "/browser", undefined, W)).body).toEqual({ ended: true });
  const back = await server.call("POST", "/browser/navigate", { url: site.url("/home") }, W);
  expect(back.status).toBe(200);
  expect(back.body.title).toBe("in=yes; pref=dark");
  expect(back.body.site_data).toMatchObject({ restored: ["app.example.test"] });
});

test("a managed download through the hub is listed and read", async () => {
  expect((await server.call("POST", "/browser/navigate", { url: site.url("/download") }, W)).status).toBe(
    200,
  );
  let files: Array<{ name: string; size: number }> = [];
  for (let i = 0; i < 100 && !files.some((f) => f.name === "report.csv"); i++) {
    await Bun.sleep(100);
    files = (await server.call("GET", "/files/downloads", undefined, W)).body.files;
  }
  expect(files.find((f) => f.name === "report.csv")).toMatchObject({ size: CSV.length });
  const read = await fetch(`${server.url}/files/downloads/report.csv`, {
    headers: { authorization: "Bearer test-token-0123456789", "x-workspace": W },
  });
  expect(await read.text()).toBe(CSV);
});

test("a browser reaped behind the server's back is reopened silently through the hub, signed in, on its last page", async () => {
  await server.call("POST", "/browser/navigate", { url: site.url("/home") }, W);
  const before = await server.app.services.store.get(W);
  const reaped = await fetch(`${hubUrl}/session/${before!.session_id}`, { method: "DELETE" });
  expect(reaped.status).toBe(200);
  const next = await server.call("POST", "/browser/navigate", { url: site.url("/home") }, W);
  expect(next.status).toBe(200);
  expect(next.body.title).toBe("in=yes; pref=dark");
  expect(next.body.site_data).toMatchObject({ restored: ["app.example.test"] });
  const after = await server.app.services.store.get(W);
  expect(after!.session_id).not.toBe(before!.session_id);
  const current = await server.call("GET", "/browser", undefined, W);
  expect(current.body).toMatchObject({ live: true, url: site.url("/home"), title: "in=yes; pref=dark" });
});
