// The UI's static files, embedded in the binary (`with { type: "file" }`) and served from memory
// under /ui/static/<name>?v=<hash>: the hash changes with the bytes, so they cache for a year.

import { readFileSync } from "node:fs";
import sse from "htmx.org/dist/ext/hx-sse.min.js" with { type: "file" };
import upsert from "htmx.org/dist/ext/hx-upsert.min.js" with { type: "file" };
import htmx from "htmx.org/dist/htmx.min.js" with { type: "file" };
import icon from "../../static/icon.svg" with { type: "file" };
import css from "../../static/ui.css" with { type: "file" };
import js from "../../static/ui.js" with { type: "file" };

export interface Asset {
  bytes: Uint8Array<ArrayBuffer>;
  type: string;
  /** Its URL, versioned by content. */
  url: string;
}

const JS = "text/javascript; charset=utf-8";
const FILES: Record<string, { path: string; type: string }> = {
  "htmx.js": { path: htmx, type: JS },
  "hx-sse.js": { path: sse, type: JS },
  "hx-upsert.js": { path: upsert, type: JS },
  "ui.js": { path: js, type: JS },
  "ui.css": { path: css, type: "text/css; charset=utf-8" },
  "icon.svg": { path: icon, type: "image/svg+xml" },
};

// Read synchronously: a top-level await here made every importer's start asynchronous, and the
// compiled binary (bytecode) then stopped silently before serving (test/unit/project/no-async-init).
export const ASSETS: ReadonlyMap<string, Asset> = new Map(
  Object.entries(FILES).map(([name, f]) => {
    const bytes = new Uint8Array(readFileSync(f.path));
    const v = Bun.hash(bytes).toString(36);
    return [name, { bytes, type: f.type, url: `/ui/static/${name}?v=${v}` }] as const;
  }),
);

export function assetUrl(name: string): string {
  const a = ASSETS.get(name);
  if (!a) throw new Error(`no UI asset ${name}`);
  return a.url;
}
