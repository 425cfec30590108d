// A secret a person gives: an agent asks (request_secret, or a bound write naming a secret that is in
// no catalogue) and the person types the value on this server's own page, /secrets/enter/<token>
// (secret-page.ts), never in the agent's context. The request and the secret are kept in the
// workspace's record, so any server of a group serves the page and finds the secret; the secrets
// are sealed at rest with the site data's key (store/seal.ts). A request lives REQUEST_S seconds,
// its token works once, and only its hash is kept. The hosts it names are the agent's, each one the
// server's navigation policy lets a browser reach; the person may narrow them, never widen them.
import { randomBytes } from "node:crypto";
import type { Config } from "../config/schema.ts";
import { badInput, conflict, forbidden, notFound } from "../errors.ts";
import type { Events } from "../kit/events.ts";
import { buildSecret, type Secret, type SecretCatalogue } from "../secrets/catalogue.ts";
import type { Redactor } from "../secrets/redactor.ts";
import {
  emptyRecord,
  originOf,
  recordUrl,
  SERVER_RECORD,
  type SecretRequest,
  type WorkspaceRecord,
  type WorkspaceSecret,
} from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";
import { updateWith } from "../store/update.ts";
import { hash, newToken, same, workspaceOfToken } from "./secret-tokens.ts";
import {
  checkAsk,
  EXPIRED,
  GONE,
  missingText,
  NO_PAGE,
  REQUEST_S,
  type SecretAsk,
  sameSet,
  valueKeys,
} from "./secret-words.ts";

/** Requests a workspace may have open at once (the oldest goes first). */
const MAX_OPEN = 5;
/** The longest value the page takes. */
export const MAX_VALUE = 4096;
/** Where the page is served. */
export const ENTER_PATH = "/secrets/enter";
const _NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const POLL_MS = 300;

/** What the person's page shows and takes. */
export interface OpenRequest {
  workspace: string;
  request: SecretRequest;
}

export type Asked =
  | { entered: true }
  | { entered: false; url: string; id: string; until: number; allowed_urls: string[] };

/** A workspace's own secret as the admin sees it. */
export interface SecretListing {
  name: string;
  keys: string[];
  allowed_urls: string[];
}

export type Ending = "entered" | "declined" | "expired" | "stopped";

type Store = Pick<RecordStore, "get" | "update" | "putMark" | "hasMark" | "nudge">;

const nowS = () => Date.now() / 1000;
const live = (r: SecretRequest) => r.until > nowS();
const entered = (id: string) => `secret-entered:${id}`;
const declined = (id: string) => `secret-declined:${id}`;

export class PersonSecrets {
  constructor(
    private readonly store: Store,
    private readonly catalogue: SecretCatalogue,
    private readonly config: Pick<Config, "navigate">,
    /** The change bus: a workspace's row changed (admin live updates). */
    private readonly events: Pick<Events, "changed">,
    /** Told every value typed here or read here, so it is redacted from then on. */
    private readonly redactor: Pick<Redactor, "know">,
  ) {}

  /**
   * The secret `name` a bound write or a flow step reads after the catalogue: the server's own (an
   * admin entered it for every workspace), else the workspace's own (a person gave it).
   */
  async get(workspace: string, name: string): Promise<Secret | undefined> {
    const server = (await this.store.get(SERVER_RECORD))?.secrets?.[name];
    if (server) return this.secretOf(SERVER_RECORD, name, server);
    const s = (await this.store.get(workspace))?.secrets?.[name];
    return s ? this.secretOf(workspace, name, s) : undefined;
  }

  /** The server's own secrets, as the admin sees them (names, keys and hosts: never a value). */
  async server(): Promise<SecretListing[]> {
    return this.list(await this.store.get(SERVER_RECORD));
  }

  /**
   * An admin's link to enter a secret for every workspace: the same page and request as a person's,
   * kept in the server's record (it never expires, and every server of a group reads it). Asked
   * again, the value is replaced.
   */
  forServer(ask: SecretAsk, origin: string): Promise<Asked> {
    return this.ask(SERVER_RECORD, ask, origin);
  }

  /** Names, keys and hosts of the workspace's own secrets (never a value). */
  list(record: WorkspaceRecord | null): SecretListing[] {
    return Object.entries(record?.secrets ?? {})
      .map(([name, s]) => ({ name, keys: Object.keys(s.keys), allowed_urls: [...s.allowed_urls] }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The server's and the workspace's own secrets as an agent may see them (workspace://secrets): never a value. */
  async listed(workspace: string): Promise<(SecretListing & { description: string })[]> {
    // The server's (an admin entered them) first: a bound write takes its before the workspace's.
    const out = new Map<string, SecretListing & { description: string }>();
    for (const key of [SERVER_RECORD, workspace]) {
      const record = await this.store.get(key);
      for (const s of this.list(record))
        if (!out.has(s.name))
          out.set(s.name, { ...s, description: record?.secrets?.[s.name]?.description ?? "" });
    }
    return [...out.values()];
  }

  /** Every workspace's own secrets, by workspace (names, keys and hosts: never a value). */
  async everyWorkspace(keys: readonly string[]): Promise<{ workspace: string; secrets: SecretListing[] }[]> {
    const out: { workspace: string; secrets: SecretListing[] }[] = [];
    for (const workspace of keys) {
      if (workspace === SERVER_RECORD) continue;
      const secrets = this.list(await this.store.get(workspace));
      if (secrets.length) out.push({ workspace, secrets });
    }
    return out;
  }

  /** Removes the workspace's secret `name`; false when it had none. */
  async remove(workspace: string, name: string): Promise<boolean> {
    const got = await updateWith(this.store, workspace, (cur) => {
      if (!cur?.secrets?.[name]) return { record: null, value: false };
      const { [name]: _gone, ...rest } = cur.secrets;
      return { record: { ...cur, secrets: rest }, value: true };
    });
    if (got.value) this.told(workspace);
    return got.value;
  }

  /**
   * Asks a person for `ask`'s value: `entered` at once when the workspace has it already (that key,
   * on those hosts); otherwise a request whose page is `origin`/secrets/enter/<token>.
   */
  async ask(workspace: string, ask: SecretAsk, origin: string): Promise<Asked> {
    checkAsk(ask, this.catalogue, this.config);
    const admin = workspace === SERVER_RECORD;
    const server = admin ? undefined : (await this.store.get(SERVER_RECORD))?.secrets?.[ask.name];
    if (server)
      throw conflict(
        `the server has a secret named ${ask.name} an admin entered (keys ${Object.keys(server.keys).join(", ")}): use it, or ask under another name`,
      );
    const now = nowS();
    const token = newToken(workspace);
    const request: SecretRequest = {
      id: hash(token),
      token,
      csrf: randomBytes(24).toString("base64url"),
      name: ask.name,
      key: ask.key,
      allowed_urls: [...new Set(ask.allowed_urls.map((u) => u.trim()))],
      reason: ask.reason,
      since: now,
      until: now + REQUEST_S,
    };
    const got = await updateWith(this.store, workspace, (cur) => {
      const had = cur?.secrets?.[ask.name];
      if (
        !admin &&
        had &&
        ask.key in had.keys &&
        request.allowed_urls.every((u) => had.allowed_urls.includes(u))
      )
        return { record: null, value: null };
      // The same ask again (an agent calling once more): the same page. Another: one request per
      // secret and key, and an older one's page stops working.
      const same = cur?.secret_requests?.find(
        (r) =>
          live(r) &&
          r.name === ask.name &&
          r.key === ask.key &&
          sameSet(r.allowed_urls, request.allowed_urls),
      );
      if (same) return { record: null, value: same };
      const others = (cur?.secret_requests ?? []).filter(
        (r) => live(r) && !(r.name === ask.name && r.key === ask.key),
      );
      const secret_requests = [...others, request].slice(-MAX_OPEN);
      return { record: { ...(cur ?? emptyRecord()), secret_requests }, value: request };
    });
    const r = got.value;
    if (!r) return { entered: true };
    this.told(workspace);
    return {
      entered: false,
      url: `${origin}${ENTER_PATH}/${r.token}`,
      id: r.id,
      until: r.until,
      allowed_urls: r.allowed_urls,
    };
  }

  /** The open request a page token names; a 404 when it names none (used, replaced, never made), 410-worded when past its time. */
  async find(token: string): Promise<OpenRequest> {
    const workspace = workspaceOfToken(token);
    const request = workspace
      ? (await this.store.get(workspace))?.secret_requests?.find((r) => same(r.id, hash(token)))
      : undefined;
    if (!workspace || !request) throw notFound(GONE);
    if (!live(request)) throw notFound(EXPIRED);
    return { workspace, request };
  }

  /**
   * The person's form: the value for the request `token` names, typed on `chosen` (every one of the
   * request's hosts, or fewer). Once: the request goes in the same write that stores the value.
   * A 403 when the form's own token is not the request's.
   */
  async enter(
    token: string,
    form: { csrf: string; value: string; chosen: string[] },
  ): Promise<{ workspace: string; name: string; allowed_urls: string[] }> {
    const { workspace, request } = await this.find(token);
    if (!same(form.csrf, request.csrf))
      throw forbidden("this form is not the page's own: open the link you were given again");
    const chosen = [...new Set(form.chosen)];
    const wider = chosen.filter((u) => !request.allowed_urls.includes(u));
    if (wider.length)
      throw forbidden(
        `${wider.join(", ")} is not among the hosts asked for (${request.allowed_urls.join(", ")}): a value may be kept to fewer hosts, never more`,
      );
    if (chosen.length === 0) throw badInput("keep at least one host: the value is typed only there", "hosts");
    if (!form.value) throw badInput("type the value", "value");
    if (form.value.length > MAX_VALUE) throw badInput(`the value is over ${MAX_VALUE} characters`, "value");
    const got = await updateWith(this.store, workspace, (cur) => {
      const open = cur?.secret_requests?.find((r) => r.id === request.id);
      if (!cur || !open || !live(open)) return { record: null, value: false };
      const had = cur.secrets?.[request.name];
      // The same hosts: the key joins the secret's others. Other hosts: the secret is this one alone
      // (its other keys were allowed elsewhere, and are not moved to new hosts).
      const kept = had && sameSet(had.allowed_urls, chosen) ? had.keys : {};
      const secret: WorkspaceSecret = {
        allowed_urls: chosen,
        keys: { ...kept, [request.key]: form.value },
        description: request.reason,
        at: nowS(),
      };
      return {
        record: {
          ...cur,
          secrets: { ...cur.secrets, [request.name]: secret },
          secret_requests: cur.secret_requests?.filter((r) => r.id !== request.id),
        },
        value: true,
      };
    });
    if (!got.value) throw notFound(GONE);
    this.redactor.know([form.value]);
    await this.tell(workspace, entered(request.id));
    return { workspace, name: request.name, allowed_urls: chosen };
  }

  /** The person said no: the request goes, and the agent's call that waits is told. */
  async decline(token: string, csrf: string): Promise<void> {
    const { workspace, request } = await this.find(token);
    if (!same(csrf, request.csrf))
      throw forbidden("this form is not the page's own: open the link you were given again");
    await this.store.update(workspace, (cur) =>
      cur?.secret_requests?.some((r) => r.id === request.id)
        ? { ...cur, secret_requests: cur.secret_requests.filter((r) => r.id !== request.id) }
        : null,
    );
    await this.tell(workspace, declined(request.id));
  }

  /**
   * The first secret of `refs` that neither the catalogue nor the workspace has (that key), as an
   * ask for the site of `url` (the page the write goes to first) or of the workspace's current
   * page; null when there is none. A 400 when there is no page to name.
   */
  async missing(
    workspace: string,
    refs: { name: string; key: string }[],
    url?: string,
  ): Promise<SecretAsk | null> {
    const wanted = refs.filter((r) => !this.catalogue.get(r.name));
    if (wanted.length === 0) return null;
    const server = (await this.store.get(SERVER_RECORD))?.secrets ?? {};
    const record = await this.store.get(workspace);
    const ref = wanted.find(
      (r) => server[r.name] === undefined && record?.secrets?.[r.name]?.keys[r.key] === undefined,
    );
    if (!ref) return null;
    const origin = originOf(url ?? (record ? recordUrl(record) : ""));
    if (!origin)
      throw badInput(
        `there is no secret named ${ref.name}: navigate to the page it is for, or ask your person for it with request_secret {name, key, allowed_urls, reason}`,
        "secret.name",
      );
    return { name: ref.name, key: ref.key, allowed_urls: [origin], reason: `to type it on ${origin}` };
  }

  /**
   * A write's check before it runs: a secret of `refs` in no catalogue is asked of a person, and the
   * write is a 409 carrying the link to hand them (a 400 where no page is served: stdio).
   */
  async require(
    workspace: string,
    refs: { name: string; key: string }[],
    url: string | undefined,
    origin: string | undefined,
  ): Promise<void> {
    const ask = refs.length ? await this.missing(workspace, refs, url) : null;
    if (!ask) return;
    if (!origin) throw badInput(`there is no secret named ${ask.name}: ${NO_PAGE}`, "secret.name");
    const asked = await this.ask(workspace, ask, origin);
    if (!asked.entered) throw conflict(missingText(ask.name, asked));
  }

  /** The agent's client said its user will not go to the page: the request goes as if declined there. */
  async withdraw(workspace: string, id: string): Promise<void> {
    const gone = await updateWith(this.store, workspace, (cur) =>
      cur?.secret_requests?.some((r) => r.id === id)
        ? { record: { ...cur, secret_requests: cur.secret_requests.filter((r) => r.id !== id) }, value: true }
        : { record: null, value: false },
    );
    if (gone.value) await this.tell(workspace, declined(id));
  }

  /** Waits until the request `id` is answered on its page, declined, past its time, or `signal` stops it. */
  async wait(workspace: string, id: string, signal: AbortSignal): Promise<Ending> {
    for (;;) {
      if (await this.store.hasMark(entered(id))) return "entered";
      if (await this.store.hasMark(declined(id))) return "declined";
      const r = (await this.store.get(workspace))?.secret_requests?.find((q) => q.id === id);
      if (!r || !live(r)) return (await this.store.hasMark(entered(id))) ? "entered" : "expired";
      if (signal.aborted) return "stopped";
      await Bun.sleep(POLL_MS);
    }
  }

  private async tell(workspace: string, mark: string): Promise<void> {
    await this.store.putMark(mark, REQUEST_S).catch(() => undefined);
    this.told(workspace);
    await this.store.nudge?.(workspace).catch(() => undefined);
  }

  /** A workspace's row changed (the server's record is no workspace's row). */
  private told(workspace: string): void {
    if (workspace !== SERVER_RECORD) this.events.changed(workspace);
  }

  private secretOf(workspace: string, name: string, s: WorkspaceSecret): Secret | undefined {
    this.redactor.know(Object.values(s.keys));
    const built = buildSecret(
      name,
      { description: s.description, allowed_urls: s.allowed_urls, keys: valueKeys(s.keys) },
      workspace === SERVER_RECORD ? "the server (an admin entered it)" : `workspace ${workspace}`,
    );
    return typeof built === "string" ? undefined : built;
  }
}
