// Page side, standalone: functions sent as their own text (String(fn)), without the library, where
// it may not be there (a pop-up Chromium leaves unanswered, a spare tab's marked page) or a call must
// cost no more than one round trip and be queued at once. Each is self-contained: it names nothing
// outside itself. The sandbox globals they set are the library's too.

/**
 * Agent script may have reached this document (a script ran while it was open): no secret is typed
 * here (the library's `whereIs` says so). Sent straight on the socket, so it is queued before any
 * later call into the same sandbox.
 */
export function markScriptedDoc(): boolean {
  (globalThis as { __sfScripted?: boolean }).__sfScripted = true;
  return true;
}

/** Whether el is of this realm's own document: its origin as the document knows it ("scripted " first when marked so), else "". */
export function whereIs(el: Element | null): string {
  if (!el?.isConnected || el.ownerDocument !== document) return "";
  const scripted = (globalThis as { __sfScripted?: boolean }).__sfScripted === true;
  return (scripted ? "scripted " : "") + String(self.origin);
}

/** Whether agent script reached this document (markScriptedDoc). */
export function scriptedDoc(): boolean {
  return (globalThis as { __sfScripted?: boolean }).__sfScripted === true;
}

/** What the document calls itself (shown, not trusted). */
export function docTitle(): string {
  return String(document.title);
}

/** Answers at once: whether the document runs a script at all (a stuck page does not). */
export function ping(): number {
  return 1;
}

/** A pop-up's body and title, kept across the reload that frees it (grid/popup-kept.ts). */
export function readKept(): { body: string; title: string } {
  return { body: document.body ? document.body.innerHTML : "", title: String(document.title) };
}

/** What the opener appended to the pop-up's own body, appended again after its reload. */
export function putKeptBack(body: string, title: string): boolean {
  const now = document.body ? document.body.innerHTML : null;
  if (now !== null && body.length > now.length && body.startsWith(now))
    document.body.insertAdjacentHTML("beforeend", body.slice(now.length));
  if (!document.title && title) document.title = title;
  return now !== null;
}

/** Sends the page to `url` without a history entry (a spare tab's move, site-data/spare-moves.ts). */
export function moveTo(url: string): void {
  location.replace(url);
}

/** Nothing: a preload script that only makes the sandbox with each document (a spare tab's). */
export function nothing(): void {}

/** The window's inner size, as "WIDTHxHEIGHT". */
export function innerSize(): string {
  return `${innerWidth}x${innerHeight}`;
}

/** The cores of the browser's machine, as the page is told. */
export function cores(): number {
  return navigator.hardwareConcurrency;
}

/** Whether this is a spare tab's marked page (site-data/spare-tab.ts), and the origin it stands on. */
export function onMarkedPage(marker: string): { spare: boolean; origin: string } {
  return { spare: document.querySelector(`meta[name="${marker}"]`) !== null, origin: location.origin };
}

/**
 * Whether this document's storage is its site's own, as the browser decides it: a frame's storage is
 * partitioned under the top page's site unless the frame is same-site with it, and that is the rule a
 * SameSite=Strict cookie follows too. One is set on this page's path only (no site page sees it) and
 * taken out at once.
 */
export function firstParty(): boolean {
  const name = `__selenium_flow_site_${Math.random().toString(36).slice(2)}`;
  const at = `; path=${location.pathname}; SameSite=Strict`;
  // biome-ignore lint/suspicious/noDocumentCookie: the check is what document.cookie keeps (cookieStore is absent on http pages).
  document.cookie = `${name}=1${at}`;
  const kept = document.cookie.split("; ").includes(`${name}=1`);
  // biome-ignore lint/suspicious/noDocumentCookie: the same cookie taken out at once.
  document.cookie = `${name}=${at}; max-age=0`;
  return kept;
}

/**
 * Keeps the hints the page's own world reported (in-page/page-world.ts, relayed by grid/hint-relay.ts)
 * in each node's document, as in-page/hinted.ts reads them. `takes` (JSON) says of `nodes` in order:
 * `[kind, paths]`, kind 0 a click target, 1 a drop target (either the element, or with paths an
 * ancestor and where each element sits under it, `i.j:tag#id;…`, each checked to be what it says),
 * 2 a closed shadow root's host, followed by its root.
 */
export function takeHints(takes: string, ...nodes: unknown[]): number {
  type Kept = { click: WeakSet<Element>; drop: WeakSet<Element>; roots: WeakMap<Element, ShadowRoot> };
  const keep = (el: Element): Kept => {
    const doc = el.ownerDocument as unknown as Record<string, Kept | undefined>;
    doc.__sfHints ??= { click: new WeakSet(), drop: new WeakSet(), roots: new WeakMap() };
    return doc.__sfHints as Kept;
  };
  const isEl = (n: unknown): n is Element => !!n && (n as Node).nodeType === 1;
  const what = (e: Element) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}`.slice(0, 60);
  // Under `anchor`, the element each path names, when it is still what the page's world saw.
  const under = (anchor: Element, paths: string): Element[] => {
    const out: Element[] = [];
    for (const one of paths.split(";")) {
      const cut = one.indexOf(":");
      let at: Element | undefined = anchor;
      for (const i of one.slice(0, cut).split(".")) at = at?.children[Number(i)];
      if (at && what(at) === one.slice(cut + 1)) out.push(at);
    }
    return out;
  };
  let i = 0;
  let kept = 0;
  for (const [kind, paths] of JSON.parse(takes) as [number, string | null][]) {
    const el = nodes[i++];
    const root = (kind === 2 ? nodes[i++] : null) as ShadowRoot | null;
    if (!isEl(el)) continue;
    if (kind === 2) {
      // The root BiDi serialized with this host: its own, whatever the page says of it.
      if (root?.nodeType === 11 && root.host === el) keep(el).roots.set(el, root);
      kept++;
      continue;
    }
    // One look at the document's expando for a group (a named-property lookup, slow 1,000 times).
    const set = keep(el)[kind === 0 ? "click" : "drop"];
    for (const one of paths === null ? [el] : under(el, paths)) {
      set.add(one);
      kept++;
    }
  }
  return kept;
}
