// A small HTML tree for tests of rendered views (Bun's HTMLRewriter does the parsing): find
// elements by a predicate or a simple selector, read their text and attributes.
export interface El {
  tag: string;
  attrs: Record<string, string>;
  children: Array<El | string>;
  parent: El | null;
}

export function parseHtml(html: string): El {
  const root: El = { tag: "#root", attrs: {}, children: [], parent: null };
  let cur = root;
  new HTMLRewriter()
    .on("*", {
      element(e) {
        const attrs = Object.fromEntries([...e.attributes].map(([k, v]) => [k, decode(v)]));
        const node: El = { tag: e.tagName, attrs, children: [], parent: cur };
        cur.children.push(node);
        if (!e.selfClosing && e.canHaveContent) {
          cur = node;
          e.onEndTag(() => {
            cur = node.parent ?? root;
          });
        }
      },
    })
    .onDocument({
      text(t) {
        if (t.text) cur.children.push(decode(t.text));
      },
    })
    .transform(html);
  return root;
}

function decode(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;|&#34;/g, '"')
    .replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

export function text(el: El): string {
  return el.children.map((c) => (typeof c === "string" ? c : text(c))).join("");
}

export function classes(el: El): string[] {
  return (el.attrs.class ?? "").split(/\s+/).filter(Boolean);
}

/**
 * Elements matching a simple selector: `tag`, `#id`, `.a.b`, `[attr]`, `[attr=value]`, combined
 * (`section.section`, `button[aria-expanded]`), and descendant chains separated by spaces.
 */
export function all(root: El, selector: string): El[] {
  const steps = selector.trim().split(/\s+/);
  let scope: El[] = [root];
  for (const step of steps) {
    const next: El[] = [];
    for (const s of scope)
      for (const d of descendants(s)) if (matches(d, step) && !next.includes(d)) next.push(d);
    scope = next;
  }
  return scope;
}

export function one(root: El, selector: string): El {
  const found = all(root, selector);
  if (found.length !== 1) throw new Error(`${found.length} elements match ${selector}`);
  return found[0] as El;
}

function* descendants(el: El): Generator<El> {
  for (const c of el.children) {
    if (typeof c === "string") continue;
    yield c;
    yield* descendants(c);
  }
}

function matches(el: El, step: string): boolean {
  const m = /^([a-z0-9-]*)((?:[#.][\w:.-]+?)*)((?:\[[^\]]+\])*)$/i.exec(step);
  if (!m) throw new Error(`unsupported selector ${step}`);
  const [, tag, rest, attrs] = m;
  if (tag && el.tag !== tag.toLowerCase()) return false;
  for (const part of (rest ?? "").match(/[#.][^#.]+/g) ?? []) {
    if (part[0] === "#" && el.attrs.id !== part.slice(1)) return false;
    if (part[0] === "." && !classes(el).includes(part.slice(1))) return false;
  }
  for (const a of (attrs ?? "").match(/\[[^\]]+\]/g) ?? []) {
    const [name, value] = a.slice(1, -1).split("=") as [string, string | undefined];
    if (!(name in el.attrs)) return false;
    if (value !== undefined && el.attrs[name] !== value.replace(/^"|"$/g, "")) return false;
  }
  return true;
}
