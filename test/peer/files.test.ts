// Playwright MCP's file upload, screenshot and PDF scenarios (microsoft/playwright tests/mcp files,
// screenshot and pdf specs), written anew against our tools over MCP. Our upload_file takes
// workspace files, not paths on the server's disk: a multipart upload over REST, then over MCP a
// file the workspace printed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Peer, peer } from "../support/peer.ts";
import { TOKEN } from "../support/server.ts";

const W = "peer-files";
let p: Peer;

beforeAll(async () => {
  p = await peer(W);
  p.page(
    "/upload",
    `<title>Upload</title><input type="file" aria-label="Choose" onchange="document.getElementById('out').textContent = this.files[0].name + ':' + this.files[0].size"><div id="out"></div>`,
  );
  p.page(
    "/shot",
    `<title>Shot</title><style>body{margin:0}#box{width:120px;height:45px;background:#c00}</style><div id="box">Box</div><div style="height:3000px"></div><p>End</p>`,
  );
});
afterAll(() => p.close());

/** PNG's width and height from its IHDR chunk. */
function pngSize(b64: string): [number, number] {
  const bytes = Buffer.from(b64, "base64");
  expect(bytes.subarray(1, 4).toString()).toBe("PNG");
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

test("browser_file_upload (files.spec.ts: browser_file_upload)", async () => {
  await p.tool("navigate", { url: p.site.url("/upload") });
  // A first upload over REST puts the file in; the MCP one then names it by its uri.
  const form = new FormData();
  form.append("selector", JSON.stringify({ label: "Choose" }));
  form.append("file", new Blob(["Hello, world!"]), "test.txt");
  const first = await fetch(`${p.server.url}/browser/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W },
    body: form,
  });
  expect(first.status).toBe(200);
  expect(((await p.tool("read_page")) as any).text).toContain("test.txt:13");
  // Over MCP the file is one of the workspace's own: here the page printed to a PDF.
  const printed = await p.tool("print_page");
  await p.tool("navigate", { reload: true });
  const up = await p.tool("upload_file", { selector: { ref: await p.ref("Choose") }, uri: printed.file.uri });
  expect([up.uploaded, up.files]).toEqual([
    { name: printed.file.name, size: printed.file.size },
    [printed.file.name],
  ]);
  expect((await p.tool("read_page")).text).toContain(`${printed.file.name}:${printed.file.size}`);
});

test("browser_take_screenshot (viewport) (screenshot.spec.ts: browser_take_screenshot (viewport))", async () => {
  await p.tool("navigate", { url: p.site.url("/shot") });
  const shot = await p.tool("screenshot");
  const image = shot.raw.content.find((c: any) => c.type === "image");
  expect(image.mimeType).toBe("image/png");
  const [w, h] = pngSize(image.data);
  expect([w, h]).toEqual([shot.width, shot.height]);
  expect(h).toBeLessThan(1500);
  expect(shot.file.uri).toStartWith("workspace://files/screenshots/");
});

test("browser_take_screenshot (element) (screenshot.spec.ts: browser_take_screenshot (element))", async () => {
  const shot = await p.tool("screenshot", { selector: { css: "#box" } });
  const image = shot.raw.content.find((c: any) => c.type === "image");
  expect(pngSize(image.data)).toEqual([120, 45]);
});

test("browser_take_screenshot (fullPage: true) (screenshot.spec.ts: browser_take_screenshot (fullPage: true))", async () => {
  const shot = await p.tool("screenshot", { full_page: true });
  const image = shot.raw.content.find((c: any) => c.type === "image");
  expect(pngSize(image.data)[1]).toBeGreaterThan(3000);
});

test("fullPage with element (screenshot.spec.ts: browser_take_screenshot (fullPage with element should error))", async () => {
  const text = await p.refused("screenshot", { full_page: true, selector: { css: "#box" } });
  expect(text).toContain("full_page");
});

test("clicking on download link emits download (files.spec.ts: clicking on download link emits download)", async () => {
  p.page("/dl", `<title>Download</title><a href="/data.csv" download>Get the data</a>`);
  p.routes["/data.csv"] = () =>
    new Response("a,b\n1,2\n", {
      headers: { "content-type": "text/csv", "content-disposition": 'attachment; filename="data.csv"' },
    });
  await p.tool("navigate", { url: p.site.url("/dl") });
  await p.tool("interact", { action: "click", selector: { ref: await p.ref("Get the data") } });
  let listed: any[] = [];
  for (let i = 0; i < 50 && !listed.some((f) => f.name === "data.csv"); i++) {
    await Bun.sleep(100);
    listed = (await p.mcp.resource("workspace://files/downloads")).files;
  }
  expect(listed.find((f) => f.name === "data.csv")).toMatchObject({ size: 8 });
  expect(await p.mcp.resource("workspace://files/downloads/data.csv")).toBe("a,b\n1,2\n");
});

test("save as pdf (pdf.spec.ts: save as pdf)", async () => {
  const printed = await p.tool("print_page");
  expect(printed.file.name).toEndWith(".pdf");
  const res = await fetch(`${p.server.url}${printed.file.url}`);
  expect(res.headers.get("content-type")).toBe("application/pdf");
  expect(new TextDecoder().decode((await res.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
});

test("save as pdf unavailable (pdf.spec.ts: save as pdf unavailable)", async () => {
  // Upstream needs a capability; ours needs a data dir to file the PDF into.
  const bare = await peer(`${W}-bare`, {}, { dataDir: false });
  try {
    // Refused before any browser is opened: no Grid slot is taken for a call that cannot succeed.
    expect(await bare.refused("print_page")).toContain("set data.dir");
    expect((await bare.server.call("GET", "/browser", undefined, `${W}-bare`)).body.live).toBe(false);
  } finally {
    await bare.close();
  }
});
