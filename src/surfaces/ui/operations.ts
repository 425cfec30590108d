// What the pages read and change, in-process: the same functions the admin JSON routes call (the
// caller is already checked), each answer or failure kept as an Answer the views draw from.

import { validate } from "../../actions/validate.ts";
import { type Answer, attempt } from "../../admin/answer.ts";
import type { PaneOp, PaneTab } from "../../admin/capability.ts";
import { endWorkspace, forgetWorkspace, settingsList } from "../../admin/core.ts";
import { requireWorkspace } from "../../admin/guard.ts";
import { notFound } from "../../errors.ts";
import { ServerSecret, serverLink } from "../../person/admin.ts";
import { existingWorkspaceRow, type WorkspaceRow, workspaceRows } from "../../registry.ts";
import type { Services } from "../../services.ts";
import { SERVER_RECORD } from "../../store/record.ts";

export class Admin {
  constructor(private readonly services: Services) {}

  rows() {
    return attempt(this.services.log, () => workspaceRows(this.services));
  }

  row(key: string) {
    return attempt(this.services.log, () => existingWorkspaceRow(this.services, key));
  }

  /** `read` of a workspace that exists (404 otherwise): what `GET /admin/workspaces/{key}/…` answers. */
  private on<T>(key: string, read: (s: Services, key: string) => Promise<T> | T): Promise<Answer<T>> {
    return attempt(this.services.log, async () =>
      read(this.services, await requireWorkspace(this.services, key)),
    );
  }

  /** A tab's pane data: what its capability's admin route for it answers. */
  pane(key: string, tab: PaneTab<WorkspaceRow, unknown, Services>) {
    return this.on(key, tab.load);
  }

  /** `fn` on a workspace that exists, as its admin route would answer (a pane's fragment asks). */
  read<T>(key: string, fn: (key: string) => Promise<T> | T) {
    return this.on(key, (_, k) => fn(k));
  }

  /** A pane's action: what its JSON route (`opRoutes`) does, `params` as Elysia decoded them. */
  act(key: string, op: PaneOp<Services>, params: Record<string, string>) {
    return this.on(key, (s, k) => op.run(s, k, params));
  }

  end(key: string) {
    return this.on(key, endWorkspace);
  }

  forget(key: string) {
    return this.on(key, forgetWorkspace);
  }

  secrets() {
    return attempt(this.services.log, () => this.services.secrets.list());
  }

  /** Every workspace's secrets a person gave it (names, keys, hosts). */
  givenSecrets() {
    return attempt(this.services.log, async () =>
      this.services.personSecrets.everyWorkspace(await this.services.store.keys()),
    );
  }

  /** The server's own secrets (an admin entered them): names, keys, hosts. */
  serverSecrets() {
    return attempt(this.services.log, () => this.services.personSecrets.server());
  }

  /** The page's link for a server secret: what POST /admin/secrets/server does. */
  serverSecretLink(body: unknown, request: Request) {
    return attempt(this.services.log, () => serverLink(this.services, validate(ServerSecret, body), request));
  }

  /** Removes a server secret: what DELETE /admin/secrets/server/{name} does. */
  removeServerSecret(name: string) {
    return attempt(this.services.log, async () => {
      if (!(await this.services.personSecrets.remove(SERVER_RECORD, name)))
        throw notFound(`the server has no secret ${name} an admin entered`);
      return { removed: true };
    });
  }

  /** Removes a workspace's own secret: what DELETE /admin/workspaces/{key}/secrets/{name} does. */
  removeSecret(key: string, name: string) {
    return this.on(key, async (s, k) => {
      if (!(await s.personSecrets.remove(k, name)))
        throw notFound(`workspace ${k} has no secret ${name} of its own`);
      return { removed: true };
    });
  }

  settings() {
    return attempt(this.services.log, () => settingsList(this.services));
  }

  activity() {
    return attempt(this.services.log, () => this.services.activity.list());
  }
}
