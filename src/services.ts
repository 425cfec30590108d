// What an action or a surface may use. Built once in app.ts; tests build their own.
import type { Config, Source } from "./config.ts";
import type { Files } from "./files/service.ts";
import type { Flows } from "./flows/service.ts";
import type { Grid } from "./grid/webdriver.ts";
import type { Collector } from "./recordings/collector.ts";
import type { SecretCatalogue } from "./secrets/catalogue.ts";
import type { RecordStore } from "./store/types.ts";
import type { Activity } from "./surfaces/activity.ts";
import type { AdminAuth } from "./surfaces/admin-auth.ts";
import type { Events } from "./surfaces/events.ts";
import type { HostRules } from "./surfaces/guard.ts";
import type { Timeline } from "./timeline/service.ts";
import type { WorkspaceManager } from "./workspaces/manager.ts";

export interface Services {
  readonly config: Config;
  /** Where each setting came from (GET /admin/settings). */
  readonly sources: Record<string, Source>;
  readonly store: RecordStore;
  readonly grid: Grid;
  readonly workspaces: WorkspaceManager;
  /** Epoch seconds; injectable for tests. */
  readonly now: () => number;
  /** Change notices for the admin's live updates. */
  readonly events: Events;
  /** The last calls, for the admin. */
  readonly activity: Activity;
  /** Each workspace's calls, with screens along the way; the live view. */
  readonly timeline: Timeline;
  /** The secrets agents may type without seeing them. */
  readonly secrets: SecretCatalogue;
  /** Saved flows (the workspace's and the global ones) and the tools their steps may call. */
  readonly flows: Flows;
  /** The workspace's files: Files, Screenshots, Recordings and the Grid's downloads, with signed links. */
  readonly files: Files;
  /** Files the Grid's recordings as they arrive; null when recording is off. */
  readonly recordings: Collector | null;
  /** The Host names this server answers to, and which origins are its own. */
  readonly hosts: HostRules;
  /** The admin's credentials: the token, or a signed-in cookie. */
  readonly admin: AdminAuth;
}
