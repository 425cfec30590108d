// GET /metrics read as {`name{labels}`: value}, labels in the order the server wrote them.
import { expect } from "bun:test";

export async function scrapeMetrics(url: string, token: string): Promise<Map<string, number>> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const out = new Map<string, number>();
  for (const line of (await res.text()).split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^(\S+) (\S+)$/.exec(line);
    expect(m).not.toBeNull();
    out.set((m as RegExpExecArray)[1] as string, Number((m as RegExpExecArray)[2]));
  }
  return out;
}

/** What MCP over HTTP holds in the server's memory now, as /metrics says. */
export async function mcpInUse(url: string, token: string): Promise<{ streams: number; busy: number }> {
  const m = await scrapeMetrics(url, token);
  return {
    streams: m.get("selenium_flow_mcp_streams") as number,
    busy: m.get("selenium_flow_mcp_sessions_busy") as number,
  };
}
