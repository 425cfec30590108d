// A bound write: the value a secret reference stands for, checked against the page it is about to
// be typed on, and the URL checks that keep a typed value out of what the server reports.
import { badInput, hideValue, scrub } from "../errors.ts";
import { anyTyped, maskPieces } from "../pieces.ts";
import { keyNames, type Place, type SecretCatalogue } from "./catalogue.ts";
import { currentCode } from "./totp.ts";

export interface SecretRef {
  name: string;
  key: string;
}

const LISTED = "GET /secrets or the workspace://secrets resource lists the secrets and their keys";

/** Whether a document at `where` (a URL or an origin, as the browser gives it) is one of places. */
export function allowedAt(places: readonly Place[], where: string): boolean {
  if (!URL.canParse(where)) return false;
  const url = new URL(where);
  const host = url.hostname.toLowerCase();
  if (!host) return false;
  return places.some(
    (p) =>
      p.host === host &&
      (p.scheme === undefined || p.scheme === url.protocol) &&
      (p.port === undefined || p.port === url.port),
  );
}

function placeText(where: string): string {
  if (!URL.canParse(where)) return "on a page without a host";
  const url = new URL(where);
  return url.hostname
    ? `on ${url.hostname.toLowerCase()} (${url.protocol}//${url.host})`
    : "on a page without a host";
}

/**
 * The value to type for ref in the document at `where` (its realm's origin, as the browser tells
 * it); a 400 when the secret or key is unknown or the document is not on a place it may be typed
 * on (naming the place and the secret, never the value). Registers the value with errors.ts hideValue.
 * A one-time code key gives the code current now (the next one when fewer than 3 s are left), made
 * only after the place check passed.
 */
export function secretValue(
  services: { secrets: SecretCatalogue },
  ref: SecretRef,
  where: string,
): string | Promise<string> {
  const secret = services.secrets.get(ref.name);
  if (!secret) throw badInput(`there is no secret named ${ref.name}: ${LISTED}`, "secret.name");
  const code = secret.codes.get(ref.key);
  const value = secret.keys.get(ref.key);
  if (value === undefined && !code) {
    const keys = keyNames(secret).join(", ");
    throw badInput(`secret ${ref.name} has no key ${ref.key}: its keys are ${keys}`, "secret.key");
  }
  if (secret.allowedUrls.length > 0 && !allowedAt(secret.places, where)) {
    throw badInput(
      `secret ${ref.name} may not be typed ${placeText(where)}: it is allowed only on ${secret.allowedUrls.join(", ")}. Nothing was typed; go to one of those first`,
      "secret",
    );
  }
  // A fixed value stays synchronous; only a code is a promise (the caller awaits either).
  if (code) return currentCode(code).then((c) => services.secrets.remember(c));
  hideValue(value!);
  return value!;
}

interface Unit {
  start: number;
  end: number;
  /** The characters this stretch of the URL may stand for. */
  alts: string[];
}

// Splits a URL into one unit per character it encodes: a raw character, a percent-encoded UTF-8
// sequence, or '+', which in a form-encoded query stands for a space.
function unitsOf(url: string): Unit[] {
  const units: Unit[] = [];
  let i = 0;
  while (i < url.length) {
    const decoded = percentAt(url, i);
    if (decoded) {
      units.push({ start: i, end: decoded.end, alts: [decoded.char] });
      i = decoded.end;
      continue;
    }
    const cp = url.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    units.push({ start: i, end: i + ch.length, alts: ch === "+" ? ["+", " "] : [ch] });
    i += ch.length;
  }
  return units;
}

const HEX = /^%[0-9a-fA-F]{2}$/;

function percentAt(url: string, i: number): { char: string; end: number } | null {
  const first = url.slice(i, i + 3);
  if (!HEX.test(first)) return null;
  const lead = Number.parseInt(first.slice(1), 16);
  const length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  const bytes: number[] = [lead];
  for (let k = 1; k < length; k++) {
    const part = url.slice(i + 3 * k, i + 3 * k + 3);
    if (!HEX.test(part)) return { char: String.fromCharCode(lead), end: i + 3 };
    bytes.push(Number.parseInt(part.slice(1), 16));
  }
  try {
    const char = new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
    return { char, end: i + 3 * length };
  } catch {
    return { char: String.fromCharCode(lead), end: i + 3 };
  }
}

/** Each [start, end) stretch of url that spells typed, in any mix of raw and encoded characters. */
function matches(url: string, typed: string): [number, number][] {
  const want = [...typed];
  if (want.length === 0) return [];
  const units = unitsOf(url);
  const found: [number, number][] = [];
  let i = 0;
  while (i + want.length <= units.length) {
    let ok = true;
    for (let k = 0; k < want.length; k++) {
      if (!units[i + k]!.alts.includes(want[k]!)) {
        ok = false;
        break;
      }
    }
    if (ok) {
      found.push([units[i]!.start, units[i + want.length - 1]!.end]);
      i += want.length;
    } else i++;
  }
  return found;
}

/** Whether url carries typed (raw, percent-encoded, or form-encoded). */
export function taints(url: string, typed: string): boolean {
  return matches(url, typed).length > 0;
}

/** url with every occurrence of typed replaced by [hidden]. */
export function redact(url: string, typed: string): string {
  let out = "";
  let at = 0;
  for (const [start, end] of matches(url, typed)) {
    out += `${url.slice(at, start)}[hidden]`;
    at = end;
  }
  return out + url.slice(at);
}

/**
 * Every secret value worth hiding, longest first (a value that contains another is hidden whole);
 * very short ones would hide half the text, and errors.ts does not register them either.
 */
export function secretValuesOf(catalogue: SecretCatalogue): string[] {
  return catalogue
    .all()
    .flatMap((s) => [...s.keys.values()])
    .concat(catalogue.typedCodes())
    .filter((v) => v.length >= 3)
    .sort((a, b) => b.length - a.length);
}

/** text with each of values hidden, in any encoding a URL may carry it. */
export function hideValues(values: readonly string[], text: string): string {
  let out = text;
  for (const value of values) if (taints(out, value)) out = redact(out, value);
  return maskPieces(out, values);
}

/** text with every secret value of the catalogue hidden, in any encoding a URL may carry it. */
export function hideSecrets(catalogue: SecretCatalogue, text: string): string {
  return scrub(hideValues(secretValuesOf(catalogue), text));
}

/** Whether the value at `key` of `parent` is left as it is (a picture's bytes: its pixels are blanked instead). */
export type Keep = (key: string | symbol, parent: object) => boolean;

/** value (any JSON) with each of values, and every piece of a typed one, hidden in its strings. */
export function hideValuesDeep<T>(values: readonly string[], value: T, keep?: Keep): T {
  if (values.length === 0 && !anyTyped()) return value;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") return hideValues(values, v);
    if (depth > 40 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const out: Record<string | symbol, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = keep?.(k, v) ? x : walk(x, depth + 1);
    // The MCP parts (read_page's outline, a screenshot's image) ride on symbol keys: kept, scrubbed.
    for (const k of Object.getOwnPropertySymbols(v)) {
      const x = (v as Record<symbol, unknown>)[k];
      out[k] = keep?.(k, v) ? x : walk(x, depth + 1);
    }
    return out;
  };
  return walk(value, 0) as T;
}
