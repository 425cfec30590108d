// The server's whole set for a unit test, built as app.ts builds it but on what the test hands in
// (a fake Grid, a store, a clock, the manager's hooks): complete, so production code never has to
// allow for a service that is missing.

import type { AnyAction } from "../../src/actions/action.ts";
import { Activity } from "../../src/admin/activity.ts";
import { Gate } from "../../src/admin/auth.ts";
import { type Config, defaultConfig } from "../../src/config/schema.ts";
import type { Grid } from "../../src/grid/webdriver.ts";
import { HostRules } from "../../src/http/guard.ts";
import { Events } from "../../src/kit/events.ts";
import { PersonSecrets } from "../../src/person/secrets.ts";
import { setupRecordings } from "../../src/recordings/setup.ts";
import { ACTIONS, buildCapabilities, capabilitySubscribers } from "../../src/registry.ts";
import { SecretCatalogue } from "../../src/secrets/catalogue.ts";
import { Redactor } from "../../src/secrets/redactor.ts";
import type { Services } from "../../src/services.ts";
import type { RecordStore } from "../../src/store/types.ts";
import { heldBrowsers } from "../../src/workspaces/browsers.ts";
import { Leases } from "../../src/workspaces/lease.ts";
import type { ManagerHooks } from "../../src/workspaces/lifecycle.ts";
import { type LeaseSettings, WorkspaceManager } from "../../src/workspaces/manager.ts";
import { testLog } from "./server.ts";

export interface TestServicesOptions {
  grid: Grid;
  store: RecordStore;
  /** Epoch seconds. Default: a fixed instant. */
  now?: () => number;
  /** The manager's hooks, exactly (none of app.ts's defaults). */
  hooks?: ManagerHooks;
  lease?: LeaseSettings;
  /** Changes to the default settings. */
  configure?: (config: Config) => void;
  /** The action table flows' steps may call. Default: the whole table. */
  actions?: readonly AnyAction[];
}

export function testServices(opts: TestServicesOptions): Services {
  const config = defaultConfig();
  opts.configure?.(config);
  const now = opts.now ?? (() => 1_790_800_000);
  const { grid, store } = opts;
  const log = testLog();
  const secrets = new SecretCatalogue(config.secrets, log);
  const redactor = new Redactor(secrets);
  log.addRedaction(redactor.redact);
  const events = new Events();
  const personSecrets = new PersonSecrets(store, secrets, config, events, redactor);
  const table = opts.actions ?? ACTIONS;
  const browsers = heldBrowsers(grid, opts.lease ?? {});
  const built = buildCapabilities({
    config,
    log,
    store,
    grid,
    now,
    events,
    redactor,
    connection: (id) => browsers.connection(id),
    actions: () => table,
  });
  const recordings = setupRecordings(config, built.files.store, {
    liveIds: () => grid.sessions(),
    // Each recording is filed once across a group: by whichever server claims it in the store.
    claims: new Leases(store, config.session.lease * 1000),
    events,
    log,
  });
  const ports = { config, log, store, grid, now, secrets, redactor, events, personSecrets, ...built };
  const activity = new Activity();
  const workspaces: WorkspaceManager = new WorkspaceManager({
    store,
    grid,
    now,
    services: ports,
    ...(opts.hooks && { hooks: opts.hooks }),
    ...(opts.lease && { lease: opts.lease }),
    browsers,
  });
  const hosts = new HostRules(config);
  const services: Services = {
    ...ports,
    sources: {},
    workspaces,
    activity,
    recordings,
    hosts,
    gate: new Gate(store, config.auth, hosts),
  };
  for (const s of [events, activity, ...capabilitySubscribers(services)]) workspaces.calls.subscribe(s);
  return services;
}
