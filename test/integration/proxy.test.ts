// A workspace's proxy on the real Grid: open_session's proxy names a secret holding the proxy's
// server and its credentials; every request of that browser goes through the proxy the test runs,
// the browser answers the proxy's 407 with the secret's user and password (never shown), and the
// next browser of the workspace keeps it until told otherwise.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { type ForwardProxy, startForwardProxy } from "../support/forward-proxy.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "proxied";
const PASSWORD = "proxy-pass-7319";
let server: TestServer;
let proxy: ForwardProxy;
const bodies: string[] = [];

const site = serveFixture({
  "/where": (req) =>
    html(`<title>${req.headers.get("x-via-test-proxy") ? "Through the proxy" : "Direct"}</title>`),
});

const call = async (path: string, body?: unknown, method = "POST") => {
  const res = await server.call(method, path, body, W);
  bodies.push(JSON.stringify(res.body));
  return res;
};

beforeAll(async () => {
  proxy = await startForwardProxy({ user: "agent", pass: PASSWORD });
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.secrets.entries = {
        corp: {
          keys: {
            server: { value: `http://127.0.0.1:${proxy.port}` },
            username: { value: "agent" },
            password: { value: PASSWORD },
          },
        },
        noserver: { keys: { username: { value: "x" }, password: { value: "y" } } },
      };
    },
  });
}, 180_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  proxy.stop();
  site.stop();
  expect([...bodies, ...logLines].join("\n")).not.toContain(PASSWORD);
});

describe("a workspace's proxy", () => {
  test("every request goes through it, signed in with the secret's credentials", async () => {
    const opened = await call("/browser", { url: site.url("/where"), proxy: "corp" });
    expect(opened.status).toBe(200);
    expect(opened.body.title).toBe("Through the proxy");
    expect(opened.body.settings.proxy).toBe("corp");
    expect(proxy.challenged).toBeGreaterThanOrEqual(1);
    expect(proxy.carried).toContain(site.url("/where"));
  });

  test("kept for the workspace's next browser; an empty proxy goes direct", async () => {
    await call("/browser", undefined, "DELETE");
    const before = proxy.carried.length;
    expect((await call("/browser/navigate", { url: site.url("/where?again") })).body.title).toBe(
      "Through the proxy",
    );
    expect(proxy.carried.length).toBeGreaterThan(before);
    const direct = await call("/browser", { url: site.url("/where"), proxy: "" });
    expect(direct.body.title).toBe("Direct");
    expect(direct.body.settings.proxy).toBeUndefined();
  });

  test("a secret that names no proxy, or no secret: a 400 before any browser opens", async () => {
    const none = await call("/browser", { proxy: "nope" });
    expect(none.status).toBe(400);
    expect(none.body.error).toContain("proxy: there is no secret named nope");
    const bad = await call("/browser", { proxy: "noserver" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("secret noserver has no key server");
  });
});
