// Two credentials: with auth.admin_token set, the agent token opens no admin route (every one the
// app registers, and any path under /admin), nor the pages' sign-in; unset, one token opens both.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { credentialsLine } from "../../src/admin/auth.ts";
import { adminRoutes } from "../../src/surfaces/admin-api.ts";
import { startServer, type TestServer, TOKEN } from "../support/server.ts";

const ADMIN = "admin-token-0123456789-abcdef";
let two: TestServer;
let one: TestServer;

beforeAll(async () => {
  two = await startServer({
    dataDir: false,
    configure: (c) => {
      c.auth.admin_token = ADMIN;
    },
  });
  one = await startServer({ dataDir: false });
});

afterAll(async () => {
  await two.close();
  await one.close();
});

/** Every route the admin API registers, its path's parameters filled in. */
function registered(server: TestServer): [string, string][] {
  const routes = (
    adminRoutes(server.app.services, server.app.feeds) as unknown as {
      routes: { method: string; path: string }[];
    }
  ).routes;
  return routes.map((r) => [r.method, r.path.replace(/:[A-Za-z_]+/g, "tok-ws").replace(/\*$/, "x")]);
}

async function send(server: TestServer, method: string, path: string, token: string | null) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    redirect: "manual",
  });
  await res.arrayBuffer();
  return res.status;
}

describe("auth.admin_token set", () => {
  test("the agent token is a 401 on every admin route, the admin token is not", async () => {
    const routes = registered(two);
    expect(routes.length).toBeGreaterThan(15);
    // Routes other areas add under /admin are covered by the prefix, registered or not.
    routes.push(["POST", "/admin/workspaces/tok-ws/input"], ["POST", "/admin/workspaces/tok-ws/answer"]);
    const open: string[] = [];
    for (const [method, path] of routes) {
      if ((await send(two, method, path, TOKEN)) !== 401) open.push(`${method} ${path}`);
    }
    expect(open).toEqual([]);
    expect(await send(two, "GET", "/admin/workspaces", ADMIN)).toBe(200);
    expect(await send(two, "GET", "/admin/settings", ADMIN)).toBe(200);
  });

  test("the admin pages take only the admin token", async () => {
    expect(await send(two, "GET", "/ui/", TOKEN)).toBe(401);
    expect(await send(two, "GET", "/ui/", ADMIN)).toBe(200);
    const signIn = (token: string) =>
      fetch(`${two.url}/ui/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }).toString(),
        redirect: "manual",
      });
    expect((await signIn(TOKEN)).status).toBe(401);
    const ok = await signIn(ADMIN);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("set-cookie")).toContain("sf_admin=");
  });

  test("the admin token opens no agent route", async () => {
    expect(await send(two, "GET", "/openapi.json", ADMIN)).toBe(401);
    expect(await send(two, "GET", "/openapi.json", TOKEN)).toBe(200);
  });

  test("the boot line names the two credentials", () => {
    expect(credentialsLine(two.config)).toContain("auth.token the agent routes only");
  });
});

describe("auth.admin_token unset", () => {
  test("one token opens both, and the boot line says so", async () => {
    expect(await send(one, "GET", "/admin/workspaces", TOKEN)).toBe(200);
    expect(await send(one, "GET", "/openapi.json", TOKEN)).toBe(200);
    expect(await send(one, "GET", "/admin/workspaces", null)).toBe(401);
    expect(credentialsLine(one.config)).toContain("one token (auth.token) opens both");
  });
});

describe("one credential check a request", () => {
  test("every admin route asks the credential once", async () => {
    const auth = two.app.services.gate;
    const original = auth.credential.bind(auth);
    let asked = 0;
    auth.credential = (request: Request) => {
      asked++;
      return original(request);
    };
    try {
      for (const [method, path] of registered(two)) {
        asked = 0;
        // Only the answer's head: some routes stream (the live screen, the row feed).
        const res = await fetch(`${two.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN}` },
          redirect: "manual",
        });
        await res.body?.cancel();
        expect([method, path, asked]).toEqual([method, path, 1]);
      }
    } finally {
      auth.credential = original;
    }
  });
});
