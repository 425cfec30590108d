// The secrets catalogue: configured entries plus one YAML file per secret in each of
// `secrets.dirs`, followed without a restart: a secret read by name (`get`, the way a value is typed)
// stats its own files first, so a new or changed one is typed and redacted at once; the listing
// reads the folders; `all` (the redactor's, on every redaction) and `peek` read them again only when
// a folder's own stamp changed (a file added or removed), a watch saw a change, or once per
// RECHECK_MS. Only changed files are parsed again.
import { type FSWatcher, readdirSync, readFileSync, statSync, watch } from "node:fs";
import { join } from "node:path";
import { parse as parseYamlText } from "yaml";
import { SETTING_BY_KEY, type SecretEntry } from "../config/schema.ts";
import { ConfigError } from "../config/sources.ts";
import { parseYaml } from "../config/values.ts";
import { hostMatches } from "../kit/hosts.ts";
import { Log } from "../log.ts";
import { globProblem, type Place, placeOf } from "./places.ts";
import { parseTotp, type TotpSpec } from "./totp.ts";

/** The longest `all` answers without reading the folders, when no watch told it of a change. */
const RECHECK_MS = 1000;

/** The shortest value the redactor masks (redactor.ts MIN_VALUE): shorter ones would mangle text and answer guesses. */
const MIN_MASKED = 8;

export interface Secret {
  readonly name: string;
  readonly description: string;
  /** As written; a secret with none may be typed anywhere. */
  readonly allowedUrls: readonly string[];
  /** Lower-case host names taken from `allowedUrls`. */
  readonly hosts: readonly string[];
  /** Where it may be typed: an item with a scheme names scheme, host and port; a bare host any of them. */
  readonly places: readonly Place[];
  /** Fixed values by key name. */
  readonly keys: ReadonlyMap<string, string>;
  /** One-time code keys (`totp:`): the code is made when it is typed. */
  readonly codes: ReadonlyMap<string, TotpSpec>;
  /** Every string of it the redactor redacts (never shown): its values and its one-time code seeds as written. */
  readonly toRedact: readonly string[];
  /** Where it came from: a file path or `secrets.entries.<name>`. */
  readonly source: string;
}

/** What anyone may see of a secret: never a value. */
export interface SecretListing {
  name: string;
  description: string;
  keys: string[];
  /** The keys that type a one-time code (present only when there are some). */
  one_time_codes?: string[];
  allowed_urls: string[];
  restricted: boolean;
}

export interface SecretsConfig {
  dirs: readonly string[];
  entries: Readonly<Record<string, SecretEntry>>;
}

const SECRET_FILE = /^(.+)\.ya?ml$/;
const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ENTRIES = SETTING_BY_KEY.get("secrets.entries")!;

export function buildSecret(name: string, entry: SecretEntry, source: string): Secret | string {
  const allowedUrls = entry.allowed_urls ?? [];
  const hosts: string[] = [];
  const places: Place[] = [];
  for (const [i, item] of allowedUrls.entries()) {
    const glob = globProblem(item);
    if (glob) return `allowed_urls item ${i + 1}: ${glob}`;
    const place = placeOf(item);
    if (!place) return `allowed_urls item ${i + 1} is not a URL or host`;
    places.push(place);
    if (!hosts.includes(place.host)) hosts.push(place.host);
  }
  const keys = new Map<string, string>();
  const codes = new Map<string, TotpSpec>();
  const toRedact: string[] = [];
  for (const [k, v] of Object.entries(entry.keys)) {
    if ("value" in v) {
      keys.set(k, v.value);
      toRedact.push(v.value);
      continue;
    }
    const spec = parseTotp(v.totp);
    if (typeof spec === "string") return `keys.${k}.totp is not a one-time code seed: ${spec}`;
    toRedact.push(v.totp);
    // An otpauth:// URI's seed alone, too.
    const seed = URL.canParse(v.totp) ? new URL(v.totp).searchParams.get("secret") : null;
    if (seed) toRedact.push(seed);
    codes.set(k, spec);
  }
  return {
    name,
    description: entry.description ?? "",
    allowedUrls,
    hosts,
    places,
    keys,
    codes,
    toRedact,
    source,
  };
}

interface FileState {
  stamp: string;
  /** The secret, or null when the file is broken (its warning was logged once). */
  secret: Secret | null;
}

export class SecretCatalogue {
  /** The secrets folders (secrets.dirs). */
  readonly dirs: readonly string[];
  private readonly fromEntries = new Map<string, Secret>();
  private files = new Map<string, FileState>();
  private missingDirs = new Set<string>();
  private current: Map<string, Secret> = new Map();
  private fingerprint = "";
  private revision = 0;
  private secrets: readonly Secret[] = [];
  /** When the folders were last read (ms), their own stamps then, and whether a watch saw a change since. */
  private readAt = 0;
  private dirStamps = "";
  private stale = false;
  private closed = false;
  private readonly watchers = new Map<string, FSWatcher>();

  constructor(
    config: SecretsConfig,
    /** The server's log (a log of its own when none is given). */
    private readonly log: Pick<Log, "warn"> = new Log(),
    private readonly recheckMs = RECHECK_MS,
  ) {
    this.dirs = config.dirs;
    for (const [name, entry] of Object.entries(config.entries)) {
      const secret = buildSecret(name, entry, `secrets.entries.${name}`);
      // A glob that would never match is refused at start: the secret would be typed nowhere.
      if (typeof secret === "string" && secret.includes("glob"))
        throw new ConfigError(`secrets.entries.${name}.${secret}`);
      if (typeof secret === "string") this.log.warn(`secret ${name} in secrets.entries skipped: ${secret}`);
      else {
        warnShort(secret, this.log);
        this.fromEntries.set(name, secret);
      }
    }
    this.refresh();
  }

  /** Changes whenever the catalogue does (a secret added, removed or edited). */
  get rev(): number {
    this.refresh();
    return this.revision;
  }

  /** The secret `name`, its own files looked at first (the folders read again when one changed). */
  get(name: string): Secret | undefined {
    if (this.changedFiles(name)) this.refresh();
    return this.current.get(name);
  }

  /**
   * Every secret, for the redactor: the same array until the catalogue changes. The folders are read
   * again when a watch saw a change or RECHECK_MS passed; a secret `get` read is in it already. A file
   * added, removed or renamed changes its folder's stamp: read again at once, whatever the watch.
   * `folderChanged`: the caller stamped the folders itself (the redactor); unsaid, they are stamped here.
   */
  all(folderChanged?: boolean): readonly Secret[] {
    const changed = folderChanged ?? this.stampDirs() !== this.dirStamps;
    if (changed || this.stale || Date.now() - this.readAt >= this.recheckMs) this.refresh();
    return this.secrets;
  }

  /** The secret `name` as `all` has it: whether a write asks a person (its handler's `get` types it). */
  peek(name: string): Secret | undefined {
    this.all();
    return this.current.get(name);
  }

  private stampDirs = () => this.dirs.map(dirStamp).join();

  /** Stops following the folders. */
  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /** Whether a file that could hold the secret `name` is new, changed or gone since the last read. */
  private changedFiles(name: string): boolean {
    if (!SECRET_NAME.test(name)) return false;
    for (const dir of this.dirs)
      for (const file of [`${name}.yaml`, `${name}.yml`]) {
        const path = join(dir, file);
        if (stampOf(path) !== (this.files.get(path)?.stamp ?? null)) return true;
      }
    return false;
  }

  /** A change in `dir` marks the catalogue stale; a folder that cannot be watched is read on time alone. */
  private follow(dir: string): void {
    if (this.closed || this.watchers.has(dir)) return;
    try {
      const w = watch(dir, { persistent: false }, () => {
        this.stale = true;
      });
      w.on("error", () => {
        this.stale = true;
        w.close();
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, w);
    } catch {
      // read every RECHECK_MS instead
    }
  }

  list(): SecretListing[] {
    this.refresh();
    return this.secrets.map(listingOf).sort((a, b) => a.name.localeCompare(b.name));
  }

  private refresh(): void {
    // Cleared before the reading: a change during it marks the catalogue stale again.
    this.stale = false;
    this.readAt = Date.now();
    this.dirStamps = this.stampDirs();
    const seen = new Map<string, FileState>();
    const stamps: string[] = [];
    for (const dir of this.dirs) {
      let names: string[];
      try {
        this.follow(dir);
        names = readdirSync(dir).sort();
        this.missingDirs.delete(dir);
      } catch (err) {
        if (!this.missingDirs.has(dir)) {
          const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
          this.log.warn(`secrets folder ${dir} cannot be read (${code}): its secrets are not available`);
          this.missingDirs.add(dir);
        }
        continue;
      }
      for (const file of names) {
        if (!SECRET_FILE.test(file)) continue;
        const path = join(dir, file);
        const stamp = stampOf(path);
        if (stamp === null) continue; // not a file, or removed between readdir and stat
        const known = this.files.get(path);
        seen.set(
          path,
          known && known.stamp === stamp ? known : { stamp, secret: loadFile(path, file, this.log) },
        );
        stamps.push(`${path}@${stamp}`);
      }
    }
    this.files = seen;
    const fingerprint = stamps.join("\n");
    if (fingerprint === this.fingerprint && this.revision > 0) return;
    this.fingerprint = fingerprint;
    const next = new Map(this.fromEntries);
    for (const [path, state] of seen) {
      const secret = state.secret;
      if (!secret) continue;
      const before = next.get(secret.name);
      if (before) {
        // Warned on each change of the set of files, which is when it could have become true.
        this.log.warn(
          `secret file ${path} skipped: a secret named ${secret.name} already comes from ${before.source}`,
        );
        continue;
      }
      next.set(secret.name, secret);
    }
    this.current = next;
    this.secrets = [...next.values()];
    this.revision++;
  }
}

/** A file's size, time and inode, or null when it is no file (absent, a folder). */
const dirStamp = (dir: string) => {
  try {
    return String(statSync(dir).mtimeMs);
  } catch {
    return "-";
  }
};

function stampOf(path: string): string | null {
  try {
    const st = statSync(path);
    return st.isFile() ? `${st.mtimeMs}:${st.size}:${st.ino}` : null;
  } catch {
    return null;
  }
}

/** Every key name of a secret: fixed values, then one-time codes. */
export const keyNames = (s: Secret): string[] => [...s.keys.keys(), ...s.codes.keys()];

export function listingOf(s: Secret): SecretListing {
  const codes = [...s.codes.keys()];
  return {
    name: s.name,
    description: s.description,
    keys: keyNames(s),
    ...(codes.length ? { one_time_codes: codes } : {}),
    allowed_urls: [...s.allowedUrls],
    restricted: s.allowedUrls.length > 0,
  };
}

// Warnings name the file and what is wrong with it, never what it holds.
function loadFile(path: string, file: string, log: Pick<Log, "warn">): Secret | null {
  const name = SECRET_FILE.exec(file)![1]!;
  const skip = (why: string) => {
    log.warn(`secret file ${path} skipped: ${why}`);
    return null;
  };
  if (!SECRET_NAME.test(name)) {
    return skip("a secret's file name is <name>.yaml, the name 1-64 letters, digits, '.', '_' or '-'");
  }
  let doc: unknown;
  try {
    doc = parseYamlText(readFileSync(path, "utf8"), { logLevel: "error" });
  } catch (err) {
    const line = (err as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    if (line !== undefined) return skip(`it is not valid YAML (line ${line})`);
    const code = (err as NodeJS.ErrnoException).code;
    return skip(code ? `it cannot be read (${code})` : "it is not valid YAML");
  }
  const parsed = parseYaml(ENTRIES, { [name]: doc });
  if (!parsed) return skip("it is empty: write description, allowed_urls and keys");
  if ("problem" in parsed) {
    return skip(
      parsed.problem.replace(`secrets.entries.${name}`, "the secret").replace("secrets.entries", "it"),
    );
  }
  const entry = (parsed.value as Record<string, SecretEntry>)[name]!;
  const secret = buildSecret(name, entry, path);
  if (typeof secret !== "string") {
    warnShort(secret, log);
    return secret;
  }
  // A glob's line in the file, so the operator finds it.
  const item = /^allowed_urls item (\d+)/.exec(secret)?.[1];
  const text = item ? entry.allowed_urls?.[Number(item) - 1] : undefined;
  const line = text
    ? readFileSync(path, "utf8")
        .split("\n")
        .findIndex((l) => l.includes(text))
    : -1;
  return skip(line >= 0 ? `line ${line + 1}: ${secret}` : secret);
}

/** The redactor leaves values under 8 characters alone (spec §1.17): said once, when the secret loads. */
function warnShort(secret: Secret, log: Pick<Log, "warn">): void {
  for (const [k, v] of secret.keys)
    if (v.length < MIN_MASKED)
      log.warn(
        `secret ${secret.name} key ${k} is shorter than ${MIN_MASKED} characters: it is typed as usual, but a page that shows it is not masked where it leaves the server (README: Secrets)`,
      );
}

/** The secrets allowed on `host` by one of their allowed_urls; unleashed secrets are never listed. */
export function matchingSecrets(
  catalogue: SecretCatalogue,
  host: string,
): { name: string; description: string; keys: string[] }[] {
  const h = host.toLowerCase();
  return catalogue
    .all()
    .filter((s) => s.hosts.some((p) => hostMatches(p, h)))
    .map((s) => ({ name: s.name, description: s.description, keys: keyNames(s) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
