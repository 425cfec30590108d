// The last calls across workspaces, for GET /admin/activity: never an argument's value.
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

export class Activity {
  private readonly calls: ActivityNote[] = [];
  constructor(private readonly cap = 200) {}

  /** A call as it ends (subscribed to the pipeline): an agent's is noted; a person's input, a flow's step not. */
  ended(end: CallEnd): void {
    if (end.surface !== "rest" && end.surface !== "mcp") return;
    const status = end.ended.ok ? 200 : statusOf(end.ended.error);
    const { time, workspace, surface, ms } = end;
    this.add({ time, workspace, tool: end.action.name, surface, status, ms });
  }

  add(call: ActivityNote): void {
    this.calls.push(call);
    if (this.calls.length > this.cap) this.calls.splice(0, this.calls.length - this.cap);
  }

  /** Starts timing a call; the function it returns notes the call with its status when it ends. */
  start(
    now: number,
    workspace: string,
    tool: string,
    surface: ActivityNote["surface"],
  ): (status: number) => void {
    const started = performance.now();
    return (status) =>
      this.add({ time: now, workspace, tool, surface, status, ms: Math.round(performance.now() - started) });
  }

  /** Newest first. */
  list(): ActivityNote[] {
    return [...this.calls].reverse();
  }
}
