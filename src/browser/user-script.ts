// A caller's JavaScript, run in the page's own world (execute_script and assert's script): it may
// be an expression ("document.title"), a function ("() => x", "async () => ..."), or a function body
// with return. The browser serialises its value (BiDi), and the server turns that into JSON here:
// elements as short descriptions (read in the sandbox), cycles and functions marked, sizes bounded.
import type { Script } from "webdriver-bidi-protocol";
import type { WireValue } from "../grid/bidi.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";

/** Whether `source` parses as one expression (compiled only, never run, on the server). */
export function isExpression(source: string): boolean {
  try {
    new Function(`return (${source}\n);`);
    return true;
  } catch {
    return false;
  }
}

/** The function declaration that runs `source` with the caller's arguments and returns its value. */
export function userFunction(source: string): string {
  const run = isExpression(source)
    ? `var __v = (${source}\n);\nif (typeof __v === "function") __v = __v.apply(null, arguments);`
    : `var __v = (function () {\n${source}\n}).apply(null, arguments);`;
  return `function () {\n${run}\nreturn __v;\n}`;
}

/** A JSON value as a BiDi argument. */
export function toLocal(v: unknown): Script.LocalValue {
  if (v === null || v === undefined) return { type: "null" };
  if (typeof v === "string") return { type: "string", value: v };
  if (typeof v === "boolean") return { type: "boolean", value: v };
  if (typeof v === "number")
    return { type: "number", value: Number.isFinite(v) ? v : (String(v) as Script.SpecialNumber) };
  if (Array.isArray(v)) return { type: "array", value: v.map(toLocal) };
  if (typeof v === "object")
    return { type: "object", value: Object.entries(v).map(([k, x]) => [k, toLocal(x)]) };
  return { type: "null" };
}

/** What the value's truthiness was in the page. */
export function truthy(v: Script.RemoteValue): boolean {
  switch (v.type) {
    case "undefined":
    case "null":
      return false;
    case "boolean":
      return v.value === true;
    case "number":
      return v.value !== 0 && v.value !== "NaN" && v.value !== "-0";
    case "string":
      return v.value !== "";
    case "bigint":
      return v.value !== "0";
    default:
      return true;
  }
}

type Remote = WireValue;

const NODE_NAMES: Record<number, string> = {
  3: "#text",
  4: "#cdata-section",
  8: "#comment",
  9: "#document",
  10: "#doctype",
  11: "#document-fragment",
};

/**
 * The value as JSON: elements described as `<button#send> "Send"` (in the sandbox of `context`),
 * other nodes as `[#text]`, cycles as "[circular]", functions "[function]", odd numbers spelled out.
 */
export async function jsonOf(page: Page, context: string, value: Script.RemoteValue): Promise<unknown> {
  const elements: Remote[] = [];
  const seenIds = new Map<string, Remote>();
  // First pass: find the elements to describe (one sandbox call for all of them).
  const scan = (v: Remote) => {
    if (v.internalId && v.value !== undefined) seenIds.set(v.internalId, v);
    if (v.type === "node") {
      const n = v.value as { nodeType?: number } | undefined;
      if (n?.nodeType === 1 && v.sharedId) elements.push(v);
      return;
    }
    if (Array.isArray(v.value)) {
      for (const x of v.value as unknown[]) {
        if (Array.isArray(x)) for (const y of x) if (y && typeof y === "object") scan(y as Remote);
        if (x && typeof x === "object" && !Array.isArray(x)) scan(x as Remote);
      }
    }
  };
  scan(value as Remote);
  const described = new Map<string, string>();
  if (elements.length) {
    const refs: NodeRef[] = elements.slice(0, 500).map((e) => ({ sharedId: e.sharedId as string, context }));
    const texts = await page.callIn<string[]>(context, "describeAll", refs).catch(() => [] as string[]);
    refs.forEach((r, i) => {
      if (typeof texts[i] === "string") described.set(r.sharedId, texts[i] as string);
    });
  }
  let budget = 20_000;
  const walking = new Set<string>();
  const walk = (raw: Remote): unknown => {
    if (--budget < 0) return "[…]";
    let v = raw;
    if (v.internalId && v.value === undefined) {
      if (walking.has(v.internalId)) return "[circular]";
      v = seenIds.get(v.internalId) ?? v;
    }
    switch (v.type) {
      case "undefined":
      case "null":
        return null;
      case "string":
      case "boolean":
        return v.value;
      case "number":
        return typeof v.value === "number" ? v.value : v.value === "-0" ? 0 : String(v.value);
      case "bigint":
        return String(v.value);
      case "function":
        return "[function]";
      case "symbol":
        return "[symbol]";
      case "window":
        return "[window]";
      case "date": {
        const d = new Date(String(v.value));
        return Number.isNaN(d.getTime()) ? null : d.toISOString();
      }
      case "regexp": {
        const r = v.value as { pattern?: string; flags?: string } | undefined;
        return `/${r?.pattern ?? ""}/${r?.flags ?? ""}`;
      }
      case "error":
        return "[error]";
      case "node": {
        const n = v.value as { nodeType?: number; localName?: string } | undefined;
        if (n?.nodeType === 1)
          return (v.sharedId && described.get(v.sharedId)) || `<${n.localName ?? "element"}>`;
        return `[${NODE_NAMES[n?.nodeType ?? 0] ?? "node"}]`;
      }
    }
    if (v.value === undefined) return "[…]";
    const id = v.internalId;
    if (id) walking.add(id);
    try {
      if (v.type === "array" || v.type === "set" || v.type === "nodelist" || v.type === "htmlcollection") {
        return (v.value as Remote[]).map(walk);
      }
      if (v.type === "object" || v.type === "map") {
        const out: Record<string, unknown> = {};
        for (const pair of v.value as [string | Remote, Remote][]) {
          const [k, x] = pair;
          const key = typeof k === "string" ? k : String(walk(k));
          out[key] = walk(x);
        }
        return out;
      }
      return `[${v.type}]`;
    } finally {
      if (id) walking.delete(id);
    }
  };
  return walk(value as Remote);
}
