// Which frame of the current document holds what a selector names, for a "nothing matched" message
// that can say to switch into it. Each frame is asked in its own sandbox (cross-origin ones too, as
// BiDi reaches them); a few frames deep, a few dozen in all.
import type { Page } from "../grid/page.ts";
import type { WindowRef } from "../grid/page-call.ts";
import type { PageSelector } from "../in-page/index.ts";

interface FrameAt {
  css: string | null;
  window: WindowRef | null;
}

const MAX_DEPTH = 3;
/** Frames asked in all, and how long the search may take: a page of ads must not hold the 400. */
const MAX_FRAMES = 30;
const MAX_MS = 2_000;

/**
 * The frames to enter, outermost first, to reach a match of `sel`; null when no frame holds one.
 * Breadth first (the shallowest match wins), within MAX_FRAMES frames and MAX_MS.
 */
export async function frameHolding(page: Page, sel: PageSelector): Promise<(string | null)[] | null> {
  if ("ref" in sel) return null;
  const until = Date.now() + MAX_MS;
  let asked = 0;
  let level: { context: string; path: (string | null)[] }[] = [{ context: page.context, path: [] }];
  for (let depth = 0; depth < MAX_DEPTH && level.length; depth++) {
    const next: typeof level = [];
    for (const { context, path } of level) {
      const frames = await within(page.callIn<FrameAt[]>(context, "framesHere"), until, [] as FrameAt[]);
      for (const f of Array.isArray(frames) ? frames : []) {
        const inner = f.window?.window;
        if (!inner) continue;
        if (++asked > MAX_FRAMES || Date.now() > until) return null;
        if ((await within(page.callIn<number>(inner, "matchCount", sel), until, 0)) > 0)
          return [...path, f.css];
        next.push({ context: inner, path: [...path, f.css] });
      }
    }
    level = next;
  }
  return null;
}

/** What `p` answers by `until`, else (or when it fails) `fallback`: a frame not ready never holds it. */
async function within<T>(p: Promise<T>, until: number, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((r) => {
    timer = setTimeout(() => r(fallback), Math.max(0, until - Date.now()));
  });
  try {
    return await Promise.race([p.catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The sentence for a match inside frames: which to switch into. */
export function frameSentence(path: (string | null)[]): string {
  const named = path.map((css) => (css ? JSON.stringify({ frame: { css } }) : "the frame read_page lists"));
  return `A match is inside a frame: call switch with ${named.join(", then ")} first, then try again.`;
}
