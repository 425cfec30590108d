// One logger for the whole server. Lines go to stderr (stdout belongs to MCP over stdio) and pass
// through `redactCredentials` and each app's redactor, so a Grid id, a credential or a secret never reaches a log line.
import { redactCredentials } from "./errors.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold = ORDER.info;
let sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`);

export function setLogLevel(level: LogLevel): void {
  threshold = ORDER[level];
}

/** Replaces where lines go (stderr by default). */
export function setLogSink(fn: (line: string) => void): void {
  sink = fn;
}

/** A line as it was written: its level and its redacted message, without the time. */
export interface LogEntry {
  level: LogLevel;
  text: string;
}

const listeners = new Set<(line: string, entry: LogEntry) => void>();
// Each app's redactor (src/secrets/redactor.ts): log lines are process-wide, so every server's.
const redactions = new Set<(text: string) => string>();

/** Passes every line through `redact` too (an app's redactor), until removeRedaction. */
export function addRedaction(redact: (text: string) => string): void {
  redactions.add(redact);
}

export function removeRedaction(redact: (text: string) => string): void {
  redactions.delete(redact);
}

/**
 * Also hands every line to `fn` (tests read what the server wrote, MCP sessions that asked for
 * logging get their workspace's lines); returns the way to stop.
 */
export function addLogSink(fn: (line: string, entry: LogEntry) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function emit(level: LogLevel, msg: string): void {
  if (ORDER[level] < threshold) return;
  let text = redactCredentials(msg);
  for (const redact of redactions) text = redact(text);
  const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${text}`;
  sink(line);
  for (const l of listeners) l(line, { level, text });
}

export const log = {
  debug: (msg: string) => emit("debug", msg),
  info: (msg: string) => emit("info", msg),
  warn: (msg: string) => emit("warn", msg),
  error: (msg: string) => emit("error", msg),
};
