// The type of an action, whatever its handler is handed. A leaf: what reads the table without
// running it (a flow's step tools, the timeline) types actions from here, so nothing that the
// handler's context names imports the action table back.

import type { WebDriver } from "selenium-webdriver";
import type { z } from "zod";
import type { BidiSocket } from "../grid/bidi.ts";
import type { HeldConnection } from "../grid/held.ts";
import type { Page } from "../grid/page.ts";
import type { BodyKind, BodySpec } from "../http/body.ts";
import type { BrowserSettings } from "../store/record.ts";

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
  /** read_page's ref floors, kept for as long as the server holds the browser's connection. */
  readonly refFloors: RefFloors;
}

/**
 * How many documents of each held connection have had refs: each new one gets the next letter (e12,
 * f12 …), so a ref kept from before a navigation names nothing on the next page.
 */
export class RefFloors {
  private readonly floors = new WeakMap<HeldConnection, number>();

  floor(held: HeldConnection): number {
    return this.floors.get(held) ?? 0;
  }

  raise(held: HeldConnection, high: number): void {
    this.floors.set(held, Math.max(this.floor(held), high));
  }
}

export interface HttpRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path with `{param}` segments; each param is a field of the input. */
  path: string;
  /** The OpenAPI summary, when it is not the title. */
  summary?: string;
  /** The body kinds it takes besides JSON (a flow's YAML, an upload's multipart form), and their caps. */
  takes?: readonly Exclude<BodyKind, "json">[];
  caps?: BodySpec["caps"];
  /** The input's fields from the body the app read (a JSON object, YAML text, a multipart form). */
  fromBody?: (body: unknown) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** With takes: the body types besides JSON, for OpenAPI (content type → schema); default a multipart upload. */
  bodies?: Record<string, Record<string, unknown>>;
}

/**
 * A result's PNG (base64) rides along on this key for the MCP image block (a screenshot's); JSON
 * never sees a symbol key, and the redaction leaves the picture whole.
 */
export const PNG = Symbol("png");

export interface McpContent {
  blocks: Array<{ type: "image"; data: string; mimeType: string } | { type: "text"; text: string }>;
  /** What structuredContent and the JSON text carry instead of the result (valid against `output`). */
  structured?: Record<string, unknown>;
  /** false: the blocks already say all the result says (read_page's outline), so no JSON text block. */
  json?: false;
}

/** An action: `C` is what its handler is handed, `P` what its precheck is (define.ts names both). */
export interface Action<I extends z.ZodObject, O extends z.ZodType, C, P> {
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
  /**
   * Runs its handler outside the workspace's lease (it only waits), then this page action in the
   * workspace's turn; its result's fields are merged over the handler's (the page after the wait).
   */
  unleased?: AnyAction;
  /** Results carry the window size, which is written back into the settings. */
  reshapes?: boolean;
  /** Runs before the browser is resolved, so a call that cannot succeed opens no browser; throws to refuse it. */
  precheck?: (ctx: P, input: z.infer<I>) => Promise<void>;
  /** Answers its result; what else happened it writes into the call's effects (effects.ts). */
  handler: (ctx: C, input: z.infer<I>) => Promise<z.infer<O>>;
  /** Over MCP: content blocks to send before the result's JSON (an image), or instead of it, and the structured result beside them. */
  mcpContent?: (result: z.infer<O>) => McpContent;
}

// biome-ignore lint/suspicious/noExplicitAny: the table holds actions of every input and output type
export type AnyAction = Action<any, any, any, any>;

/**
 * The agent's client asks its user itself (MCP form elicitation). `ask` puts question `id` to them
 * now (2025-11-25: a request on the call's stream; the reply comes back as an answer to that
 * question). `replied`: the call is the client back with its user's reply to question `id` (null:
 * declined), the 2026-07-28 way, where the question went out with the call's first round.
 */
export type Asking =
  | { ask(id: string, question: string): void }
  | { replied: { id: string; text: string | null } };
