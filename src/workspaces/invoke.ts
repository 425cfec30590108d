// One call, end to end, for every surface (REST, MCP, a person's input): the activity note, the
// action's validation, the manager's run in the workspace's turn (its after-hook, the timeline's
// screen, declared when the manager was built), then the timeline entry. It flows one way: each
// stage's output is the next one's input, and nothing is handed down to be called back.
import type { AnyAction } from "../actions/action.ts";
import { validate } from "../actions/validate.ts";
import { statusOf } from "../errors.ts";
import type { Services } from "../services.ts";
import type { Surface } from "../timeline/entry.ts";

type AnyRecord = Record<string, unknown>;

export interface Invocation {
  surface: Exclude<Surface, "flow">;
  workspace: string;
  action: AnyAction;
  /** The arguments as the caller sent them (validated here, and kept in the timeline). */
  args: unknown;
  /** The input as its route read it already (a person's): then `args` is only what the timeline keeps. */
  input?: unknown;
  signal?: AbortSignal;
  progress?: (progress: number, total: number | undefined, message: string) => void;
}

export type Pipeline = Pick<Services, "activity" | "now" | "workspaces" | "timeline">;

/** Runs one call through every stage; its result, or its error thrown once the entry is on its way. */
export async function invoke(services: Pipeline, call: Invocation): Promise<AnyRecord> {
  const { surface, workspace, action } = call;
  const time = services.now();
  const began = performance.now();
  // The activity log lists an agent's calls; a person's input is the admin's own.
  const note = surface === "person" ? null : services.activity.start(time, workspace, action.name, surface);
  let ended: Awaited<ReturnType<Services["workspaces"]["call"]>>;
  try {
    const input = call.input ?? validate(action.input, call.args);
    const opts = {
      ...(call.signal && { signal: call.signal }),
      ...(call.progress && { progress: call.progress }),
    };
    ended = await services.workspaces.call(workspace, action, input, opts);
  } catch (error) {
    ended = { ok: false, error, after: undefined };
  }
  note?.(ended.ok ? 200 : statusOf(ended.error));
  const ms = Math.round(performance.now() - began);
  await services.timeline.entry({ surface, workspace, action, args: call.args, time, ms }, ended);
  if (!ended.ok) throw ended.error;
  return ended.result;
}
