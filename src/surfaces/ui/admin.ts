// What the pages read and change, in-process: the same functions the admin JSON routes call (the
// caller is already checked), each answer or failure kept as an Answer the views draw from.

import type { Tab } from "../../../views/urls.ts";
import { endWorkspace, forgetWorkspace, settingsList } from "../../admin/core.ts";
import { requireWorkspace } from "../../admin/guard.ts";
import { errorBody, notFound, statusOf } from "../../errors.ts";
import { clearFolder, deleteKept, filesListing, keepFile } from "../../files/admin.ts";
import { flowsPane } from "../../flows/admin.ts";
import { log } from "../../log.ts";
import { workspaceRows, workspaceView } from "../../registry.ts";
import { flowOne } from "../../resources/flows.ts";
import type { Services } from "../../services.ts";
import {
  clearHistory,
  clearSiteData,
  forgetSite,
  historyListing,
  siteDataListing,
} from "../../site-data/admin.ts";
import { clearTimeline, keepRunAsFlow, timelineListing, timelineQuery } from "../../timeline/routes.ts";

export interface Answer<T = unknown> {
  ok: boolean;
  status: number;
  body: T | null;
  /** The failure's message ("" when it worked). */
  error: string;
}

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

export const enc = encodeURIComponent;

type Op = (services: Services, key: string) => Promise<unknown>;

/** The change a pane's action path names (the segments after the tab, decoded), as the admin routes take them. */
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

  /** A pane's data: what `GET /admin/workspaces/{key}/{tab}` answers. */
  pane(key: string, tab: Tab) {
    const s = this.services;
    return attempt(async (): Promise<unknown> => {
      await requireWorkspace(s, key);
      switch (tab) {
        case "site-data":
          return siteDataListing(s, key);
        case "history":
          return historyListing(s, key);
        case "files":
          return filesListing(s, key);
        case "flows":
          return flowsPane(s, key);
        case "timeline":
          return timelineListing(s, key, timelineQuery(null, null));
      }
    });
  }

  flow(key: string, name: string) {
    return attempt(async () =>
      flowOne.read(this.services, await requireWorkspace(this.services, key), { name }),
    );
  }

  /** A page of the timeline, `before` and `limit` as a query would give them. */
  timeline(key: string, before: string | null, limit: string | null) {
    return attempt(async () => {
      await requireWorkspace(this.services, key);
      return timelineListing(this.services, key, timelineQuery(before, limit));
    });
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
    return attempt(async () =>
      keepRunAsFlow(this.services, await requireWorkspace(this.services, key), body),
    );
  }

  end(key: string) {
    return attempt(async () => endWorkspace(this.services, await requireWorkspace(this.services, key)));
  }

  forget(key: string) {
    return attempt(async () => forgetWorkspace(this.services, await requireWorkspace(this.services, key)));
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
