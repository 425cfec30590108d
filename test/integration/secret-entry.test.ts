// On the real Grid: a bound write naming a secret that no catalogue has goes on once a person has
// typed the value on the server's own page. Over MCP with a client that opens URLs (the SDK's own,
// declaring URL elicitation) the same write call waits and then types it; over REST the write is a
// 409 with the link, the person types it there, and the write called again types it. The site gets
// the very value (a 21-character password with symbols, a unicode one); the agent's replies and the
// server's log never hold it. The person is this test, posting the page's form as a browser does.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { html, serveFixture } from "../support/fixtures.ts";
import { actionPages } from "../support/pages.ts";
import { endAll, logLines, startServer, type TestServer, TOKEN } from "../support/server.ts";

const W = "secret-entry";
const PASSWORD = 'p@$$W0rd!#%^&*()_+{}"';
const UNICODE = "Grüße-密码-пароль-🔑-ok";
const received: string[] = [];
const site = serveFixture({
  ...actionPages,
  // The site's sign-in answer: it keeps what it was sent, for the test to compare.
  "/welcome": async (req) => {
    const form = new URLSearchParams(await req.text());
    received.push(form.get("pw") ?? "");
    return html("<title>Welcome</title><h1>Welcome</h1>");
  },
});
const replies: string[] = [];
let server: TestServer;

beforeAll(async () => {
  // A data dir: the flow test saves one.
  server = await startServer({
    configure: (c) => {
      c.secrets.hold_ms = 300;
    },
  });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  const everything = [...replies, ...logLines].join("\n");
  for (const v of [PASSWORD, UNICODE]) expect(everything).not.toContain(v);
});

async function call(path: string, body: unknown = {}) {
  const res = await server.call("POST", path, body, W);
  replies.push(JSON.stringify(res.body));
  return res;
}

/** The person at the page: opens it, keeps every host ticked, types `value` and sends it from that browser. */
async function enter(link: string, value: string): Promise<{ status: number; hosts: string[] }> {
  const page = await fetch(link);
  const text = await page.text();
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const csrf = /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? "";
  const hosts = [...text.matchAll(/name="hosts" value="([^"]+)"/g)].map((m) => m[1] as string);
  const body = new URLSearchParams({ csrf, value });
  for (const h of hosts) body.append("hosts", h);
  const res = await fetch(link, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url, cookie },
    body,
  });
  return { status: res.status, hosts };
}

const SIGN_IN = (name: string) => ({
  fields: [
    { selector: { label: "Username" }, text: "ada" },
    { selector: { label: "Password" }, secret: { name, key: "password" } },
  ],
  submit: true,
});

test("over MCP, a client that opens URLs: the write waits for the person's value, then types it and sends the form", async () => {
  expect((await call("/browser/navigate", { url: site.url("/signin") })).status).toBe(200);
  const client = new Client({ name: "t", version: "1" }, { capabilities: { elicitation: { url: {} } } });
  const asked: { hosts: string[]; status: number }[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const p = request.params as { url: string };
    // The person opens the page a moment later, as a person would.
    void Bun.sleep(200).then(async () => asked.push(await enter(p.url, PASSWORD)));
    return { action: "accept" };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp?workspace=${W}`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  try {
    const got = await client.callTool({ name: "write", arguments: SIGN_IN("portal") });
    replies.push(JSON.stringify(got));
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent).toEqual({ url: site.url("/welcome"), title: "Welcome" });
    // The page offered the site of the page the write was on, and the value went there as typed.
    expect(asked).toEqual([{ status: 200, hosts: [site.url("/").replace(/\/$/, "")] }]);
    expect(received.at(-1)).toBe(PASSWORD);
  } finally {
    await client.close();
  }
}, 120_000);

test("over REST: the write is a 409 with the link; once the person typed the value there, the write types it", async () => {
  await call("/browser/navigate", { url: site.url("/signin") });
  const first = await call("/browser/write", SIGN_IN("portal2"));
  expect(first.status).toBe(409);
  const link = /(http:\/\/\S+\/secrets\/enter\/\S+)/.exec(first.body.error)?.[1] ?? "";
  expect(link).toStartWith(`${server.url}/secrets/enter/`);
  // Nothing was typed meanwhile: the site got nothing.
  const before = received.length;
  expect((await enter(link, UNICODE)).status).toBe(200);
  const again = await call("/browser/write", SIGN_IN("portal2"));
  expect(again.status).toBe(200);
  expect(again.body).toEqual({ url: site.url("/welcome"), title: "Welcome" });
  expect(received.length).toBe(before + 1);
  expect(received.at(-1)).toBe(UNICODE);
  // A saved flow types it too: run_flow finds the workspace's own secret, as write does.
  const steps = [
    { tool: "navigate", args: { url: site.url("/signin") } },
    {
      tool: "write",
      args: { selector: { label: "Password" }, secret: { name: "portal2", key: "password" }, submit: true },
    },
  ];
  const saved = await server.call("PUT", "/flows/portal", { steps }, W);
  expect(saved.status).toBe(200);
  const ran = await call("/flows/portal/run", {});
  expect(ran.status).toBe(200);
  expect(ran.body.status).toBe("ok");
  expect(received.length).toBe(before + 2);
  expect(received.at(-1)).toBe(UNICODE);
  // Kept for the site it was asked for only: on another host it is refused, nothing typed.
  await call("/browser/navigate", { url: site.url("/signin", "other.example.test") });
  const elsewhere = await call("/browser/write", SIGN_IN("portal2"));
  expect(elsewhere.status).toBe(400);
  expect(elsewhere.body.error).toContain("may not be typed on other.example.test");
  expect(received.length).toBe(before + 2);
}, 120_000);

test("a secret an admin entered for the server: a workspace's write types it, never asking its person", async () => {
  const made = await fetch(`${server.url}/admin/secrets/server`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({
      name: "staff",
      key: "password",
      allowed_urls: [site.url("/").replace(/\/$/, "")],
    }),
  });
  expect(made.status).toBe(200);
  const { link } = (await made.json()) as { link: string };
  expect((await enter(link, UNICODE)).status).toBe(200);
  await call("/browser/navigate", { url: site.url("/signin") });
  const before = received.length;
  const wrote = await call("/browser/write", SIGN_IN("staff"));
  expect(wrote.status).toBe(200);
  expect(wrote.body).toEqual({ url: site.url("/welcome"), title: "Welcome" });
  expect(received.length).toBe(before + 1);
  expect(received.at(-1)).toBe(UNICODE);
}, 120_000);
