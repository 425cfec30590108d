// GET /metrics on the real Grid: the admin's credential, calls by tool, surface and status with
// their latency, held browsers, lease waits, the Grid's slots, the store's round trip, feed streams.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { mcpClient } from "../support/mcp.ts";
import { scrapeMetrics } from "../support/metrics.ts";
import { endAll, startServer, type TestServer, TOKEN } from "../support/server.ts";

let server: TestServer;
const site = serveFixture({
  "/": () => html("<title>Metrics</title><p>x"),
  "/slow": async () => {
    await Bun.sleep(1500);
    return html("<title>Slow</title>");
  },
});
const W = "metrics-ws";

const scrape = () => scrapeMetrics(server.url, TOKEN);

beforeAll(async () => {
  server = await startServer();
}, 120_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("the admin's credential only", async () => {
  expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
  const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer wrong" } });
  expect(wrong.status).toBe(401);
});

test("calls by tool, surface and status, with cumulative latency buckets; held browsers", async () => {
  expect((await scrape()).get("selenium_flow_browsers_held")).toBe(0);
  expect((await server.call("POST", "/browser/navigate", { url: site.url("/") }, W)).status).toBe(200);
  const ok = '{tool="navigate",surface="rest",status="200"}';
  // Counted as its answer goes (its record follows the answer): a scrape right after finds it.
  expect((await scrape()).get(`selenium_flow_calls_total${ok}`)).toBe(1);
  expect((await server.call("POST", "/browser/navigate", {}, W)).status).toBe(400);
  const m = await scrape();
  expect(m.get(`selenium_flow_calls_total${ok}`)).toBe(1);
  expect(m.get(`selenium_flow_calls_total{tool="navigate",surface="rest",status="400"}`)).toBe(1);
  expect(m.get(`selenium_flow_call_duration_seconds_count${ok}`)).toBe(1);
  expect(m.get(`selenium_flow_call_duration_seconds_sum${ok}`)).toBeGreaterThan(0);
  const buckets = [...m].filter(
    ([k]) => k.startsWith("selenium_flow_call_duration_seconds_bucket{") && k.endsWith(`,${ok.slice(1)}`),
  );
  expect(buckets.length).toBeGreaterThan(2);
  expect(buckets.map(([, v]) => v)).toEqual([...buckets.map(([, v]) => v)].sort((a, b) => a - b));
  expect(buckets.at(-1)).toEqual([`selenium_flow_call_duration_seconds_bucket{le="+Inf",${ok.slice(1)}`, 1]);
  expect(m.get("selenium_flow_browsers_held")).toBe(1);
}, 120_000);

test("an MCP call counts under its own surface", async () => {
  const mcp = await mcpClient(server, W);
  expect((await mcp.tool("navigate", {})).isError).toBe(true);
  const m = await scrape();
  expect(m.get('selenium_flow_calls_total{tool="navigate",surface="mcp",status="400"}')).toBe(1);
  expect(m.get('selenium_flow_calls_total{tool="navigate",surface="rest",status="400"}')).toBe(1);
});

test("an MCP session with a call in flight counts as busy until it answers", async () => {
  const mcp = await mcpClient(server, W);
  expect((await scrape()).get("selenium_flow_mcp_sessions_busy")).toBe(0);
  const slow = mcp.tool("navigate", { url: site.url("/slow") });
  let busy = 0;
  for (let i = 0; i < 40 && busy === 0; i++) {
    await Bun.sleep(25);
    busy = (await scrape()).get("selenium_flow_mcp_sessions_busy") as number;
  }
  expect(busy).toBe(1);
  expect((await slow).structuredContent.url).toBe(site.url("/slow"));
  expect((await scrape()).get("selenium_flow_mcp_sessions_busy")).toBe(0);
}, 120_000);

test("a call that waits for its workspace's turn counts as a lease wait", async () => {
  const before = await scrape();
  expect(before.get("selenium_flow_lease_waits_total")).toBe(0);
  const [a, b] = await Promise.all([
    server.call("POST", "/browser/navigate", { url: site.url("/slow") }, W),
    Bun.sleep(200).then(() => server.call("POST", "/browser/navigate", { url: site.url("/") }, W)),
  ]);
  expect([a.status, b.status]).toEqual([200, 200]);
  const after = await scrape();
  expect(after.get("selenium_flow_lease_waits_total")).toBe(1);
  expect(after.get("selenium_flow_lease_wait_seconds_total")).toBeGreaterThan(0.5);
}, 120_000);

test("the Grid's slots as its /status counts them, the store's round trip per scrape", async () => {
  const status = (await (await fetch(`${testGridUrl}/status`)).json()) as {
    value: { nodes: { slots: unknown[] }[] };
  };
  const total = status.value.nodes.reduce((n, node) => n + node.slots.length, 0);
  const m = await scrape();
  const free = m.get('selenium_flow_grid_slots{state="free"}') as number;
  const busy = m.get('selenium_flow_grid_slots{state="busy"}') as number;
  expect(free + busy).toBe(total);
  // This file's own browser holds one.
  expect(busy).toBeGreaterThanOrEqual(1);
  expect(m.get('selenium_flow_store_up{store="sqlite"}')).toBe(1);
  const n = m.get('selenium_flow_store_round_trip_seconds_count{store="sqlite"}') as number;
  expect(n).toBeGreaterThan(0);
  expect((await scrape()).get('selenium_flow_store_round_trip_seconds_count{store="sqlite"}')).toBe(n + 1);
});

test("each open live feed counts until it closes", async () => {
  expect((await scrape()).get("selenium_flow_live_feed_streams")).toBe(0);
  const controller = new AbortController();
  const res = await fetch(`${server.url}/admin/events`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: controller.signal,
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  expect((await scrape()).get("selenium_flow_live_feed_streams")).toBe(1);
  controller.abort();
  await reader.read().catch(() => undefined);
  let open = 1;
  for (let i = 0; i < 50 && open !== 0; i++) {
    await Bun.sleep(100);
    open = (await scrape()).get("selenium_flow_live_feed_streams") as number;
  }
  expect(open).toBe(0);
});
