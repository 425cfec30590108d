// The navigation policy on the real Grid: the browser itself refuses every request to a blocked host
// or a private address in any IP form — navigations (a 400 naming the host and the rule), redirects,
// frames, fetch and XHR — and the fixture never hears them (a pop-up's tab is closed; its first
// request may leave before the tab can be intercepted); refused sub-requests are counted
// in logs; a workspace's policy narrows the server's, never widens it. Also open_session's url is
// refused as navigate's is (a javascript: or file: address), and a secret's *.host allowed_urls item
// is typed on the hosts it names.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "policy";
let server: TestServer;
/** Every Host header the fixture was asked for. */
const heard: string[] = [];

const site = serveFixture({
  "/home": (req) => {
    heard.push(req.headers.get("host") ?? "");
    return html("<title>Home</title><p>home</p>");
  },
  "/x": (req) => {
    const u = new URL(req.url);
    heard.push(`${req.headers.get("host") ?? ""}${u.pathname}${u.search}`);
    return html("<title>Reached</title>", { "access-control-allow-origin": "*" });
  },
  "/redirect": (req) => {
    heard.push(req.headers.get("host") ?? "");
    return Response.redirect(site.url("/x?redirect", "evil.blocked.example.test"), 302);
  },
  "/frames": (req) => {
    heard.push(req.headers.get("host") ?? "");
    return html(
      `<title>Frames</title><iframe src="${site.url("/x?frame", "evil.blocked.example.test")}"></iframe><iframe src="http://127.0.0.1:${site.port}/x?frame"></iframe>`,
    );
  },
  "/fetch": (req) => {
    heard.push(req.headers.get("host") ?? "");
    const targets = [
      site.url("/x", "evil.blocked.example.test"),
      `http://2130706433:${site.port}/x`,
      `http://0x7f000001:${site.port}/x`,
      `http://[::ffff:127.0.0.1]:${site.port}/x`,
      site.url("/x", "ok.example.test"),
    ];
    return html(`<title>Fetch</title><script>
const out = [];
const xhr = new XMLHttpRequest();
xhr.open("GET", "http://0177.0.0.1:${site.port}/x");
xhr.onloadend = () => { window.xhrStatus = xhr.status; };
xhr.send();
Promise.all(${JSON.stringify(targets)}.map((u) => fetch(u).then((r) => "ok " + r.status, () => "failed")))
  .then((r) => { window.results = r; document.title = "Fetched"; });
</script>`);
  },
  "/popup": (req) => {
    heard.push(req.headers.get("host") ?? "");
    return html(
      `<title>Popup</title><button onclick="window.open('${site.url("/x?popup", "evil.blocked.example.test")}')">Open</button>`,
    );
  },
  "/signin": (req) => {
    heard.push(req.headers.get("host") ?? "");
    return html(`<title>Sign in</title><label>Password <input id="pw" type="password"></label>`);
  },
});

const call = (path: string, body?: unknown, workspace = W) => server.call("POST", path, body, workspace);
/** A call that must answer 200, its error said when it does not (CI once had a 503 here, unsaid). */
const ok = async (path: string, body?: unknown, workspace = W) => {
  const res = await call(path, body, workspace);
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  return res;
};
/** What reached a refused host, but a pop-up's first request (see the pop-up test). */
const evil = () => heard.filter((h) => /evil|^127\.|^\[/.test(h) && !h.endsWith("?popup"));

beforeAll(async () => {
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.navigate.blocked_hosts = ["*.blocked.example.test"];
      c.navigate.private_addresses = "block";
      c.secrets.entries = {
        anysub: { allowed_urls: ["*.example.test"], keys: { password: { value: "glob-secret-5521" } } },
      };
    },
  });
  expect((await call("/browser", { url: site.url("/home") })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await endAll(server, [W, `${W}-narrow`]);
  await server.close();
  site.stop();
});

describe("the navigation policy", () => {
  test("navigate to a blocked host or a private address in any form: a 400 naming the host and the rule", async () => {
    const blocked = await call("/browser/navigate", { url: site.url("/x", "evil.blocked.example.test") });
    expect(blocked.status).toBe(400);
    expect(blocked.body.error).toContain(
      "evil.blocked.example.test is refused by the navigation policy: the server's navigate.blocked_hosts lists *.blocked.example.test",
    );
    for (const url of [
      `http://127.0.0.1:${site.port}/x`,
      `http://2130706433:${site.port}/x`,
      `http://0x7f000001:${site.port}/x`,
      `http://[::1]:${site.port}/x`,
      "http://169.254.169.254/latest/meta-data/",
    ]) {
      const res = await call("/browser/navigate", { url });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(
        /is refused by the navigation policy: it is a .*address, which the server's navigate.private_addresses setting blocks/,
      );
    }
    expect(evil()).toEqual([]);
  });

  test("a redirect to a blocked host: a 400 naming where it went, and the host never hears it", async () => {
    const res = await call("/browser/navigate", { url: site.url("/redirect") });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(
      `the page went on to ${site.url("/x?redirect", "evil.blocked.example.test")}`,
    );
    expect(res.body.error).toContain("navigate.blocked_hosts lists *.blocked.example.test");
    expect(evil()).toEqual([]);
  });

  test("frames, fetch and XHR toward blocked hosts and IP forms fail in the page, and logs count them", async () => {
    const start = (await call("/browser/logs", {})).body.next_cursor;
    await ok("/browser/navigate", { url: site.url("/frames") });
    await ok("/browser/navigate", { url: site.url("/fetch") });
    let results: unknown = null;
    for (let i = 0; i < 40 && !results; i++) {
      results = (
        await call("/browser/script", { script: "window.results && [...window.results, window.xhrStatus]" })
      ).body.result;
      if (!results) await Bun.sleep(100);
    }
    expect(results).toEqual(["failed", "failed", "failed", "failed", "ok 200", 0]);
    const logs = (await call("/browser/logs", { cursor: start, kind: "network", tab: "all" })).body;
    const refused = logs.entries.filter((e: { refused?: boolean }) => e.refused);
    // Two frames, four fetches and the XHR.
    expect(refused.length).toBe(7);
    expect(refused.map((e: { error: string }) => e.error)).toContainEqual(
      "evil.blocked.example.test is refused by the navigation policy: the server's navigate.blocked_hosts lists *.blocked.example.test",
    );
    expect(evil()).toEqual([]);
  });

  test("a pop-up toward a blocked host is closed at once; at most its first request left the browser", async () => {
    await ok("/browser/navigate", { url: site.url("/popup") });
    const start = (await call("/browser/logs", {})).body.next_cursor;
    const click = await call("/browser/interact/click", { selector: { text: "Open" } });
    expect(click.status).toBe(200);
    await Bun.sleep(800);
    // Chromium may send a new tab's first request before the tab can be intercepted (found here,
    // about one run in two): the tab is closed as its navigation starts, so nothing of it is kept.
    expect(heard.filter((h) => h.endsWith("?popup")).length).toBeLessThanOrEqual(1);
    const tabs = (await call("/browser/switch", { tab: "list" })).body;
    expect(JSON.stringify(tabs)).not.toContain("evil.blocked");
    const logs = (await call("/browser/logs", { cursor: start, tab: "all" })).body;
    expect(JSON.stringify(logs.entries)).toContain(
      `a pop-up toward ${site.url("/x?popup", "evil.blocked.example.test")} was closed: evil.blocked.example.test is refused by the navigation policy`,
    );
    expect(evil()).toEqual([]);
  });

  test("a workspace's policy narrows the server's and cannot widen it", async () => {
    const ws = `${W}-narrow`;
    const opened = await call(
      "/browser",
      {
        url: site.url("/home", "ok.example.test"),
        policy: { allow: ["ok.example.test", "127.0.0.1", "evil.blocked.example.test"] },
      },
      ws,
    );
    expect({ status: opened.status, error: opened.body?.error }).toEqual({ status: 200, error: undefined });
    const other = await call("/browser/navigate", { url: site.url("/home") }, ws);
    expect(other.status).toBe(400);
    expect(other.body.error).toContain(
      "app.example.test is refused by the navigation policy: this workspace's policy allows only ok.example.test, 127.0.0.1, evil.blocked.example.test",
    );
    const loop = await call("/browser/navigate", { url: `http://127.0.0.1:${site.port}/x` }, ws);
    expect(loop.body.error).toContain("navigate.private_addresses");
    const bad = await call("/browser/navigate", { url: site.url("/x", "evil.blocked.example.test") }, ws);
    expect(bad.body.error).toContain("navigate.blocked_hosts");
    // Kept for the workspace's next browser; open_session toward a refused host is a 400 before any browser opens.
    const again = await call("/browser", { url: site.url("/home") }, ws);
    expect(again.status).toBe(400);
    expect(again.body.error).toContain("this workspace's policy allows only");
    expect(evil()).toEqual([]);
  });
});

describe("open_session's url", () => {
  test("a javascript: or file: address is a 400 naming the scheme, as navigate's", async () => {
    for (const url of ["javascript:alert(1)", "file:///etc/passwd"]) {
      const scheme = url.split(":")[0];
      const opened = await call("/browser", { url });
      expect(opened.status).toBe(400);
      expect(opened.body.error).toContain(`url: ${scheme}: addresses are not loaded here`);
      const nav = await call("/browser/navigate", { url });
      expect(nav.status).toBe(400);
      expect(nav.body.error).toContain(`url: ${scheme}: addresses are not loaded here`);
    }
  });
});

describe("a secret's *.host allowed_urls item", () => {
  test("is typed on a host under it", async () => {
    expect((await call("/browser", { url: site.url("/signin", "shop.example.test") })).status).toBe(200);
    const typed = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "anysub", key: "password" },
      submit: "auto",
    });
    expect(typed.status).toBe(200);
    expect(typed.body.title).toBe("Sign in");
  });
});
