// A secret a person gives through the server's own page (request_secret), driven by the SDK's own
// client: one that declares URL elicitation is handed the page's link, its "user" (this test, with
// fetch, as a browser posts the form) types the value there, and the same call answers entered; one
// that does not gets the link as text. The page refuses a forged POST (no Origin, another Origin, no
// form token), a used link, a link past its time and hosts wider than asked. No Grid: no browser.
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { openEntry, postEntry } from "../support/secret-entry-page.ts";
import { startServer, type TestServer, TOKEN } from "../support/server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ dataDir: false });
});

afterAll(async () => {
  await server.close();
});

const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
const url = (w: string) => new URL(`${server.url}/mcp?workspace=${w}`);
const PASSWORD = 'p@$$W0rd!#%^&*()_+{}"'; // 21 characters, symbols and a quote
const UNICODE = "Grüße-密码-пароль-🔑-ok";

async function client(w: string, user: ((p: { url: string; message: string }) => Promise<void>) | null) {
  const c = new Client(
    { name: "t", version: "1" },
    user ? { capabilities: { elicitation: { url: {} } } } : {},
  );
  if (user)
    c.setRequestHandler(ElicitRequestSchema, async (request) => {
      const p = request.params as { mode: string; url: string; message: string };
      expect(p.mode).toBe("url");
      void user(p);
      return { action: "accept" };
    });
  await c.connect(new StreamableHTTPClientTransport(url(w), { requestInit: auth }));
  return c;
}

const ASK = {
  name: "shop",
  key: "password",
  allowed_urls: ["https://shop.example.test", "https://login.example.test"],
  reason: "to sign in to the shop",
};

test("a client that opens URLs: its user types the value on the page and the same call answers entered; the value never crosses MCP", async () => {
  const seen: string[] = [];
  const c = await client("sec-url", async ({ url: link, message }) => {
    seen.push(message);
    const page = await openEntry(link);
    expect(page.status).toBe(200);
    // The page says plainly where the value will be typed, and the agent's reason as its own words.
    expect(page.html).toContain("shop.example.test");
    expect(page.html).toContain("login.example.test");
    expect(page.html).toContain("to sign in to the shop");
    // The person narrows the hosts to one.
    const res = await postEntry(
      link,
      { csrf: page.csrf, value: PASSWORD, hosts: "https://shop.example.test" },
      { origin: server.url, cookie: page.cookie },
    );
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain(PASSWORD);
  });
  const got = await c.callTool({ name: "request_secret", arguments: ASK });
  expect(got.structuredContent).toEqual({ entered: true });
  expect(seen[0]).toContain("shop.example.test");
  const secret = await server.app.services.personSecrets.get("sec-url", "shop");
  expect(secret?.keys.get("password")).toBe(PASSWORD);
  expect(secret?.allowedUrls).toEqual(["https://shop.example.test"]);
  // Asked again: it is there, nothing is asked.
  const again = await c.callTool({
    name: "request_secret",
    arguments: { ...ASK, allowed_urls: [ASK.allowed_urls[0]] },
  });
  expect(again.structuredContent).toEqual({ entered: true });
  // The admin sees names and hosts, never the value; the record keeps it sealed.
  const row = await server.call("GET", "/admin/workspaces/sec-url", undefined, null);
  expect(JSON.stringify(row.body)).not.toContain(PASSWORD);
  await c.close();
});

test("a client that declines to open the page: the call ends with a tool error, nothing kept", async () => {
  const c = new Client({ name: "t", version: "1" }, { capabilities: { elicitation: { url: {} } } });
  c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
  await c.connect(new StreamableHTTPClientTransport(url("sec-decline"), { requestInit: auth }));
  const got = await c.callTool({ name: "request_secret", arguments: ASK });
  expect(got.isError).toBe(true);
  expect(JSON.stringify(got.content)).toContain("declined");
  expect(await server.app.services.personSecrets.get("sec-decline", "shop")).toBeUndefined();
  await c.close();
});

test("a cancel reaches a call still waiting for its person: the wait stops, nothing is kept", async () => {
  const ps = server.app.services.personSecrets;
  const wait = ps.wait;
  const ended: string[] = [];
  ps.wait = async function (this: typeof ps, ...args: Parameters<typeof wait>) {
    const ending = await wait.apply(this, args);
    ended.push(ending);
    return ending;
  };
  let sent!: () => void;
  const asked = new Promise<void>((r) => {
    sent = r;
  });
  // The user is sent to the page and never goes.
  const c = await client("sec-cancel", async () => sent());
  try {
    const stop = new AbortController();
    const call = c
      .callTool({ name: "request_secret", arguments: ASK }, undefined, { signal: stop.signal })
      .catch((e: unknown) => e);
    await asked;
    stop.abort();
    expect(await call).toBeInstanceOf(Error);
    // The wait looks every 300 ms.
    const until = Date.now() + 3_000;
    while (!ended.length && Date.now() < until) await Bun.sleep(100);
    expect(ended).toEqual(["stopped"]);
    expect(await ps.get("sec-cancel", "shop")).toBeUndefined();
  } finally {
    ps.wait = wait;
    await c.close();
  }
});

test("a client without URL elicitation gets the link as text; a unicode value entered there is kept as typed", async () => {
  const c = await client("sec-text", null);
  const got = await c.callTool({ name: "request_secret", arguments: ASK });
  const out = got.structuredContent as { entered: boolean; link: string; expires_in: number };
  expect(out.entered).toBe(false);
  expect(out.link).toStartWith(`${server.url}/secrets/enter/`);
  expect(out.expires_in).toBeGreaterThan(500);
  // The same ask again: the same link (a person may have it already).
  const again = (await c.callTool({ name: "request_secret", arguments: ASK })).structuredContent as {
    link: string;
  };
  expect(again.link).toBe(out.link);
  const page = await openEntry(out.link);
  const res = await postEntry(
    out.link,
    { csrf: page.csrf, value: UNICODE, hosts: ASK.allowed_urls },
    { origin: server.url, cookie: page.cookie },
  );
  expect(res.status).toBe(200);
  const secret = await server.app.services.personSecrets.get("sec-text", "shop");
  expect(secret?.keys.get("password")).toBe(UNICODE);
  expect(secret?.allowedUrls).toEqual(ASK.allowed_urls);
  const after = await c.callTool({ name: "request_secret", arguments: ASK });
  expect(after.structuredContent).toEqual({ entered: true });
  // workspace://secrets lists it for this workspace, with its sites and no value; GET /secrets (no workspace) does not.
  const read = await c.readResource({ uri: "workspace://secrets" });
  const text = (read.contents[0] as { text: string }).text;
  expect(text).not.toContain(UNICODE);
  expect(JSON.parse(text).secrets).toContainEqual({
    name: "shop",
    description: ASK.reason,
    keys: ["password"],
    allowed_urls: ASK.allowed_urls,
    restricted: true,
  });
  const rest = await server.call("GET", "/secrets", undefined, "sec-text");
  expect(rest.body.secrets.map((x: { name: string }) => x.name)).not.toContain("shop");
  await c.close();
});

test("the page refuses a forged POST, a used link, a link past its time and hosts wider than asked", async () => {
  const ask = async (w: string) =>
    (await server.call("POST", "/secrets/request", ASK, w)).body as { entered: boolean; link: string };
  const { link } = await ask("sec-attack");
  const page = await openEntry(link);
  const good = { csrf: page.csrf, value: PASSWORD, hosts: ASK.allowed_urls[0] as string };
  const browser = { origin: server.url, cookie: page.cookie };
  // No Origin (a script outside a browser, or a stripped header): refused.
  expect((await postEntry(link, good, { cookie: page.cookie })).status).toBe(403);
  // Another site's page posting to it: refused.
  expect((await postEntry(link, good, { origin: "https://evil.example", cookie: page.cookie })).status).toBe(
    403,
  );
  // Without the page's cookie, or with a form token that is not the page's: refused.
  expect((await postEntry(link, good, { origin: server.url })).status).toBe(403);
  expect((await postEntry(link, { ...good, csrf: "forged" }, browser)).status).toBe(403);
  expect(
    (await postEntry(link, { ...good, csrf: "forged" }, { origin: server.url, cookie: "sf_enter=forged" }))
      .status,
  ).toBe(403);
  // Wider than asked: refused, nothing kept.
  const wide = await postEntry(
    link,
    { ...good, hosts: [ASK.allowed_urls[0] as string, "https://evil.example"] },
    browser,
  );
  expect(wide.status).toBe(403);
  expect(await server.app.services.personSecrets.get("sec-attack", "shop")).toBeUndefined();
  // The ordinary entry works, once.
  expect((await postEntry(link, good, browser)).status).toBe(200);
  expect((await server.app.services.personSecrets.get("sec-attack", "shop"))?.keys.get("password")).toBe(
    PASSWORD,
  );
  const reused = await postEntry(link, { ...good, value: "another-value-123" }, browser);
  expect(reused.status).toBe(404);
  expect((await server.app.services.personSecrets.get("sec-attack", "shop"))?.keys.get("password")).toBe(
    PASSWORD,
  );
  expect((await openEntry(link)).status).toBe(404);
  // Past its time: refused.
  const late = await ask("sec-late");
  const latePage = await openEntry(late.link);
  await server.app.services.store.update("sec-late", (cur) =>
    cur
      ? { ...cur, secret_requests: cur.secret_requests?.map((r) => ({ ...r, until: r.until - 3600 })) }
      : null,
  );
  const expired = await postEntry(
    late.link,
    { csrf: latePage.csrf, value: PASSWORD, hosts: ASK.allowed_urls[0] as string },
    { origin: server.url, cookie: latePage.cookie },
  );
  expect(expired.status).toBe(404);
  expect(await expired.text()).toContain("past its time");
  expect(await server.app.services.personSecrets.get("sec-late", "shop")).toBeUndefined();
});

test("an ask the admin does not allow is refused: a host the navigation policy blocks, a name the catalogue has", async () => {
  const blocked = await startServer({
    dataDir: false,
    configure: (c) => {
      c.navigate.blocked_hosts = ["evil.example"];
      c.secrets.entries = { site: { keys: { password: { value: "server-side-value" } } } };
    },
  });
  try {
    const refused = await blocked.call(
      "POST",
      "/secrets/request",
      { ...ASK, allowed_urls: ["https://evil.example"] },
      "w",
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("navigation policy");
    const taken = await blocked.call("POST", "/secrets/request", { ...ASK, name: "site" }, "w");
    expect(taken.status).toBe(409);
    const ok = await blocked.call("POST", "/secrets/request", ASK, "w");
    expect(ok.status).toBe(200);
  } finally {
    await blocked.close();
  }
});

test("the admin lists a workspace's secrets (names, keys and hosts, never a value) and removes one", async () => {
  const { link } = (await server.call("POST", "/secrets/request", ASK, "sec-admin")).body as { link: string };
  const page = await openEntry(link);
  const hosts = ASK.allowed_urls[0] as string;
  await postEntry(
    link,
    { csrf: page.csrf, value: PASSWORD, hosts },
    { origin: server.url, cookie: page.cookie },
  );
  const listed = await server.call("GET", "/admin/workspaces/sec-admin/secrets", undefined, null);
  expect(listed.body).toEqual({ secrets: [{ name: "shop", keys: ["password"], allowed_urls: [hosts] }] });
  const row = await server.call("GET", "/admin/workspaces/sec-admin", undefined, null);
  expect(row.body.secrets).toEqual(listed.body.secrets);
  // The Secrets page lists it beside the server's, with Remove; the value is nowhere in it.
  const ui = await fetch(`${server.url}/ui/secrets`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const html = await ui.text();
  expect(html).toContain("sec-admin");
  expect(html).toContain("/ui/secrets/workspaces/sec-admin/shop");
  expect(html).not.toContain(PASSWORD);
  const removed = await fetch(`${server.url}/ui/secrets/workspaces/sec-admin/shop`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${TOKEN}`, origin: server.url },
  });
  expect(removed.status).toBe(200);
  expect(await server.app.services.personSecrets.get("sec-admin", "shop")).toBeUndefined();
  const again = await server.call("DELETE", "/admin/workspaces/sec-admin/secrets/shop", undefined, null);
  expect(again.status).toBe(404);
  // The JSON route removes one too; a caller without the admin credential is refused.
  const second = (await server.call("POST", "/secrets/request", { ...ASK, name: "mail" }, "sec-admin")).body
    .link;
  const p2 = await openEntry(second);
  await postEntry(
    second,
    { csrf: p2.csrf, value: PASSWORD, hosts },
    { origin: server.url, cookie: p2.cookie },
  );
  const anon = await fetch(`${server.url}/admin/workspaces/sec-admin/secrets/mail`, { method: "DELETE" });
  expect(anon.status).toBe(401);
  const gone = await server.call("DELETE", "/admin/workspaces/sec-admin/secrets/mail", undefined, null);
  expect(gone.body).toEqual({ removed: true });
  expect(await server.app.services.personSecrets.get("sec-admin", "mail")).toBeUndefined();
});

test("2026-07-28, a client that opens URLs: input_required sends its user to the page, and its next round answers entered", async () => {
  const c = new ModernClient(
    { name: "modern", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { url: {} } } },
  );
  const pages: number[] = [];
  c.setRequestHandler("elicitation/create", async (request) => {
    const p = request.params as unknown as { mode: string; url: string };
    expect(p.mode).toBe("url");
    const page = await openEntry(p.url);
    const res = await postEntry(
      p.url,
      { csrf: page.csrf, value: PASSWORD, hosts: ASK.allowed_urls },
      { origin: server.url, cookie: page.cookie },
    );
    pages.push(res.status);
    return { action: "accept" };
  });
  await c.connect(new ModernTransport(url("sec-modern"), { requestInit: auth }));
  try {
    const got = await c.callTool({ name: "request_secret", arguments: ASK });
    expect(got.structuredContent).toEqual({ entered: true });
    expect(pages).toEqual([200]);
    expect((await server.app.services.personSecrets.get("sec-modern", "shop"))?.keys.get("password")).toBe(
      PASSWORD,
    );
  } finally {
    await c.close();
  }
});

test("a group's other server hides a value a person typed on the first, once it has read the workspace's record", async () => {
  const first = await startServer({});
  const second = await startServer({
    configure: (c) => {
      c.data.dir = first.dataDir;
    },
  });
  try {
    const { link } = (await first.call("POST", "/secrets/request", ASK, "sec-group")).body as {
      link: string;
    };
    const page = await openEntry(link);
    const hosts = ASK.allowed_urls[0] as string;
    await postEntry(
      link,
      { csrf: page.csrf, value: PASSWORD, hosts },
      { origin: first.url, cookie: page.cookie },
    );
    expect(first.app.services.redactor.redact(`seen ${PASSWORD}`)).toBe("seen [hidden]");
    // The second server reads the record (any call of the workspace does): from then on it hides the value.
    expect(second.app.services.redactor.redact(`seen ${PASSWORD}`)).toBe(`seen ${PASSWORD}`);
    expect((await second.call("GET", "/admin/workspaces/sec-group", undefined, null)).status).toBe(200);
    expect(second.app.services.redactor.redact(`seen ${PASSWORD}`)).toBe("seen [hidden]");
  } finally {
    await second.close();
    await first.close();
  }
});
