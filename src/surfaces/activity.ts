// The last calls across workspaces, for GET /admin/activity: never an argument's value.
export interface Call {
  at: number;
  workspace: string;
  tool: string;
  surface: "rest" | "mcp" | "flow";
  status: number;
  ms: number;
}

export class Activity {
  private readonly calls: Call[] = [];
  constructor(private readonly cap = 200) {}

  add(call: Call): void {
    this.calls.push(call);
    if (this.calls.length > this.cap) this.calls.splice(0, this.calls.length - this.cap);
  }

  /** Newest first. */
  list(): Call[] {
    return [...this.calls].reverse();
  }
}
