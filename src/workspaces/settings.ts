// A workspace's browser settings: what an open asks for over what the last browser had, and the
// Grid options they make.

import { DEFAULT_HEIGHT, DEFAULT_WIDTH, type OpenRequest } from "../actions/shapes.ts";
import type { OpenOptions } from "../grid/webdriver-caps.ts";
import type { BrowserSettings } from "../store/record.ts";

/** What the open asked for, over what the last browser had. `record` and `insecure` are never inherited. */
export function resolveSettings(req: OpenRequest, previous: BrowserSettings): BrowserSettings {
  const pick = <K extends keyof OpenRequest>(k: K) => (req[k] !== undefined ? req[k] : previous[k]);
  const s: BrowserSettings = {
    browser: (pick("browser") as BrowserSettings["browser"]) ?? "chrome",
    width: (pick("width") as number | undefined) ?? DEFAULT_WIDTH,
    height: (pick("height") as number | undefined) ?? DEFAULT_HEIGHT,
  };
  const plt = pick("page_load_timeout");
  const st = pick("script_timeout");
  if (typeof plt === "number") s.page_load_timeout = plt;
  if (typeof st === "number") s.script_timeout = st;
  const viewport = pick("viewport");
  if (viewport) s.viewport = viewport as { width: number; height: number };
  const capture = pick("capture");
  if (capture) s.capture = true;
  const policy = pick("policy") as BrowserSettings["policy"];
  if (policy && (policy.allow?.length || policy.block?.length || policy.private)) s.policy = policy;
  const proxy = pick("proxy");
  if (typeof proxy === "string" && proxy) s.proxy = proxy;
  const routes = pick("routes") as BrowserSettings["routes"];
  if (routes?.length) s.routes = routes;
  if (pick("offline")) s.offline = true;
  const emulate = pick("emulate") as BrowserSettings["emulate"];
  if (emulate && Object.keys(emulate).length) s.emulate = emulate;
  if (req.insecure) s.insecure = true;
  if (req.record) s.record = true;
  return s;
}

export function openOptions(workspace: string, s: BrowserSettings, proxy?: string): OpenOptions {
  return {
    browser: s.browser ?? "chrome",
    width: s.width ?? DEFAULT_WIDTH,
    height: s.height ?? DEFAULT_HEIGHT,
    insecure: s.insecure === true,
    pageLoadTimeout: s.page_load_timeout,
    scriptTimeout: s.script_timeout,
    record: s.record === true,
    videoName: workspace,
    workspace,
    ...(proxy ? { proxy } : {}),
    ...(s.emulate?.geolocation ? { geolocation: true } : {}),
  };
}
