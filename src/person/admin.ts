// The person's side: POST /admin/workspaces/{key}/answer {text?} ends an ask_human wait, and
// POST /admin/workspaces/{key}/input drives the browser.
import { Elysia } from "elysia";
import { z } from "zod";
import { validate } from "../actions/validate.ts";
import { adminGuard, onWorkspaceRoute, requireWorkspace } from "../admin/guard.ts";
import { json, readJson } from "../http/json.ts";
import type { Services } from "../services.ts";
import { invoke } from "../workspaces/invoke.ts";
import { inputArgs, personAction, readInput } from "./input.ts";

const Answer = z.strictObject({
  text: z.string().max(2000).default("").describe("The answer the agent gets (may be empty: done)."),
});

export function personRoutes(services: Services) {
  return new Elysia({ name: "admin-person" })
    .use(adminGuard(services))
    .use(inputRoutes(services))
    .post(
      "/admin/workspaces/:key/answer",
      async ({ request, params }) => {
        // A question is kept in the record (a workspace with none gets one when it asks).
        const key = await requireWorkspace(services, params.key);
        const body = validate(Answer, await readJson(request));
        // Answers once the agent's call took it (on whichever server it waits); else 409 or 503.
        await services.questions.answer(key, body.text);
        return json({ answered: true });
      },
      onWorkspaceRoute(),
    );
}

/** POST /admin/workspaces/{key}/input: one input of a person's, in the workspace's turn. */
export function inputRoutes(services: Services) {
  return new Elysia({ name: "admin-person-input" }).use(adminGuard(services)).post(
    "/admin/workspaces/:key/input",
    async ({ request, params }) => {
      const key = await requireWorkspace(services, params.key);
      const raw = await readJson(request);
      const input = readInput(raw);
      const result = await invoke(services, {
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
