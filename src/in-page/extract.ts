// extract's read of what a selector matches: text, value, HTML, an attribute or the box, of the
// first match or of all, cut to the sizes asked; a password field's value is never read.
import { BUTTON_INPUTS, norm, shownText, textOf } from "./dom.ts";
import { plainOf } from "./plain.ts";
import { find, type PageSelector } from "./selectors.ts";

/** What extract asks for (the server's `ReadArgs`, src/browser/extract.ts). */
interface ReadArgs {
  max: number;
  get: "text" | "value" | "html" | "attribute" | "box";
  offset: number;
  attribute: string | null;
  all: boolean;
  maxValue: number;
  maxTotal: number;
}

/** The matches of `sel`, read as `o` asks (see ReadArgs). */
export function readMatches(sel: PageSelector, o: ReadArgs): unknown {
  const found = find(sel);
  if (found.invalid) return { total: 0, visible: 0, invalid: found.invalid };
  const base = { total: found.els.length, visible: found.visible };
  if (!found.els.length) return base;
  // Every match in page order; one: the first visible match, else the first.
  const els = o.all
    ? found.els
        .slice()
        .sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))
        .slice(0, o.max)
    : found.els.slice(0, 1);
  // A password field's value is never read: one is refused, and among all it reads as null.
  const secretive = (e: Element) =>
    e.tagName === "INPUT" &&
    (e as HTMLInputElement).type === "password" &&
    (o.get === "value" || o.get === "text" || (o.get === "attribute" && o.attribute === "value"));
  if (!o.all && els.some(secretive)) return { ...base, password: true };
  const shown = (e: Element): string => {
    const t = e.tagName;
    if (t === "INPUT" || t === "TEXTAREA") {
      const type = (e as HTMLInputElement).type;
      if (t === "INPUT" && ["checkbox", "radio"].includes(type))
        return (e as HTMLInputElement).checked ? "checked" : "unchecked";
      if (t === "INPUT" && BUTTON_INPUTS.includes(type)) return textOf(e);
      return (e as HTMLInputElement).value;
    }
    if (t === "SELECT") {
      return Array.from((e as HTMLSelectElement).selectedOptions)
        .map((op) => norm(op.label || op.text))
        .join(", ");
    }
    return shownText(e);
  };
  const raw = (e: Element): string | null => {
    if (secretive(e)) return null;
    if (o.get === "text") return shown(e);
    if (o.get === "html") return e.outerHTML;
    if (o.get === "attribute") return e.getAttribute(o.attribute as string);
    const v = (e as HTMLInputElement).value;
    return typeof v === "string" ? plainOf(e, v) : null;
  };
  type Box = { x: number; y: number; width: number; height: number };
  const read = (e: Element): string | null | Box => {
    if (o.get === "box") {
      const r = e.getBoundingClientRect();
      const n = (v: number) => Math.round(v * 100) / 100;
      return { x: n(r.x), y: n(r.y), width: n(r.width), height: n(r.height) };
    }
    return raw(e);
  };
  let total = 0;
  let truncated = false;
  const results: unknown[] = [];
  for (const e of els) {
    let v = read(e);
    if (typeof v === "string" && o.offset) v = v.slice(o.offset);
    if (typeof v === "string" && v.length > o.maxValue) {
      v = v.slice(0, o.maxValue);
      truncated = true;
    }
    total += typeof v === "string" ? v.length : 40;
    if (total > o.maxTotal) {
      truncated = true;
      break;
    }
    results.push(v);
  }
  return { ...base, results, truncated: truncated || (o.all && found.els.length > o.max) };
}
