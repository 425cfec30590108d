// A click and a 12-character write by ref over MCP, beside Playwright MCP's browser_click and
// browser_type on the same page in the same run: each side reads the page once for its refs, then
// clicks and types round after round. Playwright MCP runs from node_modules on Debian's Chromium;
// ours is a real server on the Grid. The two sides run one after the other, so no more than one
// browser of this bench is open at a time. `bun bench/mcp-actions.ts`; BENCH_ROUNDS sets the rounds.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, TOKEN } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const ROOT = resolve(import.meta.dir, "..");
const CHROMIUM = process.env.BENCH_CHROMIUM ?? "/usr/bin/chromium";
const PLAYWRIGHT_MCP = join(ROOT, "node_modules", "@playwright", "mcp");
const W = "bench-mcp-actions";
const TEXT = "hello, world";

const PAGE = `<!doctype html><title>Bench</title>
<button id="b" onclick="document.getElementById('n').textContent = String(Number(document.getElementById('n').textContent) + 1)">Add</button>
<span id="n">0</span>
<input id="t" aria-label="Text">`;

type Call = (name: string, args: Record<string, unknown>) => Promise<Awaited<ReturnType<Client["callTool"]>>>;

function caller(client: Client): Call {
  return async (name, args) => {
    const got = await client.callTool({ name, arguments: args });
    if (got.isError) {
      const text = ((got.content ?? []) as { text?: string }[]).map((b) => b.text).join(" ");
      throw new Error(`${name} failed: ${text}`);
    }
    return got;
  };
}

const textOf = (r: Awaited<ReturnType<Call>>) =>
  ((r.content ?? []) as { type: string; text?: string }[])
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n");

interface Side {
  click: number[];
  write: number[];
}

async function rounds(click: () => Promise<unknown>, write: () => Promise<unknown>): Promise<Side> {
  await click();
  await write();
  const side: Side = { click: [], write: [] };
  for (let i = 0; i < ROUNDS; i++) {
    side.click.push(await timed(click));
    side.write.push(await timed(write));
  }
  return side;
}

async function playwright(url: string): Promise<Side> {
  const out = mkdtempSync(join(tmpdir(), "bench-pw-mcp-"));
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
  const client = new Client({ name: "bench", version: "1" });
  try {
    await client.connect(transport);
    const call = caller(client);
    await call("browser_navigate", { url });
    const snapshot = textOf(await call("browser_snapshot", {}));
    const ref = (name: string) => {
      const m = new RegExp(`${name}[^\\n]*\\[ref=(e\\d+)\\]`).exec(snapshot);
      if (!m) throw new Error(`no ref for ${name} in the snapshot:\n${snapshot}`);
      return m[1] as string;
    };
    const button = ref('button "Add"');
    const box = ref('textbox "Text"');
    return await rounds(
      () => call("browser_click", { element: "Add button", target: button }),
      () => call("browser_type", { element: "Text box", target: box, text: TEXT }),
    );
  } finally {
    await client.close().catch(() => undefined);
    rmSync(out, { recursive: true, force: true });
  }
}

async function ours(url: string): Promise<Side> {
  const { base, close } = await benchServer();
  const client = new Client({ name: "bench", version: "1" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp?workspace=${W}`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const call = caller(client);
    await call("navigate", { url });
    const outline = textOf(await call("read_page", {}));
    const ref = (name: string) => {
      const m = new RegExp(`${name}[^\\n]*\\[(e\\d+)\\]`).exec(outline);
      if (!m) throw new Error(`no ref for ${name} in read_page:\n${outline}`);
      return m[1] as string;
    };
    const button = ref('button "Add"');
    const box = ref('textbox "Text"');
    const side = await rounds(
      () => call("interact", { action: "click", selector: { ref: button } }),
      () => call("write", { selector: { ref: box }, text: TEXT }),
    );
    await call("end_browser", {});
    return side;
  } finally {
    await client.close().catch(() => undefined);
    await close();
  }
}

export async function main(): Promise<void> {
  if (!existsSync(join(PLAYWRIGHT_MCP, "cli.js")))
    throw new Error("@playwright/mcp is missing: run npm install");
  const version = JSON.parse(readFileSync(join(PLAYWRIGHT_MCP, "package.json"), "utf8")).version as string;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
  });
  const url = `http://127.0.0.1:${server.port}/`;
  try {
    const pw = await playwright(url);
    const we = await ours(url);
    const rows: Row[] = [
      {
        what: "a click by ref over MCP (interact)",
        value: median(we.click),
        unit: "ms",
        ref: median(pw.click),
        refName: `Playwright MCP ${version} browser_click`,
        target: "≤ 0.25×",
      },
      {
        what: `a write by ref over MCP (${TEXT.length} characters)`,
        value: median(we.write),
        unit: "ms",
        ref: median(pw.write),
        refName: "browser_type",
        target: "≤ 1.0×",
      },
    ];
    printTable("actions by ref over MCP, beside Playwright MCP", rows);
  } finally {
    server.stop(true);
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
