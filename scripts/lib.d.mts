// Types for lib.mjs, so TypeScript tests can start their own Grid or Redis.
import type { ChildProcess } from "node:child_process";

export const root: string;
export const runDir: string;
export const bunBin: string;
export function log(msg: string): void;
export function ensureApt(
  wanted: Record<string, string>,
  opts?: { who?: string; otherwise?: string[] },
): void;
export function ensureNodeModules(): void;
export function gridJar(): string;
export interface Started {
  url: string;
  child: ChildProcess | null;
  stop(): void;
}
export function startGrid(opts: {
  port: number;
  hostRules?: boolean;
  name?: string;
  maxSessions?: number;
  reuse?: boolean;
  /** seconds a new-session request may wait in the Grid's queue */
  sessionRequestTimeout?: number;
}): Promise<Started>;
export function startHub(opts: {
  port: number;
  nodePort: number;
  hostRules?: boolean;
  name?: string;
  maxSessions?: number;
}): Promise<Started>;
export function startRedis(opts: { port: number }): Promise<Started>;
export function kill(child: ChildProcess | null | undefined): void;
export function sleep(ms: number): Promise<void>;
export function waitFor(
  url: string,
  ok: (body: unknown, res: Response) => boolean,
  timeoutMs: number,
  what: string,
): Promise<unknown>;
export const BROWSER_PACKAGES: Record<string, string>;
