// `npm test`: installs what is missing, starts a standalone Grid, a hub with one node (from the
// same jar, for test/integration/hub.test.ts) and Redis for the run, runs every test with
// `bun test`, stops what it started, and exits with the test runner's code. The node has one slot,
// and its suite waits for the standalone to have one free: two browsers at most, as the machine allows.
// A test file that leaves a browser on the Grid fails the run, named (test/support/slot-watch.ts).
// Extra arguments go to `bun test` (e.g. `npm test -- test/unit`).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  // Between files, the slot watch names a file that left a browser on the Grid (and ends it): the
  // run fails naming it, rather than files later failing on "the Grid has no free slot".
  const report = join(mkdtempSync(join(tmpdir(), "sf-slots-")), "left.txt");
  const env = {
    ...process.env,
    TEST_GRID_URL: grid.url,
    TEST_HUB_URL: hub.url,
    TEST_REDIS_URL: redis.url,
    SLOT_WATCH_REPORT: report,
  };
  const args = ["test", "--timeout", "120000", "--preload", "./test/support/slot-watch.ts"];
  const child = spawn(bunBin, [...args, ...process.argv.slice(2)], {
    cwd: root,
    stdio: "inherit",
    env,
  });
  const stop = () => child.kill("SIGINT");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  code = await new Promise((resolve) => child.on("exit", (c, sig) => resolve(c ?? (sig ? 1 : 0))));
  const left = existsSync(report) ? readFileSync(report, "utf8").trim() : "";
  if (left) {
    log(
      `test files left browsers on the Grid (each ended after it; every later "no free slot" may be theirs):\n${left}`,
    );
    code ||= 1;
  }
} catch (err) {
  log(String(err?.message ?? err));
} finally {
  for (const s of started) s.stop();
}
process.exit(code);
