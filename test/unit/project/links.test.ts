// Every relative link in the README and the docs leads somewhere: the file exists, and a `#part`
// names a heading of the page it points at (as GitHub makes a heading's anchor).
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..", "..", "..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

/** The text outside fenced blocks and inline code, where a link is a link. */
function prose(text: string): string {
  return text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "")
    .replace(/`[^`\n]*`/g, (code) => " ".repeat(code.length));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchors(path: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(readFileSync(path, "utf8")).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = anchorOf(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Each link's target as written, with the line it is on. */
function links(path: string): Array<{ target: string; line: number }> {
  const text = prose(readFileSync(path, "utf8"));
  const found: Array<{ target: string; line: number }> = [];
  for (const m of text.matchAll(/!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const line = text.slice(0, m.index).split("\n").length;
    found.push({ target: m[1] as string, line });
  }
  return found;
}

const pages = [join(ROOT, "README.md"), ...markdownFiles(join(ROOT, "docs"))];

test("GitHub's anchors: a heading's words, lower case, joined by hyphens", () => {
  expect(anchorOf("What the loopback default protects against")).toBe(
    "what-the-loopback-default-protects-against",
  );
  expect(anchorOf("What `end_browser` answers")).toBe("what-end_browser-answers");
  expect(anchorOf("Staying signed in: site data")).toBe("staying-signed-in-site-data");
  expect(anchorOf("docker compose: a hub, a node, and docker-selenium's video container")).toBe(
    "docker-compose-a-hub-a-node-and-docker-seleniums-video-container",
  );
});

test("every relative link in README.md and docs/ resolves to a file, and its #part to a heading", () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of pages) {
    for (const { target, line } of links(page)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, skill:// …
      checked++;
      const [file = "", part] = target.split("#", 2);
      const where = `${relative(ROOT, page)}:${line} → ${target}`;
      const path = file === "" ? page : join(dirname(page), decodeURIComponent(file));
      if (!existsSync(path)) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (part !== undefined && path.endsWith(".md") && !anchors(path).has(part)) {
        broken.push(`${where}: no heading #${part}`);
      }
    }
  }
  expect(broken).toEqual([]);
  // The README alone links a dozen pages: a parser that found no link would pass on nothing.
  expect(checked).toBeGreaterThan(40);
});
