// Naming rules more than one capability keeps: a workspace name becomes a folder under
// DATA_DIR/sessions/, a store key and a URL segment, so it is kept to a safe alphabet; a Grid session
// id names a recording's note. A stored file's own name rules are files/file-names.ts.

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

/** A name that cannot become a path; the message says which rule it broke. */
export class InvalidName extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidName";
  }
}

// A Grid session id becomes a note's file name. The Grid hands out 32 hex digits or a dashed
// UUID; anything else is refused before it touches a path.
const GRID_ID = /^[A-Za-z0-9][A-Za-z0-9-]{7,63}$/;

/** `value` when it can name a recording note; otherwise InvalidName. */
export function validGridId(value: unknown): string {
  if (typeof value !== "string" || !GRID_ID.test(value)) {
    throw new InvalidName(`${repr(value)} is not a Grid session id`);
  }
  return value;
}

/** Python's repr of a string (single quotes), which the reference's messages quote names with. */
export function repr(value: unknown): string {
  if (typeof value !== "string") return String(value);
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const body = value.replace(/\\/g, "\\\\").replace(new RegExp(quote, "g"), `\\${quote}`);
  return `${quote}${body}${quote}`;
}
