// Starts the real app on an ephemeral port against the test Grid, with helpers to call it over
// REST and MCP. Everything the server logs is kept, so tests can prove no value leaked.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, type AppOptions, buildApp } from "../../src/app.ts";
import { type Config, defaultConfig } from "../../src/config/schema.ts";
import { Log } from "../../src/log.ts";
import { testGridUrl } from "./env.ts";

export const TOKEN = "test-token-0123456789";

/** Every line any test server wrote, at debug level (each server has its log; tests read them all). */
export const logLines: string[] = [];

/** A test server's log: every line into `logLines`, and to stderr with TEST_LOG set. */
export function testLog(): Log {
  const log = new Log("debug", (line) => {
    if (process.env.TEST_LOG) process.stderr.write(`${line}\n`);
  });
  log.addSink((line) => logLines.push(line));
  return log;
}

export interface TestServer {
  url: string;
  app: App;
  config: Config;
  dataDir: string | null;
  /** A REST call in `workspace`; the parsed body and status. */
  call(
    method: string,
    path: string,
    body?: unknown,
    workspace?: string | null,
  ): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export interface TestServerOptions extends AppOptions {
  dataDir?: boolean;
  configure?: (config: Config) => void;
}

export async function startServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const config = defaultConfig();
  config.grid.url = testGridUrl;
  config.auth.token = TOKEN;
  config.grid.open_timeout = 120;
  const dataDir = opts.dataDir === false ? null : mkdtempSync(join(tmpdir(), "sf-test-"));
  config.data.dir = dataDir;
  opts.configure?.(config);
  const app = await buildApp(config, { log: testLog(), ...opts });
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch, idleTimeout: 255 });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    app,
    config,
    dataDir,
    async call(method, path, body, workspace = "test") {
      const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
      if (workspace) headers["x-workspace"] = workspace;
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(`${url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed };
    },
    async close() {
      await server.stop(true);
      await app.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `server.call` on `workspace` that throws on anything but a 200, answering the body (a loop's calls). */
export function okCaller(server: TestServer, workspace: string) {
  return async (
    method: "POST" | "DELETE",
    path: string,
    body?: unknown,
  ): Promise<Record<string, unknown>> => {
    const res = await server.call(method, path, body, workspace);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  };
}

/**
 * Ends every browser the test's workspaces hold, so the two Grid slots are free for the next file.
 * An admin's End, not end_browser: a call still in flight (one a failed test left hanging) holds the
 * workspace's turn, end_browser would wait for it and give up, and the server closing after would
 * leave the browser on the Grid, a slot taken for the files after (scripts/test.mjs's slot watch).
 */
export async function endAll(server: TestServer, workspaces: string[]): Promise<void> {
  await Promise.all(
    workspaces.map((w) => server.app.services.workspaces.interrupt(w).catch(() => undefined)),
  );
}
