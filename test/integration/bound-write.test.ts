// A bound write on the real Grid: write with secret {name, key} types a value the agent never sees,
// only on the hosts the secret allows, sends the form and empties the fields before it answers (spec
// §1.17); a landing URL that carries it is shown as [hidden] and kept out of the history while the TTL
// still slides; and no value reaches a response body or a log line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { actionPages } from "../support/pages.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";
import { expiresIn } from "../support/store-ttl.ts";

const W = "bound-write";
const USER = "ada-u51x-qz9"; // no 4-character run of a typed value comes back, so none of a word the test reads
const PASSWORD = "pw-3f9-not-shown";
const OTHER = "other-77b-token";
// Site data the page keeps: never in a reply or a log line either.
const COOKIE = "bw-cookie-8d14a7e2";
const LOCAL = "bw-local-35c9f0b6";
const VALUES = [USER, PASSWORD, OTHER, COOKIE, LOCAL];
const site = serveFixture({
  ...actionPages,
  // A sign-in whose password field keeps fewer characters than the secret's value.
  "/signin-short": () =>
    html(`<title>Sign in</title><form action="/welcome" method="post">
<label for="user">Username</label><input id="user" name="user">
<label for="pw">Password</label><input id="pw" name="pw" type="password" maxlength="8">
<button type="submit">Sign in</button></form>`),
});
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
      c.secrets.hold_ms = 300;
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
  test("types the values on an allowed host and sends them in one call; after it the form holds nothing", async () => {
    await call("/browser/navigate", { url: site.url("/signin") });
    const signIn = await call("/browser/write", {
      fields: [
        { selector: { label: "Username" }, secret: { name: "signin", key: "user" } },
        { selector: { label: "Password" }, secret: { name: "signin", key: "password" } },
      ],
      submit: { role: "button", name: "Sign in" },
    });
    expect(signIn.status).toBe(200);
    expect(signIn.body).toEqual({ url: site.url("/welcome"), title: "Welcome" });
    // The site got both values (its page echoes the user name, which comes back [hidden]).
    expect((await call("/browser/extract", { selector: { css: "h1" } })).body.result).toBe(
      "Welcome, [hidden]",
    );
    expect((await call("/browser/extract", { selector: { css: "#fields" } })).body.result).toBe(
      "fields: user, pw",
    );
    expect((await history())[0]).toBe(site.url("/welcome"));

    // Back on the form: nothing of either value is in it, and no read, script or assert is refused.
    await call("/browser/navigate", { back: true });
    const read = await call("/browser/read");
    expect(read.body.title).toBe("Sign in");
    const fields = new Map<string, any>(read.body.elements.map((e: any) => [e.name, e]));
    expect(fields.get("Username").value ?? "").toBe("");
    expect(fields.get("Password")).toMatchObject({ filled: false });
    expect(
      (await call("/browser/extract", { selector: { label: "Username" }, get: "value" })).body.result,
    ).toBe("");
    const typed = await call("/browser/script", { script: "[user.value.length, pw.value.length]" });
    expect(typed.status).toBe(200);
    expect(typed.body.result).toEqual([0, 0]);
    const polled = await call("/browser/assert", { script: "user.value.length === 0", timeout: 0 });
    expect(polled.status).toBe(200);

    // Over MCP, the single-field form: the password, sent by Enter.
    await call("/browser/navigate", { url: site.url("/signin") });
    const pw = await mcp.tool("write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
      submit: true,
    });
    expect(pw.isError).toBeFalsy();
    expect(pw.structuredContent).toEqual({ url: site.url("/welcome"), title: "Welcome" });
    expect((await call("/browser/extract", { selector: { css: "#fields" } })).body.result).toBe(
      "fields: user, pw",
    );
  }, 120_000);

  test("a landing URL that carries the typed value is shown [hidden] and not recorded; the TTL still slides", async () => {
    // This sign-in form sends with GET, so the password lands in the URL.
    await call("/browser/navigate", { url: site.url("/signin-get") });
    const before = await history();
    await Bun.sleep(1500);
    const res = await call("/browser/write", {
      fields: [
        { selector: { label: "Username" }, text: "plain-name" },
        { selector: { label: "Password" }, secret: { name: "signin", key: "password" } },
      ],
      submit: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.title).toBe("Welcome");
    expect(res.body.url).toBe(`${site.url("/welcome")}?user=plain-name&pw=[hidden]`);
    expect(await history()).toEqual(before);
    expect(await expiresIn(server.app.services.store, W)).toBeGreaterThan(server.config.session.ttl - 1);

    // The next call on that page shows it the same way, and records nothing either.
    const again = await call("/browser/read");
    expect(again.body.url).toBe(`${site.url("/welcome")}?user=plain-name&pw=[hidden]`);
    expect(await history()).toEqual(before);
  }, 120_000);

  test("a field that keeps fewer characters than the secret's value: a 400, and nothing typed (never a value cut short)", async () => {
    await call("/browser/navigate", { url: site.url("/signin-short") });
    const short = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
      submit: true,
    });
    expect(short.status).toBe(400);
    expect(short.body.error).toBe(
      '{"label":"Password"} keeps at most 8 characters (its maxlength), fewer than the secret\'s value: nothing was typed; name the field that takes the whole value',
    );
    expect((await call("/browser/read")).body.title).toBe("Sign in");
    const held = await call("/browser/script", { script: "document.getElementById('pw').value.length" });
    expect(held.body.result).toBe(0);
  });

  test("off its allowed hosts, or unknown: a 400 naming the host and the secret, and nothing typed", async () => {
    await call("/browser/navigate", { url: site.url("/signin", "other.example.test") });
    const off = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
      submit: true,
    });
    expect(off.status).toBe(400);
    expect(off.body.error).toContain("secret signin may not be typed on other.example.test");
    const wrongHost = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "elsewhere", key: "token" },
      submit: true,
    });
    expect(wrongHost.body.error).toContain("secret elsewhere may not be typed on other.example.test");
    const filled = await call("/browser/read");
    expect(filled.body.url).toBe(site.url("/signin", "other.example.test"));
    expect(filled.body.elements.find((e: any) => e.name === "Password").filled).toBe(false);

    const unknown = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "nope", key: "password" },
      submit: true,
    });
    // In no catalogue: a person is asked for it, on the server's page (the link to hand them).
    expect(unknown.status).toBe(409);
    expect(unknown.body.error).toContain("there is no secret named nope yet");
    expect(unknown.body.error).toContain(`${server.url}/secrets/enter/`);
    const noKey = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "pin" },
      submit: true,
    });
    expect(noKey.body.error).toContain("secret signin has no key pin");
    const over = await mcp.tool("write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
      submit: true,
    });
    expect(over.isError).toBe(true);
    expect(over.content[0].text).toBe(off.body.error);
    // In a list of fields, one off its hosts refuses the whole call: the plain field is not filled either.
    const listed = await call("/browser/write", {
      fields: [
        { selector: { label: "Username" }, text: "plain-name" },
        { selector: { label: "Password" }, secret: { name: "signin", key: "password" } },
      ],
      submit: true,
    });
    expect(listed.body.error).toBe(off.body.error);
    const after = await call("/browser/read");
    expect(after.body.url).toBe(site.url("/signin", "other.example.test"));
    expect(after.body.elements.find((e: any) => e.name === "Username").value ?? "").toBe("");
  }, 120_000);

  test("a bound write with submit that lands on a page without the value: the workspace is there now", async () => {
    await call("/browser/navigate", { url: site.url("/signin") });
    // The form posts: the landing URL carries nothing that was typed.
    const res = await call("/browser/write", {
      fields: [
        { selector: { label: "Username" }, text: "plain-name" },
        { selector: { label: "Password" }, secret: { name: "signin", key: "password" } },
      ],
      submit: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: site.url("/welcome"), title: "Welcome" });
    expect((await call("/browser/extract", { selector: { css: "h1" } })).body.result).toBe(
      "Welcome, plain-name",
    );
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

    // The reopened browser's sign-in page is a new document no script of the agent's ran in.
    const report = { restored: ["app.example.test"], skipped: [], uri: "workspace://site-data" };
    const pw = await mcp.tool("write", {
      fields: [
        { selector: { label: "Username" }, text: "plain-name" },
        { selector: { label: "Password" }, secret: { name: "signin", key: "password" } },
      ],
      submit: true,
    });
    expect(pw.isError).toBeFalsy();
    expect(pw.structuredContent).toEqual({ url: site.url("/welcome"), title: "Welcome", site_data: report });
    expect(JSON.parse(pw.content[0].text).site_data).toEqual(report);
    const record = (await server.app.services.store.get(W))!;
    expect(record.session_id).not.toBe(id);
    expect(record.reopened).toEqual({});

    // The values were sent from the reopened browser, which says nothing of site data again...
    const landed = await call("/browser/read");
    expect(landed.body.text).toContain("fields: user, pw");
    expect("site_data" in landed.body).toBe(false);
    // ...and the site data really came back.
    const back = await call("/browser/script", {
      script: `document.cookie.split("; ").includes("bw_pref=${COOKIE}") && localStorage.getItem("bw_local") === "${LOCAL}"`,
    });
    expect(back.body.result).toBe(true);
    // That script ran on this page of the site: a secret is not typed while it is open.
    await call("/browser/switch", { tab: "new", url: site.url("/signin") });
    const near = await call("/browser/write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
      submit: true,
    });
    expect(near.status).toBe(400);
    expect(near.body.error).toContain(`ran in ${site.url("/welcome")}`);
    await call("/browser/switch", { tab: "close" });
    // A fresh sign-in page, with the scripted page gone: typed again.
    await call("/browser/navigate", { url: site.url("/signin") });
    const again = await mcp.tool("write", {
      selector: { label: "Password" },
      secret: { name: "signin", key: "password" },
      submit: true,
    });
    expect(again.structuredContent).toEqual({ url: site.url("/welcome"), title: "Welcome" });
  }, 120_000);
});
