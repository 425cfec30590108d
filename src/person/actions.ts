// ask_human: the agent asks the person watching the workspace and waits, holding no lease (so the
// person can drive the browser), for an answer or the timeout; the page it returns is the person's.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { browserState } from "../browser/landing.ts";
import { conflict } from "../errors.ts";
import { NO_PAGE, REQUEST_S } from "./secret-words.ts";

const PROGRESS_MS = 10_000;

/** The page after the wait, read in the workspace's turn (the person may have moved it). */
export const pageNow = defineAction({
  name: "page_now",
  http: { method: "GET", path: "/browser/page-now" },
  title: "Where the browser is",
  description: "The browser's url and title.",
  input: z.strictObject({}),
  output: z.object({ url: z.string(), title: z.string() }),
  annotations: { readOnly: true, destructive: false, idempotent: true },
  browser: "page",
  handler: async (ctx) => browserState(ctx.browser),
});

export const askHuman = defineAction({
  name: "ask_human",
  http: { method: "POST", path: "/browser/ask-human" },
  title: "Ask human",
  description: "Ask the person watching for help (CAPTCHA, 2FA); waits for the answer.",
  docs: "The workspace's row shows the question, on every server of a group, until a person answers (POST /admin/workspaces/{key}/answer, on any server) or the timeout passes. The person's answer call returns once this call took the answer, or says it was not delivered (409: this call ended first; 503: it did not take it within 10 s) and withdraws it: an answer arrives exactly once or not at all. The result is {answered, answer?, url, title}, the page as the person left it (with no live browser: the last known url and an empty title; none is opened). End or Forget, on any server, cancels the wait (answered false). One question per workspace at a time: a second is a 409. Over MCP, a client that declares form elicitation asks its own user the same question (one field, answer) and the answer comes back in the same call (2025-11-25: an elicitation/create request on the call's stream; 2026-07-28: an input_required round); decline or cancel is answered false; the row shows the question meanwhile, and a person's answer there counts too.",
  input: z.strictObject({
    question: z.string().min(1).max(500),
    timeout: z.number().int().min(5).max(3600).default(600),
  }),
  output: z.object({
    answered: z.boolean(),
    answer: z.string().optional(),
    url: z.string(),
    title: z.string(),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  browser: "none",
  unleased: pageNow,
  handler: async (ctx, input) => {
    const asking = ctx.asking;
    // The client's user replied in its own window (their answer, or a person's given meanwhile).
    if (asking && "replied" in asking) {
      const { id, text } = asking.replied;
      const answer = await ctx.services.questions.close(ctx.workspace, id, text);
      return answer === null
        ? { answered: false, url: "", title: "" }
        : { answered: true, answer, url: "", title: "" };
    }
    // Asked in the record (the admin's row) and, when its client can, of the client's user too.
    const id = crypto.randomUUID();
    const waiting = ctx.services.questions.ask(
      ctx.workspace,
      input.question,
      input.timeout * 1000,
      ctx.signal,
      {
        id,
        asked: asking ? () => asking.ask(id, input.question) : undefined,
      },
    );
    const began = Date.now();
    // At once, then every PROGRESS_MS: the client knows the call waits on a person from the start.
    ctx.progress(0, input.timeout, "waiting for a person");
    const tick = setInterval(() => {
      const s = Math.round((Date.now() - began) / 1000);
      ctx.progress(s, input.timeout, `waiting for a person (${s} s)`);
    }, PROGRESS_MS);
    try {
      const answer = await waiting;
      return answer === null
        ? { answered: false, url: "", title: "" }
        : { answered: true, answer, url: "", title: "" };
    } finally {
      clearInterval(tick);
    }
  },
});

export const requestSecret = defineAction({
  name: "request_secret",
  http: { method: "POST", path: "/secrets/request" },
  title: "Request a secret",
  description:
    "Ask your person for a secret you lack; they type it on this server's page, never shown to you.",
  docs: `The person opens the page (its link works once, for ${REQUEST_S / 60} minutes), sees the hosts the value will be typed on as asked (allowed_urls), may untick some, and types the value; it is kept sealed in this workspace's record and typed only there, by a write with a secret. Over MCP a client that declares URL elicitation opens the page for its user and the call waits until the value is in (entered: true), or answers a tool error when the user declines or the link runs out. Any other caller gets entered: false and link: hand the link to your person, then write once they say it is done (a write naming a secret still missing answers 409 with the same link). entered: true at once when the workspace has that key for those hosts already. Each allowed_urls item is a URL or host the server's navigation policy allows; a name the server's catalogue has is a 409.`,
  input: z.strictObject({
    name: z.string().min(1).max(64),
    key: z.string().min(1).max(64),
    allowed_urls: z.array(z.string().min(1).max(300)).min(1).max(10),
    reason: z.string().max(300).default("").describe("Shown to the person."),
  }),
  output: z.object({
    entered: z.boolean(),
    link: z.string().optional().describe("Hand it to your person."),
    expires_in: z.number().int().optional(),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  browser: "none",
  handler: async (ctx, input) => {
    if (!ctx.origin) throw conflict(NO_PAGE);
    const asked = await ctx.services.personSecrets.ask(ctx.workspace, input, ctx.origin);
    if (asked.entered) return { entered: true };
    return {
      entered: false,
      link: asked.url,
      expires_in: Math.max(0, Math.round(asked.until - Date.now() / 1000)),
    };
  },
});
