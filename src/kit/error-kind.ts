// The kind of a failure as a message may name it: never a path, never an id (a file not filed, a
// recording's note not written).
import { InvalidName } from "./names.ts";

/** The kind of a failure, as the reference's messages name it (never a path, never an id). */
export function errorKind(err: unknown): string {
  if (err instanceof InvalidName) return "InvalidName";
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "PermissionError";
    case "ENOENT":
      return "FileNotFoundError";
    case "EEXIST":
      return "FileExistsError";
    case "ENOTDIR":
      return "NotADirectoryError";
    case "EISDIR":
      return "IsADirectoryError";
    case undefined:
      return err instanceof Error ? err.name : "Error";
    default:
      return `OSError (${code})`;
  }
}
