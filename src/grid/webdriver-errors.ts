// How the Grid and the driver say things went wrong: a gone browser, a command past its deadline, a reason.
import { error as wdError } from "selenium-webdriver";
import { AppError, redactCredentials, unavailable } from "../errors.ts";

export const NO_FREE_SLOT =
  "the Grid has no free slot for a new browser: every slot is busy. Retry after a wait, or end a browser you no longer need";

/** A command past its deadline: the Grid counts as not answering (503). */
export function gridTimedOut(base: string, seconds: number, what = "grid.command_timeout"): AppError {
  return unavailable(
    `the Grid at ${base} did not answer a WebDriver command within ${seconds} s (${what}): it may be overloaded or stuck; retry after a wait`,
  );
}

// The Grid's error text carries Java host and build lines; keep the driver's own reason.
export function gridReason(message: unknown): string {
  let text = typeof message === "string" ? message : "no reason given";
  text = text.split(/\n(?:Host info|Build info|System info|Driver info)\b/)[0] ?? text;
  const lastMessage = text.lastIndexOf("Message: ");
  if (lastMessage >= 0) text = text.slice(lastMessage + "Message: ".length);
  text = text
    .split("\n")
    .map((line) => line.trim().replace(/^from /, ""))
    .filter(Boolean)
    .join("; ")
    .replace(/\s+/g, " ")
    .trim();
  if (text.length > 300) text = `${text.slice(0, 297)}...`;
  return redactCredentials(text);
}

// How the driver and the Grid say a browser is gone. The Grid's router: "Unable to find session with
// ID: <id>. Session was removed" (or "…was closed"), whatever the status and error code it sends it
// with (a 500 "unknown error" when the browser went mid-command); its node: "Cannot find session
// with id: <id>".
const GONE =
  /invalid session id|(?:unable to|cannot) find session with id|no such session|session deleted|session timed out or not found|session was (?:removed|closed|deleted|terminated)/i;

/** The Grid or the driver says the browser is gone (reaped, quit, crashed). */
export function isNoSuchSession(err: unknown): boolean {
  if (err instanceof wdError.NoSuchSessionError) return true;
  if (!(err instanceof Error) || err instanceof AppError) return false;
  return err.name === "NoSuchSessionError" || GONE.test(err.message);
}
