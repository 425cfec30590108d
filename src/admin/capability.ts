// What a capability hands the registry, once: its services, its actions, its resources, its admin
// routes and its own routes, the part it adds to a workspace's row and the workspace tabs it draws.
// Each capability folder's index.ts declares one; src/registry.ts lists them, and the composition
// root's services, the action and resource tables, the routers, the row, the UI's tabs, panes and
// pane actions all read that list.
import { type AnyElysia, Elysia } from "elysia";
import { z } from "zod";
import type { AnyAction } from "../actions/action.ts";
import type { Subscriber } from "../actions/call.ts";
import type { ActionServices } from "../actions/ports.ts";
import type { ResourceDef } from "../actions/resource.ts";
import type { Config } from "../config/schema.ts";
import type { HeldConnection } from "../grid/held.ts";
import type { Grid } from "../grid/webdriver.ts";
import { json } from "../http/json.ts";
import type { Events } from "../kit/events.ts";
import type { Log } from "../log.ts";
import type { RecordStore } from "../store/types.ts";
import type { Answer } from "./answer.ts";
import { type AdminNeeds, adminGuard, requireWorkspace, WorkspaceParams } from "./guard.ts";
import type { RowPart } from "./rows.ts";

/** What a pane is drawn from: its data, the row it was read with and the row's revision of it. */
export interface PaneInput<R, D> {
  workspace: string;
  data: D;
  row: R;
  rev: string;
  now: number;
  /** The item the URL names (a host, a flow), for tabs that `opens`. */
  open: string | null;
}

/**
 * An action on a pane (Forget, Clear, Keep…): `path` is what follows the tab, one segment each, a
 * `:name` taking the segment; `run` does what the same path under /admin/workspaces/{key}/ does.
 */
export interface PaneOp<S> {
  method: "POST" | "DELETE";
  path: readonly string[];
  run(services: S, key: string, params: Record<string, string>): Promise<unknown>;
}

/** What a pane's fragment is handed; the UI surface fills it in. */
export interface FragmentInput<R> {
  workspace: string;
  query: Record<string, string | undefined>;
  /** The form a POST fragment's route read (`formBytes`); empty for a GET. */
  form: URLSearchParams;
  /** The workspace's row now, as its admin route answers it. */
  row(): Promise<Answer<R>>;
  /** The row's revision of this pane (its `revFields`), as the pane's marker says it. */
  rev(row: R): string;
  /** `fn` on this workspace, as its admin route would answer: a 404 when it is gone, a failure kept. */
  read<T>(fn: (key: string) => Promise<T> | T): Promise<Answer<T>>;
  /** The pane drawn again: its content and status. */
  pane(): Promise<{ status: number; html: string }>;
}

/** A fragment's answer: HTML where it was asked for, or the whole pane again in the pane's place. */
export type FragmentOut = { html: string; status?: number } | { whole: true };

/**
 * A part of a pane the UI serves on its own, `METHOD /ui/workspaces/{key}/panes/{slug}/{path}`
 * (entries newer than the page shows, a form's answer), beside the pane the UI draws whole.
 */
export interface PaneFragment<R, S> {
  method: "GET" | "POST";
  path: string;
  /** A POST's form: at most this many bytes, read before the credential's check. */
  formBytes?: number;
  run(services: S, input: FragmentInput<R>): Promise<FragmentOut>;
}

/** A workspace tab: its URL segment `slug`, the row fields it follows, how its pane loads and draws. */
export interface PaneTab<R, D, S> {
  slug: string;
  label: string;
  /** The pane reloads when one of these row fields moves; the first one names the pane. */
  revFields: readonly [keyof R & string, ...(keyof R & string)[]];
  /** Whether /ui/workspaces/{key}/{slug}/{item} opens an item in it. */
  opens?: boolean;
  /** What a push swaps in for the pane's loader, when it is not the whole pane again. */
  reloader?: (workspace: string) => JSX.Element;
  load(services: S, key: string): Promise<D>;
  render(input: PaneInput<R, D>): JSX.Element;
  ops: readonly PaneOp<S>[];
  /** Its fragments, if any. */
  fragments?: readonly PaneFragment<R, S>[];
}

/** What a capability's services are built from: the server's parts, made before any capability's. */
export interface BuildNeeds {
  readonly config: Config;
  readonly log: Log;
  readonly store: RecordStore;
  readonly grid: Grid;
  /** Epoch seconds. */
  readonly now: () => number;
  /** The change bus: a part that changed a workspace says so (the admin's live updates, MCP subscriptions). */
  readonly events: Pick<Events, "changed">;
  /** The one redactor (what leaves the server). */
  readonly redactor: ActionServices["redactor"];
  /** A live browser's held connection. */
  readonly connection: (id: string) => Promise<HeldConnection>;
  /** The action table (read once every capability is listed). */
  readonly actions: () => readonly AnyAction[];
}

/**
 * A capability, once: `R` is the part it adds to a workspace's row, `S` the services its admin
 * code, row part and resources are handed (its own, never the server's whole set), `B` what it
 * builds.
 */
export interface Capability<R extends object, S, B extends object = object> {
  name: string;
  /**
   * Its services, built once as the server is put together, before the workspace manager: they join
   * the server's set, and its handlers see them as its index.ts adds them to `ActionServices`.
   */
  build?: (parts: BuildNeeds) => B;
  /** Its actions: each an MCP tool, a REST route, an OpenAPI operation and a flow step. */
  actions?: readonly AnyAction[];
  /** Its read-only views: each an MCP resource and a REST GET. */
  resources?: readonly ResourceDef<S>[];
  /** Its routes under /admin/workspaces/{key}/…. */
  adminRoutes?: (services: S) => AnyElysia;
  /** Its routes elsewhere (a signed download, a page a person opens). */
  routes?: (services: S) => AnyElysia;
  /** Who of it hears every call (the timeline: each call's entry and screen), after the server's own. */
  hears?: (services: S) => Subscriber;
  row?: RowPart<R, S>;
  tabs?: readonly PaneTab<R, unknown, S>[];
}

/** Tabs over `row`'s fields, each one's data inferred from its `load` and checked against its `render`. */
export const tabsOver =
  <R, S>(_row: RowPart<R, S>) =>
  <D>(tab: PaneTab<R, D, S>): PaneTab<R, unknown, S> =>
    tab;

/** A capability's descriptor, its row's type kept for the registry's WorkspaceRow, and what it builds. */
export const capability = <R extends object, S, B extends object = object>(
  c: Capability<R, S, B>,
): Capability<R, S, B> => c;

/**
 * A pane op's route after `…/workspaces/:key/` (`{tab}/{path…}`) and its params' schema: the JSON
 * route (`opRoutes`) and the UI's pane action are both made from these, so Elysia routes both.
 */
export function opRoute(tab: { slug: string }, op: Pick<PaneOp<never>, "path">) {
  const names = op.path.filter((s) => s.startsWith(":")).map((s) => s.slice(1));
  return {
    path: [tab.slug, ...op.path].join("/"),
    params: WorkspaceParams.extend(Object.fromEntries(names.map((n) => [n, z.string()]))),
  };
}

/**
 * The JSON routes of a capability's pane ops, from the same declaration the UI's pane actions run:
 * `METHOD /admin/workspaces/{key}/{tab}/{path…}`, a 404 for a workspace that does not exist.
 */
export function opRoutes<S>(
  services: S & AdminNeeds,
  c: { name: string; tabs?: readonly { slug: string; ops: readonly PaneOp<S>[] }[] },
): AnyElysia {
  const app = new Elysia({ name: `admin-ops-${c.name}` }).use(adminGuard(services));
  for (const tab of c.tabs ?? []) {
    for (const op of tab.ops) {
      const { path: after, params } = opRoute(tab, op);
      const path = `/admin/workspaces/:key/${after}`;
      const handler = async ({ params: p }: { params: Record<string, string> }) =>
        json(await op.run(services, await requireWorkspace(services, p.key as string), p));
      if (op.method === "POST") app.post(path, handler, { admin: true, params });
      else app.delete(path, handler, { admin: true, params });
    }
  }
  return app;
}

/** The row fields a capability adds. */
export type RowOf<C> = C extends Capability<infer R, infer _S, infer _B> ? R : never;

/** The services a capability builds. */
export type BuiltOf<C> = C extends Capability<infer _R, infer _S, infer B> ? B : never;
