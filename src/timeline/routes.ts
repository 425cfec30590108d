// The admin's timeline, per workspace: its entries newest first (a `before` cursor pages back), each
// entry's screen, Clear (screens, or everything), a range kept as a flow, and the live screen now.
// The admin's event stream carries the live view (/admin/events?watch=<key>).
import { Elysia } from "elysia";
import { z } from "zod";
import { validate } from "../actions/validate.ts";
import { guarded, requireWorkspace } from "../admin/guard.ts";
import { badInput, notFound, unavailable } from "../errors.ts";
import { NO_SCRIPT } from "../files/serve.ts";
import { saveFlowText } from "../flows/actions.ts";
import { json, readJson } from "../http/json.ts";
import type { Services } from "../services.ts";
import type { TimelineEntry } from "./entry.ts";
import { PAGE_MAX } from "./service.ts";

type Ctx = { request: Request; params: { key: string; n?: string } };

const enc = encodeURIComponent;

/** Where an entry's screen is served; the time in it tells a later entry of the same number apart (after a Clear). */
export function screenPath(key: string, entry: Pick<TimelineEntry, "n" | "time">): string {
  return `/admin/workspaces/${enc(key)}/timeline/${entry.n}/screen?t=${Math.floor(entry.time * 1000)}`;
}

/** A query or path number: absent is undefined; anything but a whole positive number is a 400 naming it. */
function wholeNumber(raw: string | null | undefined, field: string): number | undefined {
  if (raw === null || raw === undefined || raw === "") return undefined;
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) {
    throw badInput(`${field} must be a whole number from 1 (an entry's n)`, field);
  }
  return Number(raw);
}

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

/** The page a listing asks for: `before` (an entry's n) and `limit` as the query gives them. */
export function timelineQuery(
  before: string | null,
  limit: string | null,
): { before?: number; limit: number } {
  const b = wholeNumber(before, "before");
  return { before: b, limit: Math.min(PAGE_MAX, wholeNumber(limit, "limit") ?? 50) };
}

/** The Timeline pane: a page of entries, newest first, each with its screen's path when it has one. */
export async function timelineListing(
  services: Services,
  key: string,
  query: { before?: number; limit: number },
) {
  const { entries, next } = await services.timeline.page(key, query);
  return {
    key,
    entries: entries.map((e) => (e.screen ? { ...e, screen_url: screenPath(key, e) } : e)),
    next,
    keep: services.config.timeline.keep,
    screens: services.timeline.screensOn(key),
  };
}

export async function clearTimeline(services: Services, key: string, what: "all" | "screens") {
  return { success: true, key, cleared: await services.timeline.clear(key, what) };
}

/** Save as flow: `body` names the flow and the run (from–to, or the last N calls). */
export async function keepRunAsFlow(services: Services, key: string, raw: unknown) {
  const body = validate(KeepAsFlow, raw);
  const pick =
    "last" in body
      ? { last: body.last }
      : { from: Math.min(body.from, body.to), to: Math.max(body.from, body.to) };
  const yaml = await services.timeline.flowYaml(key, pick);
  return { ...saveFlowText(services, key, body.name, yaml), yaml };
}

export function timelineRoutes(services: Services) {
  const timeline = services.timeline;
  return new Elysia({ name: "admin-timeline" })
    .get(
      "/admin/workspaces/:key/timeline",
      guarded(services, async ({ request, params }: Ctx) => {
        const key = await requireWorkspace(services, params.key);
        const q = new URL(request.url).searchParams;
        return json(await timelineListing(services, key, timelineQuery(q.get("before"), q.get("limit"))));
      }),
    )
    .get(
      "/admin/workspaces/:key/timeline/:n/screen",
      guarded(services, async ({ params }: Ctx) => {
        const key = await requireWorkspace(services, params.key);
        const n = wholeNumber(params.n, "n") as number;
        const bytes = await timeline.screen(key, n);
        if (!bytes) throw notFound(`no screen for entry ${n} of ${key}: the timeline lists which have one`);
        return jpeg(bytes, 3600);
      }),
    )
    .delete(
      "/admin/workspaces/:key/timeline",
      guarded(services, async ({ params }: Ctx) => {
        return json(await clearTimeline(services, await requireWorkspace(services, params.key), "all"));
      }),
    )
    .delete(
      "/admin/workspaces/:key/timeline/screens",
      guarded(services, async ({ params }: Ctx) => {
        return json(await clearTimeline(services, await requireWorkspace(services, params.key), "screens"));
      }),
    )
    .post(
      "/admin/workspaces/:key/timeline/flow",
      guarded(services, async ({ request, params }: Ctx) => {
        const key = await requireWorkspace(services, params.key);
        return json(await keepRunAsFlow(services, key, await readJson(request)));
      }),
    )
    .get(
      "/admin/workspaces/:key/screen",
      guarded(services, async ({ params }: Ctx) => {
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
      }),
    );
}
