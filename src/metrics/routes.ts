// GET /metrics (the admin's credential): this server's calls, browsers, lease waits, the Grid's free
// slots, the store's round trip and the live-feed streams, in the Prometheus text format.
import { Elysia } from "elysia";
import { adminGuard } from "../admin/guard.ts";
import type { Services } from "../services.ts";
import { CallMetrics } from "./calls.ts";
import { exposition, type Family, Histogram, sample } from "./text.ts";

const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Seconds: a local SQLite answers in well under a millisecond, a remote Redis in a few. */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** The store's ping, in seconds; one series kept for the whole life of the server. */
const storeRoundTrip = new WeakMap<Services, Histogram>();

async function timedPing(services: Services): Promise<{ ok: boolean; seconds: number }> {
  const started = performance.now();
  const ok = await services.store.ping().catch(() => false);
  const seconds = (performance.now() - started) / 1000;
  let h = storeRoundTrip.get(services);
  if (!h) {
    h = new Histogram(STORE_BUCKETS);
    storeRoundTrip.set(services, h);
  }
  h.observe({ store: services.store.kind }, seconds);
  return { ok, seconds };
}

export async function metricsText(services: Services): Promise<string> {
  const [slots, ping] = await Promise.all([services.grid.slots(), timedPing(services)]);
  const calls = services.activity instanceof CallMetrics ? services.activity.latency : new Histogram();
  const waits = services.workspaces.leases.waits;
  const families: Family[] = [
    {
      name: "selenium_flow_calls_total",
      help: "Tool calls this server answered, by tool, surface and HTTP status.",
      type: "counter",
      samples: calls.counts().map((c) => sample("selenium_flow_calls_total", c.count, c.labels)),
    },
    {
      name: "selenium_flow_call_duration_seconds",
      help: "How long each tool call took, by tool, surface and HTTP status.",
      type: "histogram",
      samples: calls.lines("selenium_flow_call_duration_seconds"),
    },
    {
      name: "selenium_flow_browsers_held",
      help: "Browsers this server holds a BiDi connection to now.",
      type: "gauge",
      samples: [sample("selenium_flow_browsers_held", services.workspaces.connections.size)],
    },
    {
      name: "selenium_flow_lease_waits_total",
      help: "Calls that waited for their workspace's lease (another call held it).",
      type: "counter",
      samples: [sample("selenium_flow_lease_waits_total", waits.count)],
    },
    {
      name: "selenium_flow_lease_wait_seconds_total",
      help: "Seconds those calls waited for their lease, in all.",
      type: "counter",
      samples: [sample("selenium_flow_lease_wait_seconds_total", waits.ms / 1000)],
    },
    {
      name: "selenium_flow_grid_slots",
      help: "The Grid's browser slots, by state (absent when the Grid did not answer).",
      type: "gauge",
      samples: slots
        ? [
            sample("selenium_flow_grid_slots", slots.free, { state: "free" }),
            sample("selenium_flow_grid_slots", slots.total - slots.free, { state: "busy" }),
          ]
        : [],
    },
    {
      name: "selenium_flow_store_up",
      help: "Whether the store answered its ping on this scrape.",
      type: "gauge",
      samples: [sample("selenium_flow_store_up", ping.ok ? 1 : 0, { store: services.store.kind })],
    },
    {
      name: "selenium_flow_store_round_trip_seconds",
      help: "The store's ping round trip, one observation per scrape.",
      type: "histogram",
      samples: storeRoundTrip.get(services)?.lines("selenium_flow_store_round_trip_seconds") ?? [],
    },
    {
      name: "selenium_flow_live_feed_streams",
      help: "Admin live-feed streams (GET /admin/events) open on this server.",
      type: "gauge",
      samples: [sample("selenium_flow_live_feed_streams", services.events.size)],
    },
  ];
  return exposition(families);
}

export function metricsRoutes(services: Services) {
  return new Elysia({ name: "metrics" })
    .use(adminGuard(services))
    .get(
      "/metrics",
      async () => new Response(await metricsText(services), { headers: { "content-type": CONTENT_TYPE } }),
      { admin: true },
    );
}
