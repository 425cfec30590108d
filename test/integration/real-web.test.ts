// The traps of ordinary pages (issue 19): a Back onto a page with an iframe, a window.open pop-up,
// an element below the first screen, a beforeunload handler, non-web schemes, a hanging
// subresource, and the HTTP status of a navigation. Each page here is the hostile one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const never = new Promise<Response>(() => undefined);
const site = serveFixture({
  "/framed": () =>
    html(`<title>Framed</title><h1>Framed</h1><iframe src="/inner" width="200" height="80"></iframe>
<a href="/other">Other</a>`),
  "/inner": () => html(`<title>Inner</title><p>an embed</p>`),
  "/other": () => html(`<title>Other</title><h1>Other page</h1>`),
  "/opener": () =>
    html(`<title>Opener</title><button id="b" onclick="
      const w = window.open('', 'pop');
      w.document.write('<title>Written</title><p id=w>written by the opener</p>');
      w.document.close();
    ">Open</button>`),
  // Each way a page opens a pop-up (see Page.usable): the first keeps its opener and loads a
  // same-origin page at once, which Chromium's BiDi never answers until it is reloaded.
  "/pops": () =>
    html(`<title>Pops</title>
<button id="same" onclick="window.open('/popped?same')">same</button>
<a id="rel" href="/popped?rel" target="_blank" rel="opener">rel</a>
<a id="blank" href="/popped?blank" target="_blank">blank</a>
<button id="noopener" onclick="window.open('/popped?noopener', '_blank', 'noopener')">noopener</button>
<button id="cross" onclick="window.open(location.href.replace('127.0.0.1', 'app.example.test').replace('/pops', '/popped?cross'))">cross</button>`),
  "/popped": () => html(`<title>Popped</title><p>the pop-up's own page</p>`),
  "/tall": () =>
    html(`<title>Tall</title><div style="height:3000px">top</div>
<div id="low" style="width:120px;height:40px;background:rgb(200,0,0)">low</div><div style="height:500px"></div>`),
  "/leave": () =>
    html(`<title>Leave</title><script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });</script>
<input id="t" value="x"><a href="/other">Other</a>`),
  "/hang": () => html(`<title>Hang</title><h1>Usable</h1><img src="/never.png">`),
  "/never.png": () => never,
  "/pay": () =>
    new Response("<!doctype html><title>Pay</title><h1>Payment required</h1>", {
      status: 402,
      headers: { "content-type": "text/html" },
    }),
});

let server: TestServer;
const W = "real-web";

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await endAll(server, [W, B]);
  await server.close();
  site.stop();
});

const call = (path: string, body: unknown) => server.call("POST", path, body, W);
const inPage = async (script: string) => (await call("/browser/script", { script })).body.result;

test("a window.open pop-up lists, and keeps what its opener wrote into it", async () => {
  await call("/browser/navigate", { url: site.url("/opener") });
  await call("/browser/interact/click", { selector: { css: "#b" } });
  const started = Date.now();
  const list = await call("/browser/switch", { tab: "list" });
  expect(list.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(list.body.tabs.length).toBe(2);
  expect(list.body.tabs[0].title).toBe("Opener");
  const into = await call("/browser/switch", { tab: 1 });
  expect(into.status).toBe(200);
  const read = await call("/browser/read", {});
  expect(read.status).toBe(200);
  expect(JSON.stringify(read.body)).toContain("written by the opener");
  await call("/browser/switch", { tab: "close" });
}, 90_000);

test("every kind of pop-up lists, reads and takes a click", async () => {
  for (const id of ["same", "rel", "blank", "noopener", "cross"]) {
    await call("/browser/navigate", { url: site.url("/pops") });
    expect((await call("/browser/interact/click", { selector: { css: `#${id}` } })).status).toBe(200);
    const started = Date.now();
    const list = await call("/browser/switch", { tab: "list" });
    expect([id, list.status, list.body.error]).toEqual([id, 200, undefined]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect([id, list.body.tabs.map((t: { title: string }) => t.title)]).toEqual([id, ["Pops", "Popped"]]);
    const into = await call("/browser/switch", { tab: 1 });
    expect([id, into.status, into.body.url]).toEqual([id, 200, expect.stringContaining(`/popped?${id}`)]);
    const read = await call("/browser/read", {});
    expect([id, read.status, JSON.stringify(read.body).includes("the pop-up's own page")]).toEqual([
      id,
      200,
      true,
    ]);
    expect(
      (await call("/browser/interact/click", { selector: { text: "the pop-up's own page" } })).status,
    ).toBe(200);
    expect((await call("/browser/switch", { tab: "close" })).status).toBe(200);
  }
}, 180_000);

test("an element below the first screen can be screenshot", async () => {
  await call("/browser/navigate", { url: site.url("/tall") });
  await inPage("window.scrollTo(0, 0); return 1");
  const shot = await call("/browser/screenshot", { selector: { css: "#low" } });
  expect(shot.body.error).toBeUndefined();
  expect(shot.status).toBe(200);
}, 60_000);

test("leaving a page with a beforeunload handler never answers the old page with an empty title", async () => {
  await call("/browser/navigate", { url: site.url("/leave") });
  // A gesture first: Chromium asks beforeunload only of a page the user touched.
  await call("/browser/interact/click", { selector: { css: "#t" } });
  const left = await call("/browser/navigate", { url: site.url("/other") });
  if (left.status === 200 && left.body.url === site.url("/other")) {
    expect(left.body.title).toBe("Other");
  } else {
    expect(left.status).toBe(400);
    expect(left.body.error).toContain("beforeunload");
    const accepted = await call("/browser/dialog", { action: "accept" });
    expect(accepted.status).toBe(200);
    const now = await call("/browser/navigate", { url: site.url("/other") });
    expect(now.body).toMatchObject({ url: site.url("/other"), title: "Other" });
  }
}, 60_000);

test("file:, chrome: and view-source: are refused, naming the url field and the setting", async () => {
  for (const url of ["file:///etc/passwd", "chrome://version", "view-source:http://app.example.test/"]) {
    const got = await call("/browser/navigate", { url });
    expect(got.status).toBe(400);
    expect(JSON.stringify(got.body)).toContain("url");
    expect(JSON.stringify(got.body)).toContain("allow_schemes");
  }
  const data = await call("/browser/navigate", { url: "data:text/html,<title>D</title>" });
  expect(data.status).toBe(200);
}, 60_000);

test("a page with a hanging subresource answers once interactive, saying it is still loading", async () => {
  const started = Date.now();
  const got = await call("/browser/navigate", { url: site.url("/hang") });
  expect(got.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(12_000);
  expect(got.body).toMatchObject({ title: "Hang", loading: true });
  const ok = await call("/browser/navigate", { url: site.url("/other") });
  expect(ok.body.loading).toBeUndefined();
}, 60_000);

test("navigate answers the document's HTTP status", async () => {
  const pay = await call("/browser/navigate", { url: site.url("/pay") });
  expect(pay.status).toBe(200);
  expect(pay.body.status).toBe(402);
  const ok = await call("/browser/navigate", { url: site.url("/other") });
  expect(ok.body.status).toBe(200);
}, 60_000);

// Its own workspace: a workspace stuck by this trap would fail every test after it.
const B = "real-web-bfcache";
const callB = (path: string, body: unknown) => server.call("POST", path, body, B);

test("Back onto a page with an iframe (back/forward cache) keeps the workspace working", async () => {
  // Each call's status with its error: a 503 (a slot, a busy page) is named rather than met as a hang later.
  const ok = async (path: string, body: unknown) => {
    const got = await callB(path, body);
    expect([path, got.status, got.body.error]).toEqual([path, 200, undefined]);
  };
  await ok("/browser/navigate", { url: site.url("/framed") });
  await ok("/browser/read", {});
  await ok("/browser/interact/click", { selector: { text: "Other" } });
  const back = await callB("/browser/navigate", { back: true });
  expect(back.status).toBe(200);
  expect(back.body).toMatchObject({ url: site.url("/framed"), title: "Framed" });
  const read = await callB("/browser/read", {});
  expect(read.status).toBe(200);
  expect(JSON.stringify(read.body)).toContain("Framed");
  const list = await callB("/browser/switch", { tab: "list" });
  expect(list.status).toBe(200);
  expect(list.body.tabs[0].title).toBe("Framed");
}, 90_000);
