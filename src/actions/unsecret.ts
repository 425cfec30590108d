// A page can show back what a bound write typed (a field's value, a greeting, a token in a link).
// What the page-reading actions return passes through here, so no secret value reaches the agent.
import { redact, taints } from "../secrets/bound.ts";
import type { Services } from "../services.ts";
import type { ActionContext } from "./define.ts";

const HIDDEN = "[hidden]";

function secretValues(services: Services): string[] {
  const out: string[] = [];
  for (const secret of services.secrets.all())
    for (const v of secret.keys.values()) if (v.length >= 3) out.push(v);
  // Longest first, so a value that contains another is hidden whole.
  return out.sort((a, b) => b.length - a.length);
}

function hide(values: string[], value: unknown, depth: number): unknown {
  if (typeof value === "string") {
    let s = value;
    for (const v of values) if (s.includes(v)) s = s.split(v).join(HIDDEN);
    return s;
  }
  if (depth > 40 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => hide(values, v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = hide(values, v, depth + 1);
  return out;
}

/** `value` (any JSON) with every secret value in its strings replaced by [hidden]. */
export function withoutSecrets<T>(services: Services, value: T): T {
  const values = secretValues(services);
  return values.length ? (hide(values, value, 0) as T) : value;
}

/**
 * The page's url and title as an agent may see them: a url that carries a secret value (raw or
 * encoded) shows it as [hidden] and is not recorded (`land(null)`), like a bound write's landing.
 */
export function shownPage(
  ctx: Pick<ActionContext, "services" | "land">,
  page: { url: string; title: string },
): { url: string; title: string } {
  let { url, title } = page;
  for (const v of secretValues(ctx.services)) {
    if (taints(url, v)) {
      url = redact(url, v);
      ctx.land(null);
    }
    if (title.includes(v)) title = title.split(v).join(HIDDEN);
  }
  return { url, title };
}
