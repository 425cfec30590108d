// The JavaScript a save and a restore run in the browser. Values travel as JSON, so quotes,
// apostrophes and `</script>` survive.

/** Evaluated in a spare tab standing on an origin: its localStorage, whole. */
export const READ_LOCAL =
  "(() => { const out = {}; for (let i = 0; i < localStorage.length; i++) " +
  "{ const k = localStorage.key(i); out[k] = localStorage.getItem(k); } return out; })()";

/** In the sandbox of the top document: both its storages (empty when the page may not have any). */
export function readStorages(): { local: Record<string, string>; session: Record<string, string> } {
  const dump = (s: () => Storage) => {
    try {
      const out: Record<string, string> = {};
      const store = s();
      for (let i = 0; i < store.length; i++) {
        const k = store.key(i) as string;
        out[k] = store.getItem(k) as string;
      }
      return out;
    } catch {
      return {};
    }
  };
  return { local: dump(() => localStorage), session: dump(() => sessionStorage) };
}

/** Sets every item in `store` and evaluates to how many it set. */
export function fill(store: "localStorage" | "sessionStorage", items: Record<string, string>): string {
  return (
    `(() => { const items = ${JSON.stringify(items)}; ` +
    `for (const [k, v] of Object.entries(items)) ${store}.setItem(k, v); ` +
    "return Object.keys(items).length; })()"
  );
}
