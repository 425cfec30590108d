// The secrets catalogue served by the real app: GET /secrets and workspace://secrets list names,
// descriptions, key names and allowed URLs from files and entries, follow the files as they change,
// skip a broken file with a warning, and never carry a value.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Fixture, html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const VALUES = ["file-user-7c1", "file-pass-9d2", "entry-token-4e5", "changed-pass-0a8", "broken-value-6f3"];
const dir = mkdtempSync(join(tmpdir(), "sf-secrets-it-"));
const bodies: string[] = [];
let server: TestServer;
let mcp: McpClient;
let site: Fixture;
// A value the page shows before any secret holds it.
const SHOWN = "shown-later-3b9";
const W = "secrets-followed";

let writes = 0;
// Each write gets a later mtime, so a rewrite within the file system's time resolution is seen.
const put = (file: string, text: string) => {
  writeFileSync(join(dir, file), text);
  const later = new Date(Date.now() + ++writes * 1000);
  utimesSync(join(dir, file), later, later);
};

async function listing(): Promise<any[]> {
  const res = await server.call("GET", "/secrets", undefined, null);
  bodies.push(JSON.stringify(res.body));
  expect(res.status).toBe(200);
  return res.body.secrets;
}

beforeAll(async () => {
  site = serveFixture({ "/shows": () => html(`<title>Shows</title><p id=p>token ${SHOWN}</p>`) });
  put(
    "shop.yaml",
    `description: the shop's test buyer\nallowed_urls: [https://shop.example.test/login]\nkeys:\n  username: {value: ${VALUES[0]}}\n  password: {value: ${VALUES[1]}}\n`,
  );
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.secrets.dirs = [dir];
      c.secrets.entries = { api: { description: "an API token", keys: { token: { value: VALUES[2]! } } } };
    },
  });
  mcp = await mcpClient(server, "secrets-ws");
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  rmSync(dir, { recursive: true, force: true });
  const everything = [...bodies, ...mcp.texts, ...logLines].join("\n");
  for (const v of VALUES) expect(everything).not.toContain(v);
});

describe("the secrets listing", () => {
  test("GET /secrets lists files and entries: names, descriptions, key names, allowed URLs, never a value", async () => {
    expect(await listing()).toEqual([
      { name: "api", description: "an API token", keys: ["token"], allowed_urls: [], restricted: false },
      {
        name: "shop",
        description: "the shop's test buyer",
        keys: ["username", "password"],
        allowed_urls: ["https://shop.example.test/login"],
        restricted: true,
      },
    ]);
  });

  test("workspace://secrets is listed as a resource and reads the same as GET /secrets", async () => {
    const list = await mcp.request("resources/list");
    const entry = list.data.result.resources.find((r: any) => r.uri === "workspace://secrets");
    expect(entry.description).toContain("never shown");
    expect(await mcp.resource("workspace://secrets")).toEqual({ secrets: await listing() });
  });

  test("a file added, changed and removed while the server runs is seen by the next read", async () => {
    const rev = server.app.services.secrets.rev;
    put("mail.yaml", `keys:\n  password: {value: ${VALUES[3]}}\n`);
    expect((await listing()).map((s) => s.name)).toEqual(["api", "mail", "shop"]);
    expect(server.app.services.secrets.rev).not.toBe(rev);

    put(
      "shop.yaml",
      `description: renamed buyer\nkeys:\n  email: {value: ${VALUES[0]}}\n  password: {value: ${VALUES[1]}}\n`,
    );
    const shop = (await listing()).find((s) => s.name === "shop");
    expect(shop).toEqual({
      name: "shop",
      description: "renamed buyer",
      keys: ["email", "password"],
      allowed_urls: [],
      restricted: false,
    });

    unlinkSync(join(dir, "mail.yaml"));
    expect((await listing()).map((s) => s.name)).toEqual(["api", "shop"]);
  });

  test("a file added a moment ago: the value a page shows is hidden in the very next answer", async () => {
    const shown = () => server.call("POST", "/browser/extract", { selector: { css: "#p" } }, W);
    expect((await server.call("POST", "/browser/navigate", { url: site.url("/shows") }, W)).status).toBe(200);
    // No secret holds it yet: ordinary text reads whole.
    expect((await shown()).body.result).toBe(`token ${SHOWN}`);
    put("shows.yaml", `keys:\n  token: {value: ${SHOWN}}\n`);
    expect((await shown()).body.result).toBe("token [hidden]");
    unlinkSync(join(dir, "shows.yaml"));
  });

  test("a broken file is skipped with a warning naming it, never quoting it; the rest still list", async () => {
    const before = logLines.length;
    put("broken.yaml", `keys:\n  password: {value: "${VALUES[4]}\n`);
    const names = (await listing()).map((s) => s.name);
    expect(names).toEqual(["api", "shop"]);
    const warned = logLines.slice(before).join("\n");
    expect(warned).toContain(`secret file ${join(dir, "broken.yaml")} skipped`);
    expect(warned).toContain("WARN");
    put("broken.yaml", `keys:\n  password: {value: "${VALUES[4]}"}\n`);
    expect((await listing()).map((s) => s.name)).toEqual(["api", "broken", "shop"]);
  });

  test("the guide page is served as skill://selenium-flow/references/SECRETS.md and GET /skill/references/SECRETS.md", async () => {
    const rest = await server.call("GET", "/skill/references/SECRETS.md", undefined, null);
    expect(rest.status).toBe(200);
    expect(rest.body).toContain("# Secrets: typing what you never see");
    expect(rest.body).toContain("save_site_data()");
    expect(await mcp.resource("skill://selenium-flow/references/SECRETS.md")).toBe(rest.body);
  });

  test("GET /secrets needs the token", async () => {
    const res = await fetch(`${server.url}/secrets`);
    expect(res.status).toBe(401);
  });
});
