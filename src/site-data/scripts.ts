// The JavaScript a save and a restore run in the browser, always in the sandbox realm, put together
// from the page's own functions (src/in-page/storage.ts, idb.ts) as the text sent (the agent's page is
// read by the page library's storagesNow). Values travel as arguments or JSON, so quotes, apostrophes
// and `</script>` survive.

import { fillSession, type Items, readLocal, writeLocal } from "../in-page/storage.ts";
import { READ_IDB, WRITE_IDB } from "./idb.ts";

/** Run on a spare tab's marked page: its localStorage and IndexedDB, whole. */
export const READ_LOCAL = `async () => ({ local: (${readLocal.toString()})(), idb: await (${READ_IDB})() })`;
/** Run on a spare tab's marked page, given {local, idb} as JSON: puts both back, returns how many. */
export const WRITE_LOCAL = `async (json) => { const o = JSON.parse(json); return (${writeLocal.toString()})(JSON.stringify(o.local ?? {})) + (o.idb?.length ? await (${WRITE_IDB})(JSON.stringify(o.idb)) : 0); }`;

/** The preload script that restores a tab's sessionStorage for `origin` on its way there. */
export function sessionPreload(origin: string, items: Items): string {
  return `() => (${fillSession.toString()})(${JSON.stringify(origin)}, ${JSON.stringify(items)})`;
}
