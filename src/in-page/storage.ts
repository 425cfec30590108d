// Page side, standalone: a document's storages, read and written in the sandbox of a page on the
// origin (a spare tab's marked page, or the agent's own), sent as their own text by
// src/site-data/scripts.ts. Each is self-contained; values travel as arguments or JSON.

export type Items = Record<string, string>;

/** localStorage, whole. */
export function readLocal(): Items {
  const out: Items = {};
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i) as string;
    out[k] = localStorage.getItem(k) as string;
  }
  return out;
}

/** Puts the items (JSON) into localStorage; how many. */
export function writeLocal(json: string): number {
  const items = JSON.parse(json) as Items;
  for (const k of Object.keys(items)) localStorage.setItem(k, items[k] as string);
  return Object.keys(items).length;
}

/** In the sandbox of the top document: both its storages (empty when the page may not have any) and its title. */
export function readPage(): string {
  const dump = (get: () => Storage): Items => {
    try {
      const store = get();
      const out: Items = {};
      for (let i = 0; i < store.length; i++) {
        const k = store.key(i) as string;
        out[k] = store.getItem(k) as string;
      }
      return out;
    } catch {
      return {};
    }
  };
  return JSON.stringify({
    local: dump(() => localStorage),
    session: dump(() => sessionStorage),
    title: String(document.title),
    cores: navigator.hardwareConcurrency,
  });
}

/**
 * A preload script's body: on the first top-level document of `origin` in the tab, before the
 * page's own scripts, puts `items` into its (still empty) sessionStorage.
 */
export function fillSession(origin: string, items: Items): void {
  if (window !== window.top || location.origin !== origin) return;
  try {
    // Only the first document of the site gets them: what the page has done since stays.
    if (sessionStorage.length > 0) return;
    for (const k of Object.keys(items)) sessionStorage.setItem(k, items[k] as string);
  } catch {
    // a document that may have no storage
  }
}
