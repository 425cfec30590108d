// A stored file's name: what is refused, and the next free name when one is taken.
import { InvalidName, repr } from "../kit/names.ts";

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
