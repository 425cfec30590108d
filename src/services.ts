// The server's whole set: each capability, the admin's parts and the Host rules. Surfaces and the
// admin routes get it; an action's handler gets the narrower ActionServices. Built once in app.ts;
// tests build their own.
import type { ActionServices } from "./actions/ports.ts";
import type { Activity } from "./admin/activity.ts";
import type { Gate } from "./admin/auth.ts";
import type { Config } from "./config/schema.ts";
import type { Source } from "./config/sources.ts";
import type { Files } from "./files/service.ts";
import type { Flows } from "./flows/service.ts";
import type { Grid } from "./grid/webdriver.ts";
import type { HostRules } from "./http/guard.ts";
import type { Events } from "./kit/events.ts";
import type { PersonSecrets } from "./person/secrets.ts";
import type { Questions } from "./person/waits.ts";
import type { Collector } from "./recordings/collector.ts";
import type { SecretCatalogue } from "./secrets/catalogue.ts";
import type { RecordStore } from "./store/types.ts";
import type { Timeline } from "./timeline/service.ts";
import type { WorkspaceManager } from "./workspaces/manager.ts";

/** The whole of each capability; what a handler is handed is the narrower ActionServices. */
export interface Services extends ActionServices {
  readonly config: Config;
  /** Where each setting came from (GET /admin/settings). */
  readonly sources: Record<string, Source>;
  readonly store: RecordStore;
  readonly grid: Grid;
  /** Built with the timeline's after-hook: a call's trail is its screen. */
  readonly workspaces: WorkspaceManager;
  /** Epoch seconds; injectable for tests. */
  readonly now: () => number;
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
  /** Change notices for the admin's live updates. */
  readonly events: Events;
  /** The questions agents wait on: asked, answered and cancelled (End, Forget) from any server. */
  readonly questions: Questions;
  /** Secrets a person gives a workspace on the server's page: asked, entered, listed, removed. */
  readonly personSecrets: PersonSecrets;
  /** The last calls, for the admin. */
  readonly activity: Activity;
  /** The Host names this server answers to, and which origins are its own. */
  readonly hosts: HostRules;
  /** The way in: every request's Host, Origin and path, the agent token, the admin's credentials. */
  readonly gate: Gate;
}
