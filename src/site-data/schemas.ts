// The declared shapes of site data on the agent surface (OpenAPI and MCP come from these).
import { z } from "zod";

const storageNote =
  "Per origin: the same host on another port or scheme is another origin. sessionStorage is the one tab's, for the page the save was made on.";

const keyPath = z.union([z.string(), z.array(z.string())]);

const IdbDatabaseShape = z.object({
  name: z.string(),
  version: z.number().int(),
  stores: z.array(
    z.object({
      name: z.string(),
      key_path: keyPath.nullable(),
      auto_increment: z.boolean(),
      indexes: z.array(
        z.object({ name: z.string(), key_path: keyPath, unique: z.boolean(), multi_entry: z.boolean() }),
      ),
      records: z
        .array(z.object({ key: z.string(), value: z.string() }))
        .describe('Key and value as JSON; what JSON cannot carry is {"$": type, ...}.'),
    }),
  ),
});

export const Saved = z
  .object({
    cookies: z.number().int().describe("Cookies saved, across every site."),
    sites: z.array(z.string()).describe("Origins whose storage this save read and kept."),
    skipped: z
      .array(
        z.object({
          site: z.string().optional(),
          database: z.string().optional().describe("An IndexedDB database, with its store."),
          store: z.string().optional(),
          reason: z.string(),
        }),
      )
      .describe(
        "Origins not read this time, each keeping its last saved storage, or left out over the size cap; each with why.",
      ),
  })
  .describe("What this save kept, in place of the last. Never a value.");

export const SiteRowShape = z.object({
  site: z.string().describe("The host (app.example.com)."),
  uri: z.string().describe("Where to read this site in full."),
  cookies: z.number().int().describe("Its own cookies and the parent-domain ones that reach it."),
  storage: z
    .array(
      z.object({
        origin: z.string(),
        local_storage: z.number().int().describe("localStorage keys saved."),
        session_storage: z.number().int().describe("sessionStorage keys saved."),
        indexeddb: z
          .object({ databases: z.number().int(), records: z.number().int() })
          .optional()
          .describe("IndexedDB saved; absent when none."),
      }),
    )
    .describe(storageNote),
});

export const SiteList = z
  .object({
    sites: z.array(SiteRowShape),
    saved_at: z.number().nullable().describe("When the snapshot was saved, in epoch seconds."),
    uri: z.string(),
  })
  .describe(
    "workspace://site-data: one entry per site the last save holds data for, counts only, the sites the workspace went to first.",
  );

export const SiteDataShape = z
  .object({
    site: z.string(),
    uri: z.string(),
    cookies: z.array(
      z.object({
        name: z.string(),
        value: z.string().describe("An httpOnly cookie's value is shown as •••."),
        domain: z.string(),
        path: z.string(),
        expiry: z.number().int().nullable().describe("Epoch seconds; null for a session cookie."),
        http_only: z.boolean(),
        secure: z.boolean(),
        same_site: z.string().nullable(),
        shared: z.boolean().describe("A parent domain's cookie that reaches this site."),
      }),
    ),
    storage: z
      .array(
        z.object({
          origin: z.string(),
          local_storage: z.record(z.string(), z.string()),
          session_storage: z.record(z.string(), z.string()),
          indexeddb: z.array(IdbDatabaseShape).optional().describe("Absent when none."),
        }),
      )
      .describe(storageNote),
    own_cookies: z.array(z.string()).describe("Cookies this site owns (host or .host): what Forget removes."),
    kept_shared: z
      .array(z.object({ name: z.string(), domain: z.string(), path: z.string() }))
      .describe("Parent-domain cookies it only sits under: Forget keeps them."),
  })
  .describe("workspace://site-data/{site}: one site in full. An httpOnly cookie's value is shown as •••.");
