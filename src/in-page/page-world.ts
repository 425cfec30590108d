// The one script of the server's that runs in the page's own world (spec §1.6): a preload script,
// run in every new document before the page's own scripts, that records hints for the outline and
// nothing else. It wraps addEventListener, the on… handler properties and attachShadow so that the
// elements given a click-like or a drop listener, and the hosts of closed shadow roots, are reported
// through `report`, a BiDi channel: the server gets them as node references that the sandbox
// resolves (grid/hint-relay.ts). It reads nothing of the page back and changes nothing the page
// does. A hint may make an element appear in the outline; nothing the server decides depends on one
// (the page can call these functions itself: what it says that way is a hint like any other).
// Sent as its own text (String(fn)): it names nothing outside itself.

/**
 * An element reported: itself, or, when many of a report share an ancestor (a list of 1,000 rows),
 * that ancestor and where each sits under it: `i.j:tag#id` child indices, then what it is, `;` between
 * them. The browser resolves each node reference on its own (half a millisecond each): a list costs one.
 */
export type Reported = Element | [Element, string];

/**
 * What one report carries: elements with a click-like listener, with a drop listener, hosts of closed
 * shadow roots, and whether the document is loaded (the report after DOMContentLoaded's handlers ran,
 * sent even when empty: the server then knows every hint of the loaded page is on its way).
 */
export type HintBatch = [Reported[], Reported[], Element[], boolean];

export function recordHints(report: (batch: HintBatch) => void): void {
  const w = window;
  const ElementType = w.Element;
  const apply = Reflect.apply;
  const later = w.queueMicrotask.bind(w);
  const CLICKS = ["click", "dblclick", "auxclick", "mousedown", "mouseup", "pointerdown", "pointerup"];
  const kindOf = (type: unknown): number => {
    const t = String(type).toLowerCase();
    if (CLICKS.includes(t) || t === "touchstart" || t === "touchend") return 0;
    return t === "drop" || t === "dragover" || t === "dragenter" ? 1 : -1;
  };
  const seen = [new WeakSet<Element>(), new WeakSet<Element>(), new WeakSet<Element>()];
  // A page that adds listeners without end reports no more than this many elements.
  let left = 20_000;
  // What an element is, for the sandbox to check it found the one meant.
  const what = (e: Element) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}`.slice(0, 60);
  // Elements sharing one of their three nearest ancestors with three others go as that ancestor and paths.
  const grouped = (els: Element[]): Reported[] => {
    const shared = new Map<Element, number>();
    const ups = els.map((e) => {
      const up: Element[] = [];
      for (let p = e.parentElement; p && up.length < 3; p = p.parentElement) {
        up.push(p);
        shared.set(p, (shared.get(p) ?? 0) + 1);
      }
      return up;
    });
    const places = new Map<Element, Map<Element, number>>();
    const indexOf = (c: Element): number => {
      const p = c.parentElement as Element;
      let m = places.get(p);
      if (!m) {
        const at = new Map<Element, number>();
        for (const [i, x] of Array.from(p.children).entries()) at.set(x, i);
        places.set(p, at);
        m = at;
      }
      return m.get(c) ?? -1;
    };
    const out: Reported[] = [];
    const groups = new Map<Element, string[]>();
    els.forEach((e, n) => {
      const up = ups[n] as Element[];
      const k = up.findIndex((p) => (shared.get(p) ?? 0) >= 4);
      const anchor = up[k];
      if (!anchor) {
        out.push(e);
        return;
      }
      const path: number[] = [];
      for (let c: Element | null = e, j = 0; c && j <= k; j++, c = c.parentElement) path.unshift(indexOf(c));
      const list = groups.get(anchor) ?? [];
      groups.set(anchor, list);
      list.push(`${path.join(".")}:${what(e)}`);
    });
    for (const [anchor, paths] of groups) out.push([anchor, paths.join(";")]);
    return out;
  };
  let batch: [Element[], Element[], Element[], boolean] | null = null;
  const open = () => {
    if (!batch) {
      batch = [[], [], [], false];
      // One report for every listener a script added in one go (a list of 1,000 rows: one message).
      later(() => {
        const out = batch;
        batch = null;
        if (out) report([grouped(out[0]), grouped(out[1]), out[2], out[3]]);
      });
    }
    return batch;
  };
  const note = (kind: number, target: unknown) => {
    if (kind < 0 || kind > 2 || left <= 0 || !(target instanceof ElementType)) return;
    const set = seen[kind] as WeakSet<Element>;
    if (set.has(target)) return;
    set.add(target);
    left--;
    (open()[kind] as Element[]).push(target);
  };
  // A proxy, so the page's own look at its functions (name, length, toString) finds them as they were.
  const wrap = <F extends (...a: never[]) => unknown>(
    fn: F,
    before: (self: unknown, args: unknown[]) => void,
  ) =>
    new Proxy(fn, {
      apply(target, self, args: unknown[]) {
        try {
          before(self, args);
        } catch {
          // a hint is never worth a page's error
        }
        return apply(target, self, args);
      },
    });
  const proto = w.EventTarget.prototype;
  const listen = proto.addEventListener;
  // Once DOMContentLoaded's handlers ran (a task later), a report says the loaded page's hints are sent.
  const timer = w.setTimeout.bind(w);
  apply(listen, w.document, [
    "DOMContentLoaded",
    () =>
      timer(() => {
        open()[3] = true;
      }, 0),
    { once: true },
  ]);
  proto.addEventListener = wrap(listen, (self, args) => note(kindOf(args[0]), self));
  // A closed shadow root's host: BiDi serializes the root with it (includeShadowTree "all").
  const shadow = ElementType.prototype;
  shadow.attachShadow = wrap(shadow.attachShadow, (self, args) => {
    if ((args[0] as { mode?: unknown } | undefined)?.mode === "closed") note(2, self);
  });
  // el.onclick = fn: the handler properties, on the element's prototype chain.
  const holder = w.HTMLElement.prototype;
  for (const type of [...CLICKS, "drop", "dragover"]) {
    const desc = Object.getOwnPropertyDescriptor(holder, `on${type}`);
    const set = desc?.set;
    if (!desc || !set) continue;
    Object.defineProperty(holder, `on${type}`, {
      ...desc,
      set: wrap(set, (self, args) => {
        if (typeof args[0] === "function") note(kindOf(type), self);
      }),
    });
  }
}
