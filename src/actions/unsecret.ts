// A page can show back what a bound write typed (a field's value, a greeting, a token in a link).
// What the page-reading actions return passes through here, so no secret value reaches the agent.
import { hideSecretsDeep, hideValues, redact, secretValuesOf, taints } from "../secrets/bound.ts";
import type { Services } from "../services.ts";
import type { ActionContext } from "./define.ts";

/** `value` (any JSON) with every secret value in its strings replaced by [hidden]. */
export function withoutSecrets<T>(services: Services, value: T): T {
  return hideSecretsDeep(services.secrets, value);
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
  for (const v of secretValuesOf(ctx.services.secrets)) {
    if (taints(url, v)) {
      url = redact(url, v);
      ctx.land(null);
    }
  }
  return { url, title: hideValues(secretValuesOf(ctx.services.secrets), title) };
}
