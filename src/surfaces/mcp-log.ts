// A request's log lines as MCP sends them (notifications/message): the server's lines about its
// workspace while a tool call runs, at or above the level the session chose (or the request asked,
// 2026-07-28), and the call's own line, redacted as every log line is; with no level chosen, none.
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { redactCredentials } from "../errors.ts";
import type { Log, LogLevel } from "../log.ts";
import { LEVELS, type McpNotice, type Outgoing } from "./mcp-wire.ts";

const SEVERITY: readonly LoggingLevel[] = LEVELS;
const AS_MCP: Record<LogLevel, LoggingLevel> = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
};

export interface LogRelay {
  line: Outgoing["logLine"];
  stop(): void;
}

const SILENT: LogRelay = { line: async () => undefined, stop: () => undefined };

/**
 * For one request of `method`: a tool call relays the workspace's log lines at or above `level`
 * (null: none) to `send` until stopped; any other request hears none (it does no work in a browser).
 */
export function logRelay(
  method: string,
  log: Pick<Log, "addSink">,
  level: LoggingLevel | null,
  workspace: string,
  send: (n: McpNotice) => Promise<void>,
): LogRelay {
  if (level === null || method !== "tools/call") return SILENT;
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
