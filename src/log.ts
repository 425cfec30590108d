// A server's log. Lines go to stderr (stdout belongs to MCP over stdio) and pass through
// `redactCredentials` and the server's redactor, so a Grid id, a credential or a secret never
// reaches a log line. Each server's log is made where the server is built and handed down: two
// servers in one process (tests) neither share their lines' listeners nor each other's redactor.
import { redactCredentials } from "./errors.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A line as it was written: its level and its redacted message, without the time. */
export interface LogEntry {
  level: LogLevel;
  text: string;
}

export class Log {
  private threshold: number;
  private readonly listeners = new Set<(line: string, entry: LogEntry) => void>();
  private readonly redactions = new Set<(text: string) => string>();

  constructor(
    level: LogLevel = "info",
    /** Where lines go (stderr by default). */
    private readonly sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {
    this.threshold = ORDER[level];
  }

  /** Passes every line through `redact` too (the server's redactor); returns the way to stop. */
  addRedaction(redact: (text: string) => string): () => void {
    this.redactions.add(redact);
    return () => this.redactions.delete(redact);
  }

  /**
   * Also hands every line to `fn` (tests read what the server wrote, MCP sessions that asked for
   * logging get their workspace's lines); returns the way to stop.
   */
  addSink(fn: (line: string, entry: LogEntry) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  debug(msg: string): void {
    this.emit("debug", msg);
  }
  info(msg: string): void {
    this.emit("info", msg);
  }
  warn(msg: string): void {
    this.emit("warn", msg);
  }
  error(msg: string): void {
    this.emit("error", msg);
  }

  private emit(level: LogLevel, msg: string): void {
    if (ORDER[level] < this.threshold) return;
    let text = redactCredentials(msg);
    for (const redact of this.redactions) text = redact(text);
    const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${text}`;
    this.sink(line);
    for (const l of this.listeners) l(line, { level, text });
  }
}
