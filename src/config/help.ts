// What people see of the settings: --help, and the effective settings an admin may read (redacted).

import { redactCredentials } from "../errors.ts";
import { defaultConfig, getAt, SECTIONS, SETTINGS, type SecretEntry, type Setting } from "./schema.ts";
import type { Loaded, Source } from "./sources.ts";

const REDACTED_DOTS = "•••";

/** The effective settings as an admin may see them: secrets redacted, URLs without credentials. */
export function redactedSettings(
  loaded: Loaded,
): Array<{ key: string; value: unknown; source: Source; description: string }> {
  return SETTINGS.map((s) => ({
    key: s.key,
    value: shown(s, getAt(loaded.config, s.key)),
    source: loaded.sources[s.key] ?? "default",
    description: s.description,
  }));
}

function shown(s: Setting, value: unknown): unknown {
  if (s.kind.type === "entries") {
    return Object.fromEntries(
      Object.entries(value as Record<string, SecretEntry>).map(([name, e]) => [
        name,
        {
          description: e.description ?? "",
          allowed_urls: [...(e.allowed_urls ?? [])],
          keys: Object.keys(e.keys),
        },
      ]),
    );
  }
  if (s.secret) return value ? REDACTED_DOTS : null;
  if (s.kind.type === "url" && typeof value === "string") return withoutCredentials(value);
  return Array.isArray(value) ? [...value] : value;
}

/** The URL without `user:pass@`; unchanged when it has none. */
export function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return redactCredentials(url);
  const u = new URL(url);
  if (!u.username && !u.password) return url;
  u.username = "";
  u.password = "";
  return u.href;
}

export function helpText(): string {
  const lines = [
    "selenium-flow: lets AI agents drive real browsers on a Selenium Grid over MCP and REST.",
    "",
    "Usage:",
    "  selenium-flow [flags]                      serve REST, MCP at /mcp and the admin pages over HTTP",
    "  selenium-flow --stdio [--workspace NAME]   serve MCP over stdin and stdout",
    "  selenium-flow rekey --from OLD_KEY [flags] re-seal every record's saved site data under store.key",
    "                                             (STORE_KEY, or the data dir's key file), then exit",
    "",
    "Flags:",
    "  -h, --help            Show this help and exit.",
    "  -v, --version         Print the version and exit.",
    "  --stdio               Serve MCP over stdin and stdout instead of HTTP.",
    "  --workspace NAME      The workspace a --stdio server acts in (default stdio).",
    "  --config-file PATH    Read settings from a YAML file with sections as keys (data:, recording:, ...).",
    "  --<section>-<field> VALUE (or =VALUE) sets any setting below, e.g. --grid-url, --data-dir.",
    "",
    "Settings: defaults < --config-file < environment < flags. A blank value is not a setting;",
    "environment names that are not settings are ignored.",
  ];
  const defaults = defaultConfig();
  for (const [section, about] of Object.entries(SECTIONS)) {
    lines.push("", `${section}: ${about}`);
    for (const s of SETTINGS.filter((x) => x.key.startsWith(`${section}.`))) {
      const ways = [
        s.env ? `env ${s.env}` : "config file only",
        ...s.flags.map((f) => `--${f}`),
        `default ${defaultText(getAt(defaults, s.key))}`,
      ];
      const values = valuesText(s);
      lines.push(`  ${s.key}  (${ways.join(", ")}${values ? `; ${values}` : ""})`, `      ${s.description}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function defaultText(value: unknown): string {
  if (value === null) return "unset";
  if (Array.isArray(value)) return value.length ? value.join(",") : "none";
  if (typeof value === "object") return "none";
  return String(value);
}

function valuesText(s: Setting): string {
  const k = s.kind;
  if (k.type === "int") return k.max === undefined ? `${k.min} or more` : `${k.min} to ${k.max}`;
  if (k.type === "choice") return k.choices.join(" | ");
  if (k.type === "bool") return "true | false";
  return "";
}
