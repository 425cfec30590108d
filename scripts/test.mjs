// `npm test`: installs what is missing, starts a standalone Grid, a hub with one node (from the
// same jar, for test/integration/hub.test.ts) and Redis for the run, runs every test with
// `bun test`, stops what it started, and exits with the test runner's code. The node has one slot,
// and its suite waits for the standalone to have one free: two browsers at most, as the machine allows.
// Extra arguments go to `bun test` (e.g. `npm test -- test/unit`).
import { spawn } from "node:child_process";
import {
  BROWSER_PACKAGES,
  bunBin,
  ensureApt,
  ensureNode,
  ensureNodeModules,
  log,
  root,
  startGrid,
  startHub,
  startRedis,
} from "./lib.mjs";

ensureNode();
ensureApt(
  {
    ...BROWSER_PACKAGES,
    "redis-server": "redis-server",
    ffmpeg: "ffmpeg",
    pdftotext: "poppler-utils",
  },
  { who: "npm test" },
);
ensureNodeModules();

const gridPort = Number(process.env.TEST_GRID_PORT ?? 4455);
const redisPort = Number(process.env.TEST_REDIS_PORT ?? 6390);
const hubPort = Number(process.env.TEST_HUB_PORT ?? 4460);
const nodePort = Number(process.env.TEST_NODE_PORT ?? 5560);
const started = [];
let code = 1;
try {
  log(
    `starting a Grid on ${gridPort}, a hub on ${hubPort} (events ${hubPort + 1}, ${hubPort + 2}) with a node on ${nodePort}, and Redis on ${redisPort}`,
  );
  const parts = await Promise.allSettled([
    startGrid({ port: gridPort, hostRules: true, name: "test-grid" }),
    startHub({ port: hubPort, nodePort, hostRules: true, name: "test-hub", maxSessions: 1 }),
    startRedis({ port: redisPort }),
  ]);
  for (const p of parts) if (p.status === "fulfilled") started.push(p.value);
  const failed = parts.find((p) => p.status === "rejected");
  if (failed) throw failed.reason;
  const [grid, hub, redis] = parts.map((p) => p.value);
  const env = { ...process.env, TEST_GRID_URL: grid.url, TEST_HUB_URL: hub.url, TEST_REDIS_URL: redis.url };
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
