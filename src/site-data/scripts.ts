// The JavaScript a save and a restore run in the browser. Values travel as JSON, so quotes,
// apostrophes and `</script>` survive.

/** Evaluated in a spare tab standing on an origin: its localStorage, whole. */
export const READ_LOCAL =
  "(() => { const out = {}; for (let i = 0; i < localStorage.length; i++) " +
  "{ const k = localStorage.key(i); out[k] = localStorage.getItem(k); } return out; })()";

/**
 * Classic executeScript on the page: the top document's origin ("" when opaque, or when a
 * cross-origin frame hides it), both its storages, and its url and title (null when hidden).
 */
export const READ_STORAGE =
  "let w = null; try { w = top; void w.location.origin; } catch (e) { w = null; } " +
  "if (!w) return {origin: '', local: {}, session: {}, url: null, title: null}; " +
  "const dump = (s) => { try { const out = {}; for (let i = 0; i < s().length; i++) " +
  "{ const k = s().key(i); out[k] = s().getItem(k); } return out; } catch (e) { return {}; } }; " +
  "return {origin: w.location.origin === 'null' ? '' : String(w.location.origin), " +
  "local: dump(() => w.localStorage), session: dump(() => w.sessionStorage), " +
  "url: String(w.location.href), title: String(w.document.title)};";

/** Sets every item in `store` and evaluates to how many it set. */
export function fill(store: "localStorage" | "sessionStorage", items: Record<string, string>): string {
  return (
    `(() => { const items = ${JSON.stringify(items)}; ` +
    `for (const [k, v] of Object.entries(items)) ${store}.setItem(k, v); ` +
    "return Object.keys(items).length; })()"
  );
}
