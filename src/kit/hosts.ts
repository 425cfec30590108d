// Host patterns and address classes, one meaning wherever a host is matched: a secret's
// allowed_urls and the navigation policy's allowed and blocked hosts. A pattern is a host
// (`app.example.test`, `10.0.0.5`, `[::1]`) or `*.` and a host, which stands for that host and
// every name under it (`*.example.test`: example.test, app.example.test, a.b.example.test). No
// other `*` is taken: a pattern that holds one elsewhere is refused where it is read.

/** Why `pattern` is not a host pattern (null when it is one). */
export function hostPatternProblem(pattern: string): string | null {
  const p = pattern.trim().toLowerCase();
  if (!p) return "it is empty";
  const body = p.startsWith("*.") ? p.slice(2) : p;
  if (body.includes("*")) {
    return `${pattern.trim()} is a glob that is not supported: write *.host (the host and every name under it) or a host`;
  }
  if (!URL.canParse(`http://${body}/`) || new URL(`http://${body}/`).host !== body) {
    return `${pattern.trim()} is not a host`;
  }
  return null;
}

/** Whether `host` (a URL's hostname, lower-case; IPv6 in brackets) is one `pattern` names. */
export function hostMatches(pattern: string, host: string): boolean {
  const p = pattern.trim().toLowerCase();
  const h = host.toLowerCase().replace(/\.$/, "");
  if (!p.startsWith("*.")) return p === h;
  const base = p.slice(2);
  return h === base || h.endsWith(`.${base}`);
}

/** The host as a URL parser writes it (IPv4 forms in hex, octal or one number made dotted). */
export function canonicalHost(host: string): string {
  try {
    return new URL(`http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}/`).hostname;
  } catch {
    return host.toLowerCase();
  }
}

/** Names that always stand for this machine or a cloud's metadata service. */
const PRIVATE_NAMES: [string, string][] = [
  ["*.localhost", "loopback"],
  ["metadata.google.internal", "metadata"],
  ["metadata.goog", "metadata"],
];

/** IPv4 ranges that are not the public internet: [first octets as a number, prefix bits, class]. */
const V4: [number, number, string][] = [
  [0x00000000, 8, "this network"],
  [0x0a000000, 8, "private"],
  [0x64400000, 10, "shared (carrier-grade NAT; cloud metadata)"],
  [0x7f000000, 8, "loopback"],
  [0xa9fe0000, 16, "link-local (cloud metadata)"],
  [0xac100000, 12, "private"],
  [0xc0000000, 24, "IETF protocol assignments"],
  [0xc0a80000, 16, "private"],
  [0xc6120000, 15, "benchmarking"],
  [0xe0000000, 3, "multicast or reserved"],
];

function v4Class(n: number): string | null {
  for (const [net, bits, name] of V4) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === net) return name;
  }
  return null;
}

function v4Number(host: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((x) => x > 255)) return null;
  return (((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!) >>> 0;
}

/** The eight 16-bit groups of an IPv6 address as a URL parser writes it (no brackets), or null. */
function v6Groups(addr: string): number[] | null {
  if (!addr.includes(":")) return null;
  let text = addr;
  // A dotted IPv4 tail (a URL parser writes it in hex, but be lenient).
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const n = v4Number(tail[1]!);
    if (n === null) return null;
    text = `${text.slice(0, -tail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s ? s.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = 8 - head.length - rest.length;
  const groups = halves.length === 2 ? [...head, ...Array(Math.max(0, fill)).fill(0), ...rest] : head;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : null;
}

function v6Class(g: number[]): string | null {
  const zeroUntil = (i: number) => g.slice(0, i).every((x) => x === 0);
  if (zeroUntil(8)) return "unspecified";
  if (zeroUntil(7) && g[7] === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d): the IPv4 inside.
  const embedded =
    (zeroUntil(5) && g[5] === 0xffff) ||
    zeroUntil(6) ||
    (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0));
  if (embedded) return v4Class(((g[6]! << 16) >>> 0) + g[7]!) ?? (zeroUntil(6) ? "IPv4-compatible" : null);
  if ((g[0]! & 0xfe00) === 0xfc00) return "unique local (private; cloud metadata)";
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0]! & 0xffc0) === 0xfec0) return "site-local";
  if ((g[0]! & 0xff00) === 0xff00) return "multicast";
  return null;
}

/**
 * What kind of non-public address `host` is (a URL's hostname: any IPv4 form a URL takes, an IPv6
 * address in brackets, or a name), or null for a public address or an ordinary name. Only what the
 * host says is judged: a name that resolves to a private address is not seen here.
 */
export function privateAddress(host: string): string | null {
  const h = canonicalHost(host).replace(/\.$/, "");
  if (h === "localhost") return "loopback";
  for (const [p, kind] of PRIVATE_NAMES) if (hostMatches(p, h)) return kind;
  const v4 = v4Number(h);
  if (v4 !== null) return v4Class(v4);
  if (h.startsWith("[") && h.endsWith("]")) {
    const g = v6Groups(h.slice(1, -1));
    return g ? v6Class(g) : "unreadable IPv6";
  }
  return null;
}
