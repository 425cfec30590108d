// ask_human through the agent's own client: a client that declares MCP form elicitation asks its
// user itself, in the same call, and the question is still the one in the workspace's record (the
// admin's row shows it; a person there may answer it instead). 2025-11-25: the question goes to the
// client as an elicitation/create request on the call's stream while the call waits as it always
// does; the client POSTs its user's reply (to any server of a group), which answers the question by
// its id (Questions.reply). 2026-07-28: the call's first round puts the question in the record and
// answers input_required with the elicitation; the client comes back with its user's reply and the
// request state, and that round settles the question (Questions.settle). A client without the
// capability gets today's path: the question waits for a person in the admin UI.
import type { Asking } from "../actions/action.ts";
import { validate } from "../actions/validate.ts";
import { badInput } from "../errors.ts";
import { askHuman } from "../person/actions.ts";
import type { Services } from "../services.ts";
import { toolError } from "./mcp-answers.ts";

/** The key of the one input a round asks for, and the field the user fills in. */
const ANSWER = "answer";
/** A reply to the question `id` comes back with this request id (2025-11-25). */
const REPLY_PREFIX = "ask-";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether the client declared form elicitation (`elicitation: {}` is form, as 2025-11-25 reads it). */
export function asksInForm(capabilities: Record<string, unknown> | undefined): boolean {
  const e = capabilities?.elicitation;
  return isObject(e) && (Object.keys(e).length === 0 || isObject(e.form));
}

/** The elicitation that puts `question` to the client's user: one line of text for the answer. */
function elicitation(question: string) {
  return {
    mode: "form",
    message: question,
    requestedSchema: {
      type: "object",
      properties: {
        [ANSWER]: { type: "string", title: "Answer", description: "What the agent should know" },
      },
      required: [ANSWER],
    },
  };
}

/** 2025-11-25: the request that asks the client's user question `id` (sent on the call's stream). */
export function elicitRequest(id: string, question: string) {
  return {
    jsonrpc: "2.0" as const,
    id: `${REPLY_PREFIX}${id}`,
    method: "elicitation/create",
    params: elicitation(question),
  };
}

/** What the user said in an elicitation result: the answer's text, or null (declined, cancelled). */
export function replyText(result: unknown): string | null {
  if (!isObject(result) || result.action !== "accept") return null;
  const content = isObject(result.content) ? result.content[ANSWER] : undefined;
  return typeof content === "string" ? content : content === undefined ? "" : String(content);
}

/** 2025-11-25: a response the client POSTed, as the reply to a question; null when it is not one. */
export function replyOf(message: { id?: unknown; result?: unknown; error?: unknown }): {
  id: string;
  text: string | null;
} | null {
  if (typeof message.id !== "string" || !message.id.startsWith(REPLY_PREFIX)) return null;
  return {
    id: message.id.slice(REPLY_PREFIX.length),
    text: "result" in message ? replyText(message.result) : null,
  };
}

interface RoundState {
  /** The question's id, its workspace and its text (asked again when a round comes back without a reply). */
  id: string;
  w: string;
  q: string;
}

// The state names a question by its random id in the record of the workspace the call names: a
// state changed or sent for another workspace names no question there, and the call answers that
// nothing was asked (no person's answer can be had with it).
const encode = (s: RoundState) => Buffer.from(JSON.stringify(s)).toString("base64url");
function decode(state: string): RoundState | null {
  try {
    const s = JSON.parse(Buffer.from(state, "base64url").toString("utf8")) as Partial<RoundState>;
    return typeof s.id === "string" && typeof s.w === "string" && typeof s.q === "string"
      ? { id: s.id, w: s.w, q: s.q }
      : null;
  } catch {
    return null;
  }
}

/** 2026-07-28's interim answer: the question for the client's user, and the state to come back with. */
function inputRequired(state: RoundState): Record<string, unknown> {
  return {
    resultType: "input_required",
    inputRequests: { [ANSWER]: { method: "elicitation/create", params: elicitation(state.q) } },
    requestState: encode(state),
  };
}

/**
 * One round of ask_human on 2026-07-28 for a client that asks in form: the first puts the question
 * in the record and answers input_required (a finished result to send); one that comes back with
 * its user's reply is the call that settles it (how it asks, for the action). A round that comes
 * back without a reply is asked again.
 */
export async function askRound(
  services: Services,
  workspace: string,
  params: { arguments?: Record<string, unknown>; requestState?: unknown; inputResponses?: unknown },
): Promise<{ result: Record<string, unknown> } | { asking: Asking }> {
  if (params.requestState === undefined) {
    try {
      const input = validate(askHuman.input, params.arguments ?? {});
      const state = { id: crypto.randomUUID(), w: workspace, q: input.question };
      await services.questions.place(workspace, input.question, input.timeout * 1000, {
        id: state.id,
        rounds: true,
      });
      return { result: inputRequired(state) };
    } catch (err) {
      return { result: { ...toolError(err, services.redactor) } };
    }
  }
  const state = typeof params.requestState === "string" ? decode(params.requestState) : null;
  if (!state || state.w !== workspace)
    return {
      result: { ...toolError(badInput("requestState is not one this server gave for this workspace")) },
    };
  const responses = isObject(params.inputResponses) ? params.inputResponses : {};
  if (!(ANSWER in responses)) return { result: inputRequired(state) };
  return { asking: { replied: { id: state.id, text: replyText(responses[ANSWER]) } } };
}
