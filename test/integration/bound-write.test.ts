// A bound write on the real Grid: write with secret {name, key} types a value the agent never sees,
// only on the hosts the secret allows; a landing URL that carries it is shown as [hidden] and kept out
// of the history while the TTL still slides; and no value reaches a response body or a log line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SCRIPT_AFTER_WRITE } from "../../src/actions/script.ts";
import { testGridUrl } from "../support/env.ts";
import { serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { actionPages } from "../support/pages.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "bound-write";
const USER = "ada-u51x-qz9"; // no 4-character run of a typed value comes back, so none of a word the test reads
const PASSWORD = "pw-3f9-not-shown";
const OTHER = "other-77b-token";
// Site data the page keeps: never in a reply or a log line either.
const COOKIE = "bw-cookie-8d14a7e2";
const LOCAL = "bw-local-35c9f0b6";
const VALUES = [USER, PASSWORD, OTHER, COOKIE, LOCAL];
const site = serveFixture(actionPages);
const bodies: string[] = [];
let server: TestServer;
let mcp: McpClient;

async function call(path: string, body: unknown = {}) {
  const res = await server.call("POST", path, body, W);
  bodies.push(JSON.stringify(res.body));
  return res;
}

const history = async () => (await server.app.services.store.get(W))!.history.map((v) => v.url);

beforeAll(async () => {
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.secrets.entries = {
        signin: {
          description: "the fixture app's test user",
          allowed_urls: [`http://app.example.test:${site.port}/signin`],
          keys: { user: { value: USER }, password: { value: PASSWORD } },
        },
        elsewhere: {
          description: "a token for another host",
          allowed_urls: ["https://api.example.test/"],
          keys: { token: { value: OTHER } },
        },
      };
    },
  });
  mcp = await mcpClient(server, W);
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  const everything = [...bodies, ...mcp.texts, ...logLines].join("\n");
  for (const v of VALUES) expect(everything).not.toContain(v);
});

describe("write with a secret", () => {
  test("types the values on an allowed host; the agent reads them back only as [hidden]", async () => {
    await call("/browser/navigate", { url: site.url("/signin") });
    const user = await call("/browser/write", {
      selector: { label: "Username" },
      secret: { name: "signin", key: "user" },
    });
    expect(user.status).toBe(200);
    expect(user.body).toEqual({ url: site.url("/signin"), title: "Sign in" });
    const pw = await mcp.tool("write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
    });
    expect(pw.isError).toBeFalsy();
    expect(pw.structuredContent).toEqual({ url: site.url("/signin"), title: "Sign in" });

    // A script could read the typed values back in any encoding: scripts are refused on this page.
    const typed = await call("/browser/script", { script: "[user.value.length, pw.value.length]" });
    expect(typed.status).toBe(400);
    expect(typed.body.error).toBe(SCRIPT_AFTER_WRITE);
    const polled = await call("/browser/assert", { script: "user.value.length > 0", timeout: 0 });
    expect(polled.status).toBe(400);
    expect(polled.body.error).toBe(SCRIPT_AFTER_WRITE);
    // The page holds the values; what the agent reads does not.
    const read = await call("/browser/read");
    const fields = new Map<string, any>(read.body.elements.map((e: any) => [e.name, e]));
    expect(fields.get("Username").value).toBe("[hidden]");
    expect(fields.get("Password")).toMatchObject({ filled: true });
    expect(fields.get("Password").value).toBeUndefined();
    expect(
      (await call("/browser/extract", { selector: { label: "Username" }, get: "value" })).body.result,
    ).toBe("[hidden]");

    const sent = await call("/browser/interact/click", { selector: { role: "button", name: "Sign in" } });
    expect(sent.body).toEqual({ url: site.url("/welcome"), title: "Welcome" });
    expect((await call("/browser/extract", { selector: { css: "h1" } })).body.result).toBe(
      "Welcome, [hidden]",
    );
    expect((await history())[0]).toBe(site.url("/welcome"));
  }, 120_000);

  test("a landing URL that carries the typed value is shown [hidden] and not recorded; the TTL still slides", async () => {
    // This sign-in form sends with GET, so the password lands in the URL.
    await call("/browser/navigate", { url: site.url("/signin-get") });
    await call("/browser/write", { selector: { label: "Username" }, text: "plain-name" });
    const before = await history();
    await Bun.sleep(1500);
    const res = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
      submit: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.title).toBe("Welcome");
    expect(res.body.url).toBe(`${site.url("/welcome")}?user=plain-name&pw=[hidden]`);
    expect(await history()).toEqual(before);
    expect(await server.app.services.store.expiresIn(W)).toBeGreaterThan(server.config.session.ttl - 1);

    // The next call on that page shows it the same way, and records nothing either.
    const again = await call("/browser/read");
    expect(again.body.url).toBe(`${site.url("/welcome")}?user=plain-name&pw=[hidden]`);
    expect(await history()).toEqual(before);
  }, 120_000);

  test("a field that keeps fewer characters than the secret's value: a 400, and nothing typed (never a value cut short)", async () => {
    await call("/browser/navigate", { url: site.url("/signin") });
    expect(
      (await call("/browser/script", { script: "document.getElementById('pw').maxLength = 8" })).status,
    ).toBe(200);
    const short = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
    });
    expect(short.status).toBe(400);
    expect(short.body.error).toBe(
      '{"label":"Password"} keeps at most 8 characters (its maxlength), fewer than the secret\'s value: nothing was typed; name the field that takes the whole value',
    );
    const held = await call("/browser/script", { script: "document.getElementById('pw').value.length" });
    expect(held.body.result).toBe(0);
  });

  test("off its allowed hosts, or unknown: a 400 naming the host and the secret, and nothing typed", async () => {
    await call("/browser/navigate", { url: site.url("/signin", "other.example.test") });
    const off = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
    });
    expect(off.status).toBe(400);
    expect(off.body.error).toContain("secret signin may not be typed on other.example.test");
    const wrongHost = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "elsewhere", key: "token" },
    });
    expect(wrongHost.body.error).toContain("secret elsewhere may not be typed on other.example.test");
    const filled = await call("/browser/read");
    expect(filled.body.elements.find((e: any) => e.name === "Password").filled).toBe(false);

    const unknown = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "nope", key: "password" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain("there is no secret named nope");
    const noKey = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "pin" },
    });
    expect(noKey.body.error).toContain("secret signin has no key pin");
    const over = await mcp.tool("write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
    });
    expect(over.isError).toBe(true);
    expect(over.content[0].text).toBe(off.body.error);
  }, 120_000);

  test("a bound write with submit that lands on a page without the value: the workspace is there now", async () => {
    await call("/browser/navigate", { url: site.url("/signin") });
    await call("/browser/write", { selector: { label: "Username" }, text: "plain-name" });
    // The form posts: the landing URL carries nothing that was typed.
    const res = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
      submit: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: site.url("/welcome"), title: "Welcome" });
    expect((await history())[0]).toBe(site.url("/welcome"));
    const browser = await server.call("GET", "/browser", undefined, W);
    bodies.push(JSON.stringify(browser.body));
    expect(browser.body.url).toBe(site.url("/welcome"));
    expect((await mcp.resource("workspace://current")).url).toBe(site.url("/welcome"));
  }, 120_000);

  test("a bound write after a silent reopen says what came back, once", async () => {
    await call("/browser/navigate", { url: site.url("/signin") });
    const planted = await call("/browser/script", {
      script: `document.cookie = "bw_pref=${COOKIE}; path=/"; localStorage.setItem("bw_local", "${LOCAL}"); return true`,
    });
    expect(planted.body.result).toBe(true);
    const saved = await call("/browser/save-site-data");
    expect(saved.body.saved).toEqual({
      cookies: 1,
      sites: [site.url("")],
      skipped: [],
    });

    // The Grid reaps the browser behind the server's back.
    const id = (await server.app.services.store.get(W))!.session_id;
    expect(id).not.toBe("");
    expect((await fetch(`${testGridUrl}/session/${id}`, { method: "DELETE" })).status).toBe(200);

    const report = { restored: ["app.example.test"], skipped: [], uri: "workspace://site-data" };
    const pw = await mcp.tool("write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
    });
    expect(pw.isError).toBeFalsy();
    expect(pw.structuredContent).toEqual({ url: site.url("/signin"), title: "Sign in", site_data: report });
    expect(JSON.parse(pw.content[0].text).site_data).toEqual(report);
    const record = (await server.app.services.store.get(W))!;
    expect(record.session_id).not.toBe(id);
    expect(record.reopened).toEqual({});

    // The value was typed into the reopened browser (and no script may look at it there)...
    const filled = await call("/browser/read");
    expect(filled.body.elements.find((e: any) => e.name === "Password").filled).toBe(true);
    expect("site_data" in filled.body).toBe(false);
    expect((await call("/browser/script", { script: "1" })).body.error).toBe(SCRIPT_AFTER_WRITE);
    // ...and the site data really came back: on a new document, scripts run again.
    await call("/browser/navigate", { url: site.url("/signin") });
    const back = await call("/browser/script", {
      script: `document.cookie.split("; ").includes("bw_pref=${COOKIE}") && localStorage.getItem("bw_local") === "${LOCAL}"`,
    });
    expect(back.body.result).toBe(true);
    // That script ran on this document: a secret is typed only on a fresh one.
    await call("/browser/navigate", { url: site.url("/signin") });
    const again = await mcp.tool("write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
    });
    expect(again.structuredContent).toEqual({ url: site.url("/signin"), title: "Sign in" });
  }, 120_000);
});
