// save_flow's ways to give a flow, without a browser: a description beside from_timeline names the
// run kept; any other field beside it is still a 400.
import { expect, test } from "bun:test";
import type { ActionContext } from "../../../src/actions/ports.ts";
import { validate } from "../../../src/actions/validate.ts";
import { saveFlowAction } from "../../../src/flows/actions.ts";
import { flowText } from "../../../src/flows/schema.ts";
import { StepTools } from "../../../src/flows/tools.ts";
import { ACTIONS } from "../../../src/registry.ts";

function context() {
  const asked: unknown[] = [];
  const saved: string[] = [];
  const services = {
    flows: {
      tools: new StepTools(() => ACTIONS),
      store: {
        canSave: true,
        save: (_w: string, _name: string, text: string) => {
          saved.push(text);
          return { replaced: false };
        },
      },
    },
    timeline: {
      flowYaml: async (_w: string, pick: unknown, description?: string) => {
        asked.push([pick, description]);
        const steps = [{ tool: "navigate", args: { url: "https://app.example.test/" } }];
        return flowText({ description: description ?? "From the timeline: #4.", steps });
      },
    },
    events: { changed: () => undefined },
  };
  const ctx = { workspace: "w", services } as unknown as ActionContext;
  const save = (args: Record<string, unknown>) =>
    saveFlowAction.handler(ctx, validate(saveFlowAction.input, args) as never);
  return { asked, saved, save };
}

test("a description beside from_timeline names the flow kept", async () => {
  const { asked, saved, save } = context();
  const out = await save({ name: "kept", from_timeline: { last: 2 }, description: "Sign in as Ada." });
  expect(asked).toEqual([[{ last: 2 }, "Sign in as Ada."]]);
  expect(out).toMatchObject({ name: "kept", steps: 1 });
  expect(saved[0]).toStartWith("description: Sign in as Ada.\n");
  await save({ name: "plain", from_timeline: { last: 1 } });
  expect(asked[1]).toEqual([{ last: 1 }, undefined]);
});

test("steps or yaml beside from_timeline are still one way too many", async () => {
  const { save } = context();
  const steps = [{ tool: "navigate", args: { url: "https://app.example.test/" } }];
  await expect(save({ name: "x", from_timeline: { last: 1 }, description: "d", steps })).rejects.toThrow(
    "give the flow one way: from_timeline or its fields (steps), not both",
  );
  await expect(save({ name: "x", from_timeline: { last: 1 }, yaml: "steps: []" })).rejects.toThrow(
    "give the flow one way: yaml or from_timeline, not both",
  );
});
