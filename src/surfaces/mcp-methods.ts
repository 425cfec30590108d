// What MCP answers, method by method, once for every way it is reached: over HTTP on either spec
// version and over stdio (the SDK's server, one per connection). A method is handed the request's
// context and its params, checked by the method's own schema first (mcp-exchange.ts `dispatch`, which
// also holds tools/call: a tool call runs in the exchange that answers it).
import { z } from "zod";
import { isTemplate, matchUri } from "../actions/resource.ts";
import { notFound } from "../errors.ts";
import { RESOURCES } from "../registry.ts";
import type { Services } from "../services.ts";
import { RESOURCE_NOT_FOUND, resourceBytes, resourceError, TOOL_TABLE } from "./mcp-answers.ts";
import { complete } from "./mcp-complete.ts";
import { getPrompt, listPrompts } from "./mcp-prompts.ts";
import { type Subscriptions, subscribable } from "./mcp-subscribe.ts";
import { LEVELS, McpFailure, type McpLevel, METHOD_NOT_FOUND, type Outgoing } from "./mcp-wire.ts";

/** What a session lends its requests (2025-era: kept in the store by session id, or stdio's memory). */
export interface SessionNeeds {
  /** logging/setLevel: the level its tool calls' log lines go out at from now on. */
  setLevel(level: McpLevel): Promise<void>;
  subscriptions: Subscriptions;
}

/**
 * One request as a method sees it: its notices and its own log line go out through what its
 * transport made for it (`Outgoing`: the exchange over HTTP, the SDK's request over stdio).
 */
export interface McpRequest extends Outgoing {
  services: Services;
  workspace: string;
  requestId: string | number;
  /** Aborts when the client cancels the request or leaves it. */
  signal: AbortSignal;
  /** The session's ports; absent where there are no sessions (2026-07-28). */
  session?: SessionNeeds;
  /** What the client declared it can do (2025: at initialize; 2026: in this request's _meta). */
  client?: { capabilities: Record<string, unknown> };
  /**
   * 2025-era, a client that asks in form: puts question `id` to its user now (a request on this
   * request's stream); the reply answers the question (Questions.reply).
   */
  ask?(id: string, question: string): void;
  /** This server's origin as the client reached it (where a person's page is); none over stdio. */
  origin?: string;
  /** 2025-era, a client that opens URLs for its user: sends them to the page of secret request `id` now. */
  elicitUrl?(id: string, url: string, message: string): void;
}

export interface Method {
  params: z.ZodType;
  handle(req: McpRequest, params: unknown): Promise<Record<string, unknown>>;
}

/** A method whose handler is handed its params as its schema parsed them. */
export function method<S extends z.ZodType>(
  params: S,
  handle: (req: McpRequest, params: z.infer<S>) => Promise<Record<string, unknown>>,
): Method {
  return { params, handle: handle as Method["handle"] };
}

export const meta = z.looseObject({ progressToken: z.union([z.string(), z.number()]).optional() }).optional();
const noParams = z.looseObject({ _meta: meta }).optional();
const uriParams = z.looseObject({ uri: z.string(), _meta: meta });

async function readResource(req: McpRequest, uri: string): Promise<Record<string, unknown>> {
  const { services, workspace } = req;
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
}

const described = (r: (typeof RESOURCES)[number]) => ({
  name: r.name,
  title: r.title,
  description: r.description,
  mimeType: r.mimeType ?? "application/json",
});
const RESOURCE_LIST = RESOURCES.filter((r) => !isTemplate(r)).map((r) => ({ uri: r.uri, ...described(r) }));
const TEMPLATE_LIST = RESOURCES.filter(isTemplate).map((r) => ({ uriTemplate: r.uri, ...described(r) }));

/** The session's ports, or a refusal: the method is one of 2025-11-25's sessions. */
function sessionOf(req: McpRequest): SessionNeeds {
  if (!req.session) throw new McpFailure(METHOD_NOT_FOUND, "Method not found");
  return req.session;
}

/** The methods by name, but tools/call (mcp-exchange.ts `MCP_METHODS`: every one). */
export const METHODS: Record<string, Method> = {
  ping: method(noParams, async () => ({})),
  "tools/list": method(noParams, async () => ({ tools: TOOL_TABLE.tools })),
  "resources/list": method(noParams, async () => ({ resources: RESOURCE_LIST })),
  "resources/templates/list": method(noParams, async () => ({ resourceTemplates: TEMPLATE_LIST })),
  "resources/read": method(uriParams, (req, p) =>
    failAsMcp(req, () => readResource(req, p.uri), { uri: p.uri }),
  ),
  "resources/subscribe": method(uriParams, (req, p) =>
    failAsMcp(req, async () => {
      await sessionOf(req).subscriptions.add(subscribable(p.uri));
      return {};
    }),
  ),
  "resources/unsubscribe": method(uriParams, async (req, p) => {
    await sessionOf(req).subscriptions.remove(p.uri);
    return {};
  }),
  // The level is checked here, so a wrong one is invalid params naming the levels.
  "logging/setLevel": method(z.looseObject({ level: z.enum(LEVELS) }), async (req, p) => {
    await sessionOf(req).setLevel(p.level);
    return {};
  }),
  "prompts/list": method(noParams, async () => ({ prompts: listPrompts() })),
  "prompts/get": method(
    z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.string()).optional() }),
    (req, p) => failAsMcp(req, async () => getPrompt(p.name, p.arguments ?? {})),
  ),
  "completion/complete": method(
    z.looseObject({
      ref: z.union([
        z.looseObject({ type: z.literal("ref/prompt"), name: z.string() }),
        z.looseObject({ type: z.literal("ref/resource"), uri: z.string() }),
      ]),
      argument: z.looseObject({ name: z.string(), value: z.string() }),
    }),
    (req, p) => failAsMcp(req, () => complete(req.services, req.workspace, p)),
  ),
};

/**
 * A failure of ours as MCP says it (resourceError: 400 invalid params, 404 not found, else
 * internal); `data` goes with a not-found (the uri that is not there).
 */
async function failAsMcp<T>(req: McpRequest, run: () => Promise<T>, data?: unknown): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const e = resourceError(err, req.services.redactor);
    throw new McpFailure(e.code, e.message, e.code === RESOURCE_NOT_FOUND ? data : undefined);
  }
}
