// Every failure the server reports is one of these kinds; the surfaces map them to HTTP statuses
// (and MCP tool errors with the same text). Messages say what was wrong and what to do, and pass
// through `redactCredentials` so credentials, Grid ids and registered secret values never leave the
// server.

export type ErrorKind =
  | "bad_input"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "too_large"
  | "unsupported_type"
  | "too_many"
  | "conflict"
  | "unavailable"
  | "internal";

const STATUS: Record<ErrorKind, number> = {
  bad_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  too_large: 413,
  unsupported_type: 415,
  too_many: 429,
  conflict: 409,
  unavailable: 503,
  internal: 500,
};

export class AppError extends Error {
  readonly kind: ErrorKind;
  /** The request field the message is about, when there is one (`body.url`, `selector`). */
  readonly field?: string;
  constructor(kind: ErrorKind, message: string, field?: string) {
    super(message);
    this.kind = kind;
    this.field = field;
    this.name = "AppError";
  }
  get status(): number {
    return STATUS[this.kind];
  }
}

/** 400: the request cannot succeed as sent. */
export const badInput = (message: string, field?: string) => new AppError("bad_input", message, field);
export const unauthorized = (message = "missing or wrong bearer token: send Authorization: Bearer <token>") =>
  new AppError("unauthorized", message);
export const forbidden = (message: string) => new AppError("forbidden", message);
export const notFound = (message: string) => new AppError("not_found", message);
export const tooLarge = (message: string) => new AppError("too_large", message);
/** 415: a body of a type the route does not take. */
export const unsupportedType = (message: string) => new AppError("unsupported_type", message);
/** 429: too many tries; `retryAfter` is the seconds to wait. */
export class TooMany extends AppError {
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super("too_many", message);
    this.name = "TooMany";
  }
}
/** A 409: the thing is in a state that does not allow it (nothing waits; one waits already). */
export const conflict = (message: string) => new AppError("conflict", message);
/** 503: the Grid, its BiDi channel or the store could not serve this; worth retrying after a wait. */
export const unavailable = (message: string) => new AppError("unavailable", message);

/** Raised when an atomic store update kept losing its race. */
export class StoreConflict extends AppError {
  constructor(key: string) {
    super("unavailable", `the record for workspace ${key} kept changing under this write: retry the call`);
    this.name = "StoreConflict";
  }
}

/** Raised by a fenced write whose lease another holder has taken (or an admin broke) since. */
export class LeaseLost extends AppError {
  constructor(key: string) {
    super(
      "unavailable",
      `this call no longer holds workspace ${key} (its lease ran out or an admin ended the workspace's browser): nothing more was written; retry the call`,
    );
    this.name = "LeaseLost";
  }
}

export const BIDI_DOWN = "the browser's BiDi channel did not answer: nothing was saved";

export function statusOf(err: unknown): number {
  return err instanceof AppError ? err.status : 500;
}

// Credentials in URLs and Grid ids, wherever a message or log line could carry them. Secret values
// are the redactor's (src/secrets/redactor.ts), applied where anything leaves the server.
const CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi;
// chromedriver ids are 32 hex digits, geckodriver's are UUIDs.
const GRID_ID = /\b(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/gi;

export function redactCredentials(text: string): string {
  return text.replace(CREDENTIALS, "$1").replace(GRID_ID, "[browser]");
}

/** The text a caller may read for any thrown thing. */
export function messageOf(err: unknown): string {
  if (err instanceof AppError) return redactCredentials(err.message);
  if (err instanceof Error) return redactCredentials(err.message || err.name);
  return redactCredentials(String(err));
}

/** The body every surface sends for a failure. */
export function errorBody(err: unknown): { error: string } {
  if (err instanceof AppError) return { error: messageOf(err) };
  return { error: `something failed that this server did not expect: ${messageOf(err)}` };
}
