// The flows capability as the actions, resources and admin routes see it: the folders, the tools a
// step may call, and each flow read and checked.

import { parse } from "yaml";
import type { AnyAction } from "../actions/action.ts";
import type { Config } from "../config/schema.ts";
import { badInput, messageOf, notFound } from "../errors.ts";
import { parseFlow } from "./format.ts";
import type { ParsedFlow } from "./lines.ts";
import type { Flow, FlowParam } from "./schema.ts";
import {
  checkFlowName,
  FLOWS_OFF,
  type FlowEntry,
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

/** A flow file read and checked, kept while the file is the same (path, modification time, size). */
interface Checked {
  size: number;
  modified: number;
  bytes: number;
  parsed: ParsedFlow | null;
  error: unknown;
  summary: Omit<FlowSummary, "name" | "source" | "uri">;
}

// What the cache of checked flows may hold: this many files and this much YAML, the oldest go first.
const CACHE_FILES = 500;
const CACHE_BYTES = 32 * 1024 * 1024;

export class Flows {
  readonly store: FlowStore;
  readonly tools: StepTools;
  private readonly checked = new Map<string, Checked>();
  private cachedBytes = 0;

  /** `table`: the action table (registry.ts, handed in by the composition root). */
  constructor(config: Config, table: () => readonly AnyAction[]) {
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
    return { file, parsed: this.check(file) };
  }

  /** The flow a file holds, read and checked; its refusal when it does not check. Cached per file. */
  check(file: FlowFile): ParsedFlow {
    const c = this.checkedOf(file);
    if (c.parsed) return c.parsed;
    throw c.error;
  }

  summaries(workspace: string): FlowSummary[] {
    return this.store.list(workspace).map((entry) => {
      const base = { name: entry.name, source: entry.source, uri: flowUri(entry.name) };
      // An unchanged file is not read again, let alone parsed.
      let c = this.cachedFor(entry);
      if (!c) {
        const file = this.store.read(workspace, entry.name);
        if (!file)
          return { ...base, description: "", params: {}, steps: 0, tools: [], problem: "it is gone" };
        c = this.checkedOf(file);
      }
      return c.parsed ? { ...base, ...c.summary } : { ...base, ...c.summary, problem: messageOf(c.error) };
    });
  }

  private cachedFor(entry: FlowEntry): Checked | null {
    const c = this.checked.get(entry.path);
    return c && c.size === entry.size && c.modified === entry.modified ? c : null;
  }

  private checkedOf(file: FlowFile): Checked {
    const hit = this.cachedFor(file);
    if (hit) {
      // Most recently used last: the oldest is what goes first.
      this.checked.delete(file.path);
      this.checked.set(file.path, hit);
      return hit;
    }
    let c: Checked;
    const bytes = file.text.length;
    try {
      const parsed = parseFlow(file.text, this.tools);
      c = {
        size: file.size,
        modified: file.modified,
        bytes,
        parsed,
        error: null,
        summary: summary(parsed.flow),
      };
    } catch (err) {
      c = {
        size: file.size,
        modified: file.modified,
        bytes,
        parsed: null,
        error: err,
        summary: looseSummary(file.text),
      };
    }
    this.remember(file.path, c);
    return c;
  }

  private remember(path: string, c: Checked): void {
    const old = this.checked.get(path);
    if (old) {
      this.cachedBytes -= old.bytes;
      this.checked.delete(path);
    }
    this.checked.set(path, c);
    this.cachedBytes += c.bytes;
    for (const [p, e] of this.checked) {
      if (this.checked.size <= CACHE_FILES && this.cachedBytes <= CACHE_BYTES) break;
      this.checked.delete(p);
      this.cachedBytes -= e.bytes;
    }
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
    // Linear and alias-free, like the flow's own check: this file may be anything.
    const doc = parse(text, { uniqueKeys: false, maxAliasCount: 0 }) as { description?: unknown } | null;
    if (typeof doc?.description === "string") description = doc.description;
  } catch {
    // not YAML at all
  }
  return { description, params: {}, steps: 0, tools: [] };
}
