// The action table's building block. Each action is declared once; the MCP tools, REST routes,
// OpenAPI document and generated docs all come from these declarations.

import type { z } from "zod";
import type { Action } from "./action.ts";
import type { ActionContext, PrecheckContext } from "./ports.ts";

/** An action as the table holds it: its handler gets the call's context (ports.ts). */
export type ActionDef<I extends z.ZodObject, O extends z.ZodType> = Action<
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
