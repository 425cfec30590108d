// capture=true on the real Grid: a call reports the page's console errors, its responses >= 400 and
// its network errors as `page`; a quiet call and a browser without capture report nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_ITEMS, MAX_URL } from "../../src/grid/capture.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "capture";
const SECRET = "cap-secret-5b7e";
let server: TestServer;
const bodies: string[] = [];

const site = serveFixture({
  "/quiet": () => html("<title>Quiet</title><p>all fine</p><script>console.log('just info')</script>"),
  "/noisy": () =>
    html(`<title>Noisy</title>
<script>console.error("boom", 42);</script>
<img src="/missing.png">
<script>fetch("http://nowhere.invalid/api").catch(() => {});</script>
<script>setTimeout(() => { throw new Error("late failure"); }, 0);</script>`),
  "/leaky": () =>
    html(`<title>Leaky</title><script>
fetch("/gone?pw=" + encodeURIComponent("${SECRET}")).catch(() => {});
console.error("typed ${SECRET} here");
fetch("/gone?long=${"x".repeat(600)}").catch(() => {});
</script>`),
  "/flood": () =>
    html(
      `<title>Flood</title><script>for (let i = 0; i < ${MAX_ITEMS + 5}; i++) console.error("error " + i);</script>`,
    ),
  "/gone": () => new Response("gone", { status: 410 }),
});

async function call(method: string, path: string, body?: unknown) {
  const res = await server.call(method, path, body, W);
  bodies.push(JSON.stringify(res.body));
  return res;
}

beforeAll(async () => {
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.secrets.entries = { app: { keys: { password: { value: SECRET } } } };
    },
  });
  // The secret is registered as the catalogue loads it; typing it is the write action's part.
  const opened = await call("POST", "/browser", { url: site.url("/quiet"), capture: true });
  expect(opened.status).toBe(200);
  expect(opened.body.settings.capture).toBe(true);
}, 180_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  const everything = [...bodies, ...logLines].join("\n");
  expect(everything).not.toContain(SECRET);
  expect(everything).not.toContain(encodeURIComponent(SECRET));
});

describe("capture=true", () => {
  test("a call reports the console errors, the 404 and the network error it caused", async () => {
    const res = await call("POST", "/browser/navigate", { url: site.url("/noisy") });
    expect(res.status).toBe(200);
    expect(res.body.title).toBe("Noisy");
    const page = res.body.page;
    expect(page.console_errors).toContainEqual({ text: "boom 42", source: `${site.url("/noisy")}:2` });
    expect(page.console_errors).toContainEqual({
      text: "Error: late failure",
      source: `${site.url("/noisy")}:5`,
    });
    expect(page.failed_requests).toContainEqual({ url: site.url("/missing.png"), status: 404 });
    expect(page.failed_requests).toContainEqual({
      url: "http://nowhere.invalid/api",
      error: "net::ERR_NAME_NOT_RESOLVED",
    });
    expect(page.console_errors.every((e: any) => !e.text.includes("just info"))).toBe(true);
  }, 60_000);

  test("a call during which the page reported nothing has no page field", async () => {
    const res = await call("POST", "/browser/navigate", { url: site.url("/quiet") });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: site.url("/quiet"), title: "Quiet", status: 200 });
  }, 60_000);

  test("secret values are hidden in reported URLs and texts; long URLs are cut", async () => {
    const res = await call("POST", "/browser/navigate", { url: site.url("/leaky") });
    const page = res.body.page;
    expect(page.failed_requests).toContainEqual({ url: `${site.url("/gone")}?pw=[hidden]`, status: 410 });
    expect(page.console_errors).toContainEqual(expect.objectContaining({ text: "typed [hidden] here" }));
    const long = page.failed_requests.find((r: any) => r.url.includes("long="));
    expect(long.url.length).toBe(MAX_URL);
    expect(long.url.endsWith("…")).toBe(true);
  }, 60_000);

  test("at most MAX_ITEMS of each are listed; the rest are counted", async () => {
    const res = await call("POST", "/browser/navigate", { url: site.url("/flood") });
    const page = res.body.page;
    expect(page.console_errors).toHaveLength(MAX_ITEMS);
    expect(page.console_errors[0].text).toBe("error 0");
    expect(page.omitted).toEqual({ console_errors: 5 });
  }, 60_000);

  test("a browser opened without capture reports nothing", async () => {
    const reopened = await call("POST", "/browser", { url: site.url("/quiet"), capture: false });
    expect(reopened.body.settings.capture).toBeUndefined();
    const res = await call("POST", "/browser/navigate", { url: site.url("/noisy") });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: site.url("/noisy"), title: "Noisy", status: 200 });
  }, 120_000);
});
