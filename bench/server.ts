// The real app on a free port, for benchmarks: the test Grid, a token, and whatever else `configure` sets.
import { type AppOptions, buildApp } from "../src/app.ts";
import { type Config, defaultConfig } from "../src/config/schema.ts";
import { Log } from "../src/log.ts";
import { testGridUrl } from "../test/support/env.ts";

export const TOKEN = "bench-token";

export async function benchServer(configure: (config: Config) => void = () => {}, opts: AppOptions = {}) {
  const config = defaultConfig();
  config.grid.url = testGridUrl;
  config.auth.token = TOKEN;
  configure(config);
  // Warnings only: a bench prints its figures.
  const app = await buildApp(config, { log: new Log("warn"), ...opts });
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch, idleTimeout: 255 });
  return {
    app,
    server,
    base: `http://127.0.0.1:${server.port}`,
    async close() {
      await server.stop(true);
      await app.close();
    },
  };
}

type Hooks = NonNullable<AppOptions["hooks"]>;

/**
 * The manager's hooks with the restore timed into `restores`: its own time, as the manager spends it
 * between the browser's open and its first page (the BiDi connection, which the first page opens
 * anyway, open before it starts).
 */
export function timedRestore(hooks: Hooks, restores: number[]): Hooks {
  const restore = hooks.restore;
  if (!restore) throw new Error("no restore hook to time");
  return {
    ...hooks,
    restore: async (browser, data) => {
      await browser.bidi();
      const t = performance.now();
      const report = await restore(browser, data);
      restores.push(performance.now() - t);
      return report;
    },
  };
}

/** A REST call on the bench server in `workspace`: the parsed body, or a throw naming the status. */
export function restCaller(base: string) {
  return async (workspace: string, method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "x-workspace": workspace,
        "content-type": "application/json",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const out = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  };
}
