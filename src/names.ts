// Pure naming rules. A workspace name becomes a folder under DATA_DIR/sessions/, a store key and a
// URL segment, so it is kept to a safe alphabet.

const WORKSPACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The reason a workspace name is refused, or null when it is fine. */
export function workspaceNameProblem(name: string): string | null {
  if (!WORKSPACE.test(name) || name.includes("..")) {
    return "a workspace name is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit";
  }
  return null;
}

export function isWorkspaceName(name: string): boolean {
  return workspaceNameProblem(name) === null;
}
