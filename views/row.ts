// A workspace's row as the views draw it: the registry's row, typed by its capabilities' parts (so a
// misspelt field fails the compiler), with any field missing (a view copes; a test gives less) and
// `gone` once the workspace is forgotten. Its own file, apart from models.ts: the panes the registry
// draws read models.ts, and the registry must not be read back through them.
import type { WorkspaceRow } from "../src/registry.ts";

export type Row = { key: string; gone?: boolean; counts?: Partial<WorkspaceRow["counts"]> } & Partial<
  Omit<WorkspaceRow, "key" | "counts">
>;
