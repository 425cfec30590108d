// One setting's value: the rule it must follow, and parsing it from text (env, flag) or YAML.

import { hostPatternProblem } from "../kit/hosts.ts";
import { isObject } from "../kit/json.ts";
import type { Kind, SecretEntry, Setting } from "./schema.ts";

/** What a setting accepts, as the end of a sentence that starts with its key. */
export function ruleOf(kind: Kind): string {
  switch (kind.type) {
    case "text":
      return "must be text";
    case "url":
      return `must be a URL starting with ${kind.schemes.map((s) => `${s}//`).join(" or ")}, like ${kind.example}`;
    case "int": {
      const range = kind.max === undefined ? `${kind.min} or more` : `from ${kind.min} to ${kind.max}`;
      return kind.unit === "a port"
        ? `must be a port number ${range}`
        : `must be a whole number of ${kind.unit}, ${range}`;
    }
    case "bool":
      return "must be true or false (also yes/no, on/off, 1/0)";
    case "choice":
      return `must be one of ${kind.choices.join(", ")}`;
    case "list":
      return "must be a list of folders (in the environment or a flag: separated by ':' or ',')";
    case "hosts":
      return "must be a list of host names, each with an optional :port, like proxy.example.test or proxy.example.test:8443 (in the environment or a flag: separated by ',')";
    case "patterns":
      return "must be a list of hosts or *.host patterns (the host and every name under it), like intranet.example.test or *.example.test (in the environment or a flag: separated by ',')";
    case "entries":
      return "must map each secret's name to {description, allowed_urls, keys: {key: {value}}}";
  }
}

/** A parsed value; `undefined` means blank, which is not a setting; a string `problem` names what is wrong. */
export type Parsed = { value: unknown } | { problem: string } | undefined;

const TRUE = new Set(["true", "yes", "on", "1"]);
const FALSE = new Set(["false", "no", "off", "0"]);

/** A value written as text: an environment variable or a flag. */
export function parseText(s: Setting, raw: string): Parsed {
  const text = raw.trim();
  if (!text) return undefined;
  const bad = { problem: `${s.key} ${ruleOf(s.kind)}` };
  const k = s.kind;
  switch (k.type) {
    case "text":
      return { value: text };
    case "url": {
      if (!URL.canParse(text)) return bad;
      const u = new URL(text);
      return k.schemes.includes(u.protocol) && u.hostname ? { value: text } : bad;
    }
    case "int": {
      if (!/^[+-]?\d{1,15}$/.test(text)) return bad;
      const n = Number(text);
      return n < k.min || (k.max !== undefined && n > k.max) ? bad : { value: n };
    }
    case "bool": {
      const t = text.toLowerCase();
      return TRUE.has(t) ? { value: true } : FALSE.has(t) ? { value: false } : bad;
    }
    case "choice":
      return k.choices.includes(text) ? { value: text } : bad;
    case "list": {
      const items = text
        .split(/[:,]/)
        .map((p) => p.trim())
        .filter(Boolean);
      return items.length ? { value: items } : undefined;
    }
    case "hosts":
      return hostList(text.split(/[,\s]+/), bad);
    case "patterns":
      return patternList(text.split(/[,\s]+/), bad);
    case "entries":
      return bad;
  }
}

/** `name` or `name:port` (IPv6 in brackets) as a Host header carries it, lower case; null when it is not one. */
export function hostEntry(raw: string): string | null {
  const h = raw.trim().toLowerCase();
  if (!h || /[/@?#\\\s]/.test(h) || !URL.canParse(`http://${h}/`)) return null;
  const { hostname } = new URL(`http://${h}/`);
  const port = /(?:^|[^:]|\]):(\d{1,5})$/.test(h) ? (/:(\d{1,5})$/.exec(h) as RegExpExecArray)[1] : "";
  if (port && Number(port) > 65535) return null;
  return port ? `${hostname}:${Number(port)}` : hostname;
}

function hostList(items: readonly (string | null)[], bad: Parsed): Parsed {
  const out: string[] = [];
  for (const item of items) {
    const text = (item ?? "").trim();
    if (!text) continue;
    const host = hostEntry(text);
    if (!host) return bad;
    out.push(host);
  }
  return out.length ? { value: out } : undefined;
}

function patternList(items: readonly (string | null)[], bad: Parsed): Parsed {
  const out: string[] = [];
  for (const item of items) {
    const text = (item ?? "").trim().toLowerCase();
    if (!text) continue;
    const problem = hostPatternProblem(text);
    if (problem) return bad && "problem" in bad ? { problem: `${bad.problem}: ${problem}` } : bad;
    out.push(text);
  }
  return out.length ? { value: out } : undefined;
}

/** A value from the YAML config file: text goes through `parseText`, other types must fit exactly. */
export function parseYaml(s: Setting, raw: unknown): Parsed {
  if (raw === null || raw === undefined) return undefined;
  const bad = { problem: `${s.key} ${ruleOf(s.kind)}` };
  const k = s.kind;
  if (k.type === "entries") return parseEntries(raw);
  if (typeof raw === "string") return parseText(s, raw);
  if (k.type === "int" && typeof raw === "number")
    return Number.isInteger(raw) ? parseText(s, String(raw)) : bad;
  if (k.type === "bool" && typeof raw === "boolean") return { value: raw };
  if (k.type === "hosts" && Array.isArray(raw)) {
    return raw.every((p) => typeof p === "string" || p === null) ? hostList(raw, bad) : bad;
  }
  if (k.type === "patterns" && Array.isArray(raw)) {
    return raw.every((p) => typeof p === "string" || p === null) ? patternList(raw, bad) : bad;
  }
  if (k.type === "list" && Array.isArray(raw)) {
    if (!raw.every((p) => typeof p === "string" || p === null)) return bad;
    const items = raw.map((p) => (p ?? "").trim()).filter(Boolean);
    return items.length ? { value: items } : undefined;
  }
  return bad;
}

const isBlank = (v: unknown) => v === null || v === undefined || (typeof v === "string" && !v.trim());

// Messages here name the path inside secrets.entries and never quote a value.
function parseEntries(raw: unknown): Parsed {
  if (!isObject(raw)) return { problem: `secrets.entries ${ruleOf({ type: "entries" })}` };
  const out: Record<string, SecretEntry> = {};
  for (const [name, body] of Object.entries(raw)) {
    const at = `secrets.entries.${name}`;
    if (!name.trim())
      return { problem: "secrets.entries has a secret with a blank name: give every secret a name" };
    if (!isObject(body))
      return { problem: `${at} must be a mapping with keys (and optionally description, allowed_urls)` };
    const unknown = Object.keys(body).filter((f) => !["description", "allowed_urls", "keys"].includes(f));
    if (unknown.length) {
      return { problem: `${at}.${unknown[0]} is not a secret field: use description, allowed_urls and keys` };
    }
    const entry: SecretEntry = { keys: {} };
    if (!isBlank(body.description)) {
      if (typeof body.description !== "string") return { problem: `${at}.description must be text` };
      entry.description = body.description.trim();
    }
    if (!isBlank(body.allowed_urls)) {
      const list = typeof body.allowed_urls === "string" ? [body.allowed_urls] : body.allowed_urls;
      if (!Array.isArray(list) || !list.every((u) => typeof u === "string" || u === null)) {
        return { problem: `${at}.allowed_urls must be a list of hosts or URLs the secret may be typed on` };
      }
      const urls = list.map((u) => (u ?? "").trim()).filter(Boolean);
      if (urls.length) entry.allowed_urls = urls;
    }
    if (!isObject(body.keys) || Object.keys(body.keys).length === 0) {
      return { problem: `${at}.keys must map at least one key name to {value: ...}` };
    }
    for (const [key, spec] of Object.entries(body.keys)) {
      const field = isObject(spec) && Object.keys(spec).length === 1 ? Object.keys(spec)[0] : undefined;
      if (!isObject(spec) || (field !== "value" && field !== "totp")) {
        return { problem: `${at}.keys.${key} must be {value: ...} or {totp: ...} and nothing else` };
      }
      const value = spec[field];
      // A secret's value is kept exactly as written (spaces included); numbers are refused because
      // YAML would already have changed them (0123 → 123).
      if (typeof value !== "string" || value === "") {
        return { problem: `${at}.keys.${key}.${field} must be non-empty text: quote it in YAML` };
      }
      entry.keys[key] = field === "value" ? { value } : { totp: value };
    }
    out[name] = entry;
  }
  return { value: out };
}
