// The settings table: every setting once, with its env name, flags, type, default and description.
// config.ts layers values onto it (config-values.ts parses them); --help and GET /admin/settings are
// generated from it.

export interface SecretEntry {
  description?: string;
  allowed_urls?: string[];
  keys: Record<string, { value: string }>;
}

export type LogLevel = "debug" | "info" | "warn" | "error";
export type WatchMode = "auto" | "events" | "poll";

export interface Config {
  grid: { url: string; open_timeout: number; command_timeout: number };
  auth: { token: string | null };
  http: { host: string; port: number; allowed_hosts: string[] };
  data: { dir: string | null };
  store: { url: string | null };
  session: { ttl: number; lease: number };
  site_data: { tabs: number };
  secrets: { dirs: string[]; entries: Record<string, SecretEntry>; scripts_after_write: "refuse" | "allow" };
  flows: { dir: string | null };
  files: { link_ttl: number };
  recording: { enabled: boolean; dir: string | null; wait: number; watch: WatchMode; poll: number };
  mcp: { max_sessions: number; session_idle: number };
  timeline: { keep: number; screens: boolean };
  log: { level: LogLevel };
}

export function defaultConfig(): Config {
  return {
    grid: { url: "http://127.0.0.1:4444", open_timeout: 60, command_timeout: 60 },
    auth: { token: null },
    http: { host: "127.0.0.1", port: 8766, allowed_hosts: [] },
    data: { dir: null },
    store: { url: null },
    session: { ttl: 86400, lease: 15 },
    site_data: { tabs: 4 },
    secrets: { dirs: [], entries: {}, scripts_after_write: "refuse" },
    flows: { dir: null },
    files: { link_ttl: 3600 },
    recording: { enabled: false, dir: null, wait: 600, watch: "auto", poll: 1000 },
    mcp: { max_sessions: 500, session_idle: 900 },
    timeline: { keep: 500, screens: false },
    log: { level: "info" },
  };
}

export type Kind =
  | { type: "text" }
  | { type: "url"; schemes: readonly string[]; example: string }
  | { type: "int"; min: number; max?: number; unit: string }
  | { type: "bool" }
  | { type: "choice"; choices: readonly string[] }
  | { type: "list" }
  | { type: "hosts" }
  | { type: "entries" };

export interface Setting {
  /** `section.field` */
  key: string;
  /** null: the config file is the only way to set it */
  env: string | null;
  /** without the leading `--` */
  flags: string[];
  kind: Kind;
  description: string;
  /** Its value is never shown, nor quoted in a message. */
  secret?: boolean;
}

export const SECTIONS: Record<keyof Config, string> = {
  grid: "The Selenium Grid the browsers run on.",
  auth: "Who may call this server.",
  http: "Where REST, MCP over HTTP and the admin pages are served.",
  data: "Where sessions, their flows and files, and recordings live.",
  store: "Where workspace records are kept.",
  session: "How long a workspace is remembered, and held by a call.",
  site_data: "Saving and restoring a workspace's cookies and storage.",
  secrets: "Values agents can type without seeing them.",
  flows: "Flows every workspace sees.",
  files: "Signed links to stored files.",
  recording: "Video of a browser's whole life, from the Grid's recorder.",
  mcp: "MCP sessions over HTTP at /mcp.",
  timeline: "Each workspace's record of its calls, with screens along the way.",
  log: "What the server writes to stderr.",
};

const envOf = (key: string) => key.replace(".", "_").toUpperCase();
const flagOf = (key: string) => key.replace(/[._]/g, "-");

function setting(
  key: string,
  kind: Kind,
  description: string,
  extra: { env?: string | null; flags?: string[]; secret?: boolean } = {},
): Setting {
  return {
    key,
    kind,
    description,
    env: extra.env === undefined ? envOf(key) : extra.env,
    flags: extra.flags ?? [flagOf(key)],
    secret: extra.secret,
  };
}

const seconds = (min: number, max?: number): Kind => ({ type: "int", min, max, unit: "seconds" });

export const SETTINGS: readonly Setting[] = [
  setting(
    "grid.url",
    { type: "url", schemes: ["http:", "https:"], example: "http://127.0.0.1:4444" },
    "The Selenium Grid that runs the browsers.",
  ),
  setting("grid.open_timeout", seconds(5, 600), "Seconds a new browser may wait for a Grid slot."),
  setting(
    "grid.command_timeout",
    seconds(1, 3600),
    "Seconds one WebDriver command may take before the Grid counts as not answering (a page load may take its page_load_timeout).",
  ),
  setting(
    "auth.token",
    { type: "text" },
    "The bearer token every call must send. Required to serve on a non-loopback address.",
    { secret: true },
  ),
  setting("http.host", { type: "text" }, "The address HTTP is served on."),
  setting(
    "http.port",
    { type: "int", min: 0, max: 65535, unit: "a port" },
    "The port HTTP is served on; 0 picks a free one.",
    { env: "PORT", flags: ["http-port", "port"] },
  ),
  setting(
    "http.allowed_hosts",
    { type: "hosts" },
    "Host names (each with an optional :port) this server answers to besides http.host and loopback: the names a reverse proxy forwards. HTTP_ALLOWED_HOSTS separates them with ','.",
  ),
  setting(
    "data.dir",
    { type: "text" },
    "Where sessions and recordings live. Unset turns flows, kept files and recordings off.",
  ),
  setting(
    "store.url",
    { type: "url", schemes: ["redis:", "rediss:"], example: "redis://127.0.0.1:6379/0" },
    "A Redis URL to keep workspace records in, so several servers share them. Unset keeps them in SQLite under data.dir, or in memory without one.",
  ),
  setting("session.ttl", seconds(60), "Seconds a workspace is remembered after its last use."),
  setting(
    "session.lease",
    seconds(2, 600),
    "Seconds a call's hold on its workspace lasts unless renewed (it is, while the call runs): a server that dies mid-call frees its workspaces this long after.",
  ),
  setting(
    "site_data.tabs",
    { type: "int", min: 1, max: 16, unit: "tabs" },
    "The most hidden tabs a save or a restore reads and writes sites' storage in side by side (a tab for every 4 sites).",
  ),
  setting(
    "secrets.dirs",
    { type: "list" },
    "Folders of secrets, one file per secret. SECRETS_DIRS separates them with ':' or ','.",
  ),
  setting(
    "secrets.entries",
    { type: "entries" },
    "Secrets written in the config file: name: {description, allowed_urls, keys: {key: {value}}}.",
    { env: null, flags: [], secret: true },
  ),
  setting(
    "secrets.scripts_after_write",
    { type: "choice", choices: ["refuse", "allow"] },
    "refuse or allow: whether execute_script may run on a page that holds a secret write typed.",
  ),
  setting("flows.dir", { type: "text" }, "A folder of flows every workspace sees."),
  setting("files.link_ttl", seconds(60, 604800), "Seconds a signed file link lives."),
  setting("recording.enabled", { type: "bool" }, "The Grid's recordings reach recording.dir."),
  setting(
    "recording.dir",
    { type: "text" },
    "Where the Grid's recordings arrive. Unset is data.dir/recordings.",
  ),
  setting("recording.wait", seconds(30), "Seconds after a browser ends to wait for its recording."),
  setting(
    "recording.watch",
    { type: "choice", choices: ["auto", "events", "poll"] },
    "auto, events or poll: how recording.dir is watched.",
  ),
  setting(
    "recording.poll",
    { type: "int", min: 200, unit: "milliseconds" },
    "Milliseconds between looks, when polling.",
  ),
  setting(
    "mcp.max_sessions",
    { type: "int", min: 1, max: 100000, unit: "sessions" },
    "MCP sessions held at once; an initialize beyond them is refused with a 503.",
  ),
  setting(
    "mcp.session_idle",
    seconds(1, 86400),
    "Seconds an unused MCP session is kept before it is closed.",
  ),
  setting(
    "timeline.keep",
    { type: "int", min: 0, max: 100000, unit: "entries" },
    "Entries kept per workspace, the newest; 0 keeps no timeline.",
  ),
  setting(
    "timeline.screens",
    { type: "bool" },
    "Keep a small JPEG of the page with each page-changing call (always while someone watches the workspace).",
  ),
  setting(
    "log.level",
    { type: "choice", choices: ["debug", "info", "warn", "error"] },
    "debug, info, warn or error: the least severe line written.",
  ),
];

export const SETTING_BY_KEY: ReadonlyMap<string, Setting> = new Map(SETTINGS.map((s) => [s.key, s]));

type Sections = Record<string, Record<string, unknown>>;

/** The value at `section.field`. */
export function getAt(config: Config, key: string): unknown {
  const [section, field] = key.split(".") as [string, string];
  return (config as unknown as Sections)[section]![field];
}

export function setAt(config: Config, key: string, value: unknown): void {
  const [section, field] = key.split(".") as [string, string];
  (config as unknown as Sections)[section]![field] = value;
}
