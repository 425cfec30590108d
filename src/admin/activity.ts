// The activity log: the last calls across workspaces, for GET /admin/activity (never an argument's
// value), and their counts and latency in the server's own Prometheus registry (prom-client's, never
// its process-wide default one), which GET /metrics reads. One subscriber: a call is noted and counted
// as it ends.
import { Counter, Histogram, Registry } from "prom-client";
import type { CallEnd } from "../actions/call.ts";
import { statusOf } from "../errors.ts";

/** One call as the activity log notes it. */
export interface ActivityNote {
  /** Epoch seconds. */
  time: number;
  workspace: string;
  tool: string;
  surface: "rest" | "mcp" | "flow";
  status: number;
  ms: number;
}

/** Seconds: from a quick click to a page that takes its time. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LABELS = ["tool", "surface", "status"] as const;

export class Activity {
  /** This server's families: the calls here; the /metrics route adds the rest. */
  readonly registry = new Registry();
  private readonly calls: ActivityNote[] = [];
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

  constructor(private readonly cap = 200) {}

  /** A call as it ends (subscribed to the pipeline): an agent's is noted; a person's input, a flow's step not. */
  ended(end: CallEnd): void {
    if (end.surface !== "rest" && end.surface !== "mcp") return;
    const status = end.ended.ok ? 200 : statusOf(end.ended.error);
    const { time, workspace, surface, ms } = end;
    this.add({ time, workspace, tool: end.action.name, surface, status, ms });
  }

  /** Notes the call and counts it under its labels. */
  add(call: ActivityNote): void {
    this.calls.push(call);
    if (this.calls.length > this.cap) this.calls.splice(0, this.calls.length - this.cap);
    const labels = { tool: call.tool, surface: call.surface, status: String(call.status) };
    this.total.inc(labels);
    this.latency.observe(labels, call.ms / 1000);
  }

  /** Newest first. */
  list(): ActivityNote[] {
    return [...this.calls].reverse();
  }
}
