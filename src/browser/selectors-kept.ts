// A selector that names its element by ref (`{"ref": "e6"}`, or text `within` a ref) keeps, beside
// the ref, a durable locator for the element it resolved to, read in the page by the very call that
// found it (src/in-page/kept.ts): a ref lasts only as long as its document, so a run kept as a
// flow (timeline/flow.ts) names each element by its locator instead. Every action's selectors pass
// through `seek`, which asks here, so no action keeps its own.
import type { Page } from "../grid/page.ts";
import type { PageFn } from "../grid/page-call.ts";
import type { Locator, PageSelector } from "../in-page/index.ts";

/** Whether the selector names its element through a ref, which no later page will know. */
const holdsRef = (sel: PageSelector): boolean =>
  "ref" in sel || ("within" in sel && sel.within !== undefined);

/**
 * The page function to call for a locating `script` and `sel`, with the arguments that go before
 * the selector: for a selector that holds a ref, the library's `keeping`, which runs the same script
 * and then, in the same sandbox call, reads the locator of the element it found once it is ready to
 * act on (its answer's `locator`).
 */
export function keeping(script: PageFn, sel: PageSelector): [PageFn, ...PageFn[]] {
  return holdsRef(sel) ? ["keeping", script] : [script];
}

/** Notes on the call's page the locator a `keeping` script answered, for the call's timeline entry. */
export function noteLocator(page: Page, given: object, got: object): void {
  const { locator } = got as { locator?: Locator | null };
  if (locator === undefined) return;
  const selector = { ...given } as Record<string, unknown>;
  const same = JSON.stringify(selector);
  const at = page.located.findIndex((l) => JSON.stringify(l.selector) === same);
  if (at >= 0) page.located.splice(at, 1);
  page.located.push({ selector, locator });
}
