// Which actions a flow step may call: every action of the table but the flow actions themselves.
import type { AnyAction } from "../actions/action.ts";

/**
 * Actions that cannot be steps: a flow does not run, save or delete flows; nor does it wait on a
 * person (ask_human waits without the workspace's lease, which a flow holds throughout).
 */
export const NOT_STEPS: ReadonlySet<string> = new Set(["run_flow", "save_flow", "delete_flow"]);

export interface ToolTable {
  /** The action a step's `tool` names, or undefined when it cannot be a step. */
  get(name: string): AnyAction | undefined;
  /** Every name a step may use, sorted. */
  names(): string[];
}

export class StepTools implements ToolTable {
  constructor(private readonly table: () => readonly AnyAction[]) {}

  get(name: string): AnyAction | undefined {
    if (NOT_STEPS.has(name)) return undefined;
    const action = this.table().find((a) => a.name === name);
    return action?.unleased ? undefined : action;
  }

  names(): string[] {
    const all = new Set(
      this.table()
        .filter((a) => !a.unleased)
        .map((a) => a.name),
    );
    return [...all].filter((n) => !NOT_STEPS.has(n)).sort();
  }
}
