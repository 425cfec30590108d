// The layers a setting can come from besides its default: command-line flags and the YAML config
// file (the environment is a plain lookup in load.ts), each read into raw values not yet parsed.
import { readFileSync } from "node:fs";
import { parse as parseYamlText } from "yaml";
import { messageOf } from "../errors.ts";
import { isObject } from "../kit/json.ts";
import { workspaceNameProblem } from "../kit/names.ts";
import { type Config, SECTIONS, SETTING_BY_KEY, SETTINGS, type Setting } from "./schema.ts";

export type Source = "default" | "file" | "env" | "flag";

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export interface Cli {
  help: boolean;
  version: boolean;
  stdio: boolean;
  workspace: string;
  configFile: string | null;
}

export interface Loaded {
  config: Config;
  sources: Record<string, Source>;
  cli: Cli;
}

/** A value not yet parsed, and where it came from for the message when it is bad. */
export interface Raw {
  setting: Setting;
  value: unknown;
  origin: string;
}

const FLAG_SETTING: ReadonlyMap<string, Setting> = new Map(
  SETTINGS.flatMap((s) => s.flags.map((f) => [f, s] as const)),
);

export function parseArgs(argv: string[]): { cli: Cli; flags: Raw[] } {
  const cli: Cli = { help: false, version: false, stdio: false, workspace: "stdio", configFile: null };
  const flags: Raw[] = [];
  // --help (then --version) wins over any other mistake on the line, so the first problem waits for the end.
  let first: string | null = null;
  const fail = (message: string) => {
    first ??= message;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-h" || arg === "--help") return { cli: { ...cli, help: true }, flags: [] };
    if (arg === "-v") {
      cli.version = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") {
      fail(`unexpected argument ${arg}: every setting is a --flag (see --help)`);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = (eq < 0 ? arg : arg.slice(0, eq)).slice(2);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    if (name === "stdio" || name === "help" || name === "version") {
      if (inline !== undefined) fail(`--${name} takes no value`);
      else if (name === "version") cli.version = true;
      else cli.stdio = true;
      continue;
    }
    const setting = FLAG_SETTING.get(name);
    if (!setting && name !== "workspace" && name !== "config-file") {
      fail(`unknown flag --${name}: see --help for the flags`);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      if (setting?.kind.type === "bool" && (next === undefined || next.startsWith("-"))) value = "true";
      else if (next === undefined || next.startsWith("--")) {
        fail(`--${name} needs a value`);
        continue;
      } else {
        value = next;
        i++;
      }
    }
    if (name === "workspace") {
      const problem = workspaceNameProblem(value.trim());
      if (problem) fail(`--workspace ${value}: ${problem}`);
      else cli.workspace = value.trim();
    } else if (name === "config-file") {
      if (value.trim()) cli.configFile = value.trim();
      else fail("--config-file needs the path of a YAML file");
    } else {
      flags.push({ setting: setting!, value, origin: `--${name}` });
    }
  }
  if (cli.version) return { cli, flags: [] };
  if (first) throw new ConfigError(first);
  return { cli, flags };
}

export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "does not exist"
        : code === "EACCES"
          ? "is not readable by this server"
          : code === "EISDIR"
            ? "is a folder"
            : `cannot be read (${code ?? messageOf(err)})`;
    throw new ConfigError(`the config file ${path} ${why}: give --config-file a readable YAML file`);
  }
  let doc: unknown;
  try {
    doc = parseYamlText(text, { logLevel: "error" });
  } catch (err) {
    // Only the first line: the rest quotes the file, which may hold a token or a secret.
    const where = messageOf(err).split("\n")[0]!.replace(/:$/, "");
    throw new ConfigError(`the config file ${path} is not valid YAML: ${where}`);
  }
  if (doc === null || doc === undefined) return {};
  if (!isObject(doc)) {
    throw new ConfigError(
      `the config file ${path} must be a mapping of sections (${Object.keys(SECTIONS).join(", ")})`,
    );
  }
  return doc;
}

export function fileLayer(doc: Record<string, unknown>, path: string): Raw[] {
  const origin = `the config file ${path}`;
  const raws: Raw[] = [];
  for (const [section, body] of Object.entries(doc)) {
    if (!Object.hasOwn(SECTIONS, section)) {
      throw new ConfigError(
        `${origin} has an unknown section ${section}: the sections are ${Object.keys(SECTIONS).join(", ")}`,
      );
    }
    const fields = SETTINGS.filter((s) => s.key.startsWith(`${section}.`)).map((s) => s.key.split(".")[1]);
    if (body === null || body === undefined) continue;
    if (!isObject(body)) {
      throw new ConfigError(
        `${section} in ${origin} must be a mapping of its settings (${fields.join(", ")})`,
      );
    }
    for (const [field, value] of Object.entries(body)) {
      const setting = SETTING_BY_KEY.get(`${section}.${field}`);
      if (!setting) {
        throw new ConfigError(
          `${section}.${field} in ${origin} is not a setting: ${section} takes ${fields.join(", ")}`,
        );
      }
      raws.push({ setting, value, origin });
    }
  }
  return raws;
}
