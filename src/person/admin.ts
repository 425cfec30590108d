// The person's side: POST /admin/workspaces/{key}/answer {text?} ends an ask_human wait, and
// POST /admin/workspaces/{key}/input drives the browser.
import { Elysia } from "elysia";
import { z } from "zod";
import { validate } from "../actions/validate.ts";
import { adminGuard, onWorkspaceRoute, requireWorkspace } from "../admin/guard.ts";
import { json } from "../http/json.ts";
import type { Services } from "../services.ts";
import { inputArgs, personAction, readInput } from "./input.ts";

const Answer = z.strictObject({
  text: z.string().max(2000).default("").describe("The answer the agent gets (may be empty: done)."),
});

export function personRoutes(services: Services) {
  services.bodies.takes("POST", "/admin/workspaces/:key/answer");
  return new Elysia({ name: "admin-person" })
    .use(adminGuard(services))
    .use(inputRoutes(services))
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
export function inputRoutes(services: Services) {
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
