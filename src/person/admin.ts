// The person's side: POST /admin/workspaces/{key}/answer {text?} ends an ask_human wait,
// POST /admin/workspaces/{key}/input drives the browser, and /take-over {name?} and /hand-back take
// the browser from the agent and give it back (takeover.ts).
import { Elysia } from "elysia";
import { z } from "zod";
import { validate } from "../actions/validate.ts";
import {
  type AdminNeeds,
  adminGuard,
  hasFolder,
  noWorkspace,
  onWorkspaceRoute,
  requireWorkspace,
} from "../admin/guard.ts";
import { badInput, notFound } from "../errors.ts";
import { bodyParser } from "../http/body.ts";
import { json } from "../http/json.ts";
import { isObject } from "../kit/json.ts";
import { isWorkspaceName } from "../kit/names.ts";
import { SERVER_RECORD } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";
import type { CallPipeline } from "../workspaces/pipeline.ts";
import { inputArgs, KINDS, type PersonInput, personAction } from "./input.ts";
import type { PersonSecrets } from "./secrets.ts";
import { endTakeOver, handBackAction, takeOver } from "./takeover.ts";
import type { Questions } from "./waits.ts";

/** What the person's routes are handed: the pipeline a person's input runs through, the questions. */
export interface PersonNeeds extends AdminNeeds {
  readonly store: Pick<RecordStore, "get" | "keys" | "update">;
  readonly workspaces: { readonly calls: Pick<CallPipeline, "invoke"> };
  readonly questions: Pick<Questions, "answer">;
  /** The secrets a person gave a workspace: listed and removed here, entered on its page. */
  readonly personSecrets: Pick<
    PersonSecrets,
    "list" | "remove" | "server" | "forServer" | "find" | "enter" | "decline"
  >;
  /** The live view, drawn again at once after Hand back (after an input, the timeline nudges it). */
  readonly timeline: { readonly live: { nudge(workspace: string): void } };
  readonly events: { changed(workspace: string): void };
  readonly now: () => number;
}

const TakeOver = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .default("a person at the admin UI")
    .describe("Who takes over (the agent's 409 names them)."),
});

/** An admin's secret for every workspace: what the page will ask, as request_secret asks it. */
export const ServerSecret = z.strictObject({
  name: z.string().trim().min(1).max(64),
  key: z.string().trim().min(1).max(64),
  allowed_urls: z.array(z.string().trim().min(1).max(300)).min(1).max(10),
  reason: z.string().max(300).default(""),
});

const Answer = z.strictObject({
  text: z.string().max(2000).default("").describe("The answer the agent gets (may be empty: done)."),
});

export function personRoutes(services: PersonNeeds) {
  return new Elysia({ name: "admin-person" })
    .use(adminGuard(services))
    .use(inputRoutes(services))
    .use(takeOverRoutes(services))
    .use(serverSecretRoutes(services))
    .get(
      "/admin/workspaces/:key/secrets",
      async ({ params }) => {
        const key = await requireWorkspace(services, params.key);
        return json({ secrets: services.personSecrets.list(await services.store.get(key)) });
      },
      onWorkspaceRoute(),
    )
    .delete(
      "/admin/workspaces/:key/secrets/:name",
      async ({ params }) => {
        const key = await requireWorkspace(services, params.key);
        if (!(await services.personSecrets.remove(key, params.name)))
          throw notFound(`workspace ${key} has no secret ${params.name} of its own`);
        return json({ removed: true });
      },
      { admin: true, params: z.object({ key: z.string(), name: z.string() }) },
    )
    .post(
      "/admin/workspaces/:key/answer",
      async ({ body: sent, params }) => {
        // A question is kept in the record (a workspace with none gets one when it asks).
        const key = await requireWorkspace(services, params.key);
        const body = validate(Answer, sent);
        // Answers once the agent's call took it (on whichever server it waits); else 409 or 503.
        await services.questions.answer(key, body.text);
        return json({ answered: true });
      },
      { ...onWorkspaceRoute(), parse: bodyParser() },
    );
}

/** The body as one input: exactly one of click, text, key or scroll, else a 400 saying so. */
export function readInput(raw: unknown): PersonInput {
  const body = isObject(raw) ? raw : {};
  const given = Object.keys(body);
  const kind = given[0] as keyof typeof KINDS;
  if (given.length !== 1 || !Object.hasOwn(KINDS, kind)) {
    throw badInput(
      "send exactly one of click {x, y}, text, key or scroll {x, y, dx, dy}",
      given[1] ?? given[0],
    );
  }
  return validate(z.strictObject({ [kind]: KINDS[kind] }), body) as PersonInput;
}

/**
 * POST /admin/workspaces/{key}/input: one input of a person's, in the workspace's turn. The body is
 * read here, once, against the input's own schema: the pipeline does not validate it again. The
 * workspace is told there by the record its lease reads (a missing one is the 404, refused unrecorded);
 * a bad body's 400 reads it first, so a workspace that is not there is a 404 whatever the body.
 */
export function inputRoutes(services: PersonNeeds) {
  return new Elysia({ name: "admin-person-input" }).use(adminGuard(services)).post(
    "/admin/workspaces/:key/input",
    async ({ request, body, params: { key } }) => {
      let input: PersonInput;
      try {
        input = readInput(body);
      } catch (err) {
        await requireWorkspace(services, key);
        throw err;
      }
      if (!isWorkspaceName(key)) throw noWorkspace(key);
      const result = await services.workspaces.calls.invoke({
        surface: "person",
        workspace: key,
        action: personAction,
        args: inputArgs(input),
        input: { input },
        signal: request.signal,
        missing: () => (hasFolder(services, key) ? null : noWorkspace(key)),
      });
      return json(result);
    },
    { ...onWorkspaceRoute(), parse: bodyParser() },
  );
}

/** POST /admin/workspaces/{key}/take-over and /hand-back. */
function takeOverRoutes(services: PersonNeeds) {
  return new Elysia({ name: "admin-person-take-over" })
    .use(adminGuard(services))
    .post(
      "/admin/workspaces/:key/take-over",
      async ({ body, params }) => {
        const key = await requireWorkspace(services, params.key);
        const t = await takeOver(services.store, key, validate(TakeOver, body ?? {}).name, services.now());
        services.events.changed(key);
        return json({ taken_over: t });
      },
      { ...onWorkspaceRoute(), parse: bodyParser() },
    )
    .post(
      "/admin/workspaces/:key/hand-back",
      async ({ request, params }) => {
        const key = await requireWorkspace(services, params.key);
        const record = await services.store.get(key);
        // In the workspace's turn: the password fields the person filled and did not send go first.
        const { emptied } = record?.session_id
          ? ((await services.workspaces.calls.invoke({
              surface: "person",
              workspace: key,
              action: handBackAction,
              args: {},
              input: {},
              signal: request.signal,
            })) as { emptied: number })
          : { emptied: 0 };
        await endTakeOver(services.store, key);
        services.events.changed(key);
        services.timeline.live.nudge(key);
        return json({ handed_back: true, emptied });
      },
      { ...onWorkspaceRoute(), parse: bodyParser() },
    );
}

/**
 * The server's own secrets, an admin's for every workspace: GET lists them (never a value), POST
 * {name, key, allowed_urls, reason?} answers the one-time link of the page where the admin types the
 * value (/secrets/enter, as a person does), DELETE removes one.
 */
function serverSecretRoutes(services: PersonNeeds) {
  return new Elysia({ name: "admin-server-secrets" })
    .use(adminGuard(services))
    .get(SERVER_SECRETS, async () => json({ secrets: await services.personSecrets.server() }), {
      admin: true,
    })
    .post(
      SERVER_SECRETS,
      async ({ body, request }) => json(await serverLink(services, validate(ServerSecret, body), request)),
      { admin: true, parse: bodyParser() },
    )
    .delete(
      `${SERVER_SECRETS}/:name`,
      async ({ params }) => {
        if (!(await services.personSecrets.remove(SERVER_RECORD, params.name)))
          throw notFound(`the server has no secret ${params.name} an admin entered`);
        return json({ removed: true });
      },
      { admin: true, params: z.object({ name: z.string() }) },
    );
}

export const SERVER_SECRETS = "/admin/secrets/server";

/** The page's link for an admin's server secret, and until when it works. */
export async function serverLink(
  services: Pick<PersonNeeds, "personSecrets">,
  ask: z.output<typeof ServerSecret>,
  request: Request,
): Promise<{ link: string; expires_in: number; allowed_urls: string[] }> {
  const asked = await services.personSecrets.forServer(ask, new URL(request.url).origin);
  if (asked.entered) throw new Error("a server secret is always asked afresh");
  return {
    link: asked.url,
    expires_in: Math.max(0, Math.round(asked.until - Date.now() / 1000)),
    allowed_urls: asked.allowed_urls,
  };
}
