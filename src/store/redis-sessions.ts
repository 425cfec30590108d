// Short-lived keys beside the records: MCP sessions (capped, idle-timed), admin sign-ins, marks.
import { NOW_MS, type RedisConnection, script } from "./redis-client.ts";
import { MARK, MCP_SESSION, MCP_SESSIONS, SESSION_MARK } from "./redis-keys.ts";

/** Opens the session KEYS[1] (workspace ARGV[1], ARGV[2] ms idle) unless ARGV[3] are open (0). */
const OPEN_MCP = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[4])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;
/** The session's workspace, its idle time restarted; false when it is gone. */
const TOUCH_MCP = `${NOW_MS}
local workspace = redis.call('GET', KEYS[1])
if not workspace then
  redis.call('ZREM', KEYS[2], ARGV[2])
  return false
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), ARGV[2])
return workspace`;

const SCRIPTS = { openMcp: script(OPEN_MCP), touchMcp: script(TOUCH_MCP) };

export class RedisSessions {
  constructor(
    private readonly conn: RedisConnection,
    private readonly prefix: string,
  ) {}

  async openMcpSession(id: string, workspace: string, seconds: number, max: number): Promise<boolean> {
    const p = this.prefix;
    const reply = await this.conn.run(
      SCRIPTS.openMcp,
      [p + MCP_SESSION + id, p + MCP_SESSIONS],
      [workspace, String(Math.max(1, Math.round(seconds * 1000))), String(max), id],
    );
    return Number(reply) === 1;
  }

  async mcpSession(id: string, seconds: number): Promise<string | null> {
    const p = this.prefix;
    const reply = await this.conn.run(
      SCRIPTS.touchMcp,
      [p + MCP_SESSION + id, p + MCP_SESSIONS],
      [String(Math.max(1, Math.round(seconds * 1000))), id],
    );
    return typeof reply === "string" ? reply : null;
  }

  async closeMcpSession(id: string): Promise<boolean> {
    const p = this.prefix;
    const removed = Number(await this.conn.command("DEL", [p + MCP_SESSION + id])) > 0;
    await this.conn.command("ZREM", [p + MCP_SESSIONS, id]);
    return removed;
  }

  async putMark(name: string, seconds: number): Promise<void> {
    await this.conn.command("SET", [
      this.prefix + MARK + name,
      "1",
      "PX",
      String(Math.max(1, Math.round(seconds * 1000))),
    ]);
  }

  async hasMark(name: string): Promise<boolean> {
    return Number(await this.conn.command("EXISTS", [this.prefix + MARK + name])) > 0;
  }

  async putSession(id: string, seconds: number): Promise<void> {
    await this.conn.command("SET", [
      this.prefix + SESSION_MARK + id,
      "1",
      "EX",
      String(Math.max(1, Math.ceil(seconds))),
    ]);
  }

  async hasSession(id: string): Promise<boolean> {
    return Number(await this.conn.command("EXISTS", [this.prefix + SESSION_MARK + id])) > 0;
  }

  async dropSession(id: string): Promise<void> {
    await this.conn.command("DEL", [this.prefix + SESSION_MARK + id]);
  }
}
