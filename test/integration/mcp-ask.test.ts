// ask_human through the agent's own client (MCP form elicitation), driven by the SDK's own clients:
// one that declares the capability gets the question in its user's window and the answer comes back
// in the same call, on 2025-11-25 (a request on the call's stream) and on 2026-07-28 (an
// input_required round); one that does not waits for a person in the admin UI, as before. Either
// way there is one question, in the workspace's record: the admin's row shows it while it waits.
// No Grid: ask_human needs no browser.
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
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
const admin = (method: string, path: string, body?: unknown) => server.call(method, path, body, null);
const waiting = async (w: string) => (await admin("GET", `/admin/workspaces/${w}`)).body?.waiting ?? null;

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await read();
    if (ok(v)) return v;
    await Bun.sleep(50);
  }
  throw new Error("never came");
}

type Asked = { message: string; requestedSchema: unknown; row: unknown };
type Reply = { action: "accept"; content: { answer: string } } | { action: "decline" };
type User = (asked: Asked) => Reply | Promise<Reply>;

/** A 2025-11-25 client (the SDK's v1) that asks its user in form: `reply` is the user. */
async function legacy(w: string, reply: User | null) {
  const client = new Client(
    { name: "legacy", version: "1" },
    reply ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  const asked: Asked[] = [];
  if (reply)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const p = request.params as { message: string; requestedSchema: unknown };
      const a = { message: p.message, requestedSchema: p.requestedSchema, row: await waiting(w) };
      asked.push(a);
      return reply(a);
    });
  await client.connect(new StreamableHTTPClientTransport(url(w), { requestInit: auth }));
  return { client, asked };
}

/** A 2026-07-28 client (the SDK's v2, pinned) that asks its user in form; `posts` notes its calls. */
async function modern(w: string, reply: User | null) {
  const posts: any[] = [];
  const client = new ModernClient(
    { name: "modern", version: "1" },
    {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      ...(reply ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  const asked: Asked[] = [];
  if (reply)
    client.setRequestHandler("elicitation/create", async (request) => {
      const p = request.params as { message: string; requestedSchema: unknown };
      const a = { message: p.message, requestedSchema: p.requestedSchema, row: await waiting(w) };
      asked.push(a);
      return reply(a);
    });
  const noting = Object.assign(
    async (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method === "POST" && typeof init.body === "string") posts.push(JSON.parse(init.body));
      return fetch(input, init);
    },
    { preconnect: fetch.preconnect },
  );
  await client.connect(new ModernTransport(url(w), { requestInit: auth, fetch: noting }));
  return { client, asked, posts };
}

const ASK = { name: "ask_human", arguments: { question: "Which account?", timeout: 30 } };
const FORM = {
  type: "object",
  properties: { answer: { type: "string", title: "Answer", description: "What the agent should know" } },
  required: ["answer"],
};

test("2025-11-25, a client that asks in form: its user answers in the same call; the row showed the question", async () => {
  const { client, asked } = await legacy("ask-old", () => ({
    action: "accept",
    content: { answer: "the work one" },
  }));
  try {
    const got = await client.callTool(ASK);
    expect(got.structuredContent).toEqual({ answered: true, answer: "the work one", url: "", title: "" });
    expect(asked).toEqual([
      {
        message: "Which account?",
        requestedSchema: FORM,
        row: { question: "Which account?", since: expect.any(Number) },
      },
    ]);
    expect(await waiting("ask-old")).toBeNull();
    // Declined: no answer, and the question is gone.
    asked.length = 0;
    const { client: no } = await legacy("ask-old-no", () => ({ action: "decline" }));
    const declined = await no.callTool(ASK);
    expect(declined.structuredContent).toEqual({ answered: false, url: "", title: "" });
    expect(await waiting("ask-old-no")).toBeNull();
    await no.close();
  } finally {
    await client.close();
  }
}, 30_000);

test("2025-11-25, a client that cannot ask: the question waits for a person in the admin UI", async () => {
  const { client } = await legacy("ask-old-admin", null);
  try {
    const call = client.callTool(ASK);
    await until(
      () => waiting("ask-old-admin"),
      (q) => q?.question === "Which account?",
    );
    expect(
      (await admin("POST", "/admin/workspaces/ask-old-admin/answer", { text: "the shared one" })).status,
    ).toBe(200);
    expect((await call).structuredContent).toEqual({
      answered: true,
      answer: "the shared one",
      url: "",
      title: "",
    });
  } finally {
    await client.close();
  }
}, 30_000);

test("2026-07-28, a client that asks in form: an input_required round, its user's answer on the retry", async () => {
  const { client, asked, posts } = await modern("ask-new", () => ({
    action: "accept",
    content: { answer: "the work one" },
  }));
  try {
    const got = await client.callTool(ASK);
    expect(got.structuredContent).toEqual({ answered: true, answer: "the work one", url: "", title: "" });
    expect(asked).toEqual([
      {
        message: "Which account?",
        requestedSchema: FORM,
        row: { question: "Which account?", since: expect.any(Number) },
      },
    ]);
    expect(await waiting("ask-new")).toBeNull();
    // Two rounds of one call: the first without, the retry with its user's reply and the state.
    const calls = posts.filter((p) => p.method === "tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[0].params.inputResponses).toBeUndefined();
    expect(calls[1].params.inputResponses).toEqual({
      answer: { action: "accept", content: { answer: "the work one" } },
    });
    expect(typeof calls[1].params.requestState).toBe("string");
    expect(calls[1].id).not.toBe(calls[0].id);
  } finally {
    await client.close();
  }
}, 30_000);

test("2026-07-28: declined, no answer; a person who answered in the admin UI meanwhile is the answer", async () => {
  const { client } = await modern("ask-new-no", () => ({ action: "decline" }));
  try {
    expect((await client.callTool(ASK)).structuredContent).toEqual({ answered: false, url: "", title: "" });
    expect(await waiting("ask-new-no")).toBeNull();
  } finally {
    await client.close();
  }
  // The person answers between the rounds: the retry takes that answer (one question, one answer).
  const { client: both } = await modern("ask-new-both", async () => {
    const answered = await admin("POST", "/admin/workspaces/ask-new-both/answer", { text: "from the admin" });
    expect(answered.status).toBe(200);
    return { action: "decline" };
  });
  try {
    expect((await both.callTool(ASK)).structuredContent).toEqual({
      answered: true,
      answer: "from the admin",
      url: "",
      title: "",
    });
    expect(await waiting("ask-new-both")).toBeNull();
  } finally {
    await both.close();
  }
}, 30_000);

test("2026-07-28, a client that cannot ask: the question waits for a person in the admin UI", async () => {
  const { client, posts } = await modern("ask-new-admin", null);
  try {
    const call = client.callTool(ASK);
    await until(
      () => waiting("ask-new-admin"),
      (q) => q?.question === "Which account?",
    );
    expect(
      (await admin("POST", "/admin/workspaces/ask-new-admin/answer", { text: "the shared one" })).status,
    ).toBe(200);
    expect((await call).structuredContent).toEqual({
      answered: true,
      answer: "the shared one",
      url: "",
      title: "",
    });
    expect(posts.filter((p) => p.method === "tools/call")).toHaveLength(1);
  } finally {
    await client.close();
  }
}, 30_000);

test("stdio, a client that asks in form: its user answers on the pipe, in the same call", async () => {
  const client = new Client({ name: "stdio", version: "1" }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push((request.params as { message: string }).message);
    return { action: "accept", content: { answer: "over the pipe" } };
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ["src/main.ts", "--stdio", "--workspace", "ask-stdio"],
      env: { PATH: process.env.PATH ?? "", GRID_URL: "http://127.0.0.1:9" },
      stderr: "pipe",
    }),
  );
  try {
    const got = await client.callTool(ASK);
    expect(got.structuredContent).toEqual({ answered: true, answer: "over the pipe", url: "", title: "" });
    expect(asked).toEqual(["Which account?"]);
  } finally {
    await client.close();
  }
}, 30_000);
