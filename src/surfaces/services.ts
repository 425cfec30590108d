// What a surface is handed: the capabilities' services and the surfaces' own parts.
import type { Services } from "../services.ts";
import type { Activity } from "./activity.ts";
import type { AdminAuth } from "./admin-auth.ts";
import type { Events } from "./events.ts";
import type { HostRules } from "./guard.ts";

export interface ServerServices extends Services {
  /** Change notices for the admin's live updates. */
  readonly events: Events;
  /** The last calls, for the admin. */
  readonly activity: Activity;
  /** The Host names this server answers to, and which origins are its own. */
  readonly hosts: HostRules;
  /** The admin's credentials: the token, or a signed-in cookie. */
  readonly admin: AdminAuth;
}
