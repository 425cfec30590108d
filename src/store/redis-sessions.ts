// Short-lived keys beside the records: MCP sessions (capped, idle-timed), admin sign-ins, marks.
import { NOW_MS, type RedisConnection, script } from "./redis-client.ts";
import { MARK, MCP_KEPT, MCP_SESSION, MCP_SESSIONS, MCP_USED, SESSION_MARK } from "./redis-keys.ts";
import type { McpOpened, McpTouch } from "./types.ts";

const ms = (seconds: number) => String(Math.max(1, Math.round(seconds * 1000)));

/**
 * Opens the session KEYS[1] (info ARGV[1], ARGV[2] ms idle) unless ARGV[3] are open and each is kept
 * (KEYS[4]'s prefix + id exists) or busy (ARGV[5..]); else the least recently used (KEYS[3], by use)
 * of the others goes. Returns the evicted id, "" when none had to go, or false when full.
 */
const OPEN_MCP = `${NOW_MS}
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
if #gone > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  redis.call('ZREM', KEYS[3], unpack(gone))
end
local evicted = ''
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  local busy = {}
  for i = 5, #ARGV do busy[ARGV[i]] = true end
  -- The busy ones and up to 100 kept ones are looked past; a table kept further than that is full.
  local lru = redis.call('ZRANGE', KEYS[3], 0, #ARGV - 4 + 100)
  for _, id in ipairs(lru) do
    if not busy[id] and redis.call('EXISTS', KEYS[4] .. id) == 0 then
      evicted = id
      break
    end
  end
  if evicted == '' then return false end
  redis.call('DEL', KEYS[5] .. evicted)
  redis.call('ZREM', KEYS[2], evicted)
  redis.call('ZREM', KEYS[3], evicted)
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[4])
redis.call('ZADD', KEYS[3], now, ARGV[4])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return evicted`;
/** The session's info (rewritten as ARGV[5] when given), its idle time restarted, used now (ARGV[3] = 1), kept ARGV[4] ms; false when gone. */
const TOUCH_MCP = `${NOW_MS}
local info = redis.call('GET', KEYS[1])
if not info then
  redis.call('ZREM', KEYS[2], ARGV[2])
  redis.call('ZREM', KEYS[3], ARGV[2])
  return false
end
if ARGV[5] then
  info = ARGV[5]
  redis.call('SET', KEYS[1], info, 'PX', ARGV[1])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), ARGV[2])
if ARGV[3] == '1' then redis.call('ZADD', KEYS[3], now, ARGV[2]) end
if tonumber(ARGV[4]) > 0 then
  local left = redis.call('PTTL', KEYS[4])
  if left < tonumber(ARGV[4]) then redis.call('SET', KEYS[4], '1', 'PX', ARGV[4]) end
end
return info`;

const SCRIPTS = { openMcp: script(OPEN_MCP), touchMcp: script(TOUCH_MCP) };

export class RedisSessions {
  constructor(
    private readonly conn: RedisConnection,
    private readonly prefix: string,
  ) {}

  async openMcpSession(
    id: string,
    info: string,
    seconds: number,
    max: number,
    busy: readonly string[] = [],
  ): Promise<McpOpened> {
    const p = this.prefix;
    const reply = await this.conn.run(
      SCRIPTS.openMcp,
      [p + MCP_SESSION + id, p + MCP_SESSIONS, p + MCP_USED, p + MCP_KEPT, p + MCP_SESSION],
      [info, ms(seconds), String(max), id, ...busy],
    );
    if (typeof reply !== "string") return { opened: false, evicted: null };
    if (reply) await this.conn.command("DEL", [p + MCP_KEPT + reply]);
    return { opened: true, evicted: reply || null };
  }

  async mcpSession(id: string, seconds: number, touch: McpTouch = {}): Promise<string | null> {
    const p = this.prefix;
    const reply = await this.conn.run(
      SCRIPTS.touchMcp,
      [p + MCP_SESSION + id, p + MCP_SESSIONS, p + MCP_USED, p + MCP_KEPT + id],
      [
        ms(seconds),
        id,
        touch.use === false ? "0" : "1",
        touch.keep ? ms(touch.keep) : "0",
        ...(touch.info === undefined ? [] : [touch.info]),
      ],
    );
    return typeof reply === "string" ? reply : null;
  }

  async closeMcpSession(id: string): Promise<boolean> {
    const p = this.prefix;
    const removed = Number(await this.conn.command("DEL", [p + MCP_SESSION + id, p + MCP_KEPT + id])) > 0;
    await this.conn.command("ZREM", [p + MCP_SESSIONS, id]);
    await this.conn.command("ZREM", [p + MCP_USED, id]);
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

  async putSignIn(id: string, seconds: number): Promise<void> {
    await this.conn.command("SET", [
      this.prefix + SESSION_MARK + id,
      "1",
      "EX",
      String(Math.max(1, Math.ceil(seconds))),
    ]);
  }

  async hasSignIn(id: string): Promise<boolean> {
    return Number(await this.conn.command("EXISTS", [this.prefix + SESSION_MARK + id])) > 0;
  }

  async dropSignIn(id: string): Promise<void> {
    await this.conn.command("DEL", [this.prefix + SESSION_MARK + id]);
  }
}
