// The real app on a free port, for benchmarks: the test Grid, a token, and whatever else `configure` sets.
import { type AppOptions, buildApp } from "../src/app.ts";
import { type Config, defaultConfig } from "../src/config.ts";
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
