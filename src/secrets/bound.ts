// A bound write: the value a secret reference stands for, checked against the page it is about to
// be typed on.
import { badInput } from "../errors.ts";
import { hostMatches } from "../kit/hosts.ts";
import { keyNames, type Place, type Secret, type SecretCatalogue } from "./catalogue.ts";
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
      hostMatches(p.host, host) &&
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
 * on (naming the place and the secret, never the value); the redactor masks every catalogue value of 8
 * characters or more where it leaves the server.
 * A one-time code key gives the code current now (the next one when fewer than 3 s are left), made
 * only after the place check passed.
 */
export function secretValue(
  services: { secrets: SecretCatalogue },
  ref: SecretRef,
  where: string,
  /** The workspace's own secret of that name, when the catalogue has none. */
  own?: Secret,
): string | Promise<string> {
  const secret = services.secrets.get(ref.name) ?? own;
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
  if (code) return currentCode(code);
  return value!;
}
