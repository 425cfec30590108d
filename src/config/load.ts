// Settings: defaults < --config-file (YAML) < environment < flags. Every value remembers the layer
// that set it (GET /admin/settings, the boot log). A bad value is a ConfigError naming its key; the
// main program prints it as `selenium-flow: <message>` and exits 2.
import { join } from "node:path";
import { redactCredentials } from "../errors.ts";
import { type Config, defaultConfig, SETTINGS, setAt } from "./schema.ts";
import {
  ConfigError,
  fileLayer,
  type Loaded,
  parseArgs,
  type Raw,
  readConfigFile,
  type Source,
} from "./sources.ts";
import { type Parsed, parseText, parseYaml } from "./values.ts";

// The one retired name that is refused rather than ignored: a deployment still setting it would
// otherwise boot with flows quietly off.
export const RETIRED_FLOW =
  "FLOW_DATA_DIR is now DATA_DIR, and session folders live under DATA_DIR/sessions/ — move them there once, then set DATA_DIR";

export const RECORDING_NEEDS_DATA = "recording.enabled needs data.dir: a recording is filed into its session";
const INBOX_DIR = "recordings";

export function loadConfig(argv: string[], env: Record<string, string | undefined>): Loaded {
  const { cli, flags } = parseArgs(argv);
  const config = defaultConfig();
  const sources: Record<string, Source> = Object.fromEntries(
    SETTINGS.map((s) => [s.key, "default" as Source]),
  );
  if (cli.help || cli.version) return { config, sources, cli };

  if (Object.entries(env).some(([k, v]) => k.toLowerCase() === "flow_data_dir" && v?.trim())) {
    throw new ConfigError(RETIRED_FLOW);
  }
  const file = cli.configFile === null ? [] : fileLayer(fileDoc(cli.configFile), cli.configFile);
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

/** The config file's mapping, refused whole when it still has the retired flow: section. */
function fileDoc(path: string): Record<string, unknown> {
  const doc = readConfigFile(path);
  if ("flow" in doc) throw new ConfigError(RETIRED_FLOW);
  return doc;
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
  return `(from ${raw.origin}: ${redactCredentials(text)})`;
}
