// One-time codes (RFC 6238) for a secret's `totp:` key: the seed as base32 or as the otpauth://
// URI authenticator apps export. `otpauth` decodes the seed and computes the code when it is typed;
// the URI's checks stay here, so a bad key is refused with a reason that never quotes it. Neither
// the seed nor a code is ever logged or returned (the redactor redacts both).
import { Secret, TOTP } from "otpauth";

export type TotpAlgorithm = "SHA-1" | "SHA-256" | "SHA-512";

export interface TotpSpec {
  readonly seed: Secret;
  readonly algorithm: TotpAlgorithm;
  readonly digits: number;
  readonly period: number;
}

const ALGORITHMS: Record<string, TotpAlgorithm> = { SHA1: "SHA-1", SHA256: "SHA-256", SHA512: "SHA-512" };
/** base32 (RFC 4648; padding, spaces, dashes and case ignored) to a seed; null when it is not base32. */
function base32Seed(text: string): Secret | null {
  const clean = text.replace(/[\s=-]/g, "");
  if (!clean) return null;
  try {
    const seed = Secret.fromBase32(clean);
    return seed.bytes.length ? seed : null;
  } catch {
    return null;
  }
}

/** The spec a `totp:` value stands for, or what is wrong with it (never quoting it). */
export function parseTotp(text: string): TotpSpec | string {
  const raw = text.trim();
  if (!/^otpauth:/i.test(raw)) {
    const seed = base32Seed(raw);
    return seed ? { seed, algorithm: "SHA-1", digits: 6, period: 30 } : "the seed is not base32 (A-Z, 2-7)";
  }
  if (!URL.canParse(raw)) return "it is not an otpauth:// URI";
  const url = new URL(raw);
  if (url.host.toLowerCase() !== "totp") return "only otpauth://totp/ URIs are one-time codes (not hotp)";
  const seed = base32Seed(url.searchParams.get("secret") ?? "");
  if (!seed) return "its secret= parameter is missing or not base32";
  const alg = (url.searchParams.get("algorithm") ?? "SHA1").toUpperCase().replace("-", "");
  const algorithm = ALGORITHMS[alg];
  if (!algorithm) return "its algorithm must be SHA1, SHA256 or SHA512";
  const digits = Number(url.searchParams.get("digits") ?? 6);
  if (!Number.isInteger(digits) || digits < 6 || digits > 8) return "its digits must be 6, 7 or 8";
  const period = Number(url.searchParams.get("period") ?? 30);
  if (!Number.isInteger(period) || period < 5 || period > 300) return "its period must be 5-300 seconds";
  return { seed, algorithm, digits, period };
}

/** The code for the time step holding unix second `seconds`. */
export function totpAt(spec: TotpSpec, seconds: number): string {
  const { seed: secret, digits, period } = spec;
  return TOTP.generate({
    secret,
    algorithm: spec.algorithm.replace("-", ""),
    digits,
    period,
    timestamp: seconds * 1000,
  });
}

/** Seconds a code must still be good for when it is typed; with less left, the next one is typed. */
export const MIN_LEFT_S = 3;

/** The code to type now: with fewer than MIN_LEFT_S seconds left in its period, waits for the next. */
export async function currentCode(spec: TotpSpec, now: () => number = Date.now): Promise<string> {
  const left = spec.period - ((now() / 1000) % spec.period);
  if (left < MIN_LEFT_S) await Bun.sleep(Math.ceil(left * 1000) + 50);
  return totpAt(spec, Math.floor(now() / 1000));
}
