// The words, checks and small helpers of a secret a person (or an admin) gives (secrets.ts): what an
// ask may name, what a request's link, a write's 409 and the page say, how a record's secrets are read.
import type { Config } from "../config/schema.ts";
import { badInput, conflict } from "../errors.ts";
import { NavPolicy } from "../grid/policy.ts";
import { keyNames, type SecretCatalogue } from "../secrets/catalogue.ts";
import { globProblem, placeOf } from "../secrets/places.ts";

/** What an agent (or an admin) asks a person for. */
export interface SecretAsk {
  name: string;
  key: string;
  allowed_urls: string[];
  reason: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** How long a request's page takes a value (seconds). */
export const REQUEST_S = 600;

/** The values of a record's own secrets (as the store opened them). */
export function secretValues(secrets: object): string[] {
  return (Object.values(secrets) as { keys?: Record<string, unknown> }[]).flatMap((s) =>
    Object.values(s?.keys ?? {}).filter((v) => typeof v === "string"),
  );
}

/** Where a request for a secret is answered when no page can be served (MCP over stdio). */
export const NO_PAGE =
  "this server serves no page here (MCP over stdio): a person types a secret on the page of a server that listens over HTTP, or an admin adds it to the catalogue";

/** A write's 409 for a secret a person is asked for: the link to hand them. */
export const missingText = (name: string, asked: { url: string; allowed_urls: string[] }) =>
  `there is no secret named ${name} yet: hand your person this link, where they type it (it will be typed only on ${asked.allowed_urls.join(", ")}; the link works once, for ${REQUEST_S / 60} minutes): ${asked.url} Call write again once they have; nothing was typed`;

export const GONE =
  "this link is used or was never given: a link works once; ask the agent for a new one if the value is still needed";
export const EXPIRED = `this link is past its time (links work for ${REQUEST_S / 60} minutes): ask the agent for a new one`;

export const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x) => b.includes(x));

export const valueKeys = (keys: Record<string, string>) =>
  Object.fromEntries(Object.entries(keys).map(([k, value]) => [k, { value }]));

/** Why `ask` cannot be asked (a 400 or 409), or nothing. */
export function checkAsk(
  ask: SecretAsk,
  catalogue: Pick<SecretCatalogue, "get">,
  config: Pick<Config, "navigate">,
): void {
  if (!NAME.test(ask.name))
    throw badInput("a secret's name is 1-64 letters, digits, '.', '_' or '-'", "name");
  if (!NAME.test(ask.key)) throw badInput("a key's name is 1-64 letters, digits, '.', '_' or '-'", "key");
  const server = catalogue.get(ask.name);
  if (server)
    throw conflict(
      `the server's catalogue has a secret named ${ask.name} (keys ${keyNames(server).join(", ")}): use it, or ask under another name`,
    );
  if (ask.allowed_urls.length === 0)
    throw badInput("name at least one host or URL the value may be typed on", "allowed_urls");
  const policy = NavPolicy.of({
    allow: config.navigate.allowed_hosts,
    block: config.navigate.blocked_hosts,
    private: config.navigate.private_addresses === "block",
  });
  for (const [i, item] of ask.allowed_urls.entries()) {
    const glob = globProblem(item);
    if (glob) throw badInput(glob, `allowed_urls.${i}`);
    const place = placeOf(item);
    if (!place) throw badInput(`${item} is not a URL or host`, `allowed_urls.${i}`);
    const refused = policy?.refusal(`http://${place.host.replace(/^\*\./, "")}/`);
    if (refused)
      throw badInput(
        `${item} may not be asked for: the server's navigation policy refuses ${refused.host} (${refused.rule})`,
        `allowed_urls.${i}`,
      );
  }
}
