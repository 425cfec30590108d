// Top-level pages loaded in the browser's tabs, as the held connection sees them load, so the
// pages of the tabs the agent is not in (a window.open pop-up, an OAuth window that closed itself)
// join the workspace's history at the next call and a save reads their origins. A frame's document
// joins too (its origin's storage is the site's, and the frame may be gone by the save), below the
// agent's page like a pop-up's. A context is top-level when it was created without a parent, or was
// a root of the tree when the connection began. The server's own spare tabs are left out.

import type { BrowsingContext } from "webdriver-bidi-protocol";
import type { BidiSocket } from "./bidi.ts";
import { SPARE_PATH } from "./net-rules.ts";

/** Pages kept between calls, at most (the history keeps 100 origins). */
const KEEP = 100;

export class PagesElsewhere {
  private readonly tops = new Set<string>();
  /** Frames created while the connection followed (in any tab, the agent's too). */
  private readonly frames = new Set<string>();
  /** The newest page of each origin loaded, by tab, oldest first. */
  private loaded: ReadonlyArray<{ tab: string; origin: string; url: string }> = [];

  constructor(socket: Pick<BidiSocket, "on">) {
    socket.on("browsingContext.contextCreated", null, (c) => {
      if (!c.parent) this.tops.add(c.context);
      else this.frames.add(c.context);
    });
    const seen = (p: BrowsingContext.NavigationInfo) => this.seen(p);
    socket.on("browsingContext.navigationCommitted", null, seen);
    socket.on("browsingContext.load", null, seen);
  }

  /** The top-level contexts that were there before the connection followed their creation. */
  knowRoots(contexts: ReadonlyArray<{ context: string }>): void {
    for (const c of contexts) this.tops.add(c.context);
  }

  /**
   * The pages loaded in tabs other than `tab` and not yet recorded, oldest first (a look: nothing
   * changes), and `recorded`, which forgets every page loaded until this look, once their write is
   * done (a page loaded since stays for the next).
   */
  pending(tab: string): { urls: string[]; recorded: () => void } {
    const looked = new Set(this.loaded);
    return {
      urls: this.loaded.filter((p) => p.tab !== tab).map((p) => p.url),
      recorded: () => {
        this.loaded = this.loaded.filter((p) => !looked.has(p));
      },
    };
  }

  private seen(p: BrowsingContext.NavigationInfo): void {
    if (!p?.context || !(this.tops.has(p.context) || this.frames.has(p.context))) return;
    let origin: string;
    try {
      const u = new URL(p.url);
      if ((u.protocol !== "http:" && u.protocol !== "https:") || u.pathname === SPARE_PATH) return;
      origin = u.origin;
    } catch {
      return;
    }
    const kept = this.loaded.filter((q) => q.tab !== p.context || q.origin !== origin);
    this.loaded = [...kept, { tab: p.context, origin, url: p.url }].slice(-KEEP);
  }
}
