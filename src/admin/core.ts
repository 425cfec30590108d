// The admin's core operations, which the JSON routes and the pages both call: End and Forget a
// workspace, and the server's settings as the admin reads them.
import { redactedSettings } from "../config/help.ts";
import type { Config } from "../config/schema.ts";
import type { Source } from "../config/sources.ts";
import type { RecordStore } from "../store/types.ts";

/** What End and Forget are handed: the browser's end, the questions waited on, the record and the timeline. */
interface Ending {
  /** The workspace's browser ended, a call stuck on a hanging Grid stopped (the manager). */
  readonly workspaces: { interrupt(workspace: string): Promise<{ ended: boolean; reason?: string }> };
  /** A question its agent waits on ends with the workspace. */
  readonly questions: { cancel(workspace: string): Promise<unknown> };
  readonly events: { changed(workspace: string): void };
}
interface Forgetting extends Ending {
  readonly store: Pick<RecordStore, "delete">;
  /** The timeline lives as long as the record. */
  readonly timeline: { clear(workspace: string, what: "all"): Promise<unknown> };
}

/** End: the browser quits, the record stays. A call stuck on a hanging Grid is stopped, not waited for. */
export async function endWorkspace(
  services: Ending,
  key: string,
): Promise<{ ended: boolean; reason?: string }> {
  const out = await services.workspaces.interrupt(key);
  // A question its agent waits on goes too, on whichever server the agent's call waits (the record
  // names no browser by now: the wait ends without reading a page).
  await services.questions.cancel(key);
  services.events.changed(key);
  return out;
}

/** Forget: the record and its timeline go. */
export async function forgetWorkspace(services: Forgetting, key: string): Promise<{ forgotten: string }> {
  // A stopped call writes nothing afterwards: the record it would settle into is gone.
  await services.workspaces.interrupt(key);
  await services.questions.cancel(key);
  await services.store.delete(key);
  // The timeline lives as long as the record.
  await services.timeline.clear(key, "all");
  services.events.changed(key);
  return { forgotten: key };
}

/** Every setting: its value (secrets redacted), where it came from, and what it does. */
export function settingsList(services: {
  readonly config: Config;
  readonly sources: Record<string, Source>;
}) {
  return redactedSettings({
    config: services.config,
    sources: services.sources,
    cli: { help: false, version: false, stdio: false, workspace: "stdio", configFile: null },
  });
}
