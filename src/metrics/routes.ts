// GET /metrics (the admin's credential): this server's calls, browsers, lease waits, the Grid's free
// slots, the store's round trip, the live-feed and MCP streams, in the Prometheus text format (prom-client).
import { Elysia } from "elysia";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Activity } from "../admin/activity.ts";
import type { Gate } from "../admin/auth.ts";
import { adminGuard } from "../admin/guard.ts";
import type { Grid } from "../grid/webdriver.ts";
import type { Events } from "../kit/events.ts";
import type { RecordStore } from "../store/types.ts";
import type { WorkspaceManager } from "../workspaces/manager.ts";

/** What the route reads, each figure where it lives, and the admin's credential check. */
interface MetricsNeeds {
  readonly workspaces: Pick<WorkspaceManager, "connections" | "leases">;
  readonly store: Pick<RecordStore, "kind" | "ping">;
  readonly events: Pick<Events, "size">;
  readonly grid: Pick<Grid, "slots">;
  readonly activity: Pick<Activity, "registry">;
  readonly gate: Pick<Gate, "admin">;
  /** What MCP over HTTP holds in memory now (nothing until its first request loads it). */
  readonly mcpInUse: () => McpInUse;
}

/** Open MCP streams and sessions with a call in flight (surfaces/mcp-http.ts `inUse`). */
interface McpInUse {
  streams: number;
  busy: number;
}

/** Seconds: a local SQLite answers in well under a millisecond, a remote Redis in a few. */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/**
 * The server's families after its calls', in one registry, and the scrape reading them: the Grid's
 * slots and the store's ping are asked once per scrape, the rest read where they live.
 */
function serverMetrics(services: MetricsNeeds, registry: Registry): () => Promise<string> {
  const registers = [registry];
  const { workspaces, store, events } = services;
  new Gauge({
    name: "selenium_flow_browsers_held",
    help: "Browsers this server holds a BiDi connection to now.",
    registers,
    collect() {
      this.set(workspaces.connections.size);
    },
  });
  // The lease keeps its own totals: each scrape reads them.
  const total = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  total(
    "selenium_flow_lease_waits_total",
    "Calls that waited for their workspace's lease (another call held it).",
    () => workspaces.leases.waits.count,
  );
  total(
    "selenium_flow_lease_wait_seconds_total",
    "Seconds those calls waited for their lease, in all.",
    () => workspaces.leases.waits.ms / 1000,
  );
  const slots = new Gauge({
    name: "selenium_flow_grid_slots",
    help: "The Grid's browser slots, by state (absent when the Grid did not answer).",
    labelNames: ["state"],
    registers,
  });
  const up = new Gauge({
    name: "selenium_flow_store_up",
    help: "Whether the store answered its ping on this scrape.",
    labelNames: ["store"],
    registers,
  });
  const roundTrip = new Histogram({
    name: "selenium_flow_store_round_trip_seconds",
    help: "The store's ping round trip, one observation per scrape.",
    labelNames: ["store"],
    buckets: STORE_BUCKETS,
    registers,
  });
  new Gauge({
    name: "selenium_flow_live_feed_streams",
    help: "Admin live-feed streams (GET /admin/events) open on this server.",
    registers,
    collect() {
      this.set(events.size);
    },
  });
  new Gauge({
    name: "selenium_flow_mcp_streams",
    help: "MCP event streams (GET /mcp, and answers streamed to POST /mcp) open on this server.",
    registers,
    collect() {
      this.set(services.mcpInUse().streams);
    },
  });
  new Gauge({
    name: "selenium_flow_mcp_sessions_busy",
    help: "MCP sessions with a call in flight on this server.",
    registers,
    collect() {
      this.set(services.mcpInUse().busy);
    },
  });
  const ping = async () => {
    const stop = roundTrip.startTimer({ store: store.kind });
    const ok = await store.ping().catch(() => false);
    stop();
    up.set({ store: store.kind }, ok ? 1 : 0);
  };
  return async () => {
    const [free] = await Promise.all([services.grid.slots(), ping()]);
    slots.reset();
    if (free) {
      slots.set({ state: "free" }, free.free);
      slots.set({ state: "busy" }, free.total - free.free);
    }
    return registry.metrics();
  };
}

export function metricsRoutes(services: Omit<MetricsNeeds, "mcpInUse">, mcpInUse: () => McpInUse) {
  const registry = services.activity.registry;
  const scrape = serverMetrics({ ...services, mcpInUse }, registry);
  return new Elysia({ name: "metrics" })
    .use(adminGuard(services))
    .get(
      "/metrics",
      async () => new Response(await scrape(), { headers: { "content-type": registry.contentType } }),
      { admin: true },
    );
}
