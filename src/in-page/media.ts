// Page side: what the outline says of pictures. An <img> by its alt (or, with none, its file); an SVG
// drawing by its shapes (what each is, its fill colour, where it sits in the drawing, its text); and
// an element's colour where the colour is what it shows (a swatch, a coloured square to click).

/** Shapes of an SVG drawing the outline lists, at most this many a drawing. */
export const MAX_SHAPES = 30;
const SHAPES = new Set(["circle", "ellipse", "rect", "line", "polyline", "polygon", "path", "text", "image"]);
/** An SVG no bigger than this (CSS pixels, both sides) is an icon: listed only by its name. */
const ICON_SIZE = 48;

const NAMED: Record<string, string> = {
  "#000000": "black",
  "#ffffff": "white",
  "#ff0000": "red",
  "#008000": "green",
  "#00ff00": "lime",
  "#0000ff": "blue",
  "#ffff00": "yellow",
  "#ffa500": "orange",
  "#800080": "purple",
  "#ffc0cb": "pink",
  "#a52a2a": "brown",
  "#808080": "gray",
  "#00ffff": "cyan",
  "#ff00ff": "magenta",
  "#c0c0c0": "silver",
  "#ffd700": "gold",
  "#000080": "navy",
  "#008080": "teal",
  "#800000": "maroon",
  "#808000": "olive",
};

/** A hue's everyday name. */
function hueName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const light = (max + min) / 510;
  const sat = max === min ? 0 : (max - min) / (255 - Math.abs(max + min - 255));
  if (sat < 0.15 || max - min < 24) return light < 0.15 ? "black" : light > 0.9 ? "white" : "gray";
  let h = 0;
  if (max === r) h = ((g - b) / (max - min) + 6) % 6;
  else if (max === g) h = (b - r) / (max - min) + 2;
  else h = (r - g) / (max - min) + 4;
  h *= 60;
  const hue =
    h < 15 || h >= 345
      ? "red"
      : h < 45
        ? light < 0.35
          ? "brown"
          : "orange"
        : h < 70
          ? "yellow"
          : h < 165
            ? "green"
            : h < 195
              ? "cyan"
              : h < 255
                ? "blue"
                : h < 290
                  ? "purple"
                  : "pink";
  return light < 0.25 ? `dark ${hue}` : light > 0.8 && hue !== "pink" ? `light ${hue}` : hue;
}

/** A CSS colour as the outline says it: `red`, or `#1e90ff(blue)`; null when it paints nothing. */
export function colorWord(css: string | null | undefined): string | null {
  const m = /^rgba?\(([^)]*)\)$/.exec((css ?? "").trim());
  if (!m) return null;
  const [r, g, b, a] = (m[1] as string)
    .split(/[,\s/]+/)
    .filter(Boolean)
    .map((x) => Number.parseFloat(x));
  if (r === undefined || g === undefined || b === undefined || (a !== undefined && a < 0.1)) return null;
  const hex = `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")}`;
  return NAMED[hex] ?? `${hex}(${hueName(r, g, b)})`;
}

const viewOf = (el: Element) => el.ownerDocument.defaultView ?? window;

/** Whether an <img> is worth a line: shown, not a spacer or a tracking pixel, not marked decorative. */
export function pictured(el: Element): boolean {
  if (el.getAttribute("alt") === "" && !el.getAttribute("title")) return false;
  if (
    el.getAttribute("aria-hidden") === "true" ||
    /^(presentation|none)$/.test(el.getAttribute("role") ?? "")
  )
    return false;
  const r = el.getBoundingClientRect();
  return r.width >= 8 && r.height >= 8;
}

/** An SVG shown as a drawing (its shapes listed), not as an icon. */
export function drawing(svg: Element): boolean {
  const r = svg.getBoundingClientRect();
  return r.width > ICON_SIZE || r.height > ICON_SIZE;
}

/** The name an SVG gives itself (aria-label, its title), for an icon or a drawing. */
export function svgName(svg: Element): string {
  const own = svg.getAttribute("aria-label");
  if (own?.trim()) return own.trim();
  const title = Array.from(svg.children).find((c) => c.tagName.toLowerCase() === "title");
  return title?.textContent?.trim() ?? "";
}

/** The shapes of a drawing the outline lists, in document order (groups opened; defs, masks and clips not). */
export function shapesOf(svg: Element): { shapes: Element[]; more: number } {
  const shapes: Element[] = [];
  let more = 0;
  const visit = (el: Element) => {
    for (const c of Array.from(el.children)) {
      const tag = c.tagName.toLowerCase();
      if (tag === "g" || tag === "a" || tag === "switch" || tag === "svg") visit(c);
      else if (SHAPES.has(tag) && visibleShape(c)) {
        if (shapes.length < MAX_SHAPES) shapes.push(c);
        else more++;
      }
    }
  };
  visit(svg);
  return { shapes, more };
}

function visibleShape(el: Element): boolean {
  const s = viewOf(el).getComputedStyle(el);
  if (s.display === "none" || s.visibility !== "visible" || s.opacity === "0") return false;
  const r = el.getBoundingClientRect();
  return r.width >= 2 || r.height >= 2;
}

/** A shape's colour: its fill, else its stroke. */
export function shapeColor(el: Element): string | null {
  const s = viewOf(el).getComputedStyle(el);
  return colorWord(s.fill) ?? colorWord(s.stroke);
}

/** Where a shape sits in its drawing: `x,y,WxH` in CSS pixels from the drawing's top left. */
export function placeIn(el: Element): string | undefined {
  const svg = (el as SVGElement).ownerSVGElement;
  if (!svg) return undefined;
  const r = el.getBoundingClientRect();
  const o = svg.getBoundingClientRect();
  const n = Math.round;
  return `${n(r.x - o.x)},${n(r.y - o.y)},${n(r.width)}x${n(r.height)}`;
}

/**
 * An element whose colour is what it shows: no text, no children, a solid background, about the size
 * of a swatch (10 to 300 pixels a side, not a line): its background's colour word, else null.
 */
export function swatch(el: Element, style: CSSStyleDeclaration): string | null {
  if (el.childElementCount > 0 || (el.textContent ?? "").trim()) return null;
  const r = el.getBoundingClientRect();
  const [w, h] = [r.width, r.height];
  if (w < 10 || h < 10 || w > 300 || h > 300 || Math.max(w, h) > 4 * Math.min(w, h)) return null;
  if (style.backgroundImage !== "none") return null;
  return colorWord(style.backgroundColor);
}

/** The colour of an element listed without a name (a coloured square that is a button). */
export function ownColor(el: Element): string | null {
  const style = viewOf(el).getComputedStyle(el);
  return (
    colorWord(style.backgroundColor) ??
    (el.childElementCount === 1 && el.firstElementChild
      ? colorWord(viewOf(el).getComputedStyle(el.firstElementChild).backgroundColor)
      : null)
  );
}
