// Settings: defaults < --config-file (YAML) < environment < flags. Every value remembers the layer
// that set it (GET /admin/settings, the boot log). A bad value is a ConfigError naming its key; the
// main program prints it as `selenium-flow: <message>` and exits 2.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYamlText } from "yaml";
import {
  type Config,
  defaultConfig,
  type Parsed,
  parseText,
  parseYaml,
  SECTIONS,
  SETTING_BY_KEY,
  SETTINGS,
  type SecretEntry,
  type Setting,
} from "./config-schema.ts";
import { messageOf, scrub } from "./errors.ts";
import { workspaceNameProblem } from "./names.ts";

export type { Config, SecretEntry, Setting } from "./config-schema.ts";
export { defaultConfig, SETTINGS } from "./config-schema.ts";

export type Source = "default" | "file" | "env" | "flag";

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export interface Cli {
  help: boolean;
  stdio: boolean;
  workspace: string;
  configFile: string | null;
}

export interface Loaded {
  config: Config;
  sources: Record<string, Source>;
  cli: Cli;
}

// The one retired name that is refused rather than ignored: a deployment still setting it would
// otherwise boot with flows quietly off.
export const RETIRED_FLOW =
  "FLOW_DATA_DIR is now DATA_DIR, and session folders live under DATA_DIR/sessions/ — move them there once, then set DATA_DIR";
export const RECORDING_NEEDS_DATA = "recording.enabled needs data.dir: a recording is filed into its session";
const INBOX_DIR = "recordings";
const MASK = "•••";

/** A value not yet parsed, and where it came from for the message when it is bad. */
interface Raw {
  setting: Setting;
  value: unknown;
  origin: string;
}

export function loadConfig(argv: string[], env: Record<string, string | undefined>): Loaded {
  const { cli, flags } = parseArgs(argv);
  const config = defaultConfig();
  const sources: Record<string, Source> = Object.fromEntries(
    SETTINGS.map((s) => [s.key, "default" as Source]),
  );
  if (cli.help) return { config, sources, cli };

  if (Object.entries(env).some(([k, v]) => k.toLowerCase() === "flow_data_dir" && v?.trim())) {
    throw new ConfigError(RETIRED_FLOW);
  }
  const file = cli.configFile === null ? [] : fileLayer(readConfigFile(cli.configFile), cli.configFile);
  const fromEnv: Raw[] = [];
  for (const s of SETTINGS) {
    const value = s.env === null ? undefined : env[s.env];
    if (value !== undefined) fromEnv.push({ setting: s, value, origin: s.env! });
  }

  apply(config, sources, file, "file");
  apply(config, sources, fromEnv, "env");
  apply(config, sources, flags, "flag");

  const problem = configProblem(config) ?? (cli.stdio ? null : hostProblem(config));
  if (problem) throw new ConfigError(problem);
  return { config, sources, cli };
}

/** Cross-setting checks, run after every layer merges and again for configs built in code. */
export function configProblem(config: Config): string | null {
  if (config.recording.enabled && !config.data.dir?.trim()) return RECORDING_NEEDS_DATA;
  return null;
}

/** Serving HTTP on an address others can reach needs a token. */
export function hostProblem(config: Config): string | null {
  if (config.auth.token || isLoopback(config.http.host)) return null;
  return `http.host ${config.http.host} is not loopback: set auth.token (AUTH_TOKEN) before serving on it`;
}

/** 127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) and localhost. */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase();
  if (h === "localhost") return true;
  const bracketed = h.includes(":") && !h.startsWith("[") ? `[${h}]` : h;
  if (!URL.canParse(`http://${bracketed}/`)) return false;
  const name = new URL(`http://${bracketed}/`).hostname; // normalizes 127.1, 0:0:0:0:0:0:0:1, …
  return (
    /^127\.\d+\.\d+\.\d+$/.test(name) ||
    name === "[::1]" ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(name)
  );
}

/** The recordings inbox: recording.dir, else data.dir/recordings, else none. */
export function recordingDir(config: Config): string | null {
  const dir = config.recording.dir?.trim();
  if (dir) return dir;
  const data = config.data.dir?.trim();
  if (data) return join(data, INBOX_DIR);
  return null;
}

/** The effective settings as an admin may see them: secrets masked, URLs without credentials. */
export function settingsView(
  loaded: Loaded,
): Array<{ key: string; value: unknown; source: Source; description: string }> {
  return SETTINGS.map((s) => ({
    key: s.key,
    value: shown(s, getAt(loaded.config, s.key)),
    source: loaded.sources[s.key] ?? "default",
    description: s.description,
  }));
}

function shown(s: Setting, value: unknown): unknown {
  if (s.kind.type === "entries") {
    return Object.fromEntries(
      Object.entries(value as Record<string, SecretEntry>).map(([name, e]) => [
        name,
        {
          description: e.description ?? "",
          allowed_urls: [...(e.allowed_urls ?? [])],
          keys: Object.keys(e.keys),
        },
      ]),
    );
  }
  if (s.secret) return value ? MASK : null;
  if (s.kind.type === "url" && typeof value === "string") return withoutCredentials(value);
  return Array.isArray(value) ? [...value] : value;
}

/** The URL without `user:pass@`; unchanged when it has none. */
export function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return scrub(url);
  const u = new URL(url);
  if (!u.username && !u.password) return url;
  u.username = "";
  u.password = "";
  return u.href;
}

export function helpText(): string {
  const lines = [
    "selenium-flow: lets AI agents drive real browsers on a Selenium Grid over MCP and REST.",
    "",
    "Usage:",
    "  selenium-flow [flags]                      serve REST, MCP at /mcp and the admin pages over HTTP",
    "  selenium-flow --stdio [--workspace NAME]   serve MCP over stdin and stdout",
    "",
    "Flags:",
    "  -h, --help            Show this help and exit.",
    "  --stdio               Serve MCP over stdin and stdout instead of HTTP.",
    "  --workspace NAME      The workspace a --stdio server acts in (default stdio).",
    "  --config-file PATH    Read settings from a YAML file with sections as keys (data:, recording:, ...).",
    "  --<section>-<field> VALUE (or =VALUE) sets any setting below, e.g. --grid-url, --data-dir.",
    "",
    "Settings: defaults < --config-file < environment < flags. A blank value is not a setting;",
    "environment names that are not settings are ignored.",
  ];
  const defaults = defaultConfig();
  for (const [section, about] of Object.entries(SECTIONS)) {
    lines.push("", `${section}: ${about}`);
    for (const s of SETTINGS.filter((x) => x.key.startsWith(`${section}.`))) {
      const ways = [
        s.env ? `env ${s.env}` : "config file only",
        ...s.flags.map((f) => `--${f}`),
        `default ${defaultText(getAt(defaults, s.key))}`,
      ];
      const values = valuesText(s);
      lines.push(`  ${s.key}  (${ways.join(", ")}${values ? `; ${values}` : ""})`, `      ${s.description}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function defaultText(value: unknown): string {
  if (value === null) return "unset";
  if (Array.isArray(value)) return value.length ? value.join(",") : "none";
  if (typeof value === "object") return "none";
  return String(value);
}

function valuesText(s: Setting): string {
  const k = s.kind;
  if (k.type === "int") return k.max === undefined ? `${k.min} or more` : `${k.min} to ${k.max}`;
  if (k.type === "choice") return k.choices.join(" | ");
  if (k.type === "bool") return "true | false";
  return "";
}

// --- the layers --------------------------------------------------------------------------------

const FLAG_SETTING: ReadonlyMap<string, Setting> = new Map(
  SETTINGS.flatMap((s) => s.flags.map((f) => [f, s] as const)),
);

function parseArgs(argv: string[]): { cli: Cli; flags: Raw[] } {
  const cli: Cli = { help: false, stdio: false, workspace: "stdio", configFile: null };
  const flags: Raw[] = [];
  // --help wins over any other mistake on the line, so the first problem waits for the end.
  let first: string | null = null;
  const fail = (message: string) => {
    first ??= message;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-h" || arg === "--help") return { cli: { ...cli, help: true }, flags: [] };
    if (!arg.startsWith("--") || arg === "--") {
      fail(`unexpected argument ${arg}: every setting is a --flag (see --help)`);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = (eq < 0 ? arg : arg.slice(0, eq)).slice(2);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    if (name === "stdio" || name === "help") {
      if (inline !== undefined) fail(`--${name} takes no value`);
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
  if (first) throw new ConfigError(first);
  return { cli, flags };
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function readConfigFile(path: string): Record<string, unknown> {
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
  if (!isMap(doc)) {
    throw new ConfigError(
      `the config file ${path} must be a mapping of sections (${Object.keys(SECTIONS).join(", ")})`,
    );
  }
  return doc;
}

function fileLayer(doc: Record<string, unknown>, path: string): Raw[] {
  if ("flow" in doc) throw new ConfigError(RETIRED_FLOW);
  const origin = `the config file ${path}`;
  const raws: Raw[] = [];
  for (const [section, body] of Object.entries(doc)) {
    if (!(section in SECTIONS)) {
      throw new ConfigError(
        `${origin} has an unknown section ${section}: the sections are ${Object.keys(SECTIONS).join(", ")}`,
      );
    }
    const fields = SETTINGS.filter((s) => s.key.startsWith(`${section}.`)).map((s) => s.key.split(".")[1]);
    if (body === null || body === undefined) continue;
    if (!isMap(body)) {
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

function apply(config: Config, sources: Record<string, Source>, raws: Raw[], layer: Source): void {
  for (const raw of raws) {
    const parsed: Parsed =
      layer === "file" ? parseYaml(raw.setting, raw.value) : parseText(raw.setting, String(raw.value));
    if (parsed === undefined) continue;
    if ("problem" in parsed) throw new ConfigError(`${parsed.problem} ${given(raw)}`);
    setAt(config, raw.setting.key, parsed.value);
    sources[raw.setting.key] = layer;
  }
}

/** Where a bad value came from, quoting it only when it is neither secret nor a URL. */
function given(raw: Raw): string {
  const quotable =
    !raw.setting.secret && raw.setting.kind.type !== "url" && raw.setting.kind.type !== "entries";
  if (!quotable) return `(from ${raw.origin})`;
  let text = JSON.stringify(raw.value) ?? String(raw.value);
  if (text.length > 60) text = `${text.slice(0, 57)}...`;
  return `(from ${raw.origin}: ${scrub(text)})`;
}

type Sections = Record<string, Record<string, unknown>>;

function getAt(config: Config, key: string): unknown {
  const [section, field] = key.split(".") as [string, string];
  return (config as unknown as Sections)[section]![field];
}

function setAt(config: Config, key: string, value: unknown): void {
  const [section, field] = key.split(".") as [string, string];
  (config as unknown as Sections)[section]![field] = value;
}
