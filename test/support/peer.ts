// The harness of test/peer: a fixture site whose pages a test sets as it goes (as Playwright MCP's
// `server.setContent`), our server on the test Grid, and an MCP client in one workspace.
import { expect } from "bun:test";
import { type Fixture, html, type Routes, serveFixture } from "./fixtures.ts";
import { type McpClient, mcpClient } from "./mcp.ts";
import { endAll, startServer, type TestServer, type TestServerOptions } from "./server.ts";

export interface Peer {
  site: Fixture;
  server: TestServer;
  mcp: McpClient;
  /** The fixture's routes, for a response that is not a page. */
  routes: Routes;
  /** Serves `body` (after a doctype and a charset) at `path`. */
  page(path: string, body: string): void;
  /** A tool call over MCP that must succeed; its structuredContent, with the MCP text block as `outline`. */
  tool(name: string, args?: Record<string, unknown>): Promise<any>;
  /** A tool call over MCP that must fail; the error's text. */
  refused(name: string, args?: Record<string, unknown>): Promise<string>;
  /** The ref read_page gives the element of that name. */
  ref(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function peer(
  workspace: string,
  routes: Routes = {},
  opts: TestServerOptions = {},
): Promise<Peer> {
  const site = serveFixture(routes);
  const server = await startServer({ dataDir: true, ...opts });
  const mcp = await mcpClient(server, workspace);
  const p: Peer = {
    site,
    server,
    mcp,
    routes,
    page(path, body) {
      routes[path] = () => html(body);
    },
    async tool(name, args = {}) {
      const got = await mcp.tool(name, args);
      expect([name, got.isError ?? false, got.isError ? got.content?.[0]?.text : ""]).toEqual([
        name,
        false,
        "",
      ]);
      return {
        ...got.structuredContent,
        outline: got.content?.find((c: any) => c.type === "text")?.text,
        raw: got,
      };
    },
    async refused(name, args = {}) {
      const got = await mcp.tool(name, args);
      expect([name, got.isError]).toEqual([name, true]);
      return got.content[0].text as string;
    },
    async ref(name) {
      const read = await p.tool("read_page");
      const el = read.elements.find((e: any) => e.name === name);
      expect([name, el?.ref]).toEqual([name, expect.stringMatching(/^[a-z]+\d+$/)]);
      return el.ref;
    },
    async close() {
      await endAll(server, [workspace]);
      await server.close();
      site.stop();
    },
  };
  return p;
}
