// The JavaScript a save and a restore run in the browser. Values travel as JSON, so quotes,
// apostrophes and `</script>` survive.

/** Evaluated in a spare tab standing on an origin: its localStorage, whole. */
export const READ_LOCAL =
  "(() => { const out = {}; for (let i = 0; i < localStorage.length; i++) " +
  "{ const k = localStorage.key(i); out[k] = localStorage.getItem(k); } return out; })()";

/** Classic executeScript on the page: its origin ("" when opaque) and both its storages. */
export const READ_STORAGE =
  "const dump = (s) => { try { const out = {}; for (let i = 0; i < s().length; i++) " +
  "{ const k = s().key(i); out[k] = s().getItem(k); } return out; } catch (e) { return {}; } }; " +
  "return {origin: location.origin === 'null' ? '' : String(location.origin), " +
  "local: dump(() => localStorage), session: dump(() => sessionStorage)};";

/** Sets every item in `store` and evaluates to how many it set. */
export function fill(store: "localStorage" | "sessionStorage", items: Record<string, string>): string {
  return (
    `(() => { const items = ${JSON.stringify(items)}; ` +
    `for (const [k, v] of Object.entries(items)) ${store}.setItem(k, v); ` +
    "return Object.keys(items).length; })()"
  );
}
