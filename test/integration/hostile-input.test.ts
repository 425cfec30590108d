// Hostile input is a 400, never a 500: a Host header that is no host name (unauthenticated, before
// any route), and a script whose result has a getter that throws when read.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

let server: TestServer;
const site = serveFixture({ "/": () => html("<title>Getter</title><p>x") });
const W = "hostile-input";

beforeAll(async () => {
  server = await startServer({ dataDir: false });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

/** The status line of a raw request sent with `host` as its Host header. */
function statusWithHost(host: string): Promise<string> {
  const port = Number(new URL(server.url).port);
  return new Promise((resolve, reject) => {
    const c = connect(port, "127.0.0.1", () =>
      c.write(`GET /openapi.json HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
    );
    let got = "";
    c.on("data", (b) => {
      got += b;
    });
    c.on("end", () => resolve(got.split("\r\n")[0] ?? ""));
    c.on("error", reject);
  });
}

describe("hostile input", () => {
  test("a malformed Host is a 400 naming the header", async () => {
    for (const host of ["a b", "[::1", "exa%mple", "127.0.0.1:99999", "127.0.0.1:abc", "a/b", "[zz]"]) {
      expect([host, await statusWithHost(host)]).toEqual([host, "HTTP/1.1 400 Bad Request"]);
    }
    // A good Host still gets through to the token check.
    expect(await statusWithHost("127.0.0.1")).toBe("HTTP/1.1 401 Unauthorized");
  });

  test("a script result with a throwing getter is a 400 that says what to return", async () => {
    expect((await server.call("POST", "/browser/navigate", { url: site.url("/") }, W)).status).toBe(200);
    const got = await server.call(
      "POST",
      "/browser/script",
      { script: "return { ok: 1, get bad() { throw new Error('no reading me'); } };" },
      W,
    );
    expect(got.status).toBe(400);
    expect(JSON.stringify(got.body)).toContain("getter");
  });
});
