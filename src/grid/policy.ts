// The navigation policy: which hosts a browser's requests may reach. The server's (settings
// navigate.allowed_hosts, navigate.blocked_hosts, navigate.private_addresses) and a workspace's
// (open_session's policy) are layers, and a request must pass every layer: a workspace narrows,
// never widens. Host patterns and address classes are kit/hosts.ts's. The browser itself asks for
// each request (net-rules.ts); navigate and open_session ask before they send the tab anywhere.
import { canonicalHost, hostMatches, privateAddress } from "../kit/hosts.ts";

/** One layer as it is written: the server's settings or a workspace's open_session. */
export interface PolicyLayer {
  /** Host patterns; none: any host (but blocked and private ones). */
  allow?: readonly string[];
  /** Host patterns never reached. */
  block?: readonly string[];
  /** Private, loopback, link-local and metadata addresses are refused unless `allow` names them. */
  private?: boolean;
}

/** A refused request: the host and the rule that refused it, as a 400 or a log entry says them. */
export interface Refusal {
  host: string;
  rule: string;
}

/** The schemes whose requests reach a host; others (data:, blob:, about:) stay in the browser. */
const NETWORK = new Set(["http:", "https:", "ws:", "wss:", "ftp:"]);

const empty = (l: PolicyLayer) => !l.allow?.length && !l.block?.length && !l.private;

export class NavPolicy {
  private constructor(
    /** Each layer with the name its rules are said under: the server's settings, then the workspace's. */
    private readonly layers: { layer: PolicyLayer; by: "server" | "workspace" }[],
  ) {}

  /** The policy of `server` and `workspace` together, or null when neither says anything (nothing is checked). */
  static of(server: PolicyLayer, workspace?: PolicyLayer | null): NavPolicy | null {
    const layers = [
      { layer: server, by: "server" as const },
      ...(workspace ? [{ layer: workspace, by: "workspace" as const }] : []),
    ].filter((l) => !empty(l.layer));
    return layers.length ? new NavPolicy(layers) : null;
  }

  /** Why a request to `url` is refused, or null when it may go. */
  refusal(url: string): Refusal | null {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null;
    }
    if (!NETWORK.has(u.protocol)) return null;
    const host = canonicalHost(u.hostname);
    for (const { layer, by } of this.layers) {
      const rule = refusedBy(layer, host);
      if (rule) return { host, rule: by === "server" ? rule.server : rule.workspace };
    }
    return null;
  }

  /** A fingerprint of the rules: a connection whose rules did not change keeps its interception. */
  get key(): string {
    return JSON.stringify(this.layers);
  }
}

function refusedBy(layer: PolicyLayer, host: string): { server: string; workspace: string } | null {
  const blocked = layer.block?.find((p) => hostMatches(p, host));
  if (blocked) {
    return {
      server: `the server's navigate.blocked_hosts lists ${blocked}`,
      workspace: `this workspace's policy blocks ${blocked}`,
    };
  }
  const allowed = layer.allow?.some((p) => hostMatches(p, host)) ?? false;
  if (layer.allow?.length && !allowed) {
    const list = layer.allow.join(", ");
    return {
      server: `the server's navigate.allowed_hosts allows only ${list}`,
      workspace: `this workspace's policy allows only ${list}`,
    };
  }
  const kind = layer.private && !allowed ? privateAddress(host) : null;
  if (kind) {
    return {
      server: `it is a ${kind} address, which the server's navigate.private_addresses setting blocks`,
      workspace: `it is a ${kind} address, which this workspace's policy blocks`,
    };
  }
  return null;
}

/** A refusal as a sentence: "<host> is refused: <rule>". */
export const refusalText = (r: Refusal) => `${r.host} is refused by the navigation policy: ${r.rule}`;
