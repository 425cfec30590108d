// `npm test`: installs what is missing, starts a Grid and Redis for the run, runs every test with
// `bun test`, stops what it started, and exits with the test runner's code.
// Extra arguments go to `bun test` (e.g. `npm test -- test/unit`).
import { spawn } from "node:child_process";
import {
  BROWSER_PACKAGES,
  bunBin,
  ensureApt,
  ensureNodeModules,
  log,
  root,
  startGrid,
  startRedis,
} from "./lib.mjs";

ensureApt({ ...BROWSER_PACKAGES, "redis-server": "redis-server", ffmpeg: "ffmpeg" });
ensureNodeModules();

const gridPort = Number(process.env.TEST_GRID_PORT ?? 4455);
const redisPort = Number(process.env.TEST_REDIS_PORT ?? 6390);
const started = [];
let code = 1;
try {
  log(`starting a Grid on ${gridPort} and Redis on ${redisPort}`);
  const [grid, redis] = await Promise.all([
    startGrid({ port: gridPort, hostRules: true, name: "test-grid" }),
    startRedis({ port: redisPort }),
  ]);
  started.push(grid, redis);
  const env = { ...process.env, TEST_GRID_URL: grid.url, TEST_REDIS_URL: redis.url };
  const child = spawn(bunBin, ["test", "--timeout", "120000", ...process.argv.slice(2)], {
    cwd: root,
    stdio: "inherit",
    env,
  });
  const stop = () => child.kill("SIGINT");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  code = await new Promise((resolve) => child.on("exit", (c, sig) => resolve(c ?? (sig ? 1 : 0))));
} catch (err) {
  log(String(err?.message ?? err));
} finally {
  for (const s of started) s.stop();
}
process.exit(code);
