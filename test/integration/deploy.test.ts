// The deployment, run rather than read (there is no container engine here):
// - the Dockerfile's build stage is replayed from exactly what it COPYs: a scratch folder holding
//   only those paths (less .dockerignore), then its RUN lines, with this project's Bun standing in
//   for the image's; the binary it makes is booted with the runtime stage's ENV, from an empty
//   folder, and its HEALTHCHECK is run against it;
// - each compose file's server is booted from that binary with the environment Compose would give
//   it (its variables substituted from what the operator is told to set), its Grid and Redis
//   pointed at this machine's (Redis started with the compose file's own command), and it must
//   serve, open a browser, and keep the workspace's record through a Redis crash.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, posix, relative, resolve } from "node:path";
import { RedisClient } from "bun";
import pkg from "../../package.json" with { type: "json" };
import {
  type Compose,
  dockerfileStages,
  dockerIgnored,
  dockerignorePatterns,
  envPairs,
  flagsOf,
  ROOT,
  readCompose,
  type Stage,
  serviceEnv,
  wordsOf,
} from "../support/deploy.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { freePort } from "../support/redis-server.ts";

const scratch = mkdtempSync(join(tmpdir(), "sf-docker-"));
const stopAfter: Array<() => unknown> = [];
afterAll(async () => {
  for (const stop of stopAfter.reverse()) await stop();
  rmSync(scratch, { recursive: true, force: true });
});

const stages = dockerfileStages(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
const runtime = stages.at(-1)!;

/** Where a path inside a stage's image lives here: under the stage's own root folder. */
const rootOf = (stage: Stage) => join(scratch, `stage-${stages.indexOf(stage)}`);

/** The stage a `COPY --from=` names, by name or index. */
function stageNamed(ref: string): Stage {
  const stage = stages.find((s) => s.name === ref) ?? stages[Number(ref)];
  if (!stage) throw new Error(`COPY --from=${ref}: no such stage (an image is not read here)`);
  return stage;
}

/** The context's files under `path` that .dockerignore lets into the build, `/`-separated. */
function contextFiles(path: string, ignore: string[]): string[] {
  if (dockerIgnored(ignore, path)) return [];
  const full = join(ROOT, path);
  if (!existsSync(full)) throw new Error(`COPY ${path}: not in the build context`);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).flatMap((name) => contextFiles(posix.join(path, name), ignore));
}

/** A PATH as the build image has it: this project's Bun as `bun`, and no Node (oven/bun has none). */
function imagePath(image: string): string {
  const m = /^oven\/bun:(\d+(?:\.\d+)*)(?:-\S+)?$/.exec(image);
  if (!m)
    throw new Error(
      `the build stage's image ${image} is not one the replay stands in for (oven/bun:<version>)`,
    );
  // The stand-in is the Bun package.json pins: the image's tag must be its version or a prefix of it.
  expect(`${pkg.devDependencies.bun}.`.startsWith(`${m[1]}.`)).toBe(true);
  const bin = join(scratch, "image-bin");
  if (existsSync(bin)) return `${bin}:/usr/local/bin:/usr/bin:/bin`;
  mkdirSync(bin, { recursive: true });
  symlinkSync(realBun(), join(bin, "bun"));
  symlinkSync(realBun(), join(bin, "bunx"));
  for (const absent of ["node", "npm", "npx"]) {
    writeFileSync(join(bin, absent), `#!/bin/sh\necho "${absent}: not in ${image}" >&2\nexit 127\n`);
    chmodSync(join(bin, absent), 0o755);
  }
  return `${bin}:/usr/local/bin:/usr/bin:/bin`;
}
const realBun = () => process.execPath;

interface Replayed {
  env: Record<string, string>;
  log: string[];
}

/** Replays one stage's instructions (all but its RUN lines when `run` is false). */
async function replay(stage: Stage, { run }: { run: boolean }): Promise<Replayed> {
  const root = rootOf(stage);
  mkdirSync(root, { recursive: true });
  const ignore = dockerignorePatterns();
  const env: Record<string, string> = {};
  const log: string[] = [];
  let workdir = "/";
  const path = run ? imagePath(stage.image) : "";
  const inImage = (p: string) => join(root, posix.resolve(workdir, p));
  for (const step of stage.steps) {
    const { flags, rest } = flagsOf(step.args);
    switch (step.op) {
      case "WORKDIR":
        workdir = posix.resolve(workdir, rest);
        mkdirSync(inImage("."), { recursive: true });
        break;
      case "ENV":
        Object.assign(env, envPairs(rest));
        break;
      case "COPY": {
        const words = wordsOf(rest).words;
        const [sources, dest] = [words.slice(0, -1), words.at(-1)!];
        const intoFolder = dest.endsWith("/") || sources.length > 1;
        for (const source of sources) {
          if (/[*?[]/.test(source)) throw new Error(`line ${step.line}: COPY wildcards are not read here`);
          if (flags.from) {
            const from = join(rootOf(stageNamed(flags.from)), source);
            const to = intoFolder ? join(inImage(dest), basename(source)) : inImage(dest);
            mkdirSync(dirname(to), { recursive: true });
            cpSync(from, to, { recursive: true });
            continue;
          }
          const clean = posix.normalize(source).replace(/^\.\/?/, "") || ".";
          const isDir = statSync(join(ROOT, clean)).isDirectory();
          for (const file of contextFiles(clean === "." ? "" : clean, ignore)) {
            // A folder's contents go into dest; a file goes to dest, or into it when dest is a folder.
            const to = isDir
              ? join(inImage(dest), relative(clean, file))
              : intoFolder
                ? join(inImage(dest), basename(file))
                : inImage(dest);
            mkdirSync(dirname(to), { recursive: true });
            cpSync(join(ROOT, file), to);
          }
        }
        log.push(`COPY ${rest}`);
        break;
      }
      case "RUN": {
        if (!run) {
          log.push(`(not run: the runtime image's own set-up) RUN ${rest}`);
          break;
        }
        const { words, json } = wordsOf(rest);
        const argv = json ? words : ["sh", "-c", rest];
        const proc = Bun.spawn(argv, {
          cwd: inImage("."),
          env: { HOME: process.env.HOME ?? scratch, ...env, PATH: path },
          stdout: "pipe",
          stderr: "pipe",
        });
        const [out, err, code] = await Promise.all([
          new Response(proc.stdout).text(),
          new Response(proc.stderr).text(),
          proc.exited,
        ]);
        if (code !== 0) throw new Error(`line ${step.line}: RUN ${rest} exited ${code}:\n${out}\n${err}`);
        log.push(`RUN ${rest}`);
        break;
      }
      case "USER":
      case "VOLUME":
      case "EXPOSE":
      case "HEALTHCHECK":
      case "ENTRYPOINT":
      case "CMD":
      case "LABEL":
        break;
      default:
        throw new Error(
          `line ${step.line}: ${step.op} is not replayed here: teach test/integration/deploy.test.ts`,
        );
    }
  }
  return { env, log };
}

const stepOf = (stage: Stage, op: string) => stage.steps.filter((s) => s.op === op).at(-1);

// What the build made and how the image runs it.
let binary = "";
let imageEnv: Record<string, string> = {};
let healthcheck: string[] = [];

beforeAll(async () => {
  for (const stage of stages.slice(0, -1)) await replay(stage, { run: true });
  const made = await replay(runtime, { run: false });
  imageEnv = made.env;
  const entry = wordsOf(stepOf(runtime, "ENTRYPOINT")!.args).words;
  binary = join(rootOf(runtime), entry[0]!);
  const check = flagsOf(stepOf(runtime, "HEALTHCHECK")!.args).rest;
  const cmd = /^CMD\s+(.*)$/s.exec(check)![1]!;
  const words = wordsOf(cmd);
  healthcheck = words.json ? words.words : ["sh", "-c", cmd];
}, 300_000);

/** The binary as the image runs it: from an empty folder, the image's ENV under `env`. */
async function boot(env: Record<string, string>) {
  const cwd = mkdtempSync(join(scratch, "run-"));
  const proc = Bun.spawn([binary], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let out = "";
  let base = "";
  while (!base) {
    const { value, done } = await reader.read();
    if (done) {
      const code = await proc.exited;
      throw new Error(`the server stopped (exit ${code}) before serving:\n${out}`);
    }
    out += decoder.decode(value);
    const m = /serving on (http:\/\/[^:]+:\d+)/.exec(out);
    if (m) base = m[1]!;
  }
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += decoder.decode(value);
    }
  })();
  const stop = async () => {
    proc.kill();
    await proc.exited;
  };
  stopAfter.push(stop);
  return { base, stop, output: () => out };
}

/** The image's HEALTHCHECK command, run here with the container's environment: its exit code. */
async function healthy(env: Record<string, string>): Promise<number> {
  const proc = Bun.spawn(healthcheck, {
    env: { PATH: "/usr/bin:/bin", ...env },
    stdout: "ignore",
    stderr: "ignore",
  });
  return proc.exited;
}

/** Settings that name places in the container, pointed at this machine's: an empty folder for each volume. */
function here(env: Record<string, string>, port: number): Record<string, string> {
  const out: Record<string, string> = { ...env, HTTP_HOST: "127.0.0.1", PORT: String(port) };
  for (const name of ["DATA_DIR", "RECORDING_DIR"])
    if (out[name]) out[name] = mkdtempSync(join(scratch, "vol-"));
  return out;
}

describe("the Dockerfile", () => {
  test("its build stage copies what the build needs and makes the binary", () => {
    expect(existsSync(binary)).toBe(true);
    // The runtime stage's COPY --from brought it where ENTRYPOINT runs it.
    expect(statSync(binary).mode & 0o111).not.toBe(0);
    expect(imageEnv.PORT).toBe(wordsOf(stepOf(runtime, "EXPOSE")!.args).words[0]);
  });

  test("the binary prints its version", () => {
    const version = Bun.spawnSync([binary, "--version"], { env: { PATH: "/usr/bin:/bin" } });
    expect(version.exitCode).toBe(0);
    expect(version.stdout.toString()).toBe(`selenium-flow ${pkg.version}\n`);
  });

  test("the binary boots with the image's ENV, serves /healthz against the Grid, and its HEALTHCHECK passes", async () => {
    const port = await freePort();
    const env = here({ ...imageEnv, AUTH_TOKEN: "docker-token-0123456789", GRID_URL: testGridUrl }, port);
    const server = await boot(env);
    const res = await fetch(`${server.base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      ok: true,
      grid: { ready: true },
      store: { kind: "sqlite", ok: true },
    });
    expect(readdirSync(env.DATA_DIR!)).toContain("records.sqlite");
    expect(await healthy(env)).toBe(0);
    await server.stop();
    expect(await healthy(env)).not.toBe(0);
  }, 60_000);
});

// ---- compose -----------------------------------------------------------------------------------

/** What the operator is told to set (the compose files' headers): a token and a store key. */
const OPERATOR = {
  AUTH_TOKEN: Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64"),
  STORE_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"),
};

const site = serveFixture({ "/": () => html("<title>Composed</title><h1>Composed</h1>") });
stopAfter.push(() => site.stop());

/** The service compose builds from this repository's Dockerfile: the server. */
function serverService(file: string, compose: Compose): [string, Compose] {
  const built = Object.entries(compose.services as Record<string, Compose>).filter(([, s]) => s.build);
  expect(built.map(([name]) => name)).toEqual(["selenium-flow"]);
  const [name, service] = built[0]!;
  const build = typeof service.build === "string" ? { context: service.build } : service.build;
  expect(resolve(dirname(file), build.context)).toBe(ROOT);
  expect(build.dockerfile ?? "Dockerfile").toBe("Dockerfile");
  return [name, service];
}

/** Starts the compose file's Redis service here: its own command, on a free port, in a folder of its own. */
async function composeRedis(service: Compose) {
  expect(String(service.image)).toStartWith("redis:");
  const command: string[] = service.command ?? ["redis-server"];
  expect(command[0]).toBe("redis-server");
  const port = await freePort();
  const dir = mkdtempSync(join(scratch, "redis-"));
  const argv = [...command, "--port", String(port), "--bind", "127.0.0.1", "--dir", dir];
  let proc = Bun.spawn(argv, { stdout: "ignore", stderr: "ignore" });
  const client = () =>
    new RedisClient(`redis://127.0.0.1:${port}`, { connectionTimeout: 500, maxRetries: 0 });
  const ready = async () => {
    for (let i = 0; i < 100; i++) {
      const c = client();
      const pong = await c.send("PING", []).catch(() => null);
      c.close();
      if (pong === "PONG") return;
      await Bun.sleep(50);
    }
    throw new Error(`the compose file's redis (${command.join(" ")}) did not answer`);
  };
  await ready();
  stopAfter.push(() => proc.kill());
  return {
    port,
    async send(cmd: string, args: string[]) {
      const c = client();
      try {
        return await c.send(cmd, args);
      } finally {
        c.close();
      }
    },
    /** SIGKILL, as a crash, then the same command again on the same folder. */
    async crashAndRestart() {
      proc.kill("SIGKILL");
      await proc.exited;
      proc = Bun.spawn(argv, { stdout: "ignore", stderr: "ignore" });
      await ready();
    },
  };
}

const GRIDS: Array<[RegExp, () => string]> = [
  [/^selenium\/standalone-/, () => testGridUrl],
  [/^selenium\/hub:/, () => process.env.TEST_HUB_URL ?? "http://127.0.0.1:4460"],
];

for (const file of ["docker-compose.yaml", "docs/deploy/compose.yaml"]) {
  describe(file, () => {
    const path = join(ROOT, file);

    test("Compose refuses to start it without STORE_KEY, and says to set it", () => {
      expect(() => readCompose(path, { AUTH_TOKEN: OPERATOR.AUTH_TOKEN })).toThrow(
        /^required variable STORE_KEY is missing a value: set STORE_KEY/,
      );
    });

    test("its server, with the environment Compose gives it, serves on its Redis and Grid and opens a browser", async () => {
      const compose = readCompose(path, OPERATOR);
      const services = compose.services as Record<string, Compose>;
      const [, service] = serverService(path, compose);
      // Compose's environment over the image's ENV.
      const env: Record<string, string> = { ...imageEnv, ...serviceEnv(service, OPERATOR) };

      const gridService = services[new URL(env.GRID_URL!).hostname]!;
      const grid = GRIDS.find(([image]) => image.test(String(gridService.image)));
      expect(grid, `a Grid for ${gridService.image}`).toBeDefined();
      const storeUrl = new URL(env.STORE_URL!);
      const redis = await composeRedis(services[storeUrl.hostname]!);
      expect(await redis.send("CONFIG", ["GET", "appendonly"])).toEqual({ appendonly: "yes" });

      const port = await freePort();
      const server = await boot(
        here(
          {
            ...env,
            GRID_URL: grid![1](),
            STORE_URL: `redis://127.0.0.1:${redis.port}${storeUrl.pathname}`,
          },
          port,
        ),
      );
      const health = await fetch(`${server.base}/healthz`);
      expect([health.status, await health.json()]).toMatchObject([
        200,
        { ok: true, store: { kind: "redis", ok: true } },
      ]);
      const call = async (method: string, route: string, body?: unknown) => {
        const res = await fetch(`${server.base}${route}`, {
          method,
          headers: {
            authorization: `Bearer ${OPERATOR.AUTH_TOKEN}`,
            "x-workspace": "composed",
            "content-type": "application/json",
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const opened = await call("POST", "/browser", { url: site.url("/") });
      expect([opened.status, opened.body.title]).toEqual([200, "Composed"]);
      expect((await call("DELETE", "/browser")).body).toEqual({ ended: true });
      await server.stop();

      // The record Redis acknowledged outlives a crash of the compose file's Redis.
      const key = "sf:composed";
      const before = await redis.send("GET", [key]);
      expect(before).toBeTruthy();
      await redis.crashAndRestart();
      expect(await redis.send("GET", [key])).toBe(before);
    }, 180_000);
  });
}
