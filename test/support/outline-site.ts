// The pages of test/fixtures/outline served for the outline's tests and benchmark: each page under
// its file's name (`/listeners` for listeners.html), the cross-origin frames' pages on another host
// (`{{pay}}` in a page is that host's origin), pictures, the vendored scripts, and pages made to
// size: `/many-listeners?n=101` (n divs, each with a click listener, browser-use's test page) and
// `/slow` (answered after a wait, for reads right after a switch).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Fixture, html, serveFixture } from "./fixtures.ts";
import { png } from "./images.ts";

const DIR = join(import.meta.dir, "..", "fixtures", "outline");
const VENDOR = join(import.meta.dir, "..", "fixtures", "vendor");
export const PAY_HOST = "pay.example.test";

/**
 * A page of `n` divs, each given a click listener by a script, no pointer cursor; with `inline`, each
 * an onclick attribute instead (the same targets, known to the outline without the hints).
 */
export function manyListeners(n: number, inline = false): string {
  const rows = Array.from(
    { length: n },
    (_, i) => `<div id="custom-${i}"${inline ? ' onclick="void 0"' : ""}>item ${i}</div>`,
  ).join("");
  return `<title>Many listeners</title><h1>${n} listeners</h1>${rows}
<script>for (const el of document.querySelectorAll('[id^="custom-"]')) ${inline ? "void el" : 'el.addEventListener("click", () => undefined)'};</script>`;
}

export function serveOutlinePages(slowMs = 800): Fixture {
  let site: Fixture | null = null;
  const page = (file: string) => () => {
    const pay = `http://${PAY_HOST}:${site?.port}`;
    return html(readFileSync(join(DIR, file), "utf8").replaceAll("{{pay}}", pay));
  };
  const routes: Record<string, (req: Request) => Response | Promise<Response>> = {};
  for (const f of readdirSync(DIR).filter((n) => n.endsWith(".html"))) routes[`/${f.slice(0, -5)}`] = page(f);
  routes["/card"] = page("frames-card.html");
  routes["/card-inner"] = page("frames-card-inner.html");
  routes["/slow"] = async () => {
    await Bun.sleep(slowMs);
    return page("slow.html")();
  };
  // A frame's page long enough to take several parts: clause 1 to 300, a button every 50.
  routes["/long-terms"] = () =>
    html(
      `<title>Long terms</title>${Array.from({ length: 300 }, (_, i) =>
        i % 50 === 49
          ? `<p>Clause ${i + 1} <button>Agree ${i + 1}</button></p>`
          : `<p>Clause ${i + 1} of the terms.</p>`,
      ).join("")}`,
    );
  routes["/many-listeners"] = (req) => {
    const q = new URL(req.url).searchParams;
    return html(manyListeners(Number(q.get("n") ?? 100), q.has("inline")));
  };
  for (const name of ["cat.png", "chart-2024.png", "spacer.png", "pixel.png"])
    routes[`/pic/${name}`] = () =>
      new Response(new Uint8Array(png(32, 32)), { headers: { "content-type": "image/png" } });
  for (const name of ["jquery.min.js", "jquery-ui.min.js", "jquery-ui.min.css"])
    routes[`/vendor/${name}`] = () =>
      new Response(new Uint8Array(readFileSync(join(VENDOR, name))), {
        headers: { "content-type": name.endsWith(".css") ? "text/css" : "text/javascript" },
      });
  site = serveFixture(routes);
  return site;
}
