// Which documents of a browser the agent's scripts may have reached (spec §1.17, "scripted
// documents"), kept from the server's own record of the agent's scripts and the context tree's
// events, never from page script: a document the agent ran a script in, and every document of the
// same origin alive at the same time as one (any tab, frame, opener or pop-up: a scripted page can
// plant code in them), until it navigates. A document is its context's current one, known by the
// navigation that made it: a page back from the back/forward cache commits under that same
// navigation, and keeps its mark. Documents the record did not see made (the connection was opened
// later) count as reached when their origin had a script.
import type { BrowsingContext } from "webdriver-bidi-protocol";

const MAX_REACHED = 10_000;

interface Doc {
  origin: string;
  url: string;
  navigation: string;
  parent: string | null;
  opener: string | null;
}

/** The origin a document at `url` has, given the origin it would inherit (about:blank, srcdoc). */
export function originOf(url: string, inherited: string | null): string {
  if (/^about:(blank|srcdoc)/i.test(url) || url === "") return inherited ?? "null";
  if (!URL.canParse(url)) return "null";
  const { origin } = new URL(url);
  return origin === "null" ? "null" : origin;
}

export class ReachedDocs {
  private readonly docs = new Map<string, Doc>();
  /** The navigations whose documents are reached. */
  private readonly reached = new Set<string>();
  /** Origins the agent ran a script in. */
  private readonly origins = new Set<string>();
  private seq = 0;

  private inherited(parent: string | null, opener: string | null): string | null {
    const from = parent ?? opener;
    return from ? (this.docs.get(from)?.origin ?? null) : null;
  }

  private otherReached(origin: string, except: string): boolean {
    for (const [c, d] of this.docs)
      if (c !== except && d.origin === origin && this.reached.has(d.navigation)) return true;
    return false;
  }

  /** A document became current in `context`: reached when its navigation was, or one of its origin is alive. */
  private current(context: string, doc: Doc): void {
    this.docs.set(context, doc);
    if (doc.origin === "null") return;
    if (this.reached.has(doc.navigation) || this.otherReached(doc.origin, context)) this.reach(doc.origin);
  }

  /** Every document of `origin` alive now is reached. */
  private reach(origin: string): void {
    this.origins.add(origin);
    for (const d of this.docs.values()) if (d.origin === origin) this.mark(d.navigation);
  }

  private mark(navigation: string): void {
    this.reached.delete(navigation);
    this.reached.add(navigation);
    // A long-lived browser navigates all day: the oldest marks go past a bound (their documents are long gone).
    if (this.reached.size > MAX_REACHED) this.reached.delete(this.reached.values().next().value as string);
  }

  created(info: Pick<BrowsingContext.Info, "context" | "url" | "parent" | "originalOpener">): void {
    const parent = info.parent ?? null;
    const opener = info.originalOpener ?? null;
    this.current(info.context, {
      origin: originOf(info.url, this.inherited(parent, opener)),
      url: info.url,
      navigation: `created:${info.context}:${++this.seq}`,
      parent,
      opener,
    });
  }

  committed(context: string, navigation: string | null, url: string): void {
    const was = this.docs.get(context);
    const parent = was?.parent ?? null;
    const opener = was?.opener ?? null;
    this.current(context, {
      origin: originOf(url, this.inherited(parent, opener)),
      url,
      navigation: navigation ?? `committed:${context}:${++this.seq}`,
      parent,
      opener,
    });
  }

  destroyed(context: string): void {
    this.docs.delete(context);
    for (const [c, d] of [...this.docs]) if (d.parent === context) this.destroyed(c);
  }

  /**
   * The tree as read now: documents not seen made are taken in, reached when their origin had a
   * script (the record cannot tell what happened while it was not listening).
   */
  known(contexts: BrowsingContext.Info[]): void {
    const alive = new Set<string>();
    const walk = (cs: BrowsingContext.Info[] | null | undefined, parent: string | null) => {
      for (const c of cs ?? []) {
        alive.add(c.context);
        const known = this.docs.get(c.context);
        if (!known || known.url !== c.url) {
          const opener = c.originalOpener ?? null;
          const origin = originOf(c.url, this.inherited(parent, opener));
          const doc = { origin, url: c.url, navigation: `seen:${c.context}:${++this.seq}`, parent, opener };
          this.docs.set(c.context, doc);
          if (this.origins.has(origin)) this.reach(origin);
        }
        walk(c.children, c.context);
      }
    };
    walk(contexts, null);
    for (const c of [...this.docs.keys()]) if (!alive.has(c)) this.docs.delete(c);
  }

  /** The agent runs a script in `context`: its document, and every one of its origin alive, are reached. */
  ran(context: string): string | null {
    const doc = this.docs.get(context);
    if (!doc) return null;
    if (doc.origin === "null") this.mark(doc.navigation);
    else this.reach(doc.origin);
    return doc.origin;
  }

  /** Whether the agent ever ran a script in a document of `origin` in this browser. */
  scriptedOrigin(origin: string): boolean {
    return this.origins.has(origin);
  }

  /** The contexts whose document, of `origin`, is reached now, with its url. */
  reachedOf(origin: string): { context: string; url: string }[] {
    const out: { context: string; url: string }[] = [];
    for (const [context, d] of this.docs)
      if (d.origin === origin && this.reached.has(d.navigation)) out.push({ context, url: d.url });
    return out;
  }

  /** The contexts whose document is of `origin`. */
  ofOrigin(origin: string): string[] {
    return [...this.docs].filter(([, d]) => d.origin === origin).map(([c]) => c);
  }
}
