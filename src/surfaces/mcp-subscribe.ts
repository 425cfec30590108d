// MCP resource subscriptions: a session subscribes to resources (any with a fixed uri) and gets
// notifications/resources/updated when one's content changes. The change bus (src/kit/events.ts)
// says when the workspace changed; each subscribed resource is read again then (one of no
// workspace, such as the secrets, every 2 s), and a notice goes out only when what it reads
// differs from what it read before.
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { isTemplate, matchUri } from "../actions/resource.ts";
import { badInput } from "../errors.ts";
import { RESOURCES } from "../registry.ts";
import type { Services } from "../services.ts";
import type { RecordStore } from "../store/types.ts";

/**
 * The resources a session may subscribe to: every one with a fixed uri (a template's items are
 * followed through the list they are in, which changes whenever one of them does).
 */
export const SUBSCRIBABLE: readonly string[] = RESOURCES.filter((r) => !isTemplate(r)).map((r) => r.uri);

/** Those that belong to no workspace (the secrets, the guide): read again on a timer, not on a change. */
const GLOBAL = new Set(RESOURCES.filter((r) => r.perWorkspace === false).map((r) => r.uri));

/** Bursts of changes (a call's several writes) are read once, this long after the first. */
const COALESCE_MS = 50;
/** How often a subscribed resource of no workspace is read again (a secret file added or changed). */
const GLOBAL_MS = 2_000;

/** Throws invalid params unless `uri` is one a session may subscribe to. */
export function subscribable(uri: string): string {
  if (SUBSCRIBABLE.includes(uri)) return uri;
  const template = RESOURCES.find((r) => isTemplate(r) && matchUri(r.uri, uri));
  if (template) {
    // The list it is in: the longest fixed uri its template starts with.
    const head = template.uri.slice(0, template.uri.indexOf("{"));
    const list = SUBSCRIBABLE.filter((u) => head.startsWith(u)).sort((a, b) => b.length - a.length)[0];
    throw badInput(
      `${uri} cannot be subscribed to: subscribe to ${list}, which changes whenever one of its items does`,
      "uri",
    );
  }
  throw badInput(`no resource ${uri} to subscribe to: resources/list names the ones there are`, "uri");
}

/** What a resource reads now, as one string to compare; null when it cannot be read. */
async function contentOf(services: Services, workspace: string, uri: string): Promise<string | null> {
  const def = RESOURCES.find((r) => r.uri === uri);
  if (!def) return null;
  try {
    const out = services.redactor.redactDeep(await def.read(services, workspace, {}));
    return JSON.stringify(out);
  } catch (err) {
    services.log.debug(`subscriptions: reading ${uri} for ${workspace} failed: ${(err as Error).message}`);
    return null;
  }
}

/**
 * One session's watch over its workspace: `add` takes what a resource reads now as its starting
 * point, and every change of the workspace afterwards that alters it sends one notice.
 */
export class ResourceWatch {
  private readonly seen = new Map<string, string | null>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Reads the subscribed resources of no workspace again, while there are any. */
  private globalTimer: ReturnType<typeof setInterval> | null = null;
  // Reads run one after another, so two bursts never compare against a half-updated map.
  private reading: Promise<void> = Promise.resolve();
  private readonly off: () => void;

  constructor(
    private readonly services: Services,
    private readonly workspace: string,
    private readonly send: (n: ServerNotification) => Promise<void>,
  ) {
    this.off = services.events.subscribe((key) => {
      if (key === workspace) this.changed();
    });
  }

  /** Starts watching `uri` from what it reads now (a second add keeps the first starting point). */
  async add(uri: string): Promise<void> {
    if (this.seen.has(uri)) return;
    this.seen.set(uri, null);
    const done = this.reading.then(async () => {
      if (this.seen.has(uri)) this.seen.set(uri, await contentOf(this.services, this.workspace, uri));
    });
    this.reading = done;
    if (GLOBAL.has(uri)) this.globalTimer ??= setInterval(() => this.queue((u) => GLOBAL.has(u)), GLOBAL_MS);
    await done;
  }

  remove(uri: string): void {
    this.seen.delete(uri);
    if (this.globalTimer && ![...this.seen.keys()].some((u) => GLOBAL.has(u))) {
      clearInterval(this.globalTimer);
      this.globalTimer = null;
    }
  }

  has(uri: string): boolean {
    return this.seen.has(uri);
  }

  stop(): void {
    this.off();
    if (this.timer) clearTimeout(this.timer);
    if (this.globalTimer) clearInterval(this.globalTimer);
    this.timer = null;
    this.globalTimer = null;
    this.seen.clear();
  }

  /** The workspace changed: its own subscribed resources are read again (a burst once). */
  private changed(): void {
    if (this.seen.size === 0) return;
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.queue((uri) => !GLOBAL.has(uri));
    }, COALESCE_MS);
  }

  private queue(which: (uri: string) => boolean): void {
    const check = () => this.check(which);
    this.reading = this.reading.then(check, check);
  }

  private async check(which: (uri: string) => boolean): Promise<void> {
    for (const uri of [...this.seen.keys()].filter(which)) {
      const now = await contentOf(this.services, this.workspace, uri);
      if (!this.seen.has(uri) || now === null || now === this.seen.get(uri)) continue;
      this.seen.set(uri, now);
      await this.send({ method: "notifications/resources/updated", params: { uri } }).catch(() => undefined);
    }
  }
}

/** Where a session's subscriptions are kept, and what learns of a new one. */
export interface Subscriptions {
  add(uri: string): Promise<void>;
  remove(uri: string): Promise<void>;
}

/** In the server's memory, watched at once: stdio's one session. */
export function localSubscriptions(watch: ResourceWatch): Subscriptions {
  return {
    add: (uri) => watch.add(uri),
    remove: async (uri) => watch.remove(uri),
  };
}

/** An HTTP session's subscription, as a mark any server of the group sees. */
export const subscriptionMark = (session: string, uri: string) => `mcp-sub:${session}:${uri}`;

/**
 * In the record store's marks, so the server holding the session's stream finds them whichever
 * server took the subscribe; `here` is that stream's watch when this server holds it.
 */
export function storedSubscriptions(
  store: Pick<RecordStore, "putMark">,
  session: string,
  keepS: number,
  here: () => ResourceWatch | undefined,
): Subscriptions {
  return {
    async add(uri) {
      await store.putMark(subscriptionMark(session, uri), keepS);
      await here()?.add(uri);
    },
    async remove(uri) {
      await store.putMark(subscriptionMark(session, uri), 0);
      here()?.remove(uri);
    },
  };
}
