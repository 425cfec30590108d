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

/** The reason a stored file's name is refused, or null when it is fine. */
export function fileNameProblem(name: string): string | null {
  if (!name || name.trim() !== name) return "a file name is not empty and has no space at either end";
  if (new TextEncoder().encode(name).length > 255) return "a file name is at most 255 bytes";
  if (name.startsWith(".")) return "a file name does not start with '.'";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[/\\\u0000-\u001f\u007f]/.test(name)) return "a file name has no '/', '\\' or control characters";
  return null;
}

/** `name` when it can name a stored file; otherwise InvalidName. */
export function validFileName(name: string): string {
  const problem = fileNameProblem(name);
  if (problem) throw new InvalidName(`${repr(name)} is not a file name: ${problem}`);
  return name;
}

/**
 * `name`, then `name (1)`, `name (2)` … the way a browser names a second download: the number goes
 * before the last extension; a name without one (or whose only dot leads) gets it at the end.
 */
export function* candidates(name: string): Generator<string, never> {
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  yield name;
  for (let n = 1; ; n++) yield `${stem} (${n})${ext}`;
}

/** Python's repr of a string (single quotes), which the reference's messages quote names with. */
export function repr(value: unknown): string {
  if (typeof value !== "string") return String(value);
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const body = value.replace(/\\/g, "\\\\").replace(new RegExp(quote, "g"), `\\${quote}`);
  return `${quote}${body}${quote}`;
}
