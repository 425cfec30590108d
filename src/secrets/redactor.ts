// The one redactor: the last line wherever anything leaves the server (a result, an error, a log
// line, a timeline entry, an admin view, an MCP log message). It replaces each secret value (the
// catalogue's, the one-time codes typed lately, what a person typed during Take over) by [hidden],
// in any mix of the encodings a page or a URL may give it: raw, percent (URL and form), JSON string
// escapes, HTML character references, and base64 (standard and URL-safe, at any byte alignment),
// case-insensitively (a page that upper-cases a value into a query still gives it away). Runs of a
// value are not redacted here: only what comes from a document holding a typed value is, in the page
// itself (src/in-page/typed.ts). It also keeps, per browser, what was typed there and on which
// origins, so the page checks know a browser where nothing was typed and pay nothing for it.
import { randomInt } from "node:crypto";
import { redactCredentials } from "../errors.ts";
import { runDigest, type TypedDigests } from "../in-page/typed.ts";
import type { SecretCatalogue } from "./catalogue.ts";

/** What a redacted stretch reads as. */
export const REDACTED = "[hidden]";
/** The shortest value worth redacting: redacting shorter ones would cut half of every text. */
const MIN_VALUE = 3;
/** A person's text shorter than this (a word in a search box) is redacted only where it was typed. */
const MIN_PERSONAL = 6;
/** The length of a run the page checks compare (src/in-page/typed.ts RUN). */
const RUN = 4;
/** The run a restored field must hold to count as holding a typed value: a word of a password is not one. */
const LONG = 8;
const MAX_TYPED = 200;

interface Typed {
  workspace: string;
  /** Values typed in the browser (bound writes and a person's typing), newest last. */
  values: string[];
  origins: Set<string>;
  /** A salt for the browser's run digests. */
  salt: number;
  /** digests() as JSON, made again when a value or an origin is added. */
  json?: string;
}

/** Whether the value at `key` of `parent` is left as it is (a picture's bytes). */
export type Keep = (key: string | symbol, parent: object) => boolean;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

// Every way one character may be written in a URL, a form, a JSON string or HTML.
function charPattern(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const alts = new Set<string>([escapeRe(ch)]);
  const bytes = [...new TextEncoder().encode(ch)];
  alts.add(bytes.map((b) => `%${b.toString(16).padStart(2, "0")}`).join(""));
  if (ch === " ") alts.add("\\+");
  alts.add(`&#0*${cp};?`);
  alts.add(`&#x0*${cp.toString(16)};?`);
  if (cp <= 0xffff) alts.add(`\\\\u${cp.toString(16).padStart(4, "0")}`);
  const named: Record<string, string> = { "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" };
  if (named[ch]) alts.add(`&${named[ch]};`);
  if (ch === '"' || ch === "\\" || ch === "/") alts.add(`\\\\${escapeRe(ch)}`);
  return `(?:${[...alts].join("|")})`;
}

/** The stable middle of base64(value) wherever value sits in a longer payload: one per alignment. */
export function base64Cores(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const out = new Set<string>();
  for (const lead of [0, 1, 2]) {
    const buf = new Uint8Array(lead + bytes.length);
    buf.set(bytes, lead);
    const b64 = Buffer.from(buf).toString("base64");
    const first = Math.ceil(lead / 3);
    const last = Math.floor(buf.length / 3);
    const core = b64.slice(4 * first, 4 * last);
    // Too short a core would match unrelated base64.
    if (core.length >= 8) {
      out.add(core);
      out.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
    }
  }
  // The whole value's own encoding, padding and all, when it stands alone.
  const whole = Buffer.from(bytes).toString("base64");
  if (whole.length >= 4) out.add(whole.replace(/=+$/, ""));
  return [...out];
}

export class Redactor {
  private readonly browsers = new Map<string, Typed>();
  private readonly unmarked = new Set<string>();
  private reading = false;
  /** Values a person typed (anywhere): redacted like the catalogue's. */
  private readonly personal: string[] = [];
  private compiled: { key: string; text: RegExp | null; b64: RegExp | null } = {
    key: "",
    text: null,
    b64: null,
  };

  constructor(private readonly catalogue: SecretCatalogue) {}

  /** Every value redacted now, longest first (a value that contains another is redacted whole). */
  private values(): string[] {
    const all = new Set<string>();
    for (const s of this.catalogue.all()) for (const v of s.toRedact) all.add(v);
    for (const c of this.catalogue.typedCodes()) all.add(c);
    for (const v of this.personal) all.add(v);
    return [...all].filter((v) => v.length >= MIN_VALUE).sort((a, b) => b.length - a.length);
  }

  private matchers(): { text: RegExp | null; b64: RegExp | null } {
    // Reading the catalogue may log (a broken secret file), and log lines come back here: the
    // matchers already made answer that line.
    if (this.reading) return this.compiled;
    this.reading = true;
    let values: string[];
    try {
      values = this.values();
    } finally {
      this.reading = false;
    }
    const key = values.join("\u0000");
    if (key !== this.compiled.key) {
      const text = values.map((v) => Array.from(v, charPattern).join("")).join("|");
      const b64 = [...new Set(values.flatMap(base64Cores))].sort((a, b) => b.length - a.length).map(escapeRe);
      this.compiled = {
        key,
        text: text ? new RegExp(text, "giu") : null,
        b64: b64.length ? new RegExp(b64.join("|"), "g") : null,
      };
    }
    return this.compiled;
  }

  /** text with every secret value redacted, in any encoding; credentials and Grid ids too. */
  readonly redact = (text: string): string => {
    let out = redactCredentials(text);
    if (out.length < MIN_VALUE) return out;
    const { text: re, b64 } = this.matchers();
    if (re) out = out.replace(re, REDACTED);
    if (b64) out = out.replace(b64, REDACTED);
    return out;
  };

  /** Whether text carries a secret value (a landing URL that does is not recorded). */
  carries(text: string): boolean {
    const { text: re, b64 } = this.matchers();
    if (re) re.lastIndex = 0;
    if (b64) b64.lastIndex = 0;
    const hit = (re?.test(text) ?? false) || (b64?.test(text) ?? false);
    if (re) re.lastIndex = 0;
    if (b64) b64.lastIndex = 0;
    return hit;
  }

  /** value (any JSON) with every string redacted; what `keep` names is left whole. */
  redactDeep<T>(value: T, keep?: Keep): T {
    const walk = (v: unknown, depth: number): unknown => {
      if (typeof v === "string") return this.redact(v);
      if (depth > 40 || v === null || typeof v !== "object") return v;
      if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
      const out: Record<string | symbol, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = keep?.(k, v) ? x : walk(x, depth + 1);
      // The MCP parts (read_page's outline, a screenshot's image) ride on symbol keys.
      for (const k of Object.getOwnPropertySymbols(v)) {
        const x = (v as Record<symbol, unknown>)[k];
        out[k] = keep?.(k, v) ? x : walk(x, depth + 1);
      }
      return out;
    };
    return walk(value, 0) as T;
  }

  /** A value is about to be typed in `browser` on `origin` (a bound write, or a person's typing). */
  noteTyped(browser: string, workspace: string, value: string, origin: string): void {
    let t = this.browsers.get(browser);
    if (!t) {
      t = { workspace, values: [], origins: new Set(), salt: randomInt(1, 2 ** 31) };
      this.browsers.set(browser, t);
    }
    t.json = undefined;
    if (origin) t.origins.add(origin);
    if (value && !t.values.includes(value)) {
      t.values.push(value);
      if (t.values.length > MAX_TYPED) t.values.shift();
    }
  }

  /** What a person typed: redacted everywhere from now on, like a secret value (shorter text only where it is). */
  notePersonal(value: string): void {
    if (value.length < MIN_PERSONAL || this.personal.includes(value)) return;
    this.personal.push(value);
    if (this.personal.length > MAX_TYPED) this.personal.shift();
  }

  /** A script ran in `browser` and not every document took its mark: no bound write there from now on. */
  noteUnmarked(browser: string): void {
    this.unmarked.add(browser);
  }

  /** Whether a script ran in `browser` where a mark could not be set (a bound write is refused). */
  unmarkedIn(browser: string): boolean {
    return this.unmarked.has(browser);
  }

  /** Whether anything was typed in `browser` through this server (one where nothing was pays nothing). */
  typedIn(browser: string): boolean {
    return this.browsers.has(browser);
  }

  /** The origins a value was typed on in `browser`. */
  typedOrigins(browser: string): string[] {
    return [...(this.browsers.get(browser)?.origins ?? [])];
  }

  /** The browser's salt and the digests of every run of every value typed there, for the page checks. */
  digests(browser: string): TypedDigests {
    const t = this.browsers.get(browser);
    if (!t) return { salt: 0, runs: [], longs: [], long: LONG, wholes: [], origins: [] };
    const runs = new Set<number>();
    const longs = new Set<number>();
    const wholes = new Set<number>();
    for (const v of t.values) {
      for (let i = 0; i + RUN <= v.length; i++) runs.add(runDigest(v.slice(i, i + RUN), t.salt));
      for (let i = 0; i + LONG <= v.length; i++) longs.add(runDigest(v.slice(i, i + LONG), t.salt));
      if (v.length < LONG) wholes.add(runDigest(v, t.salt));
    }
    return {
      salt: t.salt,
      runs: [...runs],
      longs: [...longs],
      long: LONG,
      wholes: [...wholes],
      origins: [...t.origins],
    };
  }

  /** digests() as the page library takes them (JSON), or null where nothing was typed. */
  typedJson(browser: string): string | null {
    const t = this.browsers.get(browser);
    if (!t) return null;
    if (t.json === undefined) t.json = JSON.stringify(this.digests(browser));
    return t.json;
  }

  /** The browser ended: what was typed there is forgotten (the catalogue's values stay redacted). */
  forgetBrowser(browser: string): void {
    this.browsers.delete(browser);
    this.unmarked.delete(browser);
  }
}
