// A workspace's row as the UI's pages draw it: the registry's row, typed by its capabilities' parts (so a
// misspelt field fails the compiler), with any field missing (a view copes; a test gives less) and
// `gone` once the workspace is forgotten. The surface's own: no capability's view reads the registry
// (a pane is typed by its own row part).
import type { WorkspaceRow } from "../../registry.ts";

export type Row = { key: string; gone?: boolean; counts?: Partial<WorkspaceRow["counts"]> } & Partial<
  Omit<WorkspaceRow, "key" | "counts">
>;
