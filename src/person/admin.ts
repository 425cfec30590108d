// The person's side: POST /admin/workspaces/{key}/answer {text?} ends an ask_human wait, and
// POST /admin/workspaces/{key}/input drives the browser.
import { Elysia } from "elysia";
import { z } from "zod";
import { validate } from "../actions/validate.ts";
import { adminGuard, onWorkspaceRoute, requireWorkspace } from "../admin/guard.ts";
import { conflict } from "../errors.ts";
import { json, readJson } from "../http/json.ts";
import type { Services } from "../services.ts";
import { invoke } from "../workspaces/invoke.ts";
import { inputArgs, personAction, readInput } from "./input.ts";
import { answer, waitingOn } from "./waits.ts";

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
        // A workspace with no record may ask too: its question is what makes it answerable.
        const key = waitingOn(params.key) ? params.key : await requireWorkspace(services, params.key);
        const body = validate(Answer, await readJson(request));
        if (!answer(key, body.text)) throw conflict(`workspace ${key} is not waiting on a question`);
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
