// Where flows live: DATA_DIR/sessions/<workspace>/flows/<flow>.yaml for a workspace's own, and
// flows.dir for flows every workspace sees (read-only here). A workspace's own flow wins a name
// clash. Files are read on every call, so a flow copied into either folder is seen at once.
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { badInput, notFound } from "../errors.ts";
import { isWorkspaceName } from "../kit/names.ts";

export type FlowSource = "workspace" | "global";

export interface FlowEntry {
  name: string;
  source: FlowSource;
  path: string;
  size: number;
  /** Epoch seconds. */
  modified: number;
}

export interface FlowFile extends FlowEntry {
  text: string;
}

const FLOW_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const FLOW_FILE = /^(.+)\.ya?ml$/;

export const FLOWS_OFF =
  "flows are off: this server has no data directory. Set data.dir (DATA_DIR) to keep each workspace's flows, or flows.dir (FLOWS_DIR) for flows every workspace sees";
export const SAVING_OFF =
  "flows cannot be saved or deleted here: this server has no data directory. Set data.dir (DATA_DIR) to keep each workspace's flows";

/** The reason a flow name is refused, or null when it is fine. */
export function flowNameProblem(name: string): string | null {
  if (!FLOW_NAME.test(name) || name.includes("..") || name.endsWith(".")) {
    return "a flow name is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit";
  }
  if (/\.ya?ml$/i.test(name)) return "leave .yaml off a flow's name";
  return null;
}

export function checkFlowName(name: string): string {
  const problem = flowNameProblem(name);
  if (problem) throw badInput(`invalid flow name: ${problem}`, "name");
  return name;
}

export const listedAt = "GET /flows or workspace://flows lists them";

export const flowUri = (name: string) => `workspace://flows/${name}`;

export class FlowStore {
  constructor(
    private readonly dataDir: string | null,
    private readonly globalDir: string | null,
  ) {}

  /** Whether workspaces can save flows (a data directory is set). */
  get canSave(): boolean {
    return this.dataDir !== null;
  }

  /** Whether there can be any flow at all. */
  get enabled(): boolean {
    return this.dataDir !== null || this.globalDir !== null;
  }

  private ownDir(workspace: string): string | null {
    if (!this.dataDir || !isWorkspaceName(workspace)) return null;
    return join(this.dataDir, "sessions", workspace, "flows");
  }

  private entries(dir: string | null, source: FlowSource): FlowEntry[] {
    if (!dir || !existsSync(dir)) return [];
    const out = new Map<string, FlowEntry>();
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return [];
    }
    for (const file of names) {
      const m = FLOW_FILE.exec(file);
      const name = m?.[1];
      if (!name || flowNameProblem(name) || out.has(name)) continue;
      // A workspace's flows are always .yaml; a shared folder may hold .yml too (.yaml wins).
      if (source === "workspace" && !file.endsWith(".yaml")) continue;
      const path = join(dir, file);
      try {
        // lstat: a symlink in a flows folder is not a flow, whatever it points at.
        const st = lstatSync(path);
        if (!st.isFile()) continue;
        out.set(name, { name, source, path, size: st.size, modified: st.mtimeMs / 1000 });
      } catch {
        // gone between the listing and the stat
      }
    }
    return [...out.values()];
  }

  /** The workspace's flows and the global ones it does not shadow, by name. */
  list(workspace: string): FlowEntry[] {
    const own = this.entries(this.ownDir(workspace), "workspace");
    const names = new Set(own.map((e) => e.name));
    const shared = this.entries(this.globalDir, "global").filter((e) => !names.has(e.name));
    return [...own, ...shared].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The flow a name runs in this workspace: its own, else the global one; null when neither. */
  read(workspace: string, name: string): FlowFile | null {
    if (flowNameProblem(name)) return null;
    for (const [dir, source] of [
      [this.ownDir(workspace), "workspace"],
      [this.globalDir, "global"],
    ] as const) {
      if (!dir) continue;
      for (const ext of source === "workspace" ? [".yaml"] : [".yaml", ".yml"]) {
        const path = join(dir, `${name}${ext}`);
        try {
          // O_NOFOLLOW: a symlink in a flows folder is not read through.
          const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
          try {
            const st = fstatSync(fd);
            if (!st.isFile()) continue;
            const text = readFileSync(fd, "utf8");
            return { name, source, path, size: st.size, modified: st.mtimeMs / 1000, text };
          } finally {
            closeSync(fd);
          }
        } catch {
          // not here
        }
      }
    }
    return null;
  }

  /** Writes the workspace's flow (atomically: a reader sees the old file or the new one). */
  save(workspace: string, name: string, text: string): { replaced: boolean } {
    checkFlowName(name);
    const dir = this.ownDir(workspace);
    if (!dir) throw badInput(SAVING_OFF, "data.dir");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `${name}.yaml`);
    const replaced = existsSync(path);
    const tmp = join(dir, `.${name}.yaml.${process.pid}.${Date.now()}.tmp`);
    writeFileSync(tmp, text, { encoding: "utf8", mode: 0o600 });
    renameSync(tmp, path);
    return { replaced };
  }

  /** Deletes the workspace's own flow; a global flow of that name, if any, is what it runs then. */
  remove(workspace: string, name: string): { global: boolean } {
    checkFlowName(name);
    const dir = this.ownDir(workspace);
    if (!dir) throw badInput(SAVING_OFF, "data.dir");
    const path = join(dir, `${name}.yaml`);
    const global = this.entries(this.globalDir, "global").some((e) => e.name === name);
    if (!existsSync(path)) {
      if (global) {
        throw badInput(
          `flow ${name} is a global flow (from flows.dir): it cannot be deleted from a workspace; save one of the same name to shadow it`,
          "name",
        );
      }
      throw notFound(`no flow ${name}: ${listedAt}`);
    }
    rmSync(path, { force: true });
    return { global };
  }

  /** Changes when any flow this workspace sees is added, changed or removed. */
  rev(workspace: string): string {
    const h = createHash("sha1");
    for (const e of this.list(workspace)) h.update(`${e.source}:${e.name}:${e.size}:${e.modified}\n`);
    return h.digest("hex").slice(0, 16);
  }
}
