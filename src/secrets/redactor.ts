// The one redactor: the last line wherever anything leaves the server (a result, an error, a log
// line, a timeline entry, an admin view, an MCP log message). It replaces each catalogue value of 8
// characters or more by [hidden], in any mix of the encodings a page or a URL may give it: raw,
// percent (URL and form), JSON string escapes, HTML character references, and base64 (standard and
// URL-safe, at any byte alignment), case-insensitively (a page that upper-cases a value into a query
// still gives it away). Never runs of a value, nor shorter values, nor one-time codes: masking those
// mangles ordinary text and answers guesses the agent writes (spec §1.17). Text only the agent could
// have put there (a field's value it wrote as plain text) comes from the page library between
// PLAIN_OPEN and PLAIN_CLOSE: it is never masked, and the marks are taken out here.
import { statSync } from "node:fs";
import { redactCredentials } from "../errors.ts";
import { PLAIN_CLOSE, PLAIN_OPEN } from "../in-page/plain.ts";
import type { Secret, SecretCatalogue } from "./catalogue.ts";

/** What a redacted stretch reads as. */
export const REDACTED = "[hidden]";
/** The shortest value redacted: shorter ones would mangle ordinary text and answer guesses. */
const MIN_VALUE = 8;
const PLAIN = new RegExp(`${PLAIN_OPEN}([^${PLAIN_CLOSE}]*)${PLAIN_CLOSE}`, "g");

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

/** A folder's own stamp (its mtime; "-" when it cannot be stat'ed). */
function stampOf(dir: string): string {
  try {
    return `${statSync(dir).mtimeMs}`;
  } catch {
    return "-";
  }
}

export class Redactor {
  private reading = false;
  /** The secrets folders' stamps at the last look. */
  private stamps: string | null = null;
  /** The values besides the catalogue's: the workspaces' own secrets this server has read or stored. */
  private readonly known = new Set<string>();
  private compiled: {
    secrets: readonly Secret[] | null;
    known: number;
    text: RegExp | null;
    b64: RegExp | null;
  } = { secrets: null, known: 0, text: null, b64: null };

  constructor(private readonly catalogue: SecretCatalogue) {}

  /** Values to redact besides the catalogue's, from now on (whoever reads or stores them says so). */
  know(values: Iterable<string>): void {
    for (const v of values) if (v.length >= MIN_VALUE) this.known.add(v);
  }

  private matchers(): { text: RegExp | null; b64: RegExp | null } {
    // Reading the catalogue may log (a broken secret file), and log lines come back here: the
    // matchers already made answer that line.
    if (this.reading) return this.compiled;
    this.reading = true;
    let secrets: readonly Secret[];
    try {
      // The folders' own stamps, before the matchers are trusted: a file added, removed or renamed
      // changes its folder's, so a secret added is masked from the very next redaction, whatever the
      // watch. The catalogue reads the folders again only then (or as its watch or clock says).
      const stamps = this.catalogue.dirs.map(stampOf).join();
      // At the first look the catalogue compares with its own read.
      const changed = this.stamps === null ? undefined : stamps !== this.stamps;
      this.stamps = stamps;
      secrets = this.catalogue.all(changed);
    } finally {
      this.reading = false;
    }
    // The catalogue answers the same array until it changes; the known values only grow.
    if (secrets === this.compiled.secrets && this.known.size === this.compiled.known) return this.compiled;
    // Longest first: a value that contains another is redacted whole.
    const all = new Set<string>(this.known);
    for (const s of secrets) for (const v of s.toRedact) all.add(v);
    const values = [...all].filter((v) => v.length >= MIN_VALUE).sort((a, b) => b.length - a.length);
    const text = values.map((v) => Array.from(v, charPattern).join("")).join("|");
    const b64 = [...new Set(values.flatMap(base64Cores))].sort((a, b) => b.length - a.length).map(escapeRe);
    this.compiled = {
      secrets,
      known: this.known.size,
      text: text ? new RegExp(text, "giu") : null,
      b64: b64.length ? new RegExp(b64.join("|"), "g") : null,
    };
    return this.compiled;
  }

  /** text with every secret value redacted, in any encoding; credentials and Grid ids too. */
  readonly redact = (text: string): string => {
    if (!text.includes(PLAIN_OPEN)) return this.masked(text);
    // The agent's own text stays as it wrote it; what is around it is redacted as ever.
    let out = "";
    let at = 0;
    for (const m of text.matchAll(PLAIN)) {
      out += this.masked(text.slice(at, m.index)) + (m[1] ?? "");
      at = m.index + m[0].length;
    }
    return out + this.masked(text.slice(at));
  };

  private masked(text: string): string {
    let out = redactCredentials(text);
    if (out.length < MIN_VALUE) return out;
    const { text: re, b64 } = this.matchers();
    if (re) out = out.replace(re, REDACTED);
    if (b64) out = out.replace(b64, REDACTED);
    return out;
  }

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

  /**
   * What leaves a page call, in one pass: `value` redacted as `redactDeep` does, and those of `urls`
   * that carry a secret value (a page that does is not recorded).
   */
  leaving<T>(value: T, urls: ReadonlyArray<string | null>, keep?: Keep): { value: T; carrying: Set<string> } {
    const carrying = new Set<string>();
    for (const url of urls) if (url && !carrying.has(url) && this.carries(url)) carrying.add(url);
    return { value: this.redactDeep(value, keep), carrying };
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
}
