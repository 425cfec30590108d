// workspace://secrets and GET /secrets: what secrets exist and where they may be typed, never a value.
import { z } from "zod";
import { defineResource } from "../actions/resource.ts";
import type { SecretCatalogue } from "./catalogue.ts";

export const SecretList = z.object({
  secrets: z.array(
    z.object({
      name: z.string().describe("What to pass as secret.name to write."),
      description: z.string().describe("What the secret is for (whose account, which site)."),
      keys: z.array(z.string()).describe("Its key names (username, password …): what to pass as secret.key."),
      allowed_urls: z
        .array(z.string())
        .describe("The sites it may be typed on (by host); empty means any site."),
      restricted: z.boolean().describe("Whether it may be typed only on the hosts of allowed_urls."),
    }),
  ),
});

/** What the list reads: the catalogue, and the secrets a person gave the workspace (person/secrets.ts). */
interface SecretsNeeds {
  readonly secrets: Pick<SecretCatalogue, "list">;
  readonly personSecrets: {
    listed(
      workspace: string,
    ): Promise<{ name: string; keys: string[]; allowed_urls: string[]; description: string }[]>;
  };
}

export const secrets = defineResource<SecretsNeeds>({
  uri: "workspace://secrets",
  name: "secrets",
  title: "Secrets you can type",
  description:
    "The secrets this server holds for you, and over MCP those a person gave this workspace (request_secret): each one's name, description, key names and the sites (allowed_urls) it may be typed on. Values are never shown: type one with write and secret: {name, key}. A restricted secret is refused on any other host, a subdomain included; go to one of its allowed_urls first. The list follows the server's secret files as they change.",
  http: "/secrets",
  output: SecretList,
  perWorkspace: false,
  // GET /secrets names no workspace: the catalogue alone. Over MCP the session's workspace's own too.
  read: async (services, workspace) => {
    const own = workspace ? await services.personSecrets.listed(workspace) : [];
    const mine = own.map((s) => ({ ...s, restricted: true }));
    return { secrets: [...services.secrets.list(), ...mine].sort((a, b) => a.name.localeCompare(b.name)) };
  },
});
