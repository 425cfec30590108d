// The action and resource tables come from the capabilities' descriptors, listed once in
// src/registry.ts: each capability's actions and resources are there exactly once, in the order
// tools/list, the docs and OpenAPI have always shown; what the order lists do not name follows in
// the descriptors' order.
import { expect, test } from "bun:test";
import { ACTIONS, CAPABILITIES, RESOURCE_ORDER, RESOURCES, TOOL_ORDER } from "../../../src/registry.ts";

test("every capability's actions are in the action table once, in the order agents have always seen", () => {
  const declared = CAPABILITIES.flatMap((c) => (c.actions ?? []).map((a) => a.name));
  expect([...ACTIONS.map((a) => a.name)].sort()).toEqual([...declared].sort());
  expect(new Set(declared).size).toBe(declared.length);
  // The tools agents have always seen keep their order; a new one joins without a line here.
  const seen = [
    "open_session",
    "end_browser",
    "navigate",
    "interact",
    "write",
    "extract",
    "read_page",
    "logs",
    "execute_script",
    "assert",
    "save_site_data",
    "dialog",
    "switch",
    "run_flow",
    "save_flow",
    "delete_flow",
    "screenshot",
    "print_page",
    "upload_file",
    "keep_file",
    "ask_human",
    "request_secret",
  ];
  expect(ACTIONS.map((a) => a.name).filter((n) => seen.includes(n))).toEqual(seen);
});

test("an action the order list does not name follows the named ones, in its capability's order", () => {
  const names = ACTIONS.map((a) => a.name);
  const unnamed = names.filter((n) => !TOOL_ORDER.includes(n));
  // upload_file, keep_file (files), ask_human and request_secret (person) are named nowhere but their
  // descriptors: they follow, in the descriptors' order (the capabilities', then each one's own).
  const declared = CAPABILITIES.flatMap((c) => (c.actions ?? []).map((a) => a.name));
  expect(unnamed).toEqual(declared.filter((n) => !TOOL_ORDER.includes(n)));
  for (const n of ["upload_file", "keep_file", "ask_human", "request_secret"]) expect(unnamed).toContain(n);
  expect(names.slice(TOOL_ORDER.length)).toEqual(unnamed);
  // The order lists name only what is declared: a misspelt name would order nothing.
  for (const n of TOOL_ORDER) expect(names).toContain(n);
  for (const u of RESOURCE_ORDER) expect(RESOURCES.map((r) => r.uri)).toContain(u);
});

test("every capability's resources are in the resource table once, workspace://current first, the guide last", () => {
  const declared = CAPABILITIES.flatMap((c) => (c.resources ?? []).map((r) => r.uri));
  const uris = RESOURCES.map((r) => r.uri);
  expect([...uris].sort()).toEqual([...declared].sort());
  expect(new Set(uris).size).toBe(uris.length);
  expect(uris.slice(0, RESOURCE_ORDER.length)).toEqual(RESOURCE_ORDER);
  expect(uris.at(-1)).toBe("skill://selenium-flow/references/TROUBLESHOOTING.md");
  expect(uris.findIndex((u) => u.startsWith("skill://"))).toBeGreaterThan(
    uris.findLastIndex((u) => u.startsWith("workspace://files")),
  );
});
