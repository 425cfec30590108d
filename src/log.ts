// One logger for the whole server. Lines go to stderr (stdout belongs to MCP over stdio) and pass
// through `scrub`, so a Grid id, a credential or a registered secret never reaches a log line.
import { scrub } from "./errors.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold = ORDER.info;
let sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`);

export function setLogLevel(level: LogLevel): void {
  threshold = ORDER[level];
}

/** Tests capture every line the server writes. */
export function setLogSink(fn: (line: string) => void): void {
  sink = fn;
}

function emit(level: LogLevel, msg: string): void {
  if (ORDER[level] < threshold) return;
  sink(`${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${scrub(msg)}`);
}

export const log = {
  debug: (msg: string) => emit("debug", msg),
  info: (msg: string) => emit("info", msg),
  warn: (msg: string) => emit("warn", msg),
  error: (msg: string) => emit("error", msg),
};
