// A caller's JavaScript, wrapped so that it may be an expression ("document.title"), a function
// ("() => x", "async () => ..."), or a function body with return; and so that its result comes back
// JSON-safe: elements as short descriptions, cycles and functions marked, sizes bounded.
import type { PageLib } from "./lib.ts";
import { LIB } from "./run.ts";

/** Whether `source` parses as one expression (compiled only, never run, on the server). */
export function isExpression(source: string): boolean {
  try {
    new Function(`return (${source}\n);`);
    return true;
  } catch {
    return false;
  }
}

/** Turns any value into JSON: elements described, cycles, functions and odd numbers spelled out. */
function jsonSafe(L: PageLib, value: unknown): unknown {
  const seen = new Set<object>();
  let budget = 20_000;
  const walk = (v: unknown, depth: number): unknown => {
    if (--budget < 0) return "[…]";
    if (v === undefined || v === null) return null;
    const t = typeof v;
    if (t === "string" || t === "boolean") return v;
    if (t === "number") return Number.isFinite(v) ? v : String(v);
    if (t === "bigint") return String(v);
    if (t === "function") return "[function]";
    if (t === "symbol") return String(v);
    if (v instanceof Element) return L.describe(v);
    if (v instanceof Node) return `[${v.nodeName.toLowerCase()}]`;
    if (v === window) return "[window]";
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
    if (v instanceof RegExp || v instanceof Error) return String(v);
    const o = v as object;
    if (seen.has(o)) return "[circular]";
    if (depth > 20) return "[…]";
    seen.add(o);
    try {
      if (Array.isArray(o) || o instanceof NodeList || o instanceof HTMLCollection || o instanceof Set) {
        return Array.from(o as Iterable<unknown>).map((x) => walk(x, depth + 1));
      }
      if (o instanceof Map) {
        const out: Record<string, unknown> = {};
        for (const [k, x] of o) out[String(k)] = walk(x, depth + 1);
        return out;
      }
      const json = (o as { toJSON?: () => unknown }).toJSON;
      if (typeof json === "function") return walk(json.call(o), depth + 1);
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(o)) out[k] = walk((o as Record<string, unknown>)[k], depth + 1);
      return out;
    } finally {
      seen.delete(o);
    }
  };
  return walk(value, 0);
}

/**
 * The script to send for `source`: runs it with the caller's `arguments`, awaits a promise, and
 * returns its value through jsonSafe. With `truthy`, returns `{ok, value}` instead.
 */
export function userScript(source: string, truthy = false): string {
  const run = isExpression(source)
    ? `var __v = (${source}\n);\nif (typeof __v === "function") __v = __v.apply(null, arguments);`
    : `var __v = (function () {\n${source}\n}).apply(null, arguments);`;
  const finish = truthy
    ? "function (v) { return { ok: !!v, value: __safe(__lib, v) }; }"
    : "function (v) { return __safe(__lib, v); }";
  return [
    run,
    `var __lib = ${LIB}; `,
    `var __safe = ${jsonSafe.toString()};`,
    `var __done = ${finish};`,
    `return __v && typeof __v.then === "function" ? __v.then(__done) : __done(__v);`,
  ].join("\n");
}
