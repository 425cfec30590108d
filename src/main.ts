// The command line: load the settings, build the app, then serve HTTP or MCP over stdio.
// Exit codes: 0 after a clean stop, 2 for a bad setting, 1 for anything else that stops the boot.
import { credentialsLine } from "./admin/auth.ts";
import { buildApp, buildServices, openSealedStore, serveMcpStdio } from "./app.ts";
import { helpText, redactedSettings } from "./config/help.ts";
import { configProblem, hostProblem, loadConfig } from "./config/load.ts";
import { ConfigError, type Loaded } from "./config/sources.ts";
import { messageOf } from "./errors.ts";
import { UPLOAD_CAP } from "./files/uris.ts";
import { VERSION } from "./kit/version.ts";
import { Log } from "./log.ts";

const MAX_REQUEST_BODY = UPLOAD_CAP + 2 * 1024 * 1024;

function fail(message: string, code: number): never {
  process.stderr.write(`selenium-flow: ${message}\n`);
  process.exit(code);
}

function load(argv = process.argv.slice(2)): Loaded {
  try {
    const loaded = loadConfig(argv, process.env);
    if (loaded.cli.help || loaded.cli.version) return loaded;
    const problem = configProblem(loaded.config) ?? (loaded.cli.stdio ? null : hostProblem(loaded.config));
    if (problem) throw new ConfigError(problem);
    return loaded;
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
}

function bootLine(loaded: Loaded): string {
  const from = redactedSettings(loaded)
    .filter((s) => s.source !== "default")
    .map((s) => `${s.key}=${typeof s.value === "string" ? s.value : JSON.stringify(s.value)} (${s.source})`);
  const recordings = loaded.config.recording.enabled ? "on" : "off";
  return `selenium-flow ${VERSION}: recordings=${recordings}; ${from.length ? from.join(", ") : "all defaults"}`;
}

async function serveStdio(loaded: Loaded, log: Log): Promise<void> {
  const services = await buildServices(loaded.config, { sources: loaded.sources, log });
  const server = await serveMcpStdio(services, loaded.cli.workspace);
  log.info(`MCP over stdio for workspace ${loaded.cli.workspace}`);
  const stop = async () => {
    await server.close().catch(() => undefined);
    await services.store.close().catch(() => undefined);
    process.exit(0);
  };
  process.stdin.on("end", stop);
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

async function serveHttp(loaded: Loaded, log: Log): Promise<void> {
  const { host, port } = loaded.config.http;
  const app = await buildApp(loaded.config, { sources: loaded.sources, log });
  const server = Bun.serve({
    hostname: host,
    port,
    fetch: app.fetch,
    idleTimeout: 255,
    // Just above the largest body any route takes (a 64 MiB upload and its form): Bun refuses more.
    maxRequestBodySize: MAX_REQUEST_BODY,
  });
  const base = `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`;
  log.info(`serving on ${base}: MCP ${base}/mcp, REST ${base}/openapi.json, admin ${base}/ui/`);
  log.info(credentialsLine(loaded.config));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    log.info("stopping");
    await server.stop();
    await app.close().catch(() => undefined);
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/**
 * `selenium-flow rekey --from OLD_KEY [settings]`: re-seals every record's site data under the
 * configured store.key (or the data dir's key file), opening each with either key.
 */
async function rekeyCommand(args: string[]): Promise<void> {
  if (args.includes("-h") || args.includes("--help")) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  const at = args.indexOf("--from");
  const old = at >= 0 ? args[at + 1] : undefined;
  if (!old) fail("rekey needs --from OLD_KEY: the key the records were sealed with", 2);
  const loaded = load([...args.slice(0, at), ...args.slice(at + 2)]);
  const log = new Log(loaded.config.log.level);
  const { rekey } = await import("./store/index.ts");
  let store: Awaited<ReturnType<typeof openSealedStore>>;
  try {
    store = await openSealedStore(loaded.config, log, [old]);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
  const { resealed, unreadable } = await rekey(store);
  await store.close().catch(() => undefined);
  process.stdout.write(`re-sealed ${resealed} workspace record${resealed === 1 ? "" : "s"}\n`);
  if (unreadable.length)
    fail(
      `neither key opens ${unreadable.length} record${unreadable.length === 1 ? "" : "s"} (${unreadable.slice(0, 3).join(", ")}): they were left as they are`,
      1,
    );
}

async function main(): Promise<void> {
  if (process.argv[2] === "rekey") return rekeyCommand(process.argv.slice(3));
  const loaded = load();
  if (loaded.cli.help) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  if (loaded.cli.version) {
    process.stdout.write(`selenium-flow ${VERSION}\n`);
    return;
  }
  // The process's one server, and its log.
  const log = new Log(loaded.config.log.level);
  log.info(bootLine(loaded));
  if (loaded.cli.stdio) await serveStdio(loaded, log);
  else await serveHttp(loaded, log);
}

main().catch((err) => {
  if (err instanceof ConfigError) fail(err.message, 2);
  fail(messageOf(err), 1);
});
