// The page-side library: finding elements by selector, visibility, roles, accessible names, unique
// CSS selectors and "what is there instead" hints. It runs inside the browser: `pageLib` is sent as
// source text (Function.toString) with every script, so it must not reference anything outside itself.

export type PageSelector =
  | { css: string }
  | { xpath: string }
  | { text: string; exact?: boolean }
  | { label: string }
  | { role: string; name?: string };

export interface Found {
  /** Matches, visible ones first, each group in document order. */
  els: Element[];
  visible: number;
  /** Set when the selector itself is broken: which kind and the browser's reason. */
  invalid?: { kind: "css" | "xpath"; reason: string };
}

export function pageLib() {
  const norm = (s: string | null | undefined): string => (s ?? "").replace(/\s+/g, " ").trim();
  const low = (s: string | null | undefined): string => norm(s).toLowerCase();
  const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

  function isVisible(el: Element): boolean {
    if (!el.isConnected) return false;
    const tag = el.tagName;
    if (tag === "OPTION" || tag === "OPTGROUP") {
      const select = el.closest("select");
      return select ? isVisible(select) : false;
    }
    const style = (el.ownerDocument.defaultView ?? window).getComputedStyle(el);
    if (style.display === "contents") return Array.from(el.children).some(isVisible);
    if (style.visibility !== "visible") return false;
    const withCheck = el as Element & { checkVisibility?: () => boolean };
    if (withCheck.checkVisibility && !withCheck.checkVisibility()) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }

  /** Every element under root, open shadow roots included (their content right after the host). */
  function allElements(root: Document | ShadowRoot | Element): Element[] {
    const out: Element[] = [];
    for (const el of Array.from(root.querySelectorAll("*"))) {
      out.push(el);
      if (el.shadowRoot) for (const inner of allElements(el.shadowRoot)) out.push(inner);
    }
    return out;
  }

  const rootsSeen = new Map<Document | ShadowRoot, ShadowRoot[]>();
  /** Open shadow roots under root, nested ones included (remembered for this script run). */
  function shadowRoots(root: Document | ShadowRoot): ShadowRoot[] {
    const known = rootsSeen.get(root);
    if (known) return known;
    const out: ShadowRoot[] = [];
    rootsSeen.set(root, out);
    for (const el of Array.from(root.querySelectorAll("*"))) {
      if (el.shadowRoot) out.push(el.shadowRoot, ...shadowRoots(el.shadowRoot));
    }
    return out;
  }

  /** CSS over the document; when the document has no match, over its open shadow roots. */
  function css(query: string, doc: Document = document): Element[] {
    const direct = Array.from(doc.querySelectorAll(query));
    if (direct.length) return direct;
    const out: Element[] = [];
    for (const root of shadowRoots(doc))
      for (const el of Array.from(root.querySelectorAll(query))) out.push(el);
    return out;
  }

  function xpath(query: string): Element[] {
    const snap = document.evaluate(query, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const out: Element[] = [];
    for (let i = 0; i < snap.snapshotLength; i++) {
      const node = snap.snapshotItem(i);
      const el = node && node.nodeType === 1 ? (node as Element) : (node?.parentElement ?? null);
      if (el && !out.includes(el)) out.push(el);
    }
    return out;
  }

  const BUTTON_INPUTS = ["button", "submit", "reset", "image"];

  /** The text an element shows (a button input's value; hidden elements read as their textContent). */
  function textOf(el: Element): string {
    if (el.tagName === "INPUT") {
      const input = el as HTMLInputElement;
      if (BUTTON_INPUTS.includes(input.type))
        return norm(input.value || (input.type === "submit" ? "Submit" : ""));
      return "";
    }
    // biome-ignore lint/performance/useDomNodeTextContent: the text as shown is what a selector by text means
    const shown = (el as HTMLElement).innerText;
    return norm(typeof shown === "string" ? shown : el.textContent);
  }

  /** Keeps only matches with no matching descendant (the element that holds the text itself). */
  function deepest(matches: Element[]): Element[] {
    const set = new Set(matches);
    const covered = new Set<Element>();
    for (const m of matches) {
      let p: Element | null = m.parentElement ?? ((m.getRootNode() as ShadowRoot).host || null);
      while (p) {
        if (set.has(p)) {
          if (covered.has(p)) break;
          covered.add(p);
        }
        p = p.parentElement ?? ((p.getRootNode() as ShadowRoot).host || null);
      }
    }
    return matches.filter((m) => !covered.has(m));
  }

  const SKIP_TEXT = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "META", "LINK"]);

  function byText(text: string, exact: boolean): Element[] {
    const want = exact ? norm(text) : low(text);
    if (!want) return [];
    const hits: Element[] = [];
    for (const el of allElements(document)) {
      if (SKIP_TEXT.has(el.tagName)) continue;
      const raw = el.tagName === "INPUT" ? (el as HTMLInputElement).value : el.textContent;
      if (!raw?.toLowerCase().includes(want.split(" ")[0]!.toLowerCase())) continue;
      const shown = textOf(el);
      if (exact ? shown === want : shown.toLowerCase().includes(want)) hits.push(el);
    }
    return deepest(hits);
  }

  // ---- roles and accessible names -------------------------------------------------------------

  const TEXT_INPUTS = ["", "text", "email", "tel", "url", "password", "search", "number"];

  function implicitRole(el: Element): string | null {
    const tag = el.tagName;
    switch (tag) {
      case "A":
      case "AREA":
        return el.hasAttribute("href") ? "link" : null;
      case "BUTTON":
        return "button";
      case "SUMMARY":
        return "button";
      case "INPUT": {
        const t = (el as HTMLInputElement).type;
        if (BUTTON_INPUTS.includes(t)) return "button";
        if (t === "checkbox") return "checkbox";
        if (t === "radio") return "radio";
        if (t === "range") return "slider";
        if (t === "number") return "spinbutton";
        if (t === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
        if (TEXT_INPUTS.includes(t)) return el.hasAttribute("list") ? "combobox" : "textbox";
        return null;
      }
      case "SELECT": {
        const s = el as HTMLSelectElement;
        return s.multiple || s.size > 1 ? "listbox" : "combobox";
      }
      case "TEXTAREA":
        return "textbox";
      case "OPTION":
        return "option";
      case "H1":
      case "H2":
      case "H3":
      case "H4":
      case "H5":
      case "H6":
        return "heading";
      case "NAV":
        return "navigation";
      case "MAIN":
        return "main";
      case "ASIDE":
        return "complementary";
      case "HEADER":
        return el.parentElement?.closest("article,aside,main,nav,section") ? null : "banner";
      case "FOOTER":
        return el.parentElement?.closest("article,aside,main,nav,section") ? null : "contentinfo";
      case "FORM":
        return "form";
      case "SECTION":
        return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : null;
      case "UL":
      case "OL":
      case "MENU":
        return "list";
      case "LI":
        return "listitem";
      case "TABLE":
        return "table";
      case "TR":
        return "row";
      case "TD":
        return "cell";
      case "TH":
        return el.getAttribute("scope") === "row" ? "rowheader" : "columnheader";
      case "IMG":
        return el.getAttribute("alt") === "" ? "presentation" : "img";
      case "DIALOG":
        return "dialog";
      case "ARTICLE":
        return "article";
      case "FIELDSET":
      case "DETAILS":
        return "group";
      case "PROGRESS":
        return "progressbar";
      case "HR":
        return "separator";
      case "SEARCH":
        return "search";
      default:
        return (el as HTMLElement).isContentEditable && !el.parentElement?.closest("[contenteditable]")
          ? "textbox"
          : null;
    }
  }

  function roleOf(el: Element): string | null {
    const explicit = (el.getAttribute("role") ?? "").trim().split(/\s+/)[0];
    return explicit ? explicit.toLowerCase() : implicitRole(el);
  }

  // Where an implicit role can come from, so a role search looks at few elements.
  const ROLE_TAGS: Record<string, string> = {
    link: "a[href],area[href]",
    button: "button,summary,input[type=button],input[type=submit],input[type=reset],input[type=image]",
    checkbox: "input[type=checkbox]",
    radio: "input[type=radio]",
    slider: "input[type=range]",
    spinbutton: "input[type=number]",
    textbox: "input,textarea,[contenteditable]",
    searchbox: "input[type=search]",
    combobox: "select,input[list]",
    listbox: "select",
    option: "option",
    heading: "h1,h2,h3,h4,h5,h6",
    navigation: "nav",
    main: "main",
    complementary: "aside",
    banner: "header",
    contentinfo: "footer",
    form: "form",
    region: "section",
    list: "ul,ol,menu",
    listitem: "li",
    table: "table",
    row: "tr",
    cell: "td",
    columnheader: "th",
    rowheader: "th",
    img: "img",
    dialog: "dialog",
    article: "article",
    group: "fieldset,details",
    progressbar: "progress",
    separator: "hr",
    search: "search",
  };

  const NAME_FROM_CONTENT = new Set([
    "button",
    "link",
    "heading",
    "cell",
    "columnheader",
    "rowheader",
    "checkbox",
    "radio",
    "switch",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "treeitem",
    "tooltip",
    "row",
    "gridcell",
  ]);

  function idsText(el: Element, attr: string): string {
    const ids = (el.getAttribute(attr) ?? "").trim().split(/\s+/).filter(Boolean);
    const root = el.getRootNode() as Document | ShadowRoot;
    return norm(
      ids
        .map((id) => {
          const ref = root.getElementById ? root.getElementById(id) : document.getElementById(id);
          return ref ? textOf(ref) || norm(ref.getAttribute("aria-label")) : "";
        })
        .join(" "),
    );
  }

  /** A label's own words, without the text of a control it wraps (a select's options, say). */
  function labelText(label: Element): string {
    const copy = label.cloneNode(true) as Element;
    for (const c of Array.from(copy.querySelectorAll("select,textarea,input,datalist"))) c.remove();
    return norm(copy.textContent);
  }

  function fieldLabels(el: Element): string[] {
    const labels = (el as HTMLInputElement).labels;
    return labels ? Array.from(labels).map(labelText).filter(Boolean) : [];
  }

  function contentName(el: Element): string {
    const shown = textOf(el);
    if (shown) return shown;
    const img = el.querySelector("img[alt]:not([alt='']),[aria-label]");
    if (img) return norm(img.getAttribute("alt") || img.getAttribute("aria-label"));
    return "";
  }

  function accessibleName(el: Element): string {
    const by = idsText(el, "aria-labelledby");
    if (by) return by;
    const aria = norm(el.getAttribute("aria-label"));
    if (aria) return aria;
    const tag = el.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || tag === "METER" || tag === "PROGRESS") {
      const input = el as HTMLInputElement;
      if (tag === "INPUT" && BUTTON_INPUTS.includes(input.type)) {
        if (input.type === "image") return norm(input.alt) || norm(input.title) || "Submit";
        return textOf(el) || (input.type === "reset" ? "Reset" : "");
      }
      const labels = fieldLabels(el).join(" ");
      if (labels) return labels;
      return norm(el.getAttribute("title")) || norm(el.getAttribute("placeholder"));
    }
    if (tag === "IMG" || tag === "AREA")
      return norm(el.getAttribute("alt")) || norm(el.getAttribute("title"));
    if (tag === "FIELDSET") {
      const legend = el.querySelector(":scope > legend");
      if (legend) return textOf(legend);
    }
    if (tag === "TABLE") {
      const caption = el.querySelector(":scope > caption");
      if (caption) return textOf(caption);
    }
    if (tag === "FIGURE") {
      const fc = el.querySelector(":scope > figcaption");
      if (fc) return textOf(fc);
    }
    const role = roleOf(el);
    if (role && NAME_FROM_CONTENT.has(role)) {
      const fromLabels = fieldLabels(el).join(" ");
      const name = contentName(el) || fromLabels;
      if (name) return name;
    }
    return norm(el.getAttribute("title"));
  }

  function byRole(role: string, name: string | undefined): Element[] {
    const want = role.trim().toLowerCase();
    const tags = ROLE_TAGS[want];
    const query = tags ? `${tags},[role]` : "[role]";
    const pool: Element[] = [];
    for (const el of css(query)) pool.push(el);
    // shadow roots hold their own matches too when the document also had some
    for (const root of shadowRoots(document))
      for (const el of Array.from(root.querySelectorAll(query))) pool.push(el);
    const withRole = Array.from(new Set(pool)).filter((el) => roleOf(el) === want);
    if (name === undefined) return withRole;
    const n = low(name);
    const named = withRole.map((el) => [el, low(accessibleName(el))] as const);
    const exact = named.filter(([, got]) => got === n).map(([el]) => el);
    return exact.length ? exact : named.filter(([, got]) => got.includes(n)).map(([el]) => el);
  }

  const FIELDS =
    "input:not([type=hidden]),select,textarea,[contenteditable]:not([contenteditable=false]),[role=textbox],[role=combobox],[role=checkbox],[role=radio],[role=switch],[role=slider],[role=spinbutton],[role=searchbox],[role=listbox]";

  function fieldsOf(root: Document | ShadowRoot): Element[] {
    const out = Array.from(root.querySelectorAll(FIELDS));
    for (const inner of shadowRoots(root as Document))
      out.push(...Array.from(inner.querySelectorAll(FIELDS)));
    return out.filter(
      (el) => !(el.tagName === "INPUT" && BUTTON_INPUTS.includes((el as HTMLInputElement).type)),
    );
  }

  /** The names a form field goes by, strongest first: label, aria-labelledby, aria-label; then placeholder. */
  function labelsOf(el: Element): { primary: string[]; placeholder: string } {
    const primary = [...fieldLabels(el), idsText(el, "aria-labelledby"), norm(el.getAttribute("aria-label"))];
    return {
      primary: primary.filter(Boolean),
      placeholder: norm(el.getAttribute("placeholder") || el.getAttribute("aria-placeholder")),
    };
  }

  const trimLabel = (s: string) => low(s).replace(/[\s:*]+$/, "");

  function byLabel(label: string): Element[] {
    const want = trimLabel(label);
    if (!want) return [];
    const fields = fieldsOf(document).map((el) => ({ el, names: labelsOf(el) }));
    const tiers = [
      fields.filter((f) => f.names.primary.some((p) => trimLabel(p) === want)),
      fields.filter((f) => trimLabel(f.names.placeholder) === want),
      fields.filter((f) => f.names.primary.some((p) => low(p).includes(want))),
      fields.filter((f) => low(f.names.placeholder).includes(want)),
    ];
    for (const tier of tiers) if (tier.length) return tier.map((f) => f.el);
    return [];
  }

  function find(sel: PageSelector): Found {
    let els: Element[] = [];
    if ("css" in sel) {
      try {
        els = css(sel.css);
      } catch (e) {
        return { els: [], visible: 0, invalid: { kind: "css", reason: String((e as Error).message || e) } };
      }
    } else if ("xpath" in sel) {
      try {
        els = xpath(sel.xpath);
      } catch (e) {
        return { els: [], visible: 0, invalid: { kind: "xpath", reason: String((e as Error).message || e) } };
      }
    } else if ("text" in sel) els = byText(sel.text, sel.exact !== false);
    else if ("label" in sel) els = byLabel(sel.label);
    else if ("role" in sel) els = byRole(sel.role, sel.name);
    const shown = els.filter(isVisible);
    const hidden = els.filter((el) => !shown.includes(el));
    return { els: [...shown, ...hidden], visible: shown.length };
  }

  // ---- unique CSS selectors -------------------------------------------------------------------

  const quote = (v: string) => `"${v.replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ")}"`;

  /** Whether `query` (as `css` runs it) finds exactly `el` in el's document. */
  function uniqueFor(el: Element, query: string): boolean {
    try {
      const got = css(query, el.ownerDocument);
      return got.length === 1 && got[0] === el;
    } catch {
      return false;
    }
  }

  const ATTRS = [
    "data-testid",
    "data-test",
    "data-test-id",
    "data-qa",
    "data-cy",
    "name",
    "aria-label",
    "placeholder",
    "title",
    "alt",
    "for",
    "href",
    "value",
    "type",
  ];

  /** A short CSS selector that matches exactly el: #id, a unique attribute, or a short path. */
  function cssFor(el: Element): string | null {
    const tag = el.tagName.toLowerCase();
    if (el.id && uniqueFor(el, `#${CSS.escape(el.id)}`)) return `#${CSS.escape(el.id)}`;
    for (const attr of ATTRS) {
      const v = el.getAttribute(attr);
      if (v === null || v.length > 120) continue;
      const q = `${tag}[${attr}=${quote(v)}]`;
      if (uniqueFor(el, q)) return q;
    }
    const name = el.getAttribute("name");
    const value = el.getAttribute("value");
    if (name !== null && value !== null && value.length <= 120) {
      const q = `${tag}[name=${quote(name)}][value=${quote(value)}]`;
      if (uniqueFor(el, q)) return q;
    }
    // A path of tag:nth-of-type steps, anchored at the nearest ancestor with a unique id if any.
    const steps: string[] = [];
    let cur: Element | null = el;
    while (cur) {
      const node: Element = cur;
      const parent = node.parentNode;
      let step = node.tagName.toLowerCase();
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.tagName === node.tagName);
        if (same.length > 1) step += `:nth-of-type(${same.indexOf(node) + 1})`;
      }
      steps.unshift(step);
      const up = node.parentElement;
      if (up?.id && uniqueFor(up, `#${CSS.escape(up.id)}`)) {
        const anchored = `#${CSS.escape(up.id)} > ${steps.join(" > ")}`;
        if (uniqueFor(el, anchored)) return anchored;
      }
      const q = steps.join(" > ");
      if (uniqueFor(el, q)) return q;
      cur = up;
    }
    return null;
  }

  // ---- what was there instead -----------------------------------------------------------------

  function bigrams(s: string): string[] {
    const out: string[] = [];
    for (let i = 0; i < s.length - 1; i++) out.push(s.slice(i, i + 2));
    return out;
  }

  function similarity(a: string, b: string): number {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    if (!x || !y) return 0;
    if (x === y) return 2;
    if (y.includes(x) || x.includes(y))
      return 1 + Math.min(x.length, y.length) / Math.max(x.length, y.length);
    const bx = bigrams(x);
    const by = bigrams(y);
    if (!bx.length || !by.length) return 0;
    let common = 0;
    const pool = [...by];
    for (const g of bx) {
      const i = pool.indexOf(g);
      if (i >= 0) {
        common++;
        pool.splice(i, 1);
      }
    }
    return (2 * common) / (bx.length + by.length);
  }

  function nearest(want: string, candidates: string[], n: number): string[] {
    const unique = Array.from(new Set(candidates.map((c) => cut(norm(c), 60)).filter(Boolean)));
    return unique
      .map((c) => [c, similarity(want, c)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([c]) => c);
  }

  const INTERACTIVE =
    "a[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable]:not([contenteditable=false]),[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],[role=option],[role=combobox],[role=textbox],[onclick],[tabindex]:not([tabindex='-1'])";

  /** A few things on the page nearest to what `sel` asked for, for a "nothing matched" message. */
  function hints(sel: PageSelector): { what: string; items: string[]; roles?: string[] } {
    if ("text" in sel) {
      const texts: string[] = [];
      for (const el of allElements(document)) {
        if (SKIP_TEXT.has(el.tagName)) continue;
        const own = Array.from(el.childNodes)
          .filter((n) => n.nodeType === 3)
          .map((n) => n.textContent ?? "")
          .join(" ");
        const clickable = el.matches(INTERACTIVE);
        const t = clickable ? textOf(el) : norm(own);
        if (t && isVisible(el)) texts.push(t);
      }
      return { what: "visible texts", items: nearest(sel.text, texts, 5) };
    }
    if ("label" in sel) {
      const names: string[] = [];
      for (const el of fieldsOf(document)) {
        if (!isVisible(el)) continue;
        const l = labelsOf(el);
        names.push(...l.primary, l.placeholder);
      }
      return { what: "field labels", items: nearest(sel.label, names, 5) };
    }
    if ("role" in sel) {
      const counts = new Map<string, number>();
      const names: string[] = [];
      const want = sel.role.trim().toLowerCase();
      for (const el of allElements(document)) {
        const r = roleOf(el);
        if (!r || !isVisible(el)) continue;
        counts.set(r, (counts.get(r) ?? 0) + 1);
        if (r === want) names.push(accessibleName(el));
      }
      const roles = Array.from(counts.entries())
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([r, c]) => `${r} (${c})`);
      return {
        what: `names of ${want} elements`,
        items: sel.name === undefined ? [] : nearest(sel.name, names, 5),
        roles,
      };
    }
    // A CSS or XPath query: rank elements by how well the query's words match their attributes and name.
    const query = "css" in sel ? sel.css : sel.xpath;
    const words = (t: string) =>
      t
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter((w) => w.length > 1);
    const want = words(query).filter(
      (w) =>
        ![
          "div",
          "span",
          "input",
          "button",
          "contains",
          "text",
          "and",
          "or",
          "nth",
          "of",
          "type",
          "child",
        ].includes(w),
    );
    const ranked: [string, number][] = [];
    for (const el of Array.from(document.querySelectorAll(`${INTERACTIVE},[id]`)).slice(0, 400)) {
      if (!isVisible(el)) continue;
      const q = cssFor(el);
      if (!q) continue;
      const name = accessibleName(el);
      const attrs = [
        "id",
        "name",
        "type",
        "class",
        "placeholder",
        "aria-label",
        "href",
        "value",
        "for",
        "title",
      ]
        .map((a) => el.getAttribute(a) ?? "")
        .join(" ");
      const have = words(`${attrs} ${name} ${el.tagName} ${roleOf(el) ?? ""}`);
      let score = 0;
      for (const w of want) score += Math.max(0, ...have.map((h) => similarity(w, h)));
      ranked.push([`${q} (${roleOf(el) ?? el.tagName.toLowerCase()} "${cut(name, 30)}")`, score]);
    }
    const items = ranked
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([d]) => d);
    return { what: "elements with selectors", items };
  }

  /** A short description of an element for a message or a script result: <button#send.primary> "Send". */
  function describe(el: Element): string {
    let s = `<${el.tagName.toLowerCase()}`;
    if (el.id) s += `#${el.id}`;
    const cls = (el.getAttribute("class") ?? "").trim().split(/\s+/).filter(Boolean).slice(0, 2);
    if (cls.length) s += `.${cls.join(".")}`;
    s += ">";
    const name = cut(accessibleName(el) || textOf(el), 40);
    return name ? `${s} "${name}"` : s;
  }

  return {
    norm,
    cut,
    isVisible,
    allElements,
    find,
    roleOf,
    accessibleName,
    labelsOf,
    textOf,
    cssFor,
    hints,
    describe,
    INTERACTIVE,
    BUTTON_INPUTS,
  };
}

export type PageLib = ReturnType<typeof pageLib>;
