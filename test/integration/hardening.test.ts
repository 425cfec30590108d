// Issue 11 against the server as operators run it (`bun src/main.ts`, its own process): no web page
// drives it (Host, Origin, content types, the admin's sign-in), no request takes it down (bodies,
// MCP sessions, flows), malformed input is a 400 or a 404, and what it keeps on disk is its own.

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LinkSigner, linkKey } from "../../src/files/links.ts";
import { emptyRecord } from "../../src/store/record.ts";
import { SqliteStore } from "../../src/store/sqlite.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { rawRequest, type ServerProcess, startProcess } from "../support/process.ts";

const TOKEN = "hardening-token-0123456789";
const W = "hardening";
const PLANTED = "planted";
const root = mkdtempSync(join(tmpdir(), "sf-hard-"));
const dataDir = join(root, "data");
const site = serveFixture({ "/": () => html("<title>Hard</title><h1>Hard</h1>") });
let srv: ServerProcess;

const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_TYPE = { "content-type": "application/json" };
const YAML_TYPE = { "content-type": "application/yaml" };
const FORM_TYPE = { "content-type": "application/x-www-form-urlencoded" };
const MCP_ACCEPT = { accept: "application/json, text/event-stream" };
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

function send(method: string, path: string, headers: Record<string, string> = {}, body?: BodyInit) {
  return fetch(`${srv.base}${path}`, { method, headers, body, redirect: "manual" });
}

async function errorOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error;
}

/** A sign-in as the admin's browser makes it, from the server's own page; the cookie pair. */
async function signIn(): Promise<string> {
  const res = await send(
    "POST",
    "/ui/sign-in",
    { ...FORM_TYPE, origin: srv.base },
    new URLSearchParams({ token: TOKEN }).toString(),
  );
  expect(res.status).toBe(303);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
}

beforeAll(async () => {
  srv = await startProcess({
    AUTH_TOKEN: TOKEN,
    GRID_URL: testGridUrl,
    DATA_DIR: dataDir,
    HTTP_ALLOWED_HOSTS: "proxy.example.test",
  });
  // A workspace that exists (its folder): the admin routes on it answer.
  const saved = await send(
    "PUT",
    `/flows/first?workspace=${W}`,
    { ...AUTH, ...YAML_TYPE },
    "steps:\n  - tool: end_browser\n",
  );
  expect(saved.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await send("DELETE", `/browser?workspace=${W}`, AUTH).catch(() => undefined);
  await srv?.stop();
  site.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("hosts and origins", () => {
  const forged = () => [`evil.example.test:${srv.port}`, "127.0.0.1.evil.example.test", "evil.example.test"];

  test("a forged Host is refused on REST, MCP, admin, UI and OpenAPI; /healthz answers any Host", async () => {
    for (const host of forged()) {
      for (const [method, path, headers, body] of [
        ["GET", `/browser?workspace=${W}`, AUTH, undefined],
        ["GET", `/secrets?workspace=${W}`, AUTH, undefined],
        ["POST", `/mcp?workspace=${W}`, { ...AUTH, ...JSON_TYPE, ...MCP_ACCEPT }, INIT],
        ["GET", "/admin/settings", AUTH, undefined],
        ["GET", "/ui/", AUTH, undefined],
        ["POST", "/ui/sign-in", FORM_TYPE, `token=${TOKEN}`],
        ["GET", "/openapi.json", AUTH, undefined],
      ] as const) {
        const res = await send(method, path, { ...headers, host }, body);
        expect(res.status, `${method} ${path} as ${host}`).toBe(403);
        expect(await errorOf(res)).toContain("http.allowed_hosts");
      }
    }
    // It answers (200, or 503 while the shared Grid has no free slot), whatever the Host.
    const health = await send("GET", "/healthz", { host: `evil.example.test:${srv.port}` });
    expect([200, 503]).toContain(health.status);
    expect(((await health.json()) as any).store.ok).toBe(true);
  });

  test("the loopback names, with or without the port, and http.allowed_hosts are served", async () => {
    for (const host of [
      `localhost:${srv.port}`,
      `127.0.0.1:${srv.port}`,
      "127.0.0.1",
      `[::1]:${srv.port}`,
      "proxy.example.test",
      "PROXY.example.test:443",
    ]) {
      const res = await send("GET", "/admin/settings", { ...AUTH, host });
      expect(res.status, host).toBe(200);
    }
  });

  test("a change from a page on another origin is refused on every surface; a read is not", async () => {
    for (const origin of ["https://evil.example.test", `http://127.0.0.1:${srv.port + 1}`, "null"]) {
      for (const [method, path, headers, body] of [
        [
          "POST",
          `/browser/navigate?workspace=${W}`,
          { ...AUTH, ...JSON_TYPE },
          '{"url":"http://x.example.test/"}',
        ],
        ["DELETE", `/browser?workspace=${W}`, AUTH, undefined],
        ["PUT", `/flows/x?workspace=${W}`, { ...AUTH, ...YAML_TYPE }, "steps:\n  - tool: end_browser\n"],
        ["POST", `/mcp?workspace=${W}`, { ...AUTH, ...JSON_TYPE, ...MCP_ACCEPT }, INIT],
        ["POST", `/admin/workspaces/${W}/end`, AUTH, undefined],
        ["DELETE", `/admin/workspaces/${W}`, AUTH, undefined],
        ["POST", "/ui/sign-in", FORM_TYPE, `token=${TOKEN}`],
      ] as const) {
        const res = await send(method, path, { ...headers, origin }, body);
        expect(res.status, `${method} ${path} from ${origin}`).toBe(403);
      }
    }
    // Still there: the DELETE above was refused.
    expect((await send("GET", `/admin/workspaces/${W}`, AUTH)).status).toBe(200);
    const read = await send("GET", "/admin/settings", { ...AUTH, origin: "https://evil.example.test" });
    expect(read.status).toBe(200);
    const own = await send(
      "PUT",
      `/flows/own?workspace=${W}`,
      { ...AUTH, ...YAML_TYPE, origin: srv.base },
      "steps:\n  - tool: end_browser\n",
    );
    expect(own.status).toBe(200);
  });

  test("JSON routes and /mcp answer 415 to a body that is not JSON; uploads stay multipart, flows take YAML", async () => {
    for (const [path, type] of [
      [`/browser/navigate?workspace=${W}`, "text/plain"],
      [`/browser/navigate?workspace=${W}`, "application/x-www-form-urlencoded"],
      [`/browser?workspace=${W}`, "multipart/form-data; boundary=x"],
      [`/mcp?workspace=${W}`, "text/plain"],
      [`/admin/workspaces/${W}/end`, "text/plain"],
    ] as const) {
      const res = await send("POST", path, { ...AUTH, ...MCP_ACCEPT, "content-type": type }, "{}");
      expect(res.status, `${path} as ${type}`).toBe(415);
      expect(await errorOf(res)).toContain("application/json");
    }
    const plainFlow = await send(
      "PUT",
      `/flows/plain?workspace=${W}`,
      { ...AUTH, "content-type": "text/plain" },
      "steps:\n  - tool: end_browser\n",
    );
    expect(plainFlow.status).toBe(415);
    const form = new FormData();
    form.append("file", new Blob(["hello"]), "a.txt");
    const upload = await send("POST", `/browser/upload?workspace=${W}`, AUTH, form);
    expect(upload.status).toBe(400);
    expect(await errorOf(upload)).toContain("selector");
  });

  test("GET / redirects to /ui/", async () => {
    const res = await send("GET", "/");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/ui/");
  });
});

describe("the admin's sign-in", () => {
  test("the cookie is a random id the store keeps a digest of, never the token", async () => {
    const cookie = await signIn();
    const id = cookie.slice("sf_admin=".length);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(id).not.toContain(TOKEN);
    expect((await send("GET", "/admin/workspaces", { cookie })).status).toBe(200);
    expect((await send("GET", "/ui/", { cookie })).status).toBe(200);
    expect((await send("GET", "/admin/workspaces", { cookie: `sf_admin=${TOKEN}` })).status).toBe(401);
    const db = new Database(join(dataDir, "records.sqlite"), { readonly: true });
    const rows = db.query("SELECT id FROM admin_sessions").all() as Array<{ id: string }>;
    db.close();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.id)).not.toContain(id);
  });

  test("CSRF: a cookie-signed change from a page on another port, or with no origin at all, is refused", async () => {
    const cookie = await signIn();
    const other = `http://127.0.0.1:${srv.port + 1}`;
    for (const path of [`/admin/workspaces/${W}/end`, `/ui/workspaces/${W}/end`]) {
      for (const headers of [
        { origin: other },
        { origin: `http://localhost:${srv.port}` },
        {},
        { "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "same-site" },
      ] as Record<string, string>[]) {
        const res = await send("POST", path, { cookie, ...headers });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
      }
      expect((await send("POST", path, { cookie, origin: srv.base })).status).toBe(200);
      expect((await send("POST", path, { cookie, "sec-fetch-site": "same-origin" })).status).toBe(200);
      // A script with the token needs no Origin.
      expect((await send("POST", path, AUTH)).status).toBe(200);
    }
    const clear = await send("DELETE", `/ui/workspaces/${W}/panes/history`, { cookie, origin: other });
    expect(clear.status).toBe(403);
  });
});

describe("bodies", () => {
  const BIG = new Uint8Array(20 * 1024 * 1024).fill(0x61);

  test("20 MB bodies without a token are answered at once, and the server's RSS stays flat", async () => {
    const before = srv.rss();
    const figures: string[] = [];
    for (const [method, path, headers, status] of [
      ["POST", `/browser/navigate?workspace=${W}`, JSON_TYPE, 401],
      ["PUT", `/flows/big?workspace=${W}`, YAML_TYPE, 401],
      ["POST", `/mcp?workspace=${W}`, { ...JSON_TYPE, ...MCP_ACCEPT }, 401],
      ["POST", `/admin/workspaces/${W}/end`, JSON_TYPE, 401],
      ["POST", "/ui/sign-in", FORM_TYPE, 413],
    ] as const) {
      let slowest = 0;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const res = await send(method, path, headers, BIG);
        expect(res.status, `${method} ${path}`).toBe(status);
        await res.arrayBuffer();
        slowest = Math.max(slowest, performance.now() - t);
      }
      figures.push(`${method} ${path.split("?")[0]}: ${status} in ≤${slowest.toFixed(1)} ms`);
    }
    const grew = srv.rss() - before;
    console.log(
      `20 MB bodies ×25: ${figures.join("; ")}; RSS ${before.toFixed(0)} → +${grew.toFixed(1)} MiB`,
    );
    expect(grew).toBeLessThan(40);
  }, 60_000);

  test("the sign-in form reads at most 4 KB; Bun refuses a body over the largest cap before any route", async () => {
    const long = await send("POST", "/ui/sign-in", FORM_TYPE, `token=${"x".repeat(5000)}`);
    expect(long.status).toBe(413);
    const over = await send(
      "POST",
      `/browser/upload?workspace=${W}`,
      { ...AUTH, "content-type": "multipart/form-data; boundary=x" },
      new Uint8Array(67 * 1024 * 1024),
    );
    expect(over.status).toBe(413);
  }, 60_000);
});

describe("MCP sessions", () => {
  test("300 initializes keep the server's RSS bounded", async () => {
    const init = () => send("POST", `/mcp?workspace=${W}`, { ...AUTH, ...JSON_TYPE, ...MCP_ACCEPT }, INIT);
    await (await init()).text();
    const before = srv.rss();
    for (let i = 0; i < 300; i++) {
      const res = await init();
      expect(res.status).toBe(200);
      await res.text();
    }
    const grew = srv.rss() - before;
    console.log(
      `300 MCP initializes: RSS +${grew.toFixed(1)} MiB (${((grew * 1024) / 300).toFixed(0)} KiB each)`,
    );
    expect(grew).toBeLessThan(100);
  }, 60_000);

  test("beyond mcp.max_sessions an initialize closes the least recently used session; a closed or idle one makes room", async () => {
    const small = await startProcess({
      AUTH_TOKEN: TOKEN,
      GRID_URL: testGridUrl,
      MCP_MAX_SESSIONS: "3",
      MCP_SESSION_IDLE: "2",
    });
    try {
      const init = () =>
        fetch(`${small.base}/mcp?workspace=${W}`, {
          method: "POST",
          headers: { ...AUTH, ...JSON_TYPE, ...MCP_ACCEPT },
          body: INIT,
        });
      const ping = (id: string) =>
        fetch(`${small.base}/mcp`, {
          method: "POST",
          headers: {
            ...AUTH,
            ...JSON_TYPE,
            ...MCP_ACCEPT,
            "mcp-session-id": id,
            "mcp-protocol-version": "2025-06-18",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
        });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await init();
        expect(res.status).toBe(200);
        await res.text();
        ids.push(res.headers.get("mcp-session-id") as string);
      }
      // Full: the fourth opens, and the least recently used (the first) is closed to make room.
      const fourth = await init();
      expect(fourth.status).toBe(200);
      await fourth.text();
      const first = await ping(ids[0] as string);
      expect(first.status).toBe(404);
      expect(await errorOf(first)).toBe(
        "no such MCP session: it was closed, or unused for longer than mcp.session_idle, or closed to make room for a new one; initialize a new one",
      );
      expect((await ping(ids[1] as string)).status).toBe(200);
      const closed = await fetch(`${small.base}/mcp`, {
        method: "DELETE",
        headers: { ...AUTH, "mcp-session-id": ids[1] as string, "mcp-protocol-version": "2025-06-18" },
      });
      expect(closed.status).toBe(200);
      const room = await init();
      expect(room.status).toBe(200);
      await room.text();
      // mcp.session_idle: 2 s unused and a session is gone.
      await Bun.sleep(3500);
      expect((await ping(ids[2] as string)).status).toBe(404);
      for (let i = 0; i < 3; i++) {
        const res = await init();
        expect(res.status).toBe(200);
        await res.text();
      }
    } finally {
      await small.stop();
    }
  }, 60_000);
});

describe("flows", () => {
  const put = (name: string, yaml: string) =>
    send("PUT", `/flows/${name}?workspace=${W}`, { ...AUTH, ...YAML_TYPE }, yaml);

  test("30,000 params is a 400 naming the line; /healthz waits only for the YAML parse (about a second)", async () => {
    let yaml = "params:\n";
    for (let i = 0; i < 30_000; i++) yaml += `  p${i}: 1\n`;
    yaml += "steps:\n  - tool: end_browser\n";
    const t = performance.now();
    const saving = put("many", yaml);
    const health = await send("GET", "/healthz");
    const healthMs = performance.now() - t;
    const res = await saving;
    const ms = performance.now() - t;
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("line 1: a flow takes at most 100 parameters; this one declares 30000");
    expect([200, 503]).toContain(health.status);
    console.log(
      `30,000-param flow: 400 in ${ms.toFixed(0)} ms; /healthz meanwhile ${healthMs.toFixed(0)} ms`,
    );
    let dup = "params:\n";
    for (let i = 0; i < 30_000; i++) dup += "  p: 1\n";
    dup += "steps:\n  - tool: end_browser\n";
    const twice = await put("dup", dup);
    expect(twice.status).toBe(400);
    expect(await errorOf(twice)).toBe("invalid YAML at line 3, column 3: Map keys must be unique");
  }, 60_000);

  test("an alias bomb is a 400 naming its line; 101 params and 1,001 steps are too many; 1,000 are fine", async () => {
    const bomb = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]",
      "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]",
      "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]",
      "steps: [*d]",
    ].join("\n");
    const res = await put("bomb", bomb);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("line 2: aliases (*a) are not allowed in a flow: write the value out");
    let params = "params:\n";
    for (let i = 0; i < 101; i++) params += `  p${i}: 1\n`;
    const tooMany = await put("params", `${params}steps:\n  - tool: end_browser\n`);
    expect(tooMany.status).toBe(400);
    expect(await errorOf(tooMany)).toContain("at most 100 parameters");
    const steps = (n: number) => `steps:\n${"  - tool: end_browser\n".repeat(n)}`;
    const long = await put("long", steps(1001));
    expect(long.status).toBe(400);
    expect(await errorOf(long)).toBe('line 1: field "steps" has too many items: at most 1000');
    expect((await put("thousand", steps(1000))).status).toBe(200);
  });
});

describe("malformed input is a 400 or a 404, never a 500", () => {
  test("a malformed escape anywhere in a path is a 400 on every surface", async () => {
    for (const path of [
      `/flows/%E0%A4%A?workspace=${W}`,
      `/flows/%?workspace=${W}`,
      `/site-data/%E0%A4%A?workspace=${W}`,
      `/files/%?workspace=${W}`,
      `/files/screenshots/%E0%A4%A?workspace=${W}`,
      "/admin/workspaces/%E0%A4%A",
      `/admin/workspaces/${W}/flows/%`,
      `/admin/workspaces/${W}/site-data/%E0`,
      "/ui/workspaces/%E0%A4%A",
      `/ui/workspaces/${W}/site-data/%`,
      `/file/${W}/files/%E0%A4%A?expires=1&sig=x`,
      "/recordings/%/x.mp4?expires=1&sig=x",
    ]) {
      const res = await send("GET", path, AUTH);
      expect(res.status, path).toBe(400);
    }
    const del = await send("DELETE", `/admin/workspaces/${W}/site-data/%`, AUTH);
    expect(del.status).toBe(400);
  });

  test("a malformed admin cookie is a 400; another cookie's is nobody's business", async () => {
    for (const value of ["%E0%A4%A", "%"]) {
      expect((await send("GET", "/ui/", { cookie: `sf_admin=${value}` })).status).toBe(400);
      expect((await send("GET", "/admin/workspaces", { cookie: `sf_admin=${value}` })).status).toBe(400);
    }
    expect((await send("GET", "/admin/workspaces", { cookie: "other=%E0%A4%A" })).status).toBe(401);
  });

  test("a path param is decoded once: %2561bc names the flow '%61bc' (refused), never 'abc'", async () => {
    const res = await send(
      "PUT",
      `/flows/%2561bc?workspace=${W}`,
      { ...AUTH, ...YAML_TYPE },
      "steps:\n  - tool: end_browser\n",
    );
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain("invalid flow name");
    const list = (await (await send("GET", `/flows?workspace=${W}`, AUTH)).json()) as any;
    expect(list.flows.map((f: any) => f.name)).not.toContain("abc");
    expect(list.flows.map((f: any) => f.name)).not.toContain("null");
  });

  test("__proto__ and constructor are unknown sites (404), on REST and over MCP", async () => {
    for (const name of ["__proto__", "constructor", "toString"]) {
      const res = await send("GET", `/site-data/${name}?workspace=${W}`, AUTH);
      expect(res.status, name).toBe(404);
    }
  });

  test("a resource URI that does not decode is invalid params over MCP; an unknown site is not found", async () => {
    const post = async (body: unknown, session?: string) => {
      const res = await send(
        "POST",
        `/mcp?workspace=${W}`,
        {
          ...AUTH,
          ...JSON_TYPE,
          ...MCP_ACCEPT,
          ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" } : {}),
        },
        JSON.stringify(body),
      );
      const text = await res.text();
      const json = text.startsWith("{") ? text : (/data: (.*)/.exec(text)?.[1] ?? "null");
      return { res, data: JSON.parse(json) as any };
    };
    const init = await post(JSON.parse(INIT));
    const session = init.res.headers.get("mcp-session-id") as string;
    const read = async (uri: string) =>
      (await post({ jsonrpc: "2.0", id: 9, method: "resources/read", params: { uri } }, session)).data.error;
    const bad = await read("workspace://files/%E0%A4%A");
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain("not valid percent-encoding");
    const proto = await read("workspace://site-data/__proto__");
    expect(proto.code).toBe(-32002);
    expect(proto.message).toBe("no saved data for '__proto__': workspace://site-data lists them");
    expect((await read("workspace://files/..")).code).toBe(-32602);
  });

  test("dot segments in a file route are a 400: DELETE …/files/.. never forgets the workspace", async () => {
    const host = `Host: 127.0.0.1:${srv.port}\r\nAuthorization: Bearer ${TOKEN}`;
    for (const path of [
      `/admin/workspaces/${W}/files/..`,
      `/admin/workspaces/${W}/files/%2e%2e`,
      `/admin/workspaces/${W}/files/./..`,
      `/admin/workspaces/${W}/`,
    ]) {
      const res = await rawRequest(srv.port, `DELETE ${path} HTTP/1.1\r\n${host}`);
      expect(res.status, path).toBe(400);
    }
    for (const path of [`/file/${W}/files/..`, `/files/screenshots/..?workspace=${W}`]) {
      const res = await rawRequest(srv.port, `GET ${path} HTTP/1.1\r\n${host}`);
      expect(res.status, path).toBe(400);
    }
    expect((await send("GET", `/admin/workspaces/${W}`, AUTH)).status).toBe(200);
  });

  test("a symlink planted in a folder is neither listed nor served; an invalid Range is ignored", async () => {
    const ws = join(dataDir, "sessions", PLANTED);
    mkdirSync(join(ws, "files"), { recursive: true });
    mkdirSync(join(ws, "flows"), { recursive: true });
    writeFileSync(join(ws, "files", "real.txt"), "0123456789");
    symlinkSync("/etc/passwd", join(ws, "files", "passwd.txt"));
    symlinkSync("/etc", join(ws, "screenshots"));
    symlinkSync("/etc/passwd", join(ws, "flows", "evil.yaml"));
    const q = `?workspace=${PLANTED}`;
    const files = (await (await send("GET", `/files${q}`, AUTH)).json()) as any;
    expect(files.files.map((f: any) => f.name)).toEqual(["real.txt"]);
    expect((await send("GET", `/files/passwd.txt${q}`, AUTH)).status).toBe(404);
    const shots = (await (await send("GET", `/files/screenshots${q}`, AUTH)).json()) as any;
    expect(shots.files).toEqual([]);
    expect((await send("GET", `/files/screenshots/hostname${q}`, AUTH)).status).toBe(404);
    const signer = new LinkSigner(linkKey(dataDir), 600, () => Date.now() / 1000);
    const link = await send("GET", signer.sign(PLANTED, "files", "passwd.txt"));
    expect(link.status).toBe(404);
    expect(await link.text()).not.toContain("root:");
    const flows = (await (await send("GET", `/flows${q}`, AUTH)).json()) as any;
    expect(flows.flows.map((f: any) => f.name)).not.toContain("evil");
    expect((await send("GET", `/flows/evil${q}`, AUTH)).status).toBe(404);

    const real = signer.sign(PLANTED, "files", "real.txt");
    const invalid = await send("GET", real, { range: "bytes=5-1" });
    expect(invalid.status).toBe(200);
    expect(await invalid.text()).toBe("0123456789");
    const part = await send("GET", real, { range: "bytes=2-4" });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe("234");
    expect((await send("GET", real, { range: "bytes=99-" })).status).toBe(416);
  });
});

describe("on disk", () => {
  test("everything the server makes under data.dir is owner-only: folders 0700, files 0600, the database's WAL included", async () => {
    const opened = await send(
      "POST",
      `/browser?workspace=${W}`,
      { ...AUTH, ...JSON_TYPE },
      JSON.stringify({ url: site.url("/") }),
    );
    expect(opened.status).toBe(200);
    const shot = await send("POST", `/browser/screenshot?workspace=${W}`, { ...AUTH, ...JSON_TYPE }, "{}");
    expect(shot.status).toBe(200);
    expect((await send("DELETE", `/browser?workspace=${W}`, AUTH)).status).toBe(200);
    const seen: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (path.startsWith(join(dataDir, "sessions", PLANTED))) continue;
        const mode = statSync(path).mode & 0o777;
        seen.push(path.slice(dataDir.length + 1));
        if (e.isDirectory()) {
          expect(mode.toString(8), path).toBe("700");
          walk(path);
        } else {
          expect(mode.toString(8), path).toBe("600");
        }
      }
    };
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe("700");
    walk(dataDir);
    for (const must of [
      "records.sqlite",
      "records.sqlite-wal",
      "records.sqlite-shm",
      ".link-key",
      `sessions/${W}/flows/first.yaml`,
      `sessions/${W}/screenshots`,
    ]) {
      expect(seen).toContain(must);
    }
    expect(seen.some((p) => p.startsWith(`sessions/${W}/screenshots/screenshot-`))).toBe(true);
  }, 120_000);
});

describe("a Grid that takes connections and never answers", () => {
  test("a call is a 503 naming the Grid within grid.command_timeout, never a 500", async () => {
    const held: import("bun").Socket[] = [];
    const silent = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: { open: (s) => void held.push(s), data: () => {} },
    });
    const dir = join(root, "hung");
    // The workspace had a browser: its id is in the record the server finds.
    mkdirSync(dir, { recursive: true });
    const store = new SqliteStore({ path: join(dir, "records.sqlite") });
    await store.set("stuck", { ...emptyRecord(), session_id: "0123456789abcdef0123456789abcdef" });
    await store.close();
    const hung = await startProcess({
      AUTH_TOKEN: TOKEN,
      GRID_URL: `http://127.0.0.1:${silent.port}`,
      GRID_COMMAND_TIMEOUT: "1",
      DATA_DIR: dir,
    });
    try {
      const grid = `the Grid at http://127.0.0.1:${silent.port} did not answer`;
      for (const [method, path, body] of [
        ["POST", "/browser/navigate", '{"reload":true}'],
        ["POST", "/browser/navigate", '{"url":"http://app.example.test/"}'],
        ["POST", "/browser/script", '{"script":"return 1"}'],
        ["GET", "/browser", undefined],
      ] as const) {
        const t = performance.now();
        const res = await fetch(`${hung.base}${path}?workspace=stuck`, {
          method,
          headers: { ...AUTH, ...JSON_TYPE },
          body,
        });
        const ms = performance.now() - t;
        expect(res.status, `${method} ${path}`).toBe(503);
        expect(await errorOf(res)).toStartWith(grid);
        // One deadline (the timeouts lookup or the command), not the 5 minutes a hung fetch waits.
        expect(ms).toBeLessThan(10_000);
      }
      expect(hung.output()).not.toContain("something failed");
    } finally {
      await hung.stop();
      for (const s of held) s.end();
      silent.stop(true);
    }
  }, 60_000);
});

// Last: it locks this address out of signing in for a minute.
describe("guessing the token", () => {
  test("20 wrong sign-ins: 5 are 401, then 429 with Retry-After, the right token included", async () => {
    const statuses: number[] = [];
    let retry = "";
    for (let i = 0; i < 20; i++) {
      const res = await send("POST", "/ui/sign-in", { ...FORM_TYPE, origin: srv.base }, `token=wrong-${i}`);
      statuses.push(res.status);
      if (res.status === 429) retry = res.headers.get("retry-after") ?? "";
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
    expect(Number(retry)).toBeGreaterThan(0);
    expect(Number(retry)).toBeLessThanOrEqual(60);
    const right = await send("POST", "/ui/sign-in", { ...FORM_TYPE, origin: srv.base }, `token=${TOKEN}`);
    expect(right.status).toBe(429);
    expect(right.headers.get("set-cookie")).toBeNull();
  });
});
