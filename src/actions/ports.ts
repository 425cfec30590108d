// What a handler is handed: its workspace's browser, the record read-only, and the narrow services
// of the capabilities it calls, never the server. The base names no capability: each one adds its
// own to ActionServices from its folder's index.ts (`declare module "../actions/ports.ts"`), as the
// secrets, files, flows, timeline and person capabilities do.

import type { Config } from "../config/schema.ts";
import type { Grid } from "../grid/webdriver.ts";
import type { Log } from "../log.ts";
import type { RecordStore } from "../store/types.ts";
import type { Asking, LiveBrowser } from "./action.ts";
import type { Effects } from "./effects.ts";
import type { OpenRequest, OpenResult } from "./shapes.ts";
import type { Steps } from "./steps.ts";

/**
 * What a handler may call: the base's own parts here, and each capability's services, added by the
 * capability (its index.ts). The server's whole set (services.ts) is one of these.
 */
export interface ActionServices {
  readonly config: Config;
  /** The server's log. */
  readonly log: Log;
  /** The workspace's record, to read: a handler changes it through its effects (effects.ts). */
  readonly store: Pick<RecordStore, "get">;
  /** Putting a file on the Grid's side, for a file input. */
  readonly grid: Pick<Grid, "upload">;
  /** Epoch seconds; injectable for tests. */
  readonly now: () => number;
  /** Change notices for the admin's live updates. */
  readonly events: { changed(workspace: string): void };
}

/** Opening and ending the workspace's browser: the manager does both, in the call's turn. */
export interface BrowserLifecycle {
  /** Replaces the workspace's browser (open_session). */
  open(req: OpenRequest): Promise<OpenResult>;
  /** Quits it; history and site data stay (end_browser). */
  end(): Promise<{ ended: boolean; reason?: string }>;
}

export interface ActionContext {
  readonly workspace: string;
  readonly services: ActionServices;
  /** The workspace's browser (page actions only). */
  readonly browser: LiveBrowser;
  /** Opening and ending the browser (the session actions). */
  readonly lifecycle: BrowserLifecycle;
  /** The step runner, for an action that calls others inside its call (a page action's only). */
  steps(): Steps;
  /** Progress for long actions (MCP progress notifications). */
  progress(progress: number, total: number | undefined, message: string): void;
  /** How the user in front of the agent's client is asked, when its client can ask them (MCP elicitation). */
  readonly asking?: Asking;
  /** This server's origin as the caller reached it (none over stdio: no page is served there). */
  readonly origin?: string;
  readonly signal: AbortSignal;
  /** What the call did besides its result (landing, pages, record changes, later work): the pipeline applies it. */
  readonly effects: Effects;
}

/** What a precheck is handed: no browser yet. */
export interface PrecheckContext {
  readonly workspace: string;
  readonly services: ActionServices;
  /** This server's origin as the caller reached it. */
  readonly origin?: string;
}
