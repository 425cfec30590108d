// The settings table: every setting once, with its env name, flags, type, default and description.
// `Config` and `defaultConfig()` are derived from it; load.ts layers values onto it (values.ts
// parses them); --help and GET /admin/settings are generated from it.

export interface SecretEntry {
  description?: string;
  allowed_urls?: string[];
  /** `value`: typed as written; `totp`: a one-time code from this seed (base32 or otpauth://). */
  keys: Record<string, { value: string } | { totp: string }>;
}

export type Kind =
  | { type: "text" }
  | { type: "url"; schemes: readonly string[]; example: string }
  | { type: "int"; min: number; max?: number; unit: string }
  | { type: "bool" }
  | { type: "choice"; choices: readonly string[] }
  | { type: "list" }
  | { type: "hosts" }
  | { type: "patterns" }
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

/** The value a setting of this kind holds. */
type ValueOf<K extends Kind> = K extends { type: "int" }
  ? number
  : K extends { type: "bool" }
    ? boolean
    : K extends { type: "choice"; choices: readonly (infer C)[] }
      ? C
      : K extends { type: "list" | "hosts" | "patterns" }
        ? string[]
        : K extends { type: "entries" }
          ? Record<string, SecretEntry>
          : string;

/** One setting as the table writes it; `V` is its value's type (nullable when its default is null). */
interface Spec<V> {
  kind: Kind;
  default: V;
  description: string;
  env?: string | null;
  flags?: string[];
  secret?: boolean;
}

function setting<const K extends Kind, D extends ValueOf<K> | null>(
  kind: K,
  fallback: D,
  description: string,
  extra: { env?: string | null; flags?: string[]; secret?: boolean } = {},
): Spec<D extends null ? ValueOf<K> | null : ValueOf<K>> {
  // fallback is a D, which TypeScript cannot match to the conditional type it widens to.
  return { kind, default: fallback as never, description, ...extra };
}

const seconds = (min: number, max?: number) => ({ type: "int", min, max, unit: "seconds" }) as const;

// Each section: what it is for (--help), then its settings in the order --help and the admin list them.
const TABLE = {
  grid: {
    about: "The Selenium Grid the browsers run on.",
    fields: {
      url: setting(
        { type: "url", schemes: ["http:", "https:"], example: "http://127.0.0.1:4444" },
        "http://127.0.0.1:4444",
        "The Selenium Grid that runs the browsers.",
      ),
      open_timeout: setting(seconds(5, 600), 60, "Seconds a new browser may wait for a Grid slot."),
      command_timeout: setting(
        seconds(1, 3600),
        60,
        "Seconds one WebDriver command may take before the Grid counts as not answering (a page load may take its page_load_timeout).",
      ),
      orphan_sweep: setting(
        seconds(0, 86400),
        60,
        "Seconds between looks for browsers this server group opened that no workspace record names (a record lost or expired, an end the Grid never got); each is ended. 0: never (the next open in its workspace still ends it).",
      ),
    },
  },
  auth: {
    about: "Who may call this server.",
    fields: {
      token: setting(
        { type: "text" },
        null,
        "The bearer token every call must send. Required to serve on a non-loopback address.",
        { secret: true },
      ),
      admin_token: setting(
        { type: "text" },
        null,
        "The token of the admin API and pages; when set, auth.token opens only agent routes. Unset: auth.token opens both.",
        { secret: true },
      ),
    },
  },
  http: {
    about: "Where REST, MCP over HTTP and the admin pages are served.",
    fields: {
      host: setting({ type: "text" }, "127.0.0.1", "The address HTTP is served on."),
      port: setting(
        { type: "int", min: 0, max: 65535, unit: "a port" },
        8766,
        "The port HTTP is served on; 0 picks a free one.",
        { env: "PORT", flags: ["http-port", "port"] },
      ),
      allowed_hosts: setting(
        { type: "hosts" },
        [],
        "Host names (each with an optional :port) this server answers to besides http.host and loopback: the names a reverse proxy forwards. HTTP_ALLOWED_HOSTS separates them with ','.",
      ),
    },
  },
  data: {
    about: "Where sessions, their flows and files, and recordings live.",
    fields: {
      dir: setting(
        { type: "text" },
        null,
        "Where sessions and recordings live. Unset turns flows, kept files and recordings off.",
      ),
    },
  },
  store: {
    about: "Where workspace records are kept.",
    fields: {
      url: setting(
        { type: "url", schemes: ["redis:", "rediss:"], example: "redis://127.0.0.1:6379/0" },
        null,
        "A Redis URL to keep workspace records in, so several servers share them. Unset keeps them in SQLite under data.dir, or in memory without one.",
      ),
      key: setting(
        { type: "text" },
        null,
        "Seals saved site data at rest (AES-256-GCM; at least 32 characters). Unset: a key file in data.dir is made on first boot. Required with store.url: every server of a group the same.",
        { secret: true },
      ),
    },
  },
  session: {
    about: "How long a workspace is remembered, and held by a call.",
    fields: {
      ttl: setting(seconds(60), 86400, "Seconds a workspace is remembered after its last use."),
      lease: setting(
        seconds(2, 600),
        15,
        "Seconds a call's hold on its workspace lasts unless renewed (it is, while the call runs): a server that dies mid-call frees its workspaces this long after.",
      ),
    },
  },
  site_data: {
    about: "Saving and restoring a workspace's cookies and storage.",
    fields: {
      tabs: setting(
        { type: "int", min: 1, max: 16, unit: "tabs" },
        4,
        "The most hidden tabs a save or a restore reads and writes sites' storage in side by side (a tab for every 4 pages; in Chrome a page holds up to 8 origins of one site).",
      ),
    },
  },
  secrets: {
    about: "Values agents can type without seeing them.",
    fields: {
      dirs: setting(
        { type: "list" },
        [],
        "Folders of secrets, one file per secret. SECRETS_DIRS separates them with ':' or ','.",
      ),
      entries: setting(
        { type: "entries" },
        {},
        "Secrets written in the config file: name: {description, allowed_urls, keys: {key: {value}}}.",
        { env: null, flags: [], secret: true },
      ),
      hold_ms: setting(
        { type: "int", min: 0, max: 60_000, unit: "milliseconds" },
        2000,
        "How long a write with a secret waits, when the page sends no form, for the page to take the value before it empties the field.",
      ),
    },
  },
  navigate: {
    about: "Where the browser may be sent.",
    fields: {
      allow_schemes: setting(
        { type: "list" },
        ["http", "https", "data", "about"],
        "The URL schemes a page may be loaded from (file:, chrome: and view-source: show the Grid node's own files and settings).",
      ),
      allowed_hosts: setting(
        { type: "patterns" },
        [],
        "The only hosts any browser's requests may reach (*.host: the host and every name under it). None: any host.",
      ),
      blocked_hosts: setting(
        { type: "patterns" },
        [],
        "Hosts no browser's request may reach (*.host: the host and every name under it).",
      ),
      private_addresses: setting(
        { type: "choice", choices: ["allow", "block"] },
        "allow",
        "block: requests to loopback, private, link-local and cloud metadata addresses (any IP form, localhost) are refused unless navigate.allowed_hosts names them.",
      ),
    },
  },
  flows: {
    about: "Flows every workspace sees.",
    fields: { dir: setting({ type: "text" }, null, "A folder of flows every workspace sees.") },
  },
  files: {
    about: "Signed links to stored files.",
    fields: { link_ttl: setting(seconds(60, 604800), 3600, "Seconds a signed file link lives.") },
  },
  recording: {
    about: "Video of a browser's whole life, from the Grid's recorder.",
    fields: {
      enabled: setting({ type: "bool" }, false, "The Grid's recordings reach recording.dir."),
      dir: setting(
        { type: "text" },
        null,
        "Where the Grid's recordings arrive. Unset is data.dir/recordings.",
      ),
      wait: setting(seconds(30), 600, "Seconds after a browser ends to wait for its recording."),
      watch: setting(
        { type: "choice", choices: ["auto", "events", "poll"] },
        "auto",
        "auto, events or poll: how recording.dir is watched.",
      ),
      poll: setting(
        { type: "int", min: 200, unit: "milliseconds" },
        1000,
        "Milliseconds between looks, when polling.",
      ),
    },
  },
  mcp: {
    about: "MCP sessions over HTTP at /mcp.",
    fields: {
      max_sessions: setting(
        { type: "int", min: 1, max: 100000, unit: "sessions" },
        500,
        "MCP sessions held at once; an initialize beyond them is refused with a 503.",
      ),
      session_idle: setting(
        seconds(1, 86400),
        900,
        "Seconds an unused MCP session is kept before it is closed.",
      ),
    },
  },
  logs: {
    about: "What each browser's pages reported (console, network), as the logs action reads it.",
    fields: {
      keep: setting(
        { type: "int", min: 1, max: 100000, unit: "entries" },
        1000,
        "Console messages and requests kept per browser, the newest.",
      ),
    },
  },
  timeline: {
    about: "Each workspace's record of its calls, with screens along the way.",
    fields: {
      keep: setting(
        { type: "int", min: 0, max: 100000, unit: "entries" },
        500,
        "Entries kept per workspace, the newest; 0 keeps no timeline.",
      ),
      screens: setting(
        { type: "bool" },
        false,
        "Keep a small JPEG of the page with each page-changing call (always while someone watches the workspace).",
      ),
    },
  },
  log: {
    about: "What the server writes to stderr.",
    fields: {
      level: setting(
        { type: "choice", choices: ["debug", "info", "warn", "error"] },
        "info",
        "debug, info, warn or error: the least severe line written.",
      ),
    },
  },
};

type Table = typeof TABLE;

/** The effective settings, one object per section: the table's value types, its defaults by default. */
export type Config = {
  [S in keyof Table]: {
    [F in keyof Table[S]["fields"]]: Table[S]["fields"][F] extends Spec<infer V> ? V : never;
  };
};

const sections = Object.entries(TABLE) as [
  keyof Config,
  { about: string; fields: Record<string, Spec<unknown>> },
][];

/** The defaults: a fresh object each time (a caller may change it). */
export function defaultConfig(): Config {
  return structuredClone(
    Object.fromEntries(
      sections.map(([s, { fields }]) => [
        s,
        Object.fromEntries(Object.entries(fields).map(([f, x]) => [f, x.default])),
      ]),
    ),
  ) as Config;
}

export const SECTIONS = Object.fromEntries(sections.map(([s, { about }]) => [s, about])) as Record<
  keyof Config,
  string
>;

const envOf = (key: string) => key.replace(".", "_").toUpperCase();
const flagOf = (key: string) => key.replace(/[._]/g, "-");

export const SETTINGS: readonly Setting[] = sections.flatMap(([section, { fields }]) =>
  Object.entries(fields).map(([field, x]): Setting => {
    const key = `${section}.${field}`;
    return {
      key,
      kind: x.kind,
      description: x.description,
      env: x.env === undefined ? envOf(key) : x.env,
      flags: x.flags ?? [flagOf(key)],
      secret: x.secret,
    };
  }),
);

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
