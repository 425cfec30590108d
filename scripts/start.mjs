// `npm start`: installs what is missing, starts a local Selenium Grid (unless GRID_URL points at
// one), then the server on 127.0.0.1:8766 with DATA_DIR=./data and a token it prints. Ctrl-C stops both.
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
if (!external) ensureApt(BROWSER_PACKAGES);
ensureNodeModules();

const dataDir = process.env.DATA_DIR ?? join(root, "data");
mkdirSync(dataDir, { recursive: true });
// The token is kept beside the data, so an MCP client's config survives a restart.
const tokenFile = join(dataDir, ".token");
const token =
  process.env.AUTH_TOKEN ??
  (existsSync(tokenFile)
    ? readFileSync(tokenFile, "utf8").trim()
    : (() => {
        const t = randomBytes(24).toString("base64url");
        writeFileSync(tokenFile, `${t}\n`, { mode: 0o600 });
        return t;
      })());
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
  Token  ${token}

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
