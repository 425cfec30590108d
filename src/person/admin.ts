// The person's side: POST /admin/workspaces/{key}/answer {text?} ends an ask_human wait,
// POST /admin/workspaces/{key}/input drives the browser, and /take-over {name?} and /hand-back take
// the browser from the agent and give it back (takeover.ts).
import { Elysia } from "elysia";
import { z } from "zod";
import { validate } from "../actions/validate.ts";
import { type AdminNeeds, adminGuard, onWorkspaceRoute, requireWorkspace } from "../admin/guard.ts";
import { notFound } from "../errors.ts";
import type { Bodies } from "../http/body.ts";
import { json } from "../http/json.ts";
import type { RecordStore } from "../store/types.ts";
import type { CallPipeline } from "../workspaces/pipeline.ts";
import { inputArgs, personAction, readInput } from "./input.ts";
import type { PersonSecrets } from "./secrets.ts";
import { endTakeOver, handBackAction, takeOver } from "./takeover.ts";
import type { Questions } from "./waits.ts";

/** What the person's routes are handed: the pipeline a person's input runs through, the questions. */
export interface PersonNeeds extends AdminNeeds {
  readonly store: Pick<RecordStore, "get" | "keys" | "update">;
  readonly bodies: Pick<Bodies, "takes">;
  readonly workspaces: { readonly calls: Pick<CallPipeline, "invoke"> };
  readonly questions: Pick<Questions, "answer">;
  /** The secrets a person gave a workspace: listed and removed here. */
  readonly personSecrets: Pick<PersonSecrets, "list" | "remove">;
  /** The live view, drawn again at once after a person's input. */
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

const Answer = z.strictObject({
  text: z.string().max(2000).default("").describe("The answer the agent gets (may be empty: done)."),
});

export function personRoutes(services: PersonNeeds) {
  services.bodies.takes("POST", "/admin/workspaces/:key/answer");
  return new Elysia({ name: "admin-person" })
    .use(adminGuard(services))
    .use(inputRoutes(services))
    .use(takeOverRoutes(services))
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
      onWorkspaceRoute(),
    );
}

/** POST /admin/workspaces/{key}/input: one input of a person's, in the workspace's turn. */
export function inputRoutes(services: PersonNeeds) {
  services.bodies.takes("POST", "/admin/workspaces/:key/input");
  return new Elysia({ name: "admin-person-input" }).use(adminGuard(services)).post(
    "/admin/workspaces/:key/input",
    async ({ request, body, params }) => {
      const key = await requireWorkspace(services, params.key);
      const input = readInput(body);
      const result = await services.workspaces.calls.invoke({
        surface: "person",
        workspace: key,
        action: personAction,
        args: inputArgs(input),
        input: { input },
        signal: request.signal,
      });
      services.timeline.live.nudge(key);
      return json(result);
    },
    onWorkspaceRoute(),
  );
}

/** POST /admin/workspaces/{key}/take-over and /hand-back. */
function takeOverRoutes(services: PersonNeeds) {
  services.bodies.takes("POST", "/admin/workspaces/:key/take-over");
  services.bodies.takes("POST", "/admin/workspaces/:key/hand-back");
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
      onWorkspaceRoute(),
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
      onWorkspaceRoute(),
    );
}
