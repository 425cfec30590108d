// The server as operators run it: `bun src/main.ts` in a process of its own (Bun.serve with its own
// limits), so a test can read its RSS from /proc and send it what an attacker would.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const BUN = join(ROOT, "node_modules", ".bin", "bun");

export interface ServerProcess {
  base: string;
  port: number;
  /** Its process id (a bench reads its CPU time from /proc). */
  pid: number;
  /** Everything the server wrote to stderr so far. */
  output(): string;
  /** Resident memory, MiB. */
  rss(): number;
  stop(): Promise<void>;
  /** Kills it with `signal` (SIGKILL: no chance to give anything back) and waits for it to go. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function startProcess(env: Record<string, string>): Promise<ServerProcess> {
  const proc = Bun.spawn([BUN, "src/main.ts", "--http-port", "0"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let out = "";
  let base = "";
  while (!base) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the server stopped before serving:\n${out}`);
    out += decoder.decode(value);
    const m = /serving on (http:\/\/[^:]+:\d+)/.exec(out);
    if (m) base = m[1] as string;
  }
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += decoder.decode(value);
    }
  })();
  return {
    base,
    port: Number(new URL(base).port),
    pid: proc.pid,
    output: () => out,
    rss: () => {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"));
      return Number(m?.[1] ?? 0) / 1024;
    },
    stop: async () => {
      proc.kill();
      await proc.exited;
    },
    kill: async (signal) => {
      proc.kill(signal);
      await proc.exited;
    },
  };
}

/** One HTTP/1.1 request written as given (the path is not normalised on the way); status and body. */
export async function rawRequest(port: number, head: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let got = "";
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(s) {
          s.write(`${head}\r\nConnection: close\r\n\r\n`);
        },
        data(_s, d) {
          got += new TextDecoder().decode(d);
        },
        close() {
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0);
          resolve({ status, text: got.slice(got.indexOf("\r\n\r\n") + 4) });
        },
        error(_s, err) {
          reject(err);
        },
      },
    }).catch(reject);
  });
}
