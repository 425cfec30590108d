// `npm start`: installs what is missing, starts a local Selenium Grid (unless GRID_URL points at
// one), then the server on 127.0.0.1:8766 with DATA_DIR=./data and the two tokens it prints (agents', admin's). Ctrl-C stops both.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
} from "./lib.mjs";

ensureNode();
const external = process.env.GRID_URL;
// The local Grid runs Debian's Chromium and ChromeDriver; elsewhere, a Grid of your own.
if (!external)
  ensureApt(BROWSER_PACKAGES, {
    who: "npm start",
    otherwise: [
      "They run its local Selenium Grid. Anywhere else, point npm start at a Selenium Grid 4 you already",
      "run (BiDi and managed downloads on); it then starts no Grid and needs none of them:",
      "  GRID_URL=http://127.0.0.1:4444 npm start",
      "For example, a Grid in Docker:",
      "  docker run -d -p 4444:4444 --shm-size=2g -e SE_NODE_ENABLE_MANAGED_DOWNLOADS=true selenium/standalone-chrome",
    ],
  });
ensureNodeModules();

const dataDir = process.env.DATA_DIR ?? join(root, "data");
mkdirSync(dataDir, { recursive: true });
// The tokens are kept beside the data, so an MCP client's config and a signed-in admin survive a restart.
function kept(env, file) {
  if (process.env[env]) return process.env[env];
  const path = join(dataDir, file);
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  const t = randomBytes(24).toString("base64url");
  writeFileSync(path, `${t}\n`, { mode: 0o600 });
  return t;
}
// Two credentials: agents get the token, the admin pages and /admin/* take only the admin token.
const token = kept("AUTH_TOKEN", ".token");
const adminToken = kept("AUTH_ADMIN_TOKEN", ".admin-token");
const host = process.env.HTTP_HOST ?? "127.0.0.1";
const port = process.env.PORT ?? "8766";

let grid = null;
let gridUrl = external;
if (!gridUrl) {
  log("starting a local Selenium Grid on 127.0.0.1:4444 (or using the one there)");
  grid = await startGrid({ port: 4444, name: "grid", reuse: true });
  gridUrl = grid.url;
}

const base = `http://${host}:${port}`;
const server = spawn(bunBin, [join(root, "src", "main.ts")], {
  cwd: root,
  stdio: "inherit",
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    AUTH_TOKEN: token,
    AUTH_ADMIN_TOKEN: adminToken,
    GRID_URL: gridUrl,
    HTTP_HOST: host,
    PORT: port,
  },
});

const config = {
  mcpServers: {
    "selenium-flow": {
      type: "http",
      url: `${base}/mcp?workspace=default`,
      headers: { Authorization: `Bearer ${token}` },
    },
  },
};
process.stdout.write(`
selenium-flow
  MCP    ${base}/mcp   (name the workspace with X-Workspace or ?workspace=)
  REST   ${base}/openapi.json
  Admin  ${base}/ui/
  Grid   ${gridUrl}
  Token  ${token}   (agents: MCP and REST)
  Admin token  ${adminToken}   (the admin pages and /admin/*)

MCP client config:
${JSON.stringify(config, null, 2)}

Ctrl-C stops the server${grid?.child ? " and the Grid" : ""}.
`);

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  server.kill("SIGTERM");
  grid?.stop();
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
server.on("exit", (code) => {
  grid?.stop();
  process.exit(code ?? 0);
});
