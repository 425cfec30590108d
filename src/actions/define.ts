// The action table's building block. Each action is declared once; the MCP tools, REST routes,
// OpenAPI document and generated docs all come from these declarations.

import type { z } from "zod";
import type { ActionContext, PrecheckContext } from "./ports.ts";
import type { ActionShape } from "./shape.ts";

export type { ActionContext, ActionServices, BrowserLifecycle, PrecheckContext } from "./ports.ts";
export type {
  Annotations,
  AnyAction,
  BrowserUse,
  HttpRoute,
  LiveBrowser,
  McpContent,
  Patched,
  RecordChange,
} from "./shape.ts";

/** An action as the table holds it: its handler gets the call's context (ports.ts). */
export type ActionDef<I extends z.ZodObject, O extends z.ZodType> = ActionShape<
  I,
  O,
  ActionContext,
  PrecheckContext
>;

export function defineAction<I extends z.ZodObject, O extends z.ZodType>(
  def: ActionDef<I, O>,
): ActionDef<I, O> {
  return def;
}

// The shared shapes live in a leaf (fields.ts) so what declares a shape of its own can build on them.
export {
  flag,
  MAX_URL,
  PageReport,
  PageResult,
  pageFields,
  SITE_DATA_URI,
  SiteDataHint,
  webUrl,
} from "./fields.ts";
