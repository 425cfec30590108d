// The person's side of ask_human: POST /admin/workspaces/{key}/answer {text?} ends the wait.
import { Elysia } from "elysia";
import { z } from "zod";
import { validate } from "../actions/validate.ts";
import { guarded, requireWorkspace } from "../admin/guard.ts";
import { conflict } from "../errors.ts";
import { json, readJson } from "../http/json.ts";
import type { Services } from "../services.ts";
import { answer } from "./waits.ts";

const Answer = z.strictObject({
  text: z.string().max(2000).default("").describe("The answer the agent gets (may be empty: done)."),
});

type Ctx = { request: Request; params: { key: string } };

export function personRoutes(services: Services) {
  return new Elysia({ name: "admin-person" }).post(
    "/admin/workspaces/:key/answer",
    guarded(services, async ({ request, params }: Ctx) => {
      const key = await requireWorkspace(services, params.key);
      const body = validate(Answer, await readJson(request));
      if (!answer(key, body.text)) throw conflict(`workspace ${key} is not waiting on a question`);
      return json({ answered: true });
    }),
  );
}
