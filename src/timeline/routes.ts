// The admin's timeline, per workspace: its entries newest first (a `before` cursor pages back), each
// entry's screen, Clear (screens, or everything), a range kept as a flow, and the live screen now.
// The admin's event stream carries the live view (/admin/events?watch=<key>).
import { Elysia } from "elysia";
import { z } from "zod";
import type { ActionServices } from "../actions/ports.ts";
import { validate } from "../actions/validate.ts";
import {
  type AdminNeeds,
  adminGuard,
  onWorkspaceRoute,
  requireWorkspace,
  WorkspaceParams,
} from "../admin/guard.ts";
import { badInput, notFound, unavailable } from "../errors.ts";
import { NO_SCRIPT } from "../files/serve.ts";
import { saveFlowText } from "../flows/actions.ts";
import { bodyParser } from "../http/body.ts";
import { json } from "../http/json.ts";
import type { TimelineEntry } from "./entry.ts";
import { PAGE_MAX, type Timeline } from "./service.ts";

/** What the timeline's admin code is handed: its service, and the flows a run is saved as. */
export interface TimelineNeeds extends AdminNeeds, Pick<ActionServices, "flows" | "events"> {
  readonly timeline: Timeline;
}

const enc = encodeURIComponent;

/** Where an entry's screen is served; the time in it tells a later entry of the same number apart (after a Clear). */
export function screenPath(key: string, entry: Pick<TimelineEntry, "n" | "time">): string {
  return `/admin/workspaces/${enc(key)}/timeline/${entry.n}/screen?t=${Math.floor(entry.time * 1000)}`;
}

/** A path or query number, an entry's n: anything but a whole number from 1 is a 400 naming it. */
const entryNumber = (field: string) => {
  const error = `${field} must be a whole number from 1 (an entry's n)`;
  return z
    .string({ error })
    .regex(/^\d{1,15}$/, error)
    .transform(Number)
    .refine((n) => n >= 1, error);
};

/** In a query, an empty value is an absent one. */
const queryNumber = (field: string) =>
  z.preprocess((v) => (v === "" ? undefined : v), entryNumber(field).optional());

/** The page a listing asks for: `before` (an entry's n) and `limit` (at most PAGE_MAX, 50 unless given). */
const TimelineQuery = z
  .object({ before: queryNumber("before"), limit: queryNumber("limit") })
  .transform(({ before, limit }) => ({ before, limit: Math.min(PAGE_MAX, limit ?? 50) }));

const KeepAsFlow = z.union([
  z.strictObject({
    name: z.string().describe("The flow's name."),
    from: z.number().int().min(1).describe("The first entry's n."),
    to: z.number().int().min(1).describe("The last entry's n."),
  }),
  z.strictObject({
    name: z.string().describe("The flow's name."),
    last: z.number().int().min(1).max(1000).describe("The last N calls."),
  }),
]);

function jpeg(bytes: Uint8Array, maxAge: number): Response {
  return new Response(bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": "image/jpeg",
      "cache-control": maxAge > 0 ? `private, max-age=${maxAge}` : "no-store",
      "x-content-type-options": "nosniff",
      "content-security-policy": NO_SCRIPT,
    },
  });
}

/** The page a listing asks for, `before` and `limit` as a query would give them (the admin pages ask in-process). */
export function timelineQuery(
  before: string | null,
  limit: string | null,
): { before?: number; limit: number } {
  const got = TimelineQuery.safeParse({ before: before ?? undefined, limit: limit ?? undefined });
  if (got.success) return got.data;
  const issue = got.error.issues[0]!;
  throw badInput(issue.message, String(issue.path[0]));
}

/** The Timeline pane: a page of entries, newest first, each with its screen's path when it has one. */
export async function timelineListing(
  services: TimelineNeeds,
  key: string,
  query: { before?: number; limit: number },
) {
  const { entries, next } = await services.timeline.batch(key, query);
  return {
    key,
    entries: entries.map((e) => (e.screen ? { ...e, screen_url: screenPath(key, e) } : e)),
    next,
    keep: services.config.timeline.keep,
    screens: services.timeline.screensOn(key),
  };
}

export async function clearTimeline(services: TimelineNeeds, key: string, what: "all" | "screens") {
  return { success: true, key, cleared: await services.timeline.clear(key, what) };
}

/** Save as flow: `body` names the flow and the run (from–to, or the last N calls). */
export async function keepRunAsFlow(services: TimelineNeeds, key: string, raw: unknown) {
  const body = validate(KeepAsFlow, raw);
  const pick =
    "last" in body
      ? { last: body.last }
      : { from: Math.min(body.from, body.to), to: Math.max(body.from, body.to) };
  const yaml = await services.timeline.flowYaml(key, pick);
  return { ...saveFlowText(services, key, body.name, yaml), yaml };
}

export function timelineRoutes(services: TimelineNeeds) {
  const timeline = services.timeline;
  return new Elysia({ name: "admin-timeline" })
    .use(adminGuard(services))
    .get(
      "/admin/workspaces/:key/timeline",
      async ({ params, query }) =>
        json(await timelineListing(services, await requireWorkspace(services, params.key), query)),
      { ...onWorkspaceRoute(), query: TimelineQuery },
    )
    .get(
      "/admin/workspaces/:key/timeline/:n/screen",
      async ({ params: { key, n } }) => {
        await requireWorkspace(services, key);
        const bytes = await timeline.screen(key, n);
        if (!bytes) throw notFound(`no screen for entry ${n} of ${key}: the timeline lists which have one`);
        return jpeg(bytes, 3600);
      },
      { admin: true, params: WorkspaceParams.extend({ n: entryNumber("n") }) },
    )
    .post(
      "/admin/workspaces/:key/timeline/flow",
      async ({ body, params }) => {
        const key = await requireWorkspace(services, params.key);
        return json(await keepRunAsFlow(services, key, body));
      },
      { ...onWorkspaceRoute(), parse: bodyParser() },
    )
    .get(
      "/admin/workspaces/:key/screen",
      async ({ params }) => {
        const key = await requireWorkspace(services, params.key);
        let frame = await timeline.live.frame(key);
        // A page that moved on while it was drawn: drawn again.
        for (let i = 0; i < 3 && "moved" in frame; i++) frame = await timeline.live.frame(key);
        if ("moved" in frame)
          throw unavailable(`workspace ${key}'s page kept moving while it was drawn: retry`);
        if (!frame.live) {
          throw notFound(
            frame.hidden
              ? `workspace ${key}'s page holds a typed secret: it is not pictured`
              : `workspace ${key} has no live browser`,
          );
        }
        return jpeg(frame.jpeg, 0);
      },
      onWorkspaceRoute(),
    );
}
