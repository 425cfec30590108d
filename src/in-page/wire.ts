// Page side: how values cross between the server and the sandbox. Arguments come as one JSON
// string plus the nodes it refers to; results go back the same way, so the page's own JSON,
// Array or Object (which it may have replaced) never touch them: the sandbox has its own.

type Ref = { $sf: number };

// Nodes and windows of any frame's realm (instanceof would miss a child frame's).
function isNode(x: object): boolean {
  const n = x as { nodeType?: unknown; nodeName?: unknown };
  return typeof n.nodeType === "number" && typeof n.nodeName === "string";
}
function isWindow(x: object): boolean {
  try {
    return (x as { window?: unknown }).window === x;
  } catch {
    return false;
  }
}

/** `[json, ...refs]`: the value as JSON with each node or window replaced by `{"$sf": i}`. */
export function pack(value: unknown): unknown[] {
  const refs: unknown[] = [];
  // Swapped before JSON sees them: JSON.stringify would read a cross-origin window's toJSON.
  const swap = (x: unknown, depth: number): unknown => {
    if (x === null || typeof x !== "object" || depth > 50) return x;
    if (isWindow(x) || isNode(x)) {
      refs.push(x);
      return { $sf: refs.length - 1 } satisfies Ref;
    }
    if (Array.isArray(x)) return x.map((y) => swap(y, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, y] of Object.entries(x)) out[k] = swap(y, depth + 1);
    return out;
  };
  const json = JSON.stringify(swap(value === undefined ? null : value, 0));
  return [json ?? "null", ...refs];
}

/** The arguments `pack` on the server side sent: JSON whose `{"$sf": i}` are `refs[i]`. */
export function unpack(json: string, refs: unknown[]): unknown[] {
  return JSON.parse(json, (_k, x: unknown) =>
    x !== null && typeof x === "object" && typeof (x as Ref).$sf === "number" && Object.keys(x).length === 1
      ? refs[(x as Ref).$sf]
      : x,
  ) as unknown[];
}
