// Which frame of the current document holds what a selector names, for a "nothing matched" message
// that can say to switch into it. Each frame is asked in its own sandbox (cross-origin ones too, as
// BiDi reaches them); a few frames deep, a few dozen in all.
import type { Page, WindowRef } from "../grid/page.ts";
import type { PageLib, PageSelector } from "../page/index.ts";

const FRAMES = (L: PageLib) =>
  Array.from(document.querySelectorAll("iframe,frame"))
    .slice(0, 20)
    .map((f) => ({ css: L.cssFor(f), window: (f as HTMLIFrameElement).contentWindow }));

const COUNT = (L: PageLib, sel: PageSelector) => {
  const found = L.find(sel);
  return found.invalid ? 0 : found.els.length;
};

interface FrameAt {
  css: string | null;
  window: WindowRef | null;
}

const MAX_DEPTH = 3;

/** The frames to enter, outermost first, to reach a match of `sel`; null when no frame holds one. */
export async function frameHolding(
  page: Page,
  sel: PageSelector,
  context: string = page.context,
  depth = 0,
): Promise<(string | null)[] | null> {
  if (depth >= MAX_DEPTH || "ref" in sel) return null;
  const frames = await page.callIn<FrameAt[]>(context, FRAMES).catch(() => [] as FrameAt[]);
  for (const f of Array.isArray(frames) ? frames : []) {
    const inner = f.window?.window;
    if (!inner) continue;
    if ((await page.callIn<number>(inner, COUNT, sel).catch(() => 0)) > 0) return [f.css];
    const deeper = await frameHolding(page, sel, inner, depth + 1);
    if (deeper) return [f.css, ...deeper];
  }
  return null;
}

/** The sentence for a match inside frames: which to switch into. */
export function frameSentence(path: (string | null)[]): string {
  const named = path.map((css) => (css ? JSON.stringify({ frame: { css } }) : "the frame read_page lists"));
  return `A match is inside a frame: call switch with ${named.join(", then ")} first, then try again.`;
}
