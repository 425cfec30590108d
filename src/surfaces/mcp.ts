// The MCP surface: tools from the action table and resources from the resource table, on the
// SDK's low-level server so validation and errors are the same as REST's. One server per MCP
// session, bound to the workspace the session named.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AnyAction } from "../actions/action.ts";
import { ACTIONS } from "../actions/index.ts";
import { badInput, errorBody, notFound, statusOf, tooLarge } from "../errors.ts";
import { isText } from "../files/types.ts";
import { VERSION } from "../kit/version.ts";
import { isTemplate, matchUri } from "../resources/define.ts";
import { RESOURCES } from "../resources/index.ts";
import type { Redactor } from "../secrets/redactor.ts";
import type { Services } from "../services.ts";
import { toolSchema } from "./json-schema.ts";
import type { McpCancels } from "./mcp-cancels.ts";
import { complete } from "./mcp-complete.ts";
import { type LevelStore, localLevel, logRelay } from "./mcp-logging.ts";
import { servePrompts } from "./mcp-prompts.ts";
import { localSubscriptions, ResourceWatch, type Subscriptions, subscribable } from "./mcp-subscribe.ts";

export const INSTRUCTIONS = [
  "selenium-flow drives a real browser for you on a Selenium Grid. Your browser belongs to this workspace and outlives the conversation: it is reopened silently if the Grid reaps it, on the page you were on.",
  'Start with navigate (a browser opens by itself), then read_page to see the page and act on its elements by their refs ({"ref": "e12"}); read it again after the page navigates.',
  "Read workspace://current to see where you are without touching the browser.",
].join(" ");

const SET_LEVEL = z.object({
  method: z.literal("logging/setLevel"),
  params: z.object({ level: z.unknown() }).passthrough(),
});

export function toolOf(action: AnyAction): Tool {
  return {
    name: action.name,
    title: action.title,
    description: action.description,
    inputSchema: toolSchema(action.input, "input") as Tool["inputSchema"],
    outputSchema: toolSchema(action.output, "output") as Tool["outputSchema"],
    // The title is the tool's own (annotations.title is its older place: said once).
    annotations: {
      readOnlyHint: action.annotations.readOnly,
      destructiveHint: action.annotations.destructive,
      idempotentHint: action.annotations.idempotent,
      openWorldHint: action.annotations.openWorld ?? false,
    },
  };
}

export function toolError(err: unknown, redactor?: Pick<Redactor, "redact">): CallToolResult {
  const text = errorBody(err).error;
  return { content: [{ type: "text", text: redactor ? redactor.redact(text) : text }], isError: true };
}

// The tool list is the same for every session and server: a constant built when this module loads
// (on the first /mcp request), not per initialize (it is most of a session's memory otherwise).
const TOOL_TABLE: { readonly tools: readonly Tool[]; readonly byName: ReadonlyMap<string, AnyAction> } = {
  tools: ACTIONS.map(toolOf),
  byName: new Map(ACTIONS.map((a) => [a.name, a])),
};

/** What MCP over HTTP hands a session's server: stored state, and where its calls register to be cancelled. */
export interface CallHooks {
  /** A tools/call registers here as it starts: a cancel in another request (or on another server) finds it. */
  cancels: { session: string; registry: McpCancels };
  /** Where the session's log level is kept (the server's memory without hooks). */
  levels: LevelStore;
  /** Where the session's subscriptions are kept (watched by the server itself without hooks). */
  subscriptions: Subscriptions;
}

export function mcpServer(services: Services, workspace: string, hooks?: CallHooks): Server {
  const server = new Server(
    { name: "selenium-flow", title: "selenium-flow", version: VERSION },
    {
      capabilities: { tools: {}, resources: { subscribe: true }, logging: {}, prompts: {}, completions: {} },
      instructions: INSTRUCTIONS,
    },
  );
  const { tools, byName } = TOOL_TABLE;
  const levels = hooks?.levels ?? localLevel();
  const subscriptions = hooks?.subscriptions ?? ownSubscriptions(server, services, workspace);
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    try {
      await subscriptions.add(subscribable(request.params.uri));
    } catch (err) {
      throw resourceError(err);
    }
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    await subscriptions.remove(request.params.uri);
    return {};
  });
  // The level is checked here, so a wrong one is invalid params naming the levels, not an internal error.
  server.setRequestHandler(SET_LEVEL, async (request) => {
    const level = LoggingLevelSchema.safeParse(request.params.level);
    if (!level.success)
      throw resourceError(badInput(`"level" must be one of ${LoggingLevelSchema.options.join(", ")}`));
    await levels.set(level.data);
    return {};
  });
  servePrompts(server, resourceError);
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    try {
      return await complete(services, workspace, request.params);
    } catch (err) {
      throw resourceError(err);
    }
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  // invoke reads for the workspace (pieces typed in another's browser mask nothing here), and an
  // error keeps that workspace for its message.
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const action = byName.get(request.params.name);
    if (!action) {
      return toolError(notFound(`no tool ${request.params.name}: tools/list names them`));
    }
    const token = request.params._meta?.progressToken;
    const stop = new AbortController();
    const relay = () => stop.abort(extra.signal.reason);
    extra.signal.addEventListener("abort", relay, { once: true });
    const ended = hooks?.cancels.registry.register(hooks.cancels.session, extra.requestId, () =>
      stop.abort(new Error("the client cancelled this call")),
    );
    const logs = await logRelay(services.log, levels, workspace, (n) => extra.sendNotification(n));
    const began = performance.now();
    const took = () => `${Math.round(performance.now() - began)} ms`;
    try {
      const result = await services.workspaces.calls.invoke({
        surface: "mcp",
        workspace,
        action,
        args: request.params.arguments ?? {},
        signal: stop.signal,
        progress: (progress, total, message) => {
          if (token === undefined) return;
          void extra
            .sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress, total, message },
            })
            .catch(() => undefined);
        },
      });
      await logs.line("info", `${action.name}: done in ${took()}`);
      const more = action.mcpContent?.(result);
      const structured = more?.structured ?? result;
      const json = more?.json === false ? [] : [{ type: "text" as const, text: JSON.stringify(structured) }];
      return {
        content: [...(more?.blocks ?? []), ...json],
        structuredContent: structured,
      };
    } catch (err) {
      if (errorBody(err).error.startsWith("something failed"))
        services.log.error(`tool ${action.name}: ${errorBody(err).error}`);
      await logs.line("warning", `${action.name}: failed (${statusOf(err)}) in ${took()}`);
      return toolError(err, services.redactor);
    } finally {
      logs.stop();
      ended?.();
      extra.signal.removeEventListener("abort", relay);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: RESOURCES.filter((r) => !isTemplate(r)).map((r) => ({
      uri: r.uri,
      name: r.name,
      title: r.title,
      description: r.description,
      mimeType: r.mimeType ?? "application/json",
    })),
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: RESOURCES.filter(isTemplate).map((r) => ({
      uriTemplate: r.uri,
      name: r.name,
      title: r.title,
      description: r.description,
      mimeType: r.mimeType ?? "application/json",
    })),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    try {
      for (const r of RESOURCES) {
        const params = matchUri(r.uri, uri);
        if (!params) continue;
        const read = await r.read(services, workspace, params);
        if (read instanceof Response) return { contents: [await resourceBytes(uri, read)] };
        const out = services.redactor.redactDeep(read);
        const text = typeof out === "string" ? out : JSON.stringify(out);
        return { contents: [{ uri, mimeType: r.mimeType ?? "application/json", text }] };
      }
      throw notFound(`no resource ${uri}: resources/list and resources/templates/list name them`);
    } catch (err) {
      throw resourceError(err, services.redactor);
    }
  });

  return server;
}

/** A server that sends its own notices (stdio): its watch ends when it closes. */
function ownSubscriptions(server: Server, services: Services, workspace: string): Subscriptions {
  const watch = new ResourceWatch(services, workspace, (n) => server.notification(n));
  const closed = server.onclose;
  server.onclose = () => {
    watch.stop();
    closed?.();
  };
  return localSubscriptions(watch);
}

/**
 * A resource's failure as MCP says it: bad input is invalid params (the 400), an unknown resource
 * its "resource not found" (the 404), the rest an internal error; the text is REST's.
 */
export function resourceError(err: unknown, redactor?: Pick<Redactor, "redact">): Error & { code: number } {
  const status = statusOf(err);
  const code =
    status === 400 ? ErrorCode.InvalidParams : status === 404 ? RESOURCE_NOT_FOUND : ErrorCode.InternalError;
  // A plain Error with a code: the SDK sends its message as it is (McpError's would carry a prefix).
  const text = errorBody(err).error;
  return Object.assign(new Error(redactor ? redactor.redact(text) : text), { code });
}

/** MCP's code for a resource that is not there. */
const RESOURCE_NOT_FOUND = -32002;

// Bytes over MCP: text a model can read as text, anything else as a base64 blob, within a cap.
const RESOURCE_BYTES_CAP = 16 * 1024 * 1024;

async function resourceBytes(
  uri: string,
  res: Response,
): Promise<
  { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string }
> {
  const mimeType = (res.headers.get("content-type") ?? "application/octet-stream").split(";")[0]!.trim();
  const size = Number(res.headers.get("content-length") ?? "0");
  if (size > RESOURCE_BYTES_CAP) {
    await res.body?.cancel();
    throw tooLarge(
      `${uri} is over ${RESOURCE_BYTES_CAP / 1024 / 1024} MiB, too big to read here: fetch the url its listing gives`,
    );
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (isText(mimeType)) return { uri, mimeType, text: new TextDecoder().decode(bytes) };
  return { uri, mimeType, blob: Buffer.from(bytes).toString("base64") };
}
