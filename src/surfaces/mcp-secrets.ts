// A secret through the agent's own client (MCP URL-mode elicitation, SEP-1036): request_secret, or a
// write naming a secret in no catalogue, from a client that declared `elicitation: {url: {}}` sends
// its user to this server's page (/secrets/enter/<token>) before the call runs. 2025-11-25: the
// call's stream carries the elicitation/create request, and the call waits (holding no lease) until
// the person typed the value there, then tells the client (notifications/elicitation/complete).
// 2026-07-28: the call answers input_required with the elicitation, and the client's next round
// (its user went to the page) waits the same way. Then the call runs as usual: the write finds the
// secret, request_secret answers entered. The value never crosses MCP. A user who declines in the
// client or on the page, or a link that runs out, ends the call with a tool error. Clients without
// the capability get the link as text from the call itself.
import type { AnyAction } from "../actions/action.ts";
import { validate } from "../actions/validate.ts";
import { write } from "../browser/write.ts";
import { badInput, conflict } from "../errors.ts";
import { requestSecret } from "../person/actions.ts";
import type { SecretAsk } from "../person/secret-words.ts";
import type { Services } from "../services.ts";
import { toolError } from "./mcp-answers.ts";

/** What of a request (mcp-methods.ts's McpRequest) this needs. */
interface McpRequest {
  services: Services;
  workspace: string;
  signal: AbortSignal;
  notify(notice: { method: string; params?: Record<string, unknown> }): Promise<void>;
  origin?: string;
  elicitUrl?(id: string, url: string, message: string): void;
  /** 2025-era only: 2026-07-28 has none, and asks in input_required rounds. */
  session?: unknown;
  client?: { capabilities: Record<string, unknown> };
}

/** A tools/call's params as a round sees them (2026-07-28: the state and the client's answers). */
interface CallParams {
  arguments?: Record<string, unknown>;
  requestState?: unknown;
  inputResponses?: unknown;
}

/** The key of the one input a 2026-07-28 round asks for. */
const SECRET = "secret";

const encode = (s: { id: string; w: string }) => Buffer.from(JSON.stringify(s)).toString("base64url");
function decode(state: unknown): { id: string; w: string } | null {
  if (typeof state !== "string") return null;
  try {
    const s = JSON.parse(Buffer.from(state, "base64url").toString("utf8")) as { id?: unknown; w?: unknown };
    return typeof s.id === "string" && typeof s.w === "string" ? { id: s.id, w: s.w } : null;
  } catch {
    return null;
  }
}

/** A reply to the elicitation for request `id` comes back with this request id. */
const REPLY_PREFIX = "secret-";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether the client declared URL-mode elicitation. */
export function asksByUrl(capabilities: Record<string, unknown> | undefined): boolean {
  const e = capabilities?.elicitation;
  return isObject(e) && isObject(e.url);
}

/** The elicitation/create request that sends the client's user to the page of request `id`. */
export function urlRequest(id: string, url: string, message: string) {
  return {
    jsonrpc: "2.0" as const,
    id: `${REPLY_PREFIX}${id}`,
    method: "elicitation/create",
    params: { mode: "url", elicitationId: id, url, message },
  };
}

/** A response the client POSTed to a URL elicitation that its user will not follow: its request id; else null. */
export function declinedOf(message: { id?: unknown; result?: unknown }): string | null {
  if (typeof message.id !== "string" || !message.id.startsWith(REPLY_PREFIX)) return null;
  const accepted = isObject(message.result) && message.result.action === "accept";
  return accepted ? null : message.id.slice(REPLY_PREFIX.length);
}

/** The secret a call needs a person to give first: request_secret's, or one a write names that no catalogue has. */
async function needed(req: McpRequest, action: AnyAction, args: Record<string, unknown>) {
  const { services, workspace } = req;
  if (action === requestSecret) return validate(requestSecret.input, args) as SecretAsk;
  if (action !== write) return null;
  const input = validate(write.input, args);
  const refs = (input.fields ?? [input]).flatMap((i) => (i.secret ? [i.secret] : []));
  return refs.length ? services.personSecrets.missing(workspace, refs, input.url) : null;
}

/**
 * Before a call: the secret it needs, asked of the client's user at the server's page when the client
 * opens URLs for them. Null: go on with the call (nothing was needed, or the value is in now); else
 * the tool result to answer instead.
 */
export async function secretFirst(
  req: McpRequest,
  action: AnyAction,
  params: CallParams,
): Promise<Record<string, unknown> | null> {
  const rounds = !req.session && asksByUrl(req.client?.capabilities);
  if ((!req.elicitUrl && !rounds) || !req.origin) return null;
  const { services, workspace } = req;
  // Arguments the call itself refuses (-32602, naming the field) are left to it.
  const ask = await needed(req, action, params.arguments ?? {}).catch(() => null);
  if (!ask) return null;
  try {
    let id: string;
    const back = rounds ? decode(params.requestState) : null;
    if (back) {
      // 2026-07-28, the client back from its user: they went to the page (or would not).
      if (back.w !== workspace) throw badInput("requestState is not one this server gave for this workspace");
      const replies = isObject(params.inputResponses) ? params.inputResponses : {};
      const reply = replies[SECRET];
      if (!isObject(reply) || reply.action !== "accept") {
        await services.personSecrets.withdraw(workspace, back.id);
        throw conflict(`secret ${ask.name} was not given: the person declined to give it; nothing was typed`);
      }
      id = back.id;
    } else {
      const asked = await services.personSecrets.ask(workspace, ask, req.origin);
      if (asked.entered) return null;
      const hosts = asked.allowed_urls.join(", ");
      const said = ask.reason ? ` It says: ${ask.reason}.` : "";
      const message = `An agent asks for ${ask.key} of ${ask.name}, to be typed only on ${hosts}.${said} Type it on this server's page; the agent never sees it.`;
      // 2026-07-28: the call answers input_required, and the client comes back once its user went.
      if (rounds)
        return {
          resultType: "input_required",
          inputRequests: {
            [SECRET]: {
              method: "elicitation/create",
              params: urlRequest(asked.id, asked.url, message).params,
            },
          },
          requestState: encode({ id: asked.id, w: workspace }),
        };
      req.elicitUrl?.(asked.id, asked.url, message);
      id = asked.id;
    }
    const ending = await services.personSecrets.wait(workspace, id, req.signal);
    if (ending === "entered") {
      if (!rounds)
        await req.notify({ method: "notifications/elicitation/complete", params: { elicitationId: id } });
      // request_secret is answered (the person may have kept it to fewer hosts); a write goes on.
      if (action !== requestSecret) return null;
      const done = { entered: true };
      return { content: [{ type: "text", text: JSON.stringify(done) }], structuredContent: done };
    }
    const why =
      ending === "declined"
        ? "the person declined to give it"
        : ending === "expired"
          ? "its link ran out before the person typed it"
          : "the call was stopped";
    throw conflict(`secret ${ask.name} was not given: ${why}; nothing was typed`);
  } catch (err) {
    return toolError(err, services.redactor);
  }
}
