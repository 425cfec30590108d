// Files on the real Grid: screenshots (viewport, whole page, one element) filed, kept into Files and
// served by their signed link with Range; a tampered link refused; a real managed download listed,
// read and kept; upload of a workspace file and of a multipart one into a file input, proven by what
// the page's server received; a print into Files; and over MCP the image block beside the entry,
// with a reopen report a screenshot does not swallow. No Grid id anywhere.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { endAll, logLines, startServer, type TestServer, TOKEN } from "../support/server.ts";

const W = "files-e2e";
const CSV = "when,what\n2026-10-08,report\n";
const received: Array<{ name: string; size: number; bytes: Uint8Array }> = [];
const gridIds = new Set<string>();
const bodies: string[] = [];

const site = serveFixture({
  "/": () =>
    html(`<title>Files home</title><h1>Files</h1>
      <div id="box" style="width:123px;height:45px;background:#c33">box</div>
      <div style="height:2600px">tall</div><p id="end">end</p>`),
  "/download": () =>
    html(`<title>Download</title><a id="d" href="/report.csv">report</a>
      <script>setTimeout(function () { document.getElementById("d").click(); }, 50);</script>`),
  // An export link as sites write them; the page moves on by itself 900 ms after the click.
  "/export": () =>
    html(
      `<title>Export</title><a href="/export.csv" download="export.csv" onclick="setTimeout(() => location.assign('/'), 900)">Export CSV</a>`,
    ),
  "/export.csv": () => new Response(CSV, { headers: { "content-type": "text/csv" } }),
  "/report.csv": () =>
    new Response(CSV, {
      headers: { "content-type": "text/csv", "content-disposition": 'attachment; filename="report.csv"' },
    }),
  "/upload": () =>
    html(`<title>Upload</title>
      <label for="f">Your file</label>
      <input type="file" id="f" style="display:none">
      <script>
        document.getElementById("f").addEventListener("change", function (e) {
          var file = e.target.files[0];
          var form = new FormData();
          form.append("file", file, file.name);
          fetch("/receive", { method: "POST", body: form }).then(function () {
            document.title = "received " + file.name + " " + file.size;
          });
        });
      </script>`),
  "/receive": async (req) => {
    const form = await req.formData();
    const file = form.get("file") as File;
    received.push({ name: file.name, size: file.size, bytes: new Uint8Array(await file.arrayBuffer()) });
    return new Response("ok");
  },
  "/login": () => html("<title>Signed in</title>", { "set-cookie": "sid=files-sid-5c2e; Path=/; HttpOnly" }),
});

let server: TestServer;
let mcp: McpClient;

async function call(method: string, path: string, body?: unknown) {
  const res = await server.call(method, path, body, W);
  bodies.push(JSON.stringify(res.body));
  return res;
}

async function gridIdOf(workspace: string): Promise<string> {
  const id = (await server.app.services.store.get(workspace))?.session_id ?? "";
  if (id) gridIds.add(id);
  return id;
}

const until = async (what: () => Promise<boolean> | boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(100);
  }
};

beforeAll(async () => {
  server = await startServer();
  mcp = await mcpClient(server, W);
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  const everything = [...bodies, ...mcp.texts, ...logLines].join("\n");
  for (const id of gridIds) expect(everything).not.toContain(id);
});

describe("screenshots", () => {
  test("the viewport is filed, kept into Files, and served by its signed link with Range", async () => {
    expect((await call("POST", "/browser/navigate", { url: site.url("/") })).status).toBe(200);
    await gridIdOf(W);
    const shot = await call("POST", "/browser/screenshot", {});
    expect(shot.status).toBe(200);
    expect(shot.body.title).toBe("Files home");
    expect(shot.body.data).toBeUndefined();
    const file = shot.body.file;
    expect(file.name).toMatch(/^screenshot-\d{8}-\d{6}( \(\d+\))?\.png$/);
    expect(file.uri).toBe(`workspace://files/screenshots/${encodeURIComponent(file.name)}`);
    expect(file.image).toBe(true);
    // The viewport as the browser draws it: the 1280-pixel window less any scrollbar.
    expect(shot.body.width).toBeGreaterThan(1200);
    expect(shot.body.width).toBeLessThanOrEqual(1280);

    const kept = await call("POST", "/files/keep", { uri: file.uri });
    expect(kept.status).toBe(200);
    expect(kept.body.uri).toBe(`workspace://files/${encodeURIComponent(file.name)}`);
    expect((await call("GET", "/files/screenshots")).body.files.map((f: any) => f.name)).not.toContain(
      file.name,
    );

    const whole = await fetch(`${server.url}${kept.body.url}`);
    expect(whole.status).toBe(200);
    const png = new Uint8Array(await whole.arrayBuffer());
    expect(Array.from(png.slice(1, 4))).toEqual([0x50, 0x4e, 0x47]);
    const part = await fetch(`${server.url}${kept.body.url}`, { headers: { range: "bytes=1-3" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 1-3/${png.length}`);
    expect(new TextDecoder().decode(await part.arrayBuffer())).toBe("PNG");
    expect(part.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("a tampered link is refused; the same link needs no token", async () => {
    const file = (await call("GET", "/files")).body.files[0];
    const ok = await fetch(`${server.url}${file.url}`);
    expect(ok.status).toBe(200);
    const forged = file.url.replace(/sig=[^&]+/, "sig=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    expect((await fetch(`${server.url}${forged}`)).status).toBe(403);
    const moved = file.url.replace("/files/", "/screenshots/");
    expect((await fetch(`${server.url}${moved}`)).status).toBe(403);
  });

  test("the whole page is taller than the window; one element is its own size", async () => {
    const full = await call("POST", "/browser/screenshot", { full_page: true });
    expect(full.status).toBe(200);
    expect(full.body.height).toBeGreaterThan(2600);
    const box = await call("POST", "/browser/screenshot", { selector: { css: "#box" } });
    expect(box.status).toBe(200);
    expect(box.body.width).toBe(123);
    expect(box.body.height).toBe(45);
    // The window is back to its size after the whole-page capture.
    const viewport = await call("POST", "/browser/screenshot", {});
    expect(viewport.body.height).toBeLessThan(1000);
    const none = await call("POST", "/browser/screenshot", { selector: { css: "#nothing" }, timeout: 0.5 });
    expect(none.status).toBe(400);
  });

  test("print_page files a PDF into Files", async () => {
    const printed = await call("POST", "/browser/print", {});
    expect(printed.status).toBe(200);
    expect(printed.body.file.name).toMatch(/^page-\d{8}-\d{6}\.pdf$/);
    expect(printed.body.file.uri).toStartWith("workspace://files/page-");
    const res = await fetch(`${server.url}${printed.body.file.url}`);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-security-policy")).toBeNull();
    expect(new TextDecoder().decode((await res.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
  });
});

describe("downloads", () => {
  test("a click on a download link answers on its page at once (no navigation awaited) and its file is listed", async () => {
    expect((await call("POST", "/browser/navigate", { url: site.url("/export") })).status).toBe(200);
    // A link followed starts its navigation a moment after the click, so the click waits up to 1 s
    // for one; a download link starts none: waiting would find the page's own move at 900 ms.
    const click = await call("POST", "/browser/interact/click", { selector: { text: "Export CSV" } });
    expect(click.body).toEqual({ url: site.url("/export"), title: "Export" });
    await until(async () =>
      ((await call("GET", "/files/downloads")).body.files as any[]).some((f) => f.name === "export.csv"),
    );
  }, 60_000);

  test("a real download is listed, read, and kept into Files (a copy)", async () => {
    expect((await call("POST", "/browser/navigate", { url: site.url("/download") })).status).toBe(200);
    let listed: any[] = [];
    await until(async () => {
      listed = (await call("GET", "/files/downloads")).body.files;
      return listed.some((f) => f.name === "report.csv");
    });
    const entry = listed.find((f) => f.name === "report.csv");
    expect(entry).toMatchObject({ content_type: "text/csv", size: CSV.length, image: false });
    expect(entry.keep_with).toBe('keep_file("workspace://files/downloads/report.csv")');
    const read = await fetch(`${server.url}/files/downloads/report.csv`, {
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W },
    });
    expect(await read.text()).toBe(CSV);
    const signed = await fetch(`${server.url}${entry.url}`);
    expect(await signed.text()).toBe(CSV);
    expect(signed.headers.get("content-disposition")).toStartWith("attachment;");

    const kept = await call("POST", "/files/keep", { uri: entry.uri });
    expect(kept.status).toBe(200);
    expect(kept.body.name).toBe("report.csv");
    const again = await call("POST", "/files/keep", { uri: entry.uri });
    expect(again.body.name).toBe("report (1).csv");
    expect((await call("GET", "/files/downloads")).body.files.map((f: any) => f.name)).toContain(
      "report.csv",
    );
    const root = (await call("GET", "/files")).body;
    expect(root.folders.find((f: any) => f.name === "downloads").count).toBeGreaterThanOrEqual(1);
    expect(await mcp.resource("workspace://files/report.csv")).toBe(CSV);
  });
});

describe("upload_file", () => {
  test("a workspace file goes into a hidden file input by its label; the page's server gets its bytes", async () => {
    expect((await call("POST", "/browser/navigate", { url: site.url("/upload") })).status).toBe(200);
    const up = await call("POST", "/browser/upload", {
      selector: { label: "Your file" },
      uri: "workspace://files/report.csv",
    });
    expect(up.status).toBe(200);
    expect(up.body.uploaded).toEqual({ name: "report.csv", size: CSV.length });
    expect(up.body.files).toEqual(["report.csv"]);
    await until(() => received.length === 1);
    expect(received[0]!.name).toBe("report.csv");
    expect(new TextDecoder().decode(received[0]!.bytes)).toBe(CSV);
  });

  test("a multipart upload goes in too, and one over 64 MiB is a 413", async () => {
    expect((await call("POST", "/browser/navigate", { url: site.url("/upload") })).status).toBe(200);
    const payload = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
    const form = new FormData();
    form.append("selector", JSON.stringify({ css: "#f" }));
    form.append("file", new Blob([payload]), "photo.bin");
    const res = await fetch(`${server.url}/browser/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W },
      body: form,
    });
    const body = (await res.json()) as any;
    bodies.push(JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(body.uploaded).toEqual({ name: "photo.bin", size: payload.length });
    await until(() => received.length === 2);
    expect(received[1]!.name).toBe("photo.bin");
    expect(received[1]!.bytes).toEqual(payload);

    const big = new FormData();
    big.append("selector", JSON.stringify({ css: "#f" }));
    big.append("file", new Blob([new Uint8Array(64 * 1024 * 1024 + 1)]), "big.bin");
    const over = await fetch(`${server.url}/browser/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W },
      body: big,
    });
    expect(over.status).toBe(413);
  });

  test("a selector that names no file input says so", async () => {
    const res = await call("POST", "/browser/upload", {
      selector: { css: "title" },
      uri: "workspace://files/report.csv",
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("not a file input");
  });
});

describe("over MCP", () => {
  test("screenshot answers an image block and the entry; after a reap it still carries the reopen report", async () => {
    expect((await call("POST", "/browser/navigate", { url: site.url("/login") })).status).toBe(200);
    expect((await call("POST", "/browser/save-site-data", {})).status).toBe(200);
    const id = await gridIdOf(W);
    await fetch(`${testGridUrl}/session/${id}`, { method: "DELETE" });

    const out = await mcp.tool("screenshot", {});
    expect(out.isError).toBeFalsy();
    const image = out.content.find((c: any) => c.type === "image");
    expect(image.mimeType).toBe("image/png");
    expect(Buffer.from(image.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(out.structuredContent.file.uri).toStartWith("workspace://files/screenshots/");
    expect(out.structuredContent.data).toBeUndefined();
    expect(out.structuredContent.site_data.restored).toContain("app.example.test");
    const text = JSON.parse(out.content.find((c: any) => c.type === "text").text);
    expect(text.file.name).toBe(out.structuredContent.file.name);
    await gridIdOf(W);

    const root = await mcp.resource("workspace://files");
    expect(root.folders.map((f: any) => f.name)).toEqual(["files", "screenshots", "recordings", "downloads"]);
    const blob = await mcp.request("resources/read", { uri: out.structuredContent.file.uri });
    expect(blob.data.result.contents[0].mimeType).toBe("image/png");
    expect(blob.data.result.contents[0].blob.length).toBeGreaterThan(100);
  });
});
