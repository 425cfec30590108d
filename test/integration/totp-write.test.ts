// One-time codes on the real Grid: a fixture site checks the code it is sent against its own seed
// (an independent RFC 6238 with node:crypto), for a base32 key and an otpauth:// SHA256/8-digit key;
// a code off its allowed host is refused and reaches no page; the field is empty after the write;
// and no seed reaches a response, a log line, the timeline or a flow report, nor a typed code except
// where the page itself put it (a GET form's landing URL: a one-time code is not masked, spec §1.17).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "totp-write";
const SEED_A = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"; // base32
const SEED_B = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA";
const URI_B = `otpauth://totp/Shop:ada?secret=${SEED_B}&algorithm=SHA256&digits=8&period=30&issuer=Shop`;

function b32(text: string): Buffer {
  const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of text) bits += A.indexOf(c).toString(2).padStart(5, "0");
  const out: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) out.push(Number.parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(out);
}
// The site's own check: node:crypto, not the server's WebCrypto code.
function code(seed: string, alg: string, digits: number, at = Date.now()): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(Math.floor(at / 30000)));
  const mac = createHmac(alg, b32(seed)).update(msg).digest();
  const o = mac[mac.length - 1]! & 15;
  return String((mac.readUInt32BE(o) & 0x7fffffff) % 10 ** digits).padStart(digits, "0");
}

const received: string[] = [];
const form = (action: string, method: string) =>
  html(
    `<title>Code</title><form action="${action}" method="${method}"><label>Code <input name="code"></label><button>Verify</button></form>`,
  );
function verdict(got: string, seed: string, alg: string, digits: number) {
  received.push(got);
  const ok = got === code(seed, alg, digits);
  return html(ok ? "<title>Accepted</title><h1>accepted</h1>" : "<title>Rejected</title><h1>rejected</h1>");
}
const site = serveFixture({
  "/a": () => form("/a/check", "post"),
  "/a/check": async (req) =>
    verdict(new URLSearchParams(await req.text()).get("code") ?? "", SEED_A, "sha1", 6),
  // A GET form: the code lands in the URL, which must come back [hidden].
  "/b": () => form("/b/check", "get"),
  "/b/check": (req) => verdict(new URL(req.url).searchParams.get("code") ?? "", SEED_B, "sha256", 8),
});
const bodies: string[] = [];
let server: TestServer;
let mcp: McpClient;

async function call(method: string, path: string, body?: unknown) {
  const res = await server.call(method, path, body, W);
  bodies.push(JSON.stringify(res.body));
  return res;
}

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.secrets.entries = {
        shop: {
          description: "the shop's second factor",
          allowed_urls: [`app.example.test`],
          keys: { code: { totp: SEED_A }, code8: { totp: URI_B }, user: { value: "ada-totp-user" } },
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
});

test("GET /secrets says which keys are one-time codes, never the seed", async () => {
  const res = await call("GET", "/secrets");
  expect(res.body.secrets).toEqual([
    {
      name: "shop",
      description: "the shop's second factor",
      keys: ["user", "code", "code8"],
      one_time_codes: ["code", "code8"],
      allowed_urls: ["app.example.test"],
      restricted: true,
    },
  ]);
});

test("write types the current code: the site accepts a base32 key and an otpauth SHA256/8-digit key", async () => {
  await call("POST", "/browser/navigate", { url: site.url("/a") });
  const a = await call("POST", "/browser/write", {
    selector: { label: "Code" },
    secret: { name: "shop", key: "code" },
    submit: true,
  });
  expect(a.status).toBe(200);
  expect(a.body).toEqual({ url: site.url("/a/check"), title: "Accepted" });
  expect(received.at(-1)).toMatch(/^\d{6}$/);
  // Back on the form, the field the code went into is empty.
  await call("POST", "/browser/navigate", { back: true });
  const field = (await call("POST", "/browser/read", {})).body.elements.find((e: any) => e.name === "Code");
  expect(field.value ?? "").toBe("");

  await call("POST", "/browser/navigate", { url: site.url("/b") });
  const b = await mcp.tool("write", {
    selector: { label: "Code" },
    secret: { name: "shop", key: "code8" },
    submit: true,
  });
  expect(b.isError).toBeFalsy();
  expect(received.at(-1)).toMatch(/^\d{8}$/);
  // The page put the code in its URL: the write knows what it typed, shows [hidden] there and keeps
  // the page out of the history (spec §3.3), though the redactor never masks a code (§1.17).
  expect(b.structuredContent).toEqual({ url: `${site.url("/b/check")}?code=[hidden]`, title: "Accepted" });
  const history = (await server.app.services.store.get(W))!.history.map((v) => v.url);
  expect(history.join(" ")).not.toContain(received.at(-1));
}, 120_000);

test("a flow's write step types a code too", async () => {
  const steps = [
    { tool: "navigate", args: { url: site.url("/b") } },
    {
      tool: "write",
      args: { selector: { label: "Code" }, secret: { name: "shop", key: "code8" }, submit: true },
    },
  ];
  expect((await call("PUT", "/flows/totp-flow", { steps })).status).toBeLessThan(300);
  const res = await call("POST", "/flows/totp-flow/run", {});
  expect(res.status).toBe(200);
  expect(res.body.status).toBe("ok");
  expect(JSON.stringify(res.body)).toContain("Accepted");
  expect(received.at(-1)).toMatch(/^\d{8}$/);
}, 120_000);

test("off its allowed host, a code is refused and reaches no page", async () => {
  const before = received.length;
  await call("POST", "/browser/navigate", { url: site.url("/a", "127.0.0.1") });
  const res = await call("POST", "/browser/write", {
    selector: { label: "Code" },
    secret: { name: "shop", key: "code" },
    submit: true,
  });
  expect(res.status).toBe(400);
  expect(res.body.error).toContain("secret shop may not be typed on 127.0.0.1");
  const read = await call("POST", "/browser/read", {});
  const field = read.body.elements.find((e: any) => e.name === "Code");
  expect(field.role).toBe("textbox");
  expect(field.value ?? "").toBe("");
  expect(received.length).toBe(before);
}, 120_000);

test("no seed and no typed code in any response, log line or the timeline", async () => {
  const timeline = await server.call("GET", `/admin/workspaces/${W}/timeline?limit=100`, undefined, null);
  expect(timeline.status).toBe(200);
  const everything = [...bodies, ...mcp.texts, ...logLines, JSON.stringify(timeline.body)].join("\n");
  expect(received.length).toBeGreaterThanOrEqual(3);
  for (const v of [SEED_A, SEED_B, URI_B]) expect(everything).not.toContain(v);
  for (const v of received) expect(everything).not.toContain(v);
});
