import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../../package.json" with { type: "json" };
import { helpText, redactedSettings } from "../../../src/config/help.ts";
import { configProblem, loadConfig, recordingDir } from "../../../src/config/load.ts";
import { defaultConfig, SETTINGS } from "../../../src/config/schema.ts";
import { ConfigError, type Loaded } from "../../../src/config/sources.ts";

const RETIRED =
  "FLOW_DATA_DIR is now DATA_DIR, and session folders live under DATA_DIR/sessions/ — move them there once, then set DATA_DIR";

const dir = mkdtempSync(join(tmpdir(), "sf-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function yamlFile(text: string): string {
  const path = join(dir, `c${n++}.yaml`);
  writeFileSync(path, text);
  return path;
}

/** The ConfigError `fn` throws; fails the test when it throws nothing or something else. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError, nothing was thrown");
}

const load = (argv: string[] = [], env: Record<string, string | undefined> = {}) => loadConfig(argv, env);

describe("the layers", () => {
  test("nothing set gives the defaults, each from default", () => {
    const { config, sources, cli } = load();
    expect(config).toEqual(defaultConfig());
    expect(config).toEqual({
      grid: { url: "http://127.0.0.1:4444", open_timeout: 60, command_timeout: 60, orphan_sweep: 60 },
      auth: { token: null, admin_token: null },
      http: { host: "127.0.0.1", port: 8766, allowed_hosts: [] },
      data: { dir: null },
      store: { url: null, key: null },
      session: { ttl: 86400, lease: 15 },
      site_data: { tabs: 4 },
      secrets: { dirs: [], entries: {}, hold_ms: 2000 },
      navigate: {
        allow_schemes: ["http", "https", "data", "about"],
        allowed_hosts: [],
        blocked_hosts: [],
        private_addresses: "allow",
      },
      flows: { dir: null },
      files: { link_ttl: 3600 },
      recording: { enabled: false, dir: null, wait: 600, watch: "auto", poll: 1000 },
      logs: { keep: 1000 },
      mcp: { max_sessions: 500, session_idle: 900 },
      timeline: { keep: 500, screens: false },
      log: { level: "info" },
    });
    expect(Object.keys(sources).sort()).toEqual(SETTINGS.map((s) => s.key).sort());
    expect(new Set(Object.values(sources))).toEqual(new Set(["default"]));
    expect(cli).toEqual({ help: false, version: false, stdio: false, workspace: "stdio", configFile: null });
  });

  test("defaultConfig() is a fresh object each time", () => {
    const a = defaultConfig();
    a.secrets.dirs.push("/x");
    expect(defaultConfig().secrets.dirs).toEqual([]);
  });

  test("each layer sets values and is named as their source", () => {
    const file = yamlFile("data:\n  dir: /from/file\nsession:\n  ttl: 120\n");
    const loaded = load(["--config-file", file, "--log-level", "debug"], {
      DATA_DIR: "/srv/data",
      RECORDING_WAIT: "45",
    });
    expect(loaded.cli.configFile).toBe(file);
    expect(loaded.config.data.dir).toBe("/srv/data");
    expect(loaded.sources["data.dir"]).toBe("env");
    expect(loaded.config.session.ttl).toBe(120);
    expect(loaded.sources["session.ttl"]).toBe("file");
    expect(loaded.config.recording.wait).toBe(45);
    expect(loaded.sources["recording.wait"]).toBe("env");
    expect(loaded.config.log.level).toBe("debug");
    expect(loaded.sources["log.level"]).toBe("flag");
    expect(loaded.sources["grid.url"]).toBe("default");
  });

  test("precedence: default < file < env < flag", () => {
    const file = yamlFile("grid:\n  open_timeout: 10\n");
    expect(load(["--config-file", file]).config.grid.open_timeout).toBe(10);
    const envOverFile = load(["--config-file", file], { GRID_OPEN_TIMEOUT: "20" });
    expect(envOverFile.config.grid.open_timeout).toBe(20);
    expect(envOverFile.sources["grid.open_timeout"]).toBe("env");
    const flagOverAll = load(["--config-file", file, "--grid-open-timeout", "30"], {
      GRID_OPEN_TIMEOUT: "20",
    });
    expect(flagOverAll.config.grid.open_timeout).toBe(30);
    expect(flagOverAll.sources["grid.open_timeout"]).toBe("flag");
  });

  test("flags take `--name value` and `--name=value`; the last one wins", () => {
    expect(load(["--data-dir", "/a"]).config.data.dir).toBe("/a");
    expect(load(["--data-dir=/b"]).config.data.dir).toBe("/b");
    expect(load(["--data-dir=/a=b"]).config.data.dir).toBe("/a=b");
    expect(load(["--data-dir", "/a", "--data-dir=/c"]).config.data.dir).toBe("/c");
    expect(load(["--grid-url", "http://grid.example.test:4444"]).config.grid.url).toBe(
      "http://grid.example.test:4444",
    );
    expect(load(["--auth-token", "t0ken"]).config.auth.token).toBe("t0ken");
  });

  test("http.port comes from PORT, --http-port or --port; HTTP_PORT is not a setting", () => {
    const env = load([], { PORT: "9001" });
    expect(env.config.http.port).toBe(9001);
    expect(env.sources["http.port"]).toBe("env");
    expect(load(["--http-port", "9002"]).config.http.port).toBe(9002);
    const alias = load(["--port=9003"], { PORT: "9001" });
    expect(alias.config.http.port).toBe(9003);
    expect(alias.sources["http.port"]).toBe("flag");
    expect(load([], { HTTP_PORT: "9004" }).config.http.port).toBe(8766);
    expect(load(["--config-file", yamlFile("http:\n  port: 9005\n  host: localhost\n")]).config.http).toEqual(
      {
        port: 9005,
        host: "localhost",
        allowed_hosts: [],
      },
    );
  });

  test("a boolean flag alone means true", () => {
    const on = load(["--recording-enabled", "--data-dir", "/d"]);
    expect(on.config.recording.enabled).toBe(true);
    expect(load(["--data-dir", "/d", "--recording-enabled"]).config.recording.enabled).toBe(true);
    expect(load(["--recording-enabled", "false"]).config.recording.enabled).toBe(false);
    expect(load(["--recording-enabled=no"]).config.recording.enabled).toBe(false);
  });

  test("strings are trimmed, and a blank value in any layer is not a setting", () => {
    expect(load([], { DATA_DIR: "  /srv/data  " }).config.data.dir).toBe("/srv/data");
    const file = yamlFile("data:\n  dir: /from/file\nrecording:\n  dir: '   '\n");
    const blankEnv = load(["--config-file", file], { DATA_DIR: "   ", LOG_LEVEL: "" });
    expect(blankEnv.config.data.dir).toBe("/from/file");
    expect(blankEnv.sources["data.dir"]).toBe("file");
    expect(blankEnv.config.log.level).toBe("info");
    expect(blankEnv.sources["log.level"]).toBe("default");
    expect(blankEnv.config.recording.dir).toBeNull();
    expect(blankEnv.sources["recording.dir"]).toBe("default");
    const blankFlag = load(["--config-file", file, "--data-dir", " "]);
    expect(blankFlag.config.data.dir).toBe("/from/file");
    expect(load([], { DATA_DIR: " " }).config.data.dir).toBeNull();
    expect(load(["--config-file", yamlFile("data:\n  dir:\n")]).config.data.dir).toBeNull();
  });

  test("environment names that are not settings are ignored", () => {
    const loaded = load([], {
      KUBERNETES_SERVICE_HOST: "10.0.0.1",
      GRID_FLAVOUR: "x",
      DATA_DIRECTORY: "/x",
      SECRETS_ENTRIES: "{}",
      data_dir: "/lower",
      RECORDING_WAIT: undefined,
    });
    expect(loaded.config).toEqual(defaultConfig());
  });

  test("http.allowed_hosts: ','-separated in the environment, a YAML list in the file; a URL is refused", () => {
    expect(
      load([], { HTTP_ALLOWED_HOSTS: "a.example.test, b.example.test:8443" }).config.http.allowed_hosts,
    ).toEqual(["a.example.test", "b.example.test:8443"]);
    const file = yamlFile("http:\n  allowed_hosts: [A.example.test, 'b.example.test:8443']\n");
    expect(load(["--config-file", file]).config.http.allowed_hosts).toEqual([
      "a.example.test",
      "b.example.test:8443",
    ]);
    const bad = yamlFile("http:\n  allowed_hosts: [https://a.example.test/]\n");
    expect(refusal(() => load(["--config-file", bad]))).toStartWith(
      "http.allowed_hosts must be a list of host names",
    );
  });

  test("SECRETS_DIRS is a list separated by ':' or ','", () => {
    const loaded = load([], { SECRETS_DIRS: "/a:/b, /c,,:" });
    expect(loaded.config.secrets.dirs).toEqual(["/a", "/b", "/c"]);
    expect(loaded.sources["secrets.dirs"]).toBe("env");
    expect(load([], { SECRETS_DIRS: " : , " }).sources["secrets.dirs"]).toBe("default");
    expect(load(["--secrets-dirs", "/x,/y"]).config.secrets.dirs).toEqual(["/x", "/y"]);
    const file = yamlFile("secrets:\n  dirs: [/f1, ' /f2 ']\n");
    expect(load(["--config-file", file]).config.secrets.dirs).toEqual(["/f1", "/f2"]);
    expect(load(["--config-file", yamlFile("secrets:\n  dirs: /one:/two\n")]).config.secrets.dirs).toEqual([
      "/one",
      "/two",
    ]);
  });
});

describe("bad values name the key and say what is allowed", () => {
  // Every setting but secrets.entries (file only, tested below): values refused and edge values kept.
  const cases: Record<string, { bad: string[]; rule: string; good: Array<[string, unknown]> }> = {
    "grid.url": {
      bad: ["not a url", "ftp://grid.example.test", "grid:4444"],
      rule: "http:// or https://",
      good: [
        ["https://grid.example.test/wd/hub", "https://grid.example.test/wd/hub"],
        ["http://u:p@127.0.0.1:4444", "http://u:p@127.0.0.1:4444"],
      ],
    },
    "grid.open_timeout": {
      bad: ["4", "601", "abc", "1.5"],
      rule: "from 5 to 600",
      good: [
        ["5", 5],
        ["600", 600],
      ],
    },
    "grid.command_timeout": {
      bad: ["0", "3601", "soon"],
      rule: "from 1 to 3600",
      good: [
        ["1", 1],
        ["3600", 3600],
      ],
    },
    "grid.orphan_sweep": {
      bad: ["-1", "86401", "often"],
      rule: "from 0 to 86400",
      good: [
        ["0", 0],
        ["60", 60],
      ],
    },
    "http.allowed_hosts": {
      bad: ["https://proxy.example.test", "proxy.example.test/path", "user@proxy.example.test", "a:99999"],
      rule: "list of host names",
      good: [
        ["Proxy.Example.Test", ["proxy.example.test"]],
        ["proxy.example.test:8443, flow.example.test", ["proxy.example.test:8443", "flow.example.test"]],
        ["[::1]:9000,10.0.0.5", ["[::1]:9000", "10.0.0.5"]],
      ],
    },
    "mcp.max_sessions": {
      bad: ["0", "100001", "many"],
      rule: "from 1 to 100000",
      good: [
        ["1", 1],
        ["500", 500],
      ],
    },
    "mcp.session_idle": {
      bad: ["0", "86401"],
      rule: "from 1 to 86400",
      good: [["900", 900]],
    },
    "site_data.tabs": {
      bad: ["0", "17", "four"],
      rule: "whole number of tabs, from 1 to 16",
      good: [
        ["1", 1],
        ["16", 16],
      ],
    },
    "logs.keep": {
      bad: ["0", "100001", "all"],
      rule: "from 1 to 100000",
      good: [
        ["1", 1],
        ["1000", 1000],
      ],
    },
    "timeline.keep": {
      bad: ["-1", "100001", "all"],
      rule: "from 0 to 100000",
      good: [
        ["0", 0],
        ["500", 500],
      ],
    },
    "timeline.screens": {
      bad: ["sometimes"],
      rule: "true or false",
      good: [
        ["on", true],
        ["off", false],
      ],
    },
    "auth.token": { bad: [], rule: "", good: [["abc", "abc"]] },
    "store.key": { bad: [], rule: "", good: [["k".repeat(32), "k".repeat(32)]] },
    "auth.admin_token": { bad: [], rule: "", good: [["abc", "abc"]] },
    "http.host": { bad: [], rule: "", good: [["localhost", "localhost"]] },
    "http.port": {
      bad: ["-1", "65536", "http"],
      rule: "from 0 to 65535",
      good: [
        ["0", 0],
        ["65535", 65535],
      ],
    },
    "data.dir": { bad: [], rule: "", good: [["/d", "/d"]] },
    "store.url": {
      bad: ["http://127.0.0.1:6379", "not a url"],
      rule: "redis:// or rediss://",
      good: [
        ["redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"],
        ["rediss://cache.example.test:6380", "rediss://cache.example.test:6380"],
      ],
    },
    "session.ttl": { bad: ["59", "1d"], rule: "60 or more", good: [["60", 60]] },
    "session.lease": {
      bad: ["1", "601", "15s"],
      rule: "from 2 to 600",
      good: [
        ["2", 2],
        ["600", 600],
      ],
    },
    "secrets.dirs": { bad: [], rule: "", good: [["/s", ["/s"]]] },
    "navigate.allow_schemes": { bad: [], rule: "", good: [["http,https,file", ["http", "https", "file"]]] },
    "navigate.allowed_hosts": {
      bad: ["app*.example.test", "a/b"],
      rule: "must be a list of hosts or *.host patterns",
      good: [
        [
          "*.Example.test, intranet.example.test 10.0.0.1",
          ["*.example.test", "intranet.example.test", "10.0.0.1"],
        ],
      ],
    },
    "navigate.blocked_hosts": {
      bad: ["*"],
      rule: "is a glob that is not supported",
      good: [["*.evil.test", ["*.evil.test"]]],
    },
    "navigate.private_addresses": {
      bad: ["deny"],
      rule: "must be one of allow, block",
      good: [["block", "block"]],
    },
    "flows.dir": { bad: [], rule: "", good: [["/f", "/f"]] },
    "files.link_ttl": {
      bad: ["59", "604801"],
      rule: "from 60 to 604800",
      good: [
        ["60", 60],
        ["604800", 604800],
      ],
    },
    "recording.enabled": {
      bad: ["maybe", "2"],
      rule: "true or false",
      good: [
        ["yes", true],
        ["TRUE", true],
        ["1", true],
        ["off", false],
        ["0", false],
      ],
    },
    "recording.dir": { bad: [], rule: "", good: [["/in", "/in"]] },
    "recording.wait": { bad: ["29", "-30", "ten"], rule: "30 or more", good: [["30", 30]] },
    "secrets.hold_ms": {
      bad: ["-1", "60001", "2s"],
      rule: "from 0 to 60000",
      good: [
        ["0", 0],
        ["2000", 2000],
      ],
    },
    "recording.watch": {
      bad: ["sometimes", "POLL"],
      rule: "auto, events, poll",
      good: [
        ["auto", "auto"],
        ["events", "events"],
        ["poll", "poll"],
      ],
    },
    "recording.poll": { bad: ["199", "0.5"], rule: "200 or more", good: [["200", 200]] },
    "log.level": {
      bad: ["verbose", "trace"],
      rule: "debug, info, warn, error",
      good: [
        ["debug", "debug"],
        ["warn", "warn"],
        ["error", "error"],
      ],
    },
  };

  test("the table covers every setting", () => {
    expect(Object.keys(cases).sort()).toEqual(
      SETTINGS.map((s) => s.key)
        .filter((k) => k !== "secrets.entries")
        .sort(),
    );
  });

  for (const [key, c] of Object.entries(cases)) {
    const s = SETTINGS.find((x) => x.key === key)!;
    test(`${key} (${s.env})`, () => {
      // data.dir keeps recording.enabled legal.
      const base = { DATA_DIR: "/d" };
      for (const bad of c.bad) {
        const fromEnv = refusal(() => load([], { ...base, [s.env!]: bad }));
        expect(fromEnv).toStartWith(`${key} `);
        expect(fromEnv).toContain(c.rule);
        expect(fromEnv).toContain(s.env!);
        const fromFlag = refusal(() => load([`--${s.flags[0]}=${bad}`], base));
        expect(fromFlag).toStartWith(`${key} `);
        expect(fromFlag).toContain(`--${s.flags[0]}`);
      }
      for (const [text, value] of c.good) {
        const loaded = load([], { ...base, [s.env!]: text });
        const [section, field] = key.split(".") as [string, string];
        expect(
          (loaded.config as unknown as Record<string, Record<string, unknown>>)[section]![field],
        ).toEqual(value);
        expect(loaded.sources[key]).toBe("env");
      }
    });
  }

  test("a URL or a token is never quoted in the refusal", () => {
    const msg = refusal(() => load([], { GRID_URL: "ftp://user:hunter22@grid.example.test" }));
    expect(msg).not.toContain("hunter22");
    expect(msg).not.toContain("grid.example.test");
    const file = yamlFile("auth:\n  token: 123456789\n");
    const tokenMsg = refusal(() => load(["--config-file", file]));
    expect(tokenMsg).toStartWith("auth.token must be text");
    expect(tokenMsg).not.toContain("123456789");
  });

  test("in the file, text settings refuse other types, naming the key", () => {
    for (const key of ["data.dir", "recording.dir", "flows.dir", "http.host", "grid.url", "store.url"]) {
      const [section, field] = key.split(".");
      const msg = refusal(() => load(["--config-file", yamlFile(`${section}:\n  ${field}: 1\n`)]));
      expect(msg).toStartWith(`${key} `);
      expect(msg).toContain("the config file");
    }
    expect(refusal(() => load(["--config-file", yamlFile("data:\n  dir: [a, b]\n")]))).toStartWith(
      "data.dir ",
    );
  });

  test("in the file, numbers and booleans may be native or quoted, never fractional", () => {
    const file = yamlFile("recording:\n  wait: '90'\n  poll: 300\n  enabled: true\ndata:\n  dir: /d\n");
    const { config } = load(["--config-file", file]);
    expect(config.recording).toMatchObject({ wait: 90, poll: 300, enabled: true });
    expect(refusal(() => load(["--config-file", yamlFile("recording:\n  wait: 90.5\n")]))).toStartWith(
      "recording.wait ",
    );
    expect(refusal(() => load(["--config-file", yamlFile("recording:\n  enabled: 1\n")]))).toStartWith(
      "recording.enabled ",
    );
    expect(refusal(() => load(["--config-file", yamlFile("secrets:\n  dirs: [/a, 3]\n")]))).toStartWith(
      "secrets.dirs ",
    );
  });
});

describe("the config file", () => {
  test("an unknown key inside a known section is refused, naming it and the known ones", () => {
    const msg = refusal(() => load(["--config-file", yamlFile("data:\n  dri: /d\n")]));
    expect(msg).toContain("data.dri");
    expect(msg).toContain("data takes dir");
  });

  test("an unknown section is refused, listing the sections", () => {
    const msg = refusal(() => load(["--config-file", yamlFile("oidc:\n  issuer: x\n")]));
    expect(msg).toContain("oidc");
    expect(msg).toContain("grid, auth, http");
  });

  test("a section that is not a mapping is refused", () => {
    expect(refusal(() => load(["--config-file", yamlFile("data: /d\n")]))).toContain(
      "data in the config file",
    );
  });

  test("an empty file is no settings; a file that is not a mapping is refused", () => {
    expect(load(["--config-file", yamlFile("")]).config).toEqual(defaultConfig());
    expect(refusal(() => load(["--config-file", yamlFile("- a\n- b\n")]))).toContain("must be a mapping");
  });

  test("a missing or unreadable file is refused, naming the path", () => {
    const missing = join(dir, "nope.yaml");
    expect(refusal(() => load(["--config-file", missing]))).toBe(
      `the config file ${missing} does not exist: give --config-file a readable YAML file`,
    );
    expect(refusal(() => load(["--config-file", dir]))).toContain("is a folder");
  });

  test("invalid YAML is refused with its line, never quoting the file", () => {
    // The parser's own message quotes the offending line; here that line holds the token.
    const file = yamlFile("grid:\n  url: http://127.0.0.1:4444\nauth:\n  token: s3cr3t-t0ken: value: x\n");
    const msg = refusal(() => load(["--config-file", file]));
    expect(msg).toStartWith(`the config file ${file} is not valid YAML`);
    expect(msg).toContain("line 4");
    expect(msg).not.toContain("s3cr3t");
    expect(refusal(() => load(["--config-file", yamlFile("a: 1\na: 2\n")]))).toContain("not valid YAML");
  });
});

describe("the command line", () => {
  test("--stdio, --workspace and --config-file are read", () => {
    const { cli } = load(["--stdio", "--workspace", "deskagent"]);
    expect(cli).toEqual({
      help: false,
      version: false,
      stdio: true,
      workspace: "deskagent",
      configFile: null,
    });
    expect(load(["--workspace=bot"]).cli.workspace).toBe("bot");
  });

  test("a bad workspace name is refused", () => {
    const msg = refusal(() => load(["--stdio", "--workspace", "../etc"]));
    expect(msg).toContain("--workspace ../etc");
    expect(msg).toContain("letters, digits");
  });

  test("an unknown flag is refused, naming it", () => {
    expect(refusal(() => load(["--flow-data-dir", "/x"]))).toBe(
      "unknown flag --flow-data-dir: see --help for the flags",
    );
    expect(refusal(() => load(["--secrets-entries", "{}"]))).toContain("--secrets-entries");
    expect(refusal(() => load(["-x"]))).toContain("-x");
    expect(refusal(() => load(["serve"]))).toContain("serve");
  });

  test("a flag without its value is refused", () => {
    expect(refusal(() => load(["--data-dir"]))).toBe("--data-dir needs a value");
    expect(refusal(() => load(["--grid-url", "--stdio"]))).toBe("--grid-url needs a value");
    expect(refusal(() => load(["--stdio=yes"]))).toBe("--stdio takes no value");
    expect(refusal(() => load(["--config-file", " "]))).toContain("--config-file needs");
  });

  test("--help and -h win over everything else on the line and in the environment", () => {
    expect(load(["--help"]).cli.help).toBe(true);
    const loaded = load(["--bogus", "-h"], { RECORDING_WAIT: "1", FLOW_DATA_DIR: "/x" });
    expect(loaded.cli.help).toBe(true);
    expect(loaded.config).toEqual(defaultConfig());
  });

  test("--version and -v stop the load before any setting is read, past any other mistake", () => {
    for (const argv of [
      ["--version"],
      ["-v"],
      ["--bogus", "--version"],
      ["--version", "--data-dir"],
      ["--stdio", "-v"],
    ]) {
      const loaded = load(argv, { RECORDING_WAIT: "1", FLOW_DATA_DIR: "/x" });
      expect(loaded.cli.version, argv.join(" ")).toBe(true);
      expect(loaded.config).toEqual(defaultConfig());
    }
    // --help still wins: it says --version is there.
    expect(load(["--version", "--help"]).cli.help).toBe(true);
    expect(refusal(() => load(["--version=1"]))).toBe("--version takes no value");
  });

  test("the server prints its version and exits 0; --help names --version and the rekey command", async () => {
    const run = async (args: string[]) => {
      const proc = Bun.spawn([process.execPath, "src/main.ts", ...args], {
        cwd: join(import.meta.dir, "../../.."),
        env: { PATH: process.env.PATH ?? "" },
        stdout: "pipe",
      });
      return { out: await new Response(proc.stdout).text(), code: await proc.exited };
    };
    const [version, help, rekeyHelp] = await Promise.all([
      run(["--version"]),
      run(["--help"]),
      run(["rekey", "--help"]),
    ]);
    expect(version).toEqual({ out: `selenium-flow ${pkg.version}\n`, code: 0 });
    expect(help.out).toMatch(/^ {2}-v, --version {9}Print the version and exit\.$/m);
    expect(help.out).toMatch(
      /^ {2}selenium-flow rekey --from OLD_KEY \[flags\] +re-seal every record's saved site data/m,
    );
    expect(rekeyHelp).toEqual(help);
  }, 30_000);

  test("--help lists every setting with its env name, flag, default and description", () => {
    const text = helpText();
    for (const flag of [
      "--help",
      "-h",
      "--version",
      "-v",
      "--stdio",
      "--workspace",
      "--config-file",
      "--port",
      "rekey --from",
    ])
      expect(text).toContain(flag);
    for (const s of SETTINGS) {
      const line = text.split("\n").find((l) => l.trimStart().startsWith(`${s.key}  `));
      expect(line, s.key).toBeDefined();
      if (s.env) expect(line).toContain(s.env);
      for (const f of s.flags) expect(line).toContain(`--${f}`);
      expect(text).toContain(s.description);
    }
    expect(text).toContain("default http://127.0.0.1:4444");
    expect(text).toMatch(/http\.port .*env PORT.*default 8766/);
    expect(text).toMatch(/session\.ttl .*default 86400/);
    expect(text).toMatch(/recording\.wait .*default 600/);
    expect(text).toMatch(/log\.level .*default info/);
  });
});

describe("the retired FLOW_DATA_DIR", () => {
  test("in the environment, in any case, it stops the load with the exact words", () => {
    expect(refusal(() => load([], { FLOW_DATA_DIR: "/data/flows" }))).toBe(RETIRED);
    expect(refusal(() => load([], { flow_data_dir: "/data/flows" }))).toBe(RETIRED);
    expect(refusal(() => load([], { Flow_Data_Dir: "x", DATA_DIR: "/d" }))).toBe(RETIRED);
  });

  test("blank, it is not a setting", () => {
    expect(load([], { FLOW_DATA_DIR: "" }).config).toEqual(defaultConfig());
    expect(load([], { FLOW_DATA_DIR: "  " }).config).toEqual(defaultConfig());
  });

  test("a top-level flow key in the file stops the load with the exact words", () => {
    expect(refusal(() => load(["--config-file", yamlFile("flow:\n  data_dir: /data/flows\n")]))).toBe(
      RETIRED,
    );
    expect(refusal(() => load(["--config-file", yamlFile("data:\n  dir: /d\nflow:\n")]))).toBe(RETIRED);
  });
});

describe("recording", () => {
  const NEEDS = "recording.enabled needs data.dir: a recording is filed into its session";

  test("recording.enabled without data.dir is refused with the exact words, in any layer", () => {
    expect(refusal(() => load([], { RECORDING_ENABLED: "true" }))).toBe(NEEDS);
    expect(refusal(() => load(["--recording-enabled"]))).toBe(NEEDS);
    expect(refusal(() => load(["--config-file", yamlFile("recording:\n  enabled: true\n")]))).toBe(NEEDS);
    expect(load([], { RECORDING_ENABLED: "true", DATA_DIR: "/d" }).config.recording.enabled).toBe(true);
  });

  test("configProblem checks configs built in code", () => {
    const c = defaultConfig();
    expect(configProblem(c)).toBeNull();
    c.recording.enabled = true;
    expect(configProblem(c)).toBe(NEEDS);
    c.data.dir = "  ";
    expect(configProblem(c)).toBe(NEEDS);
    c.data.dir = "/d";
    expect(configProblem(c)).toBeNull();
  });

  test("recordingDir: recording.dir, else data.dir/recordings, else none", () => {
    const c = defaultConfig();
    expect(recordingDir(c)).toBeNull();
    c.data.dir = "/d";
    expect(recordingDir(c)).toBe("/d/recordings");
    c.recording.dir = "/elsewhere";
    expect(recordingDir(c)).toBe("/elsewhere");
    c.data.dir = null;
    expect(recordingDir(c)).toBe("/elsewhere");
    expect(recordingDir(load([], { DATA_DIR: "/srv/data" }).config)).toBe("/srv/data/recordings");
  });
});

describe("serving beyond loopback", () => {
  test("a non-loopback http.host without auth.token is refused", () => {
    expect(refusal(() => load([], { HTTP_HOST: "0.0.0.0" }))).toBe(
      "http.host 0.0.0.0 is not loopback: set auth.token (AUTH_TOKEN) before serving on it",
    );
    expect(refusal(() => load(["--http-host", "192.0.2.10"]))).toContain(
      "http.host 192.0.2.10 is not loopback",
    );
    expect(refusal(() => load(["--http-host", "::"]))).toContain("is not loopback");
    expect(refusal(() => load(["--http-host", "app.example.test"]))).toContain("is not loopback");
  });

  test("with a token, or over stdio, it is allowed", () => {
    expect(load([], { HTTP_HOST: "0.0.0.0", AUTH_TOKEN: "t" }).config.http.host).toBe("0.0.0.0");
    expect(load(["--stdio"], { HTTP_HOST: "0.0.0.0" }).cli.stdio).toBe(true);
  });

  test("loopback addresses need no token", () => {
    for (const host of [
      "127.0.0.1",
      "127.0.0.2",
      "127.255.255.254",
      "::1",
      "[::1]",
      "localhost",
      "LOCALHOST",
    ]) {
      expect(load([], { HTTP_HOST: host }).config.http.host).toBe(host);
    }
    expect(refusal(() => load([], { HTTP_HOST: "128.0.0.1" }))).toContain("is not loopback");
  });
});

describe("secrets entries", () => {
  const yaml = [
    "secrets:",
    "  entries:",
    "    github:",
    "      description: The bot's GitHub account",
    "      allowed_urls: [github.example.test]",
    "      keys:",
    "        username: {value: octo-bot}",
    "        password: {value: ' pa55 w0rd '}",
    "    pin:",
    "      keys:",
    "        code: {value: '0123'}",
    "",
  ].join("\n");

  test("come from the config file, values kept exactly", () => {
    const loaded = load(["--config-file", yamlFile(yaml)]);
    expect(loaded.config.secrets.entries).toEqual({
      github: {
        description: "The bot's GitHub account",
        allowed_urls: ["github.example.test"],
        keys: { username: { value: "octo-bot" }, password: { value: " pa55 w0rd " } },
      },
      pin: { keys: { code: { value: "0123" } } },
    });
    expect(loaded.sources["secrets.entries"]).toBe("file");
  });

  test("a malformed entry is refused by its path, never quoting a value", () => {
    const bad: Array<[string, string]> = [
      [
        "secrets:\n  entries:\n    pin:\n      keys:\n        code: {value: 98765}\n",
        "secrets.entries.pin.keys.code.value",
      ],
      ["secrets:\n  entries:\n    pin:\n      keys:\n        code: 98765\n", "secrets.entries.pin.keys.code"],
      ["secrets:\n  entries:\n    pin:\n      keyz: {code: {value: '98765'}}\n", "secrets.entries.pin.keyz"],
      ["secrets:\n  entries:\n    pin:\n      description: d\n", "secrets.entries.pin.keys"],
      [
        "secrets:\n  entries:\n    pin:\n      allowed_urls: 3\n      keys: {c: {value: '98765'}}\n",
        "allowed_urls",
      ],
      ["secrets:\n  entries: [a]\n", "secrets.entries"],
    ];
    for (const [text, path] of bad) {
      const msg = refusal(() => load(["--config-file", yamlFile(text)]));
      expect(msg).toContain(path);
      expect(msg).not.toContain("98765");
    }
  });
});

describe("redactedSettings", () => {
  const file = yamlFile(
    "secrets:\n  entries:\n    github:\n      allowed_urls: [github.example.test]\n      keys:\n        password: {value: hunter2-secret}\n",
  );
  const loaded: Loaded = load(["--config-file", file, "--data-dir", "/d"], {
    AUTH_TOKEN: "tok-abcdef-123",
    GRID_URL: "http://gridadmin:gr1dpass@grid.example.test:4444",
    STORE_URL: "redis://:redispass@cache.example.test:6379/0",
    HTTP_HOST: "0.0.0.0",
  });
  const view = redactedSettings(loaded);
  const json = JSON.stringify(view);
  const byKey = Object.fromEntries(view.map((row) => [row.key, row]));

  test("lists every setting with its value, source and description", () => {
    expect(view.map((r) => r.key)).toEqual(SETTINGS.map((s) => s.key));
    for (const s of SETTINGS) expect(byKey[s.key]!.description).toBe(s.description);
    expect(byKey["data.dir"]).toMatchObject({ value: "/d", source: "flag" });
    expect(byKey["http.host"]).toMatchObject({ value: "0.0.0.0", source: "env" });
    expect(byKey["session.ttl"]).toMatchObject({ value: 86400, source: "default" });
  });

  test("masks the token and never shows a secret value", () => {
    expect(byKey["auth.token"]).toMatchObject({ value: "•••", source: "env" });
    expect(json).not.toContain("tok-abcdef-123");
    expect(json).not.toContain("hunter2-secret");
    expect(byKey["secrets.entries"]).toMatchObject({
      source: "file",
      value: { github: { description: "", allowed_urls: ["github.example.test"], keys: ["password"] } },
    });
    expect(redactedSettings(load()).find((r) => r.key === "auth.token")!.value).toBeNull();
  });

  test("strips credentials from grid.url and store.url", () => {
    expect(json).not.toContain("gr1dpass");
    expect(json).not.toContain("gridadmin");
    expect(json).not.toContain("redispass");
    expect(json).not.toMatch(/\/\/[^/"]*@/);
    expect(byKey["grid.url"]!.value).toBe("http://grid.example.test:4444/");
    expect(byKey["store.url"]!.value).toBe("redis://cache.example.test:6379/0");
    expect(redactedSettings(load()).find((r) => r.key === "grid.url")!.value).toBe("http://127.0.0.1:4444");
    // The loaded config itself keeps what it needs to connect.
    expect(loaded.config.grid.url).toContain("gridadmin:gr1dpass@");
  });

  test("does not hand out the config's own arrays", () => {
    const l = load([], { SECRETS_DIRS: "/a" });
    (redactedSettings(l).find((r) => r.key === "secrets.dirs")!.value as string[]).push("/b");
    expect(l.config.secrets.dirs).toEqual(["/a"]);
  });
});
