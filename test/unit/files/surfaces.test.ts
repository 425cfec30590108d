// Files on every surface without a browser: uris, the root and its folders, entries, keep, the
// admin's clears and deletes, signed links (tampered, expired, leaving their folder), Range, the
// headers by type, resources over MCP, and the boot refusals.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp, buildServices } from "../../../src/app.ts";
import { defaultConfig } from "../../../src/config/schema.ts";
import { ConfigError } from "../../../src/config/sources.ts";
import { LinkSigner, linkKey } from "../../../src/files/links.ts";
import { cspFor, MEDIA_ONLY, NO_SCRIPT, parseRange } from "../../../src/files/serve.ts";
import { RESERVED_IN_FILES } from "../../../src/files/store-folders.ts";
import { FILES_OFF, parseUri, uriOf } from "../../../src/files/uris.ts";
import { unzipOne, zipOne } from "../../../src/grid/zip.ts";
import { Log } from "../../../src/log.ts";
import { type McpClient, mcpClient } from "../../support/mcp.ts";
import { endAll, logLines, startServer, type TestServer, TOKEN } from "../../support/server.ts";

const W = "desktop";
const REC = "rec-20261008-1403.mp4";
const GID = "8f3d6dc2a1b04e6f9c1d2e3f4a5b6c7d";
let server: TestServer;
let mcp: McpClient;

const store = () => server.app.services.files.store!;
const bytes = (n: number) => new Uint8Array(n).map((_, i) => i % 256);
const admin = (method: string, path: string) =>
  fetch(`${server.url}/admin/workspaces/${path}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });

beforeAll(async () => {
  server = await startServer();
  mcp = await mcpClient(server, W);
});
afterAll(async () => {
  await server.close();
});

describe("uris", () => {
  test("a recording's uri, and back; recordings is a reserved name in Files", () => {
    expect(uriOf("recordings", "a.mp4")).toBe("workspace://files/recordings/a.mp4");
    expect(parseUri("workspace://files/recordings/a.mp4")).toEqual({ folder: "recordings", name: "a.mp4" });
    expect(parseUri("workspace://files/a%20(1).txt")).toEqual({ folder: "files", name: "a (1).txt" });
    expect(RESERVED_IN_FILES.has("recordings")).toBe(true);
    for (const bad of [
      "workspace://files/recordings",
      "session://files/a.mp4",
      "workspace://files/x/y/z",
      "workspace://files/..%2Fx",
    ]) {
      expect(() => parseUri(bad)).toThrow();
    }
  });
});

describe("listings", () => {
  test("the root lists Files, screenshots, recordings, downloads in that order with counts", async () => {
    await store().write(W, "recordings", REC, bytes(64));
    const root = (await server.call("GET", "/files", undefined, W)).body;
    expect(root.folders.map((f: any) => f.name)).toEqual(["files", "screenshots", "recordings", "downloads"]);
    const rec = root.folders.find((f: any) => f.name === "recordings");
    expect(rec).toEqual({ name: "recordings", uri: "workspace://files/recordings", count: 1 });
    expect(root.folders.find((f: any) => f.name === "downloads").count).toBe(0);
  });

  test("a recording's entry: video/mp4, not an image, keep_with ready, a signed url", async () => {
    const list = (await server.call("GET", "/files/recordings", undefined, W)).body;
    const entry = list.files[0];
    expect(entry.name).toBe(REC);
    expect(entry.content_type).toBe("video/mp4");
    expect(entry.image).toBe(false);
    expect(entry.size).toBe(64);
    expect(entry.keep_with).toBe(`keep_file("workspace://files/recordings/${REC}")`);
    expect(entry.url.startsWith(`/recordings/${W}/${REC}?expires=`)).toBe(true);
  });

  test("Range on the signed link: 206, Content-Range, the media CSP without sandbox, nosniff", async () => {
    const entry = (await server.call("GET", "/files/recordings", undefined, W)).body.files[0];
    const res = await fetch(`${server.url}${entry.url}`, { headers: { range: "bytes=0-9" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe("bytes 0-9/64");
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("content-security-policy")).toBe(MEDIA_ONLY);
    expect(res.headers.get("content-security-policy")).not.toContain("sandbox");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="${REC}"; filename*=UTF-8''${REC}`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes(10));
    // Read for the workspace, and said so in the log (the name only).
    expect(logLines.some((l) => l.endsWith(`INFO  reading recording ${REC} for ${W}`))).toBe(true);
    // The same signature under the general route names the same file.
    const general = entry.url.replace(`/recordings/${W}/`, `/file/${W}/recordings/`);
    const same = await fetch(`${server.url}${general}`, { headers: { range: "bytes=0-9" } });
    expect(same.status).toBe(206);
    expect(new Uint8Array(await same.arrayBuffer())).toEqual(bytes(10));
  });

  test("Range bytes=10-19 on 2560 bytes, a suffix range, and one past the end", async () => {
    const f = await store().write(W, "files", "big.bin", bytes(2560));
    const url = server.app.services.files.links.sign(W, "files", f.name);
    let res = await fetch(`${server.url}${url}`, { headers: { range: "bytes=10-19" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe("bytes 10-19/2560");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes(20).slice(10));
    res = await fetch(`${server.url}${url}`, { headers: { range: "bytes=-5" } });
    expect(res.headers.get("content-range")).toBe("bytes 2555-2559/2560");
    res = await fetch(`${server.url}${url}`, { headers: { range: "bytes=9999-" } });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe("bytes */2560");
    res = await fetch(`${server.url}${url}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe("sandbox");
    expect(res.headers.get("content-disposition")).toStartWith("attachment;");
    expect((await res.arrayBuffer()).byteLength).toBe(2560);
  });

  test("a tampered, an expired, or an unsigned link is refused, and needs no token either way", async () => {
    const entry = (await server.call("GET", "/files/recordings", undefined, W)).body.files[0];
    const tampered = entry.url.replace(/sig=(.)/, (_: string, c: string) => `sig=${c === "A" ? "B" : "A"}`);
    expect((await fetch(`${server.url}${tampered}`)).status).toBe(403);
    const otherFile = entry.url.replace(REC, "rec-20261008-1404.mp4");
    expect((await fetch(`${server.url}${otherFile}`)).status).toBe(403);
    const otherWorkspace = entry.url.replace(`/recordings/${W}/`, "/recordings/laptop/");
    expect((await fetch(`${server.url}${otherWorkspace}`)).status).toBe(403);
    const later = entry.url.replace(/expires=(\d+)/, (_: string, e: string) => `expires=${Number(e) + 1}`);
    expect((await fetch(`${server.url}${later}`)).status).toBe(403);
    expect((await fetch(`${server.url}/recordings/${W}/${REC}`)).status).toBe(403);
    expect((await fetch(`${server.url}/file/${W}/recordings/${REC}`)).status).toBe(403);
    const old = new LinkSigner(linkKey(server.dataDir), 60, () => Date.now() / 1000 - 3600).sign(
      W,
      "recordings",
      REC,
    );
    const res = await fetch(`${server.url}${old}`);
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error).toContain("expired");
  });

  test("a name that tries to leave its folder is refused, signed or not", async () => {
    writeFileSync(join(server.dataDir!, "secret.txt"), "no");
    const signer = server.app.services.files.links;
    for (const name of ["../../../secret.txt", "..", ".link-key", "a/b"]) {
      const url = signer.sign(W, "files", name);
      const res = await fetch(`${server.url}${url}`);
      expect([400, 404]).toContain(res.status);
      expect(await res.text()).not.toContain("no\n");
    }
    const raw = await fetch(
      `${server.url}/file/${W}/files/..%2F..%2F..%2Fsecret.txt?expires=9999999999&sig=x`,
    );
    expect(raw.status).toBe(400);
  });

  test("the link key is made once, 0600, and links survive a restart", () => {
    const path = join(server.dataDir!, ".link-key");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const a = new LinkSigner(linkKey(server.dataDir), 60, () => 1000).sign(W, "files", "a.txt");
    const b = new LinkSigner(linkKey(server.dataDir), 60, () => 1000).sign(W, "files", "a.txt");
    expect(a).toBe(b);
    const noDir = new LinkSigner(linkKey(null), 60, () => 1000).sign(W, "files", "a.txt");
    expect(noDir).not.toBe(a);
  });

  test("headers by type: raster NO_SCRIPT, media MEDIA_ONLY, PDF none, the rest sandbox", () => {
    expect(cspFor("image/png")).toBe(NO_SCRIPT);
    expect(cspFor("video/mp4")).toBe(MEDIA_ONLY);
    expect(cspFor("audio/mpeg")).toBe(MEDIA_ONLY);
    expect(cspFor("application/pdf")).toBeNull();
    expect(cspFor("image/svg+xml")).toBe("sandbox");
    expect(cspFor("text/html")).toBe("sandbox");
    expect(parseRange("bytes=0-1,4-5", 10)).toBe("none");
  });
});

describe("keep, clear, delete", () => {
  test("keep moves a recording into Files under its name; Recordings is empty after", async () => {
    const kept = await server.call("POST", "/files/keep", { uri: `workspace://files/recordings/${REC}` }, W);
    expect(kept.status).toBe(200);
    expect(kept.body.uri).toBe(`workspace://files/${REC}`);
    expect(kept.body.keep_with).toBeNull();
    expect((await server.call("GET", "/files/recordings", undefined, W)).body.files).toEqual([]);
    const names = (await server.call("GET", "/files", undefined, W)).body.files.map((f: any) => f.name);
    expect(names).toContain(REC);
  });

  test("a kept video is served from disk with Range too", async () => {
    const entry = (await server.call("GET", "/files", undefined, W)).body.files.find(
      (f: any) => f.name === REC,
    );
    const res = await fetch(`${server.url}${entry.url}`, { headers: { range: "bytes=0-0" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe("bytes 0-0/64");
  });

  test("keeping again, or something never there, is a 404 that says where to look", async () => {
    const again = await server.call("POST", "/files/keep", { uri: `workspace://files/recordings/${REC}` }, W);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe(
      `no recording called '${REC}': it may be kept already or cleared. workspace://files/recordings lists what there is`,
    );
    const kept = await server.call("POST", "/files/keep", { uri: `workspace://files/${REC}` }, W);
    expect(kept.status).toBe(400);
  });

  test("keeping under a taken name lands as (1): nothing is overwritten", async () => {
    await store().write(W, "recordings", REC, bytes(3));
    const kept = await server.call("POST", "/files/keep", { uri: `workspace://files/recordings/${REC}` }, W);
    expect(kept.body.name).toBe("rec-20261008-1403 (1).mp4");
    expect(kept.body.size).toBe(3);
  });

  test("the admin clears recordings: the count, the note stays, Files is untouched", async () => {
    await store().write(W, "recordings", "rec-20261009-0900.mp4", bytes(8));
    store().writeNote(W, GID, { opened: 1, ended: null, browser: "chrome" });
    const filesBefore = (await store().list(W, "files")).length;
    const res = await admin("DELETE", `${W}/files/recordings`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, key: W, cleared: 1 });
    expect(await store().list(W, "recordings")).toEqual([]);
    expect(store().notes()).toHaveLength(1);
    expect((await store().list(W, "files")).length).toBe(filesBefore);
    store().deleteNote(W, GID);
  });

  test("the admin clears screenshots, keeps one, deletes a kept file; agents have no such tool", async () => {
    await store().write(W, "screenshots", "s1.png", bytes(5));
    await store().write(W, "screenshots", "s2.png", bytes(5));
    let res = await admin("POST", `${W}/files/screenshots/s1.png/keep`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).uri).toBe("workspace://files/s1.png");
    res = await admin("DELETE", `${W}/files/screenshots`);
    expect(((await res.json()) as any).cleared).toBe(1);
    res = await admin("DELETE", `${W}/files/s1.png`);
    expect(res.status).toBe(200);
    expect(await store().find(W, "files", "s1.png")).toBeNull();
    expect((await admin("DELETE", `${W}/files/s1.png`)).status).toBe(404);
    expect((await admin("GET", "nobody/files")).status).toBe(404);
    expect(((await (await admin("GET", "nobody/files")).json()) as any).error).toBe("no workspace nobody");
    const tools = (await mcp.request("tools/list")).data.result.tools.map((t: any) => t.name);
    expect(tools).toContain("keep_file");
    expect(tools.filter((t: string) => /delete_file|clear/.test(t))).toEqual([]);
  });

  test("a name with a space and parentheses goes through the admin path decoded once", async () => {
    await store().write(W, "screenshots", "a (1) %.png", bytes(5));
    const res = await admin("POST", `${W}/files/screenshots/${encodeURIComponent("a (1) %.png")}/keep`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).name).toBe("a (1) %.png");
  });

  test("the admin's files answer and the row's counts and revision", async () => {
    const res = await admin("GET", `${W}/files`);
    const body = (await res.json()) as any;
    expect(Object.keys(body)).toEqual(
      expect.arrayContaining(["files", "screenshots", "recordings", "downloads", "browser", "counts"]),
    );
    expect(body.recordings).toEqual([]);
    const row = ((await (await admin("GET", W)).json()) as any) ?? {};
    expect(row.counts).toMatchObject({
      files: body.files.length,
      screenshots: 0,
      recordings: 0,
      downloads: 0,
    });
    const rev = row.files_rev;
    await store().write(W, "recordings", "rec-20261010-1000.mp4", bytes(1));
    const row2 = (await (await admin("GET", W)).json()) as any;
    expect(row2.counts.recordings).toBe(1);
    expect(row2.files_rev).not.toBe(rev);
  });
});

describe("over MCP", () => {
  test("the folders are resources, and each item has its template", async () => {
    const listed = (await mcp.request("resources/list")).data.result.resources.map((r: any) => r.uri);
    expect(listed).toEqual(
      expect.arrayContaining([
        "workspace://files",
        "workspace://files/screenshots",
        "workspace://files/recordings",
        "workspace://files/downloads",
      ]),
    );
    const templates = (await mcp.request("resources/templates/list")).data.result.resourceTemplates.map(
      (r: any) => r.uriTemplate,
    );
    expect(templates).toEqual(
      expect.arrayContaining([
        "workspace://files/recordings/{name}",
        "workspace://files/screenshots/{name}",
        "workspace://files/downloads/{name}",
        "workspace://files/{name}",
      ]),
    );
  });

  test("reading a recording answers its entry, not the video; a kept file answers its bytes", async () => {
    await store().write(W, "recordings", REC, bytes(64));
    const entry = await mcp.resource(`workspace://files/recordings/${REC}`);
    expect(entry.name).toBe(REC);
    expect(entry.url).toBeTruthy();
    expect(entry.content_type).toBe("video/mp4");
    await store().write(W, "files", "notes.txt", new TextEncoder().encode("hello"));
    expect(await mcp.resource("workspace://files/notes.txt")).toBe("hello");
    const png = await mcp.request("resources/read", { uri: "workspace://files/screenshots/nothing.png" });
    expect(png.data.error.message).toContain("no screenshot called 'nothing.png'");
    const absent = await mcp.request("resources/read", { uri: "workspace://files/recordings/absent.mp4" });
    expect(absent.data.error.message).toBe(
      "no recording called 'absent.mp4'. workspace://files/recordings lists them",
    );
    const folder = await mcp.resource("workspace://files/screenshots");
    expect(folder.uri).toBe("workspace://files/screenshots");
  });

  test("keep_file moves a recording into Files", async () => {
    await store().write(W, "recordings", "rec-20261011-0800.mp4", bytes(4));
    const out = await mcp.tool("keep_file", { uri: "workspace://files/recordings/rec-20261011-0800.mp4" });
    expect(out.isError).toBeFalsy();
    expect(out.structuredContent.uri).toBe("workspace://files/rec-20261011-0800.mp4");
    expect((await store().list(W, "recordings")).map((f) => f.name)).not.toContain("rec-20261011-0800.mp4");
  });
});

describe("no data dir", () => {
  let bare: TestServer;
  beforeAll(async () => {
    bare = await startServer({ dataDir: false });
  });
  afterAll(async () => {
    await endAll(bare, [W]);
    await bare.close();
  });

  test("the root says files are off; keeping and printing are 400s naming data.dir", async () => {
    const root = (await bare.call("GET", "/files", undefined, W)).body;
    expect(root.off).toBe(FILES_OFF);
    expect(root.folders.find((f: any) => f.name === "screenshots").count).toBeNull();
    const keep = await bare.call("POST", "/files/keep", { uri: "workspace://files/screenshots/a.png" }, W);
    expect(keep.status).toBe(400);
    expect(keep.body.error).toContain("data.dir");
    const print = await bare.call("POST", "/browser/print", {}, W);
    expect(print.status).toBe(400);
    expect(print.body.error).toBe(FILES_OFF);
    // Refused before a browser was opened: the workspace has no record at all.
    expect(await bare.app.services.store.get(W)).toBeNull();
    const list = await bare.call("GET", "/files/recordings", undefined, W);
    expect(list.status).toBe(400);
    expect(list.body.error).toContain("data.dir");
  });
});

describe("the boot", () => {
  const dirs: string[] = [];
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), "sf-boot-"));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const config = (dir: string | null) => {
    const c = defaultConfig();
    c.grid.url = "http://127.0.0.1:9";
    c.data.dir = dir;
    return c;
  };

  test("the boot log says whether the data store is on, and where", async () => {
    const lines: string[] = [];
    const log = new Log("info", (line) => lines.push(line));
    const dir = fresh();
    try {
      for (const c of [config(null), config(dir)]) {
        const services = await buildServices(c, { log });
        await services.store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(lines.some((l) => l.endsWith("INFO  flows: off (set data.dir to enable them)"))).toBe(true);
    expect(lines.some((l) => l.endsWith(`INFO  flows: local, under ${join(dir, "sessions")}`))).toBe(true);
  });

  test("an old layout refuses to build, naming what to move", async () => {
    const dir = fresh();
    mkdirSync(join(dir, "old", "flows"), { recursive: true });
    await expect(buildApp(config(dir))).rejects.toThrow(ConfigError);
    await expect(buildApp(config(dir))).rejects.toThrow(
      `old in ${dir} are session folders from before the sessions/ layout: move them into ${dir}/sessions/`,
    );
  });

  test("main prints selenium-flow: <message> and exits 2", async () => {
    const dir = fresh();
    mkdirSync(join(dir, "old", "flows"), { recursive: true });
    const proc = Bun.spawn([process.execPath, "src/main.ts", "--data-dir", dir], {
      stderr: "pipe",
      stdout: "pipe",
      env: { ...process.env, AUTH_TOKEN: "" },
    });
    const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(2);
    expect(err).toContain("selenium-flow: old in");
    expect(err).toContain("move");
    expect(err).toContain("sessions/");
  });

  test("recording on with a data dir but no inbox refuses; with one it has a collector the manager tells", async () => {
    const dir = fresh();
    const c = config(dir);
    c.recording.enabled = true;
    await expect(buildServices(c)).rejects.toThrow(
      `recording.dir ${join(dir, "recordings")} must exist and be readable and writable by this server: filing a recording moves it out`,
    );
    mkdirSync(join(dir, "recordings"));
    const services = await buildServices(c);
    try {
      expect(services.recordings).not.toBeNull();
      expect(services.workspaces.hooks.recordings).toBe(services.recordings!);
    } finally {
      await services.recordings?.stop();
      await services.store.close();
    }
  });

  test("recording on without a data dir refuses even for a config built in code", async () => {
    const c = config(null);
    c.recording.enabled = true;
    await expect(buildServices(c)).rejects.toThrow(
      "recording.enabled needs data.dir: a recording is filed into its session",
    );
  });
});

describe("zip", () => {
  test("one file out and back; a deflated entry from a real zip reads too", () => {
    const data = bytes(1000);
    expect(unzipOne(zipOne("a (1).bin", data))).toEqual({ name: "a (1).bin", data });
    // "report.csv" holding "a,b\n1,2\n", deflated and streamed (sizes only in the data descriptor), as Java's Grid writes it.
    const grid = Buffer.from(
      "UEsDBBQACAAIAAAAIQAAAAAAAAAAAAAAAAAKAAAAcmVwb3J0LmNzdkvUSeIy1DHiAgBQSwcIeweXCgoAAAAIAAAAUEsBAhQDFAAIAAgAAAAhAHsHlwoKAAAACAAAAAoAAAAAAAAAAAAAAIABAAAAAHJlcG9ydC5jc3ZQSwUGAAAAAAEAAQA4AAAAQgAAAAAA",
      "base64",
    );
    const got = unzipOne(new Uint8Array(grid));
    expect(got.name).toBe("report.csv");
    expect(new TextDecoder().decode(got.data)).toBe("a,b\n1,2\n");
  });
});

test("nothing was left in the inbox or outside sessions/", () => {
  const top = readdirSync(server.dataDir!).filter((n) => !n.startsWith("records.sqlite"));
  expect(top.sort()).toEqual([".link-key", ".store-key", "secret.txt", "sessions"].sort());
  expect(existsSync(join(server.dataDir!, "sessions", W, "files"))).toBe(true);
});
