// A whole journey, as an agent makes it, with secrets that hold common words and years: sign in
// through an identity provider with bound writes while a second tab is open, go across sites and
// use every read on real-world pages and on pages with javascript:, about:blank and srcdoc frames,
// save, end, come back in a new browser still signed in, keep the calls as a flow and replay it.
// The sign-in is one call (fields and submit, spec §1.17).
// Nothing may be refused, mangled or lost (issue 26); the attack suites run in the same `npm test`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Fixture, html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "journey-sign-in";
const PASSWORD = "hunter2-Example!";
const PIN = "Welcome2024!";
const PAGES = join(import.meta.dir, "../fixtures/pages");
const REAL = ["wikipedia.html", "gitlab-blog.html", "nytimes-1.html"];
let server: TestServer;
let site: Fixture;
const answers: string[] = [];

async function call(method: string, path: string, body?: unknown) {
  const res = await server.call(method, path, body, W);
  answers.push(JSON.stringify(res.body));
  return res;
}
const post = (path: string, body: unknown = {}) => call("POST", path, body);

beforeAll(async () => {
  site = serveFixture({
    "/": () =>
      html(`<title>Shop home</title><h1>Shop</h1>
<a id=signin href="${site.url("/login", "idp.example.test")}">Sign in</a>
<a id=help href="/help" target=_blank>Help</a>`),
    "/help": () => html(`<title>Help</title><p>How to shop.</p>`),
    // The identity provider answers its form's POST with a redirect back to the shop.
    "/login": (req) =>
      req.method === "POST"
        ? new Response(null, {
            status: 303,
            headers: {
              location: site.url("/callback?code=c2024", "shop.example.test"),
              "set-cookie": "idp_sid=s2024; Path=/; HttpOnly",
            },
          })
        : html(`<title>Example ID</title><form method=post action="/login">
<label>Email <input name=user></label><label>Password <input name=pw type=password></label>
<label>PIN <input name=pin type=password></label><button>Sign in</button></form>`),
    "/callback": () =>
      html(`<title>Signing in</title><script>
localStorage.setItem("token", "tok-" + new URLSearchParams(location.search).get("code"));
location.replace("/account");</script>`),
    "/account": () =>
      html(`<title>Account</title><p id=state></p><script>
state.textContent = localStorage.getItem("token") ? "Signed in to Example Shop 2024" : "Signed out";</script>`),
    "/frames": () =>
      html(
        `<title>Frames</title><p>Frames of every kind.</p>
<iframe src="javascript:void(0)"></iframe><iframe src="about:blank"></iframe>
<iframe srcdoc="<p>inline frame, Example 2024</p>"></iframe>`,
        { "content-security-policy": "script-src 'none'" },
      ),
    ...Object.fromEntries(REAL.map((f) => [`/real/${f}`, () => html(readFileSync(join(PAGES, f), "utf8"))])),
  });
  server = await startServer({
    configure: (c) => {
      c.timeline.keep = 500;
      c.secrets.entries = {
        idp: {
          description: "the shop's sign-in at Example ID",
          allowed_urls: ["idp.example.test"],
          keys: { password: { value: PASSWORD }, pin: { value: PIN } },
        },
      };
    },
  });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

/** Nothing shown was mangled by the secrets: no [hidden] stretch in a word or host name. */
function unmangled(text: string): void {
  expect(text).not.toMatch(/\w\[hidden\]|\[hidden\]\w/);
  expect(text).not.toContain("e[hidden]");
}

describe("sign in, go places, save, come back, replay", () => {
  test("the journey", async () => {
    // A second tab, opened by the page, stays open through the sign-in.
    expect((await post("/browser/navigate", { url: site.url("/", "shop.example.test") })).status).toBe(200);
    const help = await post("/browser/interact/click", { selector: { css: "#help" } });
    expect([help.status, help.body.new_tab]).toEqual([200, 1]);
    const tabs = await post("/browser/switch", { tab: "list" });
    expect(tabs.body.tabs.length).toBe(2);
    await post("/browser/switch", { tab: 0 });
    const toIdp = await post("/browser/interact/click", { selector: { text: "Sign in" } });
    expect(toIdp.body.url).toStartWith(site.url("/login", "idp.example.test"));
    // The sign-in in one call: the email as text, the password and the PIN from the secret, sent by
    // the form's button (the click with the second tab open answers: it hung 5 s into a 503 before).
    const signed = await post("/browser/write", {
      fields: [
        { selector: { label: "Email" }, text: "alice@example.test" },
        { selector: { label: "Password" }, secret: { name: "idp", key: "password" } },
        { selector: { label: "PIN" }, secret: { name: "idp", key: "pin" } },
      ],
      submit: { role: "button", name: "Sign in" },
    });
    expect([signed.status, signed.body.error]).toEqual([200, undefined]);
    expect(signed.body.url).toBe(site.url("/account", "shop.example.test"));
    expect((await post("/browser/extract", { selector: { css: "#state" } })).body.result).toBe(
      "Signed in to Example Shop 2024",
    );

    // Across sites: every read on real pages and on a page with every kind of odd frame.
    // (What the sign-in's page logged while the write ran reads [withheld]; every page after it is whole.)
    for (const path of [...REAL.map((f) => `/real/${f}`), "/frames"]) {
      const url = site.url(path, "news.example.test");
      const from = (await post("/browser/logs")).body.next_cursor;
      const nav = await post("/browser/navigate", { url });
      expect(nav.status).toBe(200);
      expect(nav.body.url).toBe(url);
      const script = await post("/browser/script", { script: "location.href" });
      expect(script.status).toBe(200);
      expect(script.body.result).toBe(url);
      expect((await post("/browser/screenshot")).status).toBe(200);
      const read = await post("/browser/read");
      expect(read.status).toBe(200);
      unmangled(JSON.stringify(read.body));
      const logs = await post("/browser/logs", { cursor: from, kind: "network" });
      expect(logs.status).toBe(200);
      expect(logs.body.note).toBeUndefined();
      expect(logs.body.entries.map((e: { url: string }) => e.url)).toContain(url);
      unmangled(JSON.stringify(logs.body));
    }

    // The save reads every origin it would read had the password been typed as text.
    const saved = await post("/browser/save-site-data");
    expect(saved.status).toBe(200);
    // The shop's sign-in token (localStorage) and the identity provider's cookie are both kept.
    expect(saved.body.saved.sites).toContain(new URL(site.url("/", "shop.example.test")).origin);
    expect(saved.body.saved.cookies).toBe(1);
    const listed = (await call("GET", "/site-data")).body.sites.map((x: { site: string }) => x.site);
    expect(listed).toContain("shop.example.test");
    expect(listed).toContain("idp.example.test");
    expect(saved.body.saved.skipped).toEqual([]);

    // A new browser comes back signed in.
    expect((await call("DELETE", "/browser")).body).toEqual({ ended: true });
    const back = await post("/browser/navigate", { url: site.url("/account", "shop.example.test") });
    expect(back.status).toBe(200);
    expect((await post("/browser/extract", { selector: { css: "#state" } })).body.result).toBe(
      "Signed in to Example Shop 2024",
    );

    // The last calls kept as a flow and replayed: no URL it reports is mangled.
    const kept = await call("PUT", "/flows/journey", { from_timeline: { last: 14 } });
    expect(kept.status).toBe(200);
    unmangled(kept.body.yaml);
    expect(kept.body.yaml).toContain("news.example.test");
    const run = await post("/flows/journey/run");
    expect(run.status).toBe(200);
    expect(run.body.status).toBe("ok");
    unmangled(JSON.stringify(run.body));

    // Everything the agent was answered: no secret, and nothing mangled.
    const all = answers.join("\n");
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(PIN);
    unmangled(all);
  }, 600_000);
});
