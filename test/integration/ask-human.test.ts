// ask_human on the real Grid: the agent's question shows on the workspace's row, the call waits
// holding no lease (a person's calls go through meanwhile), and returns the person's answer and
// the page the person left; it times out cleanly; over MCP it sends progress while it waits.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { endAll, startServer, type TestServer, TOKEN } from "../support/server.ts";

const W = "ask-human";
const site = serveFixture({
  "/": () => html("<title>Stuck</title><p>a CAPTCHA"),
  "/after": () => html("<title>After</title><p>solved"),
});
let server: TestServer;
let mcp: McpClient;

const admin = (method: string, path: string, body?: unknown) => server.call(method, path, body, null);
const row = async () => (await admin("GET", `/admin/workspaces/${W}`)).body;

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await read();
    if (ok(v)) return v;
    await Bun.sleep(50);
  }
  throw new Error("never came");
}

beforeAll(async () => {
  server = await startServer();
  mcp = await mcpClient(server, W);
  await server.call("POST", "/browser/navigate", { url: site.url("/") }, W);
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("REST: the row shows the question, the browser stays free, and the answer comes back with the person's page", async () => {
  expect((await row()).waiting).toBeNull();
  const asked = server.call("POST", "/browser/ask-human", { question: "Please solve the CAPTCHA" }, W);
  const waiting = await until(row, (r) => r.waiting !== null);
  expect(waiting.waiting.question).toBe("Please solve the CAPTCHA");
  expect(waiting.waiting.since).toBeGreaterThan(Date.now() / 1000 - 10);

  const second = await server.call("POST", "/browser/ask-human", { question: "again?" }, W);
  expect(second.status).toBe(409);
  // The wait holds no lease: a call in the workspace runs now (the person moving the page).
  const moved = await server.call("POST", "/browser/navigate", { url: site.url("/after") }, W);
  expect(moved.status).toBe(200);

  expect((await admin("POST", `/admin/workspaces/${W}/answer`, { text: "solved it" })).status).toBe(200);
  const res = await asked;
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ answered: true, answer: "solved it", url: site.url("/after"), title: "After" });
  expect((await row()).waiting).toBeNull();
  expect((await admin("POST", `/admin/workspaces/${W}/answer`, { text: "late" })).status).toBe(409);
  expect((await admin("POST", "/admin/workspaces/no-such-ws/answer", {})).status).toBe(404);
}, 60_000);

test("bad input is a 400 naming the field; an answer without the token is a 401", async () => {
  const empty = await server.call("POST", "/browser/ask-human", { question: "" }, W);
  expect(empty.status).toBe(400);
  expect(empty.body.error).toContain("question");
  const short = await server.call("POST", "/browser/ask-human", { question: "x", timeout: 1 }, W);
  expect(short.status).toBe(400);
  expect(short.body.error).toContain("timeout");
  const huge = await server.call("POST", "/browser/ask-human", { question: "x", timeout: 1e308 }, W);
  expect(huge.status).toBe(400);
  expect(huge.body.error).toContain('"timeout" is too large: at most 3600');
  const res = await fetch(`${server.url}/admin/workspaces/${W}/answer`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  expect(res.status).toBe(401);
});

test("no answer within the timeout: answered false and the page, and the row is cleared", async () => {
  const began = Date.now();
  const res = await server.call("POST", "/browser/ask-human", { question: "anyone?", timeout: 5 }, W);
  expect(Date.now() - began).toBeGreaterThanOrEqual(4900);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ answered: false, url: site.url("/after"), title: "After" });
  expect((await row()).waiting).toBeNull();
}, 30_000);

test("MCP: progress while it waits, then the person's answer", async () => {
  const call = mcp.request("tools/call", {
    name: "ask_human",
    arguments: { question: "Which account?" },
    _meta: { progressToken: "ask-1" },
  });
  await until(row, (r) => r.waiting?.question === "Which account?");
  expect((await admin("POST", `/admin/workspaces/${W}/answer`, { text: "the work one" })).status).toBe(200);
  const { text } = await call;
  const messages = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1] as string));
  const progress = messages.filter((m) => m.method === "notifications/progress");
  // One at once (then one every 10 s while it waits), before the answer.
  expect(progress.length).toBeGreaterThanOrEqual(1);
  expect(progress[0].params).toMatchObject({
    progressToken: "ask-1",
    progress: 0,
    message: "waiting for a person",
  });
  expect(messages.indexOf(progress[0])).toBeLessThan(messages.findIndex((m) => m.result));
  const result = messages.find((m) => m.result)?.result;
  expect(result.structuredContent).toEqual({
    answered: true,
    answer: "the work one",
    url: site.url("/after"),
    title: "After",
  });
}, 60_000);

test("a cancelled call ends the wait and clears the row", async () => {
  const abort = new AbortController();
  const call = fetch(`${server.url}/browser/ask-human`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "x-workspace": W },
    body: JSON.stringify({ question: "Cancel me" }),
    signal: abort.signal,
  }).catch(() => null);
  await until(row, (r) => r.waiting?.question === "Cancel me");
  abort.abort();
  await call;
  const cleared = await until(row, (r) => r.waiting === null);
  expect(cleared.waiting).toBeNull();
  // And a new question may be asked at once.
  const next = server.call("POST", "/browser/ask-human", { question: "Next one" }, W);
  await until(row, (r) => r.waiting?.question === "Next one");
  expect((await admin("POST", `/admin/workspaces/${W}/answer`, {})).status).toBe(200);
  expect((await next).body).toMatchObject({ answered: true, answer: "" });
}, 30_000);

test("a flow cannot ask: an ask_human step is refused when the flow is saved", async () => {
  const res = await server.call(
    "PUT",
    "/flows/asks",
    { steps: [{ tool: "ask_human", args: { question: "x" } }] },
    W,
  );
  expect(res.status).toBe(400);
  expect(res.body.error).toContain("ask_human");
});
