// The two tokens on each other's routes: with auth.admin_token set, an admin route given the agent
// token and an agent route (REST, /mcp, /openapi.json) given the admin token answer 401 saying
// which token the route takes; a wrong or missing token is answered as before, and with one token
// there is no other to name.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN_ON_AGENT, AGENT_TOKEN_ON_ADMIN } from "../../../src/admin/auth.ts";
import { startServer, type TestServer, TOKEN } from "../../support/server.ts";

const ADMIN = "admin-token-tokens-0123456789-abcdef";
const WRONG = "missing or wrong bearer token: send Authorization: Bearer <token>";
let two: TestServer;
let one: TestServer;

beforeAll(async () => {
  [two, one] = await Promise.all([
    startServer({ dataDir: false, configure: (c) => (c.auth.admin_token = ADMIN) }),
    startServer({ dataDir: false }),
  ]);
});
afterAll(async () => {
  await Promise.all([two.close(), one.close()]);
});

const MCP_INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

/** Every kind of route, as a request builder: admin JSON, REST (GET and POST), MCP, OpenAPI. */
const ROUTES: Record<string, { admin: boolean; req: (url: string, auth: HeadersInit) => Request }> = {
  "GET /admin/workspaces": {
    admin: true,
    req: (u, h) => new Request(`${u}/admin/workspaces`, { headers: h }),
  },
  "POST /admin/workspaces/w/end": {
    admin: true,
    req: (u, h) =>
      new Request(`${u}/admin/workspaces/w/end`, {
        method: "POST",
        headers: { ...h, "content-type": "application/json" },
        body: "{}",
      }),
  },
  "GET /browser": {
    admin: false,
    req: (u, h) => new Request(`${u}/browser`, { headers: { ...h, "x-workspace": "w" } }),
  },
  "POST /browser": {
    admin: false,
    req: (u, h) =>
      new Request(`${u}/browser`, {
        method: "POST",
        headers: { ...h, "x-workspace": "w", "content-type": "application/json" },
        body: JSON.stringify({ url: "http://tokens.example.test/" }),
      }),
  },
  "POST /mcp": {
    admin: false,
    req: (u, h) =>
      new Request(`${u}/mcp?workspace=w`, {
        method: "POST",
        headers: {
          ...h,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(MCP_INIT),
      }),
  },
  "GET /openapi.json": { admin: false, req: (u, h) => new Request(`${u}/openapi.json`, { headers: h }) },
};

async function answer(server: TestServer, route: string, token: string | null) {
  const res = await fetch(ROUTES[route]!.req(server.url, token ? { authorization: `Bearer ${token}` } : {}));
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

describe("auth.admin_token set", () => {
  test("each token on the other's routes: 401 naming the token the route takes and the one given", async () => {
    for (const [route, { admin }] of Object.entries(ROUTES)) {
      const other = admin ? TOKEN : ADMIN;
      expect([route, await answer(two, route, other)]).toEqual([
        route,
        { status: 401, body: { error: admin ? AGENT_TOKEN_ON_ADMIN : ADMIN_TOKEN_ON_AGENT } },
      ]);
    }
    expect(AGENT_TOKEN_ON_ADMIN).toStartWith("this route takes the admin token");
    expect(AGENT_TOKEN_ON_ADMIN).toEndWith("the agent token (auth.token) was given");
    expect(ADMIN_TOKEN_ON_AGENT).toStartWith("this route takes the agent token");
    expect(ADMIN_TOKEN_ON_AGENT).toEndWith("the admin token (auth.admin_token) was given");
  });

  test("a wrong or missing token is answered as before, on every kind of route", async () => {
    for (const route of Object.keys(ROUTES)) {
      for (const token of ["not-a-token-of-this-server", null]) {
        expect([route, token, await answer(two, route, token)]).toEqual([
          route,
          token,
          { status: 401, body: { error: WRONG } },
        ]);
      }
    }
  });

  test("each token still opens its own routes", async () => {
    expect((await answer(two, "GET /admin/workspaces", ADMIN)).status).toBe(200);
    expect((await answer(two, "GET /openapi.json", TOKEN)).status).toBe(200);
  });

  test("the sign-in form given the agent token says it is the agent token", async () => {
    const signIn = async (token: string) => {
      const res = await fetch(`${two.url}/ui/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }).toString(),
        redirect: "manual",
      });
      return { status: res.status, text: await res.text() };
    };
    const agent = await signIn(TOKEN);
    expect(agent.status).toBe(401);
    expect(agent.text).toContain(
      "that is the agent token (auth.token): the admin pages take the admin token",
    );
    const wrong = await signIn("not-a-token-of-this-server");
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("wrong token: type the server&#x27;s admin token");
    expect(wrong.text).not.toContain("that is the agent token");
  });
});

describe("auth.admin_token unset: one token, nothing else to name", () => {
  test("a wrong or missing token is the plain 401; the token opens both", async () => {
    for (const route of Object.keys(ROUTES))
      expect([route, await answer(one, route, "not-a-token-of-this-server")]).toEqual([
        route,
        { status: 401, body: { error: WRONG } },
      ]);
    expect((await answer(one, "GET /admin/workspaces", TOKEN)).status).toBe(200);
    expect((await answer(one, "GET /openapi.json", TOKEN)).status).toBe(200);
  });
});
