// MCP logging: a session that chose a level (logging/setLevel) gets, during each of its tool calls,
// the server's log lines about its workspace and the call's own line as notifications/message,
// redacted as every log line is. A session that never chose a level gets none.
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { redactCredentials } from "../errors.ts";
import type { Log, LogLevel } from "../log.ts";
import type { RecordStore } from "../store/types.ts";

/** MCP's levels, least severe first. */
export const LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const satisfies readonly LoggingLevel[];
export type McpLevel = (typeof LEVELS)[number];
const SEVERITY: readonly LoggingLevel[] = LEVELS;
const AS_MCP: Record<LogLevel, LoggingLevel> = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
};

/** Where a session's chosen level is kept. */
export interface LevelStore {
  get(): Promise<LoggingLevel | null>;
  set(level: LoggingLevel): Promise<void>;
}

/** In the server's memory: stdio's one session. */
export function localLevel(): LevelStore {
  let level: LoggingLevel | null = null;
  return {
    get: async () => level,
    set: async (l) => {
      level = l;
    },
  };
}

/**
 * In the record store's marks, so every server of a group sees the level an HTTP session chose:
 * one mark says it chose one, one mark per level says which (setting one expires the others).
 */
export function storedLevel(
  store: Pick<RecordStore, "putMark" | "hasMark">,
  session: string,
  keepS: number,
): LevelStore {
  const chose = `mcp-log:${session}`;
  const key = (l: LoggingLevel) => `${chose}:${l}`;
  return {
    async get() {
      if (!(await store.hasMark(chose))) return null;
      const present = await Promise.all(SEVERITY.map((l) => store.hasMark(key(l))));
      return SEVERITY[present.indexOf(true)] ?? null;
    },
    async set(level) {
      await Promise.all(SEVERITY.map((l) => store.putMark(key(l), l === level ? keepS : 0)));
      await store.putMark(chose, keepS);
    },
  };
}

export interface LogRelay {
  /** Sends one line of the call's own, if the level lets it through. */
  line(level: LoggingLevel, text: string): Promise<void>;
  stop(): void;
}

const SILENT: LogRelay = { line: async () => undefined, stop: () => undefined };

/** For one tool call: relays the workspace's log lines at or above `level` (null: none) to `send`. */
export function logRelay(
  log: Pick<Log, "addSink">,
  level: LoggingLevel | null,
  workspace: string,
  send: (n: { method: string; params: Record<string, unknown> }) => Promise<void>,
): LogRelay {
  if (level === null) return SILENT;
  const min = SEVERITY.indexOf(level);
  const out = (l: LoggingLevel, data: string) =>
    send({ method: "notifications/message", params: { level: l, logger: "selenium-flow", data } }).catch(
      () => undefined,
    );
  const stop = log.addSink((_line, entry) => {
    const l = AS_MCP[entry.level];
    if (SEVERITY.indexOf(l) >= min && about(entry.text, workspace)) void out(l, entry.text);
  });
  return {
    line: async (l, text) => {
      if (SEVERITY.indexOf(l) >= min) await out(l, redactCredentials(text));
    },
    stop,
  };
}

/** Whether a log line is about the workspace: "workspace W: …", "… for W", "… W/name". */
function about(text: string, workspace: string): boolean {
  return (
    text.startsWith(`workspace ${workspace}:`) ||
    text.endsWith(` for ${workspace}`) ||
    text.includes(` for ${workspace}:`) ||
    text.includes(` ${workspace}/`)
  );
}
