// What an agent pays, in o200k tokens (gpt-tokenizer), beside Playwright MCP in the same run: the
// tools/list (what a model is shown: name, description, input schema; and the whole list), one
// navigate result, and the first look at a real-world page (Playwright's browser_snapshot, our
// read_page, and every page of it when read_page pages), how much of the page the parts cover (the
// page's visible links, buttons and fields, counted in the browser by a plain query of its own,
// against the elements the parts listed), on the saved pages in test/fixtures/pages (copied from shared/pages)
// (BENCH_PAGES to point elsewhere) served from 127.0.0.1. Playwright MCP runs from node_modules on
// Debian's Chromium; ours is a real server on the Grid (TEST_GRID_URL or GRID_URL). The two sides
// run one after the other, so no more than one browser of this bench is open at a time.
// `bun bench/agent-tokens.ts`.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { printTable, type Row } from "./report.ts";
import { benchServer, TOKEN } from "./server.ts";

const ROOT = resolve(import.meta.dir, "..");
const PAGES_DIR = resolve(process.env.BENCH_PAGES ?? join(ROOT, "test", "fixtures", "pages"));
const CHROMIUM = process.env.BENCH_CHROMIUM ?? "/usr/bin/chromium";
const PLAYWRIGHT_MCP = join(ROOT, "node_modules", "@playwright", "mcp");
const W = "bench-agent-tokens";

interface Side {
  name: string;
  /** name + description + inputSchema of every tool. */
  visible: number;
  /** The whole tools/list result. */
  whole: number;
  tools: number;
  /** Per page: the navigate result, the first look, and every page of the look (ours, when it pages). */
  navigate: number[];
  first: number[];
  all: number[];
  /** Ours: the page's visible links, buttons and fields, and how many of them the parts listed. */
  shown: number[];
  seen: number[];
  /** Ours: the same parts as compact JSON (structuredContent without the selectors for scripts). */
  json: number[];
}

type ToolResult = Awaited<ReturnType<Client["callTool"]>>;

/** What a model reads of a tool result: its text blocks. */
function textTokens(result: ToolResult): number {
  const blocks = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return countTokens(
    blocks
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("\n"),
  );
}

function ok(result: ToolResult, what: string): ToolResult {
  if (result.isError) {
    const text = ((result.content ?? []) as Array<{ text?: string }>).map((b) => b.text).join(" ");
    throw new Error(`${what} failed: ${text}`);
  }
  return result;
}

async function toolCosts(client: Client) {
  const listed = await client.listTools();
  const visible = listed.tools.map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema,
  }));
  return {
    visible: countTokens(JSON.stringify(visible)),
    whole: countTokens(JSON.stringify(listed)),
    tools: listed.tools.length,
  };
}

function servePages(names: string[]) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const name = decodeURIComponent(new URL(req.url).pathname.slice(1));
      if (!names.includes(name)) return new Response("not found", { status: 404 });
      return new Response(Bun.file(join(PAGES_DIR, name)), {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    },
  });
  return { url: (name: string) => `http://127.0.0.1:${server.port}/${name}`, stop: () => server.stop(true) };
}

async function playwright(pages: string[], url: (name: string) => string): Promise<Side> {
  const out = mkdtempSync(join(tmpdir(), "bench-pw-mcp-"));
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: "node",
    args: [
      join(PLAYWRIGHT_MCP, "cli.js"),
      "--executable-path",
      CHROMIUM,
      "--no-sandbox",
      "--headless",
      "--isolated",
      "--output-dir",
      out,
    ],
    cwd: out,
    env: { ...(process.env as Record<string, string>), PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk) => stderr.push(String(chunk)));
  const client = new Client({ name: "bench", version: "1" });
  try {
    await client.connect(transport);
    const side: Side = {
      name: "Playwright MCP",
      ...(await toolCosts(client)),
      navigate: [],
      first: [],
      all: [],
      shown: [],
      seen: [],
      json: [],
    };
    for (const page of pages) {
      side.navigate.push(
        textTokens(
          ok(await client.callTool({ name: "browser_navigate", arguments: { url: url(page) } }), page),
        ),
      );
      const snapshot = textTokens(
        ok(await client.callTool({ name: "browser_snapshot", arguments: {} }), page),
      );
      side.first.push(snapshot);
      side.all.push(snapshot);
    }
    return side;
  } catch (err) {
    throw new Error(`Playwright MCP: ${(err as Error).message}\n${stderr.join("").slice(-2000)}`);
  } finally {
    await client.close().catch(() => undefined);
    rmSync(out, { recursive: true, force: true });
  }
}

async function ours(pages: string[], url: (name: string) => string): Promise<Side> {
  const grid = process.env.TEST_GRID_URL ?? process.env.GRID_URL;
  const { base, close } = await benchServer((c) => {
    if (grid) c.grid.url = grid;
  });
  const client = new Client({ name: "bench", version: "1" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp?workspace=${W}`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const side: Side = {
      name: "selenium-flow",
      ...(await toolCosts(client)),
      navigate: [],
      first: [],
      all: [],
      shown: [],
      seen: [],
      json: [],
    };
    const script = async (script: string, args: unknown[] = []) =>
      (
        ok(await client.callTool({ name: "execute_script", arguments: { script, args } }), "script")
          .structuredContent as { result: unknown }
      ).result;
    for (const page of pages) {
      side.navigate.push(
        textTokens(ok(await client.callTool({ name: "navigate", arguments: { url: url(page) } }), page)),
      );
      const visible = (await script(MARK_VISIBLE)) as number;
      let result = ok(await client.callTool({ name: "read_page", arguments: {} }), page);
      const first = textTokens(result);
      let all = first;
      let json = jsonTokens(result);
      const listed: Listed[] = [...listedOf(result)];
      // When read_page pages (next_cursor), read on to the end: what seeing all of the page costs.
      for (let i = 0; i < 500; i++) {
        const cursor = (result.structuredContent as { next_cursor?: string } | undefined)?.next_cursor;
        if (!cursor) break;
        result = ok(await client.callTool({ name: "read_page", arguments: { cursor } }), `${page} (more)`);
        all += textTokens(result);
        json += jsonTokens(result);
        listed.push(...listedOf(result));
      }
      side.first.push(first);
      side.all.push(all);
      side.shown.push(visible);
      side.json.push(json);
      side.seen.push(await seenOf(listed, script, client));
    }
    await client.callTool({ name: "end_browser", arguments: {} });
    return side;
  } finally {
    await client.close().catch(() => undefined);
    await close();
  }
}

// The page's own count of what an agent acts on, independent of read_page's walk: every visible
// link, button and field, each marked with its number (an attribute read_page never looks at).
const MARK_VISIBLE = `() => {
  const q = "a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable=''],[contenteditable=true],[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],[role=option],[role=combobox],[role=textbox],[role=searchbox]";
  let n = 0;
  for (const el of document.querySelectorAll(q)) {
    const r = el.getBoundingClientRect();
    const shown = (!el.checkVisibility || el.checkVisibility({ visibilityProperty: true })) && r.width > 0 && r.height > 0;
    if (shown) el.setAttribute("data-bench-visible", String(n++));
  }
  return n;
}`;

/** The part as compact JSON with what the outline says: no selector (the outline has refs instead). */
function jsonTokens(result: ToolResult): number {
  return countTokens(
    JSON.stringify(result.structuredContent, (k, v) => (k === "selector" || k === "frame" ? undefined : v)),
  );
}

interface Listed {
  ref: string;
  selector?: Record<string, string>;
  frame?: unknown[];
}

function listedOf(result: ToolResult): Listed[] {
  return ((result.structuredContent as { elements?: Listed[] } | undefined)?.elements ?? []).filter(
    (e) => !e.frame,
  );
}

/** How many of the marked elements the parts listed: by their CSS selector, else by their ref. */
async function seenOf(
  listed: Listed[],
  script: (s: string, a?: unknown[]) => Promise<unknown>,
  client: Client,
): Promise<number> {
  const css = listed.filter((e) => e.selector?.css).map((e) => e.selector?.css as string);
  const marks = (await script(
    `(all) => all.map((q) => { try { return document.querySelector(q)?.getAttribute("data-bench-visible") ?? null; } catch { return null; } })`,
    [css],
  )) as (string | null)[];
  const seen = new Set(marks.filter((m): m is string => m !== null));
  for (const e of listed.filter((x) => !x.selector?.css)) {
    const got = await client.callTool({
      name: "extract",
      arguments: { selector: { ref: e.ref }, get: "attribute", attribute: "data-bench-visible", timeout: 0 },
    });
    const mark = (got.structuredContent as { result?: unknown } | undefined)?.result;
    if (!got.isError && typeof mark === "string") seen.add(mark);
  }
  return seen.size;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export async function main(): Promise<void> {
  if (!existsSync(PAGES_DIR)) {
    throw new Error(`no saved pages at ${PAGES_DIR}: set BENCH_PAGES to a folder of saved pages`);
  }
  if (!existsSync(join(PLAYWRIGHT_MCP, "cli.js")))
    throw new Error("@playwright/mcp is missing: run npm install");
  const pages = readdirSync(PAGES_DIR)
    .filter((f) => f.endsWith(".html"))
    .sort();
  if (pages.length === 0) throw new Error(`no .html pages in ${PAGES_DIR}`);
  const version = JSON.parse(readFileSync(join(PLAYWRIGHT_MCP, "package.json"), "utf8")).version as string;
  const site = servePages(pages);
  try {
    // One side, then the other: at most one browser of this bench at a time.
    const pw = await playwright(pages, site.url);
    const we = await ours(pages, site.url);
    const paged = we.all.some((n, i) => n !== we.first[i]);
    const rows: Row[] = [
      {
        what: `model-visible tools/list (name, description, inputSchema; ${we.tools} tools)`,
        value: we.visible,
        unit: "tokens",
        ref: pw.visible,
        refName: `Playwright MCP ${version} (${pw.tools} tools)`,
        target: "≤ 3,500; ≤ 0.95×",
      },
      {
        what: "the whole tools/list (output schemas included)",
        value: we.whole,
        unit: "tokens",
        ref: pw.whole,
        refName: "Playwright MCP",
        target: "≤ 6,000",
      },
      ...pages.map((page, i) => ({
        what: `first read_page, ${page}`,
        value: we.first[i] as number,
        unit: "tokens",
        ref: pw.first[i] as number,
        refName: "browser_snapshot",
        target: "≤ 0.5×",
      })),
      {
        what: `first read_page, ${pages.length} pages in all`,
        value: sum(we.first),
        unit: "tokens",
        ref: sum(pw.first),
        refName: "browser_snapshot",
        target: "≤ 0.5×",
      },
      ...(paged
        ? [
            {
              what: `every page of read_page, ${pages.length} pages in all`,
              value: sum(we.all),
              unit: "tokens",
              ref: sum(pw.all),
              refName: "browser_snapshot",
            },
          ]
        : []),
      {
        what: `every part of read_page as the model reads it (the outline), ${pages.length} pages in all`,
        value: sum(we.all),
        unit: "tokens",
        ref: sum(we.json),
        refName: "the same parts as compact JSON",
      },
      ...pages.map((page, i) => ({
        what: `visible links, buttons and fields that every part of read_page listed, ${page}`,
        value: we.seen[i] as number,
        unit: "elements",
        ref: we.shown[i] as number,
        refName: "the page's own count",
        target: "≥ 0.95×",
      })),
      ...pages.map((page, i) => ({
        what: `one navigate result, ${page}`,
        value: we.navigate[i] as number,
        unit: "tokens",
        ref: pw.navigate[i] as number,
        refName: "browser_navigate",
      })),
    ];
    printTable("What an agent pays (o200k tokens)", rows);
  } finally {
    site.stop();
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
