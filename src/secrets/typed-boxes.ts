// Where the fields holding a typed secret show in a tab: each document's own boxes (its sandbox
// knows which fields write filled; a restored form's fields count too), placed in the tab's viewport through the frames the browser
// names, so screenshot can cover them in the captured pixels.
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import { typedOrigins } from "../pieces.ts";
import { blankBoxes, type PixelBox } from "./png-blank.ts";
import { holdsTyped, RESTORED, withOrigins } from "./typed-check.ts";

const CALL_MS = 10_000;
// A little past each box: a caret or a focus ring is part of the field.
const PAD = 3;

// The document's typed boxes, its scroll and pixel ratio, and each frame's content box with its window.
const BOXES = `function (origins) {
  const typed = [...(globalThis.__sfTypedEls || []), ...${RESTORED}(origins)];
  const boxes = [];
  for (const el of typed) {
    if (!el.isConnected) continue;
    const r = el.getBoundingClientRect();
    boxes.push([r.left, r.top, r.width, r.height]);
  }
  const frames = [];
  const wins = [];
  for (const f of document.querySelectorAll("iframe, frame")) {
    if (!f.contentWindow) continue;
    const r = f.getBoundingClientRect();
    const s = getComputedStyle(f);
    const left = (parseFloat(s.borderLeftWidth) || 0) + (parseFloat(s.paddingLeft) || 0);
    const top = (parseFloat(s.borderTopWidth) || 0) + (parseFloat(s.paddingTop) || 0);
    frames.push([r.left + left, r.top + top]);
    wins.push(f.contentWindow);
  }
  const info = { boxes, frames, scrollX, scrollY, dpr: devicePixelRatio };
  return [JSON.stringify(info), ...wins];
}`;

interface DocInfo {
  boxes: [number, number, number, number][];
  frames: [number, number][];
  scrollX: number;
  scrollY: number;
  dpr: number;
}

interface Read {
  info: DocInfo;
  /** The frame offset (in this document) of each child context the browser named. */
  children: Map<string, [number, number]>;
}

async function readDoc(page: Page, context: string, origins: string[]): Promise<Read | null> {
  const reply = await withOrigins(page.held.socket, context, BOXES, origins, CALL_MS);
  if (reply?.type !== "success" || reply.result.type !== "array") return null;
  const [first, ...wins] = reply.result.value as { type: string; value?: unknown }[];
  if (first?.type !== "string") return null;
  const info = JSON.parse(first.value as string) as DocInfo;
  const children = new Map<string, [number, number]>();
  wins.forEach((w, i) => {
    const ctx = (w.value as { context?: string } | undefined)?.context;
    const at = info.frames[i];
    if (w.type === "window" && ctx && at) children.set(ctx, at);
  });
  return { info, children };
}

type Tree = { context: string; children?: Tree[] | null };

/**
 * Every typed field's box in the tab's viewport (CSS pixels), with the top document's scroll and
 * pixel ratio; "unknown" when a document that may hold one would not say where it is.
 */
async function typedBoxes(
  page: Page,
  browser: string,
): Promise<{ boxes: PixelBox[]; scrollX: number; scrollY: number; dpr: number } | "unknown"> {
  const got = await page.held.socket
    .send("browsingContext.getTree", { root: page.where.tab }, { timeoutMs: CALL_MS })
    .catch(() => null);
  const top = got?.contexts[0] as Tree | undefined;
  if (!top) return "unknown";
  const origins = typedOrigins(browser);
  const boxes: PixelBox[] = [];
  let unknown = false;
  let topInfo: DocInfo | null = null;
  const walk = async (node: Tree, at: [number, number] | null): Promise<void> => {
    const read = await readDoc(page, node.context, origins);
    if (!read) {
      unknown = true;
      return;
    }
    if (!topInfo) topInfo = read.info;
    if (read.info.boxes.length && !at) unknown = true;
    if (at) {
      for (const [x, y, w, h] of read.info.boxes)
        boxes.push({ x: at[0] + x - PAD, y: at[1] + y - PAD, width: w + 2 * PAD, height: h + 2 * PAD });
    }
    await Promise.all(
      (node.children ?? []).map((child) => {
        const off = read.children.get(child.context);
        return walk(child, at && off ? [at[0] + off[0], at[1] + off[1]] : null);
      }),
    );
  };
  await walk(top, [0, 0]);
  const t = topInfo as DocInfo | null;
  if (unknown || !t) return "unknown";
  return { boxes, scrollX: t.scrollX, scrollY: t.scrollY, dpr: t.dpr || 1 };
}

/**
 * The screenshot with every field holding a typed secret greyed out in its pixels (after the
 * capture: nothing the page does can undo it). `full` pictures are document-placed; an element's
 * start at its box (`origin`: where it is in the viewport, CSS pixels; null when unknown).
 */
export async function blankTyped(
  page: Page,
  browser: string,
  base64: string,
  shot: { full?: boolean; origin?: () => Promise<{ x: number; y: number } | null> },
): Promise<string> {
  // After the capture: a mark set while it was taken is seen.
  if (!(await holdsTyped({ socket: page.held.socket, browser, tab: page.where.tab }, CALL_MS))) return base64;
  const where = await typedBoxes(page, browser);
  if (where !== "unknown" && where.boxes.length === 0) return base64;
  const png = Buffer.from(base64, "base64");
  const origin = where !== "unknown" && shot.origin ? await shot.origin().catch(() => null) : undefined;
  if (where === "unknown" || origin === null) return blankBoxes(png, "all").toString("base64");
  const dx = origin ? -origin.x : shot.full ? where.scrollX : 0;
  const dy = origin ? -origin.y : shot.full ? where.scrollY : 0;
  const px = where.boxes.map((b) => ({
    x: (b.x + dx) * where.dpr,
    y: (b.y + dy) * where.dpr,
    width: b.width * where.dpr,
    height: b.height * where.dpr,
  }));
  return blankBoxes(png, px).toString("base64");
}

/** The PDF cannot be covered after it is made: print_page is refused while a page of the tab holds a typed secret. */
export async function refusePrintWhileTyped(page: Page, browser: string): Promise<void> {
  if (await holdsTyped({ socket: page.held.socket, browser, tab: page.where.tab }, CALL_MS)) {
    throw badInput(
      "a page in this tab holds a secret typed by write (or a frame would not say), and a PDF would picture it: go to another page first (navigate), or take a screenshot, which covers such fields",
    );
  }
}
