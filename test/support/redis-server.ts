// A private redis-server on a free port, for tests that read the server's own counters or flush
// its scripts without touching the shared Redis.
import { RedisClient } from "bun";

export async function freePort(): Promise<number> {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** A client of the test's own on this server. */
  raw: RedisClient;
  /** `INFO commandstats` as calls per command (`get`, `evalsha`, …); scripts' own calls count. */
  calls(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const proc = Bun.spawn(
    ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdout: "ignore", stderr: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}/0`;
  const raw = new RedisClient(url, { connectionTimeout: 200, maxRetries: 0 });
  for (let i = 0; ; i++) {
    try {
      if ((await raw.send("PING", [])) === "PONG") break;
    } catch {
      if (i > 100) {
        proc.kill();
        throw new Error(`redis-server did not start on port ${port}`);
      }
      await Bun.sleep(50);
      await raw.connect().catch(() => {});
    }
  }
  return {
    url,
    port,
    raw,
    async calls() {
      const text = String(await raw.send("INFO", ["commandstats"]));
      const out: Record<string, number> = {};
      for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]!] = Number(m[2]);
      return out;
    },
    async stop() {
      raw.close();
      proc.kill();
      await proc.exited;
    },
  };
}
