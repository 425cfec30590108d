// The flows capability as the actions, resources and admin routes see it: the folders, the tools a
// step may call, and each flow read and checked.

import { parse } from "yaml";
import type { AnyAction } from "../actions/define.ts";
import { ACTIONS } from "../actions/index.ts";
import type { Config } from "../config.ts";
import { badInput, messageOf, notFound } from "../errors.ts";
import { type Flow, type FlowParam, GUIDE_URI, type ParsedFlow, parseFlow } from "./format.ts";
import {
  checkFlowName,
  FLOWS_OFF,
  type FlowFile,
  type FlowSource,
  FlowStore,
  flowUri,
  listedAt,
} from "./store.ts";
import { StepTools } from "./tools.ts";

export interface FlowSummary {
  name: string;
  source: FlowSource;
  description: string;
  params: Record<string, FlowParam>;
  /** How many steps it has, and the tool each calls. */
  steps: number;
  tools: string[];
  uri: string;
  /** Why it cannot run as written (a file changed by hand, a tool that is gone). */
  problem?: string;
}

export class Flows {
  readonly store: FlowStore;
  readonly tools: StepTools;

  constructor(config: Config, table: () => readonly AnyAction[] = () => ACTIONS) {
    this.store = new FlowStore(config.data.dir, config.flows.dir);
    this.tools = new StepTools(table);
  }

  /** 400 naming data.dir when this server has nowhere to keep or find flows. */
  requireEnabled(): void {
    if (!this.store.enabled) throw badInput(FLOWS_OFF, "data.dir");
  }

  /** The flow a name runs in this workspace, read and checked; 404 when there is none. */
  load(workspace: string, name: string): { file: FlowFile; parsed: ParsedFlow } {
    this.requireEnabled();
    checkFlowName(name);
    const file = this.store.read(workspace, name);
    if (!file) throw notFound(`no flow ${name}: ${listedAt}`);
    return { file, parsed: parseFlow(file.text, this.tools) };
  }

  summaries(workspace: string): FlowSummary[] {
    return this.store.list(workspace).map((entry) => {
      const file = this.store.read(workspace, entry.name);
      const base = { name: entry.name, source: entry.source, uri: flowUri(entry.name) };
      if (!file) return { ...base, description: "", params: {}, steps: 0, tools: [], problem: "it is gone" };
      try {
        return { ...base, ...summary(parseFlow(file.text, this.tools).flow) };
      } catch (err) {
        const raw = looseSummary(file.text);
        return { ...base, ...raw, problem: messageOf(err) };
      }
    });
  }
}

function summary(flow: Flow): Omit<FlowSummary, "name" | "source" | "uri"> {
  return {
    description: flow.description,
    params: flow.params,
    steps: flow.steps.length,
    tools: flow.steps.map((s) => s.tool),
  };
}

/** What can be said of a flow that does not check: its description, if it has one. */
function looseSummary(text: string): Omit<FlowSummary, "name" | "source" | "uri"> {
  let description = "";
  try {
    const doc = parse(text) as { description?: unknown } | null;
    if (typeof doc?.description === "string") description = doc.description;
  } catch {
    // not YAML at all
  }
  return { description, params: {}, steps: 0, tools: [] };
}

export { GUIDE_URI };
