// The rules every request passes before a route sees it (README, "What the loopback default protects
// against"): the Host names this server answers to, which origins are its own, and whether a path
// decodes and names each of its parts. The gate that applies them is src/admin/auth.ts's `Gate`.
import type { Config } from "../config/schema.ts";
import { hostEntry } from "../config/values.ts";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];
const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** `name` and `port` of a `hostEntry` form (`[::1]:80`, `app.example.test`). */
function split(entry: string): { name: string; port: string } {
  const at = entry.startsWith("[") ? entry.indexOf("]") + 1 : entry.lastIndexOf(":");
  if (at <= 0 || entry[at] !== ":") return { name: entry, port: "" };
  return { name: entry.slice(0, at), port: entry.slice(at + 1) };
}

export class HostRules {
  /** Names served on any port: the bind address, loopback, and allowed_hosts entries without a port. */
  private readonly anyPort = new Set<string>(LOOPBACK);
  /** allowed_hosts entries with a port: that port only. */
  private readonly exact = new Set<string>();
  /** The allowed_hosts entries: names a proxy forwards, so their origins are this server's too. */
  private readonly declared: string[] = [];

  constructor(config: Pick<Config, "http">) {
    const raw = config.http.host.trim();
    const bind = hostEntry(raw.includes(":") && !raw.startsWith("[") ? `[${raw}]` : raw);
    if (bind) this.anyPort.add(split(bind).name);
    for (const entry of config.http.allowed_hosts) {
      const host = hostEntry(entry);
      if (!host) continue;
      this.declared.push(host);
      if (split(host).port) this.exact.add(host);
      else this.anyPort.add(host);
    }
  }

  /** Whether a `Host` header names this server. */
  allows(header: string): boolean {
    const host = hostEntry(header);
    if (!host) return false;
    return this.anyPort.has(split(host).name) || this.exact.has(host);
  }

  /** Whether `origin` is this server's own: the request's Host (same port), or a declared name. */
  ownOrigin(origin: string, hostHeader: string): boolean {
    if (!URL.canParse(origin)) return false;
    const u = new URL(origin);
    if (u.protocol !== "http:" && u.protocol !== "https:") return false;
    const port = u.port || (u.protocol === "https:" ? "443" : "80");
    const name = split(hostEntry(u.host) ?? "").name;
    const host = hostEntry(hostHeader);
    if (host) {
      const h = split(host);
      if (h.name === name && (h.port || (u.protocol === "https:" ? "443" : "80")) === port) return true;
    }
    return this.declared.some((d) => {
      const e = split(d);
      return e.name === name && (!e.port || e.port === port);
    });
  }
}

/** The Host a request was sent to (HTTP/1.0 may leave the header out: the URL then carries it). */
export function requestHost(request: Request): string {
  return request.headers.get("host") ?? new URL(request.url).host;
}

/** Whether a request may change something (anything but GET and HEAD). */
export function changes(request: Request): boolean {
  return !SAFE_METHODS.has(request.method.toUpperCase());
}

const EMPTY_SEGMENT =
  "the path has an empty part: a '.' or '..' in it, or a doubled or trailing '/', names nothing here";

/** Why a path is refused (it does not decode, or it has an empty part), or null. */
export function pathProblem(pathname: string): string | null {
  if (pathname !== "/" && pathname !== "/ui/" && (pathname.endsWith("/") || pathname.includes("//"))) {
    return EMPTY_SEGMENT;
  }
  for (const part of pathname.split("/")) {
    if (!part.includes("%")) continue;
    try {
      decodeURIComponent(part);
    } catch {
      return "the path is not valid percent-encoding: escape '%' as %25";
    }
  }
  return null;
}
