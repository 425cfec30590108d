// The workspace manager: a workspace's browser (opened, reopened when the Grid reaped it, ended)
// and its calls. It builds the parts once: the held BiDi connections, the browsers, the lifecycle,
// the leases, and the call pipeline (pipeline.ts) every surface's call goes through. Opening,
// reopening and ending a browser are lifecycle.ts's; a page call's browser, handler and settle
// write, and a runner's steps, runner.ts's (the write's rules settle.ts's).

import type { ActionServices } from "../actions/ports.ts";
import type { HeldConnection } from "../grid/held.ts";
import type { HeldConnections } from "../grid/held-pool.ts";
import type { Grid } from "../grid/webdriver.ts";
import type { RecordStore } from "../store/types.ts";
import { type Browsers, heldBrowsers } from "./browsers.ts";
import { type Describe, describe } from "./describe.ts";
import { Leases } from "./lease.ts";
import { type EndResult, Lifecycle, type ManagerHooks } from "./lifecycle.ts";
import { OrphanSweep } from "./orphans.ts";
import { CallPipeline } from "./pipeline.ts";

/** What the manager is built on: the store, the Grid, and what handlers are handed. */
export interface ManagerNeeds {
  store: RecordStore;
  grid: Grid;
  /** Epoch seconds. */
  now: () => number;
  /** The needs handlers are handed (ctx.services). */
  services: ActionServices;
  hooks?: ManagerHooks;
  lease?: LeaseSettings;
  /** The browsers this server holds (made with the manager when not given). */
  browsers?: Browsers;
}

/** How long an admin's End waits for the Grid to quit the browser before answering (it goes on). */
const INTERRUPT_WAIT_MS = 2_000;

export interface LeaseSettings {
  /** Seconds a lease lives unless renewed (session.lease). */
  lease: number;
  /** Seconds a call waits for its workspace's lease before a 503 (grid.command_timeout). */
  wait: number;
  /** The URL schemes a page may be loaded from (navigate.allow_schemes). */
  schemes?: string[];
  /** Console and network entries kept per browser (logs.keep). */
  logs?: number;
}

export class WorkspaceManager {
  /** One call at a time per workspace, across every server of the store. */
  readonly leases: Leases;
  readonly hooks: ManagerHooks;
  /** One BiDi connection per live browser this server has touched. */
  readonly connections: HeldConnections;
  private readonly browsers: Browsers;
  /** Opening, reopening and ending the workspace's browser. */
  private readonly lifecycle: Lifecycle;
  /** Every surface's call, stage by stage. */
  readonly calls: CallPipeline;
  /** Ends browsers of this server group that no record names (started by the composition root). */
  readonly orphans: OrphanSweep;

  constructor(private readonly needs: ManagerNeeds) {
    const { store, grid, now, hooks = {}, lease = { lease: 15, wait: 60 } } = needs;
    this.hooks = hooks;
    this.browsers = needs.browsers ?? heldBrowsers(grid, { schemes: lease.schemes, logs: lease.logs });
    this.connections = this.browsers.connections;
    this.lifecycle = new Lifecycle({
      log: needs.services.log,
      store,
      grid,
      now,
      hooks,
      browsers: this.browsers,
    });
    this.leases = new Leases(store, lease.lease * 1000);
    this.orphans = new OrphanSweep({
      grid,
      store,
      leases: this.leases,
      quit: (id) => this.lifecycle.endGridBrowser(id),
      log: needs.services.log,
    });
    this.calls = new CallPipeline({
      store,
      grid,
      now,
      services: needs.services,
      hooks,
      lifecycle: this.lifecycle,
      browsers: this.browsers,
      leases: this.leases,
      connections: this.connections,
      waitSeconds: lease.wait,
    });
  }

  /**
   * Admin End (and Forget): stops the workspace's call in flight, whatever it waits on (its browser's
   * connection closes under it), and ends the browser without waiting for that call's turn. On any
   * server: the call's lease is broken, so its writes from here on are refused and a browser it
   * opens is quit. The stopped call settles nothing: the record no longer names its browser.
   */
  async interrupt(workspace: string): Promise<EndResult> {
    const reason = new Error("an admin ended this workspace's browser");
    this.calls.stop(workspace, reason);
    await this.needs.store.breakLease(workspace);
    const record = await this.needs.store.get(workspace);
    if (record?.session_id) this.connections.drop(record.session_id);
    return this.lifecycle.end(workspace, { waitMs: INTERRUPT_WAIT_MS });
  }

  /**
   * The browser's held connection. One that cannot be had may mean the Grid reaped the browser:
   * then it says so the way WebDriver does, and the call reopens it.
   */
  connection(id: string): Promise<HeldConnection> {
    return this.browsers.connection(id);
  }

  /** workspace://current. Never opens a browser. */
  describe(workspace: string): Promise<Describe> {
    const d = { store: this.needs.store, grid: this.needs.grid, browsers: this.browsers, hooks: this.hooks };
    return describe({ ...d, redactor: this.needs.services.redactor }, workspace);
  }
}
