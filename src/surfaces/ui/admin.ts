// What the pages read and change, in-process: the same functions the admin JSON routes call (the
// caller is already checked), each answer or failure kept as an Answer the views draw from.

import type { Tab } from "../../../views/urls.ts";
import { endWorkspace, forgetWorkspace, settingsList } from "../../admin/core.ts";
import { requireWorkspace } from "../../admin/guard.ts";
import { errorBody, notFound, statusOf } from "../../errors.ts";
import { clearFolder, deleteKept, filesListing, keepFile } from "../../files/admin.ts";
import { flowsPane } from "../../flows/admin.ts";
import { flowOne } from "../../flows/resources.ts";
import { log } from "../../log.ts";
import { workspaceRows, workspaceView } from "../../registry.ts";
import type { Services } from "../../services.ts";
import {
  clearHistory,
  clearSiteData,
  forgetSite,
  historyListing,
  siteDataListing,
} from "../../site-data/admin.ts";
import { clearTimeline, keepRunAsFlow, timelineListing, timelineQuery } from "../../timeline/routes.ts";

/** What a read or a change answered: its result, or the failure's status and message. */
export type Answer<T = unknown> =
  | { ok: true; status: 200; body: T; error: "" }
  | { ok: false; status: number; body: null; error: string };

/** `fn`'s answer, or its failure as the JSON route would give it (a 5xx logged like one). */
export async function attempt<T>(fn: () => Promise<T> | T): Promise<Answer<T>> {
  try {
    return { ok: true, status: 200, body: await fn(), error: "" };
  } catch (err) {
    const status = statusOf(err);
    const { error } = errorBody(err);
    if (status >= 500) log.error(`request failed: ${error}`);
    return { ok: false, status, body: null, error };
  }
}

const enc = encodeURIComponent;

type Op = (services: Services, key: string) => Promise<unknown>;

/**
 * The change a pane's action path names (the segments after the tab, decoded): the admin route the
 * same path takes under /admin/workspaces/{key}/, or null where the API has none (its 404 follows).
 */
function paneOp(method: "POST" | "DELETE", tab: Tab, rest: string[]): Op | null {
  const [a, b, c, ...more] = rest;
  if (method === "POST") {
    if (tab === "files" && c === "keep" && more.length === 0 && b !== undefined) {
      return (s, key) => keepFile(s, key, a!, b);
    }
    return null;
  }
  if (rest.length > 1) return null;
  switch (tab) {
    case "files":
      if (a === "screenshots" || a === "recordings") return (s, key) => clearFolder(s, key, a);
      return a === undefined ? null : (s, key) => deleteKept(s, key, a);
    case "site-data":
      return a === undefined ? clearSiteData : (s, key) => forgetSite(s, key, a);
    case "history":
      return a === undefined ? clearHistory : null;
    case "timeline":
      if (a === undefined) return (s, key) => clearTimeline(s, key, "all");
      return a === "screens" ? (s, key) => clearTimeline(s, key, "screens") : null;
    default:
      return null;
  }
}

export class Admin {
  constructor(private readonly services: Services) {}

  rows() {
    return attempt(() => workspaceRows(this.services));
  }

  row(key: string) {
    return attempt(() => workspaceView(this.services, key));
  }

  /** `read` of a workspace that exists (404 otherwise): what `GET /admin/workspaces/{key}/…` answers. */
  private on<T>(key: string, read: (s: Services, key: string) => Promise<T> | T): Promise<Answer<T>> {
    return attempt(async () => read(this.services, await requireWorkspace(this.services, key)));
  }

  siteData(key: string) {
    return this.on(key, siteDataListing);
  }

  history(key: string) {
    return this.on(key, historyListing);
  }

  files(key: string) {
    return this.on(key, filesListing);
  }

  flows(key: string) {
    return this.on(key, flowsPane);
  }

  flow(key: string, name: string) {
    return this.on(key, (s, k) => flowOne.read(s, k, { name }));
  }

  /** A page of the timeline, `before` and `limit` as a query would give them. */
  timeline(key: string, before: string | null = null, limit: string | null = null) {
    return this.on(key, (s, k) => timelineListing(s, k, timelineQuery(before, limit)));
  }

  /** A pane's action: `rest` is the path after the tab, each part decoded. */
  act(key: string, method: "POST" | "DELETE", tab: Tab, rest: string[]) {
    return attempt(async () => {
      const op = paneOp(method, tab, rest);
      if (!op) {
        const path = `/admin/workspaces/${enc(key)}/${tab}${rest.map((p) => `/${enc(p)}`).join("")}`;
        throw notFound(`no route ${method} ${path}: /openapi.json lists them`);
      }
      return op(this.services, await requireWorkspace(this.services, key));
    });
  }

  keepRun(key: string, body: unknown) {
    return this.on(key, (s, k) => keepRunAsFlow(s, k, body));
  }

  end(key: string) {
    return this.on(key, endWorkspace);
  }

  forget(key: string) {
    return this.on(key, forgetWorkspace);
  }

  secrets() {
    return attempt(() => this.services.secrets.list());
  }

  settings() {
    return attempt(() => settingsList(this.services));
  }

  activity() {
    return attempt(() => this.services.activity.list());
  }
}
