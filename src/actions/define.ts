// The action table's building block. Each action is declared once; the MCP tools, REST routes,
// OpenAPI document and generated docs all come from these declarations.

import type { WebDriver } from "selenium-webdriver";
import { z } from "zod";
import type { BidiSocket } from "../grid/bidi.ts";
import type { Page } from "../grid/page.ts";
import type { Services } from "../services.ts";
import type { BrowserSettings, WorkspaceRecord } from "../store/record.ts";

export interface Annotations {
  /** Reads only: changes nothing in the browser or the workspace. */
  readOnly: boolean;
  /** Hands the page an instruction (click, type, run script). Navigating is not destructive. */
  destructive: boolean;
  idempotent: boolean;
  openWorld?: boolean;
}

/** How the workspace manager treats the action. */
export type BrowserUse =
  | "page" // needs the workspace's browser: resolved (silently reopened) before, settled after
  | "open" // opens or replaces the browser itself
  | "end" // ends the browser
  | "none"; // needs no browser

/** The browser a page action works on. The id never leaves the server. */
export interface LiveBrowser {
  readonly id: string;
  readonly driver: WebDriver;
  readonly settings: BrowserSettings;
  /** The browser's held BiDi socket (shared by every call: never close it). */
  bidi(): Promise<BidiSocket>;
  /** The page the call acts on: where the agent is, the sandbox, input. One per call. */
  page(): Promise<Page>;
}

/** A pure change to the record, applied inside the settle write (may run more than once). */
export type RecordChange = (record: WorkspaceRecord, browser: string) => WorkspaceRecord | null;

export interface ActionContext {
  readonly workspace: string;
  readonly services: Services;
  /** The workspace's browser (page actions only). */
  readonly browser: LiveBrowser;
  /** Record `url` in the history instead of the result's url; null withholds the landing. */
  land(url: string | null): void;
  /** A further pure change to apply in the same settle write. */
  change(fn: RecordChange): void;
  /** Progress for long actions (MCP progress notifications). */
  progress(progress: number, total: number | undefined, message: string): void;
  readonly signal: AbortSignal;
}

export interface HttpRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path with `{param}` segments; each param is a field of the input. */
  path: string;
  /** The OpenAPI summary, when it is not the title. */
  summary?: string;
  /** Reads a body that is not plain JSON (a multipart upload) into the input's fields; it enforces its own cap. */
  readBody?: (request: Request) => Promise<Record<string, unknown>>;
  /** With readBody: the body types it takes besides JSON, for OpenAPI (content type → schema); default a multipart upload. */
  bodies?: Record<string, Record<string, unknown>>;
}

// biome-ignore lint/suspicious/noExplicitAny: the table holds actions of every input and output type
export type AnyAction = ActionDef<any, any>;

export interface ActionDef<I extends z.ZodObject, O extends z.ZodType> {
  name: string;
  http: HttpRoute;
  title: string;
  /** A prompt for the agent, paid on every turn: when to use it and the mistakes to avoid, said once. */
  description: string;
  /** More for readers (the docs and OpenAPI add it after the description); agents are not sent it. */
  docs?: string;
  input: I;
  output: O;
  annotations: Annotations;
  browser: BrowserUse;
  /** Results carry the window size, which is written back into the settings. */
  reshapes?: boolean;
  /** Runs before the browser is resolved, so a call that cannot succeed opens no browser; throws to refuse it. */
  precheck?: (ctx: { workspace: string; services: Services }, input: z.infer<I>) => Promise<void>;
  handler: (ctx: ActionContext, input: z.infer<I>) => Promise<z.infer<O>>;
  /** Over MCP: content blocks to send before the result's JSON (an image), or instead of it, and the structured result beside them. */
  mcpContent?: (result: z.infer<O>) => McpContent;
}

export interface McpContent {
  blocks: Array<{ type: "image"; data: string; mimeType: string } | { type: "text"; text: string }>;
  /** What structuredContent and the JSON text carry instead of the result (valid against `output`). */
  structured?: Record<string, unknown>;
  /** false: the blocks already say all the result says (read_page's outline), so no JSON text block. */
  json?: false;
}

export function defineAction<I extends z.ZodObject, O extends z.ZodType>(
  def: ActionDef<I, O>,
): ActionDef<I, O> {
  return def;
}

// ---- shared shapes ------------------------------------------------------------------------

export const SITE_DATA_URI = "workspace://site-data";

export const SiteDataHint = z
  .object({
    restored: z
      .array(z.string())
      .optional()
      .describe(
        "Each host whose saved cookies or storage are in the browser now (app.example.com). All of it is in place before the call returns.",
      ),
    forgotten: z.number().int().optional().describe("Sites deleted because restore_site_data was false."),
    skipped: z
      .array(
        z.object({
          cookie: z.string().optional().describe("A cookie's name."),
          domain: z.string().optional().describe("Its domain."),
          site: z.string().optional().describe("An origin whose storage did not come back."),
          reason: z.string(),
        }),
      )
      .optional()
      .describe("Items that could not be restored, each with a reason."),
    uri: z.string().optional().describe("Where to read what is saved."),
  })
  .describe("Present only when site data was restored, skipped or forgotten in this call.")
  .meta({ shared: true });

export const PageReport = z
  .object({
    console_errors: z
      .array(z.object({ text: z.string(), source: z.string().optional() }))
      .optional()
      .describe("Errors the page logged to its console during the call."),
    failed_requests: z
      .array(
        z.object({
          url: z.string(),
          status: z
            .number()
            .int()
            .optional()
            .describe("The HTTP status (>= 400); absent for a network error."),
          error: z.string().optional().describe("The network error, when there was no response."),
        }),
      )
      .optional()
      .describe("Requests that failed during the call: HTTP >= 400 or a network error."),
    omitted: z
      .object({ console_errors: z.number().int().optional(), failed_requests: z.number().int().optional() })
      .optional()
      .describe("How many more there were beyond the first 20 of each, left out to keep the result short."),
  })
  .describe(
    "Present only when this browser was opened with capture=true and the page reported a failure while the call ran: what it caused, and where to read it.",
  )
  .meta({ shared: true });

/** Every page action answers with at least these. */
export const pageFields = {
  url: z.string().describe("The page's URL after the action."),
  title: z.string().describe("The page's title after the action."),
  site_data: SiteDataHint.optional(),
  page: PageReport.optional(),
};

export const PageResult = z.object(pageFields);

/** Limits that keep a body's fields sane (the whole body is capped at 1 MiB). */
export const MAX_URL = 8192;
export const webUrl = () =>
  z
    .string()
    .max(MAX_URL)
    .refine((u) => {
      try {
        const p = new URL(u).protocol;
        return p === "http:" || p === "https:" || p === "about:" || p === "data:" || p === "file:";
      } catch {
        return false;
      }
    }, "must be an absolute URL such as https://app.example.test/");

const asBool = (v: unknown) => (v === "true" ? true : v === "false" ? false : v);

/** A boolean that also takes "true"/"false" (hand-written JSON). With a default, the schema shows it. */
export function flag(fallback?: boolean) {
  return fallback === undefined
    ? z.preprocess(asBool, z.boolean())
    : z.preprocess(asBool, z.boolean().default(fallback));
}
