// docs/deploy cannot run here (no Docker engine, no cluster), so it is checked the way the tools
// would read it: the compose file against the Compose Specification's JSON schema, each Kubernetes
// manifest against the Kubernetes API's own schemas (kubernetes-models, and its types for fields
// the API does not know, as kubectl's strict field validation would refuse them), and the parts
// that name each other (services, ports, volumes, settings) against each other.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Ajv from "ajv";
import draft07 from "ajv/dist/refs/json-schema-draft-07.json";
import ts from "typescript";
import { parse, parseAllDocuments } from "yaml";
import { SETTINGS } from "../../../src/config/schema.ts";

const ROOT = join(import.meta.dir, "../../..");
const DEPLOY = join(ROOT, "docs/deploy");
const read = (path: string) => readFileSync(join(DEPLOY, path), "utf8");

// Parsed YAML, walked by the checks below.
type Doc = Record<string, any>;

/** Every environment name the settings table gives (src/config/schema.ts; README, Configuration): built ones and planned ones. */
const SETTING_ENVS = new Set([
  ...SETTINGS.flatMap((s) => (s.env ? [s.env] : [])),
  // Named for deployments but not read by this build yet; the server ignores unknown names until it does.
  "HTTP_ALLOWED_HOSTS",
  "GRID_COMMAND_TIMEOUT",
  "MCP_MAX_SESSIONS",
  "MCP_SESSION_IDLE",
  "SITE_DATA_TABS",
  "TIMELINE_KEEP",
  "TIMELINE_SCREENS",
]);

// ---- the compose file -------------------------------------------------------------------------

const composeSchema = JSON.parse(
  readFileSync(
    join(dirname(Bun.resolveSync("dclint/package.json", ROOT)), "schemas/compose.schema.json"),
    "utf8",
  ),
);
const ajv = new Ajv({ allErrors: true, strict: false });
// The schema names draft-07 by its https address; the meta-schema is the same document.
ajv.addMetaSchema({ ...draft07, $id: composeSchema.$schema });
const validateCompose = ajv.compile(composeSchema);

/** The Compose Specification's verdict: the schema's errors, as path and message. */
function composeErrors(doc: unknown): string[] {
  if (validateCompose(doc)) return [];
  return (validateCompose.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

/** Compose reads YAML merge keys (`<<: *anchor`). */
const parseCompose = (text: string): Doc => parse(text, { merge: true });

// ---- the Kubernetes manifests -----------------------------------------------------------------

/** `apps/v1` → `apps/v1`, `v1` → `v1`: kubernetes-models' folder for an apiVersion. */
const modelPath = (apiVersion: string, kind: string) => `kubernetes-models/${apiVersion}/${kind}`;

function manifests(): Array<{ file: string; doc: Doc }> {
  const dir = join(DEPLOY, "kubernetes");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), "utf8")).map((d) => {
        expect(d.errors).toEqual([]);
        return { file, doc: d.toJS() as Doc };
      }),
    );
}

/** The API schema's verdict (types, required fields, enums, formats): "" when valid. */
async function apiSchemaError(doc: Doc): Promise<string> {
  const mod = (await import(modelPath(doc.apiVersion, doc.kind))) as Record<
    string,
    new (
      d: unknown,
    ) => { validate(): void }
  >;
  const Model = mod[doc.kind];
  if (!Model) return `no ${doc.kind} in ${doc.apiVersion}`;
  try {
    new Model(doc).validate();
    return "";
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Fields the API does not know (a typo such as `replica:` passes the schemas, which allow any
 * extra field): each manifest typed as its kind's interface, so TypeScript's excess-property
 * check names every unknown field. One diagnostic line per problem.
 */
function unknownFieldErrors(docs: Doc[]): string[] {
  const file = join(ROOT, "test/unit/__deploy-manifests__.ts");
  const lines = docs.map(
    (d, i) =>
      `import type { I${d.kind} as T${i} } from ${JSON.stringify(modelPath(d.apiVersion, d.kind))};\n` +
      `export const m${i}: T${i} = ${JSON.stringify(d, null, 1)};`,
  );
  const source = lines.join("\n");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name === file ? ts.createSourceFile(name, source, lang) : getSourceFile(name, lang, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const owner = source
      .slice(0, d.start ?? 0)
      .match(/export const m(\d+)/g)
      ?.pop()
      ?.slice(14);
    const doc = owner === undefined ? undefined : docs[Number(owner)];
    const where = doc ? `${doc.kind}/${doc.metadata?.name}` : `line ${at}`;
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
  });
}

const byKind = (docs: Doc[], kind: string, name: string): Doc => {
  const found = docs.find((d) => d.kind === kind && d.metadata?.name === name);
  expect(found, `${kind}/${name}`).toBeDefined();
  return found as Doc;
};

const hostOf = (url: string) => new URL(url).hostname;

// ---- the checks -------------------------------------------------------------------------------

describe("docs/deploy/compose.yaml", () => {
  const compose = parseCompose(read("compose.yaml"));
  const services = compose.services as Record<string, Doc>;

  test("is valid under the Compose Specification's schema", () => {
    expect(composeErrors(compose)).toEqual([]);
  });

  test("the schema check refuses a broken compose file", () => {
    const broken = (edit: (c: Doc) => void) => {
      const c = structuredClone(compose);
      edit(c);
      return composeErrors(c);
    };
    expect(broken((c) => (c.services.redis.restart_policy = "always")).join()).toContain(
      "must NOT have additional properties",
    );
    expect(
      broken((c) => (c.services["selenium-flow"].depends_on.redis.condition = "healthy")).join(),
    ).toContain(
      "/services/selenium-flow/depends_on/redis/condition must be equal to one of the allowed values",
    );
    expect(broken((c) => (c.services.proxy.ports = "8080:80")).join()).toContain("must be array");
    expect(broken((c) => (c.services["bad name!"] = { image: "x" })).length).toBeGreaterThan(0);
  });

  test("two selenium-flow replicas share Redis, the hub, one data volume and the recordings inbox", () => {
    const flow = services["selenium-flow"] as Doc;
    expect(flow.deploy.replicas).toBeGreaterThanOrEqual(2);
    const env = flow.environment as Record<string, string>;
    for (const name of Object.keys(env)) expect(SETTING_ENVS, name).toContain(name);
    expect(new URL(env.STORE_URL!).protocol).toBe("redis:");
    expect(services[hostOf(env.STORE_URL!)]?.image).toStartWith("redis:");
    expect(services[hostOf(env.GRID_URL!)]?.image).toStartWith("selenium/hub:");
    // Compose refuses to start without a token.
    expect(env.AUTH_TOKEN).toBe(["$", "{AUTH_TOKEN:?set AUTH_TOKEN}"].join(""));
    expect(env.HTTP_HOST).toBe("0.0.0.0");
    expect(env.HTTP_ALLOWED_HOSTS).toBeTruthy();
    const mounts = Object.fromEntries((flow.volumes as string[]).map((v) => v.split(":").reverse()));
    expect(mounts[env.DATA_DIR!]).toBe("flow-data");
    expect(mounts[env.RECORDING_DIR!]).toBe("videos");
    for (const s of Object.values(services))
      for (const v of (s.volumes ?? []) as string[]) {
        const source = v.split(":")[0]!;
        if (!source.startsWith(".")) expect(Object.keys(compose.volumes), source).toContain(source);
      }
    for (const [name, s] of Object.entries(services))
      for (const dep of Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {}))
        expect(Object.keys(services), `${name} depends on ${dep}`).toContain(dep);
  });

  test("each node registers with the hub, one browser with managed downloads, filmed by its own recorder", () => {
    const nodes = Object.entries(services).filter(([, s]) => String(s.image).startsWith("selenium/node-"));
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    for (const [name, node] of nodes) {
      expect(services[node.environment.SE_EVENT_BUS_HOST]?.image).toStartWith("selenium/hub:");
      expect(node.environment.SE_NODE_MAX_SESSIONS).toBe("1");
      expect(node.environment.SE_NODE_ENABLE_MANAGED_DOWNLOADS).toBe("true");
      const recorders = Object.values(services).filter((s) => s.environment?.DISPLAY_CONTAINER_NAME === name);
      expect(recorders.map((r) => String(r.image).split(":")[0])).toEqual(["selenium/video"]);
      expect(recorders[0]!.environment.SE_VIDEO_FILE_NAME).toBe("auto");
      expect(recorders[0]!.volumes).toContain("videos:/videos");
    }
  });

  test("nginx forwards to the replicas' port with the public Host, round robin (no sticky sessions)", () => {
    const conf = read("nginx.conf");
    const flow = services["selenium-flow"] as Doc;
    const server = conf.match(/^\s*server\s+([\w.-]+):(\d+)\s+resolve;/m);
    expect(server?.[1]).toBe("selenium-flow");
    expect(server?.[2]).toBe(flow.environment.PORT);
    // Any server serves any request: no hash, no sticky cookie, no ip_hash in force.
    expect(conf).not.toMatch(/^\s*(hash|ip_hash|sticky)\b/m);
    expect(conf).toMatch(/^\s*proxy_set_header Host \$host;/m);
    expect(conf).toMatch(/^\s*proxy_buffering off;/m);
    expect(conf).toMatch(/^\s*proxy_pass http:\/\/selenium_flow;/m);
    const mount = (services.proxy!.volumes as string[]).find((v) => v.startsWith("./nginx.conf:"));
    expect(mount).toBe("./nginx.conf:/etc/nginx/conf.d/default.conf:ro");
  });
});

/**
 * What a compose file must hold for its server to start and stay up (issue 43): the operator sets
 * AUTH_TOKEN and STORE_KEY and is told how; every service restarts; the server waits for its Redis
 * and Grid to pass their healthchecks; Redis appends every write, on a volume of its own. The
 * problems found, one line each.
 */
function startProblems(compose: Doc, header: string, dockerfile: string): string[] {
  const problems: string[] = [];
  const services = compose.services as Record<string, Doc>;
  const flow = services["selenium-flow"] as Doc;
  const env = (flow.environment ?? {}) as Record<string, string>;
  for (const name of Object.keys(env)) if (!SETTING_ENVS.has(name)) problems.push(`${name} is no setting`);
  if (!/^\$\{AUTH_TOKEN:\?set AUTH_TOKEN[^}]*\}$/.test(env.AUTH_TOKEN ?? ""))
    problems.push("AUTH_TOKEN is not required with :?set AUTH_TOKEN");
  if (!/^\$\{STORE_KEY:\?set STORE_KEY \(at least 32 characters[^}]*\}$/.test(env.STORE_KEY ?? ""))
    problems.push("STORE_KEY is not required with :?set STORE_KEY (at least 32 characters");
  if (!header.includes("AUTH_TOKEN=$(openssl rand -base64 24) STORE_KEY=$(openssl rand -base64 32)"))
    problems.push("the header does not give the command with both");
  for (const [name, s] of Object.entries(services)) {
    // A one-shot must complete, not restart.
    if (name !== "volumes-init" && s.restart !== "unless-stopped") problems.push(`${name} does not restart`);
  }
  for (const url of [env.STORE_URL, env.GRID_URL]) {
    const dep = url ? hostOf(url) : "(none)";
    if (flow.depends_on?.[dep]?.condition !== "service_healthy")
      problems.push(`selenium-flow does not wait for ${dep} to be healthy`);
    if (!services[dep]?.healthcheck?.test?.length) problems.push(`${dep} has no healthcheck`);
  }
  // A service waiting on the server's health has it from the image's HEALTHCHECK.
  for (const s of Object.values(services))
    if (s.depends_on?.["selenium-flow"] && !/^HEALTHCHECK /m.test(dockerfile))
      problems.push("a service waits for selenium-flow's health, and the image has no HEALTHCHECK");
  const redis = services[env.STORE_URL ? hostOf(env.STORE_URL) : "redis"];
  if (JSON.stringify(redis?.command) !== JSON.stringify(["redis-server", "--appendonly", "yes"]))
    problems.push("redis does not append (redis-server --appendonly yes)");
  if (
    !redis?.volumes?.includes("redis-data:/data") ||
    !Object.keys(compose.volumes ?? {}).includes("redis-data")
  )
    problems.push("redis has no volume of its own");
  return problems;
}

describe("both compose files: the server starts once Redis and the Grid answer, and comes back", () => {
  const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
  const load = (file: string) => {
    const text = readFileSync(join(ROOT, file), "utf8");
    const header = text
      .split("\n")
      .filter((l) => l.startsWith("#"))
      .join("\n");
    return { compose: parseCompose(text), header };
  };

  for (const file of ["docker-compose.yaml", "docs/deploy/compose.yaml"]) {
    test(`${file}: valid under the Compose Specification's schema, and nothing stops its server starting`, () => {
      const { compose, header } = load(file);
      expect(composeErrors(compose)).toEqual([]);
      expect(startProblems(compose, header, dockerfile)).toEqual([]);
    });
  }

  test("the check names each thing a compose file lacks", () => {
    const { compose, header } = load("docker-compose.yaml");
    const flow = compose.services["selenium-flow"];
    delete flow.environment.STORE_KEY;
    flow.depends_on = ["grid", "redis"];
    delete compose.services.redis.restart;
    delete compose.services.redis.healthcheck;
    compose.services.redis.command = ["redis-server"];
    expect(startProblems(compose, header.replace("STORE_KEY=", ""), dockerfile)).toEqual([
      "STORE_KEY is not required with :?set STORE_KEY (at least 32 characters",
      "the header does not give the command with both",
      "redis does not restart",
      "selenium-flow does not wait for redis to be healthy",
      "redis has no healthcheck",
      "selenium-flow does not wait for grid to be healthy",
      "redis does not append (redis-server --appendonly yes)",
    ]);
    const docs = load("docs/deploy/compose.yaml");
    expect(startProblems(docs.compose, docs.header, dockerfile.replace(/^HEALTHCHECK /m, "# "))).toEqual([
      "a service waits for selenium-flow's health, and the image has no HEALTHCHECK",
    ]);
  });
});

describe("docs/deploy/kubernetes", () => {
  const all = manifests();
  const docs = all.map((m) => m.doc);

  test("every manifest is valid under the Kubernetes API's schema", async () => {
    expect(docs.map((d) => `${d.apiVersion} ${d.kind}`).sort()).toEqual([
      "apps/v1 Deployment",
      "apps/v1 StatefulSet",
      "networking.k8s.io/v1 Ingress",
      "policy/v1 PodDisruptionBudget",
      "v1 ConfigMap",
      "v1 PersistentVolumeClaim",
      "v1 PersistentVolumeClaim",
      "v1 Service",
      "v1 Service",
    ]);
    const verdicts = await Promise.all(
      all.map(async ({ file, doc }) => [
        `${file} ${doc.kind}/${doc.metadata?.name}`,
        await apiSchemaError(doc),
      ]),
    );
    expect(verdicts.filter(([, e]) => e)).toEqual([]);
  });

  test("no manifest has a field the API does not know", () => {
    expect(unknownFieldErrors(docs)).toEqual([]);
  }, 30_000);

  test("the checks refuse a broken manifest", async () => {
    const deployment = byKind(docs, "Deployment", "selenium-flow");
    const edit = (change: (d: Doc) => void) => {
      const d = structuredClone(deployment);
      change(d);
      return d;
    };
    expect(await apiSchemaError(edit((d) => (d.spec.replicas = "two")))).toContain(
      "replicas must be integer",
    );
    expect(await apiSchemaError(edit((d) => delete d.spec.selector))).toContain(
      "spec must have required property selector",
    );
    expect(await apiSchemaError(edit((d) => (d.spec.template.spec.containers = {})))).toContain(
      "must be array",
    );
    // TypeScript names the first unknown field of a manifest; each typo on its own.
    const typo = (change: (d: Doc) => void) => unknownFieldErrors([edit(change)]).join("\n");
    expect(typo((d) => (d.spec.replica = 2))).toContain(`'"replica"' does not exist in type`);
    expect(typo((d) => (d.spec.template.spec.containers[0].readinessProbe.httpGet.pth = "/"))).toContain(
      `'"pth"' does not exist in type 'IHTTPGetAction'`,
    );
  }, 30_000);

  test("the Deployment runs 2+ replicas, ready on /healthz, with every setting from the ConfigMap and the token from a Secret", () => {
    const d = byKind(docs, "Deployment", "selenium-flow");
    expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
    const pod = d.spec.template;
    expect(pod.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
    const [c] = pod.spec.containers as Doc[];
    const port = (c!.ports as Doc[]).find((p) => p.name === "http")!;
    expect(c!.readinessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    const config = byKind(docs, "ConfigMap", c!.envFrom[0].configMapRef.name);
    expect(Number(config.data.PORT)).toBe(port.containerPort);
    for (const name of [...Object.keys(config.data), ...c!.env.map((e: Doc) => e.name)])
      expect(SETTING_ENVS, name).toContain(name);
    expect(c!.env).toEqual([
      { name: "AUTH_TOKEN", valueFrom: { secretKeyRef: { name: "selenium-flow-auth", key: "token" } } },
      // Redis needs the seal's key, the same on every server (README, "Staying signed in: site data").
      { name: "STORE_KEY", valueFrom: { secretKeyRef: { name: "selenium-flow-auth", key: "store-key" } } },
    ]);
    // The Secret is made by hand (no token in the repository): the file says how.
    expect(read("kubernetes/selenium-flow.yaml")).toContain(
      "create secret generic selenium-flow-auth \\\n#     --from-literal=token=",
    );
    const mounts = Object.fromEntries((c!.volumeMounts as Doc[]).map((m) => [m.mountPath, m.name]));
    const claims = Object.fromEntries(
      (pod.spec.volumes as Doc[]).map((v) => [v.name, v.persistentVolumeClaim?.claimName ?? "emptyDir"]),
    );
    expect(claims[mounts[config.data.DATA_DIR]]).toBe("selenium-flow-data");
    expect(claims[mounts[config.data.RECORDING_DIR]]).toBe("selenium-flow-recordings");
    for (const claim of ["selenium-flow-data", "selenium-flow-recordings"])
      expect(byKind(docs, "PersistentVolumeClaim", claim).spec.accessModes).toEqual(["ReadWriteMany"]);
    expect(new URL(config.data.STORE_URL).protocol).toBe("redis:");
    expect(byKind(docs, "Service", hostOf(config.data.STORE_URL)).spec.ports[0].port).toBe(6379);
  });

  test("Redis appends every write to its file, on a claim of its own; every Secret key is made by the documented command", () => {
    const redis = byKind(docs, "StatefulSet", "redis");
    const [c] = redis.spec.template.spec.containers as Doc[];
    expect(c!.args).toEqual(["--appendonly", "yes"]);
    const claim = (redis.spec.volumeClaimTemplates as Doc[])[0]!.metadata.name;
    expect(c!.volumeMounts).toEqual([{ name: claim, mountPath: "/data" }]);
    // Every key the pods read from the Secret is made by the kubectl line in the manifest's header
    // and in docs/deploy/README.md (a missing key stops the pod in CreateContainerConfigError).
    const keys = docs.flatMap(
      (d) => JSON.stringify(d).match(/"secretKeyRef":\{"name":"selenium-flow-auth","key":"[^"]+"\}/g) ?? [],
    );
    const wanted = [...new Set(keys.map((k) => /"key":"([^"]+)"/.exec(k)![1]!))].sort();
    expect(wanted).toEqual(["store-key", "token"]);
    for (const text of [read("kubernetes/selenium-flow.yaml"), read("README.md")]) {
      const command = /create secret generic selenium-flow-auth((?:[^\n]*\\\n)*[^\n]*)/.exec(text)?.[1] ?? "";
      const made = [...command.matchAll(/--from-literal=([\w-]+)=/g)].map((m) => m[1]).sort();
      expect(made).toEqual(wanted);
    }
  });

  test("the Service and the Ingress reach the pods' http port on the host HTTP_ALLOWED_HOSTS names", () => {
    const d = byKind(docs, "Deployment", "selenium-flow");
    const svc = byKind(docs, "Service", "selenium-flow");
    expect(d.spec.template.metadata.labels).toMatchObject(svc.spec.selector);
    expect(svc.spec.ports[0].targetPort).toBe("http");
    const ing = byKind(docs, "Ingress", "selenium-flow");
    const rule = ing.spec.rules[0];
    const backend = rule.http.paths[0].backend.service;
    expect(backend).toEqual({ name: "selenium-flow", port: { name: svc.spec.ports[0].name } });
    const config = byKind(docs, "ConfigMap", "selenium-flow");
    expect(config.data.HTTP_ALLOWED_HOSTS.split(",")).toContain(rule.host);
    for (const key of Object.keys(ing.metadata.annotations)) {
      expect(key).not.toMatch(/upstream-hash-by|affinity|session-cookie/);
    }
    const pdb = byKind(docs, "PodDisruptionBudget", "selenium-flow");
    expect(d.spec.template.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
    const redis = byKind(docs, "StatefulSet", "redis");
    expect(redis.spec.template.metadata.labels).toMatchObject(byKind(docs, "Service", "redis").spec.selector);
  });

  test("the Grid's Helm values: a hub named as GRID_URL says, managed downloads, recorders writing the inbox", () => {
    const text = read("helm/selenium-grid.values.yaml");
    const values = parse(text) as Doc;
    const config = byKind(docs, "ConfigMap", "selenium-flow");
    // The release named "selenium" serves its hub as selenium-hub (other names prefix it).
    expect(text).toContain("helm install selenium docker-selenium/selenium-grid");
    expect(hostOf(config.data.GRID_URL)).toBe("selenium-hub");
    expect(values.isolateComponents).toBe(false);
    expect(values.global.seleniumGrid.nodeMaxSessions).toBe(1);
    expect(values.ingress.enabled).toBe(false);
    expect(values.chromeNode.replicas).toBeGreaterThanOrEqual(1);
    expect(values.chromeNode.extraEnvironmentVariables).toContainEqual({
      name: "SE_NODE_ENABLE_MANAGED_DOWNLOADS",
      value: "true",
    });
    expect(values.videoRecorder.enabled).toBe(true);
    expect(values.videoRecorder.extraVolumes).toEqual([
      { name: "videos", persistentVolumeClaim: { claimName: "selenium-flow-recordings" } },
    ]);
    expect(values.videoRecorder.targetFolder).toBe("/videos");
  });
});
