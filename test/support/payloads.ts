// Test fixtures for the admin views: loose JSON-like objects, shaped like the admin API's answers,
// made into the view models with every part they lack filled in empty.

import type { FileEntry, FilesPayload } from "../../src/files/view.tsx";
import type { FlowsPayload } from "../../src/flows/view.tsx";
import { isObject } from "../../src/kit/json.ts";
import type { HistoryPayload, SecretLine } from "../../src/site-data/history-view.tsx";
import type { SiteDataPayload } from "../../src/site-data/view.tsx";
import type { ActivityNote } from "../../src/surfaces/ui/pages.tsx";
import { TimelineBatch } from "../../src/timeline/entry.ts";

const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);
const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).filter((x): x is string => typeof x === "string");
const items = (v: unknown): Record<string, string> =>
  isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, str(x, String(x))])) : {};

/** The Site data payload with every part it lacks filled in empty. */
export function siteDataOf(body: unknown): SiteDataPayload {
  const b = isObject(body) ? body : {};
  const details = isObject(b.details) ? b.details : {};
  return {
    sites: list(b.sites)
      .filter(isObject)
      .map((s) => ({
        site: str(s.site),
        cookies: count(s.cookies),
        storage: list(s.storage)
          .filter(isObject)
          .map((o) => ({
            origin: str(o.origin),
            local_storage: count(o.local_storage),
            session_storage: count(o.session_storage),
          })),
      })),
    saved_at: typeof b.saved_at === "number" ? b.saved_at : null,
    details: Object.fromEntries(
      Object.entries(details)
        .filter(([, d]) => isObject(d))
        .map(([host, d]) => {
          const x = d as Record<string, unknown>;
          return [
            host,
            {
              site: str(x.site, host),
              cookies: list(x.cookies)
                .filter(isObject)
                .map((c) => ({
                  name: str(c.name),
                  value: str(c.value),
                  domain: str(c.domain),
                  path: str(c.path, "/"),
                  expiry: typeof c.expiry === "number" ? c.expiry : null,
                  http_only: c.http_only === true,
                  secure: c.secure === true,
                  shared: c.shared === true,
                })),
              storage: list(x.storage)
                .filter(isObject)
                .map((o) => ({
                  origin: str(o.origin),
                  local_storage: items(o.local_storage),
                  session_storage: items(o.session_storage),
                })),
              own_cookies: strings(x.own_cookies),
              kept_shared: list(x.kept_shared)
                .filter(isObject)
                .map((k) => ({ name: str(k.name), domain: str(k.domain), path: str(k.path, "/") })),
            },
          ];
        }),
    ),
  };
}

function secretOf(s: Record<string, unknown>): SecretLine {
  return {
    name: str(s.name),
    description: str(s.description),
    keys: strings(s.keys),
    allowed_urls: strings(s.allowed_urls),
  };
}

/** The History payload, read defensively. */
export function historyOf(body: unknown): HistoryPayload {
  const b = isObject(body) ? body : {};
  return {
    sites: list(b.sites)
      .filter(isObject)
      .map((r) => {
        const saved = isObject(r.saved) ? r.saved : null;
        return {
          site: str(r.site),
          url: str(r.url),
          at: count(r.at),
          saved: saved
            ? { cookies: count(saved.cookies), local: count(saved.local), session: count(saved.session) }
            : null,
          secrets: list(r.secrets).filter(isObject).map(secretOf),
        };
      }),
    clears: Array.isArray(b.clears) ? strings(b.clears) : undefined,
  };
}

function fileOf(f: Record<string, unknown>): FileEntry {
  return {
    name: str(f.name),
    url: typeof f.url === "string" ? f.url : undefined,
    content_type: typeof f.content_type === "string" ? f.content_type : undefined,
    image: f.image === true,
    size: typeof f.size === "number" ? f.size : undefined,
  };
}

/** The Files payload: its four folders (a folder given as an object with `files`/`items` works too). */
export function filesOf(body: unknown): Required<FilesPayload> {
  const b = isObject(body) ? body : {};
  const sections = isObject(b.sections) ? b.sections : b;
  const folder = (name: string): FileEntry[] => {
    const v = sections[name];
    const entries = Array.isArray(v) ? v : isObject(v) ? list(v.files ?? v.items ?? v.entries) : [];
    return entries.filter(isObject).map(fileOf);
  };
  return {
    off: typeof b.off === "string" ? b.off : "",
    screenshots: folder("screenshots"),
    recordings: folder("recordings"),
    files: folder("files"),
    downloads: folder("downloads"),
  };
}

/** The Flows payload, read defensively. */
export function flowsOf(body: unknown): Required<FlowsPayload> {
  const b = isObject(body) ? body : {};
  return {
    enabled: b.enabled !== false,
    flows: list(b.flows)
      .map((f) => (typeof f === "string" ? { name: f } : f))
      .filter(isObject)
      .map((f) => ({
        name: str(f.name),
        description: typeof f.description === "string" ? f.description : undefined,
        global: f.global === true || f.source === "global",
        steps: typeof f.steps === "number" ? f.steps : Array.isArray(f.steps) ? f.steps.length : undefined,
        problem: typeof f.problem === "string" ? f.problem : undefined,
        yaml: typeof f.yaml === "string" ? f.yaml : undefined,
      })),
  };
}

export function callsOf(body: unknown): ActivityNote[] {
  const b = isObject(body) ? body : {};
  return list(b.calls)
    .filter(isObject)
    .map((c) => ({
      time: count(c.time),
      workspace: str(c.workspace),
      tool: str(c.tool),
      surface: c.surface === "mcp" || c.surface === "flow" ? c.surface : "rest",
      status: count(c.status),
      ms: count(c.ms),
    }));
}

/** A timeline listing, parsed by the entry's own schema (a listing with no `next` has no page after it). */
export function timelineOf(body: unknown): TimelineBatch {
  return TimelineBatch.parse({ next: null, ...(isObject(body) ? body : {}) });
}
