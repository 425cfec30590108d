// The activity log that also counts: each call's tool, surface and status, and its latency.
import { Activity, type Call } from "../admin/activity.ts";
import { Histogram } from "./text.ts";

export class CallMetrics extends Activity {
  readonly latency = new Histogram();

  override add(call: Call): void {
    super.add(call);
    this.latency.observe(
      { tool: call.tool, surface: call.surface, status: String(call.status) },
      call.ms / 1000,
    );
  }
}
