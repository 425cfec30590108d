// The deployment files read the way Docker and Compose read them, for tests that cannot run either
// (no container engine here): the Dockerfile's stages and instructions, the .dockerignore, and a
// compose file with its variables substituted as Compose does. Anything these readers do not know
// is an error, so a new instruction or syntax in the files makes the tests be taught it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export const ROOT = join(import.meta.dir, "..", "..");

export interface Instruction {
  /** Upper case: FROM, RUN, COPY, … */
  op: string;
  /** The rest of the line, continuation lines joined. */
  args: string;
  line: number;
}

export interface Stage {
  image: string;
  name: string | null;
  steps: Instruction[];
}

/** The Dockerfile's stages, each with its instructions (comments and line continuations as Docker reads them). */
export function dockerfileStages(text: string): Stage[] {
  const steps: Instruction[] = [];
  let pending: { text: string; line: number } | null = null;
  text.split("\n").forEach((raw, i) => {
    const trimmed = raw.trim();
    // A comment line, even inside a continuation, is dropped; so is a blank line.
    if (trimmed.startsWith("#") || trimmed === "") return;
    const continued = trimmed.endsWith("\\");
    const part = continued ? trimmed.slice(0, -1) : trimmed;
    pending = pending ? { text: `${pending.text} ${part}`, line: pending.line } : { text: part, line: i + 1 };
    if (continued) return;
    const m = /^(\S+)\s*(.*)$/s.exec(pending.text)!;
    steps.push({ op: m[1]!.toUpperCase(), args: m[2]!.trim(), line: pending.line });
    pending = null;
  });
  if (pending) throw new Error("the Dockerfile ends inside a continued line");
  const stages: Stage[] = [];
  for (const step of steps) {
    if (step.op === "FROM") {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(step.args);
      if (!m) throw new Error(`line ${step.line}: FROM ${step.args} is not read here`);
      stages.push({ image: m[1]!, name: m[2] ?? null, steps: [] });
    } else if (stages.length === 0) {
      if (step.op !== "ARG") throw new Error(`line ${step.line}: ${step.op} before the first FROM`);
    } else stages.at(-1)!.steps.push(step);
  }
  return stages;
}

/** `--flag=value` options in front of an instruction's arguments, and the rest. */
export function flagsOf(args: string): { flags: Record<string, string>; rest: string } {
  const flags: Record<string, string> = {};
  let rest = args;
  for (;;) {
    const m = /^--([a-z-]+)=(\S+)\s+/.exec(rest);
    if (!m) return { flags, rest };
    flags[m[1]!] = m[2]!;
    rest = rest.slice(m[0].length);
  }
}

/** An instruction's words: the JSON (exec) form, or split on white space. */
export function wordsOf(args: string): { words: string[]; json: boolean } {
  if (args.startsWith("[")) return { words: JSON.parse(args) as string[], json: true };
  return { words: args.split(/\s+/).filter(Boolean), json: false };
}

/** ENV's pairs: `ENV A=1 B="two words"`, or the old `ENV A 1`. */
export function envPairs(args: string): Record<string, string> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(args)) {
    const m = /^(\S+)\s+(.*)$/s.exec(args)!;
    return { [m[1]!]: m[2]! };
  }
  const out: Record<string, string> = {};
  for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    out[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
  }
  return out;
}

/**
 * Whether .dockerignore leaves `path` (relative to the context, `/`-separated) out of the build
 * context: a pattern matches the path or one of the folders it is in. Exceptions (`!`) are not read.
 */
export function dockerIgnored(patterns: string[], path: string): boolean {
  const parts = path.split("/");
  return patterns.some((pattern) => {
    const glob = new Bun.Glob(pattern.replace(/^\/+|\/+$/g, ""));
    return parts.some((_, i) => glob.match(parts.slice(0, i + 1).join("/")));
  });
}

export function dockerignorePatterns(): string[] {
  let text = "";
  try {
    text = readFileSync(join(ROOT, ".dockerignore"), "utf8");
  } catch {
    return [];
  }
  const patterns = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const exception = patterns.find((p) => p.startsWith("!"));
  if (exception) throw new Error(`.dockerignore: exceptions (${exception}) are not read here`);
  return patterns;
}

// ---- compose ---------------------------------------------------------------------------------

type Env = Record<string, string | undefined>;

/**
 * One string with its variables substituted as Compose does: `$$` is a `$`, `$VAR` and `${VAR}`
 * (unset: empty), `${VAR:-default}` / `${VAR-default}`, `${VAR:?message}` / `${VAR?message}` (an
 * error with Compose's own words), `${VAR:+other}` / `${VAR+other}`.
 */
export function interpolate(value: string, env: Env): string {
  return value.replace(/\$(?:\$|\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (whole, braced, bare) => {
    if (whole === "$$") return "$";
    if (bare !== undefined) return env[bare] ?? "";
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])(.*))?$/s.exec(braced as string);
    if (!m) throw new Error(`invalid interpolation format for ${whole}`);
    const [, name, op, arg = ""] = m as unknown as [string, string, string | undefined, string?];
    if (arg.includes("${")) throw new Error(`${whole}: nested substitution is not read here`);
    const v = env[name];
    const unset = v === undefined;
    const empty = unset || v === "";
    switch (op) {
      case undefined:
        return v ?? "";
      case ":-":
        return empty ? arg : (v as string);
      case "-":
        return unset ? arg : (v as string);
      case ":?":
      case "?":
        if (op === ":?" ? empty : unset)
          throw new Error(`required variable ${name} is missing a value: ${arg}`);
        return v as string;
      case ":+":
        return empty ? "" : arg;
      default:
        return unset ? "" : arg;
    }
  });
}

function interpolateDeep(value: unknown, env: Env): unknown {
  if (typeof value === "string") return interpolate(value, env);
  if (Array.isArray(value)) return value.map((v) => interpolateDeep(v, env));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateDeep(v, env)]));
  return value;
}

export type Compose = Record<string, any>;

/** A compose file as `docker compose config` would see it: merge keys read, every value substituted. */
export function readCompose(path: string, env: Env): Compose {
  return interpolateDeep(parse(readFileSync(path, "utf8"), { merge: true }), env) as Compose;
}

/** A service's environment as its container gets it (map or list form; a name alone takes the shell's value). */
export function serviceEnv(service: Compose, shell: Env): Record<string, string> {
  if (service.env_file) throw new Error("env_file is not read here");
  const raw = service.environment ?? {};
  const entries: [string, unknown][] = Array.isArray(raw)
    ? raw.map((item: string) => {
        const at = item.indexOf("=");
        return at < 0 ? [item, null] : [item.slice(0, at), item.slice(at + 1)];
      })
    : Object.entries(raw);
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (value === null || value === undefined) {
      if (shell[name] !== undefined) out[name] = shell[name]!;
    } else out[name] = String(value);
  }
  return out;
}
