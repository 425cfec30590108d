// The official MCP conformance suite (@modelcontextprotocol/conformance, its server scenarios) run
// against a real server over Streamable HTTP on loopback, without a token (as a local server runs):
// every scenario passes but those test/conformance-baseline.yml lists, which test the reference
// server's own fixtures; one of those that starts passing fails the run too. The suite needs Node
// 22 or Bun: it runs on Bun. MCP_CONFORMANCE_DIR points at another install of the package.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { dirname, join, resolve } from "node:path";
import { startServer, type TestServer } from "../support/server.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BASELINE = join(ROOT, "test", "conformance-baseline.yml");

function suiteCli(): string {
  const dir = process.env.MCP_CONFORMANCE_DIR;
  if (dir) return join(dir, "dist", "index.js");
  try {
    return join(
      dirname(Bun.resolveSync("@modelcontextprotocol/conformance/package.json", ROOT)),
      "dist",
      "index.js",
    );
  } catch {
    throw new Error("@modelcontextprotocol/conformance is missing: run npm install");
  }
}

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.auth.token = null;
    },
  });
});

afterAll(async () => {
  await server.close();
});

test("every server scenario of the official suite passes, but the reference fixtures' ones", async () => {
  const out = join(server.dataDir as string, "conformance");
  const run = Bun.spawn(
    [
      process.execPath,
      suiteCli(),
      "server",
      "--url",
      `${server.url}/mcp?workspace=conformance`,
      "--expected-failures",
      BASELINE,
      "-o",
      out,
    ],
    { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ]);
  const summary = stdout.slice(stdout.lastIndexOf("=== SUMMARY ==="));
  const passed = [...summary.matchAll(/^✓ ([\w-]+):/gm)].map((m) => m[1]);
  // What applies to a server with its own tools, named so a scenario that silently stops running shows.
  expect(passed).toEqual(
    expect.arrayContaining([
      "server-initialize",
      "logging-set-level",
      "ping",
      "tools-list",
      "server-sse-multiple-streams",
      "resources-list",
      "prompts-list",
      "dns-rebinding-protection",
    ]),
  );
  if (code !== 0)
    throw new Error(`the conformance suite failed (exit ${code}):\n${summary}\n${stderr.slice(-2000)}`);
}, 300_000);
