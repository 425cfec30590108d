// A selector that names its element by ref (`{"ref": "e6"}`, or text `within` a ref) keeps, beside
// the ref, a durable locator for the element it resolved to (locator.ts), read by the very call
// that found it: a ref lasts only as long as its document, so a run kept as a flow names each
// element by its locator instead (src/grid/page-found.ts asks for this).

type Lib = Record<string, (...args: unknown[]) => unknown>;
interface Got {
  invalid?: unknown;
  visible: number;
  total: number;
}

/**
 * The locating script `name` (a member of the library), then, once its match is ready to act on,
 * the locator of the element it found (its answer's `locator`; null when none finds that element
 * alone, or reading failed).
 */
export async function keeping(
  name: string,
  sel: unknown,
  opts: { visible: boolean },
  ...more: unknown[]
): Promise<unknown> {
  // The library as the sandbox holds it (index.ts puts it there).
  const L = (globalThis as { __sfLib?: Lib }).__sfLib as Lib;
  const got = (await (L[name] as Lib[string])(sel, opts, ...more)) as Got | null;
  if (!got || got.invalid || !(opts.visible ? got.visible > 0 : got.total > 0)) return got;
  let locator = null;
  try {
    locator = (L.locatorOf as Lib[string])(sel);
  } catch {}
  return { ...got, locator };
}
