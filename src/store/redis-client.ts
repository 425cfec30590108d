// One auto-pipelined Redis connection: a deadline per command, failures said plainly, scripts run by digest.
import { RedisClient } from "bun";
import { AppError, unavailable } from "../errors.ts";

export const CLIENT_OPTIONS = { connectionTimeout: 3000, maxRetries: 3, autoReconnect: true };

// Redis's own clock, in ms, so every server of a group measures a lease alike.
export const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

export interface Script {
  text: string;
  sha: string;
}
export const script = (text: string): Script => ({
  text,
  sha: new Bun.CryptoHasher("sha1").update(text).digest("hex"),
});

/** The URL with no user or password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return "(an unparsable URL)";
  }
}

class Timeout extends Error {
  constructor(ms: number) {
    super(`no reply within ${ms} ms`);
  }
}

export class RedisConnection {
  private shared: RedisClient | null = null;
  closed = false;

  constructor(
    readonly url: string,
    /** The URL with no credentials, for messages. */
    readonly where: string,
    private readonly timeoutMs: number,
  ) {}

  /** A command on the shared connection; a failed connection is replaced on the next call. */
  command(name: string, args: string[]): Promise<unknown> {
    return this.call((c) => c.send(name, args));
  }

  async call<T>(run: (client: RedisClient) => Promise<T>): Promise<T> {
    if (this.closed) throw closedError();
    this.shared ??= new RedisClient(this.url, CLIENT_OPTIONS);
    const client = this.shared;
    let timer: Timer | undefined;
    try {
      return await Promise.race([
        run(client),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Timeout(this.timeoutMs)), this.timeoutMs);
        }),
      ]);
    } catch (err) {
      const failure = this.failure(err);
      if (failure instanceof StoreDown && this.shared === client) {
        this.shared = null;
        client.close();
      }
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs a script by its digest; a restarted or flushed Redis has lost it, and EVAL caches it again. */
  async run(s: Script, keys: string[], args: string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.command("EVALSHA", [s.sha, ...tail]);
    } catch (err) {
      if (!(err instanceof StoreRefused && err.reply.startsWith("NOSCRIPT"))) throw err;
      return await this.command("EVAL", [s.text, ...tail]);
    }
  }

  close(): void {
    this.closed = true;
    this.shared?.close();
    this.shared = null;
  }

  private failure(err: unknown): AppError {
    if (err instanceof AppError) return err;
    const message = err instanceof Error ? err.message : String(err);
    const code = (err as { code?: unknown } | null)?.code;
    if (code === "ERR_REDIS_SERVER_ERROR") {
      return new StoreRefused(`the record store at ${this.where} refused a command: ${message}`, message);
    }
    return new StoreDown(`the record store at ${this.where} did not answer: ${message}`);
  }
}

/** A connection-level failure (as opposed to a command Redis refused). */
class StoreDown extends AppError {
  constructor(message: string) {
    super("unavailable", message);
  }
}

/** A command Redis answered with an error; `reply` is Redis's own text (`NOSCRIPT …`). */
class StoreRefused extends AppError {
  constructor(
    message: string,
    readonly reply: string,
  ) {
    super("unavailable", message);
  }
}

const closedError = () => unavailable("the record store is closed: the server is shutting down");
