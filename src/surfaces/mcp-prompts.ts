// MCP prompts: the few a user picks from a client's menu. Short: each names the tools to use.
import { badInput } from "../errors.ts";

interface PromptDef {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
  text(args: Record<string, string>): string;
}

const PROMPTS: PromptDef[] = [
  {
    name: "sign_in",
    title: "Sign in and keep the sign-in",
    description: "Sign in to a site, then save the sign-in so every later browser has it.",
    arguments: [
      { name: "url", description: "The sign-in page", required: true },
      {
        name: "secret",
        description: "The secret holding the password (workspace://secrets)",
        required: false,
      },
    ],
    text: (a) =>
      `Open ${a.url} with navigate, then read_page. Sign in with write and interact; type the password with write's secret` +
      (a.secret ? ` ${a.secret}` : " (see workspace://secrets)") +
      ", never as text. Once the page shows you are signed in, call save_site_data.",
  },
  {
    name: "make_flow",
    title: "Turn the last calls into a flow",
    description: "Save the calls you just made as a flow that replays them in one call.",
    arguments: [{ name: "name", description: "The flow's name", required: true }],
    text: (a) =>
      `Save the tool calls you just made, in order and without the failed or exploratory ones, as the flow ${a.name} with save_flow. Make the values that change between runs params. Then run it once with run_flow and check its report.`,
  },
];

/** Whether a prompt of that name is offered. */
export const isPrompt = (name: string) => PROMPTS.some((p) => p.name === name);

/** prompts/list's prompts. */
export function listPrompts() {
  return PROMPTS.map(({ text: _, ...p }) => p);
}

/** prompts/get: the prompt filled in; a 400 for an unknown prompt or a missing argument. */
export function getPrompt(name: string, args: Record<string, string>) {
  const p = PROMPTS.find((x) => x.name === name);
  if (!p) throw badInput(`no prompt ${name}: prompts/list names them`);
  for (const a of p.arguments) {
    if (a.required && !args[a.name]) throw badInput(`"${a.name}" is required for the prompt ${p.name}`);
  }
  return {
    description: p.description,
    messages: [{ role: "user" as const, content: { type: "text" as const, text: p.text(args) } }],
  };
}
