// The real app on a free port, for benchmarks: the test Grid, a token, and whatever else `configure` sets.
import { type AppOptions, buildApp } from "../src/app.ts";
import { type Config, defaultConfig } from "../src/config-schema.ts";
import { testGridUrl } from "../test/support/env.ts";

export const TOKEN = "bench-token";

export async function benchServer(configure: (config: Config) => void = () => {}, opts: AppOptions = {}) {
  const config = defaultConfig();
  config.grid.url = testGridUrl;
  config.auth.token = TOKEN;
  configure(config);
  const app = await buildApp(config, opts);
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
