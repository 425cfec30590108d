// The places a secret's allowed_urls items name: a URL's or a bare host's, a leading *. for the
// names under it; a glob anywhere else is refused.
import { hostPatternProblem } from "../kit/hosts.ts";

/** The host an allowed_urls item names: a URL's host, or the item itself when it is a bare host. */
export function allowedHost(item: string): string | null {
  const text = item.trim();
  const candidate = text.includes("://") ? text : `http://${text}`;
  if (!URL.canParse(candidate)) return null;
  const host = new URL(candidate).hostname.toLowerCase();
  return host || null;
}

/**
 * Why an allowed_urls item holds a glob that is not taken (null when it holds none, or `*.host`,
 * which stands for the host and every name under it, as the navigation policy reads it).
 */
export function globProblem(item: string): string | null {
  if (!item.includes("*")) return null;
  const host = allowedHost(item);
  const text = item.trim();
  const hostAt = host ? text.indexOf(host) : -1;
  const outside = hostAt < 0 || `${text.slice(0, hostAt)}${text.slice(hostAt + host!.length)}`.includes("*");
  return outside || !host
    ? `${text} is a glob that is not supported: only a host may start with *. (*.example.test: the host and every name under it)`
    : hostPatternProblem(host);
}

/** One allowed_urls item as matched: scheme and port only when the item names a scheme. */
export interface Place {
  host: string;
  scheme?: string;
  /** The port, "" for the scheme's default; absent for a bare host without one. */
  port?: string;
}

/** The place an allowed_urls item names, or null when it is neither a URL nor a host. */
export function placeOf(item: string): Place | null {
  const host = allowedHost(item);
  if (!host) return null;
  const text = item.trim();
  const url = new URL(text.includes("://") ? text : `http://${text}`);
  if (text.includes("://")) return { host, scheme: url.protocol, port: url.port };
  return url.port ? { host, port: url.port } : { host };
}
