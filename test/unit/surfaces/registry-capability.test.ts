// A new capability registers with one line: a copy of src/ gets a throwaway `notes` folder (its
// service, an action, a resource, an admin route, a route of its own, a row part, a tab and a
// subscriber that hears every call) and one
// entry in src/registry.ts's CAPABILITIES (with its import), and nothing else: it compiles, the
// layering check gives its folder the capabilities' row, and a server of that copy serves all of it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = join(import.meta.dir, "../../..");
let copy: string;

const NOTES_SERVICE = `// Notes kept in memory, per workspace.
export class Notes {
  private readonly kept = new Map<string, string[]>();
  /** The calls it heard end (its subscriber). */
  readonly heard: string[] = [];
  constructor(private readonly changed: (workspace: string) => void) {}
  add(workspace: string, text: string): number {
    const list = [...(this.kept.get(workspace) ?? []), text];
    this.kept.set(workspace, list);
    this.changed(workspace);
    return list.length;
  }
  list(workspace: string): string[] {
    return this.kept.get(workspace) ?? [];
  }
}
`;

const NOTES_VIEW = `export const NotesPane = (p: { notes: string[] }) => <ul id="notes">{p.notes.map((n) => <li>{n}</li>)}</ul>;
`;

const NOTES_INDEX = `import { Elysia } from "elysia";
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { defineResource } from "../actions/resource.ts";
import { capability, tabsOver } from "../admin/capability.ts";
import { type AdminNeeds, onWorkspace, onWorkspaceRoute } from "../admin/guard.ts";
import type { RowContext } from "../admin/rows.ts";
import { Notes } from "./service.ts";
import { NotesPane } from "./view.tsx";

interface NotesNeeds extends AdminNeeds {
  readonly notes: Notes;
}

const addNote = defineAction({
  name: "add_note",
  http: { method: "POST", path: "/notes" },
  title: "Add a note",
  description: "Keep a note in this workspace.",
  docs: "",
  input: z.strictObject({ text: z.string() }),
  output: z.object({ count: z.number() }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  browser: "none",
  handler: async (ctx, input) => ({ count: ctx.services.notes.add(ctx.workspace, input.text) }),
});

const noteList = defineResource<NotesNeeds>({
  uri: "workspace://notes",
  name: "notes",
  title: "Notes",
  description: "This workspace's notes.",
  http: "/notes",
  read: async (s, workspace) => ({ notes: s.notes.list(workspace) }),
});

const notesPart = ({ services, key }: RowContext<NotesNeeds>) => ({
  notes_rev: String(services.notes.list(key).length),
});
const tab = tabsOver(notesPart);

export const notes = capability({
  name: "notes",
  build: ({ events }) => ({ notes: new Notes((w) => events.changed(w)) }),
  actions: [addNote],
  resources: [noteList],
  adminRoutes: (s: NotesNeeds) =>
    new Elysia({ name: "admin-notes" }).get(
      "/admin/workspaces/:key/notes",
      onWorkspace(s, (key) => ({ notes: s.notes.list(key) })),
      onWorkspaceRoute(),
    ),
  hears: (s: NotesNeeds) => ({ ended: (end) => void s.notes.heard.push(end.action.name) }),
  routes: (s: NotesNeeds) =>
    new Elysia({ name: "notes-count" }).get("/notes-count/:key", ({ params }) => String(s.notes.list(params.key).length)),
  row: notesPart,
  tabs: [
    tab({
      slug: "notes",
      label: "Notes",
      revFields: ["notes_rev"],
      load: async (s, key) => s.notes.list(key),
      render: ({ data }) => NotesPane({ notes: data }),
      ops: [],
    }),
  ],
});

declare module "../actions/ports.ts" {
  interface ActionServices {
    readonly notes: Notes;
  }
}
`;

// Boots the copy's server (no Grid needed: nothing here opens a browser) and prints what it served.
const SERVE = `import { buildApp } from "./src/app.ts";
import { defaultConfig } from "./src/config/schema.ts";
import { Log } from "./src/log.ts";
import { ACTIONS, workspaceRow } from "./src/registry.ts";
import { emptyRecord } from "./src/store/record.ts";

const TOKEN = "copy-token-0123456789";
const config = defaultConfig();
config.grid.url = "http://127.0.0.1:9";
config.auth.token = TOKEN;
const app = await buildApp(config, { log: new Log("error") });
await app.services.store.set("w", emptyRecord());
const call = async (method: string, path: string, body?: unknown) => {
  const headers: Record<string, string> = { authorization: "Bearer " + TOKEN, "x-workspace": "w" };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await app.fetch(
    new Request("http://127.0.0.1:4700" + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
  return { status: res.status, text: await res.text() };
};
const out = {
  added: await call("POST", "/notes", { text: "first" }),
  again: await call("POST", "/notes", { text: "second" }),
  resource: await call("GET", "/notes"),
  admin: await call("GET", "/admin/workspaces/w/notes"),
  own: await call("GET", "/notes-count/w"),
  pane: await call("GET", "/ui/workspaces/w/panes/notes"),
  openapi: Object.keys(JSON.parse((await call("GET", "/openapi.json")).text).paths),
  tools: ACTIONS.map((a) => a.name),
  steps: app.services.flows.tools.names(),
  row: await workspaceRow(app.services, "w", null),
  heard: app.services.notes.heard,
};
console.log(JSON.stringify(out));
await app.close();
`;

const run = (cmd: string[], cwd = copy) =>
  spawnSync(cmd[0] as string, cmd.slice(1), { cwd, encoding: "utf8" });
const registry = () => join(copy, "src/registry.ts");

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), "sf-capability-"));
  for (const part of ["src", "static", "docs/skill", "package.json", "scripts/check-shape.mjs"])
    cpSync(join(REPO, part), join(copy, part), { recursive: true });
  symlinkSync(join(REPO, "node_modules"), join(copy, "node_modules"));
  const tsconfig = JSON.parse(readFileSync(join(REPO, "tsconfig.json"), "utf8"));
  writeFileSync(join(copy, "tsconfig.json"), JSON.stringify({ ...tsconfig, include: ["src", "serve.ts"] }));
  mkdirSync(join(copy, "src/notes"));
  writeFileSync(join(copy, "src/notes/service.ts"), NOTES_SERVICE);
  writeFileSync(join(copy, "src/notes/view.tsx"), NOTES_VIEW);
  writeFileSync(join(copy, "src/notes/index.ts"), NOTES_INDEX);
  writeFileSync(join(copy, "serve.ts"), SERVE);
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

test("without its line in the registry, the new folder has no row: the layering check refuses it", () => {
  const check = run(["node", "scripts/check-shape.mjs", "--layers"]);
  expect(check.status).toBe(1);
  expect(check.stderr).toContain("src/notes/index.ts: its part notes/ has no row in the layering table");
});

test("one line in CAPABILITIES (and its import): it compiles, its folder has the capabilities' row, and it is served", () => {
  const text = readFileSync(registry(), "utf8");
  const listed = text
    .replace(
      'import { timeline } from "./timeline/index.ts";',
      (m) => `${m}\nimport { notes } from "./notes/index.ts";`,
    )
    .replace(/(export const CAPABILITIES = \[[^\]]*)\]/, "$1, notes]");
  expect(listed).not.toBe(text);
  writeFileSync(registry(), listed);

  const tsc = run([join(REPO, "node_modules/.bin/tsc"), "--noEmit", "-p", "tsconfig.json"]);
  expect(tsc.stdout + tsc.stderr).toBe("");
  expect(tsc.status).toBe(0);

  const check = run(["node", "scripts/check-shape.mjs", "--layers"]);
  expect(check.stderr).toBe("");
  expect(check.status).toBe(0);
  const table = run(["node", "scripts/check-shape.mjs", "--table"]).stdout;
  const row = (part: string) => table.split("\n").find((l) => l.startsWith(`| \`${part}\``)) ?? "";
  expect(row("notes/").replace("notes/", "files/")).toBe(row("files/"));
  for (const above of ["services.ts", "registry.ts", "surfaces/", "app.ts"])
    expect(row(above)).toContain("`notes/`");

  const served = run([join(REPO, "node_modules/.bin/bun"), "serve.ts"]);
  expect(served.stderr).toBe("");
  const out = JSON.parse(served.stdout);
  // Its service, built from its descriptor, is what its handler, resource, routes and row are handed.
  expect(out.added).toEqual({ status: 200, text: JSON.stringify({ count: 1 }) });
  expect(JSON.parse(out.again.text)).toEqual({ count: 2 });
  expect(JSON.parse(out.resource.text)).toEqual({ notes: ["first", "second"] });
  expect(JSON.parse(out.admin.text)).toEqual({ notes: ["first", "second"] });
  expect(out.own).toEqual({ status: 200, text: "2" });
  expect(out.pane.status).toBe(200);
  expect(out.pane.text).toContain("<li>second</li>");
  expect(out.openapi).toContain("/notes");
  expect(out.tools).toContain("add_note");
  expect(out.steps).toContain("add_note");
  expect(out.row.notes_rev).toBe("2");
  // It hears every call end, as the timeline does.
  expect(out.heard).toEqual(["add_note", "add_note"]);
}, 180_000);

test("the new folder is held to the capabilities' row like the others: importing a surface is refused", () => {
  const index = join(copy, "src/notes/index.ts");
  const kept = readFileSync(index, "utf8");
  writeFileSync(index, `import { workspaceOf } from "../surfaces/rest.ts";\nvoid workspaceOf;\n${kept}`);
  try {
    const check = run(["node", "scripts/check-shape.mjs", "--layers"]);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain("src/notes/index.ts imports src/surfaces/rest.ts");
  } finally {
    writeFileSync(index, kept);
  }
});
