// A call run as a surface runs it (the pipeline's `invoke`, recorded for whoever subscribed), for
// tests that drive the workspace manager without a surface: the manager has no door of its own for them.
import type { AnyAction } from "../../src/actions/action.ts";
import type { Invocation } from "../../src/actions/call.ts";
import type { WorkspaceManager } from "../../src/workspaces/manager.ts";

type Extra = Pick<Invocation, "signal" | "progress" | "asking" | "origin">;

/**
 * `action` on `input` (already what its schema reads) in `workspace`, as a REST call would run it;
 * answered once its turn is over (its record, which follows the answer, written; its lease gone), so
 * a test reads what it left at rest.
 */
export async function runCall(
  manager: Pick<WorkspaceManager, "calls">,
  workspace: string,
  action: AnyAction,
  input: unknown,
  extra: Extra = {},
): Promise<Record<string, unknown>> {
  try {
    return await manager.calls.invoke({ surface: "rest", workspace, action, args: input, input, ...extra });
  } finally {
    await manager.calls.recorded(workspace);
  }
}
