// The composition root: builds the store, the Grid client, the workspace manager and the surfaces.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import { Elysia } from "elysia";
import { Activity } from "./admin/activity.ts";
import { Gate } from "./admin/auth.ts";
import type { Config } from "./config/schema.ts";
import { ConfigError, type Source } from "./config/sources.ts";
import { captureHook } from "./grid/capture.ts";
import { Grid } from "./grid/webdriver.ts";
import { bodyParser } from "./http/body.ts";
import { HostRules } from "./http/guard.ts";
import { failureResponse, json } from "./http/json.ts";
import { Events } from "./kit/events.ts";
import { Log } from "./log.ts";
import { metricsRoutes } from "./metrics/routes.ts";
import { secretValues } from "./person/secret-words.ts";
import { PersonSecrets } from "./person/secrets.ts";
import { setupRecordings } from "./recordings/setup.ts";
import { ACTIONS, buildCapabilities, capabilitySubscribers, ownRoutes } from "./registry.ts";
import { SecretCatalogue } from "./secrets/catalogue.ts";
import { Redactor } from "./secrets/redactor.ts";
import type { Services } from "./services.ts";
import { siteDataHooks } from "./site-data/hooks.ts";
import { browserGroup, checkKeyPrint, checkSealed, hasKeyPrint, KEY_FILE, openStore } from "./store/index.ts";
import type { RecordStore } from "./store/types.ts";
import { adminRoutes } from "./surfaces/admin-api.ts";
import { Feeds } from "./surfaces/feed.ts";
import type { McpHttp } from "./surfaces/mcp-http.ts";
import { openApiDocument } from "./surfaces/openapi.ts";
import { restRoutes } from "./surfaces/rest.ts";
import { uiRoutes } from "./surfaces/ui.ts";
import { heldBrowsers } from "./workspaces/browsers.ts";
import { Leases } from "./workspaces/lease.ts";
import type { ManagerHooks } from "./workspaces/lifecycle.ts";
import { WorkspaceManager } from "./workspaces/manager.ts";
import { proxyFrom } from "./workspaces/proxy.ts";

export interface AppOptions {
  /** A store built elsewhere (tests); otherwise one is opened from the config. */
  store?: RecordStore;
  now?: () => number;
  hooks?: ManagerHooks;
  /** Where each setting came from (from loadConfig). */
  sources?: Record<string, Source>;
  /** The server's log (the command line's, or a test's); otherwise one at config.log.level. */
  log?: Log;
  /** false: no hint recorder in the pages' own world (a benchmark's side by side of the outline without). */
  hints?: boolean;
}

export interface App {
  services: Services;
  /** The server's live feeds (the admin's and the pages' event streams). */
  feeds: Feeds;
  /** Answers one HTTP request (what Bun.serve calls, with its server as the second argument). */
  fetch(request: Request, server?: Server<unknown>): Promise<Response>;
  /** MCP over HTTP (loaded on the first /mcp request, or here): what it has in use in memory now. */
  close(): Promise<void>;
}

const epochSeconds = () => Date.now() / 1000;

/**
 * The configured store, refused at boot when its key cannot open the site data it holds or is not
 * the key whose fingerprint the store keeps; a key file the data dir lacks is written only then.
 */
export async function openSealedStore(
  config: Config,
  log: Log,
  oldKeys: string[] = [],
  attempt = 0,
  /** The key chosen (told back), and who is handed the workspaces' own secrets as records are read. */
  told: { key?: string; openedSecrets?: (secrets: object) => void } = {},
): Promise<RecordStore> {
  let key = "";
  let fresh = false;
  const later: { keep?: () => boolean } = {};
  const store = await openStore({
    dataDir: config.data.dir,
    storeUrl: config.store.url,
    ttl: config.session.ttl,
    key: config.store.key,
    oldKeys,
    log: (m) => log.info(m),
    warn: (m) => log.warn(m),
    ...(told.openedSecrets && { openedSecrets: told.openedSecrets }),
    chosen: (k, f) => {
      key = k;
      fresh = f;
    },
    keyFileLater: later,
  });
  // Servers booting together on one new data dir: the one whose key file landed first wins, and
  // the others boot again with its key (a few times at most).
  let again = false;
  try {
    if (oldKeys.length === 0) await checkSealed(store);
    if (fresh) {
      // A store sealed under a key before: a key file that appeared meanwhile holds it (boot again
      // with it); otherwise this new key is refused below, and no file is written.
      if (await hasKeyPrint(store)) again = existsSync(join(config.data.dir ?? "", KEY_FILE));
      else again = later.keep?.() === false;
    }
    if (!again && key) await checkKeyPrint(store, key, oldKeys);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  if (!again) {
    told.key = key;
    return store;
  }
  await store.close();
  if (attempt >= 3)
    throw new ConfigError("the data dir's key file changed while this server booted: start it again");
  return openSealedStore(config, log, oldKeys, attempt + 1, told);
}

export async function buildServices(config: Config, opts: AppOptions = {}): Promise<Services> {
  const now = opts.now ?? epochSeconds;
  const log = opts.log ?? new Log(config.log.level);
  const secrets = new SecretCatalogue(config.secrets, log);
  const redactor = new Redactor(secrets);
  log.addRedaction(redactor.redact);
  // Every server of a group learns a workspace's own secret values as it reads the record (for the
  // redactor), not only the server where the person typed them.
  const sealed: { key?: string; openedSecrets?: (s: object) => void } = {
    openedSecrets: (s) => redactor.know(secretValues(s)),
  };
  const store = opts.store ?? (await openSealedStore(config, log, [], 0, sealed));
  const grid = new Grid(config.grid.url, {
    openTimeout: config.grid.open_timeout,
    commandTimeout: config.grid.command_timeout,
    log,
    // The tag on every browser this server opens: the same on each server of its group.
    group: browserGroup(config, sealed.key),
  });
  const events = new Events();
  const personSecrets = new PersonSecrets(store, secrets, config, events, redactor);
  // The browsers this server holds: the manager's calls and the timeline's live view reach them.
  const browsers = heldBrowsers(grid, {
    schemes: config.navigate.allow_schemes,
    logs: config.logs.keep,
    policy: {
      allow: config.navigate.allowed_hosts,
      block: config.navigate.blocked_hosts,
      private: config.navigate.private_addresses === "block",
    },
    proxies: (name) => proxyFrom(secrets, name),
    hints: opts.hints,
  });
  // Each capability's services (its descriptor's `build`), in the registry's order.
  const built = buildCapabilities({
    config,
    log,
    store,
    grid,
    now,
    events,
    redactor,
    connection: (id) => browsers.connection(id),
    actions: () => ACTIONS,
  });
  const recordings = setupRecordings(config, built.files.store, {
    liveIds: () => grid.sessions(),
    // Each recording is filed once across a group: by whichever server claims it in the store.
    claims: new Leases(store, config.session.lease * 1000),
    events,
    log,
  });
  const hooks: ManagerHooks = {
    capture: captureHook((text) => redactor.redact(text), log),
    ...siteDataHooks(now, config.site_data),
    ...(recordings ? { recordings } : {}),
    ...opts.hooks,
  };
  const hosts = new HostRules(config);
  // What handlers are handed: the manager is built with it, and the whole set with the manager.
  const ports = { config, log, store, grid, now, secrets, redactor, events, personSecrets, ...built };
  const activity = new Activity();
  const workspaces: WorkspaceManager = new WorkspaceManager({
    store,
    grid,
    now,
    services: ports,
    hooks,
    lease: { lease: config.session.lease, wait: config.grid.command_timeout },
    browsers,
  });
  const services: Services = {
    ...ports,
    sources: opts.sources ?? {},
    workspaces,
    activity,
    recordings,
    hosts,
    gate: new Gate(store, config.auth, hosts),
  };
  // Who hears each call: the change bus (the live feed, MCP subscriptions), the activity log and
  // its metrics, then the capabilities that do (the timeline), in that order.
  for (const s of [events, activity, ...capabilitySubscribers(services)]) workspaces.calls.subscribe(s);
  await recordings?.start();
  workspaces.orphans.start(config.grid.orphan_sweep);
  return services;
}

/** MCP over stdio for one workspace (the command line's --stdio); close() stops it. */
export async function serveMcpStdio(
  services: Services,
  workspace: string,
): Promise<{ close(): Promise<void> }> {
  // Loaded here, not at start-up: an HTTP server never needs them.
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { mcpServer } = await import("./surfaces/mcp.ts");
  const server = mcpServer(services, workspace);
  await server.connect(new StdioServerTransport());
  return server;
}

/**
 * Ends every browser of this server: each workspace's (a call in flight stopped, as an admin's End),
 * then any its records do not name (the sweep).
 */
async function endOwnBrowsers(services: Services): Promise<void> {
  const { store, workspaces } = services;
  const keys = await store.keys().catch(() => []);
  const named = async (key: string) => !!(await store.get(key).catch(() => null))?.session_id;
  await Promise.all(
    keys.map(async (key) => {
      if (await named(key)) await workspaces.interrupt(key).catch(() => undefined);
    }),
  );
  await workspaces.orphans.sweep();
}

/** The methods whose /mcp requests carry a body (JSON): the others' is not read. */
const MCP_BODY_METHODS = ["POST", "DELETE"];

export async function buildApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const services = await buildServices(config, opts);
  const feeds = new Feeds(services);
  // The MCP SDK loads on the first /mcp request: it is a third of the start-up otherwise.
  let mcp: Promise<McpHttp> | null = null;
  let loaded: McpHttp | null = null;
  const mcpHttp = () => {
    mcp ??= import("./surfaces/mcp-http.ts").then((m) => {
      loaded = new m.McpHttp(services);
      return loaded;
    });
    return mcp;
  };
  const mcpBody = bodyParser();
  const http = new Elysia()
    // Before any route: the Host, the Origin and the path, and the credential under /admin and at
    // /mcp, by path: a route added under /admin is the admin's before any handler runs (src/admin/auth.ts).
    .onRequest(({ request }) => services.gate.check(request))
    // Every failure, thrown by a hook, a route schema or a handler, answers the same way.
    .onError(({ code, error, request }) =>
      failureResponse(code, error, request, {
        redact: (t) => services.redactor.redact(t),
        log: services.log,
      }),
    )
    .get("/", () => new Response(null, { status: 302, headers: { location: "/ui/" } }))
    .get("/healthz", async () => {
      const [grid, store] = await Promise.all([
        services.grid.status(),
        services.store.ping().catch(() => false),
      ]);
      const ok = grid.ready && store;
      return json(
        {
          ok,
          grid: { ready: grid.ready, message: grid.message },
          store: { kind: services.store.kind, ok: store },
        },
        ok ? 200 : 503,
      );
    })
    .get("/openapi.json", ({ request }) => {
      services.gate.agent(request);
      return json(openApiDocument());
    })
    .all("/mcp", async ({ request, body }) => (await mcpHttp()).handle(request, body), {
      // Its credential was checked before any route (the gate); a POST's or DELETE's JSON body,
      // nothing for the others (a route of all methods has a parse stage for each, a GET's too).
      parse: (c) => (MCP_BODY_METHODS.includes(c.request.method) ? mcpBody(c) : null),
    })
    .use(restRoutes(services))
    .use(ownRoutes(services))
    .use(adminRoutes(services, feeds))
    .use(uiRoutes(services, feeds))
    .use(metricsRoutes(services, () => loaded?.inUse() ?? { streams: 0, busy: 0 }));
  return {
    services,
    feeds,
    fetch: (request, server) => {
      // Served by our own Bun.serve (Elysia's listen would route through Bun's own router): Elysia
      // learns the server here, so a route reads the client's address from its context's `server`.
      if (server && http.server !== server) http.server = server;
      return http.handle(request);
    },
    close: async () => {
      if (mcp) await (await mcp).close();
      // Entries on their way are written first (a screen needs its browser's connection).
      await services.timeline.close();
      await services.workspaces.orphans.stop();
      // Records in memory go with this server, and its owner tag with them (no other server has it):
      // a browser it left would hold a Grid slot for nobody until the Grid's session timeout.
      if (!config.data.dir && !config.store.url) await endOwnBrowsers(services);
      services.workspaces.connections.closeAll();
      await services.recordings?.stop();
      await services.store.close();
      services.secrets.close();
      services.log.debug("app closed");
    },
  };
}
