// The activity log that also counts: each call's tool, surface and status, and its latency, in the
// server's own Prometheus registry (prom-client's, never its process-wide default one).
import { Counter, Histogram, Registry } from "prom-client";
import { Activity, type ActivityNote } from "../admin/activity.ts";

/** Seconds: from a quick click to a page that takes its time. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LABELS = ["tool", "surface", "status"] as const;

export class CallMetrics extends Activity {
  /** This server's families: the calls here; the /metrics route adds the rest. */
  readonly registry = new Registry();
  private readonly total = new Counter({
    name: "selenium_flow_calls_total",
    help: "Tool calls this server answered, by tool, surface and HTTP status.",
    labelNames: LABELS,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: "selenium_flow_call_duration_seconds",
    help: "How long each tool call took, by tool, surface and HTTP status.",
    labelNames: LABELS,
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });

  override add(call: ActivityNote): void {
    super.add(call);
    const labels = { tool: call.tool, surface: call.surface, status: String(call.status) };
    this.total.inc(labels);
    this.latency.observe(labels, call.ms / 1000);
  }
}
