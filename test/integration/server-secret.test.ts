// A secret an admin enters for the whole server: POST /admin/secrets/server makes a one-time link
// to the same page a person uses (/secrets/enter), the value is kept sealed in the server's own
// record (no expiry, no workspace's name), and every workspace's bound write finds it after the
// catalogue. Refused: no admin credential, a forged form, a used link, a catalogue's name, hosts
// the navigation policy refuses. Listed without a value; removed. No Grid: no browser.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SERVER_RECORD } from "../../src/store/record.ts";
import { openEntry, postEntry } from "../support/secret-entry-page.ts";
import { startServer, type TestServer, TOKEN } from "../support/server.ts";
import { expiresIn } from "../support/store-ttl.ts";

let server: TestServer;
const ADMIN = "admin-token-for-the-server-secret-test";

beforeAll(async () => {
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.auth.admin_token = ADMIN;
      c.navigate.blocked_hosts = ["blocked.example.test"];
      c.secrets.entries = {
        shop: {
          description: "the shop",
          allowed_urls: ["https://shop.example.test/"],
          keys: { password: { value: "catalogue-value-1234" } },
        },
      };
    },
  });
});

afterAll(async () => {
  await server.close();
});

const VALUE = 'p@$$W0rd!#%^&*()_+{}"-Grüße-密码-🔑';

async function admin(method: string, path: string, body?: unknown, token = ADMIN) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, text };
}

const ASK = { name: "crm", key: "password", allowed_urls: ["https://crm.example.test"] };

async function enter(ask: typeof ASK, value: string) {
  const made = await admin("POST", "/admin/secrets/server", ask);
  expect(made.status).toBe(200);
  const page = await openEntry(made.body.link);
  expect(page.status).toBe(200);
  const res = await postEntry(
    made.body.link,
    { csrf: page.csrf, value, hosts: ask.allowed_urls },
    { origin: server.url, cookie: page.cookie },
  );
  return { made, page, res };
}

test("an admin enters a server secret on the page; every workspace's write finds it, sealed in a record no workspace names; listed without its value; removed", async () => {
  const { made, page, res } = await enter(ASK, VALUE);
  expect(made.body.link).toStartWith(`${server.url}/secrets/enter/`);
  expect(made.body.expires_in).toBeGreaterThan(500);
  expect(page.html).toContain("An admin of this server asks for");
  expect(res.status).toBe(200);
  const said = await res.text();
  expect(said).toContain("every workspace of this server");
  expect(said).not.toContain(VALUE);

  // The lookup a bound write and a flow step use, from two workspaces: the exact value, its hosts.
  for (const w of ["ws-one", "ws-two"]) {
    const found = await server.app.services.personSecrets.get(w, "crm");
    expect(found?.keys.get("password")).toBe(VALUE);
    expect(found?.hosts).toEqual(["crm.example.test"]);
  }
  // Kept sealed (never as text in the store) and for good: no workspace expiry.
  const { store } = server.app.services;
  const raw = (store as any).db.query("SELECT value FROM records WHERE key = ?").get(SERVER_RECORD);
  expect(String(raw.value)).toContain("secrets_sealed");
  expect(String(raw.value)).not.toContain("W0rd");
  const left = await expiresIn(store, SERVER_RECORD);
  expect(left).toBeGreaterThan(10 * 365 * 86400);
  // A workspace cannot ask a person for the same name: the server's is the one.
  const asked = await server.call(
    "POST",
    "/secrets/request",
    { name: "crm", key: "password", allowed_urls: ["https://crm.example.test"] },
    "ws-one",
  );
  expect(asked.status).toBe(409);
  expect(JSON.stringify(asked.body)).toContain("an admin entered");
  // An agent sees it in workspace://secrets (its name, key and sites; never the value).
  const c = new Client({ name: "t", version: "1" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp?workspace=ws-two`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  const read = await c.readResource({ uri: "workspace://secrets" });
  await c.close();
  const text = (read.contents[0] as { text: string }).text;
  expect(text).not.toContain("W0rd");
  expect(JSON.parse(text).secrets).toContainEqual({
    name: "crm",
    description: "",
    keys: ["password"],
    allowed_urls: ["https://crm.example.test"],
    restricted: true,
  });
  // The redactor hides it.
  expect(server.app.services.redactor.redact(`x ${VALUE} y`)).not.toContain(VALUE);

  // Listed: name, keys, hosts; never the value, neither over JSON nor on the Secrets page.
  const listed = await admin("GET", "/admin/secrets/server");
  expect(listed.status).toBe(200);
  expect(listed.body.secrets).toEqual([
    { name: "crm", keys: ["password"], allowed_urls: ["https://crm.example.test"] },
  ]);
  expect(listed.text).not.toContain(VALUE);
  const ui = await fetch(`${server.url}/ui/secrets`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const uiHtml = await ui.text();
  expect(uiHtml).toContain("Entered by an admin, for every workspace");
  expect(uiHtml).toContain("/ui/secrets/server/crm");
  expect(uiHtml).not.toContain(VALUE);
  // The server's record is no workspace: the admin's list of workspaces leaves it out.
  const rows = await admin("GET", "/admin/workspaces");
  expect(JSON.stringify(rows.body)).not.toContain(SERVER_RECORD);

  // Removed: gone from the list and from the lookup; removing again is a 404.
  expect((await admin("DELETE", "/admin/secrets/server/crm")).status).toBe(200);
  expect((await admin("GET", "/admin/secrets/server")).body.secrets).toEqual([]);
  expect(await server.app.services.personSecrets.get("ws-one", "crm")).toBeUndefined();
  expect((await admin("DELETE", "/admin/secrets/server/crm")).status).toBe(404);
});

test("the UI's form makes the same link", async () => {
  const res = await fetch(`${server.url}/ui/secrets/server`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${ADMIN}`,
      origin: server.url,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ name: "wiki", key: "token", allowed_urls: "wiki.example.test" }),
  });
  const html = await res.text();
  expect(res.status).toBe(200);
  const link = /href="([^"]+\/secrets\/enter\/[^"]+)"/.exec(html)?.[1] ?? "";
  expect(link).toStartWith(`${server.url}/secrets/enter/`);
  expect((await openEntry(link)).status).toBe(200);
  // A form the policy refuses is drawn in place with the reason, and no link.
  const refused = await fetch(`${server.url}/ui/secrets/server`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${ADMIN}`,
      origin: server.url,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ name: "wiki", key: "token", allowed_urls: "blocked.example.test" }),
  });
  const said = await refused.text();
  expect(said).toContain("navigation policy");
  expect(said).not.toContain("/secrets/enter/");
  // The page's Remove: an entered one goes; one never entered is a 404.
  await enter({ name: "wiki2", key: "token", allowed_urls: ["https://wiki.example.test"] }, "w1ki-välue");
  const ui = (name: string) =>
    fetch(`${server.url}/ui/secrets/server/${name}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ADMIN}`, origin: server.url },
    });
  expect((await ui("wiki2")).status).toBe(200);
  expect((await admin("GET", "/admin/secrets/server")).body.secrets).toEqual([]);
  expect((await ui("wiki2")).status).toBe(404);
});

test("refused: no admin credential (the agent's token, or none)", async () => {
  expect((await admin("POST", "/admin/secrets/server", ASK, TOKEN)).status).toBe(401);
  expect((await admin("GET", "/admin/secrets/server", undefined, TOKEN)).status).toBe(401);
  expect((await admin("DELETE", "/admin/secrets/server/crm", undefined, TOKEN)).status).toBe(401);
  const none = await fetch(`${server.url}/admin/secrets/server`);
  expect(none.status).toBe(401);
  const ui = await fetch(`${server.url}/ui/secrets/server`, {
    method: "POST",
    headers: { origin: server.url, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ name: "x", key: "y", allowed_urls: "x.example.test" }),
  });
  expect(ui.status).toBe(401);
});

test("refused: a forged form (another Origin, no cookie, another token) and a used link", async () => {
  const made = await admin("POST", "/admin/secrets/server", { ...ASK, name: "forged" });
  const page = await openEntry(made.body.link);
  const form = { csrf: page.csrf, value: "v", hosts: ASK.allowed_urls };
  const other = await postEntry(made.body.link, form, {
    origin: "https://evil.example",
    cookie: page.cookie,
  });
  expect(other.status).toBe(403);
  expect((await postEntry(made.body.link, form, { origin: server.url })).status).toBe(403);
  const wrong = await postEntry(
    made.body.link,
    { ...form, csrf: "not-the-token" },
    { origin: server.url, cookie: "sf_enter=not-the-token" },
  );
  expect(wrong.status).toBe(403);
  expect(await server.app.services.personSecrets.get("w", "forged")).toBeUndefined();
  // The page's own form goes once; the same link again is gone.
  expect((await postEntry(made.body.link, form, { origin: server.url, cookie: page.cookie })).status).toBe(
    200,
  );
  expect((await postEntry(made.body.link, form, { origin: server.url, cookie: page.cookie })).status).toBe(
    404,
  );
  expect((await openEntry(made.body.link)).status).toBe(404);
  await admin("DELETE", "/admin/secrets/server/forged");
});

test("refused: a name the catalogue has (409), hosts the navigation policy refuses (400); a host it allows is taken", async () => {
  const taken = await admin("POST", "/admin/secrets/server", { ...ASK, name: "shop" });
  expect(taken.status).toBe(409);
  const blocked = await admin("POST", "/admin/secrets/server", {
    ...ASK,
    name: "blocked",
    allowed_urls: ["https://blocked.example.test"],
  });
  expect(blocked.status).toBe(400);
  expect(JSON.stringify(blocked.body)).toContain("navigation policy");
  const fine = await admin("POST", "/admin/secrets/server", {
    ...ASK,
    name: "fine",
    allowed_urls: ["https://allowed.example.test"],
  });
  expect(fine.status).toBe(200);
});
