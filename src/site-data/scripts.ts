// The JavaScript a save and a restore run in the browser, always in the sandbox realm. Each is
// self-contained (it is sent as its own text). Values travel as arguments or JSON, so quotes,
// apostrophes and `</script>` survive.

import { READ_IDB, WRITE_IDB } from "./idb.ts";

type Items = Record<string, string>;

function readLocal(): Items {
  const out: Items = {};
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i) as string;
    out[k] = localStorage.getItem(k) as string;
  }
  return out;
}

function writeLocal(json: string): number {
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
function fillSession(origin: string, items: Items): void {
  if (window !== window.top || location.origin !== origin) return;
  try {
    // Only the first document of the site gets them: what the page has done since stays.
    if (sessionStorage.length > 0) return;
    for (const k of Object.keys(items)) sessionStorage.setItem(k, items[k] as string);
  } catch {
    // a document that may have no storage
  }
}

/** Run on a spare tab's marked page: its localStorage and IndexedDB, whole. */
export const READ_LOCAL = `async () => ({ local: (${readLocal.toString()})(), idb: await (${READ_IDB})() })`;
/** Run on a spare tab's marked page, given {local, idb} as JSON: puts both back, returns how many. */
export const WRITE_LOCAL = `async (json) => { const o = JSON.parse(json); return (${writeLocal.toString()})(JSON.stringify(o.local ?? {})) + (o.idb?.length ? await (${WRITE_IDB})(JSON.stringify(o.idb)) : 0); }`;
/** The top document's storages, IndexedDB and title, as JSON (see readPage). */
export const READ_PAGE = `async () => { const o = JSON.parse((${readPage.toString()})()); try { o.idb = await (${READ_IDB})(); } catch { o.idb = { dbs: [], skipped: [] }; } return JSON.stringify(o); }`;

/** The preload script that restores a tab's sessionStorage for `origin` on its way there. */
export function sessionPreload(origin: string, items: Items): string {
  return `() => (${fillSession.toString()})(${JSON.stringify(origin)}, ${JSON.stringify(items)})`;
}
