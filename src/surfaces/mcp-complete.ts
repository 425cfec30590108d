// MCP completion/complete: the values a resource template's variable or a prompt's argument can
// take in this workspace (site names, flow names, file folders and names, secret names), read from
// the resources that list them, those starting with what was typed first.
import type { CompleteRequest, CompleteResult } from "@modelcontextprotocol/sdk/types.js";
import { isTemplate } from "../actions/resource.ts";
import { badInput } from "../errors.ts";
import { RESOURCES } from "../registry.ts";
import type { Services } from "../services.ts";
import { isPrompt } from "./mcp-prompts.ts";

/** MCP's most values in one answer. */
const MAX_VALUES = 100;

type Source = (services: Services, workspace: string) => Promise<string[]>;

/** The prompts' arguments that have values to offer, by prompt and argument. */
const PROMPT_ARGS: Record<string, Record<string, Source>> = {
  sign_in: { secret: async (services) => services.secrets.list().map((s) => s.name) },
  make_flow: { name: (services, workspace) => namesUnder(services, workspace, "workspace://flows") },
};

/** The entries a list resource names one level below it: each uri's last segment, decoded. */
async function namesUnder(services: Services, workspace: string, list: string): Promise<string[]> {
  const def = RESOURCES.find((r) => r.uri === list);
  if (!def) return [];
  const out = await Promise.resolve(def.read(services, workspace, {}))
    .then((r) => services.redactor.redactDeep(r))
    .catch(() => null);
  const names = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === "object") {
      const uri = (v as { uri?: unknown }).uri;
      if (typeof uri === "string" && uri.startsWith(`${list}/`)) {
        const rest = uri.slice(list.length + 1);
        if (rest && !rest.includes("/")) {
          try {
            names.add(decodeURIComponent(rest));
          } catch {
            // not one of ours
          }
        }
      }
      for (const x of Object.values(v)) walk(x);
    }
  };
  walk(out);
  return [...names];
}

/** The source of a template's variable: the list resource its uri sits under (`…/{name}`). */
function templateSource(uri: string, argument: string): Source | null {
  const def = RESOURCES.find((r) => r.uri === uri && isTemplate(r));
  if (!def) throw badInput(`no resource template ${uri}: resources/templates/list names them`, "ref");
  const m = /^(.*)\/\{([^}]+)\}$/.exec(def.uri);
  if (!m || m[2] !== argument) return null;
  const list = m[1] as string;
  return (services, workspace) => namesUnder(services, workspace, list);
}

/** What completion/complete answers for this workspace. */
export async function complete(
  services: Services,
  workspace: string,
  params: CompleteRequest["params"],
): Promise<CompleteResult> {
  const { ref, argument } = params;
  let source: Source | null;
  if (ref.type === "ref/prompt") {
    const args = PROMPT_ARGS[ref.name];
    if (!isPrompt(ref.name)) throw badInput(`no prompt ${ref.name}: prompts/list names them`, "ref");
    source = args?.[argument.name] ?? null;
  } else source = templateSource(ref.uri, argument.name);
  const all = source ? await source(services, workspace) : [];
  const typed = argument.value.toLowerCase();
  const starts = all.filter((v) => v.toLowerCase().startsWith(typed)).sort();
  const within = all
    .filter((v) => !v.toLowerCase().startsWith(typed) && v.toLowerCase().includes(typed))
    .sort();
  const values = [...starts, ...within];
  return {
    completion: {
      values: values.slice(0, MAX_VALUES),
      total: values.length,
      hasMore: values.length > MAX_VALUES,
    },
  };
}
