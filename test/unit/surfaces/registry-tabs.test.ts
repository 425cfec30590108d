// The UI's workspace tabs are the capabilities' descriptors' tabs, no more and no fewer: every
// capability folder's index.ts that declares one is in the registry, and the page, its panes, the
// pushes and the pane routes all draw from that one list.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Capability } from "../../../src/admin/capability.ts";
import { TABS, type WorkspaceRow } from "../../../src/registry.ts";
import { tabNamed } from "../../../src/surfaces/ui/panes.ts";
import { liveMessage, WorkspacePage } from "../../../src/surfaces/ui/workspace.tsx";
import { all, one, parseHtml, text } from "../../support/html.ts";

const SRC = join(import.meta.dir, "../../../src");

/** Every capability descriptor the folders declare, read from each src/<folder>/index.ts. */
async function declared(): Promise<Capability<object, never>[]> {
  const out: Capability<object, never>[] = [];
  for (const e of readdirSync(SRC, { withFileTypes: true })) {
    if (!e.isDirectory() || !readdirSync(join(SRC, e.name)).includes("index.ts")) continue;
    // Only the folders declaring a descriptor (src/in-page/ runs in the browser, not here).
    if (!readFileSync(join(SRC, e.name, "index.ts"), "utf8").includes("capability(")) continue;
    const mod = (await import(join(SRC, e.name, "index.ts"))) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      const c = value as Partial<Capability<object, never>> | null;
      if (c && typeof c === "object" && typeof c.name === "string" && c.adminRoutes && c.row) {
        out.push(c as Capability<object, never>);
      }
    }
  }
  return out;
}

// A misspelt row field fails the compiler (tsc checks the tests): the row is its parts' types.
// @ts-expect-error there is no `files_revision`, only `files_rev`
const misspelt: WorkspaceRow["files_revision"] = "";

describe("the registry's tabs", () => {
  test("are exactly the tabs the capability folders declare, each slug once", async () => {
    const caps = await declared();
    expect(caps.map((c) => c.name).sort()).toEqual(["files", "flows", "person", "site-data", "timeline"]);
    const slugs = caps.flatMap((c) => (c.tabs ?? []).map((t) => t.slug));
    expect(TABS.map((t) => t.slug).sort()).toEqual([...slugs].sort());
    expect(new Set(slugs).size).toBe(slugs.length);
    expect(misspelt).toBe("");
  });

  test("the workspace page draws one tab and one pane per registry tab, in its order", () => {
    const root = parseHtml(WorkspacePage({ row: { key: "w1" }, tabs: TABS, tab: "files", signOut: false }));
    const tabs = all(root, "#sessionTabs [role=tab]");
    expect(tabs.map(text)).toEqual(TABS.map((t) => t.label));
    expect(tabs.map((t) => t.attrs.href)).toEqual(TABS.map((t) => `/ui/workspaces/w1/${t.slug}`));
    const panes = all(root, "[role=tabpanel]");
    expect(panes.map((p) => one(p, "[data-rev]").attrs["hx-get"])).toEqual(
      TABS.map((t) => `/ui/workspaces/w1/panes/${t.slug}`),
    );
  });

  test("a push reloads each tab's pane, and each tab's routes find it", () => {
    const row = { key: "w1", ...Object.fromEntries(TABS.flatMap((t) => t.revFields.map((f) => [f, "x"]))) };
    const reloads = all(parseHtml(liveMessage(row, TABS)), "hx-partial").filter((p) =>
      (p.attrs["hx-target"] ?? "").includes("[data-rev]"),
    );
    expect(reloads).toHaveLength(TABS.length);
    for (const t of TABS) expect(tabNamed(t.slug)).toBe(t);
    expect(tabNamed("nope")).toBeUndefined();
  });
});
